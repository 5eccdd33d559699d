"""Plan revisions: the history requests (listRevisions, revisionDiff), and Keep / Undo of the
agent's changes hunk by hunk (listHunks, keepHunk, undoHunk and their lenses)."""

from __future__ import annotations

from pathlib import Path

from pygls.uris import to_fs_path

from planmode.core.errors import InvalidParams
from planmode.lsp import protocol
from planmode.lsp.features import buffers, codelens, revisionmarks
from planmode.lsp.features.state import session_for
from planmode.lsp.params import (
    HunkParams,
    ListHunksParams,
    Params,
    RevisionDiffParams,
    RevisionsParams,
    RevisionTextParams,
)
from planmode.lsp.results import (
    HunkInfo,
    ListHunksResult,
    ListRevisionsResult,
    OkResult,
    Revision,
    RevisionDiffResult,
    RevisionTextResult,
)
from planmode.lsp.server import PlanModeServer


def plan_file(server: PlanModeServer, params: Params, raw: str | None) -> Path:
    """The plan file a request names (a path or a file: URI), or the session's own."""
    if raw is None:
        return server.service.plan_path(session_for(server, params))
    # The spelling as sent, not yet resolved: the plan-file rule reads it both ways.
    local = to_fs_path(raw) if raw.startswith("file:") else raw
    path = server.service.find_plan_file(local)
    if path is None:
        plans_dir = server.service.plans_directory
        raise InvalidParams(f"field 'path': {raw!r} is not a plan file in {plans_dir}")
    return path


def list_revisions(server: PlanModeServer, params: RevisionsParams) -> ListRevisionsResult:
    path = plan_file(server, params, params.path)
    revisions = server.service.history.revisions(path)
    return ListRevisionsResult(
        path=str(path), revisions=[Revision.model_validate(r) for r in revisions]
    )


def revision_diff(server: PlanModeServer, params: RevisionDiffParams) -> RevisionDiffResult:
    path = plan_file(server, params, params.path)
    try:
        diff = server.service.history.diff(path, params.from_, params.to)
    except KeyError as exc:
        raise InvalidParams(f"no revision {exc.args[0]} of {path.name}") from None
    return RevisionDiffResult(path=str(path), from_=params.from_, to=params.to, diff=diff)


def revision_text(server: PlanModeServer, params: RevisionTextParams) -> RevisionTextResult:
    """One version of a plan in full: a client opens any version of its history."""
    path = plan_file(server, params, params.path)
    found = next((r for r in server.service.history.revisions(path) if r.id == params.id), None)
    if found is None:
        raise InvalidParams(f"field 'id': no revision {params.id} of {path.name}")
    return RevisionTextResult(
        path=str(path),
        id=found.id,
        author=found.author,
        time=found.time,
        reason=found.reason,
        text=found.text,
    )


def keep_hunk(server: PlanModeServer, params: HunkParams) -> OkResult:
    path = plan_file(server, params, params.path)
    server.service.keep_hunk(path, params.hunk_id)
    server.refresh_code_lenses()
    revisionmarks.refresh(server, path)
    return OkResult()


async def undo_hunk(server: PlanModeServer, params: HunkParams) -> OkResult:
    path = plan_file(server, params, params.path)
    _hunk, reverted = server.service.undo_hunk(path, params.hunk_id)
    server.service.user_wrote(path, reverted)  # the user's, in the buffer and the file
    # Through the editor when the plan is open, so the editor can undo the undo.
    if not await buffers.change_plan(
        server, path, reverted, "Undo a change to the plan", required=False
    ):
        return OkResult(ok=False, failure_reason="the editor did not apply the undo")
    server.service.history.record(path, reverted, "user", "undo of an agent change")
    server.refresh_code_lenses()
    revisionmarks.refresh(server, path)
    return OkResult()


def list_hunks(server: PlanModeServer, params: ListHunksParams) -> ListHunksResult:
    """The unreviewed hunks of one plan (``path``) or of every revised plan, with the titles
    and arguments of their Keep and Undo lenses."""
    service = server.service
    if params.path is not None:
        paths = [plan_file(server, params, params.path)]
    else:
        paths = sorted(service.revised)
    found = []
    for path in paths:
        for hunk in service.hunks(path):
            keep, undo = codelens.hunk_lenses(path, hunk)
            assert keep.command is not None and undo.command is not None
            added, removed = hunk.counts
            found.append(
                HunkInfo(
                    path=str(path),
                    hunk_id=hunk.id,
                    line=hunk.start,
                    added=added,
                    removed=removed,
                    keep_title=keep.command.title,
                    undo_title=undo.command.title,
                    removed_lines=[line.rstrip("\r\n") for line in hunk.old_lines],
                )
            )
    return ListHunksResult(hunks=found)


def register(server: PlanModeServer) -> None:
    server.request(protocol.LIST_REVISIONS, RevisionsParams)(list_revisions)
    server.request(protocol.REVISION_DIFF, RevisionDiffParams)(revision_diff)
    server.request(protocol.REVISION_TEXT, RevisionTextParams)(revision_text)
    server.command_request(protocol.COMMAND_KEEP_HUNK, HunkParams, keep_hunk)
    server.command_request(protocol.COMMAND_UNDO_HUNK, HunkParams, undo_hunk)
    server.request(protocol.LIST_HUNKS, ListHunksParams)(list_hunks)
    server.request(protocol.KEEP_HUNK, HunkParams)(keep_hunk)
    server.request(protocol.UNDO_HUNK, HunkParams)(undo_hunk)
