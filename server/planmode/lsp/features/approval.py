"""ExitPlanMode and its approval: exit waits; approve and reject (requests or lenses) answer.

``planMode/exit`` makes an approval pending, shows the plan in the editor and waits.
``planMode/approve`` / ``planMode/reject`` — or the same commands run from the plan's code
lenses — decide it; the waiting exit then returns its ExitResult (docs/protocol.md §5).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from pathlib import Path

from lsprotocol import types

from planmode.core import approval as core
from planmode.core import prompts
from planmode.core.approval import rejected_exit
from planmode.core.errors import PlanChanged, PlanModeError
from planmode.core.modes import PERMISSION_MODES, PermissionMode
from planmode.core.review import Decision
from planmode.core.session import Session
from planmode.core.teammates import TeammateAnswer
from planmode.lsp import protocol
from planmode.lsp.features import buffers, revisionmarks
from planmode.lsp.features.agents import (
    AgentCall,
    agent_call,
    agent_name,
    exit_tool,
    permission_mode,
    plan_file_report,
    plan_in_exit,
)
from planmode.lsp.features.state import publish_state, session_for
from planmode.lsp.features.teammates import keys as team_keys
from planmode.lsp.params import (
    ApproveParams,
    ClaudeCodeParams,
    ExitParams,
    ListApprovalsParams,
    RejectParams,
)
from planmode.lsp.results import (
    Approval,
    ApprovalResolved,
    ExitResult,
    ListApprovalsResult,
    OkResult,
    PendingExit,
    ResolvedOutcome,
)
from planmode.lsp.server import Feature, PlanModeServer

log = logging.getLogger(__name__)


class Approvals(Feature):
    """The exits waiting for the user's decision: each approval's future, which its
    ``planMode/exit`` request awaits and a decision resolves."""

    def __init__(self) -> None:
        self.waiters: dict[str, asyncio.Future[ExitResult]] = {}

    def wait(self, approval_id: str) -> asyncio.Future[ExitResult]:
        waiter: asyncio.Future[ExitResult] = asyncio.get_running_loop().create_future()
        self.waiters[approval_id] = waiter
        return waiter

    def forget(self, approval_id: str) -> None:
        self.waiters.pop(approval_id, None)

    def resolve(self, approval_id: str, result: core.ExitResult) -> None:
        """Answer the exit waiting on ``approval_id``, if one still is."""
        waiter = self.waiters.pop(approval_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(ExitResult.model_validate(result))

    def connection_ended(self) -> None:
        for waiter in list(self.waiters.values()):
            waiter.cancel()


async def exit_plan_mode(server: PlanModeServer, params: ExitParams) -> ExitResult | PendingExit:
    session = session_for(server, params)
    call = agent_call(server, params)
    follow_agent(server, session, params, call)
    # An agent whose exit brings its plan (Codex): that plan is its submission.
    brings = plan_in_exit(call)
    submit_plan = brings.submit_plan if brings is not None else None
    refused = refuse_exit(server, session, params, exit_tool(call), submit_plan)
    if refused is not None:
        return refused
    teammate_result = server.service.exit_as_teammate(session, params.agent_id, params.plan)
    if teammate_result is not None:
        if teammate_result.outcome == "awaitingLeaderApproval":
            # Before answering: the lead sees the request only once it holds its key.
            await team_keys.deliver(server, session)
        publish_state(server, session)
        return ExitResult.model_validate(teammate_result)
    try:
        is_open = server.get_feature(buffers.Buffers).document(
            server.service.plan_path(session, params.agent_id)
        )
    except PlanModeError:
        is_open = None  # begin_exit raises the error in its order
    approval, replaced = server.service.begin_exit(
        session,
        agent_id=params.agent_id,
        plan=params.plan,
        allowed_prompts=tuple(p.to_core() for p in params.allowed_prompts),
        write=is_open is None,
        exit_tool=exit_tool(call),
        submit_plan=submit_plan,
        agent=agent_name(call),
    )
    if replaced is not None:
        answer_superseded(server, replaced, prompts.superseded_feedback(replaced.exit_tool))
    # Registered before the first await: an approval superseded or decided meanwhile must
    # still answer this request, or it would wait forever.
    approvals = server.get_feature(Approvals)
    waiter = approvals.wait(approval.approval_id)
    if params.plan is not None and is_open is not None:
        # The approved plan is read from the buffer: it must hold the submitted plan, or the
        # old text would look like the user's edit (lsp/features/buffers.py).
        await buffers.change_plan(
            server, approval.plan_file_path, params.plan, "Plan submitted for approval"
        )
        if waiter.done():  # answered (resolve_waiter already dropped it)
            return waiter.result()
    revisionmarks.refresh(server, approval.plan_file_path)  # its diagnostics too
    server.notify(protocol.APPROVAL_REQUESTED, Approval.model_validate(approval))
    publish_state(server, session)
    server.refresh_code_lenses()
    server.run_task(show_plan(server, approval))
    if params.detach:
        approvals.forget(approval.approval_id)
        return PendingExit(
            approval_id=approval.approval_id,
            file_path=str(approval.plan_file_path),
            tool_result="The plan was submitted for approval in the editor.",
        )
    try:
        return await waiter
    except asyncio.CancelledError:
        # The agent gave up waiting ($/cancelRequest): plan mode stays, the request is gone.
        if server.service.cancel(approval):
            notify_resolved(server, approval.approval_id, "cancelled")
            publish_state(server, session)
            server.refresh_code_lenses()
        raise
    finally:
        approvals.forget(approval.approval_id)


def change_mode(server: PlanModeServer, session: Session, mode: PermissionMode) -> None:
    """The user's own mode switch; leaving plan mode answers a waiting exit as rejected."""
    pending = session.pending
    warnings = server.service.set_mode(session, mode)
    if pending is not None and session.pending is None:
        # The user left plan mode themselves: the waiting exit is answered as rejected.
        answer_superseded(
            server,
            pending,
            "The user left plan mode without approving.",
            prompts.left_plan_mode_result(mode),
        )
        # Its Approve/Reject lenses are gone: the editor must ask again.
        server.refresh_code_lenses()
    for warning in warnings:
        server.show_message(warning)


