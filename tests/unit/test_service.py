"""PlanModeService: /plan, EnterPlanMode, ExitPlanMode and approval (docs/protocol.md §2–§5)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from planmode.core import plans, prompts
from planmode.core.approval import AllowedPrompt, plan_digest
from planmode.core.errors import (
    AgentContext,
    InvalidParams,
    NoPendingApproval,
    NotInPlanMode,
    PlanChanged,
    PlanModeDisabled,
)
from planmode.core.modes import PermissionMode
from planmode.core.service import PlanModeService
from planmode.core.session import Session
from planmode.core.settings import Settings
from tests.unit.conftest import ServiceFactory
from tests.unit.editor_buffers import Buffers

PLAN = "# Plan\n\n1. Add the parser\n2. Test it\n"
APPROVED_HEAD = (
    "User has approved your plan. You can now start coding. Start with updating your todo list "
    "if applicable"
)


def planning(service: PlanModeService, session_id: str = "s1") -> Session:
    session = service.require_session(session_id)
    service.enter(session)
    return session


def write_plan(service: PlanModeService, session: Session, text: str = PLAN) -> Path:
    path = service.plan_path(session)
    plans.write_atomic(path, text)
    return path


# -- sessions ---------------------------------------------------------------------------------
def test_a_new_session_starts_in_default_mode(service: PlanModeService) -> None:
    state = service.state(service.require_session("s1"))
    assert state.mode == "default"
    assert state.pre_plan_mode is None
    assert state.plan_exists is False
    assert state.pending_approval is None
    assert state.has_exited_plan_mode is False


@pytest.mark.parametrize("bad", ["", "../x", "a/b", "x" * 300])
def test_unsafe_session_id_is_invalid_params(service: PlanModeService, bad: str) -> None:
    with pytest.raises(InvalidParams, match="sessionId"):
        service.session(bad)


def test_session_without_create_is_none_when_unknown(service: PlanModeService) -> None:
    assert service.session("nobody", create=False) is None


def test_plan_mode_and_slug_survive_a_restart(make_service: ServiceFactory) -> None:
    first = make_service()
    session = planning(first)
    slug = first.plan_slug(session)
    second = make_service()
    again = second.require_session("s1")
    assert again.modes.mode == "plan"
    assert again.modes.pre_plan_mode == "default"
    assert second.plan_slug(again) == slug
    assert second.plan_path(again) == first.plan_path(session)


def test_a_corrupt_session_is_reported_and_started_afresh(
    make_service: ServiceFactory, root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = make_service()
    planning(first)
    first.store.path("s1").write_text("{torn write")
    second = make_service()
    with caplog.at_level(logging.ERROR):
        session = second.require_session("s1")
    assert session.modes.mode == "default"
    assert second.lost_sessions == ["s1"]
    assert any("s1" in r.getMessage() for r in caplog.records)


def test_a_failed_save_keeps_the_mode_in_memory_and_logs(
    service: PlanModeService, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    session = service.require_session("s1")

    def full_disk(_session: Session) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(service.store, "save", full_disk)
    with caplog.at_level(logging.ERROR):
        service.enter(session)
    assert service.require_session("s1").modes.mode == "plan"
    assert any("No space left" in r.getMessage() for r in caplog.records)


# -- /plan ------------------------------------------------------------------------------------
def test_slash_plan_enters_without_querying(service: PlanModeService) -> None:
    session = service.require_session("s1")
    result = service.slash_command(session, "")
    assert result.message == "Enabled plan mode"
    assert result.should_query is False
    assert result.open_path is None
    assert session.modes.mode == "plan"
    assert session.modes.pre_plan_mode == "default"


def test_slash_plan_with_a_description_enters_and_queries(service: PlanModeService) -> None:
    session = service.require_session("s1")
    result = service.slash_command(session, "  重构认证模块 ")
    assert result.message == "Enabled plan mode"
    assert result.should_query is True
    assert session.modes.mode == "plan"
    assert session.modes.pre_plan_mode == "default"


@pytest.mark.parametrize("args", ["open", "  open  ", "   "])
def test_slash_plan_open_or_blank_outside_plan_only_enters(
    service: PlanModeService, args: str
) -> None:
    session = service.require_session("s1")
    result = service.slash_command(session, args)
    assert result.message == "Enabled plan mode"
    assert result.should_query is False
    assert result.open_path is None
    assert session.modes.mode == "plan"


def test_slash_plan_records_the_mode_it_came_from(service: PlanModeService) -> None:
    session = service.require_session("s1")
    service.set_mode(session, "acceptEdits")
    service.slash_command(session, "")
    assert session.modes.pre_plan_mode == "acceptEdits"


@pytest.mark.parametrize("content", [None, ""])
def test_slash_plan_in_plan_without_a_plan(service: PlanModeService, content: str | None) -> None:
    session = planning(service)
    if content is not None:
        write_plan(service, session, content)
    result = service.slash_command(session, "")
    assert result.message == "Already in plan mode. No plan written yet."
    assert result.should_query is False
    assert session.modes.mode == "plan"
    # Asking again does not overwrite where plan mode was entered from.
    assert session.modes.pre_plan_mode == "default"


def test_slash_plan_in_plan_shows_the_plan(service: PlanModeService) -> None:
    session = planning(service)
    path = write_plan(service, session)
    result = service.slash_command(session, "")
    assert result.message.startswith("Current Plan\n" + str(path) + "\n")
    assert PLAN in result.message
    assert result.should_query is False
    assert "/plan open" not in result.message
    with_editor = service.slash_command(session, "", editor_name="VS Code")
    assert with_editor.message.endswith('"/plan open" to edit this plan in VS Code')


def test_slash_plan_open_in_plan_asks_to_open_the_plan(service: PlanModeService) -> None:
    session = planning(service)
    path = write_plan(service, session)
    result = service.slash_command(session, "open now")
    assert result.open_path == path
    assert result.should_query is False


def test_slash_plan_open_in_plan_without_a_plan_opens_nothing(service: PlanModeService) -> None:
    session = planning(service)
    result = service.slash_command(session, "open")
    assert result.open_path is None
    assert result.message == prompts.ALREADY_IN_PLAN_MODE_NO_PLAN


def test_slash_plan_shows_unsaved_editor_contents(service: PlanModeService) -> None:
    session = planning(service)
    path = write_plan(service, session, "on disk")
    service.open_document_text = lambda p: "in the editor" if p == path else None
    assert "in the editor" in service.slash_command(session, "").message


# -- plan files -------------------------------------------------------------------------------
def test_plan_path_is_stable_within_a_session(service: PlanModeService, root: Path) -> None:
    session = service.require_session("s1")
    first = service.plan_path(session)
    assert service.plan_path(session) == first
    assert service.state(session).plan_file_path == first
    assert first.parent == root / ".claude" / "plans"
    assert first.name == f"{session.slug}.md"


def test_sessions_get_different_slugs(service: PlanModeService) -> None:
    slugs = {service.plan_slug(service.require_session(f"s{i}")) for i in range(5)}
    assert len(slugs) == 5


def test_a_slug_held_by_another_session_is_not_reused_even_without_a_file(
    service: PlanModeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = iter(["bold-eagle", "bold-eagle", "calm-otter"])
    monkeypatch.setattr(plans, "generate_slug", lambda _words: next(names))
    first = service.plan_slug(service.require_session("a"))
    second = service.plan_slug(service.require_session("b"))
    assert (first, second) == ("bold-eagle", "calm-otter")


def test_subagent_plan_file_name(service: PlanModeService) -> None:
    session = service.require_session("s1")
    path = service.plan_path(session, "agent7")
    assert path.name == f"{session.slug}-agent-agent7.md"
    assert path.parent == service.plan_path(session).parent


def test_unsafe_agent_id_is_invalid_params(service: PlanModeService) -> None:
    with pytest.raises(InvalidParams, match="agentId"):
        service.plan_path(service.require_session("s1"), "../../etc/passwd")


def test_plans_directory_escape_falls_back_with_a_warning(
    make_service: ServiceFactory, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / "link").symlink_to(outside, target_is_directory=True)
    for setting in ("../elsewhere", "link"):
        service = make_service(plansDirectory=setting)
        assert service.plans_directory == root / ".claude" / "plans"
        assert service.plans_directory_warning is not None
        assert "plansDirectory" in service.plans_directory_warning
        path = service.plan_path(service.require_session("s1"))
        assert path.is_relative_to(root)


def test_plans_directory_setting_inside_the_root(make_service: ServiceFactory, root: Path) -> None:
    service = make_service(plansDirectory="docs/plans")
    assert service.plan_path(service.require_session("s1")).parent == root / "docs" / "plans"
    assert service.plans_directory_warning is None


def test_missing_plan_reads_as_none(service: PlanModeService) -> None:
    assert service.read_plan(service.require_session("s1")) is None


def test_unreadable_plan_is_logged_and_none(
    service: PlanModeService, caplog: pytest.LogCaptureFixture
) -> None:
    session = service.require_session("s1")
    path = service.plan_path(session)
    path.mkdir(parents=True)
    with caplog.at_level(logging.ERROR, logger="planmode.core.plans"):
        assert service.read_plan(session) is None
    assert any(str(path) in r.getMessage() for r in caplog.records)


# -- EnterPlanMode ----------------------------------------------------------------------------
def test_enter_from_an_agent_context_is_refused(service: PlanModeService) -> None:
    session = service.require_session("s1")
    with pytest.raises(AgentContext) as raised:
        service.enter(session, agent_id="sub1")
    assert raised.value.message == "EnterPlanMode tool cannot be used in agent contexts"
    assert session.modes.mode == "default"


def test_enter_with_channels_active_is_refused(make_service: ServiceFactory) -> None:
    service = make_service(channelsActive=True)
    session = service.require_session("s1")
    with pytest.raises(PlanModeDisabled) as raised:
        service.enter(session)
    assert raised.value.message.startswith("Plan mode is disabled")
    assert session.modes.mode == "default"
    with pytest.raises(PlanModeDisabled):
        service.set_mode(session, "plan")
    assert session.modes.mode == "default"


@pytest.mark.parametrize("before", ["default", "acceptEdits", "auto", "bypassPermissions"])
def test_enter_switches_to_plan_and_records_the_previous_mode(
    service: PlanModeService, before: PermissionMode
) -> None:
    session = service.require_session("s1")
    service.set_mode(session, before)
    message = service.enter(session)
    assert message == prompts.enter_tool_result(False)
    assert session.modes.mode == "plan"
    assert session.modes.pre_plan_mode == before
    state = service.state(session)
    assert (state.mode, state.pre_plan_mode) == ("plan", before)
    # Saved, not only in memory.
    saved = service.store.load("s1")
    assert saved is not None and saved.modes.mode == "plan"


def test_enter_in_interview_phase_returns_the_short_text(make_service: ServiceFactory) -> None:
    service = make_service(interviewPhase=True)
    message = service.enter(service.require_session("s1"))
    assert message == prompts.enter_tool_result(True)
    assert "except the plan file" in message


# -- ExitPlanMode -----------------------------------------------------------------------------
def test_exit_outside_plan_mode_is_refused_and_changes_nothing(service: PlanModeService) -> None:
    session = service.require_session("s1")
    with pytest.raises(NotInPlanMode) as raised:
        service.begin_exit(session, plan="a plan that must not be written")
    assert str(raised.value) == (
        "You are not in plan mode. This tool is only for exiting plan mode after writing a plan. "
        "If your plan was already approved, continue with implementation."
    )
    assert session.pending is None
    assert not service.plan_path(session).exists()


def test_begin_exit_makes_an_approval_pending_and_stays_in_plan(service: PlanModeService) -> None:
    session = planning(service)
    path = write_plan(service, session)
    approval, replaced = service.begin_exit(session)
    assert replaced is None
    assert session.pending == approval
    assert approval.submitted_plan == PLAN
    assert approval.plan_file_path == path
    assert session.modes.mode == "plan"
    assert service.state(session).pending_approval == approval


@pytest.mark.parametrize("before", ["default", "acceptEdits", "bypassPermissions", "auto"])
def test_approve_restores_the_mode_and_sets_the_exit_flags(
    service: PlanModeService, before: PermissionMode
) -> None:
    session = service.require_session("s1")
    service.set_mode(session, before)
    service.enter(session)
    write_plan(service, session)
    approval, _ = service.begin_exit(session)
    decision = service.approve(approval.approval_id)
    assert session.modes.mode == before
    assert session.modes.pre_plan_mode is None
    assert session.modes.has_exited_plan_mode is True
    assert session.modes.needs_plan_mode_exit_attachment is True
    assert session.pending is None
    assert decision.result.restored_mode == before
    assert decision.warnings == ()
    state = service.state(session)
    assert state.has_exited_plan_mode is True
    assert state.needs_plan_mode_exit_attachment is True
    assert state.pre_plan_mode is None


def test_approving_an_empty_plan(service: PlanModeService) -> None:
    session = planning(service)
    approval, _ = service.begin_exit(session)
    result = service.approve(approval.approval_id).result
    assert result.tool_result == "User has approved exiting plan mode. You can now proceed."
    assert result.plan is None
    assert result.plan_was_edited is False


def test_approving_a_plan(service: PlanModeService) -> None:
    session = planning(service)
    path = write_plan(service, session)
    approval, _ = service.begin_exit(session)
    result = service.approve(approval.approval_id).result
    assert result.outcome == "approved"
    assert result.plan == PLAN
    assert result.plan_was_edited is False
    assert result.tool_result.startswith(APPROVED_HEAD)
    assert f"Your plan has been saved to: {path}\n" in result.tool_result
    assert result.tool_result.endswith("## Approved Plan:\n" + PLAN)


def test_a_plan_given_with_exit_is_written_and_counts_as_edited(service: PlanModeService) -> None:
    session = planning(service)
    write_plan(service, session, "old draft")
    approval, _ = service.begin_exit(session, plan=PLAN)
    assert service.plan_path(session).read_text() == PLAN
    assert approval.submitted_plan == PLAN
    result = service.approve(approval.approval_id).result
    assert result.plan_was_edited is True
    assert result.plan == PLAN
    assert "## Approved Plan (edited by user):\n" + PLAN in result.tool_result


def test_the_plan_approved_is_the_buffer_the_user_edited(service: PlanModeService) -> None:
    session = planning(service)
    path = write_plan(service, session)
    approval, _ = service.begin_exit(session)
    edited = PLAN + "3. Document it\n"
    Buffers(service).type(path, edited)
    decision = service.approve(approval.approval_id)
    assert decision.result.plan == edited
    assert decision.result.plan_was_edited is True
    assert decision.result.user_edits_diff is not None
    assert "+3. Document it" in decision.result.user_edits_diff
    assert "## Approved Plan (edited by user):" in decision.result.tool_result
    assert decision.written == edited
    assert [r.author for r in service.history.revisions(path)] == ["agent", "user"]


def test_a_file_changed_outside_the_editor_is_not_the_users_edit(
    service: PlanModeService,
) -> None:
    """Approved once shown (the digest of what the approver saw), it is the agent's revision:
    no edit of the user's, and history says so."""
    session = planning(service)
    path = write_plan(service, session)
    approval, _ = service.begin_exit(session)
    changed = PLAN + "3. Document it\n"
    path.write_text(changed)
    with pytest.raises(PlanChanged):
        service.approve(approval.approval_id)  # never shown
    decision = service.approve(approval.approval_id, plan_sha256=plan_digest(changed))
    assert decision.result.plan == changed
    assert decision.result.plan_was_edited is False
    assert decision.result.user_edits_diff is None
    assert "(edited by user)" not in decision.result.tool_result
    assert [(r.author, r.reason) for r in service.history.revisions(path)] == [
        ("agent", "submitted for approval"),
        ("agent", "changed outside the editor"),
    ]


