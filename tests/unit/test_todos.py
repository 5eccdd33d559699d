"""The agent's todo tools read as progress updates (planmode/core/todos.py)."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planmode.core.todos import TaskLedger, TodoUpdate, status_of, todo_write_updates


def test_todo_write_is_one_update_per_todo_in_progress_words() -> None:
    updates = todo_write_updates(
        {
            "todos": [
                {"content": "Add cache", "status": "pending", "activeForm": "Adding cache"},
                {"content": "Wire cache", "status": "in_progress"},
                {"content": "Docs", "status": "completed"},
            ]
        }
    )
    assert updates == [
        TodoUpdate("Add cache", "pending"),
        TodoUpdate("Wire cache", "inProgress"),
        TodoUpdate("Docs", "done"),
    ]


@pytest.mark.parametrize(
    "tool_input",
    [
        {},
        {"todos": None},
        {"todos": "Add cache"},
        {"todos": [None, 3, "x"]},
        {"todos": [{"content": "", "status": "pending"}]},
        {"todos": [{"content": "Add", "status": "cancelled"}]},
        {"todos": [{"content": 7, "status": "pending"}]},
        {"todos": [{"status": "pending"}]},
    ],
)
def test_malformed_todos_are_skipped_never_an_error(tool_input: dict[str, Any]) -> None:
    assert todo_write_updates(tool_input) == []


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        ("pending", "pending"),
        ("in_progress", "inProgress"),
        ("inProgress", "inProgress"),
        ("completed", "done"),
        ("done", "done"),
        ("deleted", None),
        (None, None),
        (1, None),
    ],
)
def test_status_words(raw: object, status: str | None) -> None:
    assert status_of(raw) == status


def test_a_generic_update_with_an_unknown_status_is_an_error() -> None:
    with pytest.raises(ValueError, match="status 'finished' is not one of"):
        TodoUpdate("a", "finished")  # type: ignore[arg-type]


def created(*subjects: str) -> TaskLedger:
    ledger = TaskLedger()
    for subject in subjects:
        assert ledger.read("TaskCreate", {"subject": subject, "description": "…"}) == []
    return ledger


def test_task_update_finds_the_nth_created_task_by_its_id() -> None:
    ledger = created("Add cache", "Wire cache")
    assert ledger.read("TaskUpdate", {"taskId": "2", "status": "in_progress"}) == [
        TodoUpdate("Wire cache", "inProgress")
    ]
    assert ledger.read("TaskUpdate", {"taskId": 1, "status": "completed"}) == [
        TodoUpdate("Add cache", "done")
    ]


@pytest.mark.parametrize(
    "tool_input",
    [
        {"taskId": "3", "status": "completed"},  # never created
        {"taskId": "0", "status": "completed"},
        {"taskId": "abc", "status": "completed"},
        {"taskId": "²", "status": "completed"},  # a digit to str.isdigit, not to int()
        {"taskId": "1²", "status": "completed"},
        {"taskId": True, "status": "completed"},
        {"taskId": "1", "status": "deleted"},
        {"taskId": "1"},  # no status: owner, blockers …
        {"status": "completed"},
    ],
)
def test_an_update_of_no_known_task_or_status_moves_nothing(tool_input: dict[str, Any]) -> None:
    assert created("Add cache", "Wire cache").read("TaskUpdate", tool_input) == []


def test_a_learned_id_reveals_tasks_created_before_the_ledger_watched() -> None:
    # Tasks 1-3 were created while planning, unseen; these are 4 and 5.
    ledger = created("Add cache", "Wire cache")
    assert ledger.learn("4", "Add cache")
    assert ledger.read("TaskUpdate", {"taskId": "5", "status": "completed"}) == [
        TodoUpdate("Wire cache", "done")
    ]
    assert ledger.read("TaskUpdate", {"taskId": "2", "status": "completed"}) == []
    assert not ledger.learn("4", "Add cache")  # nothing new


def test_an_id_of_digits_int_does_not_read_is_learned_as_a_name() -> None:
    ledger = created("Add cache")
    assert ledger.learn("²", "Add cache")
    assert ledger.offset == 0
    assert ledger.read("TaskUpdate", {"taskId": "²", "status": "completed"}) == [
        TodoUpdate("Add cache", "done")
    ]


def test_learning_a_subject_never_seen_remembers_it() -> None:
    ledger = TaskLedger()
    assert ledger.learn("7", "Write docs")
    assert ledger.read("TaskUpdate", {"taskId": "7", "status": "in_progress"}) == [
        TodoUpdate("Write docs", "inProgress")
    ]


def test_an_update_that_renames_its_task_is_read_by_the_new_subject() -> None:
    ledger = created("Add cache")
    assert ledger.read("TaskUpdate", {"taskId": "1", "subject": "Add LRU cache"}) == []
    assert ledger.read("TaskUpdate", {"taskId": "1", "status": "completed"}) == [
        TodoUpdate("Add LRU cache", "done")
    ]


def test_an_update_of_an_unknown_id_with_a_subject_is_read_by_that_subject() -> None:
    assert TaskLedger().read(
        "TaskUpdate", {"taskId": "9", "subject": "Add cache", "status": "completed"}
    ) == [TodoUpdate("Add cache", "done")]


def test_other_tools_make_no_updates() -> None:
    assert TaskLedger().read("Write", {"todos": [{"content": "a", "status": "pending"}]}) == []


def test_the_ledger_round_trips_through_json() -> None:
    ledger = created("Add cache", "Wire cache")
    ledger.learn("11", "Wire cache")
    again = TaskLedger.from_json(ledger.to_json())
    assert again.to_json() == ledger.to_json()
    assert again.read("TaskUpdate", {"taskId": "10", "status": "completed"}) == [
        TodoUpdate("Add cache", "done")
    ]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ([], "tasks is not an object"),
        ({"subjects": "a"}, "tasks.subjects is not a list"),
        ({"subjects": [1]}, "holds something that is no subject"),
        ({"subjects": ["a"], "ids": []}, "tasks.ids is not an object"),
        ({"subjects": ["a"], "ids": {"1": 5}}, r"tasks.ids\['1'\] is not a known task"),
        ({"subjects": ["a"], "ids": {"1": True}}, "is not a known task"),
        ({"subjects": ["a"], "offset": "2"}, "tasks.offset is not a whole number"),
        ({"subjects": ["a"] * 10_001}, "at most 10,000"),
    ],
)
def test_a_bad_saved_ledger_is_refused_with_the_reason(data: object, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        TaskLedger.from_json(data)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_reading_any_input_never_raises(value: object) -> None:
    ledger = created("a")
    for tool in ("TodoWrite", "TaskCreate", "TaskUpdate"):
        tool_input = value if isinstance(value, dict) else {"todos": value, "taskId": value}
        ledger.read(tool, tool_input)
    with contextlib.suppress(ValueError):
        TaskLedger.from_json(value)
