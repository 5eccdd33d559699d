"""The plan-mode service of one workspace: sessions, their plan files, entering, exiting.

This is the whole behaviour without any transport: the LSP layer turns requests into calls
here and results into responses and notifications. Every method validates before it changes
anything, so a call that raises :class:`PlanModeError` has changed nothing.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from planmode.core import (
    attachments,
    claude_code,
    comments,
    history,
    modes,
    permissions,
    plans,
    prompts,
    review,
    shell,
    teams,
    transcripts,
    workflow,
)
from planmode.core.approval import (
    AllowedPrompt,
    Approval,
    ExitResult,
    approved_exit,
    plan_digest,
    rejected_exit,
    rejected_exit_feedback,
)
from planmode.core.history import PlanHistory
from planmode.core.modes import AutoModeSettings, PermissionMode
from planmode.core.session import CorruptSession, Session, SessionStore, is_valid_session_id
from planmode.core.settings import Settings
from planmode.sandbox import probe as sandbox_probe

log = logging.getLogger(__name__)


class PlanModeError(Exception):
    """A request that cannot be carried out; nothing was changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidParams(PlanModeError):
    pass


class NotInPlanMode(PlanModeError):
    def __init__(self) -> None:
        super().__init__(prompts.NOT_IN_PLAN_MODE)


class AgentContext(PlanModeError):
    def __init__(self) -> None:
        super().__init__("EnterPlanMode tool cannot be used in agent contexts")


class PlanModeDisabled(PlanModeError):
    def __init__(self) -> None:
        super().__init__(
            "Plan mode is disabled while channels are active: its approval could not be "
            "answered from a channel, so it could never be left."
        )


class NoPlanFile(PlanModeError):
    def __init__(self, path: Path) -> None:
        super().__init__(
            f"No plan file found at {path}. Please write your plan to this file before "
            "calling ExitPlanMode."
        )


class NoPendingApproval(PlanModeError):
    def __init__(self, detail: str) -> None:
        super().__init__(f"No pending approval {detail}")


class PlanChanged(PlanModeError):
    def __init__(self) -> None:
        super().__init__(
            "Plan changed since it was shown: review the current plan and approve it again."
        )


@dataclass(frozen=True)
class SlashResult:
    message: str
    should_query: bool = False
    # Set for ``/plan open``: the path the editor should show.
    open_path: Path | None = None


@dataclass(frozen=True)
class Decision:
    """An approved or rejected exit: what the agent gets and what to tell the user."""

    approval: Approval
    result: ExitResult
    warnings: tuple[str, ...] = ()
    # The text written back to the plan file, when it had to be.
    written: str | None = None


TextReader = Callable[[Path], str | None]


