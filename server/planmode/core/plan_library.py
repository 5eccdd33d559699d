"""The plan library of a workspace: every plan with its status (docs/protocol.md §12.3), and a
saved plan taken up again by a session.

The rules of a plan's status and the record of decisions are :mod:`planmode.core.library`'s;
this joins them with what the sessions hold now (the approvals pending, the sessions in plan
mode, the progress of the sessions executing a plan).

**Taking a plan up again** (``planMode/takeUpPlan``) makes a saved (or rejected) plan a
session's plan: a session whose plan file is named by its slug takes the plan's slug, so its
plan file is the saved file and its history goes on; a session whose agent names its plan file
(an adopted file) gets the saved text written there. The session enters plan mode, the record
gains a ``resumed`` line (the plan lists as drafting again), and the session's next turn
carries a ``plan_taken_up`` attachment telling the model (:meth:`PlanLibrary.announcement`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from planmode.core import attachments, library, plans, prompts
from planmode.core.errors import InvalidParams
from planmode.core.library import LibraryEntry, StepCount
from planmode.core.planning import Planning
from planmode.core.registry import SessionRegistry
from planmode.core.review import ReviewState
from planmode.core.session import Session

log = logging.getLogger(__name__)

# The statuses a plan can be taken up from: decided, and not carried out.
TAKEN_UP_FROM = ("saved", "rejected")
TAKEN_UP = "plan_taken_up"


@dataclass(frozen=True)
class TakenUp:
    """A plan taken up: where the session's plan is now, and the file it came from."""

    plan_file: Path
    taken_from: Path