def test_unsaved_editor_contents_are_approved_and_written(service: PlanModeService) -> None:
    session = planning(service)
    path = write_plan(service, session)
    approval, _ = service.begin_exit(session)
    buffer = PLAN + "3. From the editor\n"
    service.open_document_text = lambda p: buffer if p == path else None
    decision = service.approve(approval.approval_id, plan_sha256=plan_digest(buffer))
    assert decision.written == buffer
    assert path.read_text() == buffer
    assert decision.result.plan == buffer


def test_approve_with_a_stale_digest_changes_nothing(service: PlanModeService) -> None:
    session = service.require_session("s1")
    service.set_mode(session, "acceptEdits")
    service.enter(session)
    path = write_plan(service, session)
    approval, _ = service.begin_exit(session)
    seen = plan_digest(PLAN)
    path.write_text(PLAN + "4. sneaked in\n")
    before_modes = session.modes
    with pytest.raises(PlanChanged) as raised:
        service.approve(approval.approval_id, plan_sha256=seen, mode="bypassPermissions")
    assert raised.value.message.startswith("Plan changed since it was shown")
    assert session.modes == before_modes
    assert session.modes.mode == "plan"
    assert session.pending == approval
    assert path.read_text() == PLAN + "4. sneaked in\n"
    saved = service.store.load("s1")
    assert saved is not None and saved.modes.mode == "plan"
    # The same approval can still be approved once the user has seen the current plan.
    current = plan_digest(PLAN + "4. sneaked in\n")
    decision = service.approve(approval.approval_id, plan_sha256=current.upper())
    assert decision.result.plan == PLAN + "4. sneaked in\n"
    assert session.modes.mode == "acceptEdits"


