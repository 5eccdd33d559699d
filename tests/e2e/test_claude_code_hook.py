"""The hook against the real server, fed what the real Claude Code CLI sent (2.1.197, 2.1.332).

``hook_payloads/claude_code/<version>/`` holds one session of each version recorded from the
CLI: its hook payloads in order and its transcript, with the workspace, home and session id
replaced by placeholders. Here they are replayed through ``planmode hook`` as Claude Code runs
it (its environment, its transcript on disk), the editor side played by a real LSP client.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import Editor

RECORDED = Path(__file__).parent / "hook_payloads" / "claude_code"
VERSIONS = sorted(p.name for p in RECORDED.iterdir() if p.is_dir())


@dataclass
class Recorded:
    """One recorded Claude Code session, placed in this test's workspace and home."""

    version: str
    root: Path
    home: Path
    session_id: str

    def text(self, name: str) -> str:
        raw = (RECORDED / self.version / name).read_text()
        return (
            raw.replace("WORKSPACE", str(self.root))
            .replace("HOME", str(self.home))
            .replace("SESSION_ID", self.session_id)
        )

    def event(self, event: str, tool: str | None = None, **changes: Any) -> dict[str, Any]:
        """The first recorded payload of ``event`` (for ``tool``) matching ``changes``' keys
        named ``where_*``, with the other ``changes`` applied."""
        where = {k[6:]: v for k, v in changes.items() if k.startswith("where_")}
        for path in sorted((RECORDED / self.version).glob(f"*_{event}_*.json")):
            payload = json.loads(self.text(path.name))
            if tool is not None and payload.get("tool_name") != tool:
                continue
            if all(where_holds(payload, k, v) for k, v in where.items()):
                payload.update({k: v for k, v in changes.items() if not k.startswith("where_")})
                return payload
        raise AssertionError(f"no recorded {event} {tool} {where} for {self.version}")

    @property
    def transcript(self) -> Path:
        return Path(self.event("PreToolUse", "Read")["transcript_path"])

    def write_transcript(self, lines: int | None = None) -> None:
        """The recorded transcript where Claude Code keeps it (its first ``lines`` only)."""
        recorded = self.text("transcript.jsonl").splitlines(keepends=True)
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        self.transcript.write_text("".join(recorded[:lines]))

    @property
    def plan_file(self) -> Path:
        return Path(self.event("PermissionRequest", "ExitPlanMode")["tool_input"]["planFilePath"])

    @property
    def env(self) -> dict[str, str]:
        """Claude Code's environment for its hooks (a private HOME, no CLAUDE_CONFIG_DIR)."""
        env = {**os.environ, "HOME": str(self.home), "CLAUDE_PROJECT_DIR": str(self.root)}
        env.pop("CLAUDE_CONFIG_DIR", None)
        return env


def where_holds(payload: dict[str, Any], key: str, value: Any) -> bool:
    if key == "file_path":
        return bool(payload.get("tool_input", {}).get("file_path", "").endswith(value))
    return payload.get(key) == value


def hook(recorded: Recorded, event: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "planmode", "hook"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=60,
        env=recorded.env,
        cwd=event.get("cwd"),
    )


async def ask(recorded: Recorded, event: dict[str, Any]) -> dict[str, Any] | None:
    result = await asyncio.get_running_loop().run_in_executor(None, hook, recorded, event)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout else None


@pytest.fixture(params=VERSIONS)
def recorded(request: pytest.FixtureRequest, root: Path, home: Path) -> Recorded:
    session = Recorded(request.param, root, home, f"cc-{request.param.replace('.', '-')}")
    session.write_transcript()
    return session


def decision_of(output: dict[str, Any] | None) -> str | None:
    return None if output is None else output["hookSpecificOutput"]["permissionDecision"]


