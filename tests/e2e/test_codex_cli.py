"""Smoke test of the real Codex CLI (@openai/codex, pinned) in its Plan mode, with hooks.

Groundwork for the Codex adapter (docs/codex.md): no planmode yet, only a tiny logging hook of
the test's own (tests/e2e/codex/log_hook.py) on every event. Codex runs interactively in tmux
against a scripted Responses API on 127.0.0.1; the test plays the model, one tool call per
turn, and reads what each call did from the next request. It shows, on the pinned version:

1. Codex starts offline straight into its prompt, its ``/plan`` switches to Plan mode (an
   instruction to the model, the ``<collaboration_mode>`` developer message), and nothing
   but the fake API is reached (its start-up announcement fetch is refused by the test's proxy);
2. a read (``cat`` through ``exec_command``) runs, and the hook sees it as ``Bash``;
3. the hook sees a write (``apply_patch`` of a source file, the whole patch as ``command``)
   and denies it with a reason the model reads verbatim; the file is unchanged;
4. the hook sees a shell command (``ls src``), which runs;
5. the plan: a ``<proposed_plan>`` block ends the turn, the ``Stop`` hook runs with the plan
   already in the transcript (a ``Plan`` item), and Codex asks "Implement this plan?";
6. ``/exit`` reaches the ``SessionEnd`` hook.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.codex.fake_api import FakeApi, Request, custom_tool_call, function_call, text
from tests.e2e.codex.fake_api import patch as make_patch
from tests.e2e.codex.fake_api import update_file as patch_update
from tests.e2e.codex.tui import Codex, installed, versions

# The pinned version; `make agents-latest` runs npm's newest instead.
VERSION = os.environ.get("PLANMODE_CODEX_VERSION") or versions()[0]
LOG_HOOK = Path(__file__).parent / "codex" / "log_hook.py"
ORIGINAL = "print('hello')\n"
REASON = "Denied by the test's hook: only the plan may be written while planning"
PLAN = "# Greet by name\n\n## Summary\nRead the name from argv in src/app.py.\n"
# What Codex fetches on its own at start-up even offline: refused by the fake API's proxy.
ALLOWED_TUNNELS = {"raw.githubusercontent.com:443"}


def deny_patch_of_source() -> list[dict[str, Any]]:
    return [
        {
            "event": "PreToolUse",
            "tool": "apply_patch",
            "contains": "Update File: src/app.py",
            "stdout": {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": REASON,
                }
            },
        }
    ]


class Session:
    """The scripted model's side of one Codex session, and what the hook logged."""

    def __init__(self, api: FakeApi, codex: Codex, logs: Path) -> None:
        self.api = api
        self.codex = codex
        self.logs = logs

    def turn(self, timeout: float = 30.0) -> Request:
        try:
            return self.api.turn(timeout)
        except TimeoutError:
            raise TimeoutError(
                f"Codex sent no request within {timeout:.0f} s; its screen:\n"
                + self.codex.visible()
            ) from None

    def call(self, item: dict[str, Any]) -> Request:
        """The model makes one tool call; the request that carries its output."""
        self.api.reply(item)
        return self.turn()

    def payloads(self, event: str, tool: str | None = None) -> list[dict[str, Any]]:
        found = []
        for path in sorted(self.logs.glob("[0-9]*.json")):
            payload = json.loads(path.read_text())
            if payload.get("hook_event_name") == event and tool in (None, payload.get("tool_name")):
                found.append(payload)
        return found


def report(api: FakeApi, codex: Codex, logs: Path, out: Path) -> str:
    out.mkdir(parents=True, exist_ok=True)
    (out / "screen.txt").write_text(codex.screen())
    (out / "api-requests.txt").write_text(api.dump())
    outputs = [json.dumps(r.output()[:300]) for r in api.main_requests()]
    hooks = [p.name for p in sorted(logs.glob("[0-9]*.json"))]
    return "\n".join(
        [
            f"== Codex {codex.version}: files in {out}",
            "== screen",
            codex.visible().rstrip(),
            "== hook payloads",
            *hooks,
            "== tool outputs the fake API received",
            *outputs,
        ]
    )


