"""Plan-quality diagnostics pushed (``textDocument/publishDiagnostics``) for plan files.

Besides the plan's own quality (core/diagnostics.py) and its review comments, features with
diagnostics of a plan add themselves as *sources* to :class:`Diagnostics` in their
``register()`` (the approved plan's progress: lsp/features/progress.py), as inlay hints'
sources do, so this module imports none of them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsprotocol import types

from planmode.core.diagnostics import SOURCE, plan_diagnostics
from planmode.core.lines import lsp_lines
from planmode.lsp.features import buffers, comments
from planmode.lsp.server import Feature, PlanModeServer, uri_to_path

SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}

# A plan file's diagnostics from one feature: (server, path, text) -> diagnostics.
DiagnosticSource = Callable[[PlanModeServer, Path, str], list[types.Diagnostic]]


class Diagnostics(Feature):
    """The sources of a plan's diagnostics beyond its quality and comments, asked in the order
    they were added."""

    def __init__(self) -> None:
        self.sources: list[DiagnosticSource] = []

    def add(self, source: DiagnosticSource) -> None:
        self.sources.append(source)


def publish(server: PlanModeServer, path: Path) -> None:
    service = server.service
    text = service.read_text(path) or ""
    lines = lsp_lines(text) or [""]
    diagnostics = []
    for found in plan_diagnostics(text, service.settings.planFormat, path in service.empty_exits):
        line = min(found.line, len(lines) - 1)
        diagnostics.append(
            types.Diagnostic(
                range=types.Range(
                    start=types.Position(line=line, character=0),
                    end=types.Position(line=line, character=len(lines[line])),
                ),
                message=found.message,
                severity=SEVERITIES[found.severity],
                code=found.code,
                source=SOURCE,
            )
        )
    diagnostics += comments.diagnostics(server, path, text)
    for source in server.get_feature(Diagnostics).sources:
        diagnostics += source(server, path, text)
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=path.as_uri(), diagnostics=diagnostics)
    )


def refresh(server: PlanModeServer, path: Path | None) -> None:
    if path is not None and server.service.is_plan_file(path):
        publish(server, path)


def did_open(server: PlanModeServer, params: types.DidOpenTextDocumentParams) -> None:
    path = uri_to_path(params.text_document.uri)
    if path is not None:
        buffers.opened(server, path, params.text_document.text)
    refresh(server, path)


def did_change(server: PlanModeServer, params: types.DidChangeTextDocumentParams) -> None:
    path = uri_to_path(params.text_document.uri)
    if path is not None:  # the user's typing, or the agent's edit, or a reload
        buffers.changed(server, path)
    refresh(server, path)


def did_save(server: PlanModeServer, params: types.DidSaveTextDocumentParams) -> None:
    path = uri_to_path(params.text_document.uri)
    if path is not None:  # the user saved the buffer: what it holds is the plan again
        buffers.saved(server, path)
    refresh(server, path)


def register(server: PlanModeServer) -> None:
    server.add_feature(Diagnostics())
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_DID_SAVE)(did_save)
