"""Teammates' plans: a teammate submits its plan to the lead's inbox and waits; the lead
approves or rejects it (docs/protocol.md §5.1, "Teammates: authenticated answers").

Each side keeps its half of a request's key in memory only: the teammate the key that
authenticates the lead's answer, the lead the key the teammate's server handed over. Nothing
another process can read holds either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from planmode.core import comments, modes, plans, prompts, teams, transcripts
from planmode.core.approval import (
    Approval,
    ExitResult,
    approved_exit,
    plan_digest,
    rejected_exit_feedback,
)
from planmode.core.errors import InvalidParams, NoPendingApproval, NoPlanFile, PlanChanged
from planmode.core.modes import PermissionMode
from planmode.core.provenance import Provenance
from planmode.core.registry import LeavePlan, SessionRegistry
from planmode.core.session import Session


@dataclass(frozen=True)
class TeammateAnswer:
    """The lead's decision on a teammate's plan: the request it answered (its id was the
    approvalId) and how."""

    request: teams.PendingRequest
    outcome: Literal["approved", "rejected"]


class Teammates:
    def __init__(
        self,
        registry: SessionRegistry,
        leave_plan: LeavePlan,
        provenance: Provenance | None = None,
    ) -> None:
        self.registry = registry
        self.leave_plan = leave_plan
        # Who wrote what in the plans, and what each request last showed the lead's user
        # (the review's: core/provenance.py).
        self.provenance = provenance or Provenance()
        # Teammate side: request id -> (the key that authenticates the lead's answer, the
        # submitted plan's digest).
        self.own_request_keys: dict[str, tuple[bytes, str]] = {}
        # Lead side: request id -> the key a teammate's server handed over for it.
        self.request_keys: dict[str, teams.RequestKey] = {}

    # -- the teammate's side --------------------------------------------------------------
    def exit_as_teammate(
        self,
        session: Session,
        agent_id: str | None = None,
        plan: str | None = None,
    ) -> ExitResult | None:
        """ExitPlanMode for a teammate; None when this server is no teammate's.

        A teammate whose plan mode is required submits its plan to the lead's inbox and stays
        in plan mode until the answer arrives (see :meth:`take_leader_response`); a voluntary
        one exits at once, without approval.
        """
        registry = self.registry
        teammate = registry.settings.teammate
        if teammate is None:
            return None
        path = registry.plan_path(session, agent_id)
        try:  # validate the names before anything is written
            teams.inbox_path(registry.mailboxes, teammate.teamName, teammate.agentName)
        except ValueError as exc:
            raise InvalidParams(f"teammate setting: {exc}") from exc
        content = plan if plan is not None else registry.read_text(path)
        if teammate.planModeRequired and (not content or not content.strip()):
            raise NoPlanFile(path)
        if plan is not None:
            plans.write_plan(path, plan)
        if teammate.planModeRequired:
            request_id = teams.submit_plan(
                registry.mailboxes, teammate.teamName, teammate.agentName, path, content or ""
            )
            self.own_request_keys[request_id] = (
                teams.new_request_key(),
                plan_digest(content or ""),
            )
            session.awaiting_request = request_id
            registry.save(session)
            registry.record(session, transcripts.exit_call(session.slug, plan))
            registry.snapshot(session, path, content)
            return ExitResult(
                outcome="awaitingLeaderApproval",
                file_path=str(path),
                plan=content,
                is_agent=True,
                plan_was_edited=plan is not None,
                request_id=request_id,
                tool_result=prompts.teammate_waiting_result(str(path), request_id),
            )
        transition = self.leave_plan(session, None)
        approval = Approval(session.id, path, content or "", agent_id, plan_given=plan is not None)
        return approved_exit(approval, content, transition.state.mode)

    def take_leader_response(self, session: Session) -> teams.LeaderResponse | None:
        """Apply the lead's answer to this teammate's request once it has arrived."""
        registry = self.registry
        teammate = registry.settings.teammate
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
            registry.save(session)
            return lost
        response = teams.find_response(
            registry.mailboxes,
            teammate.teamName,
            teammate.agentName,
            session.awaiting_request,
            held[0],
        )
        if response is None:
            return None
        self.own_request_keys.pop(session.awaiting_request, None)
        session.awaiting_request = None
        if response.approved:
            chosen = response.permission_mode
            target = chosen if chosen in modes.PERMISSION_MODES and chosen != "plan" else None
            self.leave_plan(session, target)
        registry.save(session)
        return response

    def own_request_key(self, session: Session) -> tuple[str, bytes, str] | None:
        """(request id, key, plan digest) of the request this session awaits an answer to,
        for handing to the lead's server; None when there is none."""
        request_id = session.awaiting_request
        held = self.own_request_keys.get(request_id) if request_id else None
        if self.registry.settings.teammate is None or request_id is None or held is None:
            return None
        return request_id, held[0], held[1]

    # -- the lead's side ------------------------------------------------------------------
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
        registry = self.registry
        request = next((r for r in self.teammate_requests() if r.request_id == request_id), None)
        if request is None:
            raise NoPendingApproval(f"with approvalId {request_id!r}")
        if mode is not None and mode not in teams.ANSWER_MODES:
            raise InvalidParams(
                f"mode: a teammate's plan is approved into default or acceptEdits only, "
                f"not {mode!r}"
            )
        path = request.plan_file_path
        current = registry.read_text(path)
        if current is None:
            current = request.plan
        # Approve exactly what was shown: the digest named, else what the lenses last showed
        # (at first the request's plan), or the lead's own typing.
        shown = plan_sha256.lower() if plan_sha256 is not None else None
        if shown is None and self.provenance.is_users(path, current):
            shown = plan_digest(current)
        if approved and (
            shown or self.provenance.shown(request_id) or plan_digest(request.plan)
        ) != plan_digest(current):
            raise PlanChanged()
        if not approved and include_comments:
            # Only the comments the lead's user wrote: the teammate's own are not theirs.
            found = tuple(
                comments.delivered(self.provenance.users_comments(path, comments.parse(current)))
            )
            feedback = rejected_exit_feedback(feedback, found)
        current = comments.strip_comments(current)
        if approved and current != (plans.read_plan(request.plan_file_path) or ""):
            # The path comes from a mailbox file: write only to a plan file of this workspace.
            target = registry.find_plan_file(request.plan_file_path)
            if target is None:
                raise InvalidParams(
                    f"approvalId {request_id!r}: its planFilePath {request.plan_file_path} is "
                    f"not a plan file in {registry.plans_directory}; it cannot be written"
                )
            plans.write_plan(target, current)
        teams.answer_request(
            registry.mailboxes,
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
        return teams.pending_requests(self.registry.mailboxes, self.request_keys)

    def receive_request_key(
        self, request_id: str, key: bytes, plan_sha256: str, team: str, agent: str
    ) -> None:
        """A teammate's server hands over the key of its request. The first key for an id
        stays; another one for it is refused (InvalidParams)."""
        if self.registry.settings.teammate is not None:
            raise InvalidParams("this server is a teammate's, not the lead's")
        if len(key) != teams.KEY_BYTES:
            raise InvalidParams(f"key: {teams.KEY_BYTES} bytes expected")
        held = self.request_keys.get(request_id)
        given = teams.RequestKey(key, plan_sha256.lower(), team, agent)
        if held is not None and held != given:
            raise InvalidParams(f"a different key for {request_id!r} is already held")
        self.request_keys[request_id] = given
