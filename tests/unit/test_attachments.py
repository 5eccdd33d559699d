"""Plan-mode attachments and their turn counting (docs/protocol.md §5.3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planmode.core import attachments, plans, workflow
from planmode.core.attachments import Attachment, TurnCounter
from planmode.core.modes import ModeState
from planmode.core.service import PlanModeService
from planmode.core.session import Session
from planmode.lsp import results
from tests.unit.conftest import ServiceFactory

PLAN = "# Plan\n\n1. do it\n"


def planning(service: PlanModeService, session_id: str = "s1") -> Session:
    session = service.require_session(session_id)
    service.enter(session)
    return session


def turn(service: PlanModeService, session: Session, agent_id: str | None = None) -> list[dict]:
    found, _response = service.next_turn(session, agent_id)
    return [results.Attachment.model_validate(a).wire() for a in found]


def kinds(wire: list[dict]) -> list[str]:
    return [a["type"] for a in wire]


def approve_exit(service: PlanModeService, session: Session) -> None:
    approval, _ = service.begin_exit(session)
    service.approve(approval.approval_id, session.id)


def write_plan(service: PlanModeService, session: Session, agent_id: str | None = None) -> Path:
    path = service.plan_path(session, agent_id)
    plans.write_atomic(path, PLAN)
    return path


# -- not in plan / in plan ----------------------------------------------------------------------
def test_not_in_plan_mode_gives_no_attachment(service: PlanModeService) -> None:
    session = service.require_session("s1")
    for _ in range(12):
        assert turn(service, session) == []
    service.set_mode(session, "acceptEdits")
    assert turn(service, session) == []


def test_in_plan_mode_first_turn_gives_full_plan_mode(service: PlanModeService) -> None:
    session = planning(service)
    wire = turn(service, session)
    assert kinds(wire) == ["plan_mode"]
    assert wire[0]["reminderType"] == "full"
    assert wire[0]["isSubAgent"] is False
    assert wire[0]["planFilePath"] == str(service.plan_path(session))
    assert wire[0]["text"].startswith("Plan mode is active")


def test_set_mode_plan_also_gives_plan_mode(service: PlanModeService) -> None:
    session = service.require_session("s1")
    service.set_mode(session, "plan")
    assert kinds(turn(service, session)) == ["plan_mode"]


def test_plan_exists_false_then_true(service: PlanModeService) -> None:
    session = planning(service)
    first = turn(service, session)[0]
    assert first["planExists"] is False
    assert "No plan file exists yet" in first["text"]
    write_plan(service, session)
    for _ in range(4):
        assert turn(service, session) == []
    sixth = turn(service, session)[0]
    assert sixth["planExists"] is True
    assert f"edit it at {service.plan_path(session)}" in sixth["text"]


def test_plan_exists_true_on_first_turn(service: PlanModeService) -> None:
    session = planning(service)
    write_plan(service, session)
    first = turn(service, session)[0]
    assert first["planExists"] is True
    assert "A plan file already exists at" in first["text"]


def test_open_buffer_counts_as_existing_plan(service: PlanModeService) -> None:
    session = planning(service)
    path = service.plan_path(session)
    service.open_document_text = lambda p: "# unsaved\n" if p == path else None
    assert turn(service, session)[0]["planExists"] is True


# -- counting -----------------------------------------------------------------------------------
def test_turns_1_6_11_get_plan_mode_and_1_6_11_attachments_are_full(
    service: PlanModeService,
) -> None:
    session = planning(service)
    seen: dict[int, dict] = {}
    for n in range(1, 52):
        wire = turn(service, session)
        if n % 5 == 1:
            assert kinds(wire) == ["plan_mode"], n
            seen[n] = wire[0]
        else:
            assert wire == [], n
    # 11 attachments on turns 1, 6, ..., 51: the 1st, 6th, 11th are full.
    ordered = [seen[n] for n in sorted(seen)]
    assert len(ordered) == 11
    types = [a["reminderType"] for a in ordered]
    assert types == ["full"] + ["sparse"] * 4 + ["full"] + ["sparse"] * 4 + ["full"]
    for a in ordered:
        if a["reminderType"] == "sparse":
            assert a["text"] == workflow.sparse_instructions(a["planFilePath"], False)
        else:
            assert "### Phase 1" in a["text"]


def test_a_tool_loop_without_next_turn_injects_nothing(service: PlanModeService) -> None:
    """Tool calls (checkTool, applyEdit, reads) between human turns are no turns."""
    session = planning(service)
    assert kinds(turn(service, session)) == ["plan_mode"]
    for _ in range(30):
        service.check_tool(session, "Read", {"file_path": "/x"})
        service.check_tool(session, "Grep", {"pattern": "x"})
    # Still only the second human turn: nothing.
    assert turn(service, session) == []


def test_counting_survives_a_restart(root: Path, make_service: ServiceFactory) -> None:
    first = make_service()
    session = planning(first)
    assert kinds(turn(first, session)) == ["plan_mode"]
    turn(first, session)
    second = make_service()
    again = second.require_session("s1")
    got = [turn(second, again) for _ in range(4)]
    assert got[:3] == [[], [], []]
    assert kinds(got[3]) == ["plan_mode"]
    assert got[3][0]["reminderType"] == "sparse"


# -- exit ---------------------------------------------------------------------------------------
def test_exit_gives_exactly_one_plan_mode_exit_then_clears_the_flag(
    service: PlanModeService,
) -> None:
    session = planning(service)
    path = write_plan(service, session)
    turn(service, session)
    approve_exit(service, session)
    assert service.state(session).needs_plan_mode_exit_attachment is True
    wire = turn(service, session)
    assert wire == [
        {
            "type": "plan_mode_exit",
            "planFilePath": str(path),
            "planExists": True,
            "text": workflow.exit_text(str(path), True),
        }
    ]
    assert service.state(session).needs_plan_mode_exit_attachment is False
    for _ in range(10):
        assert turn(service, session) == []


def test_exit_attachment_without_plan_says_nothing_of_the_file(service: PlanModeService) -> None:
    session = planning(service)
    service.set_mode(session, "default")
    wire = turn(service, session)
    assert kinds(wire) == ["plan_mode_exit"]
    assert wire[0]["planExists"] is False
    assert "The plan file is located" not in wire[0]["text"]


def test_exit_flag_is_dropped_when_back_in_plan_before_the_next_turn(
    service: PlanModeService,
) -> None:
    session = planning(service)
    service.set_mode(session, "default")
    service.enter(session)
    assert kinds(turn(service, session)) == ["plan_mode"]
    assert service.state(session).needs_plan_mode_exit_attachment is False


def test_full_count_restarts_after_an_exit(service: PlanModeService) -> None:
    session = planning(service)
    for _ in range(6):  # attachments 1 (full) and 2 (sparse)
        turn(service, session)
    service.set_mode(session, "default")
    assert session.turns == {}  # leaving plan mode starts every counter afresh
    assert kinds(turn(service, session)) == ["plan_mode_exit"]
    service.enter(session)
    wire = turn(service, session)
    assert kinds(wire) == ["plan_mode"]
    assert wire[0]["reminderType"] == "full"


# -- re-entry -----------------------------------------------------------------------------------
def test_reentry_with_a_plan_puts_reentry_before_the_first_plan_mode(
    service: PlanModeService,
) -> None:
    session = planning(service)
    path = write_plan(service, session)
    turn(service, session)
    approve_exit(service, session)
    turn(service, session)  # plan_mode_exit
    service.enter(session)
    wire = turn(service, session)
    assert kinds(wire) == ["plan_mode_reentry", "plan_mode"]
    assert wire[0] == {
        "type": "plan_mode_reentry",
        "planFilePath": str(path),
        "planExists": True,
        "text": workflow.reentry_text(str(path)),
    }
    assert wire[1]["reminderType"] == "full"
    assert service.state(session).has_exited_plan_mode is False
    # Only once.
    for _ in range(4):
        assert turn(service, session) == []
    assert kinds(turn(service, session)) == ["plan_mode"]


def test_reentry_before_the_exit_attachment_was_taken(service: PlanModeService) -> None:
    session = planning(service)
    write_plan(service, session)
    approve_exit(service, session)
    service.enter(session)
    assert kinds(turn(service, session)) == ["plan_mode_reentry", "plan_mode"]


def test_reentry_without_a_plan_file_gives_no_reentry(service: PlanModeService) -> None:
    session = planning(service)
    turn(service, session)
    service.set_mode(session, "default")
    turn(service, session)
    service.enter(session)
    assert kinds(turn(service, session)) == ["plan_mode"]


# -- subagents ----------------------------------------------------------------------------------
def test_subagent_gets_its_own_path_count_and_flag(service: PlanModeService) -> None:
    session = planning(service)
    main = turn(service, session)
    assert kinds(main) == ["plan_mode"]
    sub = turn(service, session, "worker1")
    assert kinds(sub) == ["plan_mode"]
    assert sub[0]["isSubAgent"] is True
    assert sub[0]["reminderType"] == "full"
    expected = service.plans_directory / f"{session.slug}-agent-worker1.md"
    assert sub[0]["planFilePath"] == str(expected)
    assert sub[0]["planExists"] is False
    assert str(expected) in sub[0]["text"]
    assert "### Phase 1" not in sub[0]["text"]
    assert sub[0]["text"].startswith("Plan mode is active")
    # Its own count: four more sub turns nothing, the fifth an attachment; main unaffected.
    for _ in range(4):
        assert turn(service, session, "worker1") == []
    assert kinds(turn(service, session, "worker1")) == ["plan_mode"]
    assert turn(service, session) == []
    # Another subagent starts its own count.
    assert kinds(turn(service, session, "worker2")) == ["plan_mode"]


def test_subagent_plan_exists_follows_its_own_file(service: PlanModeService) -> None:
    session = planning(service)
    write_plan(service, session)  # the main plan only
    assert turn(service, session, "w")[0]["planExists"] is False
    planning_agent = service.require_session("s2")
    service.enter(planning_agent)
    write_plan(service, planning_agent, "w")
    assert turn(service, planning_agent, "w")[0]["planExists"] is True


def test_subagent_never_consumes_the_main_exit_attachment(service: PlanModeService) -> None:
    session = planning(service)
    write_plan(service, session)
    approve_exit(service, session)
    assert turn(service, session, "worker1") == []  # not in plan: nothing, flag kept
    assert service.state(session).needs_plan_mode_exit_attachment is True
    assert kinds(turn(service, session)) == ["plan_mode_exit"]


def test_subagent_does_not_take_the_main_reentry(service: PlanModeService) -> None:
    session = planning(service)
    write_plan(service, session)
    write_plan(service, session, "w")
    approve_exit(service, session)
    turn(service, session)
    service.enter(session)
    sub = turn(service, session, "w")
    assert kinds(sub) == ["plan_mode"]
    assert kinds(turn(service, session)) == ["plan_mode_reentry", "plan_mode"]


def test_unsafe_agent_id_is_invalid(service: PlanModeService) -> None:
    from planmode.core.errors import InvalidParams

    session = planning(service)
    with pytest.raises(InvalidParams):
        service.next_turn(session, "../evil")


# -- the pure function and the wire shape -------------------------------------------------------
def test_pure_next_turn_counter_and_flags() -> None:
    options = workflow.WorkflowOptions()
    state = ModeState(mode="plan", pre_plan_mode="default")
    result = attachments.next_turn(state, TurnCounter(), "/p.md", lambda: None, options)
    assert [a.type for a in result.attachments] == ["plan_mode"]
    assert result.counter == TurnCounter(turns_since_attachment=0, attachments_since_exit=1)
    counter = result.counter
    for expected in range(1, 5):
        result = attachments.next_turn(state, counter, "/p.md", lambda: None, options)
        assert result.attachments == ()
        counter = result.counter
        assert counter.turns_since_attachment == expected
    result = attachments.next_turn(state, counter, "/p.md", lambda: None, options)
    assert result.attachments[0].reminder_type == "sparse"
    assert result.counter.attachments_since_exit == 2


def test_plan_entered_resets_only_the_turn_gap() -> None:
    counter = TurnCounter(turns_since_attachment=2, attachments_since_exit=3)
    assert attachments.on_plan_entered(counter) == TurnCounter(None, 3)


def test_wire_shape() -> None:
    full = Attachment("plan_mode", "/p.md", False, "t", reminder_type="full", is_sub_agent=False)
    assert results.Attachment.model_validate(full).wire() == {
        "type": "plan_mode",
        "planFilePath": "/p.md",
        "planExists": False,
        "text": "t",
        "reminderType": "full",
        "isSubAgent": False,
    }
    exit_ = Attachment("plan_mode_exit", "/p.md", True, "x")
    assert results.Attachment.model_validate(exit_).wire() == {
        "type": "plan_mode_exit",
        "planFilePath": "/p.md",
        "planExists": True,
        "text": "x",
    }
