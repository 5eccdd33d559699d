"""The plan-mode texts and the planning agents (docs/protocol.md §5.3)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planmode.core import workflow
from planmode.core.settings import load_settings
from planmode.core.workflow import WorkflowOptions

PATH = "/home/alice/projects/shop-backend/.claude/plans/gentle-otter-of-wisdom.md"
CONSTRAINT_START = (
    "Plan mode is active. The user indicated that they do not want you to execute yet -- you "
    "MUST NOT make any edits (with the exception of the plan file mentioned below)"
)


def full(exists: bool = False, **options: object) -> str:
    return workflow.full_instructions(PATH, exists, WorkflowOptions(**options))  # type: ignore[arg-type]


def section(text: str, heading: str) -> str:
    """The text of one ``### heading`` section up to the next heading."""
    start = text.index(heading)
    rest = text[start + len(heading) :]
    following = re.search(r"\n#{2,3} ", rest)
    return rest[: following.start()] if following else rest


# -- the full 5-phase text ----------------------------------------------------------------------
def test_full_text_starts_with_the_hard_constraint() -> None:
    text = full()
    assert text.startswith(CONSTRAINT_START)
    assert "This supercedes any other instructions you have received." in text
    assert "run any non-readonly tools" in text


@pytest.mark.parametrize("exists", [False, True])
def test_full_text_names_the_plan_file_and_whether_it_exists(exists: bool) -> None:
    text = full(exists)
    assert PATH in text
    if exists:
        assert f"A plan file already exists at {PATH}." in text
        assert "Edit tool" in text
        assert "No plan file exists yet" not in text
    else:
        assert f"No plan file exists yet. You should create your plan at {PATH}" in text
        assert "Write tool" in text
        assert "already exists" not in text


def test_full_text_has_the_five_phases_in_order() -> None:
    text = full()
    headings = [
        "### Phase 1: Initial Understanding",
        "### Phase 2: Design",
        "### Phase 3: Review",
        "### Phase 4: Final Plan",
        "### Phase 5: Call ExitPlanMode",
    ]
    positions = [text.index(h) for h in headings]
    assert positions == sorted(positions)


def test_phase_1_explore_agents() -> None:
    phase = section(full(), "### Phase 1")
    assert "Explore" in phase
    assert "only the Explore subagent type" in phase
    assert "up to 3 Explore agents IN PARALLEL" in phase
    assert "reuse" in phase or "reused" in phase
    for count in (1, 7, 10):
        assert f"up to {count} Explore agents" in section(full(explore_agents=count), "### Phase 1")


def test_phase_2_plan_agents() -> None:
    default = section(full(), "### Phase 2")
    assert "Plan agent" in default
    assert "Phase 1" in default  # the agents get Phase 1's findings
    assert "trivial" in default
    three = section(full(plan_agents=3), "### Phase 2")
    assert "up to 3 IN PARALLEL" in three
    assert "at least 1" in three


def test_phase_3_review() -> None:
    phase = section(full(), "### Phase 3")
    assert "Read the critical files" in phase
    assert "original intent" in phase
    assert "AskUserQuestion" in phase


def test_phase_4_write_the_plan_file_control() -> None:
    phase = section(full(), "### Phase 4")
    assert "plan file" in phase
    for part in ("Context", "recommended approach", "critical files", "reuse", "Verification"):
        assert part in phase


def test_phase_5_exit_plan_mode_and_the_turn_ending_rule() -> None:
    phase = section(full(), "### Phase 5")
    assert "call ExitPlanMode" in phase
    assert "must end with either AskUserQuestion" in phase
    assert "or ExitPlanMode" in phase
    assert "never with plain text" in phase
    # Never ask for approval in text (nor with AskUserQuestion).
    assert "Do NOT ask about plan approval in text or with AskUserQuestion" in phase
    assert "ExitPlanMode is the only way to ask for approval" in phase


