"""The agent's todo lists, read as updates of the form progress understands.

checkTool speaks in Claude Code's tool names (docs/protocol.md §6), and so does this module:
an agent whose todo tools differ maps them onto these, or straight onto :class:`TodoUpdate`
(``{text, status}``), in its adapter. It owns no progress; it only says which todo has which
status now.

* ``TodoWrite {todos: [{content, status, activeForm?}]}``: the whole list every time; each
  todo is one update (``pending`` → pending, ``in_progress`` → inProgress, ``completed`` →
  done).
* ``TaskCreate {subject, description?, activeForm?}``: a new task, pending; nothing moves, but
  its subject is remembered in order in a :class:`TaskLedger`.
* ``TaskUpdate {taskId, status?, subject?, …}``: the task named by ``taskId`` gets that status
  (``deleted`` moves nothing). The id is Claude Code's: it numbers a task list's tasks ``"1"``,
  ``"2"``, … as it creates them and never reuses one. ``PreToolUse`` does not show the id a
  create got, so the ledger finds a task (1) by an id it was told (:meth:`TaskLedger.learn`,
  e.g. from a ``PostToolUse`` result ``{task: {id, subject}}``), (2) by the update's own
  ``subject`` (a rename is remembered), (3) by position: id ``n`` is the ``n``-th create it saw,
  shifted by the offset that a learned id revealed (tasks created before it was watching).
  A task it cannot find moves nothing.

Input from an agent is never an error here: what is not a well-formed todo is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from planmode.core.steps import STEP_STATUSES, StepStatus

TODO_WRITE = "TodoWrite"
TASK_CREATE = "TaskCreate"
TASK_UPDATE = "TaskUpdate"
TODO_TOOLS = frozenset({TODO_WRITE, TASK_CREATE, TASK_UPDATE})

# The agents' status words, and progress's own (an adapter may send either).
STATUS_WORDS: dict[str, StepStatus] = {
    "pending": "pending",
    "in_progress": "inProgress",
    "inProgress": "inProgress",
    "completed": "done",
    "done": "done",
}
# Bounds on what is remembered from an agent: a ledger is saved with the progress.
MAX_TASKS = 10_000
MAX_TEXT = 2_000
# And on the text of all subjects: the list is saved on each change while the session plans.
MAX_LEDGER_CHARS = 1_000_000


@dataclass(frozen=True)
class TodoUpdate:
    """One todo of the agent's, as progress reads it: its text and its status now."""

    text: str
    status: StepStatus

    def __post_init__(self) -> None:
        if self.status not in STEP_STATUSES:
            raise ValueError(f"status {self.status!r} is not one of {', '.join(STEP_STATUSES)}")


def status_of(raw: object) -> StepStatus | None:
    """A todo's status in progress's words; None for an unknown one."""
    return STATUS_WORDS.get(raw) if isinstance(raw, str) else None


def _text(raw: object) -> str | None:
    if not isinstance(raw, str) or not raw.strip():
        return None
    return raw[:MAX_TEXT]


def _task_id(raw: object) -> str | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, str) and raw.strip() and len(raw) <= 64:
        return raw.strip()
    return None


def _numbered(task_id: str) -> bool:
    """An id of ASCII digits, as Claude Code numbers its tasks (``str.isdigit`` takes ``²``,
    which ``int`` refuses: an agent's id must never crash checkTool)."""
    return task_id.isascii() and task_id.isdigit()


def todo_write_pairs(tool_input: Mapping[str, Any]) -> Iterator[tuple[str, StepStatus]]:
    """``(text, status)`` of each well-formed todo of a ``TodoWrite`` input."""
    todos = tool_input.get("todos")
    if not isinstance(todos, list):
        return
    for todo in todos:
        if not isinstance(todo, Mapping):
            continue
        text, status = _text(todo.get("content")), status_of(todo.get("status"))
        if text is not None and status is not None:
            yield text, status


def todo_write_updates(tool_input: Mapping[str, Any]) -> list[TodoUpdate]:
    """The updates of a ``TodoWrite`` input (malformed todos skipped)."""
    return [TodoUpdate(text, status) for text, status in todo_write_pairs(tool_input)]