class PlanLibrary:
    def __init__(self, registry: SessionRegistry, review: ReviewState, planning: Planning) -> None:
        self.registry = registry
        self.review = review
        self.planning = planning
        # Session id -> the plan it took up, until its next turn tells the model.
        self._untold: dict[str, TakenUp] = {}
        # Session id -> the plan it took up, until its next exit: an agent that names its own
        # plan file only later (Claude Code, from its second tool call) gets the text there.
        self._taken: dict[str, TakenUp] = {}
        # Plan path -> (done, total) of the sessions executing it now (core/executions.py).
        self.live_counts: Callable[[], Mapping[str, tuple[int, int]]] = dict

    @property
    def record(self) -> library.LibraryRecord:
        return self.review.library

    def entries(self) -> list[LibraryEntry]:
        """Every plan of the workspace with its status, newest first, with the live progress
        of the sessions executing one."""
        live = {path: StepCount(*count) for path, count in self.live_counts().items()}
        found, owners = self.registry.plan_files()
        sessions = self.registry.sessions.values()
        return library.list_library(
            found,
            self.record.records(),
            pending=[s.pending.plan_file_path for s in sessions if s.pending is not None],
            planning=[s.id for s in sessions if s.modes.mode == "plan"],
            owners=owners,
            live=live,
        )

    def progress(self, plan_file: Path, approval_id: str, done: int, total: int) -> None:
        """An executing session's step count changed: the record keeps it, so the library
        shows how far the plan got once the session moved on (or the server restarted)."""
        try:
            self.record.progress_changed(plan_file, approval_id, StepCount(done, total))
        except OSError as exc:
            log.error("the plan library cannot record the progress of %s: %s", plan_file, exc)

    def entry(self, path: Path) -> LibraryEntry | None:
        """One plan's entry (``path``: a plan file of the workspace, resolved), without
        listing the others: a code action asks on every move of the cursor."""
        info = plans.plan_file_info(path)
        if info is None or self.registry.find_plan_file(str(path)) != path:
            return None
        sessions = self.registry.sessions.values()
        owner = next(
            (
                s.id
                for s in sessions
                if s.plan_file == path
                or (
                    s.slug == info.slug
                    and s.plan_file is None
                    and path.parent == self.registry.plans_directory
                )
            ),
            None,
        )
        live = {p: StepCount(*count) for p, count in self.live_counts().items()}
        (found,) = library.list_library(
            [info],
            self.record.records(),
            pending=[s.pending.plan_file_path for s in sessions if s.pending is not None],
            planning=[s.id for s in sessions if s.modes.mode == "plan"],
            owners={info.slug: owner} if owner is not None else {},
            live=live,
        )
        return found

    def take_up(self, session: Session, path: Path) -> TakenUp:
        """Make the saved plan at ``path`` (a plan file of the workspace, resolved) the
        session's plan; InvalidParams, and nothing changed, when it cannot be."""
        entry = self.entry(path)
        if entry is None:
            raise InvalidParams(f"field 'path': {path} is not a plan of this workspace")
        if entry.agent_id is not None:
            raise InvalidParams(f"field 'path': {path.name} is a subagent's plan")
        if entry.status not in TAKEN_UP_FROM:
            raise InvalidParams(
                f"field 'path': {path.name} is {entry.status}, not saved: only a saved or "
                "rejected plan is taken up"
            )
        if session.pending is not None:
            raise InvalidParams(
                f"field 'sessionId': session {session.id} has a plan under review; decide it first"
            )
        text = self.registry.read_text(path)
        if text is None:
            raise InvalidParams(f"field 'path': {path} cannot be read")
        registry = self.registry
        current = registry.plan_path(session)
        if session.plan_file is None and current != path and path.parent == current.parent:
            # Its plan file is named by its slug: the saved file becomes it, history and all.
            for other in registry.sessions.values():
                if other is not session and other.slug == path.stem and other.plan_file is None:
                    other.slug = None  # a fresh plan the next time it plans
                    registry.save(other)
            session.slug = path.stem
            registry.save(session)
            current = path
        elif current != path:
            plans.write_plan(current, text)
            self.review.history.record(current, text, "user", f"taken up from {path}")
        if session.modes.mode != "plan":
            self.planning.set_mode(session, "plan")
        self.review.seen[current] = text
        self.review.revised.discard(current)
        self.record.append(library.event_line(path, "resumed", session_id=session.id))
        if current != path:
            self.record.append(library.event_line(current, "resumed", session_id=session.id))
        registry.snapshot(session, current, text)
        taken = TakenUp(current, path)
        self._untold[session.id] = self._taken[session.id] = taken
        return taken

    def follow_plan_file(self, session: Session) -> None:
        """The session's plan file may have changed (its agent named its own): a plan it took
        up goes along, into a file that holds no plan yet; one the agent already wrote is kept,
        and the user told in the log."""
        taken = self._taken.get(session.id)
        if taken is None or session.pending is not None:
            self._taken.pop(session.id, None)
            return
        current = self.registry.plan_path(session)
        if current == taken.plan_file:
            return
        del self._taken[session.id]
        text = self.registry.read_text(taken.plan_file)
        if text is None or (self.registry.read_text(current) or "").strip():
            log.warning(
                "session %s: %s was taken up, but %s holds a plan",
                session.id,
                taken.taken_from,
                current,
            )
            return
        plans.write_plan(current, text)
        self.review.history.record(current, text, "user", f"taken up from {taken.taken_from}")
        self.review.seen[current] = text
        self.record.append(library.event_line(current, "resumed", session_id=session.id))
        moved = TakenUp(current, taken.taken_from)
        if session.id in self._untold:
            self._untold[session.id] = moved

    def announcement(self, session: Session) -> attachments.Attachment | None:
        """Once after a take-up, the attachment that tells the model (its next turn)."""
        taken = self._untold.pop(session.id, None)
        if taken is None:
            return None
        return attachments.Attachment(
            type=TAKEN_UP,
            plan_file_path=str(taken.plan_file),
            plan_exists=taken.plan_file.exists(),
            text=prompts.taken_up_text(str(taken.plan_file), str(taken.taken_from)),
        )
