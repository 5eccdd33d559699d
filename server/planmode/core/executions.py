"""Which session executes which approved plan: each session's :class:`Progress`, from its
approval until plan mode is entered again or the next approval (docs/protocol.md §12.1).

The service starts an execution when a session's plan is approved (a subagent's plan is not
the session's: it starts none), ends it when the session enters plan mode again, and hands
every tool call of an executing session to it (:meth:`Executions.observe`): the agent's todo
tools move steps, its writes move the steps that name the file or drift (§12.2), under the
``drift`` setting. A session's task list (``TaskCreate`` / ``TaskUpdate``) is one for its
whole life, planning included, as Claude Code numbers its tasks on across plans: each plan's
progress reads updates through it. The user's marks and the files they allow come through
:meth:`Executions.set_step_status` and :meth:`Executions.allow`.

Each change is saved (:class:`~planmode.core.progress.ProgressStore`, one file per session;
with ``save_later`` only when the caller flushes, off the request's path) and announced to the
listeners as a :class:`ProgressEvent`; nothing else is announced, so the editor hears of a
change only when there is one. A server that restarts finds a session's
progress in its file the first time the session is asked about, as long as the session is
not planning again. Reads are a dictionary lookup once a session was looked up: checkTool
pays nothing for a session that executes no plan.

Where each step is in the plan file as it is now: the steps' lines are those of the approved
text; after an edit of the file :func:`current_lines` maps them through a line diff, and a
step whose line was changed or removed has no line (its marks are not shown).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from planmode.core import drift, linediff
from planmode.core.agents import ToolCall
from planmode.core.errors import InvalidParams, NoApprovedPlan
from planmode.core.lines import lsp_lines
from planmode.core.plans import SAFE_ID_RE
from planmode.core.progress import DriftEntry, Observation, Progress, ProgressStore
from planmode.core.registry import SessionRegistry
from planmode.core.session import Session
from planmode.core.todos import TASK_CREATE, TASK_UPDATE, TODO_WRITE, TaskLedger

log = logging.getLogger(__name__)

TASK_TOOLS = frozenset({TASK_CREATE, TASK_UPDATE})


@dataclass(frozen=True)
class ProgressEvent:
    """A session's progress changed (``progress`` None: its execution ended)."""

    session_id: str
    plan_file: Path
    progress: Progress | None
    # Drift recorded by this change: the user is told of each path once.
    drift: tuple[DriftEntry, ...] = ()
    # This change made every step done.
    completed: bool = False


Listener = Callable[[ProgressEvent], None]


