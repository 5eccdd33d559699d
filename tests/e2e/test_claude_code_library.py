"""Save for later in the real Claude Code CLI (docs/claude-code.md, "Save for later").

The harness of ``test_claude_code.py``: Claude Code in tmux against a scripted model API, the
editor a pytest-lsp client. The plan is saved for later in the editor; what the model reads
and what Claude Code shows are measured, and Claude Code stays in plan mode. Then the user takes
the saved plan up again in the same session and the model submits it once more.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.e2e.claude_code.agent import Agent, failure_report
from tests.e2e.claude_code.fake_api import FakeApi
from tests.e2e.claude_code.project import (
    CASES,
    ORIGINAL,
    PLAN,
    denied,
    require_claude_code,
    set_up_project,
)
from tests.e2e.claude_code.tui import ClaudeCode
from tests.e2e.harness import Editor, running_editor
from tests.e2e.review import lens

SAVED = "The user saved the plan for later"


@pytest.mark.parametrize(("version", "plans_directory"), CASES)
async def test_save_for_later_in_real_claude_code(
    version: str, plans_directory: str | None, tmp_path: Path
) -> None:
    require_claude_code(version)
    root, home = set_up_project(tmp_path, plans_directory)

    api = FakeApi()
    base_url = api.start()
    async with running_editor(root, home) as editor:
        await editor.endpoint()
        claude = ClaudeCode(version, root, home, base_url, tmp_path)
        try:
            plan = await save_and_take_up(Agent(api, claude), editor, root)
        except BaseException:
            print(failure_report(api, claude, tmp_path / "claude-code-report"))
            raise
        finally:
            claude.close()
        # Another Claude Code session takes the saved plan up.
        (tmp_path / "second").mkdir()
        second = ClaudeCode(version, root, home, base_url, tmp_path / "second")
        try:
            await take_up_in_another_session(Agent(api, second), editor, root, plan)
        except BaseException:
            print(failure_report(api, second, tmp_path / "second-report"))
            raise
        finally:
            second.close()
            api.stop()


async def save_and_take_up(agent: Agent, editor: Editor, root: Path) -> Path:
    await agent.prompt("Plan greeting by name in src/app.py")
    plan = agent.plan_path
    assert plan is not None, "Claude Code named no plan file"
    await agent.call("Write", {"file_path": str(plan), "content": PLAN})
    await agent.load("ExitPlanMode")
    agent.exit_plan_mode()
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    assert Path(requested["planFilePath"]) == plan
    editor.open(plan)

    # Save for later in the editor: the model reads the saved text as ExitPlanMode's refusal.
    await editor.run_lens(await lens(editor, plan, "Save for later"))
    saved = await agent.turn()
    told = denied(saved)
    assert SAVED in told and "Do not implement it now" in told, told
    assert str(plan) in told, told
    # Claude Code shows the refusal and stays in plan mode, in the terminal and on the server.
    screen = await asyncio.to_thread(agent.claude.wait_screen, SAVED[:30], 15)
    print(f"Claude Code {agent.claude.version} after Save for later:\n{screen}")
    await asyncio.to_thread(agent.claude.wait_status, r"plan mode on")
    state = await editor.state(agent.claude.session_id)
    assert state["mode"] == "plan" and state["pendingApproval"] is None, state
    listed = {p["path"]: p for p in (await editor.request("planMode/listPlans", {}))["plans"]}
    assert listed[str(plan)]["status"] == "saved"
    assert listed[str(plan)]["agent"] == "claude-code"
    assert plan.read_text() == PLAN
    assert (root / "src" / "app.py").read_text() == ORIGINAL
    agent.say("Saved for later; I will wait.")
    await asyncio.to_thread(agent.claude.wait_screen, r"I will wait\.", 10)

    # Taken up again in the same session (the Plans view or planmode plans take-up --session):
    # the plan is under review again at the model's next ExitPlanMode.
    taken = await editor.request(
        "planMode/takeUpPlan", {"sessionId": agent.claude.session_id, "path": str(plan)}
    )
    assert taken["planFilePath"] == str(plan), taken
    resumed = await agent.prompt(f"Take up the saved plan {plan.name} and submit it again")
    assert resumed is not None
    await agent.call("Read", {"file_path": str(plan)})
    agent.exit_plan_mode()
    again = await editor.wait_for("planMode/approvalRequested", count=2, timeout=30)
    assert Path(again["planFilePath"]) == plan
    await editor.run_lens(await lens(editor, plan, "Save for later"))
    assert SAVED in denied(await agent.turn())
    agent.say("Saved again.")
    await asyncio.to_thread(agent.claude.wait_screen, r"Saved again\.", 10)
    return plan


async def take_up_in_another_session(agent: Agent, editor: Editor, root: Path, saved: Path) -> None:
    """A new Claude Code session takes the saved plan up before the server knows where Claude
    Code keeps this session's plan (its transcript names it from the second tool call on):
    once it does, the saved text is written there, and ExitPlanMode submits it for review."""
    await agent.prompt(f"Take up the saved plan {saved.stem}")
    own = agent.plan_path
    assert own is not None and own != saved, own
    session = agent.claude.session_id
    await agent.call("Read", {"file_path": str(root / "src" / "app.py")})
    taken = await editor.request("planMode/takeUpPlan", {"sessionId": session, "path": str(saved)})
    assert taken["takenUpFrom"] == str(saved), taken
    # A later call names Claude Code's own plan file: the taken-up plan moves there. Claude
    # Code writes its transcript after the hook runs, so under load the server may read the
    # line that names the file only at the call after the next one.
    for _ in range(3):
        await agent.call("Read", {"file_path": str(root / "src" / "app.py")})
        if (await editor.state(session))["planFilePath"] == str(own):
            break
    assert (await editor.state(session))["planFilePath"] == str(own)
    assert own.read_text() == PLAN
    agent.exit_plan_mode()
    requested = await editor.wait_for("planMode/approvalRequested", count=3, timeout=30)
    assert Path(requested["planFilePath"]) == own and requested["submittedPlan"] == PLAN
    editor.open(own)
    await editor.run_lens(await lens(editor, own, "Approve plan"))
    approved = (await agent.turn()).result_text()
    assert "User has approved your plan" in approved and "Greet by name" in approved, approved
    listed = {p["path"]: p for p in (await editor.request("planMode/listPlans", {}))["plans"]}
    assert listed[str(own)]["status"] == "executing", listed[str(own)]
    assert listed[str(saved)]["status"] == "drafting", listed[str(saved)]