def test_codex_plan_mode_with_hooks(tmp_path: Path) -> None:
    why = installed(VERSION)
    if why is not None:
        pytest.skip(f"Codex CLI {VERSION} cannot run here: {why}")
    root = (tmp_path / "workspace").resolve()
    (root / "src").mkdir(parents=True)
    app = root / "src" / "app.py"
    app.write_text(ORIGINAL)
    logs = tmp_path / "hooks"
    logs.mkdir()
    (logs / "answers.json").write_text(json.dumps(deny_patch_of_source()))
    command = f"{sys.executable} {LOG_HOOK} {logs}"
    events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "Stop"]
    hooks: dict[str, list[dict[str, Any]]] = {
        event: [{"hooks": [{"type": "command", "command": command}]}] for event in events
    }
    hooks["SessionEnd"] = [{"hooks": [{"type": "command", "command": command, "timeout": 3}]}]

    api = FakeApi()
    base_url = api.start()
    codex = Codex(VERSION, root, tmp_path / "home", base_url, tmp_path, hooks=hooks)
    try:
        plan_in_codex(Session(api, codex, logs), root, app)
    except BaseException:
        print(report(api, codex, logs, tmp_path / "codex-report"))
        raise
    finally:
        codex.close()
        api.stop()


def plan_in_codex(session: Session, root: Path, app: Path) -> None:
    codex = session.codex
    codex.ready()
    codex.plan_mode()
    codex.type("Plan greeting by name in src/app.py")
    first = session.turn()
    assert {"exec_command", "apply_patch"} <= set(first.tool_names), first.tool_names
    assert any("<collaboration_mode># Plan Mode" in t for t in first.user_texts())
    started = session.payloads("SessionStart")
    assert started and started[0]["cwd"] == str(root), started

    # A read runs; the hook saw it as Bash.
    read = session.call(function_call("exec_command", {"cmd": "cat src/app.py"}))
    assert "print('hello')" in read.output(), read.output()
    bash = session.payloads("PreToolUse", "Bash")
    assert [p["tool_input"] for p in bash] == [{"command": "cat src/app.py"}], bash
    # Codex's Plan mode is an instruction: the mode is not in the payload.
    assert bash[0]["permission_mode"] == "default", bash[0]

    # A write of a source file: the hook sees the whole patch and denies it; the model reads
    # the reason verbatim.
    source_patch = make_patch(patch_update("src/app.py", "print('hello')", "print('hi')"))
    written = session.call(custom_tool_call("apply_patch", source_patch))
    patches = session.payloads("PreToolUse", "apply_patch")
    assert [p["tool_input"] for p in patches] == [{"command": source_patch}], patches
    told = written.output()
    assert told.startswith(f"Command blocked by PreToolUse hook: {REASON}"), told
    assert app.read_text() == ORIGINAL

    # A shell command: the hook sees it, and it runs.
    listed = session.call(function_call("exec_command", {"cmd": "ls src"}))
    assert "app.py" in listed.output(), listed.output()
    assert session.payloads("PreToolUse", "Bash")[-1]["tool_input"] == {"command": "ls src"}

    # The plan: a <proposed_plan> block ends the turn. The Stop hook runs with the plan in the
    # transcript already, and Codex offers to implement it.
    session.api.reply(text(f"The plan:\n\n<proposed_plan>\n{PLAN}</proposed_plan>\n"))
    codex.wait_screen("Implement this plan", 30, visible=True)
    stops = session.payloads("Stop")
    assert len(stops) == 1 and stops[0]["stop_hook_active"] is False, stops
    assert stops[0]["last_assistant_message"] == "The plan:\n\n", stops
    plans = [
        line["payload"]["item"]["text"]
        for line in codex.transcript()
        if line.get("type") == "event_msg"
        and line["payload"].get("type") == "item_completed"
        and line["payload"]["item"].get("type") == "Plan"
    ]
    assert plans == [PLAN], plans
    assert stops[0]["transcript_path"] == str(codex.transcript_path())

    codex.keys("3")  # No, stay in Plan mode
    codex.keys("Enter")
    codex.wait_status("Plan mode", 10)
    codex.type("/exit")
    codex.wait_exit(20)
    ended = session.payloads("SessionEnd")
    assert [p.get("reason") for p in ended] == ["other"], ended
    assert ended[0]["session_id"] == started[0]["session_id"]

    # Nothing but the fake API was reached.
    tunnels = {r.path for r in session.api.log if r.method == "CONNECT"}
    assert tunnels <= ALLOWED_TUNNELS, tunnels