class Executions:
    """The executing sessions of one workspace (the module's rules)."""

    def __init__(self, registry: SessionRegistry) -> None:
        self.registry = registry
        self.store = ProgressStore(registry.state)
        self._live: dict[str, Progress] = {}
        # Sessions looked up that execute nothing: no file to read again.
        self._absent: set[str] = set()
        self._scanned = False
        self.listeners: list[Listener] = []
        # Set by a caller that saves off the request's path (:meth:`flush`): each change then
        # marks its session unsaved instead of writing its file at once.
        self.save_later = False
        self.unsaved: set[str] = set()
        # Each session's task list (TaskCreate / TaskUpdate), across its plans; saved with its
        # progress while it executes, else on its own (ProgressStore.save_tasks).
        self._ledgers: dict[str, TaskLedger] = {}

    # -- reading -------------------------------------------------------------------------
    def get(self, session_id: str) -> Progress | None:
        """The session's progress, read from its file the first time (a restarted server)."""
        found = self._live.get(session_id)
        if found is not None or session_id in self._absent:
            return found
        return self._load(session_id)

    def _load(self, session_id: str) -> Progress | None:
        self._absent.add(session_id)
        if not SAFE_ID_RE.match(session_id):
            return None
        session = self.registry.sessions.get(session_id)
        if session is not None and session.modes.mode == "plan":
            return None
        loaded = self.store.load(session_id, plans_directory=self.registry.plans_directory)
        if loaded.progress is None:
            return None
        self._absent.discard(session_id)
        self._live[session_id] = loaded.progress
        return loaded.progress

    def require(self, session: Session) -> Progress:
        """The progress of ``session``; :class:`NoApprovedPlan` (-32007) when it has none."""
        found = self.get(session.id)
        if found is None or session.modes.mode == "plan":
            raise NoApprovedPlan(session.id)
        return found

    def all(self) -> list[Progress]:
        """Every executing session's progress, the saved ones of earlier runs included."""
        if not self._scanned:
            self._scanned = True
            with contextlib.suppress(OSError):
                for entry in self.registry.state.entries(ProgressStore.FOLDER):
                    name = entry.name
                    if name.endswith(".json") and name[:-5] not in self._live:
                        self._absent.discard(name[:-5])
                        self.get(name[:-5])
        return sorted(self._live.values(), key=lambda p: p.approved_at)

    def executing(self, plan_file: Path) -> list[Progress]:
        """The progress of each session executing the plan ``plan_file``."""
        return [p for p in self.all() if p.plan_file == plan_file]

    # -- the execution's life ------------------------------------------------------------
    def start(self, session: Session, approval_id: str, plan_file: Path, text: str) -> Progress:
        """The session's plan ``text`` was approved: a new execution replaces any earlier."""
        self._end(session.id)
        progress = Progress(
            session.id,
            plan_file,
            approval_id,
            text,
            self.registry.root,
            plans_directory=self.registry.plans_directory,
            tasks=self.ledger(session.id),  # the tasks created so far, planning too
        )
        self._live[session.id] = progress
        self._absent.discard(session.id)
        self._changed(progress, completed=progress.complete)
        return progress

    def end(self, session: Session) -> None:
        """The session entered plan mode again: its execution is over."""
        ended = self._end(session.id)
        if ended is not None:
            self._emit(ProgressEvent(session.id, ended.plan_file, None))

    def _end(self, session_id: str) -> Progress | None:
        ended = self.get(session_id)
        self._live.pop(session_id, None)
        self._absent.add(session_id)
        self.unsaved.discard(session_id)
        if ended is not None:
            try:
                self.store.discard(session_id)
            except OSError as exc:
                log.warning("the progress of session %s was not removed: %s", session_id, exc)
            self._ledgers[session_id] = ended.tasks
            self._save_tasks(session_id)  # the task list goes on without the progress
        return ended

    # -- what moves steps ----------------------------------------------------------------
    def observe(
        self, session: Session, calls: Sequence[ToolCall], behavior: str
    ) -> Observation | None:
        """An executing session's tool call as checkTool decided it (``behavior``; a denied
        call will not happen and moves nothing): todo tools move steps, writes move steps or
        drift. What checkTool must answer for drift is the observation's ``outcome``. None
        for a session that executes nothing."""
        if behavior != "deny" and any(call.tool in TASK_TOOLS for call in calls):
            return self._observe_tasks(session, calls)
        progress = self._live.get(session.id)
        if progress is None:
            if session.id in self._absent:
                return None
            progress = self.get(session.id)
            if progress is None:
                return None
        if session.modes.mode == "plan" or behavior == "deny":
            return None
        before = progress.complete
        changed = False
        writes: list[str] = []
        writer = ""
        for call in calls:
            if call.tool == TODO_WRITE:
                changed |= progress.apply_tool(call.tool, call.input)
            elif call.tool in drift.WRITE_TOOLS:
                writes += drift.written_paths(call.tool, call.input)
                writer = writer or call.tool
        observation = Observation(changed)
        if writes:
            seen = progress.observe_writes(writes, writer, self.registry.settings.drift)
            observation = Observation(changed or seen.changed, seen.outcome, seen.drift)
        if observation.changed:
            self._changed(progress, observation.drift, not before and progress.complete)
        return observation

    def _observe_tasks(self, session: Session, calls: Sequence[ToolCall]) -> Observation | None:
        """``TaskCreate`` / ``TaskUpdate``, in any mode: the session's task list is one for its
        whole life (Claude Code numbers its tasks on, across plans), so every create is
        remembered, planning or not; an update moves the step its task names while the
        session executes a plan."""
        ledger = self.ledger(session.id)
        progress = self.get(session.id)
        executing = progress is not None and session.modes.mode != "plan"
        before = progress.complete if progress is not None else False
        changed = False
        revision = ledger.revision
        for call in calls:
            if call.tool in TASK_TOOLS:
                updates = ledger.read(call.tool, call.input)
                if executing and progress is not None:
                    changed |= progress.apply_todos(updates)
        if not executing or progress is None:
            # No progress event follows to flush it: saved now, when it changed (an update
            # changes no task list; saving it each time would cost every call while planning).
            if ledger.revision != revision:
                self._save_tasks(session.id)
            return None
        if changed:
            self._changed(progress, completed=not before and progress.complete)
        return Observation(changed)

    def ledger(self, session_id: str) -> TaskLedger:
        """The session's task list as its creates made it (saved with its progress)."""
        found = self._ledgers.get(session_id)
        if found is None:
            progress = self.get(session_id)
            if progress is not None:
                found = progress.tasks
            elif SAFE_ID_RE.match(session_id):
                found = self.store.load_tasks(session_id)
            else:
                found = TaskLedger()
            self._ledgers[session_id] = found
        return found

    def observe_edit(self, session: Session, paths: Iterable[str]) -> Observation | None:
        """A ``planMode/applyEdit`` of ``paths`` by the agent (one drifting target decides for
        the whole edit). None for a session that executes nothing."""
        progress = self.get(session.id)
        if progress is None or session.modes.mode == "plan":
            return None
        before = progress.complete
        observation = progress.observe_writes(
            list(paths), drift.APPLY_EDIT, self.registry.settings.drift
        )
        if observation.changed:
            self._changed(progress, observation.drift, not before and progress.complete)
        return observation

    def require_approval(self, session: Session, approval_id: str | None) -> Progress:
        """:meth:`require`, and, when the caller names the approval it saw, that one: a mark
        or an allow chosen for an earlier plan of the session is -32602 naming approvalId."""
        progress = self.require(session)
        if approval_id is not None and approval_id != progress.approval_id:
            raise InvalidParams(
                f"field 'approvalId': {approval_id!r} is not the plan session {session.id} "
                f"carries out now ({progress.approval_id}): it was approved again since"
            )
        return progress

    def set_step_status(
        self, session: Session, index: object, status: object, approval_id: str | None = None
    ) -> Progress:
        """The user's own mark (-32602 naming the field for a bad one, nothing changed)."""
        progress = self.require_approval(session, approval_id)
        before = progress.complete
        if progress.set_step_status(index, status):
            self._changed(progress, completed=not before and progress.complete)
        return progress

    def allow(self, session: Session, path: str, approval_id: str | None = None) -> Progress:
        """The user widens the session's plan: ``path`` drifts no more."""
        progress = self.require_approval(session, approval_id)
        if progress.allow_path(path):
            self._changed(progress)
        return progress

    def counts(self) -> dict[str, tuple[int, int]]:
        """Plan path -> (done, total) of the sessions executing it (the last approved)."""
        return {str(p.plan_file): (p.done, p.total) for p in self.all()}

    # -- saving and telling --------------------------------------------------------------
    def _changed(
        self, progress: Progress, new_drift: tuple[DriftEntry, ...] = (), completed: bool = False
    ) -> None:
        if self.save_later:
            self.unsaved.add(progress.session_id)
        else:
            self._save(progress)
        self._emit(
            ProgressEvent(progress.session_id, progress.plan_file, progress, new_drift, completed)
        )

    def flush(self) -> None:
        """Save every session changed since the last flush (``save_later``)."""
        unsaved, self.unsaved = self.unsaved, set()
        for session_id in sorted(unsaved):
            progress = self._live.get(session_id)
            if progress is not None:
                self._save(progress)

    def _save_tasks(self, session_id: str) -> None:
        ledger = self._ledgers.get(session_id)
        if ledger is None or not SAFE_ID_RE.match(session_id):
            return
        try:
            self.store.save_tasks(session_id, ledger)
        except (OSError, ValueError) as exc:
            log.warning("the task list of session %s was not saved: %s", session_id, exc)

    def _save(self, progress: Progress) -> None:
        try:
            self.store.save(progress)
        except (OSError, ValueError) as exc:
            log.warning("the progress of session %s was not saved: %s", progress.session_id, exc)

    def _emit(self, event: ProgressEvent) -> None:
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:
                log.exception("a progress listener failed")


def current_lines(approved: str, current: str | None, lines: Iterable[int]) -> dict[int, int]:
    """Approved line -> its line in ``current`` (the plan file now), for the lines still
    there unchanged; the identity when the text is the approved one."""
    wanted = set(lines)
    if current is None or current == approved:
        return {line: line for line in wanted}
    mapped: dict[int, int] = {}
    for old, new, size in linediff.matching_blocks(lsp_lines(approved), lsp_lines(current)):
        for line in wanted:
            if old <= line < old + size:
                mapped[line] = new + line - old
    return mapped
