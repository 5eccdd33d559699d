"""The planning workflow the model is given: the attachment texts and the planning agents.

The texts of the ``plan_mode`` (full and sparse), ``plan_mode_reentry`` and ``plan_mode_exit``
attachments (docs/protocol.md §5.3): the five-phase workflow, its interview variant, the four
plan formats, and the Explore and Plan agents offered while planning
(``planMode/agentDefinitions``, docs/protocol.md §4). Written in our own words on the structure
of the plan mode the protocol follows; the opening hard constraint is kept word for word, as
the model knows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PlanFormat = Literal["trim", "cut", "cap"] | None

HARD_CONSTRAINT = (
    "Plan mode is active. The user indicated that they do not want you to execute yet -- you "
    "MUST NOT make any edits (with the exception of the plan file mentioned below), run any "
    "non-readonly tools (including changing configs or making commits), or otherwise make any "
    "changes to the system. This supercedes any other instructions you have received."
)
CAP_LINE_LIMIT = 40


@dataclass(frozen=True)
class WorkflowOptions:
    explore_agents: int = 3
    plan_agents: int = 1
    interview: bool = False
    plan_format: PlanFormat = None


def plan_file_line(path: str, exists: bool) -> str:
    if exists:
        return (
            f"A plan file already exists at {path}. You can read it and make incremental edits "
            "using the Edit tool."
        )
    return f"No plan file exists yet. You should create your plan at {path} using the Write tool."


def _final_plan_section(plan_format: PlanFormat) -> str:
    """Phase 4: what the plan file should hold, per plan format (control, trim, cut, cap)."""
    if plan_format == "trim":
        return (
            "### Phase 4: Final Plan\n"
            "Write the final plan to the plan file. Keep it lean:\n"
            "- One line of context: what changes and why.\n"
            "- The recommended approach only, as numbered steps naming the files to change.\n"
            "- Existing functions and utilities to reuse, with their paths.\n"
            "- One verification command that proves the change works end to end."
        )
    if plan_format == "cut":
        return (
            "### Phase 4: Final Plan\n"
            "Write the final plan to the plan file, short:\n"
            "- Do NOT write a Context or Background section; the user knows why.\n"
            "- One line per file to change: the path and what changes in it.\n"
            "- One verification command."
        )
    if plan_format == "cap":
        return (
            "### Phase 4: Final Plan\n"
            "Write the final plan to the plan file as bullets only:\n"
            "- No prose paragraphs, no Context section, no alternatives.\n"
            "- One bullet per file to change: the path and the change.\n"
            "- One bullet with the verification command.\n"
            f"- Hard limit: the whole plan file must stay within {CAP_LINE_LIMIT} lines."
        )
    return (
        "### Phase 4: Final Plan\n"
        "Write your final plan to the plan file (the only file you may edit). It should hold:\n"
        "- Context: why this change is being made — the problem or need it addresses.\n"
        "- The recommended approach only (not every alternative you considered), as concrete "
        "steps.\n"
        "- The paths of the critical files to be modified.\n"
        "- Existing functions, utilities and patterns to reuse, with their file paths.\n"
        "- Verification: how to test the change end to end (commands to run, what to see)."
    )


_EXIT_RULES = (
    "### Phase 5: Call ExitPlanMode\n"
    "When the plan file is final, call ExitPlanMode to ask the user to approve it. Your turn "
    "must end with either AskUserQuestion (to clarify requirements or choose between "
    "approaches) or ExitPlanMode (to request approval) — never with plain text.\n"
    'Do NOT ask about plan approval in text or with AskUserQuestion (no "Is this plan '
    'okay?", "Should I proceed?"): ExitPlanMode is the only way to ask for approval, and the '
    "user reviews the plan there."
)


def full_instructions(path: str, exists: bool, options: WorkflowOptions) -> str:
    """The complete ``plan_mode`` text (reminderType ``full``)."""
    if options.interview:
        return interview_instructions(path, exists, options)
    explore = options.explore_agents
    plan = options.plan_agents
    return "\n\n".join(
        [
            HARD_CONSTRAINT,
            "## Plan File Info:\n"
            + plan_file_line(path, exists)
            + "\nBuild your plan incrementally by writing to or editing this file. It is the "
            "only file you are allowed to edit; every other action must be read-only.",
            "## Plan Workflow",
            "### Phase 1: Initial Understanding\n"
            "Goal: understand the user's request and the code it touches. Look for existing "
            "functions, utilities and patterns that can be reused instead of written anew.\n"
            f"- Use only the Explore subagent type in this phase; launch up to {explore} "
            "Explore agents IN PARALLEL (in one message).\n"
            "- One agent is enough when the task is confined to known files or a small change; "
            "use several when the scope is uncertain or spans several areas, giving each a "
            "distinct focus.",
            "### Phase 2: Design\n"
            "Goal: design the implementation.\n"
            + (
                "- Launch a Plan agent to design it; skip this only for a truly trivial task.\n"
                if plan == 1
                else f"- Launch Plan agents to design it: at least 1, up to {plan} IN PARALLEL "
                "with different perspectives; skip this only for a truly trivial task.\n"
            )
            + "- Give each Plan agent everything Phase 1 found: file names, code paths, "
            "constraints and the user's requirements, so it does not start from scratch.",
            "### Phase 3: Review\n"
            "Goal: check the design against what the user asked for.\n"
            "- Read the critical files the agents identified to deepen your understanding.\n"
            "- Make sure the plan matches the user's original intent.\n"
            "- Use AskUserQuestion for any remaining question about requirements.",
            _final_plan_section(options.plan_format),
            _EXIT_RULES,
        ]
    )


def interview_instructions(path: str, exists: bool, options: WorkflowOptions) -> str:
    """The interview variant (setting ``interviewPhase``): explore, write, ask — in a loop."""
    return "\n\n".join(
        [
            HARD_CONSTRAINT,
            "## Plan File Info:\n" + plan_file_line(path, exists),
            "## Iterative Planning Workflow\n"
            "Plan together with the user, in a loop, until every ambiguity is resolved:\n"
            "1. Explore — read code directly with read-only tools.\n"
            "2. Update the plan file — write down each finding as soon as you have it.\n"
            "3. Ask the user — whenever you reach a decision that is theirs, use "
            "AskUserQuestion.\n"
            "Then go back to 1 until the plan is complete.",
            "### First turn\n"
            "Start by quickly scanning a few key files to form an initial understanding. Then "
            "write a skeleton plan and ask the user your first round of questions. Don't "
            "explore exhaustively before engaging the user.",
            _final_plan_section(options.plan_format),
            _EXIT_RULES,
        ]
    )


def sparse_instructions(path: str, exists: bool) -> str:
    """The short reminder between full ones (about 300 characters)."""
    state = "edit" if exists else "create"
    return (
        f"Plan mode is still active: make no changes except to the plan file ({state} it at "
        f"{path}). Keep to the workflow given earlier, and end your turn with AskUserQuestion "
        "or ExitPlanMode — never ask for plan approval in text."
    )


def subagent_instructions(path: str, exists: bool) -> str:
    """``plan_mode`` for a subagent: same constraint, no phases, no approval of its own."""
    return "\n\n".join(
        [
            HARD_CONSTRAINT,
            "## Plan File Info:\n"
            + plan_file_line(path, exists)
            + "\nBuild your plan incrementally in this file; it is the only file you may edit.",
            "Answer the request comprehensively with read-only tools. Use AskUserQuestion if "
            "you need to ask the user a clarifying question.",
        ]
    )


def reentry_text(path: str) -> str:
    return (
        "## Re-entering Plan Mode\n\n"
        "You are returning to plan mode after having previously exited it. A plan file exists "
        f"at {path} from your previous planning session.\n\n"
        "Before proceeding:\n"
        "1. Read the existing plan file to see what was planned before.\n"
        "2. Compare it with the user's current request.\n"
        "3. If this is a different task, overwrite the plan with a fresh one.\n"
        "4. If it is the same task, revise the plan and remove what is stale or already done.\n"
        "5. Always edit the plan file before calling ExitPlanMode."
    )


def exit_text(path: str, exists: bool) -> str:
    text = (
        "## Exited Plan Mode\n\n"
        "You have exited plan mode. You can now make edits, run tools, and take actions."
    )
    if exists:
        text += f"\nThe plan file is located at {path} if you need to reference it."
    return text


# -- the planning agents ----------------------------------------------------------------------
READ_ONLY_AGENT_TOOLS = ("Read", "Glob", "Grep", "LS", "Bash", "WebFetch", "WebSearch")
PLANNING_AGENT_DISALLOWED = ("Agent", "ExitPlanMode", "Edit", "Write", "MultiEdit", "NotebookEdit")

EXPLORE_PROMPT = (
    "You are a file search specialist. Explore the codebase quickly and thoroughly to answer "
    "the question you were given: find files with glob patterns, search contents with grep, "
    "and read what matters. You are READ-ONLY: do not create, modify or delete files, and run "
    "only read-only shell commands (ls, git status, git log, git diff, find, cat, head, tail). "
    "Report the relevant file paths and what you found, concisely."
)
PLAN_PROMPT = (
    "You are a software architect. From the exploration results and requirements you are "
    "given, design an implementation: explore further where needed, follow the codebase's "
    "existing patterns, weigh the trade-offs and settle on one approach. Output a step-by-step "
    "implementation strategy with its dependencies and risks, and end with a section "
    "'Critical Files for Implementation' listing the 3-5 files most important to the change. "
    "You are READ-ONLY: you cannot edit or create files."
)


@dataclass(frozen=True)
class AgentDefinition:
    """A planning agent: read-only, with the tools it is offered and those it is refused."""

    agent_type: str
    model: str
    when_to_use: str
    prompt: str
    tools: tuple[str, ...] = READ_ONLY_AGENT_TOOLS
    disallowed_tools: tuple[str, ...] = PLANNING_AGENT_DISALLOWED
    omit_claude_md: bool = True
    read_only: bool = True


def agent_definitions() -> list[AgentDefinition]:
    """The Explore and Plan agents an agent harness should offer while planning."""
    return [
        AgentDefinition(
            agent_type="Explore",
            model="haiku",
            when_to_use="Fast read-only search of the codebase: files, symbols, patterns.",
            prompt=EXPLORE_PROMPT,
        ),
        AgentDefinition(
            agent_type="Plan",
            model="inherit",
            when_to_use="Read-only design of an implementation from exploration results.",
            prompt=PLAN_PROMPT,
        ),
    ]
