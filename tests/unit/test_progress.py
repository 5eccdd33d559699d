"""Progress of an approved plan: todos, writes, the user's marks, drift, persistence
(docs/protocol.md §12.1–§12.2; planmode/core/progress.py)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planmode.core.errors import InvalidParams
from planmode.core.progress import (
    UNCHANGED,
    Progress,
    ProgressStore,
    UnreadableProgress,
)
from planmode.core.state_dir import StatePlace
from planmode.core.todos import TaskLedger, TodoUpdate
from planmode.lsp import results

PLAN = """# Plan: cache the greeting

## Context
The greeting is slow; see `src/slow.py`.

## Implementation steps
1. Add an LRU cache in `src/cache.py`
2. Use the cache from **server/app.py** when serving requests
3. Document the cache in [the docs](notes/cache.md) and the README
4. Run tests
- [x] Write the design note
5. Run tests

## Verification
Run `pytest tests/unit/test_cache.py` and open the app.
"""
# Steps: 0 cache, 1 app, 2 docs, 3 tests, 4 design note (ticked), 5 tests again.


@pytest.fixture
def progress(root: Path) -> Progress:
    plans = root / ".claude" / "plans"
    return Progress("s-1", plans / "bold-eagle.md", "a-1", PLAN, root, plans_directory=plans)


def wire(progress: Progress) -> dict[str, Any]:
    """The progress as the protocol's Progress."""
    return results.Progress.model_validate(progress).wire()


def statuses(progress: Progress) -> list[tuple[str, str | None]]:
    return [(step.status, step.source) for step in progress.steps]


def test_the_steps_of_the_approved_plan_start_pending_a_ticked_box_done(
    progress: Progress,
) -> None:
    assert [s.text for s in progress.steps] == [
        "Add an LRU cache in `src/cache.py`",
        "Use the cache from **server/app.py** when serving requests",
        "Document the cache in [the docs](notes/cache.md) and the README",
        "Run tests",
        "Write the design note",
        "Run tests",
    ]
    assert [s.line for s in progress.steps] == [6, 7, 8, 9, 10, 11]
    assert statuses(progress)[4] == ("done", None)
    assert {s for i, s in enumerate(statuses(progress)) if i != 4} == {("pending", None)}
    assert (progress.done, progress.total, progress.complete) == (1, 6, False)


def test_the_wire_shape_is_the_protocols(progress: Progress, root: Path) -> None:
    sent = wire(progress)
    assert set(sent) >= {
        "sessionId",
        "planFilePath",
        "approvalId",
        "steps",
        "done",
        "total",
        "drift",
    }
    assert sent["sessionId"] == "s-1"
    assert sent["approvalId"] == "a-1"
    assert sent["planFilePath"] == str(root / ".claude" / "plans" / "bold-eagle.md")
    assert sent["steps"][0] == {
        "index": 0,
        "line": 6,
        "text": "Add an LRU cache in `src/cache.py`",
        "status": "pending",
        "source": None,
    }
    assert (sent["done"], sent["total"], sent["drift"]) == (1, 6, [])
    assert sent["verification"] == {"line": 13, "title": "Verification"}
    json.dumps(sent)


TODO_TABLE = [
    pytest.param("Add an LRU cache in src/cache.py", 0, id="same-text-without-markdown"),
    pytest.param("add an lru cache in `src/cache.py`.", 0, id="case-and-punctuation"),
    pytest.param("1. Add an LRU cache in src/cache.py", 0, id="own-numbering"),
    pytest.param("Use the cache from server/app.py when serving requests", 1, id="bold"),
    pytest.param("Document the cache in the docs and the README", 2, id="link"),
    pytest.param("2. Something else entirely", 1, id="by-number"),
    pytest.param("Step 3", 2, id="step-n"),
    pytest.param("#2 wire things", 1, id="hash-number"),
    pytest.param("Step 9: beyond the plan", None, id="number-past-the-end"),
    pytest.param("Use the LRU cache from server/app.py", 1, id="strong-overlap"),
    pytest.param("Add LRU cache in src/cache.py module", 0, id="overlap-with-an-extra-word"),
    pytest.param("Add cache", None, id="too-few-words-to-overlap"),
    pytest.param("Refactor the billing module completely", None, id="names-no-step"),
    pytest.param("Cache", None, id="one-word"),
]


