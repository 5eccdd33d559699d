"""Which session executes which approved plan, through the service (docs/protocol.md §12;
planmode/core/executions.py): started by an approval, ended by entering plan mode, fed by
checkTool in plan mode's terms, saved and found again."""

from __future__ import annotations

from pathlib import Path

import pytest

from planmode.agents.codex.tools import plan_mode_calls as codex_calls
from planmode.agents.gemini.tools import plan_mode_calls as gemini_calls
from planmode.agents.opencode.tools import plan_mode_calls as opencode_calls
from planmode.core.agents import ToolCall
from planmode.core.errors import NoApprovedPlan
from planmode.core.executions import ProgressEvent, current_lines
from planmode.core.service import PlanModeService
from planmode.core.session import Session
from planmode.core.todos import MAX_LEDGER_CHARS, MAX_TEXT, TaskLedger
from tests.unit.conftest import ServiceFactory

PLAN = """# Plan

## Steps
1. Change the greeting in `src/app.py`
2. Add a test in `tests/test_app.py`

## Verification
Run the tests.
"""


def approved(
    service: PlanModeService, session_id: str = "s1", mode: str = "acceptEdits"
) -> Session:
    session = service.require_session(session_id)
    service.enter(session)
    path = service.plan_path(session)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PLAN)
    approval, _ = service.begin_exit(session)
    service.approve(approval.approval_id, session_id, mode=mode)  # type: ignore[arg-type]
    return session


def test_an_approval_starts_an_execution_and_entering_plan_mode_ends_it(
    service: PlanModeService,
) -> None:
    events: list[ProgressEvent] = []
    service.executions.listeners.append(events.append)
    session = service.require_session("s1")
    with pytest.raises(NoApprovedPlan):
        service.executions.require(session)
    approved(service)
    progress = service.executions.require(session)
    assert [s.text for s in progress.steps] == [
        "Change the greeting in `src/app.py`",
        "Add a test in `tests/test_app.py`",
    ]
    assert progress.plan_file == service.plan_path(session)
    assert [e.progress is progress for e in events] == [True]
    service.set_mode(session, "plan")
    assert events[-1].progress is None and events[-1].session_id == "s1"
    with pytest.raises(NoApprovedPlan):
        service.executions.require(session)
    # Leaving plan mode without an approval does not bring the old execution back.
    service.set_mode(session, "default")
    assert service.executions.get("s1") is None


def test_check_tool_moves_steps_in_plan_modes_terms_and_drift_overrules(
    make_service: ServiceFactory, root: Path
) -> None:
    service = make_service(drift="deny")
    session = approved(service)
    todos = {"todos": [{"content": "1.", "status": "completed"}]}
    assert service.check_tool(session, "TodoWrite", todos).behavior == "allow"
    assert service.executions.require(session).done == 1
    denied = service.check_tool(session, "Write", {"file_path": "src/other.py", "content": ""})
    assert (denied.behavior, denied.rule, denied.vouched) == ("deny", "drift", True)
    assert denied.message is not None
    assert denied.message.startswith("Not in the approved plan: src/other.py.")
    named = service.check_tool(session, "Edit", {"file_path": str(root / "tests/test_app.py")})
    assert named.behavior == "allow"
    assert [s.status for s in service.executions.require(session).steps] == ["done", "inProgress"]
    # A call denied anyway (by plan mode, the user's rules) will not happen: it moves nothing.
    fresh = approved(service, "s2")
    write = ToolCall("Write", {"file_path": "src/app.py"})
    assert service.executions.observe(fresh, [write], "deny") is None
    assert service.executions.require(fresh).steps[0].status == "pending"


def test_ask_is_vouched_so_the_agents_prompt_shows(make_service: ServiceFactory) -> None:
    service = make_service(drift="ask")
    session = approved(service)
    asked = service.check_tool(session, "Write", {"file_path": "notes.txt", "content": ""})
    assert (asked.behavior, asked.rule, asked.vouched) == ("ask", "drift", True)
    warned = make_service()  # warn: unchanged, and not vouched
    plain = approved(warned, "w1")
    answer = warned.check_tool(plain, "Write", {"file_path": "notes.txt", "content": ""})
    assert (answer.behavior, answer.vouched) == ("allow", False)
    assert [d.path for d in warned.executions.require(plain).drift] == ["notes.txt"]


