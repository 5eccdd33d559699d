"""The plan library of a workspace (core/plan_library.py, core/review.py's save_for_later):
saving a plan under review for later, every plan's status from the decisions recorded, and a
saved plan taken up again by a session."""

from __future__ import annotations

from pathlib import Path

import pytest

from planmode.core import plans
from planmode.core.approval import plan_digest
from planmode.core.errors import InvalidParams, NoPendingApproval, PlanChanged
from planmode.core.library import LibraryRecord
from planmode.core.service import PlanModeService
from planmode.core.session import Session

PLAN = "# Cache the parser\n\n## Steps\n1. Add a cache\n2. Use it\n\n## Verification\nRun it.\n"


def planning(service: PlanModeService, session_id: str = "s1", text: str = PLAN) -> Session:
    session = service.require_session(session_id)
    service.enter(session)
    plans.write_atomic(service.plan_path(session), text)
    return session


def status(service: PlanModeService, path: Path) -> tuple[str, tuple[int, int] | None]:
    (entry,) = [e for e in service.library.entries() if Path(e.path) == path]
    count = (entry.progress.done, entry.progress.total) if entry.progress else None
    return entry.status, count


def saved(service: PlanModeService, session_id: str = "s1") -> tuple[Session, Path]:
    session = planning(service, session_id)
    approval, _ = service.begin_exit(session, agent="gemini")
    service.save_for_later(approval.approval_id)
    return session, approval.plan_file_path


def test_save_for_later_keeps_plan_mode_and_tells_the_agent_to_stop(
    service: PlanModeService, root: Path
) -> None:
    session = planning(service)
    approval, _ = service.begin_exit(session, exit_tool="exit_plan_mode", agent="gemini")
    decision = service.save_for_later(approval.approval_id, "s1", plan_digest(PLAN))
    result = decision.result
    assert result.outcome == "saved"
    assert result.plan == PLAN
    assert result.tool_result.startswith("The user saved the plan for later. Do not implement")
    assert "Do not call exit_plan_mode again for this plan" in result.tool_result
    assert str(approval.plan_file_path) in result.tool_result
    assert session.pending is None and session.modes.mode == "plan"
    assert plans.read_plan(approval.plan_file_path) == PLAN
    # The record, as another server of the workspace reads it.
    record = LibraryRecord(root).records()[str(approval.plan_file_path)]
    assert (record.decision, record.agent, record.session_id) == ("saved", "gemini", "s1")
    assert status(service, approval.plan_file_path) == ("saved", None)


def test_an_agent_whose_exit_brings_its_plan_is_told_how_it_submits_one(
    service: PlanModeService,
) -> None:
    session = planning(service)
    approval, _ = service.begin_exit(
        session, plan=PLAN, submit_plan="propose your plan in a <proposed_plan> block"
    )
    text = service.save_for_later(approval.approval_id).result.tool_result
    assert "Do not propose your plan in a <proposed_plan> block for this plan" in text


def test_saving_decides_only_what_was_shown(service: PlanModeService) -> None:
    session = planning(service)
    approval, _ = service.begin_exit(session)
    with pytest.raises(PlanChanged):
        service.save_for_later(approval.approval_id, plan_sha256=plan_digest("# Other\n"))
    # The agent changes the plan after it was shown: a save without a digest is refused.
    plans.write_atomic(approval.plan_file_path, PLAN + "3. More\n")
    with pytest.raises(PlanChanged):
        service.save_for_later(approval.approval_id)
    with pytest.raises(NoPendingApproval):
        service.save_for_later("no-such-id")
    with pytest.raises(NoPendingApproval):
        service.save_for_later(approval.approval_id, session_id="another")
    assert session.pending == approval  # nothing changed
    assert status(service, approval.plan_file_path) == ("underReview", None)


def test_statuses_follow_the_decisions(service: PlanModeService) -> None:
    session = planning(service)
    path = service.plan_path(session)
    assert status(service, path) == ("drafting", None)
    approval, _ = service.begin_exit(session)
    assert status(service, path) == ("underReview", None)
    service.reject(approval.approval_id)
    assert status(service, path) == ("rejected", None)
    approval, _ = service.begin_exit(session)
    service.approve(approval.approval_id)
    assert status(service, path) == ("executing", (0, 2))
    service.executions.set_step_status(session, 0, "done")
    service.executions.set_step_status(session, 1, "done")
    assert status(service, path) == ("done", (2, 2))
    # The execution ends (plan mode again): the record still says how far it got.
    service.enter(session)
    assert status(service, path) == ("done", (2, 2))
    assert LibraryRecord(service.root).records()[str(path)].progress is not None