def follow_agent(
    server: PlanModeServer,
    session: Session,
    params: ClaudeCodeParams,
    call: AgentCall | None,
) -> None:
    """Bring the session to the agent's permission mode, then, while it plans, adopt the plan
    file the agent reports (``call``, docs/protocol.md §3); a file that cannot be adopted is
    told to the user once."""
    mode = permission_mode(call, params, session)
    report = plan_file_report(call)
    if mode in PERMISSION_MODES and mode != session.modes.mode:
        try:
            change_mode(server, session, mode)
            publish_state(server, session)
        except PlanModeError as exc:
            # The decision still follows the mode the session could keep.
            log.warning("session %s stays in %s: %s", session.id, session.modes.mode, exc.message)
    if session.modes.mode == "plan" and report is not None:
        warning = server.service.learn_plan_file(session, report)
        if warning is not None:
            server.show_message(warning)


def refuse_exit(
    server: PlanModeServer,
    session: Session,
    params: ExitParams,
    tool: str = prompts.EXIT_TOOL,
    submit_plan: str | None = None,
) -> ExitResult | None:
    """An ExitPlanMode refused before anything is written or asked (docs/protocol.md §3): its
    plan file may not be written, or its ``planFilePath`` is not the session's plan file.
    The agent reads why as a rejection (naming its exit ``tool``, or how it submits a plan:
    ``submit_plan``), the user in a warning; the session stays planning."""
    if session.modes.mode != "plan":
        return None  # the exit itself says so
    service = server.service
    reason = service.exit_refusal(session, params.plan_file_path, params.agent_id)
    if reason is None:
        return None
    plan = service.plan_path(session, params.agent_id)
    text = prompts.refused_exit_text(reason, plan, tool, submit_plan)
    server.show_message(f"Plan mode refused the exit of session {session.id}: {reason}.")
    refused = core.ExitResult(
        outcome="rejected",
        file_path=str(plan),
        tool_result=text,
        is_agent=params.agent_id is not None,
        feedback=text,
    )
    return ExitResult.model_validate(refused)


async def show_plan(server: PlanModeServer, approval: core.Approval) -> None:
    """Bring the plan up in the editor, or ask in a message when there is no file to show."""
    path = approval.plan_file_path
    if path.exists() or server.get_feature(buffers.Buffers).text(path) is not None:
        if server.client_supports("window", "show_document", "support"):
            await server.window_show_document_async(
                types.ShowDocumentParams(uri=path.as_uri(), take_focus=True)
            )
        else:
            # eglot and Helix cannot be asked to show a file: say which one, and how to decide.
            # Not showMessageRequest: Helix has none and eglot's would take the minibuffer.
            message = review_message(server, path, grants=approval.grants_notice())
            server.show_message(message, types.MessageType.Info)
        return
    # An exit without a plan file still needs an answer; lenses need a file to sit on.
    if not server.client_supports("window", "show_document", "support"):
        # eglot and Helix: a message, not showMessageRequest (Helix has none, eglot's would
        # take the minibuffer); the empty plan's code actions or the CLI decide.
        server.show_message(no_plan_message(server, approval), types.MessageType.Info)
        return
    await ask_without_plan(server, approval)


