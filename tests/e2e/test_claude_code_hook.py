"""The hook against the real server, fed what the real Claude Code CLI sent (2.1.197, 2.1.332).

``hook_payloads/claude_code/<version>/`` holds one session of each version recorded from the
CLI: its hook payloads in order and its transcript, with the workspace, home and session id
replaced by placeholders. Here they are replayed through ``planmode hook`` as Claude Code runs
it (its environment, its transcript on disk), the editor side played by a real LSP client.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.claude_code.recorded import Recorded, ask, decision_of
from tests.e2e.harness import Editor, running_editor


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


# -- the plan file is never the agent's to choose (docs/protocol.md §3, docs/claude-code.md) --
def exit_with(recorded: Recorded, plan_file: Path, plan: str = "# Evil\n") -> dict[str, Any]:
    """Claude Code's ExitPlanMode PermissionRequest, its input naming ``plan_file``."""
    return recorded.event(
        "PermissionRequest",
        "ExitPlanMode",
        tool_input={"plan": plan, "planFilePath": str(plan_file)},
    )


def refusal_of(output: dict[str, Any] | None) -> str:
    """The message of a denied ExitPlanMode, as the model reads it."""
    assert output is not None
    decision = output["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny", decision
    return str(decision["message"])


async def test_exit_plan_modes_plan_file_path_cannot_move_the_plan(
    editor: Editor, recorded: Recorded
) -> None:
    """The transcript names ~/.claude/plans/<slug>.md; ExitPlanMode names <root>/src/<slug>.md
    (the same slug). The transcript's file stays the plan: the exit is refused, with why."""
    await editor.endpoint()
    plan = recorded.plan_file
    moved = recorded.root / "src" / plan.name
    message = refusal_of(await ask(recorded, exit_with(recorded, moved)))
    assert str(moved) in message and str(plan) in message, message
    assert message.startswith("Plan mode refused ExitPlanMode")
    assert not moved.exists() and not plan.exists()  # nothing written anywhere
    state = await editor.state(recorded.session_id)
    assert (state["mode"], state["planFilePath"]) == ("plan", str(plan))
    assert state["pendingApproval"] is None and not editor.notes["planMode/approvalRequested"]
    assert any(str(moved) in text for text in editor.warnings())  # the user is told
    # Nor may that file be written while planning.
    write = recorded.event(
        "PreToolUse",
        "Write",
        where_file_path=plan.name,
        tool_input={"file_path": str(moved), "content": "# Evil\n"},
    )
    assert decision_of(await ask(recorded, write)) == "deny"
    # The honest exit still goes through.
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text("# Greet\n")
    waiting = asyncio.ensure_future(ask(recorded, exit_with(recorded, plan, "# Greet\n")))
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    assert requested["planFilePath"] == str(plan)
    await editor.request("planMode/reject", {"approvalId": requested["approvalId"]})
    await asyncio.wait_for(waiting, 30)


async def test_after_a_restart_the_plan_file_is_still_the_one_adopted(
    root: Path, home: Path, recorded: Recorded
) -> None:
    """The adopted plan file is saved with the session: after a restart, with the transcript
    gone, ExitPlanMode naming CLAUDE.md is refused and CLAUDE.md is never written."""
    claude_md = root / "CLAUDE.md"
    claude_md.write_text("# Project rules\n")
    plan = recorded.plan_file
    write_plan = recorded.event("PreToolUse", "Write", where_file_path=plan.name)
    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        await editor.endpoint()
        assert decision_of(await ask(recorded, write_plan)) == "allow"
    saved = json.loads(
        (root / ".claude" / "plan-mode" / "sessions" / f"{recorded.session_id}.json").read_text()
    )
    assert (saved["planFile"], saved["planFileSource"]) == (str(plan), "transcriptAttachment")
    recorded.transcript.unlink()  # whatever the server learns now, it learns from its save

    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        await editor.endpoint()
        message = refusal_of(await ask(recorded, exit_with(recorded, claude_md)))
        assert str(claude_md) in message and str(plan) in message, message
        assert claude_md.read_text() == "# Project rules\n"
        state = await editor.state(recorded.session_id)
        assert (state["mode"], state["planFilePath"]) == ("plan", str(plan))
        write = recorded.event(
            "PreToolUse",
            "Write",
            where_file_path=plan.name,
            tool_input={"file_path": str(claude_md), "content": "# Evil\n"},
        )
        denied = await ask(recorded, write)
        assert decision_of(denied) == "deny"
        assert claude_md.read_text() == "# Project rules\n"
        assert decision_of(await ask(recorded, write_plan)) == "allow"


async def test_with_nothing_adopted_exit_plan_mode_cannot_choose_claude_md(
    editor: Editor, recorded: Recorded
) -> None:
    """No transcript to learn from (a fresh server, the slug not known): planFilePath alone
    never makes a file the plan."""
    await editor.endpoint()
    recorded.transcript.unlink()
    claude_md = recorded.root / "CLAUDE.md"
    claude_md.write_text("# Project rules\n")
    message = refusal_of(await ask(recorded, exit_with(recorded, claude_md)))
    assert str(claude_md) in message
    assert claude_md.read_text() == "# Project rules\n"
    state = await editor.state(recorded.session_id)
    assert state["mode"] == "plan" and state["planFilePath"] != str(claude_md)


async def test_a_repository_cannot_make_the_workspace_root_the_plans_directory(
    editor: Editor, recorded: Recorded
) -> None:
    """A cloned repository's .claude/settings.json says plansDirectory "." (Claude Code would
    write its plan among the sources): the file is not adopted, the user is told, every write
    while planning is denied saying why, and ExitPlanMode is refused."""
    settings = recorded.root / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"plansDirectory": "."}))
    lines = recorded.text("transcript.jsonl").splitlines(keepends=True)
    slugged = [line for line in lines if '"slug"' in line and "planFilePath" not in line]
    recorded.transcript.write_text("".join(slugged))
    await editor.endpoint()
    at_root = recorded.root / recorded.plan_file.name
    write = recorded.event(
        "PreToolUse",
        "Write",
        where_file_path=recorded.plan_file.name,
        tool_input={"file_path": str(at_root), "content": "# Plan\n"},
    )
    denied = await ask(recorded, write)
    assert decision_of(denied) == "deny"
    reason = denied["hookSpecificOutput"]["permissionDecisionReason"]  # type: ignore[index]
    assert "project root" in reason, reason
    await editor.message_until(lambda text: "project root" in text)
    claude_md = recorded.root / "CLAUDE.md"
    message = refusal_of(await ask(recorded, exit_with(recorded, claude_md)))
    assert "project root" in message
    assert not claude_md.exists() and not at_root.exists()
    assert (await editor.state(recorded.session_id))["mode"] == "plan"


