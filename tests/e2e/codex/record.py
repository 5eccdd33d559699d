"""Record what the real Codex CLI sends its hooks, for docs/codex.md and later replay tests.

``.venv/bin/python -m tests.e2e.codex.record [VERSION]`` runs one scripted plan-mode session
of the cached CLI (tests/e2e/codex/install.sh VERSION) against the fake Responses API, with a
logging hook on every event, and writes each payload in arrival order, and the session's
transcript, into ``tests/e2e/hook_payloads/codex/<VERSION>/`` with the workspace, the home
directory and the session id replaced by ``WORKSPACE``, ``HOME`` and ``SESSION_ID``.

The session: a read (``cat``), a patch of a source file (denied by the hook), a patch adding
a plan file (let through: Codex's plan mode does not stop it), ``rm -rf src`` (Codex asks; the
``PermissionRequest`` hook denies), a ``<proposed_plan>`` whose turn end the ``Stop`` hook
blocks with feedback, the revised plan, "No, stay in Plan mode", then ``/exit``.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.e2e.codex import fake_api
from tests.e2e.codex.fake_api import FakeApi, Request, custom_tool_call, function_call, text
from tests.e2e.codex.tui import HOOK_EVENTS, Codex, installed, versions

OUT = Path(__file__).resolve().parent.parent / "hook_payloads" / "codex"
LOG_HOOK = Path(__file__).resolve().parent / "log_hook.py"
PLAN = "# Greet by name\n\n## Summary\nRead the name from argv in src/app.py.\n"
REVISED = PLAN + "\n## Test Plan\nA test for the greeting.\n"
DENY_PATCH = "Denied by plan mode: only the plan may be written while planning"
DENY_RM = "Denied by plan mode: rm is not a read-only program"
FEEDBACK = "The user rejected the plan: add a test for the greeting."


def rules() -> list[dict[str, Any]]:
    return [
        {
            "event": "PreToolUse",
            "tool": "apply_patch",
            "contains": "Update File: src/app.py",
            "stdout": {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": DENY_PATCH,
                }
            },
        },
        {
            "event": "PermissionRequest",
            "stdout": {
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "deny", "message": DENY_RM},
                }
            },
        },
        {"event": "Stop", "once": True, "stdout": {"decision": "block", "reason": FEEDBACK}},
    ]


def redact(raw: str, scratch: Path, session_id: str) -> str:
    for real, placeholder in (
        (scratch / "workspace", "WORKSPACE"),
        (scratch / "home", "HOME"),
        (scratch, "SCRATCH"),
    ):
        raw = raw.replace(str(real), placeholder)
    return raw.replace(session_id, "SESSION_ID")


def record(version: str, scratch: Path) -> Path:
    workspace = scratch / "workspace"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("print('hello')\n")
    home = scratch / "home"
    logs = scratch / "hooks"
    logs.mkdir()
    (logs / "answers.json").write_text(json.dumps(rules()))
    command = f"{sys.executable} {LOG_HOOK} {logs}"
    hooks = {event: [{"hooks": [{"type": "command", "command": command}]}] for event in HOOK_EVENTS}
    api = FakeApi()
    codex = Codex(version, workspace, home, api.start(), scratch, hooks=hooks)
    try:
        codex.ready()
        codex.plan_mode()
        codex.type("Plan greeting by name in src/app.py")

        def step(*items: dict[str, Any]) -> Request:
            api.reply(*items)
            return api.turn(30)

        api.turn(30)
        step(function_call("exec_command", {"cmd": "cat src/app.py"}))
        patch = fake_api.patch(fake_api.update_file("src/app.py", "print('hello')", "print('hi')"))
        step(custom_tool_call("apply_patch", patch))
        step(custom_tool_call("apply_patch", fake_api.patch(fake_api.add_file("plan.md", PLAN))))
        step(function_call("exec_command", {"cmd": "rm -rf src"}))
        step(text(f"My plan:\n\n<proposed_plan>\n{PLAN}</proposed_plan>\n"))
        api.reply(text(f"Revised:\n\n<proposed_plan>\n{REVISED}</proposed_plan>\n"))
        codex.wait_screen("Implement this plan", 30, visible=True)
        codex.keys("3")  # No, stay in Plan mode
        codex.keys("Enter")
        codex.wait_status("Plan mode", 10)
        codex.type("/exit")
        codex.wait_exit(30)
        time.sleep(1)
    finally:
        codex.close()
        api.stop()
    transcript = codex.transcript_path()
    assert transcript is not None, "Codex wrote no transcript"
    payloads = [json.loads(path.read_text()) for path in sorted(logs.glob("[0-9]*.json"))]
    session_id = str(payloads[0]["session_id"])
    out = OUT / version
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for number, payload in enumerate(payloads):
        detail = payload.get("tool_name") or payload.get("source") or payload.get("reason")
        name = f"{number:02d}_{payload['hook_event_name']}" + (f"_{detail}" if detail else "")
        (out / f"{name}.json").write_text(
            redact(json.dumps(payload, indent=2), scratch, session_id) + "\n"
        )
    (out / "transcript.jsonl").write_text(redact(transcript.read_text(), scratch, session_id))
    return out


def main() -> int:
    version = sys.argv[1] if len(sys.argv) > 1 else versions()[0]
    why = installed(version)
    if why is not None:
        print(f"Codex CLI {version} cannot run here: {why}")
        return 1
    with tempfile.TemporaryDirectory(prefix="codex-record-") as scratch:
        print(record(version, Path(scratch)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
