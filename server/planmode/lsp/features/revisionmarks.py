"""Revision marks: what the agent's revisions of a plan under review changed, shown in the plan
itself by every editor (docs/protocol.md §12.4).

For each unreviewed hunk (core/revisions.py, the hunks the Keep / Undo lenses and code actions
act on):

* the text the hunk removed is an inlay hint (lsp/features/inlayhints.py) where it was removed,
  at the start of the hunk's first line — ghost text ``− “old line”``, every removed line in
  its tooltip;
* each line the hunk added is a Hint diagnostic ``Added by the agent's revision`` (code
  ``revision-added``);
* for an editor without inlay hints (eglot 1.9, Neovim 0.7) the removed text is a Hint
  diagnostic on the hunk's first line too (code ``revision-removed``).

The marks go with their hunk: kept, undone, or the plan decided (:func:`refresh` after each).
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from planmode.core.lines import lsp_lines
from planmode.core.revisions import Hunk
from planmode.lsp import protocol
from planmode.lsp.features import diagnostics, inlayhints
from planmode.lsp.features.comments import SOURCE
from planmode.lsp.server import Feature, PlanModeServer

ADDED_CODE = protocol.DIAGNOSTIC_REVISION_ADDED
REMOVED_CODE = protocol.DIAGNOSTIC_REVISION_REMOVED
ADDED_MESSAGE = "Added by the agent's revision (Keep or Undo it from the code actions)"
# How much of the removed text the ghost text shows; the tooltip has the rest.
LABEL_WIDTH = 60
# Bounds, for a revision of a huge plan (every refresh sends them all): the removed lines a
# tooltip or message shows, and the added lines marked in one plan.
MAX_REMOVED_SHOWN = 200
MAX_MARKED_LINES = 1_000


def removed_text(hunk: Hunk) -> list[str]:
    """The lines the hunk removed, without their line ends."""
    return [line.rstrip("\r\n") for line in hunk.old_lines]


def removed_shown(hunk: Hunk) -> list[str]:
    """The removed lines a tooltip or message shows: the first ones, and how many more."""
    shown = removed_text(hunk)[:MAX_REMOVED_SHOWN]
    rest = len(hunk.old_lines) - len(shown)
    return [*shown, f"… {rest} more lines"] if rest > 0 else shown


def label(hunk: Hunk) -> str:
    """The ghost text of a hunk's removed lines: the first one, short, and how many more."""
    removed = removed_text(hunk)
    first = removed[0].strip() or "(blank line)"
    if len(first) > LABEL_WIDTH:
        first = first[: LABEL_WIDTH - 1] + "…"
    more = f" +{len(removed) - 1} more" if len(removed) > 1 else ""
    return f"− “{first}”{more}"


def anchor(hunk: Hunk, lines: list[str]) -> types.Position:
    """Where the hunk's removed text was: the start of its first line now, or the end of the
    plan when it removed the plan's last lines."""
    if hunk.start < len(lines):
        return types.Position(line=hunk.start, character=0)
    last = len(lines) - 1
    return types.Position(line=max(last, 0), character=len(lines[last]) if lines else 0)


class RevisionMarks(Feature):
    """A hint source and a diagnostic source of the plans under review."""

    def inlay_hints(
        self, server: PlanModeServer, path: Path, text: str, requested: types.Range
    ) -> list[types.InlayHint]:
        lines = lsp_lines(text)
        hints = []
        for hunk in server.service.review.unreviewed(path, text):
            if not hunk.old_lines:
                continue
            position = anchor(hunk, lines)
            if not inlayhints.inside(position.line, requested):
                continue
            hints.append(
                types.InlayHint(
                    position=position,
                    label=label(hunk),
                    tooltip="Removed by the agent's revision:\n" + "\n".join(removed_shown(hunk)),
                    padding_right=True,
                )
            )
        return hints

    def diagnostics(self, server: PlanModeServer, path: Path, text: str) -> list[types.Diagnostic]:
        lines = lsp_lines(text)
        found = []
        ghost_text = inlayhints.supported(server)
        marked = 0
        for hunk in server.service.review.unreviewed(path, text):
            end = min(hunk.start + len(hunk.new_lines), len(lines))
            for line in range(hunk.start, min(end, hunk.start + MAX_MARKED_LINES - marked)):
                found.append(mark(line, len(lines[line]), ADDED_MESSAGE, ADDED_CODE))
                marked += 1
            if hunk.old_lines and not ghost_text:
                position = anchor(hunk, lines)
                end = len(lines[position.line]) if position.line < len(lines) else 0
                message = "Removed by the agent's revision: " + " ⏎ ".join(removed_shown(hunk))
                found.append(mark(position.line, end, message, REMOVED_CODE))
        return found


def mark(line: int, end: int, message: str, code: str) -> types.Diagnostic:
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=line, character=0),
            end=types.Position(line=line, character=end),
        ),
        message=message,
        severity=types.DiagnosticSeverity.Hint,
        code=code,
        source=SOURCE,
    )


def refresh(server: PlanModeServer, path: Path) -> None:
    """The plan's hunks changed (a revision, a Keep or an Undo, a decision): show its marks
    again."""
    diagnostics.refresh(server, path)
    inlayhints.refresh(server)


def register(server: PlanModeServer) -> None:
    feature = server.add_feature(RevisionMarks())
    server.get_feature(inlayhints.InlayHints).add(feature)
    server.get_feature(diagnostics.Diagnostics).add(feature.diagnostics)