class TaskLedger:
    """The tasks an agent created, in order, so that ``TaskUpdate``'s id finds its subject."""

    def __init__(self) -> None:
        self.subjects: list[str] = []
        self.ids: dict[str, int] = {}  # task id -> position in ``subjects``, once known
        self.offset = 0  # id n is position n - 1 - offset
        # Past its bounds the list takes no more creates, for good: a later create kept after
        # one refused would take the refused one's id.
        self.full = False
        self._chars = 0
        # Counts the changes, so that a caller saves the list only when it changed.
        self.revision = 0

    def _remember(self, subject: str) -> bool:
        """A new task at the end of the list, while it is within its bounds."""
        if (
            self.full
            or len(self.subjects) >= MAX_TASKS
            or (self._chars + len(subject) > MAX_LEDGER_CHARS)
        ):
            self.full = True
            return False
        self.subjects.append(subject)
        self._chars += len(subject)
        self.revision += 1
        return True

    def read(self, tool: str, tool_input: Mapping[str, Any]) -> list[TodoUpdate]:
        """The updates a todo tool call makes (the module's rules); it remembers creates."""
        if tool == TODO_WRITE:
            return todo_write_updates(tool_input)
        if tool == TASK_CREATE:
            subject = _text(tool_input.get("subject"))
            if subject is not None:
                self._remember(subject)
            return []
        if tool == TASK_UPDATE:
            return self._update(tool_input)
        return []

    def _update(self, tool_input: Mapping[str, Any]) -> list[TodoUpdate]:
        task_id = _task_id(tool_input.get("taskId"))
        renamed = _text(tool_input.get("subject"))
        position = self.position(task_id) if task_id is not None else None
        if position is not None and renamed is not None and self.subjects[position] != renamed:
            self._chars += len(renamed) - len(self.subjects[position])
            self.subjects[position] = renamed
            self.revision += 1
        subject = renamed or (self.subjects[position] if position is not None else None)
        status = status_of(tool_input.get("status"))
        if subject is None or status is None:
            return []
        return [TodoUpdate(subject, status)]

    def position(self, task_id: str) -> int | None:
        """Where the task ``task_id`` is in ``subjects``; None when unknown."""
        if task_id in self.ids:
            return self.ids[task_id]
        if not _numbered(task_id):
            return None
        position = int(task_id) - 1 - self.offset
        return position if 0 <= position < len(self.subjects) else None

    def learn(self, task_id: object, subject: object) -> bool:
        """The agent said which id a task got (a create's result). A subject never created
        is remembered as created now. Returns whether anything was learned."""
        known, text = _task_id(task_id), _text(subject)
        if known is None or text is None:
            return False
        try:
            position = len(self.subjects) - 1 - self.subjects[::-1].index(text)
        except ValueError:
            if not self._remember(text):
                return False
            position = len(self.subjects) - 1
        if self.ids.get(known) == position:
            return False
        self.ids[known] = position
        self.revision += 1
        if _numbered(known):
            self.offset = int(known) - 1 - position
        return True

    def to_json(self) -> dict[str, Any]:
        return {
            "subjects": list(self.subjects),
            "ids": dict(self.ids),
            "offset": self.offset,
            "full": self.full,
        }

    @classmethod
    def from_json(cls, data: object) -> TaskLedger:
        """A ledger as :meth:`to_json` wrote it; ValueError naming what is wrong."""
        if not isinstance(data, Mapping):
            raise ValueError("tasks is not an object")
        ledger = cls()
        subjects = data.get("subjects", [])
        if not isinstance(subjects, list) or len(subjects) > MAX_TASKS:
            raise ValueError("tasks.subjects is not a list of at most 10,000 subjects")
        for subject in subjects:
            if not isinstance(subject, str) or len(subject) > MAX_TEXT:
                raise ValueError("tasks.subjects holds something that is no subject")
        ledger.subjects = list(subjects)
        ledger._chars = sum(map(len, subjects))
        if ledger._chars > MAX_LEDGER_CHARS + MAX_TEXT * 8:  # renames may pass it a little
            raise ValueError("tasks.subjects hold more text than a task list keeps")
        full = data.get("full", False)
        if not isinstance(full, bool):
            raise ValueError("tasks.full is not true or false")
        ledger.full = full
        ids = data.get("ids", {})
        if not isinstance(ids, Mapping):
            raise ValueError("tasks.ids is not an object")
        for task_id, position in ids.items():
            if (
                _task_id(task_id) != task_id
                or isinstance(position, bool)
                or not isinstance(position, int)
                or not 0 <= position < len(ledger.subjects)
            ):
                raise ValueError(f"tasks.ids[{task_id!r}] is not a known task")
        ledger.ids = dict(ids)
        offset = data.get("offset", 0)
        if isinstance(offset, bool) or not isinstance(offset, int) or abs(offset) > 10**9:
            raise ValueError("tasks.offset is not a whole number")
        ledger.offset = offset
        return ledger


def todo_write_input(raw: object, text_key: str) -> dict[str, Any]:
    """An agent's own todo list (``[{<text_key>, status}]``: Gemini CLI's ``write_todos``,
    Codex's ``update_plan``) as ``TodoWrite``'s input, for its adapter to map its tool onto;
    an item that is not an object is left out."""
    if not isinstance(raw, list):
        return {"todos": []}
    return {
        "todos": [
            {"content": item.get(text_key), "status": item.get("status")}
            for item in raw
            if isinstance(item, Mapping)
        ]
    }


def updates_of(
    tool: str, tool_input: Mapping[str, Any], ledger: TaskLedger
) -> Iterable[TodoUpdate]:
    """The updates a todo tool call makes; none for any other tool."""
    return ledger.read(tool, tool_input) if tool in TODO_TOOLS else ()