def test_approve_with_the_matching_digest(service: PlanModeService) -> None:
    session = planning(service)
    write_plan(service, session)
    approval, _ = service.begin_exit(session)
    service.approve(approval.approval_id, plan_sha256=plan_digest(PLAN))
    assert session.modes.mode == "default"


def test_approve_with_accept_edits(service: PlanModeService) -> None:
    session = planning(service)
    write_plan(service, session)
    approval, _ = service.begin_exit(session)
    decision = service.approve(approval.approval_id, mode="acceptEdits")
    assert session.modes.mode == "acceptEdits"
    assert decision.result.restored_mode == "acceptEdits"
    saved = service.store.load("s1")
    assert saved is not None and saved.modes.mode == "acceptEdits"


def test_approve_back_into_plan_is_invalid(service: PlanModeService) -> None:
    session = planning(service)
    approval, _ = service.begin_exit(session)
    with pytest.raises(InvalidParams):
        service.approve(approval.approval_id, mode="plan")
    assert session.pending == approval
    assert session.modes.mode == "plan"


def test_approve_to_auto_with_the_gate_now_off_restores_default_with_a_warning(
    service: PlanModeService,
) -> None:
    session = service.require_session("s1")
    service.set_mode(session, "auto")
    service.enter(session)
    approval, _ = service.begin_exit(session)
    service.update_settings(Settings(autoModeGate=False))
    decision = service.approve(approval.approval_id)
    assert session.modes.mode == "default"
    assert decision.result.restored_mode == "default"
    assert len(decision.warnings) == 1
    assert "plan exit -> default" in decision.warnings[0]