async def test_a_symlinked_plans_directory_is_never_written_through(
    editor: Editor, recorded: Recorded, tmp_path: Path
) -> None:
    """The user keeps Claude Code's plans in .claude/plans (as the 2.1.197 end-to-end test
    does); a cloned repository ships .claude/plans as a symlink to a folder outside. Claude
    Code's file there is not adopted, the user is told, its writes and the exit are denied,
    and nothing reaches the folder outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    plans_link = recorded.root / ".claude" / "plans"
    plans_link.parent.mkdir(parents=True, exist_ok=True)
    plans_link.symlink_to(outside, target_is_directory=True)
    user_settings = recorded.home / ".claude" / "settings.json"
    user_settings.parent.mkdir(parents=True, exist_ok=True)
    user_settings.write_text(json.dumps({"plansDirectory": ".claude/plans"}))
    # Claude Code names the file in that directory, in the transcript and in ExitPlanMode.
    in_link = plans_link / recorded.plan_file.name
    transcript = recorded.transcript.read_text()
    recorded.transcript.write_text(transcript.replace(str(recorded.plan_file), str(in_link)))
    await editor.endpoint()
    write = recorded.event(
        "PreToolUse",
        "Write",
        where_file_path=recorded.plan_file.name,
        tool_input={"file_path": str(in_link), "content": "# Plan\n"},
    )
    denied = await ask(recorded, write)
    assert decision_of(denied) == "deny"
    reason = denied["hookSpecificOutput"]["permissionDecisionReason"]  # type: ignore[index]
    assert "symlink" in reason, reason
    await editor.message_until(lambda text: "symlink" in text)
    message = refusal_of(await ask(recorded, exit_with(recorded, in_link, "# Plan\n")))
    assert "symlink" in message, message
    assert list(outside.iterdir()) == []
    assert (await editor.state(recorded.session_id))["mode"] == "plan"


async def test_a_default_plans_directory_leaving_the_workspace_is_refused(
    root: Path, home: Path, tmp_path: Path
) -> None:
    """The server's own default, <root>/.claude/plans, shipped as a symlink out of the
    workspace: the user is told at start, the plan is never written there (neither by a
    write nor by an exit that carries it), and the session stays in plan mode."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".claude").mkdir()
    (root / ".claude" / "plans").symlink_to(outside, target_is_directory=True)
    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        warning = await editor.message_until(lambda text: "No plan can be written" in text)
        assert str(outside) in warning
        entered = await editor.request("planMode/enter")
        plan = Path(entered["state"]["planFilePath"])
        checked = await editor.request(
            "planMode/checkTool", {"tool": "Write", "input": {"file_path": str(plan)}}
        )
        assert checked["behavior"] == "deny" and str(outside) in checked["message"]
        result = await editor.request("planMode/exit", {"plan": "# Plan\n"})
        assert result["outcome"] == "rejected"
        assert str(outside) in result["toolResult"]
        assert list(outside.iterdir()) == []
        assert (await editor.state())["mode"] == "plan"


async def test_git_after_an_earlier_cd_into_another_repository_is_denied(
    editor: Editor, recorded: Recorded
) -> None:
    """Claude Code keeps its shell's directory: after `cd vendor/lib` (allowed: no git), the
    next payload's cwd is vendor/lib, where git status would open the vendored repository
    and run its configuration. The hook passes that cwd; the deny names the repository."""
    await editor.endpoint()
    vendored = recorded.root / "vendor" / "lib"
    vendored.mkdir(parents=True)
    for repository in (recorded.root, vendored):
        subprocess.run(["git", "init", "-q"], cwd=repository, check=True, capture_output=True)
    bash = recorded.event("PreToolUse", "Bash")

    def line(command: str, cwd: Path) -> dict[str, Any]:
        return {**bash, "cwd": str(cwd), "tool_input": {**bash["tool_input"], "command": command}}

    assert decision_of(await ask(recorded, line("cd vendor/lib", recorded.root))) == "allow"
    denied = await ask(recorded, line("git status", vendored))
    assert decision_of(denied) == "deny"
    reason = denied["hookSpecificOutput"]["permissionDecisionReason"]  # type: ignore[index]
    assert f"the repository at {vendored}" in reason, reason
    assert decision_of(await ask(recorded, line("git status", recorded.root))) == "allow"
