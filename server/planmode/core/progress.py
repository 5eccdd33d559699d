"""Progress: the steps of the plan a session executes, as they get done, and its drift.

docs/protocol.md §12.1–§12.2. From an approval until plan mode is entered again (or the next
approval) a session *executes* its approved plan; :class:`Progress` is that execution's state,
a state machine without I/O. Every transition returns whether anything changed (the server
sends ``planMode/didChangeProgress`` only then); bad input from the user or an adapter raises
:class:`~planmode.core.errors.InvalidParams` and changes nothing, while an agent's malformed
tool input is skipped.

**Steps** come from :mod:`planmode.core.steps`; a box ticked in the approved text starts done
(source None: the plan said so). Each step has a status and a source:

* the agent's todos (source ``todo``): a todo names a step when (1) its normalised text equals
  the step's (:func:`~planmode.core.steps.normalise`; of several such steps the first not
  done), else (2) it starts with the step's number — its place in the list, from 1 (``2.``,
  ``Step 2``), else (3) their words overlap strongly: the todo has at least 3 content words,
  at least 80% of them are the step's and they make at least half of the step's; the step
  with the best Dice score wins, a tie names none. A todo that names no step changes nothing.
* the agent's writes (source ``edit``): a write of a file a step names moves the first such
  step that is not done to ``inProgress``. Steps naming the file by its path come before those
  naming only its file name.
* the user's marks (source ``user``): any status, final — the agent's later updates of that
  step change nothing — until the user marks it again.

The agent's updates only ever raise a step: done > inProgress > pending.

**Drift** (:mod:`planmode.core.drift`) is recorded once per path with the tool and the time.
:meth:`Progress.observe` is what checkTool calls for every tool call: todo tools move steps,
writes move steps and are checked for drift; any other tool costs two set lookups. The plan
is indexed once at approval (normalised step texts, their words, the files each step and the
whole plan name), so a call does work in proportion to what it changes, and a ``TodoWrite``
that repeats its list only looks at the todos whose text or status changed.

**Bounds** (:mod:`planmode.core.steps`): of an approved plan, the first ``MAX_READ_CHARS``
characters (whole lines) are read for its steps, its verification and the files it names, and
its first ``MAX_STEPS`` steps are tracked; a file named only beyond that drifts.

**Persistence**: :meth:`Progress.to_json` / :meth:`Progress.from_json` (the approved text
is kept, the index rebuilt from it); :class:`ProgressStore` keeps one file per session in
``<root>/.claude/plan-mode/progress/<sessionId>.json`` (never through a symlink,
:mod:`planmode.core.state_dir`), signed with the user's own key for the workspace (kept
outside it): a file a repository ships, or one changed by hand, is never trusted. What it
reads is validated: a file that is not what this module writes is ignored with the reason,
never a crash.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from planmode.core import drift, steps
from planmode.core.approval import now_iso
from planmode.core.errors import InvalidParams
from planmode.core.lines import lsp_lines
from planmode.core.plans import SAFE_ID_RE
from planmode.core.state_dir import STATE, StatePlace
from planmode.core.steps import STATUS_RANK, STEP_STATUSES, StepStatus
from planmode.core.todos import TODO_TOOLS, TODO_WRITE, TaskLedger, TodoUpdate, todo_write_pairs

log = logging.getLogger(__name__)

StepSource = Literal["todo", "edit", "user"]
STEP_SOURCES: tuple[StepSource, ...] = ("todo", "edit", "user")
FORMAT_VERSION = 1
# Overlap matching (module docstring).
MIN_OVERLAP_WORDS = 3
TODO_COVERED = 0.8
STEP_COVERED = 0.5
# Bounds: a progress file may come from anywhere, and the memo of todos must not grow forever.
MAX_PLAN_CHARS = 5_000_000
MAX_DRIFT = 10_000
MAX_PATH = 4_096
MAX_REMEMBERED_TODOS = 4_096


class UnreadableProgress(ValueError):
    """A saved progress that is not what :meth:`Progress.to_json` writes."""


@dataclass(frozen=True)
class Step:
    index: int
    line: int
    text: str
    status: StepStatus = "pending"
    source: StepSource | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "line": self.line,
            "text": self.text,
            "status": self.status,
            "source": self.source,
        }


@dataclass(frozen=True)
class DriftEntry:
    path: str  # relative to the root, POSIX
    tool: str
    at: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "tool": self.tool, "at": self.at}


@dataclass(frozen=True)
class Observation:
    """What a tool call did to the progress, and what checkTool must answer for drift."""

    changed: bool = False
    outcome: drift.DriftOutcome | None = None
    drift: tuple[DriftEntry, ...] = ()  # recorded by this call (shown under ``warn``)


UNCHANGED = Observation()


class PlanIndex:
    """An approved plan read once: its steps, and what matching needs, ready for lookups."""

    def __init__(self, text: str, root: Path) -> None:
        self.text = text
        read = steps.readable(text)
        parsed = steps.structure(read)
        self.steps = parsed.steps
        self.verification = parsed.verification
        self.by_text: dict[str, list[int]] = {}
        self.words: list[frozenset[str]] = []
        self.by_word: dict[str, list[int]] = {}
        self.by_path: dict[str, list[int]] = {}
        self.by_name: dict[str, list[int]] = {}
        lines = lsp_lines(text)
        for step in self.steps:
            normal = steps.normalise(step.text)
            self.by_text.setdefault(normal, []).append(step.index)
            words = steps.content_words(normal)
            self.words.append(words)
            for word in words:
                self.by_word.setdefault(word, []).append(step.index)
            named = steps.file_mentions(lines[step.line : step.end], str(root))
            for path in named.paths:
                self.by_path.setdefault(path, []).append(step.index)
            for name in named.names:
                self.by_name.setdefault(name, []).append(step.index)
        self.mentions = steps.file_mentions(lsp_lines(read), str(root))

    def naming(self, relative: str) -> list[int]:
        """The steps that name the file ``relative``: by its path, then by its name only."""
        by_path = self.by_path.get(relative, [])
        name = relative.rsplit("/", 1)[-1]
        return by_path + [i for i in self.by_name.get(name, []) if i not in by_path]

    def candidates(self, text: str) -> list[int]:
        """The steps a todo's text names, best first (the module's rules)."""
        normal = steps.normalise(text)
        exact = self.by_text.get(normal)
        if exact:
            return exact
        number = steps.step_number(text)
        if number is not None and 1 <= number <= len(self.steps):
            return [number - 1]
        overlap = self._overlap(steps.content_words(normal))
        return [] if overlap is None else [overlap]

    def _overlap(self, words: frozenset[str]) -> int | None:
        if len(words) < MIN_OVERLAP_WORDS:
            return None
        shared = Counter(i for word in words for i in self.by_word.get(word, ()))
        best: int | None = None
        best_score = 0.0
        tied = False
        for index, common in shared.items():
            own = self.words[index]
            if common < TODO_COVERED * len(words) or common < STEP_COVERED * len(own):
                continue
            score = 2 * common / (len(words) + len(own))
            if score > best_score:
                best, best_score, tied = index, score, False
            elif score == best_score:
                tied = True
        return None if tied else best


class Progress:
    """One session's execution of its approved plan (the module's rules)."""

    def __init__(
        self,
        session_id: str,
        plan_file: Path,
        approval_id: str,
        plan_text: str,
        root: Path,
        *,
        plans_directory: Path | None = None,
        approved_at: str | None = None,
        tasks: TaskLedger | None = None,
    ) -> None:
        self.session_id = session_id
        self.plan_file = plan_file
        self.approval_id = approval_id
        self.approved_at = approved_at or now_iso()
        self.plan = PlanIndex(plan_text, root)
        self.scope = drift.DriftScope(root, plan_file, plans_directory)
        self.steps: list[Step] = [
            Step(s.index, s.line, s.text, "done" if s.checked else "pending")
            for s in self.plan.steps
        ]
        self.drift: list[DriftEntry] = []
        self.drifted: set[str] = set()
        self.allowed: set[str] = set()
        self.tasks = tasks if tasks is not None else TaskLedger()
        # The todos already applied, text -> status, and which step a text names: a
        # TodoWrite repeats its whole list on every call.
        self._applied: dict[str, StepStatus] = {}
        self._named: dict[str, tuple[int, ...]] = {}
        self._last_todo_list: list[Any] = []
        self._done = sum(step.status == "done" for step in self.steps)

    # -- reading -----------------------------------------------------------------------------
    @property
    def done(self) -> int:
        return self._done

    @property
    def total(self) -> int:
        return len(self.steps)

    @property
    def complete(self) -> bool:
        """Every step done (a plan without steps is never complete: nothing was tracked)."""
        return self.total > 0 and self._done == self.total

    # Read as the protocol's Progress (lsp/results.py), with its additions.
    @property
    def plan_file_path(self) -> Path:
        return self.plan_file

    @property
    def verification(self) -> steps.Verification | None:
        """Where the plan says how to verify the change, if it does."""
        return self.plan.verification

    @property
    def allowed_paths(self) -> list[str]:
        return sorted(self.allowed)

    def completion_message(self) -> str:
        """What the user is told when every step is done: the verification to run next."""
        where = self.plan.verification
        counted = f"All {self.total} step{'s' if self.total != 1 else ''} of the plan are done"
        if where is None:
            return f"{counted}. The plan names no verification step: check the change yourself."
        return (
            f"{counted}. Now verify the change: “{where.title}” "
            f"(line {where.line + 1} of {self.plan_file.name})."
        )

    # -- transitions ---------------------------------------------------------------------------
    def _set(self, index: int, status: StepStatus, source: StepSource | None) -> bool:
        step = self.steps[index]
        if step.status == status and step.source == source:
            return False
        self._done += (status == "done") - (step.status == "done")
        self.steps[index] = replace(step, status=status, source=source)
        return True

    def _raise(self, index: int, status: StepStatus, source: StepSource) -> bool:
        """An agent's update: never lowers a step, never touches one the user marked."""
        step = self.steps[index]
        if step.source == "user" or STATUS_RANK[status] <= STATUS_RANK[step.status]:
            return False
        return self._set(index, status, source)

    def _step_for(self, text: str, status: StepStatus) -> int | None:
        found = self._named.get(text)
        if found is None:
            if len(self._named) >= MAX_REMEMBERED_TODOS:
                self._named.clear()
            found = self._named[text] = tuple(self.plan.candidates(text))
        if len(found) <= 1:
            return found[0] if found else None
        # Several steps with this text: the first one the update still raises.
        for index in found:
            step = self.steps[index]
            if step.source != "user" and STATUS_RANK[status] > STATUS_RANK[step.status]:
                return index
        return found[0]

    def apply_todos(self, updates: Iterable[TodoUpdate]) -> bool:
        """The agent's todos, in the generic form; returns whether a step changed."""
        changed = False
        for update in updates:
            changed |= self._apply(update.text, update.status)
        return changed

    def _apply(self, text: str, status: StepStatus) -> bool:
        if self._applied.get(text) == status:
            return False
        if len(self._applied) >= MAX_REMEMBERED_TODOS:
            self._applied.clear()
        self._applied[text] = status
        index = self._step_for(text, status)
        return index is not None and self._raise(index, status, "todo")

    def apply_tool(self, tool: str, tool_input: Mapping[str, Any]) -> bool:
        """An agent's todo tool call (``TodoWrite``, ``TaskCreate``, ``TaskUpdate``)."""
        if tool == TODO_WRITE:
            # The whole list comes on every call: only the todos that differ from the last
            # list's at the same place are read.
            todos = tool_input.get("todos")
            if not isinstance(todos, list):
                return False
            last = self._last_todo_list
            fresh = [todo for n, todo in enumerate(todos) if n >= len(last) or todo != last[n]]
            if not fresh:
                return False
            self._last_todo_list = [
                dict(todo) if isinstance(todo, Mapping) else todo for todo in todos
            ]
            changed = False
            for text, status in todo_write_pairs({"todos": fresh}):
                changed |= self._apply(text, status)
            return changed
        if tool not in TODO_TOOLS:
            return False
        return self.apply_todos(self.tasks.read(tool, tool_input))

    def record_write(self, relative: str) -> bool:
        """The agent wrote ``relative`` (POSIX, relative to the root): the first step naming
        it that is not done goes to ``inProgress`` at least."""
        for index in self.plan.naming(relative):
            step = self.steps[index]
            if step.status == "done" or step.source == "user":
                continue
            return self._raise(index, "inProgress", "edit")
        return False

    def set_step_status(self, index: object, status: object) -> bool:
        """The user's own mark: final until the user marks the step again."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise InvalidParams(f"field 'index' must be a whole number, not {index!r}")
        if not 0 <= index < self.total:
            shown = f"0–{self.total - 1}" if self.total else "none: the plan has no steps"
            raise InvalidParams(f"field 'index' is {index}, but the plan's steps are {shown}")
        if status not in STEP_STATUSES:
            raise InvalidParams(
                f"field 'status' must be one of {', '.join(STEP_STATUSES)}, not {status!r}"
            )
        return self._set(index, status, "user")

    def allow_path(self, raw: str) -> bool:
        """The user widens the plan: ``raw`` (relative to the root, or absolute inside it)
        is no drift for this plan. Its drift entry stays, as a record of what happened."""
        relative = self.scope.relative(raw)
        if relative is None:
            raise InvalidParams(
                f"field 'path' must name a file inside the workspace that is not the plan's: "
                f"{raw!r}"
            )
        if relative in self.allowed:
            return False
        self.allowed.add(relative)
        return True

    def record_drift(self, relative: str, tool: str, at: str | None = None) -> DriftEntry | None:
        """Record a drifting write, once per path; the new entry, or None when known."""
        if relative in self.drifted or len(self.drift) >= MAX_DRIFT:
            return None
        entry = DriftEntry(relative, tool, at or now_iso())
        self.drifted.add(relative)
        self.drift.append(entry)
        return entry

    def observe(
        self,
        tool: str,
        tool_input: Mapping[str, Any],
        setting: drift.DriftSetting = drift.DEFAULT_DRIFT,
        *,
        denied: bool = False,
        at: str | None = None,
    ) -> Observation:
        """A tool call as checkTool sees it (``denied``: checkTool refuses it anyway, so it
        changes nothing: the call will not happen)."""
        if denied:
            return UNCHANGED
        if tool in TODO_TOOLS:
            return Observation(self.apply_tool(tool, tool_input))
        if tool in drift.WRITE_TOOLS:
            return self.observe_writes(
                drift.written_paths(tool, tool_input), tool, setting, denied=denied, at=at
            )
        return UNCHANGED

    def observe_writes(
        self,
        paths: Iterable[str],
        tool: str,
        setting: drift.DriftSetting = drift.DEFAULT_DRIFT,
        *,
        denied: bool = False,
        at: str | None = None,
    ) -> Observation:
        """Writes of ``paths`` by ``tool`` (every target of a ``planMode/applyEdit`` at
        once: one drifting target decides for the whole edit)."""
        if denied:
            return UNCHANGED
        named: list[str] = []
        drifting: list[str] = []
        for raw in paths:
            relative = self.scope.relative(raw)
            if relative is None:
                continue
            if (
                setting != "off"
                and relative not in self.allowed
                and not self.plan.mentions.names_file(relative)
                and (
                    relative in self.drifted  # known: its symlinks were looked at already
                    or drift.drifting(self.scope, self.plan.mentions, self.allowed, raw, relative)
                )
            ):
                drifting.append(relative)
            else:
                named.append(relative)
        verdict: drift.DriftOutcome | None = None
        recorded = []
        for relative in drifting:
            verdict = drift.stricter(verdict, drift.outcome(setting, relative, self.plan_file))
            entry = self.record_drift(relative, tool, at)
            if entry is not None:
                recorded.append(entry)
        changed = bool(recorded)
        if verdict is None or verdict.behavior != "deny":
            for relative in named:
                changed |= self.record_write(relative)
        return Observation(changed, verdict, tuple(recorded))

    # -- persistence -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "sessionId": self.session_id,
            "planFilePath": str(self.plan_file),
            "approvalId": self.approval_id,
            "approvedAt": self.approved_at,
            "plan": self.plan.text,
            "steps": [step.to_json() for step in self.steps],
            "drift": [entry.to_json() for entry in self.drift],
            "allowed": sorted(self.allowed),
            "tasks": self.tasks.to_json(),
            "updatedAt": now_iso(),
        }

    @classmethod
    def from_json(
        cls,
        data: object,
        root: Path,
        *,
        session_id: str | None = None,
        plan_file: Path | None = None,
        plans_directory: Path | None = None,
    ) -> Progress:
        """A progress as :meth:`to_json` wrote it, for ``session_id`` and ``plan_file`` when
        given. :class:`UnreadableProgress` naming the first thing that is wrong."""
        if not isinstance(data, Mapping):
            raise UnreadableProgress("it is not a JSON object")
        if data.get("version") != FORMAT_VERSION:
            raise UnreadableProgress(f"its version is {data.get('version')!r}, not 1")
        saved_session = _string(data, "sessionId", 128)
        if not SAFE_ID_RE.match(saved_session):
            raise UnreadableProgress("its sessionId is not a session id")
        if session_id is not None and saved_session != session_id:
            raise UnreadableProgress(f"it belongs to session {saved_session!r}, not {session_id!r}")
        saved_file = _string(data, "planFilePath", MAX_PATH)
        if not os.path.isabs(saved_file) or "\x00" in saved_file:
            raise UnreadableProgress("its planFilePath is not an absolute path")
        if plan_file is not None and Path(saved_file) != plan_file:
            raise UnreadableProgress(f"it is about {saved_file}, not the plan {plan_file}")
        text = _string(data, "plan", MAX_PLAN_CHARS)
        progress = cls(
            saved_session,
            Path(saved_file),
            _string(data, "approvalId", 128),
            text,
            root,
            plans_directory=plans_directory,
            approved_at=_string(data, "approvedAt", 64),
            tasks=_tasks(data.get("tasks", {})),
        )
        progress._restore_steps(data.get("steps"))
        progress._restore_drift(data.get("drift", []))
        allowed = data.get("allowed", [])
        if not isinstance(allowed, list) or len(allowed) > MAX_DRIFT:
            raise UnreadableProgress("its allowed paths are not a list")
        for raw in allowed:
            relative = progress.scope.relative(raw) if isinstance(raw, str) else None
            if relative is None or relative != raw:
                raise UnreadableProgress(f"its allowed path {raw!r} is not inside the workspace")
            progress.allowed.add(relative)
        return progress

    def _restore_steps(self, saved: object) -> None:
        """Each saved step's status, where the approved text still has that step (a newer
        reader of the same text may find other steps: those start over)."""
        if not isinstance(saved, list) or len(saved) > 100_000:
            raise UnreadableProgress("its steps are not a list")
        for raw in saved:
            if not isinstance(raw, Mapping):
                raise UnreadableProgress("a step is not an object")
            index, status, source = raw.get("index"), raw.get("status"), raw.get("source")
            if isinstance(index, bool) or not isinstance(index, int):
                raise UnreadableProgress(f"a step's index is {index!r}")
            if status not in STEP_STATUSES:
                raise UnreadableProgress(f"step {index}'s status is {status!r}")
            if source is not None and source not in STEP_SOURCES:
                raise UnreadableProgress(f"step {index}'s source is {source!r}")
            if 0 <= index < self.total and self.steps[index].text == raw.get("text"):
                self._set(index, status, source)

    def _restore_drift(self, saved: object) -> None:
        if not isinstance(saved, list) or len(saved) > MAX_DRIFT:
            raise UnreadableProgress("its drift is not a list")
        for raw in saved:
            if not isinstance(raw, Mapping):
                raise UnreadableProgress("a drift entry is not an object")
            path, tool, at = raw.get("path"), raw.get("tool"), raw.get("at")
            if not (
                isinstance(path, str)
                and isinstance(tool, str)
                and isinstance(at, str)
                and 0 < len(path) <= MAX_PATH
                and len(tool) <= 128
                and len(at) <= 64
                and "\x00" not in path
            ):
                raise UnreadableProgress(f"a drift entry is not {{path, tool, at}}: {raw!r}")
            self.record_drift(path, tool, at)


def progress_text(progress: Mapping[str, Any]) -> str:
    """A ``Progress`` as the protocol sends it (docs/protocol.md §12.1) as a person reads it:
    ``Plan 3/7``, each step with its mark, the files written outside the plan. One text for
    ``planmode progress`` and the editor's message (lsp/features/progress.py)."""
    lines = [f"Plan {progress['done']}/{progress['total']}  {progress['planFilePath']}"]
    for step in progress["steps"]:
        by = f"  ({step['source']})" if step.get("source") else ""
        mark = steps.MARKS.get(step["status"], "?")
        lines.append(f"  {mark} {step['index'] + 1}. {step['text']}{by}")
    allowed = set(progress.get("allowedPaths") or [])
    if progress["drift"]:
        lines.append("Written outside the plan:")
    for entry in progress["drift"]:
        note = "  (allowed for this plan)" if entry["path"] in allowed else ""
        lines.append(f"  ! {entry['path']} ({entry['tool']}, {entry['at']}){note}")
    verification = progress.get("verification")
    if progress["total"] and progress["done"] == progress["total"] and verification:
        lines.append(
            f"All steps done. Verify: {verification['title']} (line {verification['line'] + 1})"
        )
    return "\n".join(lines)


