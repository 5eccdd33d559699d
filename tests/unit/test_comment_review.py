"""Review comments through the service: delivered on reject and approve, kept in history,
stripped from the approved plan, re-anchored or outdated after the agent's revision."""

from __future__ import annotations

from pathlib import Path

from planmode.core import plans
from planmode.core.service import PlanModeService
from planmode.core.session import Session
from planmode.lsp import results
from tests.unit.conftest import ServiceFactory
from tests.unit.editor_buffers import Buffers
from tests.unit.teammates import submitted, teammate_service

PLAN = "# Greet\n\n## Steps\n1. Read the name.\n2. Print it.\n\n## Verification\nRun tests.\n"
COMMENTED = PLAN.replace(
    "1. Read the name.\n", "1. Read the name.\n> [!review] From argv or stdin?\n"
) + ("\n> [!review] Test the empty name.\n")


def pending(service: PlanModeService, text: str = PLAN) -> tuple[Session, Path, str]:
    session = service.require_session("s1")
    service.enter(session)
    path = service.plan_path(session)
    plans.write_atomic(path, text)
    approval, _ = service.begin_exit(session)
    return session, path, approval.approval_id


def test_reject_with_comments_sends_each_with_its_anchor(service: PlanModeService) -> None:
    _, path, approval_id = pending(service)
    Buffers(service).type(path, COMMENTED)  # the user comments in the plan
    result = service.reject(approval_id, feedback="Close, but not yet.", include_comments=True)
    result_wire = results.ExitResult.model_validate(result.result).wire()
    assert result_wire["remark"] == "Close, but not yet."
    assert result_wire["comments"] == [
        {
            "text": "From argv or stdin?",
            "quote": "1. Read the name.",
            "headingPath": ["Greet", "Steps"],
            "line": 4,
            "outdated": False,
        },
        {
            "text": "Test the empty name.",
            "quote": "Run tests.",
            "headingPath": ["Greet", "Verification"],
            "line": 8,
            "outdated": False,
        },
    ]
    feedback = result_wire["feedback"]
    assert feedback.startswith("Close, but not yet.\n\nThe user's comments on the plan")
    assert "1. under “Greet › Steps” on line 4: “1. Read the name.”\n   From argv or stdin?" in (
        feedback
    )
    assert result_wire["toolResult"].endswith(feedback)
    (revision,) = [r for r in service.history.revisions(path) if r.comments]
    assert revision.author == "user" and revision.reason == "rejected with 2 comments"
    assert revision.text == COMMENTED
    assert [c.text for c in revision.comments] == ["From argv or stdin?", "Test the empty name."]


def test_reject_without_include_comments_is_the_plain_rejection(service: PlanModeService) -> None:
    _, path, approval_id = pending(service)
    Buffers(service).type(path, COMMENTED)
    result = service.reject(approval_id, feedback="No.").result
    assert result.comments == () and result.feedback == "No."
    assert "comments" not in result.tool_result


def test_reject_with_only_comments_has_no_remark(service: PlanModeService) -> None:
    _, path, approval_id = pending(service)
    Buffers(service).type(path, COMMENTED)
    result = service.reject(approval_id, include_comments=True).result
    assert result.remark is None
    assert result.feedback is not None
    assert result.feedback.startswith("The user's comments on the plan")
    # No remark: no "The user's feedback:" heading with nothing under it.
    assert "The user's feedback:" not in result.tool_result
    assert result.tool_result.endswith(f"ready.\n\n{result.feedback}")


def test_approve_strips_comments_and_carries_them_as_notes(service: PlanModeService) -> None:
    _, path, approval_id = pending(service)
    Buffers(service).type(path, COMMENTED)
    plans.write_atomic(path, COMMENTED)  # and saved
    decision = service.approve(approval_id, include_comments=True)
    result = decision.result
    assert result.plan == PLAN and not result.plan_was_edited
    assert path.read_text() == PLAN and decision.written == PLAN
    assert [c.text for c in result.comments] == ["From argv or stdin?", "Test the empty name."]
    assert "## The user's notes with the approval:" in result.tool_result
    assert result.tool_result.index("## Approved Plan:") < result.tool_result.index("notes")
    reasons = [r.reason for r in service.history.revisions(path)]
    assert reasons == ["submitted for approval", "approved with 2 comments"]


def test_approve_without_notes_still_strips_the_comments(service: PlanModeService) -> None:
    _, path, approval_id = pending(service)
    Buffers(service).type(path, COMMENTED)
    result = service.approve(approval_id).result
    assert result.plan == PLAN and result.comments == ()
    assert "## The user's notes" not in result.tool_result


