"""``planmode hook codex`` against the real server, fed what the real Codex CLI sent (0.169.0).

``hook_payloads/codex/0.169.0/`` holds one recorded Plan-mode session: its hook payloads in
order and its transcript, with the workspace, home and session id replaced by placeholders.
Here they are replayed as Codex runs the hook (the transcript on disk where the payload says),
the editor side played by a real LSP client: what each event prints, what the server's
session does, and how the hook fails closed while Codex plans.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planmode import runtime
from tests.e2e.harness import Editor

RECORDED = Path(__file__).parent / "hook_payloads" / "codex" / "0.169.0"
SESSION = "019b0000-aaaa-7000-8000-000000000001"
TURN = "01a2325b-2775-7891-a1f2-9db32d154122"
PLAN = "# Greet by name\n\n## Summary\nRead the name from argv in src/app.py.\n"
REVISED = PLAN + "\n## Test Plan\nA test for the greeting.\n"


class Recorded:
    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home

    def text(self, name: str) -> str:
        raw = (RECORDED / name).read_text()
        return (
            raw.replace("WORKSPACE", str(self.root))
            .replace("HOME", str(self.home))
            .replace("SESSION_ID", SESSION)
        )

    def event(self, name: str, **changes: Any) -> dict[str, Any]:
        payload: dict[str, Any] = json.loads(self.text(name))
        payload.update(changes)
        return payload

    @property
    def transcript(self) -> Path:
        return Path(self.event("02_PreToolUse_Bash.json")["transcript_path"])

    def write_transcript(self, lines: int | None = None, mode: str | None = None) -> None:
        """The recorded transcript where Codex keeps it: its first ``lines``, and with the
        turn's collaboration mode changed to ``mode``."""
        text = self.text("transcript.jsonl")
        if mode is not None:
            text = text.replace(
                '"collaboration_mode":{"mode":"plan"', f'"collaboration_mode":{{"mode":"{mode}"'
            )
        recorded = text.splitlines(keepends=True)
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        self.transcript.write_text("".join(recorded[:lines]))