def test_set_mode_to_auto_with_the_gate_off_is_invalid(make_service: ServiceFactory) -> None:
    service = make_service(autoModeGate=False)
    session = service.require_session("s1")
    with pytest.raises(InvalidParams, match="autoModeGate"):
        service.set_mode(session, "auto")
    assert session.modes.mode == "default"


def test_reject_keeps_plan_mode(service: PlanModeService) -> None:
    session = planning(service)
    path = write_plan(service, session)
    approval, _ = service.begin_exit(session)
    decision = service.reject(approval.approval_id, feedback="Use the existing parser")
    assert session.modes.mode == "plan"
    assert session.modes.pre_plan_mode == "default"
    assert session.modes.has_exited_plan_mode is False
    assert session.pending is None
    assert decision.result.outcome == "rejected"
    assert decision.result.tool_result.startswith("User rejected the plan. Keep planning")
    assert "Use the existing parser" in decision.result.tool_result
    assert path.read_text() == PLAN
    with pytest.raises(NoPendingApproval):
        service.approve(approval.approval_id)


def test_a_decided_or_unknown_approval_is_no_pending_approval(service: PlanModeService) -> None:
    session = planning(service)
    approval, _ = service.begin_exit(session)
    service.approve(approval.approval_id)
    with pytest.raises(NoPendingApproval) as raised:
        service.approve(approval.approval_id)
    assert raised.value.message.startswith("No pending approval")
    with pytest.raises(NoPendingApproval):
        service.reject("nope")
    with pytest.raises(NoPendingApproval):
        service.approve(approval.approval_id, session_id="unknown-session")
    assert service.session("unknown-session", create=False) is None


