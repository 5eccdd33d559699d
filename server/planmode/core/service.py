"""The plan-mode service of one workspace: the front the LSP layer talks to.

This is the whole behaviour without any transport: the LSP layer turns requests into calls
here and results into responses and notifications. Every method validates before it changes
anything, so a call that raises :class:`~planmode.core.errors.PlanModeError` has changed
nothing. The front owns the session's mode (entering, leaving, ``/plan``, turns) and composes
the rest: the sessions and their plan files (:mod:`~planmode.core.registry`), plans under
review (:mod:`~planmode.core.review_state`), teammates (:mod:`~planmode.core.teammates`),
resume and fork (:mod:`~planmode.core.resume`) and the permission check
(:mod:`~planmode.core.enforcement`).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planmode.core import (
    attachments,
    enforcement,
    modes,
    permissions,
    prompts,
    resume,
    teams,
    transcripts,
    workflow,
)
from planmode.core.approval import Approval
from planmode.core.errors import AgentContext, InvalidParams, PlanModeDisabled
from planmode.core.history import PlanHistory
from planmode.core.modes import AutoModeSettings, PermissionMode
from planmode.core.registry import SessionRegistry, TextReader
from planmode.core.review_state import ReviewState
from planmode.core.session import Session, SessionStore
from planmode.core.settings import Settings
from planmode.core.teammates import Teammates
from planmode.sandbox import probe as sandbox_probe


@dataclass(frozen=True)
class SlashResult:
    message: str
    should_query: bool = False
    # Set for ``/plan open``: the path the editor should show.
    open_path: Path | None = None


class PlanModeService:
    def __init__(self, root: Path, settings: Settings | None = None) -> None:
        self.registry = registry = SessionRegistry(root, settings or Settings())
        self.review = review = ReviewState(registry, self._leave_plan)
        self.teammates = teammates = Teammates(registry, self._leave_plan)
        # Sessions and their plan files.
        self.session = registry.session
        self.require_session = registry.require_session
        self.plan_slug = registry.plan_slug
        self.plan_path = registry.plan_path
        self.find_plan_file = registry.find_plan_file
        self.is_plan_path = registry.is_plan_path
        self.learn_claude_code = registry.learn_claude_code
        self.read_plan = registry.read_plan
        self.read_text = registry.read_text
        self.list_plans = registry.list_plans
        # Plans under review: the pending approval, the decision, revisions and hunks.
        self.begin_exit = review.begin_exit
        self.pending_for = review.pending_for
        self.current_plan = review.current_plan
        self.cancel = review.cancel
        self.approve = review.approve
        self.reject = review.reject
        self.comment_view = review.comment_view
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

    # -- what the parts hold --------------------------------------------------------------
    @property
    def root(self) -> Path:
        return self.registry.root

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

    @property
    def history(self) -> PlanHistory:
        return self.review.history

    @property
    def seen(self) -> dict[Path, str]:
        return self.review.seen

    @property
    def revised(self) -> set[Path]:
        return self.review.revised

    @property
    def empty_exits(self) -> set[Path]:
        return self.review.empty_exits

    # -- settings -------------------------------------------------------------------------
    @property
    def auto(self) -> AutoModeSettings:
        return AutoModeSettings(
            gate_enabled=self.settings.autoModeGate,
            use_during_plan=self.settings.useAutoModeDuringPlan,
        )

    def update_settings(self, settings: Settings) -> list[Session]:
        """Apply new settings; returns the sessions whose state changed (auto mode started or
        stopped while planning, or their allow rules changed)."""
        self.registry.configure(settings)
        changed = []
        for session in self.sessions.values():
            updated = modes.transition_plan_auto_mode(
                self.registry.with_rules(session.modes), self.auto
            )
            if updated != session.modes:
                session.modes = updated
                self.registry.save(session)
                changed.append(session)
        return changed

    # -- the session's mode ---------------------------------------------------------------
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
        """EnterPlanMode: returns the tool_result text (docs/protocol.md §4)."""
        if agent_id is not None:
            raise AgentContext()
        if self.settings.channelsActive:
            raise PlanModeDisabled()
        self._apply(session, modes.enter_plan_mode(session.modes, self.auto))
        return prompts.enter_tool_result(self.settings.interviewPhase)

    def slash_command(
        self, session: Session, args: str, editor_name: str | None = None
    ) -> SlashResult:
        """``/plan [open|<description>]`` (docs/protocol.md §4, "/plan"); ``editor_name`` can
        open the plan."""
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

    def _leave_plan(self, session: Session, chosen: PermissionMode | None) -> modes.Transition:
        transition = modes.exit_plan_mode(session.modes, self.auto, chosen=chosen)
        self._apply(session, transition.state)
        return transition

    def _apply(self, session: Session, new_modes: modes.ModeState) -> None:
        if new_modes.mode != session.modes.mode:
            slug = self.plan_slug(session)  # every line carries the slug, for resume
            self.registry.record(
                session, transcripts.mode_change(slug, session.modes.mode, new_modes.mode)
            )
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
                if session.slug is not None:
                    self.review.forget(self.plan_path(session))
            session.modes = new_modes
            self.registry.save(session)

    # -- enforcement ----------------------------------------------------------------------
    def check_tool(
        self,
        session: Session,
        tool: str,
        tool_input: dict[str, Any],
        agent_id: str | None = None,
        hide: Sequence[str] = (),
    ) -> permissions.Decision:
        """``planMode/checkTool``: the permission table for this session (docs/protocol.md
        §6), an allowed planning Bash command with its sandbox."""
        return enforcement.check_tool(self.registry, session, tool, tool_input, agent_id, hide)

    @property
    def sandbox(self) -> sandbox_probe.Availability:
        return enforcement.sandbox()

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
        self.registry.save(session)
        return result.attachments, response

    def end_session(self, session: Session) -> Approval | None:
        """The conversation is over: what its last plan granted ends with it (Claude Code
        #27160). Plan mode itself is kept, for a resume. Returns a pending approval to answer."""
        pending = session.pending
        session.pending = None
        session.granted_prompts = ()
        self.registry.save(session)
        self.registry.record(session, transcripts.decision(session.slug, "session_ended"))
        return pending

    # -- resume and fork ------------------------------------------------------------------
    def resume(self, session: Session, transcript: str, remote: bool = False) -> tuple[bool, Path]:
        return resume.resume(self.registry, session, transcript, remote)

    def fork(self, session: Session, transcript: str) -> tuple[bool, Path]:
        return resume.fork(self.registry, session, transcript)


def new_session_id() -> str:
    return str(uuid.uuid4())
