"""The texts the model and user receive, where Claude Code fixes their wording
(docs/protocol.md §4, §5.2)."""

from __future__ import annotations

from planmode.core import prompts

ENTERED = (
    "Entered plan mode. You should now focus on exploring the codebase and designing an "
    "implementation approach."
)


def test_enter_tool_result_standard() -> None:
    text = prompts.enter_tool_result(interview_phase=False)
    assert text.startswith(ENTERED + "\n\nIn plan mode, you should:\n1. Thoroughly explore")
    assert "6. When ready, use ExitPlanMode to present your plan for approval" in text
    assert text.endswith(
        "Remember: DO NOT write or edit any files yet. This is a read-only exploration and "
        "planning phase."
    )


def test_enter_tool_result_interview_phase_defers_the_workflow() -> None:
    text = prompts.enter_tool_result(interview_phase=True)
    assert text == (
        ENTERED + "\n\nDO NOT write or edit any files except the plan file. Detailed workflow "
        "instructions will follow."
    )
    assert "In plan mode, you should" not in text


def test_not_in_plan_mode_message_is_exact() -> None:
    assert prompts.NOT_IN_PLAN_MODE == (
        "You are not in plan mode. This tool is only for exiting plan mode after writing a plan. "
        "If your plan was already approved, continue with implementation."
    )


def test_plan_display_with_and_without_an_editor() -> None:
    shown = prompts.plan_display("1. do it", "/ws/p.md", None)
    assert shown == "Current Plan\n/ws/p.md\n\n1. do it"
    with_editor = prompts.plan_display("1. do it", "/ws/p.md", "VS Code")
    assert with_editor == shown + '\n\n"/plan open" to edit this plan in VS Code'


def test_open_plan_messages() -> None:
    assert prompts.opened_plan("/ws/p.md") == "Opened plan in editor: /ws/p.md"
    assert prompts.failed_to_open_plan("no editor") == "Failed to open plan in editor: no editor"


def test_teammate_waiting_result() -> None:
    text = prompts.teammate_waiting_result("/ws/p.md", "plan_approval-1")
    assert text.startswith("Your plan has been submitted to the team lead for approval.\n")
    assert "\nPlan file: /ws/p.md\n" in text
    assert "Important: Do NOT proceed until you receive approval." in text
    assert text.endswith("Request ID: plan_approval-1")


def test_exit_tool_result_choice() -> None:
    assert prompts.exit_tool_result("x", "/p", True, False) == prompts.AGENT_APPROVED_RESULT
    assert prompts.exit_tool_result(None, "/p", False, False) == (
        prompts.EMPTY_PLAN_APPROVED_RESULT
    )
    assert prompts.exit_tool_result(" \n", "/p", False, True) == (
        prompts.EMPTY_PLAN_APPROVED_RESULT
    )
    assert prompts.exit_tool_result("x", "/p", False, False).endswith("## Approved Plan:\nx")
    assert prompts.exit_tool_result("x", "/p", False, True).endswith(
        "## Approved Plan (edited by user):\nx"
    )
