"""The session's mode: entering and leaving plan mode, ``/plan``, human turns, settings changes.

Every change of mode goes through :meth:`Planning.apply`, which keeps what hangs on the mode in
step: the transcript line, a pending approval and the review of the plan (both end when plan
mode is left), grants (a new plan starts without them) and the turn counters. Approving a plan
and a teammate's answer leave plan mode through :meth:`Planning.leave_plan`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from planmode.core import attachments, enforcement, modes, prompts, teams, transcripts, workflow
from planmode.core.approval import AllowedPrompt, Approval
from planmode.core.errors import AgentContext, InvalidParams, PlanModeDisabled
from planmode.core.modes import AutoModeSettings, PermissionMode
from planmode.core.registry import SessionRegistry
from planmode.core.review import ReviewState
from planmode.core.session import Session
from planmode.core.settings import Settings
from planmode.core.teammates import Teammates


@dataclass(frozen=True)
class SlashResult:
    message: str
    should_query: bool = False
    # Set for ``/plan open``: the path the editor should show.
    open_path: Path | None = None


@dataclass(frozen=True)
class SandboxState:
    """The OS sandbox planning Bash runs in (docs/sandbox.md): ``mechanism`` None where there
    is none, and whether the settings require it."""

    mechanism: str | None
    status: str
    detail: str
    required: bool


@dataclass(frozen=True)
class SessionState:
    """A session's state as the editor and the agent see it (docs/protocol.md §2)."""

    session_id: str
    mode: PermissionMode
    pre_plan_mode: PermissionMode | None  # only while planning
    plan_slug: str
    plan_file_path: Path
    plan_exists: bool
    has_exited_plan_mode: bool
    needs_plan_mode_exit_attachment: bool
    auto_mode_active: bool
    pending_approval: Approval | None
    granted_prompts: tuple[AllowedPrompt, ...]
    sandbox: SandboxState