@pytest.mark.parametrize(("text", "index"), TODO_TABLE)
def test_which_step_a_todo_names(progress: Progress, text: str, index: int | None) -> None:
    assert progress.plan.candidates(text)[:1] == ([] if index is None else [index])


def test_an_overlap_tie_names_no_step(root: Path) -> None:
    plan = "## Steps\n- Add cache to alpha service\n- Add cache to beta service\n"
    progress = Progress("s", root / "p.md", "a", plan, root)
    assert progress.plan.candidates("Add cache to service now") == []
    assert progress.plan.candidates("Add cache to alpha service now") == [0]


def test_todo_write_moves_the_steps_its_todos_name(progress: Progress) -> None:
    changed = progress.apply_tool(
        "TodoWrite",
        {
            "todos": [
                {"content": "Add an LRU cache in src/cache.py", "status": "completed"},
                {"content": "2. Use the cache", "status": "in_progress"},
                {"content": "Unrelated", "status": "completed"},
            ]
        },
    )
    assert changed
    assert statuses(progress)[:3] == [("done", "todo"), ("inProgress", "todo"), ("pending", None)]
    assert progress.done == 2


def test_a_todo_that_names_no_step_changes_nothing(progress: Progress) -> None:
    assert not progress.apply_todos([TodoUpdate("Refactor billing entirely now", "done")])
    assert progress.done == 1


@pytest.mark.parametrize(
    ("first", "then", "expected"),
    [
        ("pending", "inProgress", "inProgress"),
        ("inProgress", "done", "done"),
        ("done", "inProgress", "done"),
        ("done", "pending", "done"),
        ("inProgress", "pending", "inProgress"),
    ],
)
def test_the_agent_only_ever_raises_a_step(
    progress: Progress, first: str, then: str, expected: str
) -> None:
    progress.apply_todos([TodoUpdate("Step 1", first)])  # type: ignore[arg-type]
    changed = progress.apply_todos([TodoUpdate("Step 1", then)])  # type: ignore[arg-type]
    assert progress.steps[0].status == expected
    assert changed is (expected == then != first)


def test_the_users_mark_is_final_until_the_user_marks_again(progress: Progress) -> None:
    assert progress.set_step_status(0, "pending")
    assert not progress.apply_todos([TodoUpdate("Step 1", "done")])
    assert progress.steps[0].status == "pending"
    assert not progress.record_write("src/cache.py")
    assert progress.set_step_status(0, "inProgress")
    assert progress.set_step_status(0, "done")
    assert progress.steps[0].source == "user"
    assert not progress.set_step_status(0, "done")  # the same mark again changes nothing


def test_the_user_can_lower_a_step_the_agent_raised(progress: Progress) -> None:
    progress.apply_todos([TodoUpdate("Step 1", "done")])
    assert progress.set_step_status(0, "pending")
    assert (progress.steps[0].status, progress.done) == ("pending", 1)


def test_marking_what_the_agent_already_set_still_makes_it_the_users(progress: Progress) -> None:
    progress.apply_todos([TodoUpdate("Step 1", "done")])
    assert progress.set_step_status(0, "done")
    assert statuses(progress)[0] == ("done", "user")


@pytest.mark.parametrize(
    ("index", "status", "message"),
    [
        (6, "done", r"field 'index' is 6, but the plan's steps are 0–5"),
        (-1, "done", "field 'index' is -1"),
        ("0", "done", "field 'index' must be a whole number"),
        (True, "done", "field 'index' must be a whole number"),
        (0.0, "done", "field 'index' must be a whole number"),
        (0, "finished", "field 'status' must be one of pending, inProgress, done"),
        (0, "in_progress", "field 'status' must be one of"),
        (0, None, "field 'status' must be one of"),
    ],
)
def test_a_bad_mark_is_an_error_and_changes_nothing(
    progress: Progress, index: object, status: object, message: str
) -> None:
    before = wire(progress)
    with pytest.raises(InvalidParams, match=message):
        progress.set_step_status(index, status)
    assert wire(progress) == before


