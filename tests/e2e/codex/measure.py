"""Replay what planmode's Codex adapter relies on beyond the smoke test (docs/codex.md, "The
adapter"), against the real CLI, with the logging hook answering as told:

``.venv/bin/python -m tests.e2e.codex.measure [VERSION]``

* ``handoff``: a ``Stop`` answer of ``{"systemMessage": M}`` ends the turn with M on screen and
  Codex's "Implement this plan?" still comes; "1" switches to Default mode and sends
  ``Implement the plan.``, whose ``UserPromptSubmit`` finds its turn's ``turn_context``
  (default) and whose ``additionalContext`` is a developer message after the prompt; a
  ``Stop`` hook with ``timeout: 86400`` is trusted by its hash.
* ``fresh_thread``: "2" starts a new session whose prompt names ``approved-plan.md``, holding
  the proposed plan's text; ``SessionStart``'s and ``UserPromptSubmit``'s ``additionalContext``
  reach its first request.
* ``block_approval``: a ``Stop`` block saying "approved, implement it" keeps the turn in Plan
  mode (its one ``turn_context`` says plan), a patch then runs (Codex enforces nothing), and
  the turn's end still asks "Implement this plan?".

Each prints what it saw and fails (exit 1) when a fact no longer holds.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.e2e.codex.fake_api import FakeApi, custom_tool_call, text
from tests.e2e.codex.fake_api import patch as make_patch
from tests.e2e.codex.fake_api import update_file as patch_update
from tests.e2e.codex.tui import Codex, installed, versions

LOG_HOOK = Path(__file__).with_name("log_hook.py")
PLAN = "# P\n\n1. step\n"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "Stop")


class Run:
    """One Codex in Plan mode with the logging hook on every event, answering ``rules``."""

    def __init__(self, version: str, work: Path, rules: list[dict[str, Any]]) -> None:
        self.root = (work / "workspace").resolve()
        (self.root / "src").mkdir(parents=True)
        (self.root / "src" / "app.py").write_text("print('hello')\n")
        self.logs = work / "hooks"
        self.logs.mkdir()
        (self.logs / "answers.json").write_text(json.dumps(rules))
        command = f"{sys.executable} {LOG_HOOK} {self.logs}"
        hooks: dict[str, list[dict[str, Any]]] = {
            event: [{"hooks": [{"type": "command", "command": command}]}] for event in EVENTS
        }
        hooks["Stop"][0]["hooks"][0]["timeout"] = 86400
        self.api = FakeApi()
        self.codex = Codex(version, self.root, work / "home", self.api.start(), work, hooks=hooks)

    def payloads(self, event: str) -> list[dict[str, Any]]:
        found = []
        for path in sorted(self.logs.glob("[0-9]*.json")):
            payload = json.loads(path.read_text())
            if payload.get("hook_event_name") == event:
                found.append(payload)
        return found

    def plan(self) -> None:
        self.codex.ready()
        self.codex.plan_mode()
        self.codex.type("Plan greeting")
        self.api.turn(30)
        self.api.reply(text(f"Plan:\n\n<proposed_plan>\n{PLAN}</proposed_plan>\n"))

    def close(self) -> None:
        self.codex.close()
        self.api.stop()


def check(fact: str, holds: bool) -> bool:
    print(f"  {'ok ' if holds else 'NOT'} {fact}")
    return holds


def mode_of_turn(lines: list[dict[str, Any]], turn: str) -> str | None:
    for line in lines:
        payload = line.get("payload") or {}
        if line.get("type") == "turn_context" and payload.get("turn_id") == turn:
            return str(payload["collaboration_mode"]["mode"])
    return None


def handoff(version: str, work: Path) -> bool:
    context = {"hookEventName": "UserPromptSubmit", "additionalContext": "HANDED"}
    run = Run(
        version,
        work,
        [
            {"event": "Stop", "once": True, "stdout": {"systemMessage": "NOTE approved"}},
            {"event": "UserPromptSubmit", "stdout": {"hookSpecificOutput": context}},
        ],
    )
    try:
        run.plan()
        shown = run.codex.wait_screen("Implement this plan", 30, visible=True)
        ok = check(
            "the Stop hook (timeout 86400) ran: no 'Hooks need review'", bool(run.payloads("Stop"))
        )
        ok &= check("systemMessage on screen, and Codex still asks", "NOTE approved" in shown)
        run.codex.keys("1")
        request = run.api.turn(30)
        texts = request.user_texts()
        ok &= check("'1' sends 'Implement the plan.'", "Implement the plan." in texts)
        ok &= check("additionalContext follows the prompt", texts[-1:] == ["HANDED"])
        prompt = run.payloads("UserPromptSubmit")[-1]
        mode = mode_of_turn(run.codex.transcript(), prompt["turn_id"])
        ok &= check("its turn_context says default", mode == "default")
        run.api.reply(text("Done."))
        return ok
    finally:
        run.close()


def fresh_thread(version: str, work: Path) -> bool:
    start = {"hookEventName": "SessionStart", "additionalContext": "STARTED"}
    prompt = {"hookEventName": "UserPromptSubmit", "additionalContext": "HANDED"}
    run = Run(
        version,
        work,
        [
            {"event": "SessionStart", "stdout": {"hookSpecificOutput": start}},
            {"event": "UserPromptSubmit", "stdout": {"hookSpecificOutput": prompt}},
        ],
    )
    try:
        run.plan()
        run.codex.wait_screen("Implement this plan", 30, visible=True)
        run.codex.keys("Down")
        run.codex.keys("Enter")
        request = run.api.turn(30)
        texts = request.user_texts()
        asked = next((t for t in texts if t.startswith("Read the approved plan at ")), "")
        named = Path(asked.removeprefix("Read the approved plan at ").split(" and implement")[0])
        sessions = {p["session_id"] for p in run.payloads("SessionStart")}
        ok = check("a new session", len(sessions) == 2)
        ok &= check(
            "approved-plan.md holds the proposed plan",
            named.is_file() and named.read_text() == PLAN,
        )
        ok &= check(
            "both additionalContexts reach it", "STARTED" in texts and texts[-1] == "HANDED"
        )
        run.api.reply(text("Done."))
        return ok
    finally:
        run.close()


def block_approval(version: str, work: Path) -> bool:
    said = "APPROVED: implement it now."
    run = Run(
        version,
        work,
        [{"event": "Stop", "once": True, "stdout": {"decision": "block", "reason": said}}],
    )
    try:
        run.plan()
        run.api.turn(30)
        source = make_patch(patch_update("src/app.py", "print('hello')", "print('hi')"))
        run.api.reply(custom_tool_call("apply_patch", source))
        run.api.turn(30)
        run.api.reply(text("Implemented."))
        shown = run.codex.wait_screen("Implement this plan", 30, visible=True)
        ok = check(
            "the patch ran in Plan mode",
            (run.root / "src" / "app.py").read_text() == "print('hi')\n",
        )
        ok &= check("Codex still asks 'Implement this plan?'", "Implement this plan" in shown)
        modes = [
            line["payload"]["collaboration_mode"]["mode"]
            for line in run.codex.transcript()
            if line.get("type") == "turn_context"
        ]
        ok &= check("the turn stayed in Plan mode", modes == ["plan"])
        return ok
    finally:
        run.close()


def main(argv: list[str]) -> int:
    version = argv[0] if argv else versions()[0]
    why = installed(version)
    if why is not None:
        print(f"Codex CLI {version} cannot run here: {why}")
        return 1
    ok = True
    for experiment in (handoff, fresh_thread, block_approval):
        print(f"{experiment.__name__} (Codex {version}):")
        with tempfile.TemporaryDirectory(
            prefix="codex-measure-", ignore_cleanup_errors=True
        ) as tmp:
            ok &= experiment(version, Path(tmp))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