def test_the_other_agents_todo_tools_reach_progress_through_their_adapters(
    service: PlanModeService,
) -> None:
    session = approved(service)
    (gemini,) = gemini_calls(
        "write_todos", {"todos": [{"description": "1.", "status": "completed"}, "junk"]}
    )
    (codex,) = codex_calls("update_plan", {"plan": [{"step": "2.", "status": "in_progress"}]}, None)
    (opencode,) = opencode_calls("todowrite", {"todos": []}, None)
    assert (gemini.tool, codex.tool, opencode.tool) == ("TodoWrite",) * 3
    service.executions.observe(session, [gemini, codex], "allow")
    progress = service.executions.require(session)
    assert [(s.status, s.source) for s in progress.steps] == [
        ("done", "todo"),
        ("inProgress", "todo"),
    ]


def test_saved_later_and_found_again_by_a_new_service(make_service: ServiceFactory) -> None:
    first = make_service()
    first.executions.save_later = True
    session = approved(first)
    first.executions.set_step_status(session, 1, "done")
    assert first.executions.unsaved == {"s1"}
    second = make_service()
    assert second.executions.get("s1") is None  # not saved yet
    first.executions.flush()
    third = make_service()
    found = third.executions.get("s1")
    assert found is not None and [s.status for s in found.steps] == ["pending", "done"]
    assert [p.session_id for p in third.executions.all()] == ["s1"]
    assert third.executions.counts() == {str(found.plan_file): (1, 2)}


def test_the_steps_lines_follow_an_edit_of_the_plan_file() -> None:
    lines = [3, 4]
    assert current_lines(PLAN, PLAN, lines) == {3: 3, 4: 4}
    assert current_lines(PLAN, None, lines) == {3: 3, 4: 4}
    assert current_lines(PLAN, "Intro.\n\n" + PLAN, lines) == {3: 5, 4: 6}
    edited = PLAN.replace("2. Add a test", "2. Add two tests")
    assert current_lines(PLAN, edited, lines) == {3: 3}


def test_the_task_list_runs_across_plans_as_claude_codes_ids_do(
    service: PlanModeService,
) -> None:
    """Claude Code numbers a session's tasks on across plans: the second plan's first task is
    "3" when the first plan made two (and tasks made while planning count too)."""
    session = approved(service)
    for subject in ("Change the greeting in src/app.py", "Add a test in tests/test_app.py"):
        service.check_tool(session, "TaskCreate", {"subject": subject})
    service.check_tool(session, "TaskUpdate", {"taskId": "2", "status": "completed"})
    assert [s.status for s in service.executions.require(session).steps] == ["pending", "done"]

    service.set_mode(session, "plan")
    service.check_tool(session, "TaskCreate", {"subject": "Add a test in tests/test_app.py"})
    path = service.plan_path(session)
    path.write_text(PLAN)
    approval, _ = service.begin_exit(session)
    service.approve(approval.approval_id, "s1", mode="acceptEdits")
    service.check_tool(session, "TaskCreate", {"subject": "Change the greeting in src/app.py"})
    service.check_tool(session, "TaskUpdate", {"taskId": "4", "status": "completed"})
    service.check_tool(session, "TaskUpdate", {"taskId": "3", "status": "in_progress"})
    progress = service.executions.require(session)
    assert [(s.status, s.source) for s in progress.steps] == [
        ("done", "todo"),
        ("inProgress", "todo"),
    ]


def test_the_task_list_survives_a_restart_while_the_session_plans(
    make_service: ServiceFactory,
) -> None:
    first = make_service()
    session = approved(first)
    first.check_tool(session, "TaskCreate", {"subject": "Change the greeting in src/app.py"})
    first.set_mode(session, "plan")  # the progress file goes; the task list stays
    first.check_tool(session, "TaskCreate", {"subject": "Something else entirely"})

    second = make_service()  # the server restarted while the session plans
    again = second.require_session("s1")
    assert again.modes.mode == "plan"
    path = second.plan_path(again)
    path.write_text(PLAN)
    approval, _ = second.begin_exit(again)
    second.approve(approval.approval_id, "s1", mode="acceptEdits")
    second.check_tool(again, "TaskCreate", {"subject": "Add a test in tests/test_app.py"})
    second.check_tool(again, "TaskUpdate", {"taskId": "3", "status": "completed"})
    second.check_tool(again, "TaskUpdate", {"taskId": "1", "status": "in_progress"})
    progress = second.executions.require(again)
    assert [(s.status, s.source) for s in progress.steps] == [
        ("inProgress", "todo"),
        ("done", "todo"),
    ]