def test_a_plan_without_steps_says_so_on_a_bad_mark(root: Path) -> None:
    progress = Progress("s", root / "p.md", "a", "Just prose.\n", root)
    with pytest.raises(InvalidParams, match="none: the plan has no steps"):
        progress.set_step_status(0, "done")
    assert not progress.complete


def test_repeated_todo_write_looks_only_at_what_changed(
    progress: Progress, monkeypatch: pytest.MonkeyPatch
) -> None:
    matched: list[str] = []
    applied: list[str] = []
    candidates, apply = progress.plan.candidates, progress._apply

    def counting_candidates(text: str) -> list[int]:
        matched.append(text)
        return candidates(text)

    def counting_apply(text: str, status: Any) -> bool:
        applied.append(text)
        return apply(text, status)

    monkeypatch.setattr(progress.plan, "candidates", counting_candidates)
    monkeypatch.setattr(progress, "_apply", counting_apply)
    todos = [{"content": f"Todo {n}", "status": "pending"} for n in range(50)]
    todos[0]["content"] = "Add an LRU cache in src/cache.py"
    progress.apply_tool("TodoWrite", {"todos": todos})
    assert (len(matched), len(applied)) == (50, 50)
    assert not progress.apply_tool("TodoWrite", {"todos": todos})
    assert (len(matched), len(applied)) == (50, 50)
    todos[0]["status"] = "in_progress"
    assert progress.apply_tool("TodoWrite", {"todos": todos})
    # Only the changed todo is read, and its text is not matched again.
    assert (len(matched), len(applied)) == (50, 51)
    assert progress.steps[0].status == "inProgress"


def test_of_several_steps_with_the_same_text_the_first_not_done_moves(progress: Progress) -> None:
    assert progress.apply_todos([TodoUpdate("Run tests", "done")])
    assert [s.status for s in progress.steps][3:] == ["done", "done", "pending"]
    assert progress.apply_todos([TodoUpdate("run tests", "done")])  # another todo, same step text
    assert progress.steps[5].status == "done"


def test_task_create_then_update_moves_a_step(progress: Progress) -> None:
    assert not progress.observe(
        "TaskCreate", {"subject": "Add an LRU cache in src/cache.py"}
    ).changed
    assert not progress.observe(
        "TaskCreate", {"subject": "Use the cache from server/app.py"}
    ).changed
    seen = progress.observe("TaskUpdate", {"taskId": "2", "status": "in_progress"})
    assert seen.changed and seen.outcome is None
    assert statuses(progress)[1] == ("inProgress", "todo")
    assert progress.observe("TaskUpdate", {"taskId": "1", "status": "completed"}).changed
    assert statuses(progress)[0] == ("done", "todo")


def test_tasks_created_before_approval_carry_over(root: Path) -> None:
    ledger = TaskLedger()
    ledger.read("TaskCreate", {"subject": "Step 3"})
    progress = Progress("s", root / "p.md", "a", PLAN, root, tasks=ledger)
    assert progress.apply_tool("TaskUpdate", {"taskId": "1", "status": "completed"})
    assert progress.steps[2].status == "done"


WRITE_TABLE = [
    pytest.param("src/cache.py", 0, id="path"),
    pytest.param("server/app.py", 1, id="bold-path"),
    pytest.param("notes/cache.md", 2, id="link-target"),
    pytest.param("README", 2, id="prose-file-name"),
    pytest.param("lib/cache.py", 0, id="file-name-elsewhere"),
    pytest.param("src/slow.py", None, id="named-only-outside-the-steps"),
    pytest.param("src/other.py", None, id="named-nowhere"),
]


@pytest.mark.parametrize(("path", "index"), WRITE_TABLE)
def test_a_write_moves_the_step_naming_the_file_to_in_progress(
    progress: Progress, path: str, index: int | None
) -> None:
    assert progress.record_write(path) is (index is not None)
    moved = [i for i, s in enumerate(progress.steps) if s.source == "edit"]
    assert moved == ([] if index is None else [index])
    if index is not None:
        assert progress.steps[index].status == "inProgress"
        assert not progress.record_write(path)  # in progress already


