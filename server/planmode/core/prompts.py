"""The texts the model and the user receive: tool results and ``/plan`` messages.

docs/protocol.md §4 (EnterPlanMode's tool result and the ``/plan`` command's messages) and
§5.2 (the four ExitPlanMode tool results). The wording is the protocol's, kept exactly: the
model was trained on these texts.
"""

from __future__ import annotations

from pathlib import Path

# The tool that leaves plan mode, as the texts name it for an agent whose tools are plan
# mode's own (another agent's adapter names its own: core/agents.py, AgentTools).
EXIT_TOOL = "ExitPlanMode"

ENTERED_PLAN_MODE = (
    "Entered plan mode. You should now focus on exploring the codebase and designing an "
    "implementation approach."
)

_ENTER_STANDARD = """

In plan mode, you should:
1. Thoroughly explore the codebase to understand existing patterns
2. Identify similar features and architectural approaches
3. Consider multiple approaches and their trade-offs
4. Use AskUserQuestion if you need to clarify the approach
5. Design a concrete implementation strategy
6. When ready, use ExitPlanMode to present your plan for approval

Remember: DO NOT write or edit any files yet. This is a read-only exploration and planning \
phase."""

_ENTER_INTERVIEW = """

DO NOT write or edit any files except the plan file. Detailed workflow instructions will \
follow."""


def enter_tool_result(interview_phase: bool) -> str:
    """EnterPlanMode's tool_result; the full workflow comes as an attachment."""
    return ENTERED_PLAN_MODE + (_ENTER_INTERVIEW if interview_phase else _ENTER_STANDARD)


NOT_IN_PLAN_MODE = (
    "You are not in plan mode. This tool is only for exiting plan mode after writing a plan. "
    "If your plan was already approved, continue with implementation."
)
EXIT_PERMISSION_PROMPT = "Exit plan mode?"

# /plan (docs/protocol.md §4, "/plan")
ENABLED_PLAN_MODE = "Enabled plan mode"
ALREADY_IN_PLAN_MODE_NO_PLAN = "Already in plan mode. No plan written yet."


def opened_plan(path: str) -> str:
    return f"Opened plan in editor: {path}"


def failed_to_open_plan(error: str) -> str:
    return f"Failed to open plan in editor: {error}"


def plan_display(plan: str, path: str, editor_name: str | None) -> str:
    """The text form of ``<PlanDisplay>``: title, path, the plan, and how to open it."""
    parts = ["Current Plan", path, "", plan]
    if editor_name:
        parts += ["", f'"/plan open" to edit this plan in {editor_name}']
    return "\n".join(parts)


# ExitPlanMode tool results (docs/protocol.md §5.2, "toolResult")
def teammate_waiting_result(file_path: str, request_id: str) -> str:
    return (
        "Your plan has been submitted to the team lead for approval.\n"
        "\n"
        f"Plan file: {file_path}\n"
        "\n"
        "What happens next:\n"
        "1. Wait for the team lead to review your plan\n"
        "2. You will receive a message in your inbox with approval/rejection\n"
        "3. If approved, you can proceed with implementation\n"
        "4. If rejected, refine your plan based on the feedback\n"
        "\n"
        "Important: Do NOT proceed until you receive approval.\n"
        "\n"
        f"Request ID: {request_id}"
    )


AGENT_APPROVED_RESULT = (
    "User has approved the plan. There is nothing else needed from you now. "
    'Please respond with "ok"'
)
EMPTY_PLAN_APPROVED_RESULT = "User has approved exiting plan mode. You can now proceed."


def approved_result(plan: str, file_path: str, edited: bool) -> str:
    heading = "## Approved Plan (edited by user):" if edited else "## Approved Plan:"
    return (
        "User has approved your plan. You can now start coding. Start with updating your todo "
        "list if applicable\n"
        "\n"
        f"Your plan has been saved to: {file_path}\n"
        "You can refer back to it if needed during implementation.\n"
        "\n"
        f"{heading}\n"
        f"{plan}"
    )


def exit_tool_result(plan: str | None, file_path: str, is_agent: bool, edited: bool) -> str:
    """The approved-exit tool_result, choosing among the agent, empty and normal texts."""
    if is_agent:
        return AGENT_APPROVED_RESULT
    if plan is None or not plan.strip():
        return EMPTY_PLAN_APPROVED_RESULT
    return approved_result(plan, file_path, edited)


