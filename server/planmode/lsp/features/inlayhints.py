"""``textDocument/inlayHint``: one provider for every hint the server shows in a plan.

Features that have hints to show in a document are *hint sources* (:class:`HintSource`):
they add themselves to :class:`InlayHints` in their ``register()`` and are asked, in the order
they were added, for the hints of the requested range. The provider reads the document once, as
the editor holds it (an open buffer wins over the file: core/registry.py), and hands each
source its path, text and the requested range. Today's sources: the approved plan's progress
(lsp/features/progress.py: each step's mark and the drift count, docs/protocol.md §12.1) and
the revision marks of a plan under review (lsp/features/revisionmarks.py: the text an agent's
revision removed, §12.4).

An editor that asked for hints once is asked to again (``workspace/inlayHint/refresh``, when
it supports it) whenever a source's hints change: :func:`refresh`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from lsprotocol import types

from planmode.lsp.server import Feature, PlanModeServer, uri_to_path


class HintSource(Protocol):
    def inlay_hints(
        self, server: PlanModeServer, path: Path, text: str, requested: types.Range
    ) -> list[types.InlayHint]:
        """The hints of ``path`` (holding ``text``) in the ``requested`` range."""
        ...


class InlayHints(Feature):
    """The hint sources, asked in the order they were added."""

    def __init__(self) -> None:
        self.sources: list[HintSource] = []

    def add(self, source: HintSource) -> None:
        self.sources.append(source)


def inside(line: int, requested: types.Range) -> bool:
    return requested.start.line <= line <= requested.end.line


def inlay_hints(server: PlanModeServer, params: types.InlayHintParams) -> list[types.InlayHint]:
    path = uri_to_path(params.text_document.uri)
    if path is None:
        return []
    sources = server.get_feature(InlayHints).sources
    if not sources:
        return []
    text = server.service.read_text(path)
    if text is None:
        return []
    hints: list[types.InlayHint] = []
    for source in sources:
        hints += source.inlay_hints(server, path, text, params.range)
    return hints


def supported(server: PlanModeServer) -> bool:
    """Whether the editor asks for inlay hints (else sources show their marks otherwise)."""
    return server.client_supports("text_document", "inlay_hint")


def refresh(server: PlanModeServer) -> None:
    """Ask the editor for the hints again (they changed), when it can be asked."""
    if server.client_supports("workspace", "inlay_hint", "refresh_support"):
        server.run_task(server.workspace_inlay_hint_refresh_async(None))


def register(server: PlanModeServer) -> None:
    server.add_feature(InlayHints())
    server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))(
        inlay_hints
    )
