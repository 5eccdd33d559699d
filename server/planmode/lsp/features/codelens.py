"""Code lenses on a plan file under review: Approve plan, Approve & auto-accept edits, Reject….

Each lens carries the SHA-256 of the plan text as it was when the lens was computed, so a
lens shown before the plan changed cannot approve the changed plan (docs/protocol.md §8).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types

from planmode.core.approval import Approval, approve_lens_title, plan_digest
from planmode.core.comments import delivered, strip_comments
from planmode.core.revisions import Hunk, summary
from planmode.core.teams import PendingRequest
from planmode.lsp import protocol
from planmode.lsp.features import progress
from planmode.lsp.features.buffers import Buffers
from planmode.lsp.params import (
    ApproveParams,
    HunkParams,
    RejectParams,
    SaveForLaterParams,
    WireParams,
)
from planmode.lsp.server import Feature, PlanModeServer, uri_to_path


def lens(
    line: int, title: str, command: str, argument: WireParams, tooltip: str | None = None
) -> types.CodeLens:
    """A lens at the start of ``line`` running ``command`` with ``argument``, the params of the
    command it runs, as its one argument (in their wire form)."""
    at = types.Position(line=line, character=0)
    return types.CodeLens(
        range=types.Range(start=at, end=at),
        command=types.Command(
            title=title, command=command, arguments=[argument.wire()], tooltip=tooltip
        ),
    )


def approval_lenses(
    approval: Approval, current: str, unreviewed: int = 0, comments: int = 0
) -> list[types.CodeLens]:
    """The approval's lenses on the plan as it holds ``current``, with ``unreviewed`` agent
    changes and ``comments`` review comments the user wrote."""
    # The lenses deliver the plan's review comments: notes on approval, feedback on rejection;
    # and grant the allowed prompts their titles show.
    approve_args = ApproveParams.build(
        approval_id=approval.approval_id,
        session_id=approval.session_id or None,
        plan_sha256=plan_digest(current),
        include_comments=True,
        allowed_prompts=approval.allowed_prompts,
    )
    # Review comments are not plan content: writing one is not an edit of the plan.
    submitted, body = strip_comments(approval.submitted_plan), strip_comments(current)
    title = approve_lens_title(submitted, body, unreviewed)
    accept_edits_title = protocol.LENS_APPROVE_ACCEPT_EDITS
    tooltip = None
    rules = approval.grants
    if rules:
        # Shown before they are granted: the prompts in the titles, the exact rules on hover.
        title += " and allow " + "; ".join(rule.label() for rule in rules)
        accept_edits_title += " and allow the same"
        tooltip = "Approving also allows these commands without asking:\n" + "\n".join(
            f"• {rule.rule}" for rule in rules
        )
    reject_args = RejectParams.build(
        approval_id=approval.approval_id,
        session_id=approval.session_id or None,
        include_comments=True,
    )
    return [
        lens(0, title, protocol.COMMAND_APPROVE, approve_args, tooltip),
        lens(
            0,
            accept_edits_title,
            protocol.COMMAND_APPROVE,
            approve_args.model_copy(update={"mode": "acceptEdits"}),
            tooltip,
        ),
        lens(0, reject_lens_title(comments), protocol.COMMAND_REJECT, reject_args),
        # The plan as shown, kept for later (docs/protocol.md §12.3): the approve lenses' digest.
        lens(
            0,
            protocol.LENS_SAVE_FOR_LATER,
            protocol.COMMAND_SAVE_FOR_LATER,
            SaveForLaterParams.build(
                approval_id=approval.approval_id,
                session_id=approval.session_id or None,
                plan_sha256=approve_args.plan_sha256,
            ),
        ),
    ]


def reject_lens_title(count: int) -> str:
    """``Reject…``, or ``Reject… (3 comments)`` when the plan holds the user's review
    comments (only those: core/provenance.py)."""
    if not count:
        return protocol.LENS_REJECT
    return f"{protocol.LENS_REJECT} ({count} comment{'s' if count != 1 else ''})"


def hunk_lenses(path: Path, hunk: Hunk) -> list[types.CodeLens]:
    """Keep and Undo over one changed hunk of an agent's revision."""
    args = HunkParams.build(path=str(path), hunk_id=hunk.id)
    added, removed = hunk.counts
    return [
        lens(hunk.start, f"Keep (+{added} −{removed})", protocol.COMMAND_KEEP_HUNK, args),
        lens(hunk.start, f"Undo: {summary(hunk)}", protocol.COMMAND_UNDO_HUNK, args),
    ]


