"""The plan library: every plan of the workspace with its status, and the record behind it.

docs/protocol.md §12.3. A plan's **status** follows from what the server knows of it
(:func:`plan_status`), in this order:

1. an approval waits on it → ``underReview``;
2. no decision was ever made on it (or it was taken up again since) → ``drafting``;
3. its session plans again and the file changed after the last decision (a grace of
   :data:`CHANGED_GRACE` seconds: approving writes the approved text back) → ``drafting``;
4. approved → ``done`` when every step is done (a plan with steps), else ``executing`` — also
   when its session has moved on with steps left: the library shows how far it got;
5. rejected → ``rejected``; saved for later → ``saved``.

``progress`` (``{done, total}``) comes with ``executing`` and ``done``: the live progress
when the server holds it, else the last one recorded.

**The record** of decisions is one JSON Lines file, ``<root>/.claude/plan-mode/library.jsonl``
(appended under a lock, never through a symlink: :mod:`planmode.core.state_dir`), one event a
line: ``{plan, event, at, sessionId?, agent?, approvalId?, done?, total?}`` with ``event`` one
of ``approved``, ``rejected``, ``saved``, ``resumed`` (a saved plan taken up again) and
``progress`` (a new ``done``/``total`` for the approval named). Folding the lines in order
gives each plan's :class:`PlanRecord`; a line that is not such an event is skipped. Lines
are appended only when a decision is made or the number of steps done changes, so the file
stays small, and it is read again only when its size changed.

:func:`list_library` joins the plan files with their records: 10,000 plans list in well under a
second (``tests/unit/test_library.py`` prints the time).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from planmode.core import prompts
from planmode.core.approval import now_iso
from planmode.core.plans import PlanFileInfo
from planmode.core.state_dir import STATE, StatePlace

log = logging.getLogger(__name__)

PlanStatus = Literal["drafting", "underReview", "executing", "done", "rejected", "saved"]
PLAN_STATUSES: tuple[PlanStatus, ...] = (
    "drafting",
    "underReview",
    "executing",
    "done",
    "rejected",
    "saved",
)
Decided = Literal["approved", "rejected", "saved"]
DECISIONS: tuple[Decided, ...] = ("approved", "rejected", "saved")
EVENTS = (*DECISIONS, "resumed", "progress")
CHANGED_GRACE = 2.0
LEDGER = "library.jsonl"
_MAX_FIELD = 4_096


def saved_tool_result(
    plan_file: Path | str, exit_tool: str = prompts.EXIT_TOOL, submit_plan: str | None = None
) -> str:
    """What the agent reads when the user saves its plan for later (``toolResult``): the text
    is :func:`planmode.core.prompts.saved_result`, naming the agent's own exit."""
    return prompts.saved_result(str(plan_file), exit_tool, submit_plan)


@dataclass(frozen=True)
class StepCount:
    done: int
    total: int

    @property
    def complete(self) -> bool:
        return self.total > 0 and self.done == self.total


@dataclass(frozen=True)
class PlanRecord:
    """What the record says of one plan: its last decision, by whom, and how far it got."""

    path: str
    decision: Decided | None = None
    decided_at: str | None = None
    session_id: str | None = None
    agent: str | None = None
    approval_id: str | None = None
    progress: StepCount | None = None
    first_seen: str | None = None


@dataclass(frozen=True)
class PlanFacts:
    """What the server knows of a plan now, beside its record."""

    pending: bool = False
    record: PlanRecord | None = None
    modified: float | None = None  # the plan file's mtime (seconds since the epoch)
    planning: bool = False  # the session that owns it is in plan mode
    live: StepCount | None = None  # the progress of the session executing it, if loaded


def _epoch(iso: str | None) -> float | None:
    if iso is None:
        return None
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def plan_status(facts: PlanFacts) -> tuple[PlanStatus, StepCount | None]:
    """A plan's status and, executing or done, its progress (the module's rules)."""
    if facts.pending:
        return "underReview", None
    record = facts.record
    if record is None or record.decision is None:
        return "drafting", None
    decided = _epoch(record.decided_at)
    if (
        facts.planning
        and facts.modified is not None
        and decided is not None
        and facts.modified > decided + CHANGED_GRACE
    ):
        return "drafting", None
    if record.decision == "approved":
        count = facts.live or record.progress or StepCount(0, 0)
        return ("done" if count.complete else "executing"), count
    return record.decision, None


# -- the record ------------------------------------------------------------------------------


def _field(line: Mapping[str, Any], key: str) -> str | None:
    value = line.get(key)
    return value if isinstance(value, str) and 0 < len(value) <= _MAX_FIELD else None


def _count(line: Mapping[str, Any]) -> StepCount | None:
    done, total = line.get("done"), line.get("total")
    if (
        isinstance(done, int)
        and isinstance(total, int)
        and not isinstance(done, bool)
        and not isinstance(total, bool)
        and 0 <= done <= total <= 1_000_000
    ):
        return StepCount(done, total)
    return None