def test_take_up_in_another_session_moves_the_slug(service: PlanModeService) -> None:
    first, path = saved(service)
    later = service.require_session("s2")
    taken = service.take_up(later, path)
    assert (taken.plan_file, taken.taken_from) == (path, path)
    assert service.plan_path(later) == path and later.modes.mode == "plan"
    # The session that saved it plans a new plan next time, not the taken-up one.
    assert service.plan_path(first) != path
    assert status(service, path) == ("drafting", None)
    # The model is told once, at its next turn.
    found, _ = service.next_turn(later)
    assert found[0].type == "plan_taken_up" and found[0].plan_file_path == str(path)
    assert "took up a saved plan" in found[0].text and "ExitPlanMode" in found[0].text
    again, _ = service.next_turn(later)
    assert "plan_taken_up" not in [a.type for a in again]
    # Its next exit reviews the saved text.
    approval, _ = service.begin_exit(later)
    assert approval.plan_file_path == path and approval.submitted_plan == PLAN


def test_take_up_into_an_agents_own_plan_file_writes_the_text_there(
    service: PlanModeService, root: Path
) -> None:
    _first, path = saved(service)
    later = service.require_session("s2")
    own = root / "elsewhere" / "agent-plan.md"
    own.parent.mkdir()
    later.plan_file, later.plan_file_source = own, "test"
    taken = service.take_up(later, path)
    assert (taken.plan_file, taken.taken_from) == (own, path)
    assert own.read_text() == PLAN
    (revision,) = service.history.revisions(own)
    assert revision.reason == f"taken up from {path}"
    (attachment, *_) = service.next_turn(later)[0]
    assert f"(saved at {path})" in attachment.text


def test_take_up_refuses_and_changes_nothing(service: PlanModeService, root: Path) -> None:
    session = planning(service)
    path = service.plan_path(session)
    other = service.require_session("s2")
    for raw, says in [
        (path, "drafting, not saved"),
        (root / "README.md", "not a plan of this workspace"),
    ]:
        with pytest.raises(InvalidParams, match=says):
            service.take_up(other, raw)
    approval, _ = service.begin_exit(session)
    with pytest.raises(InvalidParams, match="underReview"):
        service.take_up(other, path)
    service.save_for_later(approval.approval_id)
    busy = planning(service, "busy", "# Busy\n\n1. One\n")
    service.begin_exit(busy)
    with pytest.raises(InvalidParams, match="under review"):
        service.take_up(busy, path)
    assert service.plan_path(other) != path and other.modes.mode != "plan"
    assert status(service, path) == ("saved", None)


def test_a_plan_taken_up_follows_the_plan_file_the_agent_names_later(
    service: PlanModeService, root: Path
) -> None:
    _first, path = saved(service)
    later = service.require_session("s2")
    service.take_up(later, path)
    assert service.plan_path(later) == path
    # The agent names its own plan file only now (Claude Code's transcript): the taken-up
    # text goes there, and the model is told where it is.
    own = root / "elsewhere" / "agent-plan.md"
    own.parent.mkdir()
    later.plan_file, later.plan_file_source = own, "test"
    service.library.follow_plan_file(later)
    assert own.read_text() == PLAN
    (attachment, *_) = service.next_turn(later)[0]
    assert attachment.plan_file_path == str(own)
    # Once only: a later change of the plan file takes nothing along.
    third = root / "elsewhere" / "third.md"
    later.plan_file = third
    service.library.follow_plan_file(later)
    assert not third.exists()


def test_a_plan_the_agent_already_wrote_is_not_overwritten(
    service: PlanModeService, root: Path
) -> None:
    _first, path = saved(service)
    later = service.require_session("s2")
    service.take_up(later, path)
    own = root / "elsewhere" / "agent-plan.md"
    own.parent.mkdir()
    own.write_text("# The agent's own plan\n")
    later.plan_file, later.plan_file_source = own, "test"
    service.library.follow_plan_file(later)
    assert own.read_text() == "# The agent's own plan\n"