def teammate_lenses(
    request: PendingRequest, current: str, comments: int = 0
) -> list[types.CodeLens]:
    """The lead's lenses on a teammate's plan: the same commands, the request id as approvalId."""
    args = ApproveParams.build(approval_id=request.request_id, plan_sha256=plan_digest(current))
    body = strip_comments(current)
    edited = approve_lens_title(strip_comments(request.plan), body)
    title = f"{protocol.LENS_APPROVE} from {request.agent}" + edited.removeprefix(
        protocol.LENS_APPROVE
    )
    reject_args = RejectParams.build(approval_id=request.request_id, include_comments=True)
    return [
        lens(0, title, protocol.COMMAND_APPROVE, args),
        lens(0, reject_lens_title(comments), protocol.COMMAND_REJECT, reject_args),
    ]


@dataclass(frozen=True)
class MemoEntry:
    """Approval lenses and the texts they were computed from."""

    submitted: str
    current: str
    unreviewed: int
    comments: int
    lenses: list[types.CodeLens]


class LensMemo(Feature):
    """The last approval lenses per approval, reused while neither text object changed.

    Editors ask for lenses again on focus, scroll and refresh without any edit; a 5,000-line
    plan need not be digested and diffed again for that. Keyed on the identity of the
    immutable texts, so any change (a new buffer text, a revised submission) recomputes.
    """

    def __init__(self) -> None:
        self._entries: dict[str, MemoEntry] = {}

    def lenses(
        self, approval: Approval, current: str, unreviewed: int, comments: int
    ) -> list[types.CodeLens]:
        entry = self._entries.get(approval.approval_id)
        if (
            entry is not None
            and entry.submitted is approval.submitted_plan
            and entry.current is current
            and entry.unreviewed == unreviewed
            and entry.comments == comments
        ):
            return entry.lenses
        computed = approval_lenses(approval, current, unreviewed, comments)
        if len(self._entries) > 64:
            self._entries.clear()
        self._entries[approval.approval_id] = MemoEntry(
            approval.submitted_plan, current, unreviewed, comments, computed
        )
        return computed


def out_of_date(approve: types.CodeLens) -> types.CodeLens:
    """The Approve lens while the buffer did not take the server's last change: the file,
    not the buffer, is what it approves (lsp/features/buffers.py)."""
    assert approve.command is not None
    title = f"{approve.command.title} {protocol.LENS_BUFFER_OUT_OF_DATE}"
    return types.CodeLens(
        range=approve.range,
        command=types.Command(
            title=title, command=approve.command.command, arguments=approve.command.arguments
        ),
    )


# The lines a decision is about: None for the whole plan, else [first, last] (0-based).
Lines = tuple[int, int] | None


def hunk_lines(hunk: Hunk) -> tuple[int, int]:
    """The lines of a hunk's current text; a pure deletion touches the lines around its gap."""
    if hunk.new_lines:
        return hunk.start, hunk.start + len(hunk.new_lines) - 1
    return max(hunk.start - 1, 0), hunk.start


def plan_decisions(server: PlanModeServer, path: Path) -> list[tuple[types.CodeLens, Lines]]:
    """Every decision the user can take on ``path`` now, each with the lines it is about.

    The one source of the review's commands: code lenses show all of them, code actions
    (lsp/features/codeactions.py) those whose lines touch the requested range.
    """
    decisions: list[tuple[types.CodeLens, Lines]] = []
    service = server.service
    memo, buffers = server.get_feature(LensMemo), server.get_feature(Buffers)
    changes = service.hunks(path)  # an agent's change since is a revision from here on
    for session in service.sessions.values():
        approval = session.pending
        if approval is not None and approval.plan_file_path == path:
            current = service.current_plan(approval)
            # What these decisions show: an approval without a digest approves only it.
            service.showing(approval.approval_id, current)
            count = user_comments(server, path, current)
            lenses = memo.lenses(approval, current, len(changes), count)
            if path in buffers.out_of_date:
                lenses = [out_of_date(lenses[0]), *lenses[1:]]
            decisions += [(lens, None) for lens in lenses]
    for hunk in changes:
        decisions += [(lens, hunk_lines(hunk)) for lens in hunk_lenses(path, hunk)]
    for request in service.teammate_requests():
        if request.plan_file_path == path:
            text = service.read_text(path)
            current = request.plan if text is None else text
            service.showing(request.request_id, current)
            count = user_comments(server, path, current)
            decisions += [(lens, None) for lens in teammate_lenses(request, current, count)]
    return decisions


def user_comments(server: PlanModeServer, path: Path, current: str) -> int:
    """How many review comments the user wrote in the plan (what Reject… delivers)."""
    return len(delivered(server.service.comment_view(path, current)[0]))


def code_lens(server: PlanModeServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    path = uri_to_path(params.text_document.uri)
    if path is None:
        return []
    return [lens for lens, _ in plan_decisions(server, path)] + progress.lenses(server, path)


def register(server: PlanModeServer) -> None:
    server.add_feature(LensMemo())
    server.feature(types.TEXT_DOCUMENT_CODE_LENS)(code_lens)