def fold(
    lines: Iterable[object], into: dict[str, PlanRecord] | None = None
) -> dict[str, PlanRecord]:
    """Plan path -> its record, from the record's lines in order (bad lines skipped)."""
    records = {} if into is None else into
    for line in lines:
        if not isinstance(line, Mapping):
            continue
        path, event, at = _field(line, "plan"), line.get("event"), _field(line, "at")
        if path is None or event not in EVENTS or at is None:
            continue
        before = records.get(path) or PlanRecord(path, first_seen=at)
        if event == "progress":
            count = _count(line)
            if count is not None and before.approval_id == _field(line, "approvalId"):
                records[path] = replace(before, progress=count)
            continue
        decision: Decided | None = next((d for d in DECISIONS if d == event), None)
        records[path] = replace(
            before,
            decision=decision,
            decided_at=at,
            session_id=_field(line, "sessionId"),
            agent=_field(line, "agent"),
            approval_id=_field(line, "approvalId"),
            progress=_count(line) if decision == "approved" else None,
        )
    return records


def event_line(
    plan_file: Path | str,
    event: str,
    *,
    session_id: str | None = None,
    agent: str | None = None,
    approval_id: str | None = None,
    progress: StepCount | None = None,
    at: str | None = None,
) -> dict[str, Any]:
    """One line of the record; ValueError for an event that is not one."""
    if event not in EVENTS:
        raise ValueError(f"event must be one of {', '.join(EVENTS)}, not {event!r}")
    line: dict[str, Any] = {"plan": str(plan_file), "event": event, "at": at or now_iso()}
    for key, value in (("sessionId", session_id), ("agent", agent), ("approvalId", approval_id)):
        if value is not None:
            line[key] = value
    if progress is not None:
        line.update(done=progress.done, total=progress.total)
    return line


class LibraryRecord:
    """The record file of a workspace, folded in memory and read again only when it grew
    (another server of the workspace appended to it)."""

    def __init__(self, root: Path | StatePlace) -> None:
        self.state = StatePlace.of(root, STATE)
        self._records: dict[str, PlanRecord] = {}
        self._size: int | None = None

    def _current_size(self) -> int:
        try:
            return os.stat(self.state.path(LEDGER)).st_size
        except OSError:
            return 0

    def records(self) -> dict[str, PlanRecord]:
        """Plan path -> record."""
        size = self._current_size()
        if size != self._size:
            try:
                lines = self.state.read_lines(LEDGER)
            except OSError as exc:
                log.warning("the plan library's record cannot be read: %s", exc)
                lines = []
            self._records = fold(lines)
            self._size = size
        return self._records

    def append(self, line: dict[str, Any]) -> PlanRecord:
        """Append one event (see :func:`event_line`); the plan's record after it."""
        self.records()
        self.state.append_line(LEDGER, line)
        fold([line], self._records)
        self._size = self._current_size()
        return self._records[line["plan"]]

    def progress_changed(self, plan_file: Path | str, approval_id: str, count: StepCount) -> bool:
        """Record a new step count for the approval being carried out, when it differs from
        the one recorded; returns whether a line was appended."""
        record = self.records().get(str(plan_file))
        if record is None or record.approval_id != approval_id or record.progress == count:
            return False
        self.append(event_line(plan_file, "progress", approval_id=approval_id, progress=count))
        return True


# -- the listing -----------------------------------------------------------------------------


@dataclass(frozen=True)
class LibraryEntry:
    path: str
    slug: str
    status: PlanStatus
    modified: float
    size_bytes: int
    pending: bool
    session_id: str | None = None
    agent_id: str | None = None  # a subagent's plan (``<slug>-agent-<id>.md``)
    agent: str | None = None  # the coding agent whose session decided it, when recorded
    progress: StepCount | None = None
    decided_at: str | None = None
    first_seen: str | None = None


def list_library(
    plans: Iterable[PlanFileInfo],
    records: Mapping[str, PlanRecord],
    *,
    pending: Iterable[Path | str] = (),
    planning: Iterable[str] = (),
    owners: Mapping[str, str] | None = None,
    live: Mapping[str, StepCount] | None = None,
) -> list[LibraryEntry]:
    """Every plan with its status, newest first. ``pending``: plan paths an approval waits
    on; ``planning``: ids of the sessions in plan mode; ``owners``: slug -> session id (the
    session whose plan it is); ``live``: plan path -> the progress of the session executing
    it."""
    waiting = {str(path) for path in pending}
    in_plan_mode = set(planning)
    owners = owners or {}
    live = live or {}
    listed = []
    for info in plans:
        path = str(info.path)
        record = records.get(path)
        owner = owners.get(info.slug) or (record.session_id if record else None)
        status, count = plan_status(
            PlanFacts(
                pending=path in waiting,
                record=record,
                modified=info.modified,
                planning=owner in in_plan_mode,
                live=live.get(path),
            )
        )
        listed.append(
            LibraryEntry(
                path=path,
                slug=info.slug,
                status=status,
                modified=info.modified,
                size_bytes=info.size_bytes,
                pending=path in waiting,
                session_id=owner,
                agent_id=info.agent_id,
                agent=record.agent if record else None,
                progress=count,
                decided_at=record.decided_at if record else None,
                first_seen=record.first_seen if record else None,
            )
        )
    listed.sort(key=lambda entry: entry.modified, reverse=True)
    return listed