async def test_a_recorded_session_from_plan_to_approved_edits(
    editor: Editor, recorded: Recorded
) -> None:
    await editor.endpoint()
    plan = recorded.plan_file
    # Reading is Claude Code's own business; a proven read-only Bash line is allowed.
    assert await ask(recorded, recorded.event("PreToolUse", "Read")) is None
    assert decision_of(await ask(recorded, recorded.event("PreToolUse", "Bash"))) == "allow"
    denied = await ask(recorded, recorded.event("PreToolUse", "Write", where_file_path="app.py"))
    assert decision_of(denied) == "deny"
    reason = denied["hookSpecificOutput"]["permissionDecisionReason"]  # type: ignore[index]
    assert reason.startswith("Denied by plan mode (only the plan file may be written)")
    assert str(plan) in reason
    # Claude Code's own plan file, under ~/.claude/plans, is the session's plan.
    write_plan = recorded.event("PreToolUse", "Write", where_file_path=plan.name)
    assert decision_of(await ask(recorded, write_plan)) == "allow"
    state = await editor.state(recorded.session_id)
    assert (state["mode"], state["planFilePath"]) == ("plan", str(plan))
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text(write_plan["tool_input"]["content"])
    # ExitPlanMode itself: Claude Code asks, through its PermissionRequest.
    assert await ask(recorded, recorded.event("PreToolUse", "ExitPlanMode")) is None

    exit_event = recorded.event("PermissionRequest", "ExitPlanMode")
    waiting = asyncio.ensure_future(ask(recorded, exit_event))
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    assert requested["planFilePath"] == str(plan)
    assert requested["submittedPlan"] == exit_event["tool_input"]["plan"]
    await editor.until(lambda: editor.client.shown_documents)
    assert editor.client.shown_documents[-1].uri == plan.as_uri()
    editor.open(plan)
    # Diagnostics on Claude Code's file too: the recorded plan has no verification step.
    await editor.until(lambda: editor.client.diagnostics.get(plan.as_uri()), 10)
    codes = {d.code for d in editor.client.diagnostics[plan.as_uri()]}
    assert "no-verification" in codes, codes
    edited = plan.read_text() + "2. And a test.\n"
    editor.change(plan, edited)
    lenses = await editor.lenses(plan)
    titles = [lens.command.title for lens in lenses if lens.command]
    assert titles[0] == "Approve plan (edited: +1 −0)"
    auto_accept = next(x for x in lenses if x.command and "auto-accept" in x.command.title)
    await editor.run_lens(auto_accept)
    answer = await asyncio.wait_for(waiting, 30)
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {
                "behavior": "allow",
                "updatedInput": {**exit_event["tool_input"], "plan": edited},
                "updatedPermissions": [
                    {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
                ],
            },
        }
    }
    assert plan.read_text() == edited
    listed = (await editor.request("planMode/listPlans", {}))["plans"]
    assert [p["sessionId"] for p in listed if p["path"] == str(plan)] == [recorded.session_id]

    # In acceptEdits the hook has no say: Claude Code's own mode lets the edit through.
    after = recorded.event("PreToolUse", "Write", where_permission_mode="acceptEdits")
    assert await ask(recorded, after) is None
    assert (await editor.state(recorded.session_id))["mode"] == "acceptEdits"
    assert await ask(recorded, recorded.event("SessionEnd")) is None


async def test_an_unedited_approval_carries_the_plan_unchanged(
    editor: Editor, recorded: Recorded
) -> None:
    """From 2.1.199 an allow needs updatedInput; one with "plan" is labelled edited by user
    (always on 2.1.197), so an unedited approval leaves it out."""
    await editor.endpoint()
    plan = recorded.plan_file
    exit_event = recorded.event("PermissionRequest", "ExitPlanMode")
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text(exit_event["tool_input"]["plan"])
    waiting = asyncio.ensure_future(ask(recorded, exit_event))
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    await editor.request("planMode/approve", {"approvalId": requested["approvalId"]})
    answer = await asyncio.wait_for(waiting, 30)
    # Without "plan" Claude Code reads its own file and does not call the plan edited.
    assert answer["hookSpecificOutput"]["decision"] == {  # type: ignore[index]
        "behavior": "allow",
        "updatedInput": {"planFilePath": str(plan)},
    }


async def test_a_rejection_keeps_planning_with_the_feedback(
    editor: Editor, recorded: Recorded
) -> None:
    await editor.endpoint()
    waiting = asyncio.ensure_future(
        ask(recorded, recorded.event("PermissionRequest", "ExitPlanMode"))
    )
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    await editor.request(
        "planMode/reject", {"approvalId": requested["approvalId"], "feedback": "Add a test."}
    )
    answer = await asyncio.wait_for(waiting, 30)
    assert answer["hookSpecificOutput"]["decision"] == {  # type: ignore[index]
        "behavior": "deny",
        "message": "Add a test.",
    }
    assert (await editor.state(recorded.session_id))["mode"] == "plan"


