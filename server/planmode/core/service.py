"""The plan-mode service of one workspace: the front the LSP layer talks to.

This is the whole behaviour without any transport: the LSP layer turns requests into calls
here and results into responses and notifications. Every method validates before it changes
anything, so a call that raises :class:`~planmode.core.errors.PlanModeError` has changed
nothing. The front only composes the parts: the sessions and their plan files
(:mod:`~planmode.core.registry`), the session's mode, turns and settings
(:mod:`~planmode.core.planning`), plans under review (:mod:`~planmode.core.review`),
teammates (:mod:`~planmode.core.teammates`), resume and fork (:mod:`~planmode.core.resume`) and
the permission check (:mod:`~planmode.core.enforcement`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from planmode.core import attachments, drift, enforcement, modes, permissions, resume, teams
from planmode.core.agents import (
    AgentRules,
    AgentTools,
    PlanFileAgent,
    PlanFileReport,
    PlanInExit,
    ToolCall,
)
from planmode.core.approval import AllowedPrompt
from planmode.core.errors import NoPendingApproval
from planmode.core.executions import Executions, ProgressEvent
from planmode.core.history import PlanHistory
from planmode.core.modes import PermissionMode
from planmode.core.plan_library import PlanLibrary
from planmode.core.planning import Planning
from planmode.core.registry import SessionRegistry, TextReader
from planmode.core.review import Decision, ReviewState
from planmode.core.session import Session, SessionStore
from planmode.core.settings import Settings
from planmode.core.teammates import TeammateAnswer, Teammates
from planmode.sandbox import probe as sandbox_probe

A = TypeVar("A", bound=PlanFileAgent)


class PlanModeService:
    def __init__(
        self,
        root: Path,
        settings: Settings | None = None,
        agents: Sequence[PlanFileAgent] = (),
    ) -> None:
        """``agents``: the agents that name their own plan files (core/agents.py), whose
        adoptions a session may have saved."""
        self.registry = registry = SessionRegistry(root, settings or Settings(), agents)
        self.review = review = ReviewState(registry, self._leave_plan)
        self.teammates = teammates = Teammates(registry, self._leave_plan, review.provenance)
        self.planning = planning = Planning(registry, review, teammates)
        # Approved plans being carried out: progress and drift (docs/protocol.md §12).
        self.executions = executions = Executions(registry)
        planning.plan_entered.append(executions.end)
        # The session's mode: entering, leaving, /plan, human turns, settings.
        self.update_settings = planning.update_settings
        self.state = planning.state
        self.set_mode = planning.set_mode
        self.enter = planning.enter
        self.slash_command = planning.slash_command
        self.end_session = planning.end_session
        # Sessions and their plan files.
        self.session = registry.session
        self.require_session = registry.require_session
        self.plan_slug = registry.plan_slug
        self.plan_path = registry.plan_path
        self.find_plan_file = registry.find_plan_file
        self.is_plan_file = registry.is_plan_file
        self.exit_refusal = registry.exit_refusal
        self.read_plan = registry.read_plan
        self.read_text = registry.read_text
        self.list_plans = registry.list_plans
        # Plans under review: the pending approval, the decision (approve and reject, below:
        # a teammate's request too), revisions and hunks.
        self.begin_exit = review.begin_exit
        self.pending_for = review.pending_for
        self.current_plan = review.current_plan
        self.cancel = review.cancel
        self.comment_view = review.comment_view
        self.others_comments = review.others_comments
        self.observe = review.observe
        self.showing = review.showing
        self.editor_opened = review.editor_opened
        self.editor_changed = review.editor_changed
        self.editor_saved = review.editor_saved
        self.expect_agent_text = review.expect_agent_text
        self.user_wrote = review.user_wrote
        self.agent_edited = review.agent_edited
        self.hunks = review.hunks
        self.keep_hunk = review.keep_hunk
        self.undo_hunk = review.undo_hunk
        # Teammates' plans, on the teammate's side and on the lead's.
        self.exit_as_teammate = teammates.exit_as_teammate
        self.take_leader_response = teammates.take_leader_response
        self.own_request_key = teammates.own_request_key
        self.answer_teammate = teammates.answer_teammate
        self.teammate_requests = teammates.teammate_requests
        self.receive_request_key = teammates.receive_request_key
        # The plan library: every plan with its status; saved plans taken up again.
        self.library = PlanLibrary(registry, review, planning)
        self.save_for_later = review.save_for_later
        self.take_up = self.library.take_up
        self.library.live_counts = executions.counts
        executions.listeners.append(self._progress_recorded)

    # -- what the parts hold --------------------------------------------------------------
    @property
    def root(self) -> Path:
        return self.registry.root

    def agent(self, kind: type[A]) -> A:
        """The plan-file agent of type ``kind`` this service was given."""
        found = next((a for a in self.registry.agents if isinstance(a, kind)), None)
        if found is None:
            raise LookupError(f"this service was given no {kind.__name__}")
        return found

    @property
    def settings(self) -> Settings:
        return self.registry.settings

    @property
    def sessions(self) -> dict[str, Session]:
        return self.registry.sessions

    @property
    def store(self) -> SessionStore:
        return self.registry.store

    @property
    def lost_sessions(self) -> list[str]:
        """Sessions whose saved state was unreadable; the user must hear about it once."""
        return self.registry.lost_sessions

    @property
    def open_document_text(self) -> TextReader:
        """The text of a plan open in the editor (None when it is not): it wins over the
        disk, as unsaved edits are what the user sees."""
        return self.registry.open_document_text

    @open_document_text.setter
    def open_document_text(self, reader: TextReader) -> None:
        self.registry.open_document_text = reader

    @property
    def plans_directory(self) -> Path:
        return self.registry.plans_directory

    @property
    def plans_directory_warning(self) -> str | None:
        return self.registry.plans_directory_warning

    def state_warnings(self) -> list[str]:
        """Why the server's own files are not kept in the workspace now (a symlink on the
        way), and where they are kept instead (docs/protocol.md §9)."""
        return self.registry.state_warnings()

    @property
    def history(self) -> PlanHistory:
        return self.review.history

    @property
    def revised(self) -> set[Path]:
        return self.review.revised

    @property
    def empty_exits(self) -> set[Path]:
        return self.review.empty_exits

    def _leave_plan(self, session: Session, chosen: PermissionMode | None) -> modes.Transition:
        """Approving a plan and a teammate's answer leave plan mode; bound late, as the mode's
        part itself needs the review and the teammates."""
        return self.planning.leave_plan(session, chosen)

    # -- the user's decision --------------------------------------------------------------
    def approve(
        self,
        approval_id: str,
        session_id: str | None = None,
        mode: PermissionMode | None = None,
        plan_sha256: str | None = None,
        include_comments: bool = False,
        grant: tuple[AllowedPrompt, ...] = (),
    ) -> Decision | TeammateAnswer:
        """``planMode/approve``: a session's pending plan (:meth:`ReviewState.approve`), or a
        teammate's (:meth:`_decide`)."""
        decision = self._decide(
            session_id,
            lambda: self.review.approve(
                approval_id, session_id, mode, plan_sha256, include_comments, grant
            ),
            lambda: self.teammates.answer_teammate(
                approval_id,
                True,
                mode=mode,
                plan_sha256=plan_sha256,
                include_comments=include_comments,
            ),
            "approved",
        )
        if isinstance(decision, Decision) and decision.approval.agent_id is None:
            approved = decision.approval
            self.executions.start(
                self.registry.sessions[approved.session_id],
                approved.approval_id,
                approved.plan_file_path,
                decision.result.plan or "",
            )
        return decision

    def reject(
        self,
        approval_id: str,
        session_id: str | None = None,
        feedback: str | None = None,
        include_comments: bool = False,
    ) -> Decision | TeammateAnswer:
        """``planMode/reject``: a session's pending plan (:meth:`ReviewState.reject`), or a
        teammate's (:meth:`_decide`)."""
        return self._decide(
            session_id,
            lambda: self.review.reject(approval_id, session_id, feedback, include_comments),
            lambda: self.teammates.answer_teammate(
                approval_id, False, feedback, include_comments=include_comments
            ),
            "rejected",
        )

    @staticmethod
    def _decide(
        session_id: str | None,
        of_session: Callable[[], Decision],
        of_teammate: Callable[[], teams.PendingRequest],
        outcome: Literal["approved", "rejected"],
    ) -> Decision | TeammateAnswer:
        """An approvalId names a session's pending approval; one that names none may, when
        no ``session_id`` narrows it, be a teammate's request id to this lead, whose plan is
        decided instead (docs/protocol.md §4, §5.1). Neither: NoPendingApproval."""
        try:
            return of_session()
        except NoPendingApproval:
            if session_id is not None:
                raise
            return TeammateAnswer(of_teammate(), outcome)

    # -- enforcement ----------------------------------------------------------------------
    def check_tool(
        self,
        session: Session,
        tool: str,
        tool_input: dict[str, Any],
        agent_id: str | None = None,
        hide: Sequence[str] = (),
        caller: AgentRules | None = None,
        cwd: str | None = None,
        tools: AgentTools | None = None,
        plan_in_exit: PlanInExit | None = None,
        sandbox: str | None = None,
    ) -> permissions.Decision:
        """``planMode/checkTool``: the permission table for this session (docs/protocol.md
        §6), an allowed planning Bash command with its sandbox; for a call of an agent with
        rules of its own (``caller``), never an allow those rules or prompts would not give;
        ``cwd``: where a Bash line runs (git only where it opens the workspace's own
        repository); for an agent with tools of its own (``tools``), the plan mode calls
        its call makes; for an agent whose exit brings its plan (``plan_in_exit``), no write
        while planning; ``sandbox``: the mechanism the agent's commands need."""
        if tools is None:
            calls: Sequence[ToolCall] = (ToolCall(tool, tool_input),)
        else:
            calls = tools.plan_mode_calls(tool, tool_input)
        decision = enforcement.check_calls(
            self.registry,
            session,
            calls,
            agent_id,
            hide,
            caller,
            cwd,
            submit_plan=plan_in_exit.submit_plan if plan_in_exit is not None else None,
            prefer=sandbox,
        )
        if decision.behavior != "deny":
            for call in calls:
                # A plan file the agent writes itself: that text is its own (core/provenance.py).
                self.review.agent_tool(call.tool, dict(call.input))
        # Executing an approved plan: todos and writes move its steps, a write outside it
        # drifts, which the drift setting may ask about or deny (docs/protocol.md §12).
        observed = self.executions.observe(session, calls, decision.behavior)
        if observed is not None:
            decision = drift.overrule(decision, observed.outcome)
        return replace(decision, mode=session.modes.mode)

    @property
    def sandbox(self) -> sandbox_probe.Availability:
        return enforcement.sandbox()

    def learn_plan_file(self, session: Session, report: PlanFileReport) -> str | None:
        """Adopt the plan file the agent reports (:meth:`SessionRegistry.learn_plan_file`); a
        plan the session took up before brings its text along (docs/protocol.md §12.3)."""
        warning = self.registry.learn_plan_file(session, report)
        self.library.follow_plan_file(session)
        return warning

    def _progress_recorded(self, event: ProgressEvent) -> None:
        if event.progress is not None:
            progress = event.progress
            self.library.progress(
                progress.plan_file, progress.approval_id, progress.done, progress.total
            )

    def next_turn(
        self, session: Session, agent_id: str | None = None
    ) -> tuple[tuple[attachments.Attachment, ...], teams.LeaderResponse | None]:
        """``planMode/nextTurn`` (:meth:`Planning.next_turn`), led by the attachment that tells
        the model of a saved plan the user took up since (docs/protocol.md §12.3)."""
        found, response = self.planning.next_turn(session, agent_id)
        told = self.library.announcement(session) if agent_id is None else None
        return ((told, *found) if told is not None else found), response

    # -- resume and fork ------------------------------------------------------------------
    def resume(self, session: Session, transcript: str, remote: bool = False) -> tuple[bool, Path]:
        return resume.resume(self.registry, session, transcript, remote)

    def fork(self, session: Session, transcript: str) -> tuple[bool, Path]:
        return resume.fork(self.registry, session, transcript)