class PlanModeService:
    def __init__(self, root: Path, settings: Settings | None = None) -> None:
        self.root = root.resolve()
        self.store = SessionStore(self.root)
        self.settings = settings or Settings()
        self.sessions: dict[str, Session] = {}
        self._location = plans.resolve_plans_directory(self.root, self.settings.plansDirectory)
        # Open editor buffers win over the disk: unsaved edits are what the user sees.
        self.open_document_text: TextReader = lambda _path: None
        # Sessions whose saved state was unreadable; the user must hear about it once.
        self.lost_sessions: list[str] = []
        self.history = PlanHistory(self.root)
        # Plan path -> the text the user has seen (a pending or rejected plan): agent
        # revisions are reviewed against it hunk by hunk.
        self.seen: dict[Path, str] = {}
        # Plan paths the agent revised since the user saw them: only those are reviewed (the
        # user's own edits in the buffer are not changes to review).
        self.revised: set[Path] = set()
        # Plan paths whose last exit submitted an empty plan (an information diagnostic).
        self.empty_exits: set[Path] = set()
        # Plan path -> the review comments sent with its last rejection: shown, re-anchored,
        # while the agent revises (docs: README "Reviewing with comments").
        self.sent_comments: dict[Path, list[comments.Comment]] = {}
        # (session, plan path) -> digest of the last snapshot written to the transcript.
        self._snapshots: dict[tuple[str, Path], str] = {}
        # Teammate side: request id -> the key that authenticates the lead's answer. Memory
        # only: it never touches the disk, so nothing another process can read holds it.
        self.own_request_keys: dict[str, tuple[bytes, str]] = {}
        # Lead side: request id -> the key a teammate's server handed over for it.
        self.request_keys: dict[str, teams.RequestKey] = {}
        # Session id -> what its Claude Code transcript said so far (read on from there).
        self._transcripts: dict[str, claude_code.TranscriptFacts] = {}

    # -- settings -------------------------------------------------------------------------
    @property
    def auto(self) -> AutoModeSettings:
        return AutoModeSettings(
            gate_enabled=self.settings.autoModeGate,
            use_during_plan=self.settings.useAutoModeDuringPlan,
        )

    @property
    def plans_directory(self) -> Path:
        return self._location.directory

    @property
    def plans_directory_warning(self) -> str | None:
        return self._location.warning

    def update_settings(self, settings: Settings) -> list[Session]:
        """Apply new settings; returns the sessions whose state changed (guide §14.2)."""
        self.settings = settings
        self._location = plans.resolve_plans_directory(self.root, settings.plansDirectory)
        changed = []
        for session in self.sessions.values():
            updated = modes.transition_plan_auto_mode(self._with_rules(session.modes), self.auto)
            if updated != session.modes:
                session.modes = updated
                self._save(session)
                changed.append(session)
        return changed

    def _with_rules(self, state: modes.ModeState) -> modes.ModeState:
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
        found.modes = self._with_rules(found.modes)
        self.sessions[session_id] = found
        return found

    def require_session(self, session_id: str) -> Session:
        session = self.session(session_id)
        assert session is not None
        return session

    def _save(self, session: Session) -> None:
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
            self._save(session)
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

    def find_plan_file(self, raw: object) -> Path | None:
        """The plan file of this workspace that ``raw`` names, resolved (the rule is
        :func:`planmode.core.plans.find_plan_file`); None when it names none."""
        adopted = (s.plan_file for s in self.sessions.values() if s.plan_file is not None)
        return plans.find_plan_file(raw, self.root, self.plans_directory, adopted)

    def is_plan_path(self, raw: object) -> bool:
        """A plan file of this workspace: in the plans directory, or a session's adopted one
        (or a subagent's next to it), named so that both readings of the path agree."""
        return self.find_plan_file(raw) is not None

    # -- Claude Code's own plan file --------------------------------------------------------
    def learn_claude_code(
        self,
        session: Session,
        transcript: str | None = None,
        project: str | None = None,
        config: str | None = None,
        plan_file: str | None = None,
    ) -> None:
        """Adopt the plan file Claude Code writes for this session (docs/claude-code.md), from
        its transcript or from ExitPlanMode's ``planFilePath``. A path Claude Code would not
        write to is not adopted (logged); the session then keeps the file it had."""
        project_dir = self._project_dir(project)
        config_dir = claude_code.config_dir(config)
        facts = self._transcripts.get(session.id, claude_code.TranscriptFacts())
        if transcript is not None and session.plan_file is None:
            path = Path(transcript)
            if not path.is_absolute() or path.suffix != ".jsonl":
                raise InvalidParams(f"field 'transcriptPath': {transcript!r} is no transcript")
            facts = claude_code.read_transcript(path, facts)
            self._transcripts[session.id] = facts
        try:
            if plan_file is not None:
                found: Path | None = claude_code.check_adoptable(plan_file, project_dir, config_dir)
                slug = facts.slug
                if found is not None and slug is not None and found.stem != slug:
                    raise claude_code.NotAdoptable(
                        f"{plan_file} does not carry the transcript's slug {slug!r}"
                    )
            elif session.plan_file is None:
                setting = claude_code.plans_directory_setting(
                    claude_code.settings_files(project_dir, config_dir)
                )
                found = claude_code.adopted_plan_file(facts, project_dir, config_dir, setting)
            else:
                found = None
        except claude_code.NotAdoptable as exc:
            log.warning("session %s: not adopting Claude Code's plan file: %s", session.id, exc)
            return
        if found is None or found == session.plan_file:
            return
        session.plan_file = found
        session.slug = found.stem
        self._save(session)

    def _project_dir(self, raw: str | None) -> Path:
        """Claude Code's project root: the given directory when it is this workspace or inside
        it, else the workspace root."""
        if raw and os.path.isabs(raw):
            candidate = Path(os.path.normpath(raw))
            real = Path(os.path.realpath(candidate))
            if real == self.root or real.is_relative_to(self.root):
                return candidate
        return self.root

    def read_plan(self, session: Session, agent_id: str | None = None) -> str | None:
        return self.read_text(self.plan_path(session, agent_id))

    def read_text(self, path: Path) -> str | None:
        buffered = self.open_document_text(path)
        return buffered if buffered is not None else plans.read_plan(path)

    # -- state ----------------------------------------------------------------------------
    def state(self, session: Session) -> dict[str, Any]:
        """The wire ``SessionState`` of docs/protocol.md §2."""
        path = self.plan_path(session)
        return {
            "sessionId": session.id,
            "mode": session.modes.mode,
            "prePlanMode": session.modes.pre_plan_mode if session.modes.mode == "plan" else None,
            "planSlug": self.plan_slug(session),
            "planFilePath": str(path),
            "planExists": self.read_text(path) is not None,
            "hasExitedPlanMode": session.modes.has_exited_plan_mode,
            "needsPlanModeExitAttachment": session.modes.needs_plan_mode_exit_attachment,
            "autoModeActive": session.modes.auto_mode_active,
            "pendingApproval": session.pending.to_wire() if session.pending else None,
            "grantedPrompts": [p.to_wire() for p in session.granted_prompts],
            "sandbox": {
                **self.sandbox.to_wire(),
                "required": self.settings.requireSandbox,
            },
        }

    def set_mode(self, session: Session, mode: PermissionMode) -> tuple[str, ...]:
        if mode == "auto" and not self.settings.autoModeGate:
            raise InvalidParams("mode 'auto' is not available: the autoModeGate setting is off")
        if mode == "plan" and session.modes.mode != "plan" and self.settings.channelsActive:
            raise PlanModeDisabled()
        transition = modes.set_mode(session.modes, mode, self.auto)
        self._apply(session, transition.state)
        return transition.warnings

    def enter(self, session: Session, agent_id: str | None = None) -> str:
        """EnterPlanMode (guide §9): returns the tool_result text."""
        if agent_id is not None:
            raise AgentContext()
        if self.settings.channelsActive:
            raise PlanModeDisabled()
        self._apply(session, modes.enter_plan_mode(session.modes, self.auto))
        return prompts.enter_tool_result(self.settings.interviewPhase)

    def slash_command(
        self, session: Session, args: str, editor_name: str | None = None
    ) -> SlashResult:
        """``/plan [open|<description>]`` (guide §6); ``editor_name`` can open the plan."""
        if session.modes.mode != "plan":
            self._apply(session, modes.enter_plan_mode(session.modes, self.auto))
            description = args.strip()
            return SlashResult(
                prompts.ENABLED_PLAN_MODE, should_query=bool(description and description != "open")
            )
        path = self.plan_path(session)
        content = self.read_text(path)
        if not content:
            return SlashResult(prompts.ALREADY_IN_PLAN_MODE_NO_PLAN)
        words = args.split()
        if words and words[0] == "open":
            return SlashResult("", open_path=path)
        return SlashResult(prompts.plan_display(content, str(path), editor_name))

    def _record(self, session: Session, event: dict[str, Any]) -> None:
        """Append to the session's transcript; losing a line must not fail the request."""
        try:
            transcripts.append_event(self.root, session.id, event)
        except OSError as exc:
            log.error("cannot append to the transcript of %s: %s", session.id, exc)

    def _snapshot(self, session: Session, path: Path, content: str | None) -> None:
        """A file_snapshot line, unless the transcript already holds this very text."""
        if content is None:
            return
        digest = plan_digest(content)
        if self._snapshots.get((session.id, path)) == digest:
            return
        self._snapshots[(session.id, path)] = digest
        self._record(session, transcripts.file_snapshot(session.slug, path, content))

    def _apply(self, session: Session, new_modes: modes.ModeState) -> None:
        if new_modes.mode != session.modes.mode:
            slug = self.plan_slug(session)  # every line carries the slug, for resume
            self._record(session, transcripts.mode_change(slug, session.modes.mode, new_modes.mode))
        if new_modes != session.modes:
            if session.modes.mode == "plan" and new_modes.mode != "plan":
                # Leaving plan mode by any road ends what was pending in it.
                session.pending = None
            if session.modes.mode != "plan" and new_modes.mode == "plan":
                # Grants came with the last approved plan; a new plan starts without them.
                session.granted_prompts = ()
                session.turns = {
                    k: attachments.on_plan_entered(c) for k, c in session.turns.items()
                }
            if session.modes.mode == "plan" and new_modes.mode != "plan":
                session.turns = {}
                # No plan under review any more: its revisions need no Keep/Undo lenses.
                if session.slug is not None:
                    main_plan = self.plan_path(session)
                    self.seen.pop(main_plan, None)
                    self.revised.discard(main_plan)
            session.modes = new_modes
            self._save(session)

    # -- enforcement ----------------------------------------------------------------------
    def check_tool(
        self,
        session: Session,
        tool: str,
        tool_input: dict[str, Any],
        agent_id: str | None = None,
        hide: Sequence[str] = (),
    ) -> permissions.Decision:
        """``planMode/checkTool``: the permission table for this session (docs/protocol.md §6). An
        allowed Bash command while planning also says how to run it in the OS sandbox
        (``hide``: directories the sandbox covers, the agent endpoint's)."""
        rules = self.settings.permissions
        context = permissions.ToolContext(
            mode=session.modes.mode,
            root=self.root,
            plan_file=self.plan_path(session, agent_id),
            agent_id=agent_id,
            is_teammate=self.settings.teammate is not None,
            channels_active=self.settings.channelsActive,
            allow_rules=session.modes.allow_rules,
            deny_rules=tuple(rules.deny),
            ask_rules=tuple(rules.ask),
            granted_prompts=session.granted_prompts,
            plan_adopted=session.plan_file is not None,
        )
        decision = permissions.decide(tool, tool_input, context)
        if tool == "Bash" and context.mode == "plan" and decision.behavior == "allow":
            return self._sandboxed(decision, str(tool_input.get("command")), hide)
        return decision

    @property
    def sandbox(self) -> sandbox_probe.Availability:
        """The OS sandbox planning Bash runs in (found once per process; docs/sandbox.md)."""
        return sandbox_probe.detect_once()

    def _sandboxed(
        self, decision: permissions.Decision, command: str, hide: Sequence[str]
    ) -> permissions.Decision:
        """An allowed planning Bash command carries how to run it in the sandbox; without
        one, ``requireSandbox`` turns the allow into a deny."""
        available = self.sandbox
        # git opens only the workspace's own repository, with the settings that run programs
        # neutralised (a committed bare or vendored repository's config never runs).
        wrapped = available.wrap(command, hide, shell.git_environment_for(self.root))
        if wrapped is not None:
            sandbox = {**wrapped.to_wire(), "required": self.settings.requireSandbox}
            return replace(decision, sandbox=sandbox)
        if self.settings.requireSandbox:
            return permissions.deny(
                "requireSandbox",
                f"no OS sandbox works here ({available.detail}), so Bash is denied while planning",
                permissions.RULE_PLAN_BASH,
            )
        return decision

    # -- turns ----------------------------------------------------------------------------
    def workflow_options(self) -> workflow.WorkflowOptions:
        return workflow.WorkflowOptions(
            explore_agents=self.settings.exploreAgentCount,
            plan_agents=self.settings.planAgentCount,
            interview=self.settings.interviewPhase,
            plan_format=self.settings.planFormat,
        )

    def next_turn(
        self, session: Session, agent_id: str | None = None
    ) -> tuple[tuple[attachments.Attachment, ...], teams.LeaderResponse | None]:
        """``planMode/nextTurn``: one human turn's attachments (docs/protocol.md §5.3), and the
        lead's answer to a teammate's plan when it arrived since the last turn."""
        response = self.take_leader_response(session) if agent_id is None else None
        path = self.plan_path(session, agent_id)
        key = agent_id or ""
        counter = session.turns.get(key, attachments.TurnCounter())
        modes_in = session.modes
        if agent_id is not None:
            # A subagent neither consumes the conversation's exit flag nor re-enters.
            modes_in = replace(
                modes_in, needs_plan_mode_exit_attachment=False, has_exited_plan_mode=False
            )
        result = attachments.next_turn(
            modes_in,
            counter,
            str(path),
            lambda: self.read_text(path),
            self.workflow_options(),
            is_sub_agent=agent_id is not None,
        )
        if agent_id is None:
            session.modes = result.modes
        session.turns = {**session.turns, key: result.counter}
        self._save(session)
        return result.attachments, response

    def end_session(self, session: Session) -> Approval | None:
        """The conversation is over: what its last plan granted ends with it (Claude Code
        #27160). Plan mode itself is kept, for a resume. Returns a pending approval to answer."""
        pending = session.pending
        session.pending = None
        session.granted_prompts = ()
        self._save(session)
        self._record(session, transcripts.decision(session.slug, "session_ended"))
        return pending

    # -- exit and approval ----------------------------------------------------------------
    def exit_as_teammate(
        self,
        session: Session,
        agent_id: str | None = None,
        plan: str | None = None,
    ) -> ExitResult | None:
        """ExitPlanMode for a teammate (guide §10.7, §15); None when this is no teammate.

        A teammate whose plan mode is required submits its plan to the lead's inbox and stays
        in plan mode until the answer arrives (see :meth:`next_turn`); a voluntary one exits
        at once, without approval.
        """
        teammate = self.settings.teammate
        if teammate is None:
            return None
        path = self.plan_path(session, agent_id)
        try:  # validate the names before anything is written
            teams.inbox_path(self.root, teammate.teamName, teammate.agentName)
        except ValueError as exc:
            raise InvalidParams(f"teammate setting: {exc}") from exc
        content = plan if plan is not None else self.read_text(path)
        if teammate.planModeRequired and (not content or not content.strip()):
            raise NoPlanFile(path)
        if plan is not None:
            plans.write_atomic(path, plan)
        if teammate.planModeRequired:
            request_id = teams.submit_plan(
                self.root, teammate.teamName, teammate.agentName, path, content or ""
            )
            self.own_request_keys[request_id] = (
                teams.new_request_key(),
                plan_digest(content or ""),
            )
            session.awaiting_request = request_id
            self._save(session)
            self._record(session, transcripts.exit_call(session.slug, plan))
            self._snapshot(session, path, content)
            return ExitResult(
                outcome="awaitingLeaderApproval",
                file_path=str(path),
                plan=content,
                is_agent=True,
                plan_was_edited=plan is not None,
                request_id=request_id,
                tool_result=prompts.teammate_waiting_result(str(path), request_id),
            )
        transition = modes.exit_plan_mode(session.modes, self.auto)
        self._apply(session, transition.state)
        approval = Approval(session.id, path, content or "", agent_id, plan_given=plan is not None)
        return approved_exit(approval, content, transition.state.mode)

    def take_leader_response(self, session: Session) -> teams.LeaderResponse | None:
        """Apply the lead's answer to this teammate's request once it has arrived."""
        teammate = self.settings.teammate
        if teammate is None or session.awaiting_request is None:
            return None
        held = self.own_request_keys.get(session.awaiting_request)
        if held is None:
            # Submitted by an earlier run of this server: its key died with it, so no answer
            # can be authenticated. The teammate keeps planning and submits again.
            lost = teams.LeaderResponse(
                session.awaiting_request, False, prompts.TEAMMATE_KEY_LOST_FEEDBACK
            )
            session.awaiting_request = None
            self._save(session)
            return lost
        response = teams.find_response(
            self.root, teammate.teamName, teammate.agentName, session.awaiting_request, held[0]
        )
        if response is None:
            return None
        self.own_request_keys.pop(session.awaiting_request, None)
        session.awaiting_request = None
        if response.approved:
            chosen = response.permission_mode
            target = chosen if chosen in modes.PERMISSION_MODES and chosen != "plan" else None
            transition = modes.exit_plan_mode(session.modes, self.auto, chosen=target)
            self._apply(session, transition.state)
        self._save(session)
        return response

    def answer_teammate(
        self,
        request_id: str,
        approved: bool,
        feedback: str | None = None,
        mode: PermissionMode | None = None,
        plan_sha256: str | None = None,
        include_comments: bool = False,
    ) -> teams.PendingRequest:
        """The lead approves or rejects a teammate's plan (its request id is the approvalId).

        The approved plan is written without review comments; a rejection with
        ``include_comments`` sends them, each with its anchor, in the feedback."""
        request = next((r for r in self.teammate_requests() if r.request_id == request_id), None)
        if request is None:
            raise NoPendingApproval(f"with approvalId {request_id!r}")
        if mode is not None and mode not in teams.ANSWER_MODES:
            raise InvalidParams(
                f"mode: a teammate's plan is approved into default or acceptEdits only, "
                f"not {mode!r}"
            )
        current = self.read_text(request.plan_file_path)
        if current is None:
            current = request.plan
        if plan_sha256 is not None and plan_sha256.lower() != plan_digest(current):
            raise PlanChanged()
        if not approved and include_comments:
            found = tuple(comments.delivered(comments.parse(current)))
            feedback = rejected_exit_feedback(feedback, found)
        current = comments.strip_comments(current)
        if approved and current != (plans.read_plan(request.plan_file_path) or ""):
            # The path comes from a mailbox file: write only to a plan file of this workspace.
            target = self.find_plan_file(request.plan_file_path)
            if target is None:
                raise InvalidParams(
                    f"approvalId {request_id!r}: its planFilePath {request.plan_file_path} is "
                    f"not a plan file in {self.plans_directory}; it cannot be written"
                )
            plans.write_atomic(target, current)
        teams.answer_request(
            self.root,
            request.team,
            request.agent,
            request_id,
            approved,
            self.request_keys[request_id].key,
            feedback,
            mode,
        )
        return request

    def teammate_requests(self) -> list[teams.PendingRequest]:
        """Teammates' requests this lead can answer: their servers gave the key."""
        return teams.pending_requests(self.root, self.request_keys)

    def own_request_key(self, session: Session) -> tuple[str, bytes, str] | None:
        """Teammate side: (request id, key, plan digest) of the request this session awaits
        an answer to, for handing to the lead's server; None when there is none."""
        request_id = session.awaiting_request
        held = self.own_request_keys.get(request_id) if request_id else None
        if self.settings.teammate is None or request_id is None or held is None:
            return None
        return request_id, held[0], held[1]

    def receive_request_key(
        self, request_id: str, key: bytes, plan_sha256: str, team: str, agent: str
    ) -> None:
        """Lead side: a teammate's server hands over the key of its request. The first key
        for an id stays; another one for it is refused (InvalidParams)."""
        if self.settings.teammate is not None:
            raise InvalidParams("this server is a teammate's, not the lead's")
        if len(key) != teams.KEY_BYTES:
            raise InvalidParams(f"key: {teams.KEY_BYTES} bytes expected")
        held = self.request_keys.get(request_id)
        given = teams.RequestKey(key, plan_sha256.lower(), team, agent)
        if held is not None and held != given:
            raise InvalidParams(f"a different key for {request_id!r} is already held")
        self.request_keys[request_id] = given

    def begin_exit(
        self,
        session: Session,
        agent_id: str | None = None,
        plan: str | None = None,
        allowed_prompts: tuple[AllowedPrompt, ...] = (),
        write: bool = True,
    ) -> tuple[Approval, Approval | None]:
        """Validate an ExitPlanMode call and make its approval pending.

        Returns the new approval and the one it replaced, if any (that one must be answered
        as rejected). ``plan`` is written to the plan file first (guide §10.6) unless
        ``write`` is false: the caller writes it (a plan open in the editor).
        """
        if session.modes.mode != "plan":
            raise NotInPlanMode()
        path = self.plan_path(session, agent_id)
        if plan is not None and write:
            plans.write_atomic(path, plan)
        submitted = plan if plan is not None else (self.read_text(path) or "")
        approval = Approval(
            session_id=session.id,
            plan_file_path=path,
            submitted_plan=submitted,
            agent_id=agent_id,
            allowed_prompts=allowed_prompts,
            plan_given=plan is not None,
        )
        replaced = session.pending
        session.pending = approval
        self._keep_revision(path, submitted, "agent", "submitted for approval")
        # After a rejection the user has seen the rejected text: show what changed since.
        if path not in self.seen:
            self.seen[path] = submitted
            self.revised.discard(path)
        elif submitted != self.seen[path]:
            self.revised.add(path)
        if submitted.strip():
            self.empty_exits.discard(path)
        else:
            self.empty_exits.add(path)
        self._record(session, transcripts.exit_call(session.slug, plan))
        self._snapshot(session, path, submitted)
        return approval, replaced

    def find_pending(self, approval_id: str, session_id: str | None = None) -> Session:
        """The session whose pending approval is ``approval_id``."""
        if session_id is not None:
            session = self.session(session_id, create=False)
            if session is None:
                raise NoPendingApproval(f"(unknown session {session_id!r})")
            candidates = [session]
        else:
            candidates = list(self.sessions.values())
        for session in candidates:
            if session.pending is not None and session.pending.approval_id == approval_id:
                return session
        raise NoPendingApproval(f"with approvalId {approval_id!r}")

    def current_plan(self, approval: Approval) -> str:
        return self.read_text(approval.plan_file_path) or ""

    def approve(
        self,
        approval_id: str,
        session_id: str | None = None,
        mode: PermissionMode | None = None,
        plan_sha256: str | None = None,
        include_comments: bool = False,
    ) -> Decision:
        """Approve the plan as the file holds it now, and restore the session's mode.

        Review comments are never part of the approved plan; with ``include_comments`` they
        reach the agent as notes."""
        if mode == "plan":
            raise InvalidParams("mode must be a mode to return to, not 'plan'")
        session = self.find_pending(approval_id, session_id)
        approval = session.pending
        assert approval is not None
        reviewed = self.current_plan(approval)
        if plan_sha256 is not None and plan_sha256.lower() != plan_digest(reviewed):
            raise PlanChanged()
        notes = self._comments_to_deliver(approval, reviewed, include_comments, "approved")
        current = comments.strip_comments(reviewed)
        written = None
        if current != (plans.read_plan(approval.plan_file_path) or ""):
            plans.write_atomic(approval.plan_file_path, current)
            written = current
        if current != approval.submitted_plan:
            self._keep_revision(approval.plan_file_path, current, "user", "edited at approval")
        self.seen.pop(approval.plan_file_path, None)
        self.revised.discard(approval.plan_file_path)
        warnings: tuple[str, ...] = ()
        restored: PermissionMode | None = None
        if approval.agent_id is None:
            # A subagent's plan is approved without taking the whole session out of plan.
            transition = modes.exit_plan_mode(session.modes, self.auto, chosen=mode)
            warnings = transition.warnings
            restored = transition.state.mode
            self._apply(session, transition.state)
            session.granted_prompts = _merge_prompts(
                session.granted_prompts, approval.allowed_prompts
            )
        session.pending = None
        self._save(session)
        self._record(session, transcripts.decision(session.slug, "approved"))
        self._snapshot(session, approval.plan_file_path, current)
        self.sent_comments.pop(approval.plan_file_path, None)
        submitted = comments.strip_comments(approval.submitted_plan)
        result = replace(
            approved_exit(approval, current, restored, notes, submitted), chosen_mode=mode
        )
        return Decision(approval, result, warnings, written)

    def reject(
        self,
        approval_id: str,
        session_id: str | None = None,
        feedback: str | None = None,
        include_comments: bool = False,
    ) -> Decision:
        """Reject the pending plan with ``feedback`` and, with ``include_comments``, the
        review comments written in it; plan mode stays."""
        session = self.find_pending(approval_id, session_id)
        approval = session.pending
        assert approval is not None
        reviewed = self.current_plan(approval)
        sent = self._comments_to_deliver(approval, reviewed, include_comments, "rejected")
        session.pending = None
        # The comments go to the agent and are shown on their own, re-anchored: the revision
        # is reviewed against the plan without them.
        self.seen[approval.plan_file_path] = comments.strip_comments(reviewed)
        self.revised.discard(approval.plan_file_path)
        if sent:
            self.sent_comments[approval.plan_file_path] = list(sent)
        result = rejected_exit(approval, feedback, sent)
        self._record(session, transcripts.decision(session.slug, "rejected", result.feedback))
        return Decision(approval, result)

    def _comments_to_deliver(
        self, approval: Approval, reviewed: str, include: bool, outcome: str
    ) -> tuple[comments.Comment, ...]:
        """The comments written in the plan the user decided on, kept in its history."""
        if not include:
            return ()
        found = tuple(comments.delivered(self.comment_view(approval.plan_file_path, reviewed)[0]))
        if found:
            count = f"{len(found)} comment{'s' if len(found) != 1 else ''}"
            self._keep_revision(
                approval.plan_file_path, reviewed, "user", f"{outcome} with {count}", found
            )
        return found

    def comment_view(
        self, path: Path, text: str | None = None
    ) -> tuple[list[comments.Comment], list[comments.Comment]]:
        """The comments written in the plan (outdated when the text they annotated changed
        since they were sent) and those sent with the last rejection that the plan no longer
        holds, re-anchored in its current text."""
        if text is None:
            text = self.read_text(path) or ""
        return comments.live_and_earlier(text, self.sent_comments.get(path, []))

    def cancel(self, approval: Approval) -> bool:
        """Drop a pending approval whose request went away; the session stays in plan."""
        session = self.sessions.get(approval.session_id)
        if session is None or session.pending is None:
            return False
        if session.pending.approval_id != approval.approval_id:
            return False
        session.pending = None
        return True

    # -- resume and fork ------------------------------------------------------------------
    def _transcript(self, raw: str) -> list[dict[str, Any]]:
        path = Path(os.path.expanduser(raw))
        path = path if path.is_absolute() else self.root / path
        try:
            return transcripts.load(path)
        except FileNotFoundError:
            raise InvalidParams(f"field 'transcript': no transcript at {path}") from None
        except OSError as exc:
            raise InvalidParams(f"field 'transcript': cannot read {path}: {exc}") from exc

    def resume(self, session: Session, transcript: str, remote: bool = False) -> tuple[bool, Path]:
        """copyPlanForResume (guide §7.7): adopt the transcript's slug, then find its plan.

        Locally only the file on disk counts; a remote session (whose disk may be gone)
        recovers the plan from the transcript's layers and writes it back.
        """
        lines = self._transcript(transcript)
        slug = _transcript_slug(lines)
        if slug is None:
            return False, self.plan_path(session)
        if session.slug != slug:
            session.slug = slug
        if transcripts.exited_plan_mode(lines):
            session.modes = replace(session.modes, has_exited_plan_mode=True)
        self._save(session)
        path = self.plan_path(session)
        found = transcripts.recover_plan(lines, self.read_text(path), use_transcript=remote)
        if found is None:
            return False, path
        if found.layer != "file":
            plans.write_atomic(path, found.content)
            self._snapshot(session, path, found.content)
        return True, path

    def fork(self, session: Session, transcript: str) -> tuple[bool, Path]:
        """copyPlanForFork (guide §7.8): a new slug, the original plan copied to it."""
        lines = self._transcript(transcript)
        original = _transcript_slug(lines)
        # Always a fresh slug when there is a plan to copy: reusing the session's own slug
        # would copy the original over whatever plan that session already has.
        if session.slug is None or original is not None:
            session.slug = None
            session.slug = plans.generate_plan_slug(
                self.plans_directory,
                lambda p: p.exists() or p.stem == original,
            )
            self._save(session)
        path = self.plan_path(session)
        if original is None:
            return False, path
        source = self.plans_directory / plans.plan_file_name(original)
        found = transcripts.recover_plan(lines, self.read_text(source))
        if found is None:
            return False, path
        plans.write_atomic(path, found.content)
        self._snapshot(session, path, found.content)
        return True, path

    # -- revisions and review -------------------------------------------------------------
    def _keep_revision(
        self,
        path: Path,
        text: str,
        author: history.Author,
        reason: str,
        review_comments: tuple[comments.Comment, ...] = (),
    ) -> None:
        try:
            self.history.record(path, text, author, reason, review_comments)
        except OSError as exc:
            log.error("cannot record a revision of %s: %s", path, exc)

    def pending_for(self, path: Path) -> Session | None:
        return next(
            (s for s in self.sessions.values() if s.pending and s.pending.plan_file_path == path),
            None,
        )

    def agent_edited(self, path: Path, text: str, reason: str) -> None:
        """An agent's edit of a plan file went through: keep it, and make it the text under
        approval (so it is not mistaken for the user's edit)."""
        self._keep_revision(path, text, "agent", reason)
        if path in self.seen:
            self.revised.add(path)
        session = self.pending_for(path)
        if session is not None and session.pending is not None:
            session.pending = replace(session.pending, submitted_plan=text)

    def hunks(self, path: Path) -> list[review.Hunk]:
        """Unreviewed changes of a plan the user has seen (none when there is no review)."""
        seen = self.seen.get(path)
        if seen is None or path not in self.revised:
            return []
        found = review.hunks(seen, self.read_text(path) or "")
        # A review comment the user writes is not a change of the agent's to review.
        return [h for h in found if h.old_lines or not comments.is_only_comments(h.new_lines)]

    def find_hunk(self, path: Path, hunk_id: str) -> review.Hunk:
        hunk = next((h for h in self.hunks(path) if h.id == hunk_id), None)
        if hunk is None:
            raise PlanChanged()
        return hunk

    def keep_hunk(self, path: Path, hunk_id: str) -> None:
        hunk = self.find_hunk(path, hunk_id)
        self.seen[path] = review.keep(self.seen[path], self.read_text(path) or "", hunk)

    def undo_hunk(self, path: Path, hunk_id: str) -> tuple[review.Hunk, str]:
        """The hunk to revert and the plan text once it is reverted (the caller applies it)."""
        hunk = self.find_hunk(path, hunk_id)
        return hunk, review.undo(self.read_text(path) or "", hunk)

    # -- listing --------------------------------------------------------------------------
    def list_plans(self) -> list[dict[str, Any]]:
        owners = self.store.slugs()
        owners.update({s.slug: s.id for s in self.sessions.values() if s.slug})
        pending = {
            s.pending.plan_file_path for s in self.sessions.values() if s.pending is not None
        }
        adopted = self.store.adopted()
        adopted.update({s.plan_file: s.id for s in self.sessions.values() if s.plan_file})
        found = list(plans.list_plan_files(self.plans_directory))
        found += [
            info
            for path in adopted
            if path.parent != self.plans_directory
            for info in plans.list_plan_files(path.parent)
            if info.slug == path.stem
        ]
        listed = []
        for info in found:
            listed.append(
                {
                    "path": str(info.path),
                    "slug": info.slug,
                    **({"sessionId": owners[info.slug]} if info.slug in owners else {}),
                    **({"agentId": info.agent_id} if info.agent_id else {}),
                    "modified": datetime.fromtimestamp(info.modified, UTC)
                    .isoformat(timespec="seconds")
                    .replace("+00:00", "Z"),
                    "sizeBytes": info.size_bytes,
                    "pending": info.path in pending,
                }
            )
        listed.sort(key=lambda p: str(p["modified"]), reverse=True)
        return listed


def _transcript_slug(lines: list[dict[str, Any]]) -> str | None:
    """The transcript's slug; one that is no plain file name (``../x``, ``/tmp/x``) is refused,
    or a resume would read and write plans outside the plans directory."""
    slug = transcripts.slug_of(lines)
    if slug is not None and not plans.SAFE_ID_RE.match(slug):
        raise InvalidParams(f"field 'transcript': its slug {slug!r} is not a safe file name")
    return slug


def _merge_prompts(
    held: tuple[AllowedPrompt, ...], new: tuple[AllowedPrompt, ...]
) -> tuple[AllowedPrompt, ...]:
    # dict keeps the first of each, in order: a prompt asked for twice is granted once.
    return tuple(dict.fromkeys(held + new))


def new_session_id() -> str:
    return str(uuid.uuid4())