def _string(data: Mapping[str, Any], key: str, limit: int) -> str:
    value = data.get(key)
    if not isinstance(value, str) or len(value) > limit:
        raise UnreadableProgress(f"its {key} is not a string of at most {limit:,} characters")
    return value


def _tasks(raw: object) -> TaskLedger:
    try:
        return TaskLedger.from_json(raw)
    except ValueError as exc:
        raise UnreadableProgress(str(exc)) from exc


@dataclass(frozen=True)
class Loaded:
    """A saved progress, or why there is none to use (None: there is no file)."""

    progress: Progress | None = None
    reason: str | None = None


class ProgressStore:
    """Each session's progress in ``<root>/.claude/plan-mode/progress/<sessionId>.json``."""

    FOLDER = "progress"

    def __init__(self, root: Path | StatePlace) -> None:
        self.state = StatePlace.of(root, STATE)
        self.root = self.state.root
        self._secret: bytes | None = None

    def _name(self, session_id: str) -> tuple[str, str]:
        if not SAFE_ID_RE.match(session_id):
            raise ValueError(f"sessionId {session_id!r} is not a safe file-name segment")
        return (self.FOLDER, f"{session_id}.json")

    # A saved file is signed (``mac``: HMAC-SHA256 with the user's own key of the workspace,
    # kept outside it, over the rest as canonical JSON): a progress or a task list a cloned
    # repository ships, or another user wrote, is refused, so it cannot mark steps done,
    # pre-allow files for drift or name another plan file.
    KEY = "progress.key"

    def _key(self) -> bytes:
        if self._secret is None:
            self._secret = self.state.user_key(self.KEY)
        return self._secret

    def _mac(self, data: Mapping[str, Any]) -> str:
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hmac.new(
            self._key(), canonical.encode("utf-8", "surrogatepass"), hashlib.sha256
        ).hexdigest()

    def _signed(self, data: dict[str, Any]) -> str:
        return json.dumps({**data, "mac": self._mac(data)}, separators=(",", ":")) + "\n"

    def _verified(self, text: str) -> object:
        """The JSON of ``text`` without its ``mac``; UnreadableProgress when it is not
        signed by this user's server for this workspace."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise UnreadableProgress("it is not a JSON object")
        mac = data.pop("mac", None)
        if not isinstance(mac, str):
            raise UnreadableProgress("it is not signed (a file the server did not write)")
        try:
            expected = self._mac(data)
        except OSError as exc:
            raise UnreadableProgress(f"the user's key to check it is not there ({exc})") from exc
        if not hmac.compare_digest(mac.encode("ascii", "replace"), expected.encode("ascii")):
            raise UnreadableProgress(
                "its signature is not this user's for this workspace (a file the server did "
                "not write here, or changed since)"
            )
        return data

    def save(self, progress: Progress) -> None:
        # Saved on every change, on checkTool's path: atomic, but not fsync'd (a crash may
        # lose the last change, or leave a file the loader refuses and logs).
        self.state.write_atomic(
            self._name(progress.session_id), self._signed(progress.to_json()), durable=False
        )

    def discard(self, session_id: str) -> None:
        """Forget a session's progress (its execution ended without leaving anything to
        show, or the session ended)."""
        with contextlib.suppress(FileNotFoundError):
            self.state.unlink(self._name(session_id))

    # A session's task list between its executions (while it plans), in ``progress/tasks/``.
    TASKS = "tasks"

    def save_tasks(self, session_id: str, tasks: TaskLedger) -> None:
        folder, name = self._name(session_id)
        self.state.write_atomic(
            (folder, self.TASKS, name), self._signed(tasks.to_json()), durable=False
        )

    def load_tasks(self, session_id: str) -> TaskLedger:
        """The session's saved task list; an empty one when there is none, or (logged) when
        the file cannot be used."""
        folder, name = self._name(session_id)
        try:
            text = self.state.read_text((folder, self.TASKS, name))
        except FileNotFoundError:
            return TaskLedger()
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("the task list of session %r is not used: %s", session_id, exc)
            return TaskLedger()
        try:
            return TaskLedger.from_json(self._verified(text))
        except (ValueError, RecursionError) as exc:
            log.warning("the task list of session %r is not used: %s", session_id, exc)
            return TaskLedger()

    def load(
        self,
        session_id: str,
        *,
        plan_file: Path | None = None,
        plans_directory: Path | None = None,
    ) -> Loaded:
        """The saved progress of ``session_id``; a file that cannot be used is left alone,
        logged, and its reason returned."""
        name = self._name(session_id)
        try:
            text = self.state.read_text(name)
        except FileNotFoundError:
            return Loaded()
        except (OSError, UnicodeDecodeError) as exc:
            return self._refused(session_id, f"it cannot be read ({exc})")
        if len(text) > 4 * MAX_PLAN_CHARS:
            return self._refused(session_id, "it is too large")
        try:
            data = self._verified(text)
        except UnreadableProgress as exc:
            return self._refused(session_id, str(exc))
        except (ValueError, RecursionError) as exc:
            return self._refused(session_id, f"it is not JSON ({exc})")
        try:
            progress = Progress.from_json(
                data,
                self.root,
                session_id=session_id,
                plan_file=plan_file,
                plans_directory=plans_directory,
            )
        except (UnreadableProgress, InvalidParams, RecursionError) as exc:
            return self._refused(session_id, str(exc))
        return Loaded(progress)

    def _refused(self, session_id: str, reason: str) -> Loaded:
        why = f"the saved progress of session {session_id!r} is not used: {reason}"
        log.warning("%s", why)
        return Loaded(None, why)