# Review comments (docs: README "Reviewing with comments").
COMMENTS_INTRO = "The user's comments on the plan, each on the text it quotes:"
NOTES_HEADING = "## The user's notes with the approval:"

REJECTED_PREFIX = "User rejected the plan. Keep planning"
SAVED_PREFIX = "The user saved the plan for later"


def taken_up_text(plan_file: str, taken_from: str, exit_tool: str = EXIT_TOOL) -> str:
    """The next turn's attachment after the user took up a saved plan (docs/protocol.md
    §12.3)."""
    where = "" if plan_file == taken_from else f" (saved at {taken_from})"
    return (
        f"The user took up a saved plan{where}: it is your plan again, at {plan_file}. You are "
        "in plan mode. Read it, continue planning from it with the user, and call "
        f"{exit_tool} when it is ready for their review."
    )


def saved_result(file_path: str, exit_tool: str = EXIT_TOOL, submit_plan: str | None = None) -> str:
    """A plan saved for later (docs/protocol.md §12.3): the agent must not implement it now,
    nor submit it again (``exit_tool``, or how an agent whose exit brings its plan submits
    one: ``submit_plan``); the session stays in plan mode."""
    again = submit_plan if submit_plan is not None else f"call {exit_tool} again"
    return (
        f"{SAVED_PREFIX}. Do not implement it now: the plan is kept at {file_path} with its "
        "history, and the user can take it up again later, in this session or another. You "
        f"are still in plan mode. Do not {again} for this plan, and do not start on its "
        "steps: stop here and wait for the user's next instruction."
    )


def rejected_result(
    file_path: str,
    feedback: str | None,
    comments: str | None = None,
    exit_tool: str = EXIT_TOOL,
    submit_plan: str | None = None,
) -> str:
    """A rejection's tool result: ``feedback`` (the user's remark) under its heading, then
    ``comments`` (the rendered review comments, which carry their own). A heading with nothing
    under it is left out. ``exit_tool``: what the agent calls ExitPlanMode; ``submit_plan``:
    how an agent whose exit brings its plan submits it (core/agents.py, PlanInExit) — it has
    no plan file to revise."""
    text = (
        f"{REJECTED_PREFIX}: you are still in plan mode. Revise the plan at {file_path} and "
        f"call {exit_tool} again when it is ready."
    )
    if submit_plan is not None:
        text = (
            f"{REJECTED_PREFIX}: you are still in plan mode. Revise it and {submit_plan} again "
            "when it is ready."
        )
    if feedback and feedback.strip():
        text += f"\n\nThe user's feedback:\n{feedback.strip()}"
    if comments:
        text += f"\n\n{comments}"
    return text


def left_plan_mode_result(mode: str) -> str:
    """The answer to an exit still waiting when the user switched out of plan mode by hand."""
    return (
        f"The user left plan mode (now {mode}) without approving this plan. You are no longer "
        "in plan mode; wait for the user's next instruction before acting on the plan."
    )


def superseded_feedback(exit_tool: str = EXIT_TOOL) -> str:
    return f"A newer {exit_tool} call replaced this one before it was decided."


SUPERSEDED_FEEDBACK = superseded_feedback()

# A teammate's server restarted while its plan waited for the lead: the request's key (memory
# only) is gone, so the lead's answer could not be trusted.
TEAMMATE_KEY_LOST_FEEDBACK = (
    "Your plan approval request could not be kept across a restart of the plan-mode server, "
    "so the team lead's answer to it cannot be verified. You are still in plan mode: call "
    "ExitPlanMode again to submit your plan to the team lead."
)


def refused_exit_text(
    reason: str, plan: Path, exit_tool: str = EXIT_TOOL, submit_plan: str | None = None
) -> str:
    """What the agent reads when its ExitPlanMode (``exit_tool``, as it calls it) is refused
    before any approval (docs/protocol.md §3). An agent whose exit brings its plan
    (``submit_plan``) has no file to write it to: the user must fix what stops the review."""
    if submit_plan is not None:
        return (
            f"Plan mode could not take your plan for review: {reason}. Nothing was submitted "
            "and you are still in plan mode: tell the user why."
        )
    return (
        f"Plan mode refused {exit_tool}: {reason}. Nothing was submitted or written and you "
        f"are still in plan mode. The plan is reviewed in {plan}: write it there and call "
        f"{exit_tool} again."
    )