def test_a_write_moves_the_first_step_not_done_and_prefers_the_path(root: Path) -> None:
    plan = "## Steps\n- Edit `app.py` first\n- Edit `src/app.py` properly\n- Touch app.py again\n"
    progress = Progress("s", root / "p.md", "a", plan, root)
    assert progress.record_write("src/app.py")
    assert [s.status for s in progress.steps] == ["pending", "inProgress", "pending"]
    progress.set_step_status(1, "done")
    assert progress.record_write("src/app.py")
    assert [s.status for s in progress.steps] == ["inProgress", "done", "pending"]
    progress.apply_todos([TodoUpdate("Step 1", "done")])
    assert progress.record_write("lib/app.py")
    assert [s.status for s in progress.steps] == ["done", "done", "inProgress"]


def test_other_tools_cost_nothing_and_change_nothing(progress: Progress) -> None:
    for tool in ("Read", "Bash", "Grep", "ExitPlanMode", "mcp__x__y"):
        assert progress.observe(tool, {"file_path": "src/other.py"}, "deny") is UNCHANGED


DRIFT_TABLE = [
    # setting, behavior of the outcome, recorded
    ("off", None, False),
    ("warn", None, True),
    ("ask", "ask", True),
    ("deny", "deny", True),
]


@pytest.mark.parametrize(("setting", "behavior", "recorded"), DRIFT_TABLE)
def test_a_write_outside_the_plan_per_drift_setting(
    progress: Progress, setting: Any, behavior: str | None, recorded: bool
) -> None:
    seen = progress.observe(
        "Write", {"file_path": "src/other.py"}, setting, at="2026-01-01T00:00:00.000Z"
    )
    assert (seen.outcome and seen.outcome.behavior) == behavior
    assert seen.changed is recorded
    expected = [{"path": "src/other.py", "tool": "Write", "at": "2026-01-01T00:00:00.000Z"}]
    assert wire(progress)["drift"] == (expected if recorded else [])
    if behavior == "deny":
        assert seen.outcome is not None
        assert seen.outcome.message.startswith("Not in the approved plan: src/other.py")


def test_drift_is_recorded_once_per_path_but_answered_every_time(progress: Progress) -> None:
    first = progress.observe("Write", {"file_path": "src/other.py"}, "ask")
    again = progress.observe("Edit", {"file_path": "./src/other.py"}, "ask")
    assert first.changed and len(first.drift) == 1
    assert not again.changed and again.drift == ()
    assert again.outcome is not None and again.outcome.behavior == "ask"
    assert [e.tool for e in progress.drift] == ["Write"]


def test_a_named_file_plan_file_or_outside_file_is_never_drift(
    progress: Progress, root: Path
) -> None:
    for path in ("src/cache.py", ".claude/plans/bold-eagle.md", "/tmp/elsewhere.py", "../x.py"):
        seen = progress.observe("Write", {"file_path": path}, "deny")
        assert seen.outcome is None
    assert progress.drift == []


def test_a_refused_call_changes_nothing(progress: Progress) -> None:
    for path in ("src/cache.py", "src/other.py"):
        assert progress.observe("Write", {"file_path": path}, "deny", denied=True) is UNCHANGED
    todos = {"todos": [{"content": "Step 1", "status": "completed"}]}
    assert progress.observe("TodoWrite", todos, denied=True) is UNCHANGED
    assert progress.observe("TaskCreate", {"subject": "Step 2"}, denied=True) is UNCHANGED
    assert progress.tasks.subjects == []
    assert progress.drift == [] and progress.steps[0].status == "pending"
    assert progress.observe("TodoWrite", todos).changed  # the same call, allowed


def test_an_edit_with_a_drifting_target_under_deny_moves_no_step(progress: Progress) -> None:
    seen = progress.observe_writes(["src/cache.py", "src/other.py"], "planMode/applyEdit", "deny")
    assert seen.outcome is not None and seen.outcome.behavior == "deny"
    assert progress.steps[0].status == "pending"
    assert [e.tool for e in progress.drift] == ["planMode/applyEdit"]
    asked = progress.observe_writes(["src/cache.py", "src/third.py"], "planMode/applyEdit", "ask")
    assert asked.outcome is not None and asked.outcome.behavior == "ask"
    assert statuses(progress)[0] == ("inProgress", "edit")