def test_approve_names_the_session(service: PlanModeService) -> None:
    first = planning(service, "s1")
    second = planning(service, "s2")
    approval, _ = service.begin_exit(first)
    with pytest.raises(NoPendingApproval):
        service.approve(approval.approval_id, session_id="s2")
    service.approve(approval.approval_id, session_id="s1")
    assert (first.modes.mode, second.modes.mode) == ("default", "plan")


def test_a_second_exit_replaces_the_pending_approval(service: PlanModeService) -> None:
    session = planning(service)
    first, _ = service.begin_exit(session)
    second, replaced = service.begin_exit(session)
    assert replaced == first
    assert session.pending == second
    with pytest.raises(NoPendingApproval):
        service.approve(first.approval_id)


def test_cancel_drops_the_pending_approval_and_stays_in_plan(service: PlanModeService) -> None:
    session = planning(service)
    stale, _ = service.begin_exit(session)
    current, _ = service.begin_exit(session)
    assert service.cancel(stale) is False
    assert session.pending == current
    assert service.cancel(current) is True
    assert session.pending is None
    assert session.modes.mode == "plan"
    assert service.cancel(current) is False


def test_leaving_plan_by_the_mode_switch_ends_the_pending_approval(
    service: PlanModeService,
) -> None:
    session = planning(service)
    approval, _ = service.begin_exit(session)
    service.set_mode(session, "acceptEdits")
    assert session.pending is None
    assert session.modes.has_exited_plan_mode is True
    with pytest.raises(NoPendingApproval):
        service.approve(approval.approval_id)