class Planning:
    def __init__(
        self, registry: SessionRegistry, review: ReviewState, teammates: Teammates
    ) -> None:
        self.registry = registry
        self.review = review
        self.teammates = teammates
        # Told of each session that enters plan mode (an approved plan's execution ends).
        self.plan_entered: list[Callable[[Session], None]] = []

    # -- settings -------------------------------------------------------------------------
    @property
    def auto(self) -> AutoModeSettings:
        settings = self.registry.settings
        return AutoModeSettings(
            gate_enabled=settings.autoModeGate, use_during_plan=settings.useAutoModeDuringPlan
        )

    def update_settings(self, settings: Settings) -> list[Session]:
        """Apply new settings; returns the sessions whose state changed (auto mode started or
        stopped while planning, or their allow rules changed)."""
        registry = self.registry
        registry.configure(settings)
        changed = []
        for session in registry.sessions.values():
            updated = modes.transition_plan_auto_mode(registry.with_rules(session.modes), self.auto)
            if updated != session.modes:
                session.modes = updated
                registry.save(session)
                changed.append(session)
        return changed

    # -- the session's mode ---------------------------------------------------------------
    def state(self, session: Session) -> SessionState:
        registry = self.registry
        path = registry.plan_path(session)
        current = session.modes
        available = enforcement.sandbox()
        return SessionState(
            session_id=session.id,
            mode=current.mode,
            pre_plan_mode=current.pre_plan_mode if current.mode == "plan" else None,
            plan_slug=registry.plan_slug(session),
            plan_file_path=path,
            plan_exists=registry.read_text(path) is not None,
            has_exited_plan_mode=current.has_exited_plan_mode,
            needs_plan_mode_exit_attachment=current.needs_plan_mode_exit_attachment,
            auto_mode_active=current.auto_mode_active,
            pending_approval=session.pending,
            granted_prompts=session.granted_prompts,
            sandbox=SandboxState(
                available.mechanism,
                available.status,
                available.detail,
                registry.settings.requireSandbox,
            ),
        )

    def set_mode(self, session: Session, mode: PermissionMode) -> tuple[str, ...]:
        settings = self.registry.settings
        if mode == "auto" and not settings.autoModeGate:
            raise InvalidParams("mode 'auto' is not available: the autoModeGate setting is off")
        if mode == "plan" and session.modes.mode != "plan" and settings.channelsActive:
            raise PlanModeDisabled()
        transition = modes.set_mode(session.modes, mode, self.auto)
        self.apply(session, transition.state)
        return transition.warnings

    def enter(self, session: Session, agent_id: str | None = None) -> str:
        """EnterPlanMode: returns the tool_result text (docs/protocol.md §4)."""
        if agent_id is not None:
            raise AgentContext()
        if self.registry.settings.channelsActive:
            raise PlanModeDisabled()
        self.apply(session, modes.enter_plan_mode(session.modes, self.auto))
        return prompts.enter_tool_result(self.registry.settings.interviewPhase)

    def slash_command(
        self, session: Session, args: str, editor_name: str | None = None
    ) -> SlashResult:
        """``/plan [open|<description>]`` (docs/protocol.md §4, "/plan"); ``editor_name`` can
        open the plan."""
        if session.modes.mode != "plan":
            self.apply(session, modes.enter_plan_mode(session.modes, self.auto))
            description = args.strip()
            return SlashResult(
                prompts.ENABLED_PLAN_MODE, should_query=bool(description and description != "open")
            )
        path = self.registry.plan_path(session)
        content = self.registry.read_text(path)
        if not content:
            return SlashResult(prompts.ALREADY_IN_PLAN_MODE_NO_PLAN)
        words = args.split()
        if words and words[0] == "open":
            return SlashResult("", open_path=path)
        return SlashResult(prompts.plan_display(content, str(path), editor_name))

    def leave_plan(self, session: Session, chosen: PermissionMode | None) -> modes.Transition:
        transition = modes.exit_plan_mode(session.modes, self.auto, chosen=chosen)
        self.apply(session, transition.state)
        return transition

    def apply(self, session: Session, new_modes: modes.ModeState) -> None:
        registry = self.registry
        if new_modes.mode != session.modes.mode:
            slug = registry.plan_slug(session)  # every line carries the slug, for resume
            registry.record(
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
                    self.review.forget(registry.plan_path(session))
            entered = session.modes.mode != "plan" and new_modes.mode == "plan"
            session.modes = new_modes
            registry.save(session)
            if entered:
                for told in self.plan_entered:
                    told(session)

    # -- turns ----------------------------------------------------------------------------
    def workflow_options(self) -> workflow.WorkflowOptions:
        settings = self.registry.settings
        return workflow.WorkflowOptions(
            explore_agents=settings.exploreAgentCount,
            plan_agents=settings.planAgentCount,
            interview=settings.interviewPhase,
            plan_format=settings.planFormat,
        )

    def next_turn(
        self, session: Session, agent_id: str | None = None
    ) -> tuple[tuple[attachments.Attachment, ...], teams.LeaderResponse | None]:
        """``planMode/nextTurn``: one human turn's attachments (docs/protocol.md §5.3), and the
        lead's answer to a teammate's plan when it arrived since the last turn."""
        registry = self.registry
        response = self.teammates.take_leader_response(session) if agent_id is None else None
        path = registry.plan_path(session, agent_id)
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
            lambda: registry.read_text(path),
            self.workflow_options(),
            is_sub_agent=agent_id is not None,
        )
        if agent_id is None:
            session.modes = result.modes
        session.turns = {**session.turns, key: result.counter}
        registry.save(session)
        return result.attachments, response

    def end_session(self, session: Session) -> Approval | None:
        """The conversation is over: what its last plan granted ends with it (docs/protocol.md
        §4, endSession). Plan mode itself is kept, for a resume. Returns a pending approval to
        answer."""
        pending = session.pending
        session.pending = None
        session.granted_prompts = ()
        self.registry.save(session)
        self.registry.record(session, transcripts.decision(session.slug, "session_ended"))
        return pending