# -- plan formats -------------------------------------------------------------------------------
def test_the_four_plan_formats_differ_in_phase_4_only() -> None:
    texts = {fmt: full(plan_format=fmt) for fmt in (None, "trim", "cut", "cap")}
    phases = {fmt: section(t, "### Phase 4") for fmt, t in texts.items()}
    assert len(set(phases.values())) == 4
    for text in texts.values():
        assert text.startswith(CONSTRAINT_START)
        assert "### Phase 1" in text
        assert "### Phase 5" in text
        before = text.split("### Phase 4")[0]
        assert before == texts[None].split("### Phase 4")[0]


def test_control_is_the_longest_and_cap_has_the_40_line_limit() -> None:
    phases = {
        fmt: section(full(plan_format=fmt), "### Phase 4") for fmt in (None, "trim", "cut", "cap")
    }
    assert all(len(phases[None]) > len(phases[f]) for f in ("trim", "cut", "cap"))
    assert "40 lines" in phases["cap"]
    assert workflow.CAP_LINE_LIMIT == 40
    for fmt in (None, "trim", "cut"):
        assert "40 lines" not in phases[fmt]
    assert "Context" not in phases["cut"].replace("Do NOT write a Context", "")
    assert "verification" in phases["trim"].lower()


# -- interview variant --------------------------------------------------------------------------
def test_interview_variant() -> None:
    text = full(interview=True)
    assert text.startswith(CONSTRAINT_START)
    assert PATH in text
    assert "### Phase 1" not in text  # no mandatory Explore/Plan agents
    assert "Iterative Planning Workflow" in text
    assert "AskUserQuestion" in text
    first = section(text, "### First turn")
    assert "Start by quickly scanning a few key files to form an initial understanding." in first
    assert "write a skeleton plan and ask the user your first round of questions" in first
    assert "Don't explore exhaustively before engaging the user." in first
    assert "ExitPlanMode" in text
    assert "Do NOT ask about plan approval in text" in text


def test_interview_variant_keeps_the_plan_format() -> None:
    assert "40 lines" in full(interview=True, plan_format="cap")
    assert "40 lines" not in full(interview=True)


# -- sparse, subagent, reentry, exit ------------------------------------------------------------
@pytest.mark.parametrize("exists", [False, True])
def test_sparse_reminder_is_short_and_still_binding(exists: bool) -> None:
    text = workflow.sparse_instructions(PATH, exists)
    assert len(text) < 400
    assert len(text) < len(full(exists)) / 5
    assert text.startswith("Plan mode is still active")
    assert PATH in text
    assert ("edit it" if exists else "create it") in text
    assert "AskUserQuestion" in text
    assert "ExitPlanMode" in text
    assert "never ask for plan approval in text" in text


def test_subagent_text() -> None:
    text = workflow.subagent_instructions(PATH, False)
    assert text.startswith(CONSTRAINT_START)
    assert PATH in text
    assert "Phase" not in text


def test_reentry_text() -> None:
    text = workflow.reentry_text(PATH)
    assert text.startswith("## Re-entering Plan Mode")
    assert "returning to plan mode after having previously exited it" in text
    assert f"A plan file exists at {PATH}" in text
    for step in ("1. Read the existing plan", "2. Compare", "3. If this is a different task"):
        assert step in text
    assert "overwrite" in text
    assert "5. Always edit the plan file before calling ExitPlanMode" in text


def test_exit_text() -> None:
    with_plan = workflow.exit_text(PATH, True)
    assert with_plan == (
        "## Exited Plan Mode\n\n"
        "You have exited plan mode. You can now make edits, run tools, and take actions.\n"
        f"The plan file is located at {PATH} if you need to reference it."
    )
    assert PATH not in workflow.exit_text(PATH, False)


# -- settings and env that shape the text -------------------------------------------------------
def options_from(root: Path, init: dict | None = None, env: dict | None = None) -> WorkflowOptions:
    settings, _warnings = load_settings(root, init, None, env or {}, home=root / "nohome")
    return WorkflowOptions(
        explore_agents=settings.exploreAgentCount,
        plan_agents=settings.planAgentCount,
        interview=settings.interviewPhase,
        plan_format=settings.planFormat,
    )