def test_a_subagent_plan_is_approved_without_leaving_plan(service: PlanModeService) -> None:
    session = planning(service)
    path = service.plan_path(session, "sub1")
    approval, _ = service.begin_exit(session, agent_id="sub1", plan="sub plan")
    assert path.read_text() == "sub plan"
    assert not service.plan_path(session).exists()
    decision = service.approve(approval.approval_id)
    assert decision.result.is_agent is True
    assert decision.result.restored_mode is None
    assert session.modes.mode == "plan"
    assert "Please respond with" in decision.result.tool_result


# -- allowedPrompts ---------------------------------------------------------------------------
def test_allowed_prompts_are_granted_on_approval_and_revoked_on_reentry(
    service: PlanModeService,
) -> None:
    session = planning(service)
    asked = (AllowedPrompt("Bash", "run tests"), AllowedPrompt("Bash", "install dependencies"))
    approval, _ = service.begin_exit(session, allowed_prompts=asked)
    assert session.granted_prompts == ()
    service.approve(approval.approval_id, grant=asked)  # shown with the approval
    assert session.granted_prompts == asked
    assert service.state(session).granted_prompts == asked
    saved = service.store.load("s1")
    assert saved is not None and saved.granted_prompts == asked
    service.enter(session)
    assert session.granted_prompts == ()


def test_rejected_prompts_are_not_granted(service: PlanModeService) -> None:
    session = planning(service)
    approval, _ = service.begin_exit(session, allowed_prompts=(AllowedPrompt("Bash", "x"),))
    service.reject(approval.approval_id)
    assert session.granted_prompts == ()