def test_revision_keeps_untouched_anchors_and_outdates_changed_ones(
    service: PlanModeService,
) -> None:
    session, path, approval_id = pending(service)
    editor = Buffers(service)
    editor.type(path, COMMENTED)
    plans.write_atomic(path, COMMENTED)  # saved
    service.reject(approval_id, include_comments=True)
    # The agent edits one line in place, and the editor reloads the file: the user's comments
    # are still theirs; the one over the changed line is outdated.
    kept = COMMENTED.replace("1. Read the name.", "1. Read the name from argv.")
    plans.write_atomic(path, kept)
    editor.reload(path)
    live, earlier = service.comment_view(path)
    assert [(c.text, c.outdated) for c in live] == [
        ("From argv or stdin?", True),
        ("Test the empty name.", False),
    ]
    assert earlier == []
    # The agent rewrites the plan without the comments and changes the verification step.
    revised = PLAN.replace("Run tests.", "Run pytest, with an empty name too.")
    service.agent_edited(path, revised, "Write")
    plans.write_atomic(path, revised)
    editor.reload(path)
    live, earlier = service.comment_view(path)
    assert live == []
    assert [(c.text, c.outdated, c.anchor.line) for c in earlier] == [
        ("From argv or stdin?", False, 3),
        ("Test the empty name.", True, 7),
    ]
    # Written back by the agent, they are the agent's now: shown as sent, never as the user's.
    plans.write_atomic(path, kept)
    editor.reload(path)
    live, earlier = service.comment_view(path)
    assert live == [] and len(earlier) == 2
    assert [c.text for c in service.others_comments(path, kept)] == [
        "From argv or stdin?",
        "Test the empty name.",
    ]
    # Approving ends the review: nothing earlier is shown any more.
    approval, _ = service.begin_exit(session)
    service.approve(approval.approval_id)
    assert service.comment_view(path) == ([], [])


def test_comments_sent_with_a_rejection_outlive_the_service(
    service: PlanModeService, make_service: ServiceFactory
) -> None:
    """Kept with the session that rejected the plan: a new server shows them while the agent
    revises, until the plan is approved."""
    session, path, approval_id = pending(service)
    Buffers(service).type(path, COMMENTED)
    service.reject(approval_id, include_comments=True)
    revised = PLAN.replace("Run tests.", "Run pytest, with an empty name too.")
    plans.write_atomic(path, revised)

    restarted = make_service()
    live, earlier = restarted.comment_view(path)
    assert live == []
    assert [(c.text, c.outdated, c.anchor.line) for c in earlier] == [
        ("From argv or stdin?", False, 3),
        ("Test the empty name.", True, 7),
    ]
    approval, _ = restarted.begin_exit(restarted.require_session(session.id))
    restarted.approve(approval.approval_id)
    assert make_service().comment_view(path) == ([], [])


def test_comments_the_agent_writes_are_not_the_users(service: PlanModeService) -> None:
    """In its submission, in the file on disk, or through its edit of the open buffer: a
    `[!review]` the agent writes is never counted, sent or delivered as the user's."""
    _session, path, approval_id = pending(service, COMMENTED)  # the agent's own plan
    assert service.comment_view(path) == ([], [])
    result = service.reject(approval_id, include_comments=True).result
    assert result.comments == () and result.feedback is None
    _, path, approval_id = pending(service, PLAN)
    editor = Buffers(service)
    editor.open(path)
    # The agent's edit arrives in the buffer (planMode/applyEdit), then the user types one.
    service.expect_agent_text(path, COMMENTED)
    editor.type(path, COMMENTED)
    mine = COMMENTED.replace("2. Print it.\n", "2. Print it.\n> [!review] Mine.\n")
    editor.type(path, mine)
    decision = service.approve(approval_id, include_comments=True)
    assert [c.text for c in decision.result.comments] == ["Mine."]
    assert decision.result.notes is not None and "From argv" not in decision.result.notes


def test_history_reads_back_revisions_with_comments(root: Path, service: PlanModeService) -> None:
    _, path, approval_id = pending(service)
    Buffers(service).type(path, COMMENTED)
    service.reject(approval_id, include_comments=True)
    again = PlanModeService(root)
    (revision,) = [r for r in again.history.revisions(path) if r.comments]
    assert revision.comments[0].quote == "1. Read the name."


def test_a_lead_rejects_a_teammates_plan_with_comments_and_approves_it_without(
    make_service: ServiceFactory,
) -> None:
    lead = make_service()
    mate = teammate_service(make_service)
    session, rid = submitted(mate, lead)
    path = mate.plan_path(session)
    # The lead's user comments in the lead's editor; the teammate's own comment is not theirs.
    theirs = "> [!review] Looks done to me.\n"
    plans.write_atomic(path, plans.read_plan(path) + theirs)
    Buffers(lead).type(path, plans.read_plan(path) + "> [!review] Name the files.\n")
    lead.answer_teammate(rid, False, "Not yet.", include_comments=True)
    _found, response = mate.next_turn(session)
    assert response is not None and not response.approved
    assert response.feedback is not None
    assert response.feedback.startswith("Not yet.\n\nThe user's comments on the plan")
    assert response.feedback.endswith("   Name the files.")
    assert "Looks done" not in response.feedback
    # Approving writes the plan without the comment.
    result = mate.exit_as_teammate(session)
    assert result is not None and result.request_id is not None
    hand = mate.own_request_key(session)
    assert hand is not None
    lead.receive_request_key(hand[0], hand[1], hand[2], "alpha", "builder")
    lead.answer_teammate(result.request_id, True)
    assert "[!review]" not in path.read_text()
