"""``planMode/applyEdit``: an agent's workspace edit, checked whole, then applied whole.

In plan mode an edit whose targets are not all this session's plan file is refused entirely
(docs/protocol.md §6). An allowed edit goes to the editor with ``workspace/applyEdit`` so it is
undoable there; an editor that cannot apply edits gets it written to disk instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
from lsprotocol import types
from lsprotocol.converters import get_converter

from planmode.core import edits
from planmode.core.errors import InvalidParams
from planmode.lsp import protocol
from planmode.lsp.features import progress, revisionmarks
from planmode.lsp.features.buffers import Buffers, line_edits
from planmode.lsp.features.state import publish_state, session_for
from planmode.lsp.params import ApplyEditParams
from planmode.lsp.results import ApplyEditResult
from planmode.lsp.server import PlanModeServer, uri_to_path

_converter = get_converter()


def _path(uri: str) -> Path:
    path = uri_to_path(uri)
    if path is None:
        raise InvalidParams(f"planMode/applyEdit: {uri!r} is not a file: URI")
    return path


def _text_edits(raw: Sequence[Any]) -> tuple[edits.TextEdit, ...]:
    converted = []
    for e in raw:
        if not isinstance(e.new_text, str):
            raise InvalidParams("planMode/applyEdit: snippet edits are not supported")
        converted.append(
            edits.TextEdit(
                (e.range.start.line, e.range.start.character),
                (e.range.end.line, e.range.end.character),
                e.new_text,
            )
        )
    return tuple(converted)


def to_operations(edit: types.WorkspaceEdit) -> list[edits.Operation]:
    """The edit as core operations; ``documentChanges`` wins over ``changes`` (as in LSP)."""
    operations: list[edits.Operation] = []
    if edit.document_changes is not None:
        for change in edit.document_changes:
            if isinstance(change, types.TextDocumentEdit):
                operations.append(
                    edits.ChangeText(_path(change.text_document.uri), _text_edits(change.edits))
                )
            elif isinstance(change, types.CreateFile):
                create = change.options
                operations.append(
                    edits.CreateFile(
                        _path(change.uri),
                        bool(create and create.overwrite),
                        bool(create and create.ignore_if_exists),
                    )
                )
            elif isinstance(change, types.RenameFile):
                rename = change.options
                operations.append(
                    edits.RenameFile(
                        _path(change.old_uri),
                        _path(change.new_uri),
                        bool(rename and rename.overwrite),
                        bool(rename and rename.ignore_if_exists),
                    )
                )
            elif isinstance(change, types.DeleteFile):
                delete = change.options
                operations.append(
                    edits.DeleteFile(
                        _path(change.uri),
                        bool(delete and delete.recursive),
                        bool(delete and delete.ignore_if_not_exists),
                    )
                )
    elif edit.changes:
        for uri, text_edits in edit.changes.items():
            operations.append(edits.ChangeText(_path(uri), _text_edits(text_edits)))
    return operations


def canonical_uri(uri: str) -> str:
    """The URI of the file ``uri`` resolves to: the one the plan-mode check judged."""
    return _path(uri).as_uri()


def canonical_edit(edit: types.WorkspaceEdit) -> types.WorkspaceEdit:
    """``edit`` with every URI replaced by :func:`canonical_uri` (both sides of a rename).

    The editor then applies the edit to exactly the files that were checked: an editor that
    normalises ``link/../plan.md`` as text, or maps a symlinked folder differently, never
    receives a spelling that could mean another file. ``changes`` naming one file under two
    spellings is refused: an editor would apply those lists in an undefined order.
    """
    document_changes: list[Any] | None = None
    if edit.document_changes is not None:
        document_changes = []
        for change in edit.document_changes:
            if isinstance(change, types.TextDocumentEdit):
                document = attrs.evolve(
                    change.text_document, uri=canonical_uri(change.text_document.uri)
                )
                document_changes.append(attrs.evolve(change, text_document=document))
            elif isinstance(change, types.RenameFile):
                document_changes.append(
                    attrs.evolve(
                        change,
                        old_uri=canonical_uri(change.old_uri),
                        new_uri=canonical_uri(change.new_uri),
                    )
                )
            else:
                document_changes.append(attrs.evolve(change, uri=canonical_uri(change.uri)))
    changes: dict[str, Sequence[Any]] | None = None
    if edit.changes is not None:
        changes = {}
        for uri, text_edits in edit.changes.items():
            canonical = canonical_uri(uri)
            if canonical in changes:
                raise InvalidParams(
                    f"planMode/applyEdit: 'changes' names {_path(uri)} twice, under different URIs"
                )
            changes[canonical] = text_edits
    return attrs.evolve(edit, document_changes=document_changes, changes=changes)


def parse_workspace_edit(raw: dict[str, Any]) -> types.WorkspaceEdit:
    try:
        return _converter.structure(raw, types.WorkspaceEdit)
    except Exception as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidParams(
            f"planMode/applyEdit: field 'edit' is not a valid WorkspaceEdit ({detail})"
        ) from exc


async def apply_edit(server: PlanModeServer, params: ApplyEditParams) -> ApplyEditResult:
    session = session_for(server, params)
    # Checked, forwarded and written: only the resolved URIs, never the agent's spellings.
    workspace_edit = canonical_edit(parse_workspace_edit(params.edit))
    operations = to_operations(workspace_edit)
    if not operations:
        raise InvalidParams("planMode/applyEdit: field 'edit' contains no changes")
    service = server.service
    # `changes` next to `documentChanges` is what an editor without documentChanges support
    # applies: its targets are targets too, for plan mode and for drift.
    checked = list(operations)
    if workspace_edit.document_changes is not None and workspace_edit.changes:
        checked += [edits.ChangeText(_path(uri), ()) for uri in workspace_edit.changes]
    if session.modes.mode == "plan":
        allowed = {service.plan_path(session, params.agent_id)}
        outside = edits.first_outside(checked, allowed)
        if outside is not None:
            return ApplyEditResult(
                applied=False,
                failure_reason=(
                    f"Plan mode: the whole edit was rejected because it targets {outside}, "
                    f"which is not the plan file ({next(iter(allowed))}). Only the plan file "
                    "may be written while planning."
                ),
            )
    else:
        # Carrying out an approved plan: a target it never names drifts (docs/protocol.md
        # §12.2); under `ask` the user answers in the editor, under `deny` nothing changes.
        targets = [str(path) for path in edits.targets(checked)]
        observed = service.executions.observe_edit(session, targets)
        found = observed.outcome if observed is not None else None
        if found is not None and (
            found.behavior == "deny" or not await progress.confirm_drift(server, found)
        ):
            return ApplyEditResult(applied=False, failure_reason=found.message)
    plan_texts = resulting_plan_texts(server, operations)
    for path, text in plan_texts.items():
        # The agent's: the buffer's change it makes arrives before the editor's answer.
        service.expect_agent_text(path, text)
    if server.client_supports("workspace", "apply_edit"):
        forwarded = versioned_for_open_buffers(server, operations) or workspace_edit
        answer = await server.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=forwarded, label=params.label)
        )
        result = ApplyEditResult(
            applied=bool(answer.applied),
            failure_reason=None
            if answer.applied
            else answer.failure_reason or "the editor did not apply it",
        )
    else:
        try:
            edits.apply_to_disk(operations)
            result = ApplyEditResult(applied=True)
        except edits.EditError as exc:
            result = ApplyEditResult(applied=False, failure_reason=str(exc))
    if result.applied:
        for path, text in plan_texts.items():
            service.agent_edited(path, text, params.label or "agent edit")
            revisionmarks.refresh(server, path)  # its diagnostics too
        publish_state(server, session)
        server.refresh_code_lenses()
    return result


def versioned_for_open_buffers(
    server: PlanModeServer, operations: list[edits.Operation]
) -> types.WorkspaceEdit | None:
    """The agent's text edits of open documents as versioned ``documentChanges`` against the
    text the server knows each buffer holds (lsp/features/buffers.py): an editor whose buffer
    moved on since refuses them instead of applying the ranges to other text. None when the edit
    has file operations or targets a closed file (forwarded as the agent sent it), or the client
    cannot check versions."""
    if not server.client_supports("workspace", "workspace_edit", "document_changes"):
        return None
    buffers = server.get_feature(Buffers)
    documents = {}
    for operation in operations:
        if not isinstance(operation, edits.ChangeText):
            return None
        document = buffers.document(operation.path)
        if document is None:
            return None
        documents[operation.path] = document
    try:
        final = edits.simulate(operations, lambda path: documents[path].source)
    except (edits.EditError, KeyError):
        return None  # forwarded as sent: the editor refuses it too
    changes: list[
        types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile
    ] = []
    for path, document in documents.items():
        text = final.get(path)
        if text is None:
            return None
        changes.append(
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=path.as_uri(), version=document.version
                ),
                edits=list(line_edits(document.source, text)),
            )
        )
    return types.WorkspaceEdit(document_changes=changes)


def resulting_plan_texts(
    server: PlanModeServer, operations: list[edits.Operation]
) -> dict[Path, str]:
    """What each plan file touched by the edit will hold once it is applied."""
    touched = [p for p in edits.targets(operations) if server.service.is_plan_file(p)]
    if not touched:
        return {}
    try:
        final = edits.simulate(operations, server.service.read_text)
    except edits.EditError:
        return {}  # the editor will refuse it too
    return {p: text for p in touched if (text := final.get(p)) is not None}


def register(server: PlanModeServer) -> None:
    server.request(protocol.APPLY_EDIT, ApplyEditParams)(apply_edit)
