"""Approval helpers: the digest, edit counts and diff, lens titles and the agent's results."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planmode.core import prompts
from planmode.core.approval import (
    AllowedPrompt,
    Approval,
    approve_lens_title,
    approved_exit,
    edit_counts,
    edits_diff,
    plan_digest,
    rejected_exit,
)
from planmode.core.teams import PendingRequest
from planmode.lsp import results

PATH = Path("/ws/.claude/plans/bold-eagle.md")
PLAN = "# Plan\n\n1. Add the parser\n2. Test it\n"
lines_text = st.lists(st.text(alphabet="abc \t", max_size=6), max_size=8).map("\n".join)


def approval(submitted: str = PLAN, **kwargs: object) -> Approval:
    return Approval(session_id="s", plan_file_path=PATH, submitted_plan=submitted, **kwargs)


# -- digest and counts ------------------------------------------------------------------------
def test_plan_digest_is_the_sha256_hex_of_the_utf8_text() -> None:
    text = "plan ✓ 😀\n"
    assert plan_digest(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert plan_digest(text) != plan_digest(text + " ")


def test_edit_counts_of_a_small_edit() -> None:
    after = "# Plan\n\n1. Add the parser\n2. Test it well\n3. Document it\n4. Ship\n"
    assert edit_counts(PLAN, after) == (3, 1)
    assert edit_counts(after, PLAN) == (1, 3)


@given(lines_text)
def test_edit_counts_of_identical_texts_is_zero(text: str) -> None:
    assert edit_counts(text, text) == (0, 0)


@given(lines_text, lines_text)
def test_edit_counts_balance_the_line_counts(before: str, after: str) -> None:
    added, removed = edit_counts(before, after)
    assert added - removed == len(after.splitlines()) - len(before.splitlines())
    assert 0 <= removed <= len(before.splitlines())
    assert 0 <= added <= len(after.splitlines())


@given(lines_text, lines_text)
def test_edits_diff_is_none_exactly_when_the_texts_are_equal(before: str, after: str) -> None:
    assert (edits_diff(before, after, PATH) is None) == (before == after)


def test_edits_diff_is_a_unified_diff_naming_both_sides() -> None:
    diff = edits_diff(PLAN, PLAN.replace("Test it", "Test it well"), PATH)
    assert diff is not None
    assert f"--- {PATH} (submitted)" in diff
    assert f"+++ {PATH} (approved)" in diff
    assert "-2. Test it\n" in diff
    assert "+2. Test it well\n" in diff


def test_edits_diff_marks_a_missing_final_newline() -> None:
    diff = edits_diff("a\n", "a\nb", PATH)
    assert diff is not None
    assert diff.endswith("+b\n\\ No newline at end of file\n")


def test_approve_lens_title() -> None:
    assert approve_lens_title(PLAN, PLAN) == "Approve plan"
    edited = PLAN + "3. Ship\n4. Celebrate\n"
    assert approve_lens_title(PLAN, edited) == "Approve plan (edited: +2 −0)"
    assert approve_lens_title(PLAN, "# Plan\n") == "Approve plan (edited: +0 −3)"


# -- the agent's results ----------------------------------------------------------------------
def test_approved_exit_of_an_unchanged_plan() -> None:
    result = approved_exit(approval(), PLAN, "default")
    assert result.outcome == "approved"
    assert result.plan == PLAN
    assert result.plan_was_edited is False
    assert result.user_edits_diff is None
    assert result.restored_mode == "default"
    assert result.file_path == str(PATH)
    assert result.tool_result == (
        "User has approved your plan. You can now start coding. Start with updating your todo "
        "list if applicable\n\n"
        f"Your plan has been saved to: {PATH}\n"
        "You can refer back to it if needed during implementation.\n\n"
        f"## Approved Plan:\n{PLAN}"
    )


def test_approved_exit_of_a_plan_the_user_edited() -> None:
    edited = PLAN + "3. Ship\n"
    result = approved_exit(approval(), edited, "acceptEdits")
    assert result.plan == edited
    assert result.plan_was_edited is True
    assert result.user_edits_diff is not None and "+3. Ship" in result.user_edits_diff
    assert "## Approved Plan (edited by user):\n" + edited in result.tool_result
    assert "## Approved Plan:" not in result.tool_result


def test_approved_exit_of_a_plan_given_with_the_call_counts_as_edited() -> None:
    result = approved_exit(approval(plan_given=True), PLAN, "default")
    assert result.plan_was_edited is True
    assert result.user_edits_diff is None
    assert "## Approved Plan (edited by user):" in result.tool_result


@pytest.mark.parametrize("empty", [None, "", "  \n\t\n"])
def test_approved_exit_of_an_empty_plan(empty: str | None) -> None:
    result = approved_exit(approval(submitted=""), empty, "default")
    assert result.plan is None
    assert result.tool_result == "User has approved exiting plan mode. You can now proceed."


def test_approved_exit_of_a_subagent() -> None:
    result = approved_exit(approval(agent_id="a1"), PLAN, None)
    assert result.is_agent is True
    assert result.restored_mode is None
    assert result.tool_result == (
        "User has approved the plan. There is nothing else needed from you now. "
        'Please respond with "ok"'
    )


def test_approved_exit_carries_the_granted_prompts() -> None:
    asked = (AllowedPrompt("Bash", "run tests"), AllowedPrompt("Bash", "npm run dev"))
    asking = approval(allowed_prompts=asked)
    result = approved_exit(asking, PLAN, "default", granted=asking.granted(asked[1:]))
    assert result.granted_prompts == asked[1:]
    wire = results.ExitResult.model_validate(result).wire()
    assert wire["grantedPrompts"] == [{"tool": "Bash", "prompt": "npm run dev"}]
    # Asked for, not shown to the approver: not granted.
    assert approved_exit(asking, PLAN, "default").granted_prompts == ()
    assert asking.granted((AllowedPrompt("Bash", "python3 *"),)) == ()


def test_the_grants_notice_states_each_rule() -> None:
    asked = (AllowedPrompt("Bash", "python3 *"),)
    assert approval(allowed_prompts=asked).grants_notice() == (
        "Approving also allows these commands without asking: "
        "Bash “python3 *”: `python3` followed by any plain words."
    )
    assert approval().grants_notice() == ""


def test_rejected_exit_with_feedback() -> None:
    result = rejected_exit(approval(), "  Use the existing parser.  ")
    assert result.outcome == "rejected"
    assert result.feedback == "  Use the existing parser.  "
    assert result.tool_result.startswith("User rejected the plan. Keep planning")
    assert str(PATH) in result.tool_result
    assert result.tool_result.endswith("\n\nThe user's feedback:\nUse the existing parser.")


@pytest.mark.parametrize("feedback", [None, "", "   "])
def test_rejected_exit_without_feedback(feedback: str | None) -> None:
    result = rejected_exit(approval(), feedback)
    assert result.tool_result.startswith(prompts.REJECTED_PREFIX)
    assert "feedback" not in result.tool_result


def test_exit_result_wire_shape() -> None:
    wire = results.ExitResult.model_validate(approved_exit(approval(), PLAN, "default")).wire()
    assert set(wire) == {
        "outcome",
        "plan",
        "filePath",
        "isAgent",
        "planWasEdited",
        "userEditsDiff",
        "restoredMode",
        "grantedPrompts",
        "feedback",
        "requestId",
        "remark",
        "comments",
        "notes",
        "toolResult",
        "chosenMode",
    }


def test_approval_wire_shape() -> None:
    asking = approval(agent_id="a1", allowed_prompts=(AllowedPrompt("Bash", "lint"),))
    wire = results.Approval.model_validate(asking).wire()
    assert wire["planFilePath"] == str(PATH)
    assert wire["sessionId"] == asking.session_id
    assert wire["agentId"] == "a1"
    assert wire["submittedPlan"] == PLAN
    assert wire["allowedPrompts"] == [{"tool": "Bash", "prompt": "lint"}]
    assert wire["grants"] == [{"tool": "Bash", "prompt": "lint", "rule": asking.grants[0].rule}]
    assert wire["requestedAt"].endswith("Z")
    assert len(wire["approvalId"]) == 32
    assert "teamName" not in wire
    assert results.Approval.model_validate(approval()).wire()["grants"] == []


def test_a_teammate_s_request_is_an_approval_without_a_session_or_grants() -> None:
    request = PendingRequest("alpha", "builder", "rid-1", PATH, PLAN, "2025-01-01T00:00:00Z")
    assert results.Approval.model_validate(request).wire() == {
        "approvalId": "rid-1",
        "sessionId": None,
        "agentId": "builder",
        "teamName": "alpha",
        "planFilePath": str(PATH),
        "submittedPlan": PLAN,
        "allowedPrompts": [],
        "requestedAt": "2025-01-01T00:00:00Z",
    }