def test_agent_counts_from_settings_and_env(root: Path) -> None:
    assert options_from(root) == WorkflowOptions(3, 1, False, None)
    from_settings = options_from(root, {"exploreAgentCount": 5, "planAgentCount": 2})
    assert (from_settings.explore_agents, from_settings.plan_agents) == (5, 2)
    env = {
        "CLAUDE_CODE_PLAN_V2_EXPLORE_AGENT_COUNT": "7",
        "CLAUDE_CODE_PLAN_V2_AGENT_COUNT": "4",
    }
    both = options_from(root, {"exploreAgentCount": 5, "planAgentCount": 2}, env)
    assert (both.explore_agents, both.plan_agents) == (7, 4)  # env overrides
    text = workflow.full_instructions(PATH, False, both)
    assert "up to 7 Explore agents" in text
    assert "up to 4 IN PARALLEL" in text


@pytest.mark.parametrize("bad", ["0", "11", "-3", "abc", "", "2.5"])
def test_env_counts_outside_1_to_10_are_ignored(root: Path, bad: str) -> None:
    env = {"CLAUDE_CODE_PLAN_V2_EXPLORE_AGENT_COUNT": bad, "CLAUDE_CODE_PLAN_V2_AGENT_COUNT": bad}
    got = options_from(root, {"exploreAgentCount": 6, "planAgentCount": 2}, env)
    assert (got.explore_agents, got.plan_agents) == (6, 2)
    default = options_from(root, None, env)
    assert (default.explore_agents, default.plan_agents) == (3, 1)


@pytest.mark.parametrize("bad", [0, 11, -1, 2.5, "many"])
def test_setting_counts_outside_1_to_10_are_ignored(root: Path, bad: object) -> None:
    settings, warnings = load_settings(
        root, {"exploreAgentCount": bad, "planAgentCount": bad}, None, {}, home=root / "x"
    )
    assert (settings.exploreAgentCount, settings.planAgentCount) == (3, 1)
    assert any("exploreAgentCount" in w for w in warnings)
    assert any("planAgentCount" in w for w in warnings)


def test_interview_from_setting_and_env(root: Path) -> None:
    assert options_from(root, {"interviewPhase": True}).interview is True
    env_on = {"CLAUDE_CODE_PLAN_MODE_INTERVIEW_PHASE": "1"}
    assert options_from(root, None, env_on).interview is True
    env_off = {"CLAUDE_CODE_PLAN_MODE_INTERVIEW_PHASE": "false"}
    assert options_from(root, {"interviewPhase": True}, env_off).interview is False
    assert options_from(root, {"planFormat": "cap"}).plan_format == "cap"


def test_service_renders_its_settings(make_service) -> None:  # type: ignore[no-untyped-def]
    service = make_service(exploreAgentCount=9, planAgentCount=2, planFormat="cut")
    session = service.require_session("s")
    service.enter(session)
    text = service.next_turn(session)[0][0].text
    assert "up to 9 Explore agents" in text
    assert "up to 2 IN PARALLEL" in text
    assert "Do NOT write a Context" in text
    interview = make_service(interviewPhase=True)
    other = interview.require_session("s2")
    interview.enter(other)
    assert "### First turn" in interview.next_turn(other)[0][0].text


# -- the planning agents ------------------------------------------------------------------------
def test_agent_definitions() -> None:
    agents = {a.agent_type: a for a in workflow.agent_definitions()}
    assert set(agents) == {"Explore", "Plan"}
    for agent in agents.values():
        assert agent.read_only is True
        assert agent.omit_claude_md is True
        for tool in ("Agent", "ExitPlanMode", "Edit", "Write", "NotebookEdit"):
            assert tool in agent.disallowed_tools
        assert not set(agent.tools) & set(agent.disallowed_tools)
        assert "READ-ONLY" in agent.prompt
    assert agents["Explore"].model == "haiku"
    assert agents["Plan"].model == "inherit"
    assert agents["Plan"].tools == agents["Explore"].tools
    assert "Critical Files for Implementation" in agents["Plan"].prompt