def test_widening_the_plan_allows_a_file(progress: Progress, root: Path) -> None:
    progress.observe("Write", {"file_path": "src/other.py"}, "deny")
    assert progress.allow_path("src/other.py")
    assert not progress.allow_path(str(root / "src" / "other.py"))
    seen = progress.observe("Write", {"file_path": "src/other.py"}, "deny")
    assert seen.outcome is None
    assert wire(progress)["allowedPaths"] == ["src/other.py"]
    assert len(progress.drift) == 1  # what happened stays recorded


@pytest.mark.parametrize("raw", ["../outside.py", "/etc/passwd", ".claude/plans/bold-eagle.md"])
def test_widening_to_a_file_that_cannot_drift_is_an_error(progress: Progress, raw: str) -> None:
    with pytest.raises(InvalidParams, match="field 'path' must name a file inside the workspace"):
        progress.allow_path(raw)
    assert progress.allowed == set()


def test_when_every_step_is_done_the_verification_is_pointed_out(progress: Progress) -> None:
    for index in range(progress.total):
        progress.set_step_status(index, "done")
    assert progress.complete
    assert progress.completion_message() == (
        "All 6 steps of the plan are done. Now verify the change: “Verification” (line 14 of "
        "bold-eagle.md)."
    )


def test_completion_without_a_verification_step(root: Path) -> None:
    progress = Progress("s", root / "p.md", "a", "## Steps\n- only\n", root)
    assert progress.apply_todos([TodoUpdate("only", "done")])
    assert progress.complete
    assert progress.completion_message().startswith("All 1 step of the plan are done.")
    assert "names no verification step" in progress.completion_message()


# -- persistence -----------------------------------------------------------------------------


def worked(progress: Progress) -> Progress:
    progress.apply_todos([TodoUpdate("Step 1", "done")])
    progress.set_step_status(2, "inProgress")
    progress.observe("TaskCreate", {"subject": "Step 2"})
    progress.observe("Write", {"file_path": "src/other.py"}, "warn")
    progress.allow_path("src/third.py")
    return progress


def test_progress_round_trips_through_json(progress: Progress, root: Path) -> None:
    worked(progress)
    data = json.loads(json.dumps(progress.to_json()))
    again = Progress.from_json(
        data,
        root,
        session_id="s-1",
        plan_file=progress.plan_file,
        plans_directory=root / ".claude" / "plans",
    )
    assert wire(again) == wire(progress)
    assert again.approved_at == progress.approved_at
    # The index and the ledger work on: task 1 is "Step 2".
    assert again.apply_tool("TaskUpdate", {"taskId": "1", "status": "completed"})
    assert again.steps[1].status == "done"


def bad(**changes: Any) -> dict[str, Any]:
    return changes


BAD_FILES = [
    ([], "it is not a JSON object"),
    (bad(version=2), "its version is 2, not 1"),
    (bad(sessionId="../x"), "its sessionId is not a session id"),
    (bad(sessionId="other"), "it belongs to session 'other', not 's-1'"),
    (bad(sessionId=None), "its sessionId is not a string"),
    (bad(planFilePath="relative.md"), "its planFilePath is not an absolute path"),
    (bad(planFilePath="/elsewhere/plan.md"), "it is about /elsewhere/plan.md, not the plan"),
    (bad(plan=None), "its plan is not a string"),
    (bad(plan="x" * 5_000_001), "its plan is not a string of at most 5,000,000 characters"),
    (bad(approvalId=3), "its approvalId is not a string"),
    (bad(steps={}), "its steps are not a list"),
    (bad(steps=[3]), "a step is not an object"),
    (bad(steps=[{"index": "0", "status": "done"}]), "a step's index is '0'"),
    (bad(steps=[{"index": 0, "status": "finished"}]), "step 0's status is 'finished'"),
    (bad(steps=[{"index": 0, "status": "done", "source": "agent"}]), "step 0's source"),
    (bad(drift="x"), "its drift is not a list"),
    (bad(drift=[{"path": "a"}]), "a drift entry is not {path, tool, at}"),
    (bad(drift=[{"path": "", "tool": "Write", "at": "t"}]), "a drift entry is not"),
    (bad(allowed=["../../etc/passwd"]), "its allowed path '../../etc/passwd' is not inside"),
    (bad(allowed="src"), "its allowed paths are not a list"),
    (bad(tasks=[]), "tasks is not an object"),
]


