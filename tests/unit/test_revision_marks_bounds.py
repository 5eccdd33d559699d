"""Revision marks of a huge revision stay bounded (lsp/features/revisionmarks.py,
docs/protocol.md §12.4): a plan revised whole, tens of thousands of lines, is not tens of
thousands of diagnostics, nor a tooltip or message with every removed line, on every refresh."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from lsprotocol import types

from planmode.core.revisions import Hunk
from planmode.lsp.features import revisionmarks

LINES = 60_000


def server(hunks: list[Hunk], inlay_hints: bool) -> Any:
    review = SimpleNamespace(unreviewed=lambda path, text: hunks)
    return SimpleNamespace(
        service=SimpleNamespace(review=review),
        client_supports=lambda *names: inlay_hints,
    )


def huge() -> tuple[list[Hunk], str]:
    new = tuple(f"{i}. new step {i}\n" for i in range(LINES))
    old = tuple(f"{i}. old step {i}\n" for i in range(LINES))
    return [Hunk(0, new, 0, old)], "".join(new)


def test_a_huge_revision_marks_a_bounded_number_of_lines() -> None:
    hunks, text = huge()
    marks = revisionmarks.RevisionMarks()
    found = marks.diagnostics(server(hunks, inlay_hints=False), Path("/p.md"), text)
    added = [d for d in found if d.code == revisionmarks.ADDED_CODE]
    (removed,) = [d for d in found if d.code == revisionmarks.REMOVED_CODE]
    assert 0 < len(added) <= revisionmarks.MAX_MARKED_LINES
    assert len(removed.message) < 20_000
    assert f"{LINES - revisionmarks.MAX_REMOVED_SHOWN} more lines" in removed.message

    everything = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=LINES, character=0)
    )
    (hint,) = marks.inlay_hints(server(hunks, inlay_hints=True), Path("/p.md"), text, everything)
    assert isinstance(hint.tooltip, str) and len(hint.tooltip) < 20_000
    assert hint.label == f"− “0. old step 0” +{LINES - 1} more"


def test_a_small_revision_marks_every_line() -> None:
    hunks = [Hunk(2, ("a\n", "b\n"), 2, ("c\n",))]
    found = revisionmarks.RevisionMarks().diagnostics(
        server(hunks, inlay_hints=False), Path("/p.md"), "x\ny\na\nb\n"
    )
    assert [(d.range.start.line, d.code) for d in found] == [
        (2, revisionmarks.ADDED_CODE),
        (3, revisionmarks.ADDED_CODE),
        (2, revisionmarks.REMOVED_CODE),
    ]
    assert found[-1].message == "Removed by the agent's revision: c"