def test_a_huge_plan_is_read_up_to_a_bound(root: Path) -> None:
    """A 4 MB "plan" of 80,000 items (make bench times exit → approve of 4.5 MB): its first
    MAX_STEPS steps are tracked, a file named only past MAX_READ_CHARS drifts."""
    from planmode.core import progress as core
    from planmode.core import steps

    items = "".join(f"{n}. Change item {n} of the list in `src/mod{n}.py`\n" for n in range(80_000))
    text = f"# Plan\n\n## Steps\n{items}"
    assert len(text) > 4_000_000
    plans = root / ".claude" / "plans"
    tracked = core.Progress("s1", plans / "huge.md", "a1", text, root, plans_directory=plans)
    assert tracked.total == steps.MAX_STEPS == len(steps.parse_steps(text))
    assert not tracked.observe_writes(["src/mod5.py"], "Write").drift
    late = tracked.observe_writes(["src/mod79999.py"], "Write")
    assert [entry.path for entry in late.drift] == ["src/mod79999.py"]


def test_a_second_approval_starts_over_and_nothing_of_the_first_carries(
    make_service: ServiceFactory,
) -> None:
    service = make_service(drift="deny")
    session = approved(service)
    service.executions.set_step_status(session, 0, "done")
    service.executions.allow(session, "src/extra.py")
    assert service.check_tool(session, "Write", {"file_path": "notes.txt"}).behavior == "deny"
    approved(service)  # enters plan mode, submits, approved again
    progress = service.executions.require(session)
    assert [(s.status, s.source) for s in progress.steps] == [("pending", None)] * 2
    assert progress.drift == [] and progress.allowed == set()
    decision = service.check_tool(session, "Write", {"file_path": "src/extra.py"})
    assert decision.behavior == "deny" and "src/extra.py" in (decision.message or "")
    # A restarted server finds the second execution, not the first.
    service.executions.flush()
    again = make_service(drift="deny").executions.get("s1")
    assert again is not None and again.approval_id == progress.approval_id
    assert again.allowed == set() and [d.path for d in again.drift] == ["src/extra.py"]


def test_a_task_call_while_planning_writes_the_task_list_only_when_it_changed(
    service: PlanModeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = service.require_session("s1")
    service.enter(session)
    saved: list[int] = []
    real = service.executions.store.save_tasks
    monkeypatch.setattr(
        service.executions.store,
        "save_tasks",
        lambda session_id, ledger: saved.append(len(ledger.subjects)) or real(session_id, ledger),
    )
    service.check_tool(session, "TaskCreate", {"subject": "Add the cache"})
    service.check_tool(session, "TaskUpdate", {"taskId": "1", "status": "in_progress"})
    service.check_tool(session, "TaskUpdate", {"taskId": "9", "status": "completed"})
    service.check_tool(session, "TaskCreate", {"subject": ""})
    assert saved == [1]  # the updates and the malformed create changed no task list


def test_the_task_list_is_bounded_in_what_it_keeps() -> None:
    ledger = TaskLedger()
    for _ in range(MAX_LEDGER_CHARS // MAX_TEXT):
        ledger.read("TaskCreate", {"subject": "x" * MAX_TEXT})
    assert ledger.read("TaskCreate", {"subject": "y" * MAX_TEXT}) == []
    kept = len(ledger.subjects)
    # Full for good: a short create after a refused one would take the refused one's id.
    ledger.read("TaskCreate", {"subject": "z"})
    assert len(ledger.subjects) == kept
    assert sum(map(len, ledger.subjects)) <= MAX_LEDGER_CHARS
    assert TaskLedger.from_json(ledger.to_json()).full