def test_grants_are_revoked_by_every_road_back_into_plan(service: PlanModeService) -> None:
    for enter_again in ("set_mode", "slash"):
        session = planning(service, f"s-{enter_again}")
        approval, _ = service.begin_exit(session, allowed_prompts=(AllowedPrompt("Bash", "x"),))
        service.approve(approval.approval_id, grant=approval.allowed_prompts)
        assert session.granted_prompts
        if enter_again == "set_mode":
            service.set_mode(session, "plan")
        else:
            service.slash_command(session, "")
        assert session.granted_prompts == ()


def test_a_subagent_approval_grants_nothing(service: PlanModeService) -> None:
    session = planning(service)
    sub, _ = service.begin_exit(
        session, agent_id="sub", allowed_prompts=(AllowedPrompt("Bash", "b"),)
    )
    result = service.approve(sub.approval_id, grant=sub.allowed_prompts).result
    assert session.granted_prompts == () and result.granted_prompts == ()
    assert session.modes.mode == "plan"


def test_prompts_the_approver_was_not_shown_are_not_granted(service: PlanModeService) -> None:
    session = planning(service)
    asked = (AllowedPrompt("Bash", "python3 *"), AllowedPrompt("Bash", "run tests"))
    approval, _ = service.begin_exit(session, allowed_prompts=asked)
    shown = (AllowedPrompt("Bash", "run tests"), AllowedPrompt("Bash", "rm *"))
    result = service.approve(approval.approval_id, grant=shown).result
    assert session.granted_prompts == result.granted_prompts == (asked[1],)


def test_a_prompt_asked_for_twice_is_granted_once(service: PlanModeService) -> None:
    session = planning(service)
    twice = (AllowedPrompt("Bash", "a"), AllowedPrompt("Bash", "b"), AllowedPrompt("Bash", "a"))
    approval, _ = service.begin_exit(session, allowed_prompts=twice)
    service.approve(approval.approval_id, grant=twice)
    assert session.granted_prompts == (AllowedPrompt("Bash", "a"), AllowedPrompt("Bash", "b"))


# -- settings changing mid-plan ---------------------------------------------------------------
def test_turning_auto_during_plan_on_while_planning(service: PlanModeService) -> None:
    session = planning(service)
    idle = service.require_session("idle")
    changed = service.update_settings(Settings(useAutoModeDuringPlan=True))
    assert changed == [session]
    assert session.modes.auto_mode_active is True
    assert idle.modes.auto_mode_active is False
    saved = service.store.load("s1")
    assert saved is not None and saved.modes.auto_mode_active is True
    assert service.update_settings(Settings(useAutoModeDuringPlan=True)) == []
    service.update_settings(Settings())
    assert session.modes.auto_mode_active is False
    assert session.modes.needs_auto_mode_exit_attachment is True


def test_update_settings_moves_the_plans_directory(service: PlanModeService, root: Path) -> None:
    service.update_settings(Settings(plansDirectory="elsewhere"))
    assert service.plans_directory == root / "elsewhere"
    service.update_settings(Settings(plansDirectory="/"))
    assert service.plans_directory == root / ".claude" / "plans"
    assert service.plans_directory_warning is not None


# -- listing ----------------------------------------------------------------------------------
def test_list_plans(make_service: ServiceFactory) -> None:
    service = make_service()
    mine = planning(service, "s1")
    mine_path = write_plan(service, mine)
    other = planning(service, "s2")
    other_path = write_plan(service, other, "other")
    sub_path = service.plan_path(other, "sub")
    plans.write_atomic(sub_path, "sub")
    service.begin_exit(mine)
    listed = {p.path: p for p in service.list_plans()}
    assert set(listed) == {mine_path, other_path, sub_path}
    assert listed[mine_path].session_id == "s1"
    assert listed[mine_path].pending is True
    assert listed[mine_path].size_bytes == len(PLAN.encode())
    assert listed[other_path].pending is False
    assert listed[sub_path].agent_id == "sub"
    assert listed[sub_path].session_id == "s2"
    assert listed[mine_path].modified.endswith("Z")
    # A new server knows the owners from the saved sessions alone.
    fresh = {p.path: p.session_id for p in make_service().list_plans()}
    assert fresh[other_path] == "s2"


def test_list_plans_of_a_new_workspace_is_empty(service: PlanModeService) -> None:
    assert service.list_plans() == []
