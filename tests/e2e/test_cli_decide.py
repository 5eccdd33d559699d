"""planmode approve/reject without an id, and keep/undo, through a running server's endpoint."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.e2e.harness import Editor
from tests.e2e.planmode_cli import in_thread, payload, run
from tests.e2e.review import agent_revises, enter

PLAN = "# Plan\n\n1. One\n2. Two\n3. Three\n4. Four\n"


async def test_approve_and_reject_take_the_only_pending_approval(
    editor: Editor, root: Path
) -> None:
    await editor.endpoint()
    # Claude Code's session (through its hook), not the editor's own.
    event = payload("permission_request_exit_plan_mode.json", root)
    hook = asyncio.ensure_future(in_thread(run, ["hook"], event))
    claude = await editor.wait_for("planMode/approvalRequested", timeout=30)
    assert claude["sessionId"] == "abc123-recorded"
    # And the editor's session: two are pending, so neither is guessed.
    await editor.request("planMode/enter", {})
    mine = editor.start("planMode/exit", {"plan": PLAN})
    own = await editor.wait_for("planMode/approvalRequested", 2, timeout=30)
    several = await in_thread(run, ["reject", "--feedback", "no"], "", root)
    assert several.returncode == 2
    assert several.stdout == ""
    lines = several.stderr.splitlines()
    assert lines[0] == "2 approvals are pending; name one (planmode reject ID):"
    assert sorted(lines[1:]) == sorted(
        f"  {a['approvalId']}  {a['planFilePath']}  (session {a['sessionId']})"
        for a in (claude, own)
    )
    listed = await in_thread(run, ["approve", "--json"], "", root)
    assert listed.returncode == 2
    assert {a["approvalId"] for a in json.loads(listed.stdout)["approvals"]} == {
        claude["approvalId"],
        own["approvalId"],
    }
    assert (await editor.state())["pendingApproval"] is not None  # nothing was decided

    named = await in_thread(run, ["reject", own["approvalId"], "--feedback", "Shorter."], "", root)
    assert named.returncode == 0, named.stderr
    assert (await asyncio.wait_for(mine, 10))["outcome"] == "rejected"

    # One left, Claude Code's: taken without naming it or its session.
    only = await in_thread(run, ["approve"], "", root)
    assert only.returncode == 0, only.stderr
    assert only.stdout == "Approved.\n"
    decision = json.loads((await asyncio.wait_for(hook, 30)).stdout)
    assert decision["hookSpecificOutput"]["decision"]["behavior"] == "allow"
    none = await in_thread(run, ["reject"], "", root)
    assert none.returncode == 1
    assert "No pending approval in the workspace." in none.stderr


async def test_keep_and_undo_from_the_terminal(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    await editor.request("planMode/enter", {})
    waiting = editor.start("planMode/exit", {"plan": PLAN})
    approval = await editor.wait_for("planMode/approvalRequested")
    path = Path(approval["planFilePath"])
    revised = PLAN.replace("1. One\n", "1. One!\n").replace("4. Four\n", "4. Four\n5. Five\n")
    await agent_revises(editor, path, PLAN, revised, "Sharper")
    assert path.read_text() == revised

    several = await in_thread(run, ["undo"], "", root)
    assert several.returncode == 2
    lines = several.stderr.splitlines()
    assert lines[0] == "2 changes are unreviewed; name one (planmode undo HUNK_ID):"
    assert f"{path}:3  Keep (+1 −1) · Undo: restores “1. One”" in lines[1]
    assert f"{path}:7  Keep (+1 −0) · Undo: removes 1 added line(s)" in lines[2]
    first = lines[1].split()[0]

    kept = await in_thread(run, ["keep", first], "", root)
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout == "Kept.\n"
    again = await in_thread(run, ["keep", first], "", root)
    assert again.returncode == 1 and f"No unreviewed change {first}" in again.stderr

    undone = await in_thread(run, ["undo", "--plan", str(path)], "", root)
    assert undone.returncode == 0, undone.stderr
    assert undone.stdout == "Undone.\n"
    assert path.read_text() == PLAN.replace("1. One\n", "1. One!\n")
    nothing = await in_thread(run, ["keep"], "", root)
    assert nothing.returncode == 1 and "No unreviewed changes." in nothing.stderr

    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    assert (await asyncio.wait_for(waiting, 10))["plan"] == PLAN.replace("1. One\n", "1. One!\n")


PYTHON = [{"tool": "Bash", "prompt": "python3 *"}]


async def bash(editor: Editor, command: str) -> str:
    checked = await editor.request(
        "planMode/checkTool", {"tool": "Bash", "input": {"command": command}}
    )
    return str(checked["behavior"])


async def test_the_cli_shows_the_grants_and_grants_them_only_when_told(
    editor: Editor, root: Path
) -> None:
    await editor.endpoint()
    await enter(editor)
    waiting = editor.start("planMode/exit", {"plan": PLAN, "allowedPrompts": PYTHON})
    await editor.wait_for("planMode/approvalRequested")
    state = await in_thread(run, ["state"], "", root)
    assert "asks to allow: Bash “python3 *”: `python3` followed by any plain words" in (
        state.stdout
    )

    # Nothing decided until the user chooses, having been shown the rule.
    asked = await in_thread(run, ["approve"], "", root)
    assert asked.returncode == 2, asked.stderr
    assert asked.stderr.splitlines() == [
        "The plan also asks to run these commands without asking; approve with --grant to "
        "allow them, or --no-grant to approve the plan alone:",
        "  • Bash “python3 *”: `python3` followed by any plain words",
    ]
    assert (await editor.state())["pendingApproval"] is not None
    assert not waiting.done()

    plan_only = await in_thread(run, ["approve", "--no-grant"], "", root)
    assert plan_only.returncode == 0, plan_only.stderr
    result = await asyncio.wait_for(waiting, 10)
    assert result["outcome"] == "approved" and result["grantedPrompts"] == []
    assert (await editor.state())["grantedPrompts"] == []
    assert await bash(editor, "python3 -c 'import os'") == "ask"

    await enter(editor)
    waiting = editor.start("planMode/exit", {"plan": PLAN, "allowedPrompts": PYTHON})
    await editor.wait_for("planMode/approvalRequested", 2)
    granted = await in_thread(run, ["approve", "--grant"], "", root)
    assert granted.returncode == 0, granted.stderr
    assert granted.stdout == (
        "Approved, and allowed without asking:\n"
        "  • Bash “python3 *”: `python3` followed by any plain words\n"
    )
    assert (await asyncio.wait_for(waiting, 10))["grantedPrompts"] == PYTHON
    assert await bash(editor, "python3 -c 'import os'") == "allow"