async def ask_without_plan(server: PlanModeServer, approval: core.Approval) -> None:
    """``Exit plan mode?`` for an exit with no plan, its grants in the question. The answer
    is bound to what the question showed: no plan, and those grants (docs/protocol.md §5.1)."""
    shown = core.plan_digest(server.service.current_plan(approval))
    approve, reject = "Approve", "Reject"
    choice = await server.window_show_message_request_async(
        types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message=joined(
                f"{prompts.EXIT_PERMISSION_PROMPT} The agent wrote no plan.",
                approval.grants_notice(),
            ),
            actions=[types.MessageActionItem(title=approve), types.MessageActionItem(title=reject)],
        )
    )
    title = getattr(choice, "title", None)
    if title not in (approve, reject) or not still_pending(server, approval):
        return
    if title == reject:
        finish(server, server.service.reject(approval.approval_id, approval.session_id))
        return
    try:
        decision = server.service.approve(
            approval.approval_id,
            approval.session_id,
            plan_sha256=shown,
            grant=approval.allowed_prompts,
        )
    except PlanChanged:
        # The agent wrote a plan while the question was open: the user never saw it.
        written = shown_path(server, approval.plan_file_path)
        server.show_message(
            f"Not approved: the agent wrote its plan ({written}) while you were asked to exit "
            "plan mode without one. Review that plan and decide it there.",
            types.MessageType.Warning,
        )
        server.refresh_code_lenses()
        await show_plan(server, approval)
        return
    finish(server, decision)


def still_pending(server: PlanModeServer, approval: core.Approval) -> bool:
    session = server.service.sessions.get(approval.session_id)
    return (
        session is not None
        and session.pending is not None
        and (session.pending.approval_id == approval.approval_id)
    )


def joined(*sentences: str) -> str:
    return " ".join(sentence for sentence in sentences if sentence)


def review_message(
    server: PlanModeServer, path: Path, who: str = "The agent", grants: str = ""
) -> str:
    """The plan to review (and what approving it grants), and how to decide it in an editor
    that was not shown the plan."""
    return joined(
        f"{who} asks you to approve its plan: {shown_path(server, path)}.", grants, how_to_decide()
    )


def no_plan_message(server: PlanModeServer, approval: core.Approval) -> str:
    """An exit with no plan file, and how to decide it without a message request."""
    return joined(
        f"{prompts.EXIT_PERMISSION_PROMPT} The agent wrote no plan "
        f"({shown_path(server, approval.plan_file_path)} does not exist).",
        approval.grants_notice(),
        how_to_decide(),
    )


def shown_path(server: PlanModeServer, path: Path) -> str:
    try:
        return str(path.relative_to(server.service.root))
    except ValueError:
        return str(path)


def how_to_decide() -> str:
    return (
        f"Open it and choose {protocol.LENS_APPROVE}, {protocol.LENS_APPROVE_ACCEPT_EDITS} or "
        f"{protocol.LENS_REJECT} from its code actions (or lenses), or run `planmode approve` or "
        "`planmode reject --feedback TEXT` in a terminal in the workspace."
    )


def finish(server: PlanModeServer, decision: Decision | TeammateAnswer) -> None:
    """Answer the waiting exit and tell every client what was decided."""
    if isinstance(decision, TeammateAnswer):
        # The teammate's server reads the answer from its inbox: nothing waits here.
        teammate_answered(server, decision.request.request_id, decision.outcome)
        return
    approval, result = decision.approval, decision.result
    resolve_waiter(server, approval, result)
    for warning in decision.warnings:
        server.show_message(warning)
    outcome = result.outcome
    if outcome == "awaitingLeaderApproval":
        raise AssertionError("a decision approves or rejects; it never waits for a lead")
    notify_resolved(server, approval.approval_id, outcome, result.restored_mode)
    session = server.service.sessions.get(approval.session_id)
    if session is not None:
        publish_state(server, session)
    server.refresh_code_lenses()
    revisionmarks.refresh(server, approval.plan_file_path)


def notify_resolved(
    server: PlanModeServer,
    approval_id: str,
    outcome: ResolvedOutcome,
    restored_mode: PermissionMode | None = None,
) -> None:
    """Tell every client an approval (or a teammate's request) was decided or withdrawn."""
    server.notify(
        protocol.APPROVAL_RESOLVED,
        ApprovalResolved(approval_id=approval_id, outcome=outcome, restored_mode=restored_mode),
    )


