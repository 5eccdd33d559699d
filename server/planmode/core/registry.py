"""The sessions of one workspace: loaded from disk or created, saved, and what each owns on
disk — its plan file (named by its slug, or adopted from the agent that names its own:
:mod:`planmode.core.agents`) and its transcript.

Settings live here too, for the two things sessions take from them: where plans are kept
(``plansDirectory``) and the allow rules every session's modes carry.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planmode.core import modes, plans, transcripts
from planmode.core.agents import NotAdoptable, PlanFileAgent, PlanFileReport
from planmode.core.approval import plan_digest
from planmode.core.errors import InvalidParams
from planmode.core.modes import PermissionMode
from planmode.core.session import CorruptSession, Session, SessionStore, is_valid_session_id
from planmode.core.settings import Settings
from planmode.core.state_dir import STATE, TEAMS, StatePlace

log = logging.getLogger(__name__)

TextReader = Callable[[Path], str | None]
# Takes a session out of plan mode, into the mode given or the one it had before planning
# (the service's, which knows the settings that decide).
LeavePlan = Callable[[Session, PermissionMode | None], modes.Transition]


@dataclass(frozen=True)
class ListedPlan:
    """A plan file as ``planMode/listPlans`` lists it (docs/protocol.md §4): with the session
    it belongs to when one is known, and whether an approval waits on it."""

    path: Path
    slug: str
    session_id: str | None
    agent_id: str | None
    modified: str  # PlanFileInfo.modified_at
    size_bytes: int
    pending: bool


class SessionRegistry:
    def __init__(
        self, root: Path, settings: Settings, agents: Sequence[PlanFileAgent] = ()
    ) -> None:
        self.root = root.resolve()
        # The agents that name their own plan files: a saved adoption is theirs to re-check.
        self.agents = tuple(agents)
        # The server's own files: never reached through a symlink (core/state_dir.py).
        self.state = StatePlace(self.root, STATE)
        self.mailboxes = StatePlace(self.root, TEAMS)
        self.store = SessionStore(self.state)
        self.sessions: dict[str, Session] = {}
        # Sessions whose saved state was unreadable; the user must hear about it once.
        self.lost_sessions: list[str] = []
        # Open editor buffers win over the disk: unsaved edits are what the user sees.
        self.open_document_text: TextReader = lambda _path: None
        # (session, plan path) -> digest of the last snapshot written to the transcript.
        self._snapshots: dict[tuple[str, Path], str] = {}
        # Session id -> why the plan file its agent reports is not adopted.
        self._not_adopted: dict[str, str] = {}
        self._state_warnings: list[str] | None = None
        self.configure(settings)

    # -- settings -------------------------------------------------------------------------
    def configure(self, settings: Settings) -> None:
        """Take new settings; the sessions' modes are the caller's to bring up to date."""
        self.settings = settings
        self._location = plans.resolve_plans_directory(self.root, settings.plansDirectory)

    @property
    def plans_directory(self) -> Path:
        return self._location.directory

    @property
    def plans_directory_warning(self) -> str | None:
        return self._location.warning

    def state_warnings(self) -> list[str]:
        """Why the server's own directories in the workspace (or a file there) are not used,
        naming where it keeps them instead; the user must hear each once. The tree is looked
        at first, and again only after a file was kept in the stand-in (a request must not
        walk every session file)."""
        places = (self.state, self.mailboxes)
        if self._state_warnings is None or any(place.redirected for place in places):
            self._state_warnings = [line for place in places for line in place.refusals()]
        return self._state_warnings

    @property
    def _usable_plans_directory(self) -> Path | None:
        """The plans directory, None when not even the default may be used."""
        return None if self._location.refused else self._location.directory

    def with_rules(self, state: modes.ModeState) -> modes.ModeState:
        """The settings' allow rules, dangerous ones held back while auto mode is active."""
        synced = replace(
            state,
            allow_rules=tuple(self.settings.permissions.allow),
            stripped_dangerous_rules=None,
        )
        return modes.strip_dangerous_rules(synced) if state.auto_mode_active else synced

    # -- sessions -------------------------------------------------------------------------
    def session(self, session_id: str, create: bool = True) -> Session | None:
        """The session named ``session_id``, loaded from disk or created on first use."""
        if not is_valid_session_id(session_id):
            raise InvalidParams(
                f"sessionId must be 1-128 letters, digits, '.', '_' or '-', got {session_id!r}"
            )
        found = self.sessions.get(session_id)
        if found is not None:
            return found
        try:
            found = self.store.load(session_id)
        except CorruptSession:
            self.lost_sessions.append(session_id)
            found = None
        if found is None and not create:
            return None
        if found is None:
            found = Session(session_id)
        elif found.plan_file is not None:
            self._check_saved_adoption(found)
        found.modes = self.with_rules(found.modes)
        self.sessions[session_id] = found
        return found

    def require_session(self, session_id: str) -> Session:
        session = self.session(session_id)
        assert session is not None
        return session

    def save(self, session: Session) -> None:
        try:
            self.store.save(session)
        except OSError as exc:
            # Still in memory, so the mode holds while this server runs; say it loudly.
            log.error("cannot save session %s: %s", session.id, exc)

    # -- plan files -----------------------------------------------------------------------
    def plan_slug(self, session: Session) -> str:
        if session.slug is None:
            taken = {s.slug for s in self.sessions.values() if s.slug}

            def exists(path: Path) -> bool:
                return path.stem in taken or path.exists()

            session.slug = plans.generate_plan_slug(self.plans_directory, exists)
            self.save(session)
        return session.slug

    def plan_path(self, session: Session, agent_id: str | None = None) -> Path:
        adopted = session.plan_file
        try:
            if adopted is not None:
                return adopted.parent / plans.plan_file_name(adopted.stem, agent_id)
            name = plans.plan_file_name(self.plan_slug(session), agent_id)
        except ValueError as exc:
            raise InvalidParams(str(exc)) from exc
        return self.plans_directory / name

    def plan_file_refusal(self, session: Session, agent_id: str | None = None) -> str | None:
        """Why the session's plan file may not be written now; None when it may: the plans
        directory is refused, the plan file its agent reports could not be adopted, or a
        symlink is on the way to it."""
        if session.plan_file is None:
            not_adopted = self._not_adopted.get(session.id)
            if not_adopted is not None:
                return not_adopted
            if self._location.refused is not None:
                return self._location.refused
        try:
            path = self.plan_path(session, agent_id)
        except InvalidParams:
            return None  # the caller reports the agentId
        return plans.plan_write_refusal(path)

    def find_plan_file(self, raw: object) -> Path | None:
        """The plan file of this workspace that ``raw`` names, resolved (the rule is
        :func:`planmode.core.plans.find_plan_file`); None when it names none."""
        return plans.find_plan_file(raw, self.root, self._usable_plans_directory, self._adopted())

    def is_plan_file(self, raw: object) -> bool:
        """A plan file of this workspace: in the plans directory, or a session's adopted one
        (or a subagent's next to it), named so that both readings of the path agree (the rule
        is :func:`planmode.core.plans.is_plan_file`)."""
        return plans.is_plan_file(raw, self.root, self._usable_plans_directory, self._adopted())

    def _adopted(self) -> Iterator[Path]:
        """The plan files sessions adopted (an agent's own, outside the plans directory)."""
        return (s.plan_file for s in self.sessions.values() if s.plan_file is not None)

    def read_plan(self, session: Session, agent_id: str | None = None) -> str | None:
        return self.read_text(self.plan_path(session, agent_id))

    def read_text(self, path: Path) -> str | None:
        buffered = self.open_document_text(path)
        return buffered if buffered is not None else plans.read_plan(path)

    def plan_files(self) -> tuple[list[plans.PlanFileInfo], dict[str, str]]:
        """Every plan file of the workspace (the plans directory's and the sessions' adopted
        ones), and slug -> the id of the session whose plan it is."""
        owners = self.store.slugs()
        owners.update({s.slug: s.id for s in self.sessions.values() if s.slug})
        adopted = {
            path: session_id
            for path, (session_id, source) in self.store.adopted().items()
            if self._still_adoptable(path, source)
        }
        adopted.update({s.plan_file: s.id for s in self.sessions.values() if s.plan_file})
        directory = self._usable_plans_directory
        found = list(plans.list_plan_files(directory)) if directory is not None else []
        found += [
            info
            for path in adopted
            if path.parent != self.plans_directory
            for info in plans.list_plan_files(path.parent)
            if info.slug == path.stem
        ]
        return found, owners

    def list_plans(self) -> list[ListedPlan]:
        found, owners = self.plan_files()
        pending = {
            s.pending.plan_file_path for s in self.sessions.values() if s.pending is not None
        }
        listed = [
            ListedPlan(
                path=info.path,
                slug=info.slug,
                session_id=owners.get(info.slug),
                agent_id=info.agent_id or None,
                modified=info.modified_at,
                size_bytes=info.size_bytes,
                pending=info.path in pending,
            )
            for info in found
        ]
        listed.sort(key=lambda p: p.modified, reverse=True)
        return listed

    # -- an agent's own plan file ----------------------------------------------------------
    def learn_plan_file(self, session: Session, report: PlanFileReport) -> str | None:
        """Adopt the plan file the agent reports for this session (docs/protocol.md §3). A
        path that may not be adopted is not: the session keeps no writable plan file until it
        is fixed. Returns what to tell the user the first time the session's file is refused;
        None otherwise."""
        if session.plan_file is not None:
            return None  # once adopted, the file stays the session's
        agent = report.agent
        try:
            found = report.plan_file(session.id)
        except NotAdoptable as exc:
            reason = f"{agent.name}'s plan file is not used ({exc})"
            if self._not_adopted.get(session.id) == reason:
                return None
            self._not_adopted[session.id] = reason
            log.warning("session %s: not adopting %s's plan file: %s", session.id, agent.name, exc)
            return (
                f"Plan mode does not use {agent.name}'s plan file for session {session.id}: "
                f"{exc}. While it plans, no file may be written."
            )
        if found is None:
            return None
        session.plan_file, session.plan_file_source = found.path, found.source
        session.slug = session.plan_file.stem
        self._not_adopted.pop(session.id, None)
        self.save(session)
        return None

    def exit_refusal(
        self, session: Session, plan_file: str | None, agent_id: str | None = None
    ) -> str | None:
        """Why an ExitPlanMode of the planning ``session`` must be refused before anything is
        written: its plan file may not be written, or its ``planFilePath`` (ExitPlanMode's
        input) names another file than the session's. None: go ahead."""
        refusal = self.plan_file_refusal(session, agent_id)
        if refusal is not None:
            return f"the plan file cannot be written: {refusal}"
        if plan_file is None:
            return None
        try:
            plan = self.plan_path(session, agent_id)
        except InvalidParams:
            return None  # the exit itself reports the agentId
        adopted_from = None
        if session.plan_file is not None:
            agent = self._adopter(session.plan_file_source)
            adopted_from = agent.named_by if agent is not None else "its agent"
        return plans.exit_path_refusal(plan_file, plan, adopted_from)

    def _adopter(self, source: str | None) -> PlanFileAgent | None:
        """The agent an adoption saved with ``source`` was learned from."""
        return next((a for a in self.agents if source and a.learned(source)), None)

    def _check_saved_adoption(self, session: Session) -> None:
        """A saved session's adopted file is checked again as if just learned (a session file
        is in the workspace, which a repository can ship); one that fails is dropped, and
        learned again from the agent's next report."""
        if session.plan_file is not None and not self._still_adoptable(
            session.plan_file, session.plan_file_source
        ):
            session.plan_file = session.plan_file_source = None

    def _still_adoptable(self, path: Path, source: str | None) -> bool:
        """Whether a saved adopted file passes its agent's check again (no agent of this
        server learned it: it does not)."""
        agent = self._adopter(source)
        if agent is None:
            log.warning("a saved plan file %s is not used: no agent here adopted it", path)
            return False
        try:
            agent.recheck(path, self.root)
        except NotAdoptable as exc:
            log.warning("a saved plan file is not used: %s", exc)
            return False
        return True

    # -- transcripts ----------------------------------------------------------------------
    def record(self, session: Session, event: dict[str, Any]) -> None:
        """Append to the session's transcript; losing a line must not fail the request."""
        try:
            transcripts.append_event(self.state, session.id, event)
        except OSError as exc:
            log.error("cannot append to the transcript of %s: %s", session.id, exc)

    def snapshot(self, session: Session, path: Path, content: str | None) -> None:
        """A file_snapshot line, unless the transcript already holds this very text."""
        if content is None:
            return
        digest = plan_digest(content)
        if self._snapshots.get((session.id, path)) == digest:
            return
        self._snapshots[(session.id, path)] = digest
        self.record(session, transcripts.file_snapshot(session.slug, path, content))
