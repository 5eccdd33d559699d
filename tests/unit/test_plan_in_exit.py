"""An agent whose exit brings its plan (core/agents.py, PlanInExit: Codex's <proposed_plan>):
it writes no file while planning, its plan is its submission (not an edit), and the texts its
model reads tell it how to submit; and the sandbox an agent's own sandbox lets nest."""

from __future__ import annotations

from pathlib import Path

import pytest

from planmode.agents.codex.adapter import CodexCall
from planmode.core import enforcement, prompts
from planmode.core.service import PlanModeService
from planmode.sandbox import LANDLOCK
from planmode.sandbox.probe import detect_once

PLAN = "# Plan\n\n1. Add the parser\n"
SUBMIT = "propose your plan in a <proposed_plan> block"


def test_nothing_is_written_while_planning_not_even_the_plan_file(
    service: PlanModeService, root: Path
) -> None:
    session = service.require_session("s1")
    service.enter(session)
    call = CodexCall(planning=True, cwd=str(root))
    plan_file = service.plan_path(session)
    for path in ("src/app.py", str(plan_file)):
        patch = f"*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch\n"
        decision = service.check_tool(
            session, "apply_patch", {"command": patch}, tools=call, plan_in_exit=call
        )
        assert decision.behavior == "deny" and decision.vouched, decision
        assert decision.message is not None
        assert decision.message.startswith(
            "Denied by plan mode (nothing is written while planning): "
        )
        assert SUBMIT in decision.message, decision.message
    # Outside plan mode it is the mode's to decide, as for any caller.
    service.set_mode(session, "acceptEdits")
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-x\n+y\n*** End Patch\n"
    decision = service.check_tool(
        session, "apply_patch", {"command": patch}, tools=call, plan_in_exit=call
    )
    assert decision.behavior == "allow" and not decision.vouched


def test_the_submitted_plan_is_not_an_edit_and_a_rejection_says_how_to_submit(
    service: PlanModeService,
) -> None:
    session = service.require_session("s1")
    service.enter(session)
    approval, _ = service.begin_exit(session, plan=PLAN, submit_plan=SUBMIT, exit_tool="x")
    assert approval.plan_given is False
    assert service.plan_path(session).read_text() == PLAN
    rejected = service.reject(approval.approval_id, "s1", "Add a test.")
    told = rejected.result.tool_result
    assert told.startswith(
        f"{prompts.REJECTED_PREFIX}: you are still in plan mode. Revise it and {SUBMIT} again "
        "when it is ready."
    ), told
    assert "Add a test." in told and str(service.plan_path(session)) not in told
    again, _ = service.begin_exit(session, plan=PLAN, submit_plan=SUBMIT)
    approved = service.approve(again.approval_id, "s1")
    assert "## Approved Plan:\n" in approved.result.tool_result
    assert approved.result.plan_was_edited is False


def test_an_exit_plan_input_still_counts_as_an_edit_for_other_agents(
    service: PlanModeService,
) -> None:
    session = service.require_session("s1")
    service.enter(session)
    approval, _ = service.begin_exit(session, plan=PLAN)
    assert approval.plan_given is True
    text = service.reject(approval.approval_id, "s1").result.tool_result
    assert "call ExitPlanMode again" in text


def test_a_refused_exit_tells_the_model_to_tell_the_user() -> None:
    text = prompts.refused_exit_text("the plans directory is a symlink", Path("/p.md"), "x", SUBMIT)
    assert text.startswith("Plan mode could not take your plan for review: the plans directory")
    assert "/p.md" not in text


def test_an_agent_can_ask_for_the_sandbox_that_nests_in_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PLANMODE_SANDBOX", raising=False)
    landlock = detect_once({"PLANMODE_SANDBOX": "landlock"})
    if landlock.mechanism is None:
        pytest.skip(f"no Landlock here: {landlock.detail}")
    assert enforcement.sandbox("landlock").mechanism == LANDLOCK
    assert enforcement.sandbox().mechanism == detect_once().mechanism
    # The user's own choice for the server stands.
    monkeypatch.setenv("PLANMODE_SANDBOX", "off")
    assert enforcement.sandbox("landlock").mechanism is None


def test_planning_bash_of_such_an_agent_runs_in_landlock(
    service: PlanModeService, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLANMODE_SANDBOX", raising=False)
    if detect_once({"PLANMODE_SANDBOX": "landlock"}).mechanism is None:
        pytest.skip("no Landlock here")
    session = service.require_session("s1")
    service.enter(session)
    call = CodexCall(planning=True, cwd=str(root))
    decision = service.check_tool(
        session, "Bash", {"command": "ls"}, cwd=str(root), tools=call, sandbox=call.sandbox
    )
    assert decision.behavior == "allow" and decision.sandbox is not None
    assert decision.sandbox.mechanism == LANDLOCK