def resolve_waiter(
    server: PlanModeServer, approval: core.Approval, result: core.ExitResult
) -> None:
    server.get_feature(Approvals).resolve(approval.approval_id, result)


def answer_superseded(
    server: PlanModeServer, approval: core.Approval, reason: str, tool_result: str | None = None
) -> None:
    """An approval that can no longer be decided is answered as rejected, with why."""
    result = rejected_exit(approval, reason)
    if tool_result is not None:
        result = replace(result, tool_result=tool_result)
    resolve_waiter(server, approval, result)
    notify_resolved(server, approval.approval_id, "rejected")


def approve(server: PlanModeServer, params: ApproveParams) -> OkResult:
    """A session's plan, or a teammate's request to this lead (core/service.py)."""
    decision = server.service.approve(
        params.approval_id,
        params.session_id,
        params.mode,
        params.plan_sha256,
        include_comments=params.include_comments,
        grant=tuple(p.to_core() for p in params.allowed_prompts),
    )
    finish(server, decision)
    if isinstance(decision, Decision):
        tell_unsaved(server, decision.approval.plan_file_path)
    return OkResult()


def tell_unsaved(server: PlanModeServer, path: Path) -> None:
    """The plan was approved while its buffer held unsaved changes: the file holds the
    approved plan now, but no LSP request saves a buffer or reverts it, so the editor keeps it
    marked modified (and the file changed since it was read). The user is told how to leave
    it clean (README, "Other editors")."""
    documents = server.get_feature(buffers.Buffers)
    document = documents.document(path)
    if document is None or documents.saved_texts.get(path) == document.source:
        return  # not open, or unmodified: the editor's reload brings the file along
    if documents.edited.get(path) == document.source == buffers.disk_text(path):
        # Only the server's edits (a revision, an Undo) modified the buffer, and it holds the
        # file: nothing of the user's is lost by reverting.
        server.show_message(
            f"Plan approved: {shown_path(server, path)} holds the approved plan, and so does "
            "its buffer, which your editor still marks modified: the server's edits of it "
            "cannot be saved by a language server. Revert the buffer to the file to leave it "
            "clean (Emacs: M-x revert-buffer; Vim: :e!).",
            types.MessageType.Info,
        )
        return
    server.show_message(
        f"Plan approved: {shown_path(server, path)} holds the approved plan. Its buffer still "
        "has unsaved changes, which a language server cannot save or discard: revert the "
        "buffer to the file to leave it clean (Emacs: M-x revert-buffer; Vim: :e!; VS Code: "
        "File: Revert File). Saving it instead would write what the buffer holds, review "
        "comments included.",
        types.MessageType.Info,
    )


def reject(server: PlanModeServer, params: RejectParams) -> OkResult:
    """A session's plan, or a teammate's request to this lead (core/service.py)."""
    decision = server.service.reject(
        params.approval_id,
        params.session_id,
        params.feedback,
        include_comments=params.include_comments,
    )
    finish(server, decision)
    return OkResult()


def list_approvals(server: PlanModeServer, params: ListApprovalsParams) -> ListApprovalsResult:
    """Every decision waiting in the workspace: each session's approval (with ``sessionId``,
    only that session's), and teammates' requests to this lead."""
    service = server.service
    sessions = list(service.sessions.values())
    if params.session_id is not None:
        sessions = [s for s in sessions if s.id == params.session_id]
    found = [Approval.model_validate(s.pending) for s in sessions if s.pending is not None]
    if params.session_id is None:
        found += [Approval.model_validate(r) for r in service.teammate_requests()]
    return ListApprovalsResult(approvals=found)


def teammate_answered(server: PlanModeServer, request_id: str, outcome: ResolvedOutcome) -> None:
    notify_resolved(server, request_id, outcome)
    server.refresh_code_lenses()


def register(server: PlanModeServer) -> None:
    server.add_feature(Approvals())
    server.request(protocol.EXIT, ExitParams)(exit_plan_mode)
    server.request(protocol.APPROVE, ApproveParams)(approve)
    server.request(protocol.REJECT, RejectParams)(reject)
    server.request(protocol.LIST_APPROVALS, ListApprovalsParams)(list_approvals)
    server.command_request(protocol.COMMAND_APPROVE, ApproveParams, approve)
    server.command_request(protocol.COMMAND_REJECT, RejectParams, reject)