def hook(event: dict[str, Any] | str, env: dict[str, str] | None = None) -> dict[str, Any] | None:
    result = subprocess.run(
        [sys.executable, "-m", "planmode", "hook", "codex"],
        input=event if isinstance(event, str) else json.dumps(event),
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else None


async def ask(event: dict[str, Any]) -> dict[str, Any] | None:
    return await asyncio.to_thread(hook, event)


@pytest.fixture
def recorded(root: Path, home: Path) -> Recorded:
    session = Recorded(root, home)
    session.write_transcript()
    return session


def reason(output: dict[str, Any] | None) -> str:
    assert output is not None
    specific = output["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny", output
    return str(specific["permissionDecisionReason"])


async def test_while_codex_plans(editor: Editor, recorded: Recorded) -> None:
    await editor.endpoint()
    read = await ask(recorded.event("02_PreToolUse_Bash.json"))
    state = await editor.state(SESSION)
    assert state["mode"] == "plan", state
    if read is not None:  # a sandbox works here: the line runs in it, rewritten
        rewritten = read["hookSpecificOutput"]
        assert rewritten["permissionDecision"] == "allow"
        assert rewritten["updatedInput"]["command"].endswith("'cat src/app.py' bash")
    patched = reason(await ask(recorded.event("04_PreToolUse_apply_patch.json")))
    assert patched.startswith("Denied by plan mode (nothing is written while planning): ")
    assert "<proposed_plan>" in patched
    # The plan file Codex's model might write is no exception: Codex has none.
    plan_file = reason(await ask(recorded.event("05_PreToolUse_apply_patch.json")))
    assert "nothing is written" in plan_file
    removed = reason(await ask(recorded.event("07_PreToolUse_Bash.json")))
    assert removed.startswith("Denied by plan mode (read-only Bash): rm"), removed
    # Codex asks the user itself for rm -rf; plan mode spoke already.
    assert await ask(recorded.event("08_PermissionRequest_Bash.json")) is None


async def test_the_plan_is_reviewed_at_the_turns_end(editor: Editor, recorded: Recorded) -> None:
    await editor.endpoint()
    # The turn as far as its first plan: the Stop hook puts that plan under review.
    recorded.write_transcript(lines=32)
    stop = asyncio.create_task(ask(recorded.event("09_Stop.json")))
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    assert requested["sessionId"] == SESSION and requested["submittedPlan"] == PLAN
    plan = Path(requested["planFilePath"])
    assert plan.read_text() == PLAN
    await editor.request(
        "planMode/reject", {"approvalId": requested["approvalId"], "feedback": "Add a test."}
    )
    blocked = await asyncio.wait_for(stop, 30)
    assert blocked is not None and blocked["decision"] == "block", blocked
    assert blocked["reason"].startswith(
        "User rejected the plan. Keep planning: you are still in plan mode. Revise it and "
        "propose your plan in a <proposed_plan> block again when it is ready."
    )
    assert "Add a test." in blocked["reason"]
    # The rejection went back to the model (a HookPrompt); a turn end with no new plan since
    # ends the turn: nothing is reviewed again.
    recorded.write_transcript(lines=34)
    assert await ask(recorded.event("10_Stop.json")) is None
    # The revision is reviewed; approved, the turn ends and the approved plan waits for the
    # prompt that implements it.
    recorded.write_transcript()
    stop = asyncio.create_task(ask(recorded.event("10_Stop.json")))
    again = await editor.wait_for("planMode/approvalRequested", count=2, timeout=30)
    assert again["submittedPlan"] == REVISED
    await editor.request("planMode/approve", {"approvalId": again["approvalId"]})
    ended = await asyncio.wait_for(stop, 30)
    assert ended is not None and "approved in the editor" in ended["systemMessage"], ended
    assert (await editor.state(SESSION))["mode"] == "default"
    # Still in Plan mode, a prompt gets nothing; in Default mode it gets the approved plan.
    prompt = recorded.event("01_UserPromptSubmit.json", prompt="Implement the plan.")
    assert await ask(prompt) is None
    recorded.write_transcript(mode="default")
    handed = await ask(prompt)
    assert handed is not None
    context = handed["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("User has approved your plan.") and REVISED in context
    assert "## Approved Plan:\n" in context
    assert await ask(prompt) is None  # once


async def test_outside_plan_mode_the_hook_has_no_opinion(
    editor: Editor, recorded: Recorded
) -> None:
    await editor.endpoint()
    await ask(recorded.event("02_PreToolUse_Bash.json"))
    assert (await editor.state(SESSION))["mode"] == "plan"
    # The user switched Codex back to Default mode: the session leaves plan mode with it.
    recorded.write_transcript(mode="default")
    assert await ask(recorded.event("07_PreToolUse_Bash.json")) is None
    assert await ask(recorded.event("04_PreToolUse_apply_patch.json")) is None
    assert await ask(recorded.event("08_PermissionRequest_Bash.json")) is None
    assert await ask(recorded.event("09_Stop.json")) is None
    state = await editor.state(SESSION)
    assert state["mode"] == "default" and state["pendingApproval"] is None, state
    assert await ask(recorded.event("11_SessionEnd_other.json")) is None


def test_no_editor_server_no_opinion(recorded: Recorded) -> None:
    assert hook(recorded.event("07_PreToolUse_Bash.json")) is None


def test_a_server_that_is_gone_refuses_while_planning(recorded: Recorded, tmp_path: Path) -> None:
    """A record whose server died (kill -9): while Codex plans, the call is refused and a plan
    cannot be reviewed; outside Plan mode nothing is said."""
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(run)}
    folder = run / "planmode"
    folder.mkdir(mode=0o700)
    record = folder / runtime.record_name(str(recorded.root))
    gone = {"version": 1, "state": "running", "pid": 2**22 + 7, "socket": "/nonexistent"}
    record.write_text(json.dumps(gone))
    record.chmod(0o600)
    told = reason(hook(recorded.event("07_PreToolUse_Bash.json"), env))
    assert told.startswith("Denied by plan mode (the plan-mode server is gone)"), told
    stop = hook(recorded.event("10_Stop.json"), env)
    assert stop is not None and stop["decision"] == "block", stop
    assert "could not put your plan under review" in stop["reason"]
    recorded.write_transcript(mode="default")
    assert hook(recorded.event("07_PreToolUse_Bash.json"), env) is None


def test_an_input_that_cannot_be_read_is_refused() -> None:
    told = reason(hook('{"hook_event_name": "PreToolUse", "tool_name": "Bash", '))
    assert told.startswith("Denied by plan mode (the hook input cannot be read)")
    assert hook("[]") is None  # not a tool call: nothing to refuse


async def test_a_granted_prompt_answers_codexs_question(editor: Editor, recorded: Recorded) -> None:
    """Outside Plan mode Codex asks the user for rm -rf; a command an approved plan of the
    session granted is allowed unasked (PermissionRequest), anything else is left to the user."""
    await editor.endpoint()
    await ask(recorded.event("02_PreToolUse_Bash.json"))  # the session plans
    grant = [{"tool": "Bash", "prompt": "rm -rf src"}]
    exiting = editor.start(
        "planMode/exit", {"sessionId": SESSION, "plan": PLAN, "allowedPrompts": grant}
    )
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    await editor.request(
        "planMode/approve", {"approvalId": requested["approvalId"], "allowedPrompts": grant}
    )
    await exiting
    recorded.write_transcript(mode="default")
    allowed = await ask(recorded.event("08_PermissionRequest_Bash.json"))
    assert allowed == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }
    other = recorded.event("08_PermissionRequest_Bash.json", tool_input={"command": "rm -rf /"})
    assert await ask(other) is None