@pytest.mark.parametrize(("changes", "reason"), BAD_FILES)
def test_a_bad_saved_progress_is_refused_with_the_reason(
    progress: Progress, root: Path, changes: Any, reason: str
) -> None:
    data = changes if isinstance(changes, list) else {**progress.to_json(), **changes}
    with pytest.raises(UnreadableProgress, match=reason.replace("(", r"\(").replace("{", r"\{")):
        Progress.from_json(data, root, session_id="s-1", plan_file=progress.plan_file)


def test_saved_steps_that_no_longer_match_the_text_start_over(
    progress: Progress, root: Path
) -> None:
    data = progress.to_json()
    data["steps"] = [
        {"index": 0, "text": "Something else", "status": "done", "source": "user"},
        {"index": 1, "text": data["steps"][1]["text"], "status": "done", "source": "todo"},
        {"index": 99, "text": "gone", "status": "done", "source": None},
    ]
    again = Progress.from_json(data, root)
    assert statuses(again)[:2] == [("pending", None), ("done", "todo")]
    assert again.done == 2  # step 1 and the ticked box


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=25,
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "version",
                "sessionId",
                "planFilePath",
                "approvalId",
                "approvedAt",
                "plan",
                "steps",
                "drift",
                "allowed",
                "tasks",
            ]
        ),
        json_values,
    )
)
def test_any_saved_json_is_read_or_refused_never_a_crash(
    progress: Progress, root: Path, changes: dict[str, Any]
) -> None:
    data = {**progress.to_json(), **changes}
    with contextlib.suppress(UnreadableProgress):
        Progress.from_json(data, root)


def test_the_store_keeps_progress_across_a_restart(progress: Progress, root: Path) -> None:
    worked(progress)
    ProgressStore(root).save(progress)
    path = root / ".claude" / "plan-mode" / "progress" / "s-1.json"
    assert path.is_file()
    loaded = ProgressStore(StatePlace(root, "plan-mode")).load(
        "s-1", plan_file=progress.plan_file, plans_directory=root / ".claude" / "plans"
    )
    assert loaded.reason is None and loaded.progress is not None
    assert wire(loaded.progress) == wire(progress)
    ProgressStore(root).discard("s-1")
    ProgressStore(root).discard("s-1")
    assert ProgressStore(root).load("s-1").progress is None


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "it is not JSON"),
        ("[]", "it is not a JSON object"),
        ("[" * 100_000, "it is not JSON"),
        ('{"version": 1}', "it is not signed"),
    ],
)
def test_the_store_ignores_a_bad_file_with_the_reason(
    root: Path, content: str, reason: str
) -> None:
    folder = root / ".claude" / "plan-mode" / "progress"
    folder.mkdir(parents=True)
    (folder / "s-1.json").write_text(content)
    loaded = ProgressStore(root).load("s-1")
    assert loaded.progress is None
    assert loaded.reason is not None and reason in loaded.reason
    assert "saved progress of session 's-1' is not used" in loaded.reason
    assert (folder / "s-1.json").read_text() == content  # left alone


def test_a_progress_the_server_did_not_write_is_refused(progress: Progress, root: Path) -> None:
    # A cloned repository ships .claude/plan-mode/progress/s-1.json (force-added past the
    # .gitignore): every step done by the user, a file allowed, exactly as to_json writes it.
    for index in range(progress.total):
        progress.set_step_status(index, "done")
    progress.allow_path("src/backdoor.py")
    folder = root / ".claude" / "plan-mode" / "progress"
    folder.mkdir(parents=True)
    planted = json.dumps(progress.to_json())
    (folder / "s-1.json").write_text(planted)
    loaded = ProgressStore(root).load("s-1")
    assert loaded.progress is None
    assert loaded.reason is not None and "not signed" in loaded.reason
    (folder / "s-1.json").write_text(json.dumps({**progress.to_json(), "mac": "0" * 64}))
    loaded = ProgressStore(root).load("s-1")
    assert loaded.progress is None
    assert loaded.reason is not None and "signature is not this user's" in loaded.reason
    assert json.loads((folder / "s-1.json").read_text())["mac"] == "0" * 64  # left alone