async def test_the_plan_file_is_learned_even_when_the_transcript_lags(
    editor: Editor, recorded: Recorded
) -> None:
    """Claude Code writes its transcript asynchronously: the first hook of a session may see
    only its first line. A write of the plan waits for the lines that name it."""
    await editor.endpoint()
    recorded.write_transcript(lines=1)
    write_plan = recorded.event("PreToolUse", "Write", where_file_path=recorded.plan_file.name)

    async def catch_up() -> None:
        await asyncio.sleep(0.3)
        recorded.write_transcript()

    catching_up = asyncio.ensure_future(catch_up())
    assert decision_of(await ask(recorded, write_plan)) == "allow"
    await catching_up
    state = await editor.state(recorded.session_id)
    assert state["planFilePath"] == str(recorded.plan_file)


async def test_claude_codes_plans_directory_setting_is_honoured(
    editor: Editor, recorded: Recorded
) -> None:
    """With only the slug known, the file is where Claude Code's plansDirectory puts it."""
    await editor.endpoint()
    settings = recorded.root / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"plansDirectory": "docs/plans"}))
    # A transcript whose lines carry the slug, but no plan_mode attachment yet.
    lines = recorded.text("transcript.jsonl").splitlines(keepends=True)
    slugged = [line for line in lines if '"slug"' in line and "planFilePath" not in line]
    recorded.transcript.write_text("".join(slugged))
    inside = recorded.root / "docs" / "plans" / recorded.plan_file.name
    write = recorded.event(
        "PreToolUse",
        "Write",
        where_file_path=recorded.plan_file.name,
        tool_input={"file_path": str(inside), "content": "# Plan\n"},
    )
    assert decision_of(await ask(recorded, write)) == "allow"
    assert (await editor.state(recorded.session_id))["planFilePath"] == str(inside)


async def test_a_sandboxed_bash_line_is_handed_only_to_a_claude_code_that_runs_it(
    editor: Editor, recorded: Recorded
) -> None:
    """2.1.197 runs a hook-rewritten Bash line unasked; 2.1.332 asks in the terminal for it
    (docs/claude-code.md), so it gets a plain allow and runs its own proven read-only line."""
    await editor.endpoint()
    bash = recorded.event("PreToolUse", "Bash")
    answer = await ask(recorded, bash)
    output = answer["hookSpecificOutput"]  # type: ignore[index]
    assert output["permissionDecision"] == "allow"
    sandbox = (await editor.state(recorded.session_id))["sandbox"]
    if recorded.version == "2.1.197" and sandbox["mechanism"] is not None:
        rewritten = output["updatedInput"]
        assert rewritten["command"] != bash["tool_input"]["command"]
        assert "ls src" in rewritten["command"]
        assert rewritten["description"] == bash["tool_input"]["description"]
    else:
        assert "updatedInput" not in output


async def test_with_require_sandbox_every_claude_code_gets_the_sandboxed_line(
    editor: Editor, recorded: Recorded
) -> None:
    """requireSandbox: the user would rather be asked than have planning Bash run unsandboxed,
    so 2.1.332 gets the rewritten line too (and asks for it in the terminal)."""
    await editor.endpoint()
    editor.reconfigure({"requireSandbox": True})
    await editor.state_until(lambda s: s["sandbox"]["required"], recorded.session_id)
    bash = recorded.event("PreToolUse", "Bash")
    output = (await ask(recorded, bash))["hookSpecificOutput"]  # type: ignore[index]
    sandbox = (await editor.state(recorded.session_id))["sandbox"]
    if sandbox["mechanism"] is None:
        assert output["permissionDecision"] == "deny"
        assert output["permissionDecisionReason"].startswith("Denied by requireSandbox")
        return
    assert output["permissionDecision"] == "allow"
    assert output["updatedInput"]["command"] != bash["tool_input"]["command"]
    assert "ls src" in output["updatedInput"]["command"]