def test_a_saved_progress_changed_since_is_refused(progress: Progress, root: Path) -> None:
    ProgressStore(root).save(worked(progress))
    path = root / ".claude" / "plan-mode" / "progress" / "s-1.json"
    data = json.loads(path.read_text())
    data["allowed"] = [*data["allowed"], "src/backdoor.py"]
    path.write_text(json.dumps(data))
    assert ProgressStore(root).load("s-1").progress is None


def test_a_saved_progress_is_good_only_in_its_own_workspace(
    progress: Progress, root: Path, tmp_path: Path
) -> None:
    ProgressStore(root).save(worked(progress))
    other = tmp_path / "other"
    (other / ".claude" / "plan-mode" / "progress").mkdir(parents=True)
    name = Path(".claude") / "plan-mode" / "progress" / "s-1.json"
    (other / name).write_text((root / name).read_text())
    assert ProgressStore(other).load("s-1").progress is None


def test_a_task_list_the_server_did_not_write_is_refused(root: Path) -> None:
    ledger = TaskLedger()
    ledger.read("TaskCreate", {"subject": "Step 1"})
    ProgressStore(root).save_tasks("s-1", ledger)
    assert ProgressStore(root).load_tasks("s-1").subjects == ["Step 1"]
    path = root / ".claude" / "plan-mode" / "progress" / "tasks" / "s-1.json"
    path.write_text(json.dumps(ledger.to_json()))
    assert ProgressStore(root).load_tasks("s-1").subjects == []


def test_the_store_reads_no_file_through_a_symlink(
    progress: Progress, root: Path, tmp_path: Path, fake_home: Path
) -> None:
    elsewhere = tmp_path / "planted"
    elsewhere.mkdir()
    (elsewhere / "s-1.json").write_text(json.dumps(worked(progress).to_json()))
    (root / ".claude" / "plan-mode").mkdir(parents=True)
    os.symlink(elsewhere, root / ".claude" / "plan-mode" / "progress")
    assert ProgressStore(root).load("s-1").progress is None


def test_the_store_refuses_an_unsafe_session_id(root: Path) -> None:
    with pytest.raises(ValueError, match="not a safe file-name segment"):
        ProgressStore(root).load("../s")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(
            st.tuples(
                st.just("todo"),
                st.sampled_from(
                    [
                        "Step 1",
                        "Step 2",
                        "Run tests",
                        "Add an LRU cache in src/cache.py",
                        "nothing at all here",
                    ]
                ),
                st.sampled_from(["pending", "inProgress", "done"]),
            ),
            st.tuples(
                st.just("user"),
                st.integers(0, 5),
                st.sampled_from(["pending", "inProgress", "done"]),
            ),
            st.tuples(
                st.just("write"), st.sampled_from(["src/cache.py", "README", "x.py"]), st.just("")
            ),
        ),
        max_size=30,
    )
)
def test_invariants_hold_for_any_sequence_of_events(
    root: Path, events: list[tuple[str, Any, str]]
) -> None:
    progress = Progress("s", root / "p.md", "a", PLAN, root)
    for kind, what, status in events:
        before = [(s.status, s.source) for s in progress.steps]
        if kind == "todo":
            changed = progress.apply_todos([TodoUpdate(what, status)])  # type: ignore[arg-type]
        elif kind == "user":
            changed = progress.set_step_status(what, status)
        else:
            changed = progress.record_write(what)
        after = [(s.status, s.source) for s in progress.steps]
        assert changed is (before != after)
        for (old_status, old_source), (new_status, new_source) in zip(before, after, strict=True):
            if kind != "user":
                # The agent never lowers a step, never touches the user's.
                rank = ["pending", "inProgress", "done"]
                assert rank.index(new_status) >= rank.index(old_status)
                if old_source == "user":
                    assert (new_status, new_source) == (old_status, old_source)
        assert progress.done == sum(s.status == "done" for s in progress.steps)
