"""The edits the server sends for a plan open in the editor turn its text into the new text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from planmode.core.lines import lsp_lines
from planmode.lsp.features import buffers

LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\r\n", "d\r", "e", "", "😀\n", "f"]), max_size=9)


def utf16_offset(line: str, character: int) -> int:
    """The index in ``line`` of a UTF-16 ``character`` position."""
    units = 0
    for index, char in enumerate(line):
        if units >= character:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def apply(old: str, edits: list) -> str:
    """What an editor makes of ``old`` with ``edits`` (LSP positions, applied back to front)."""
    lines = lsp_lines(old, keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position) -> int:  # type: ignore[no-untyped-def]
        if position.line >= len(lines):
            return starts[-1]
        return starts[position.line] + utf16_offset(lines[position.line], position.character)

    text = old
    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


@settings(max_examples=300, deadline=None)
@given(old=LINES, new=LINES)
def test_edits_turn_the_old_text_into_the_new(old: list[str], new: list[str]) -> None:
    before, after = "".join(old), "".join(new)
    assert apply(before, buffers.line_edits(before, after)) == after


def test_only_the_changed_lines_are_touched() -> None:
    old = "# Plan\n\n1. One\n2. Two\n3. Three\n"
    (edit,) = buffers.line_edits(old, old.replace("2. Two\n", "2. Two!\n"))
    assert (edit.range.start.line, edit.range.end.line, edit.new_text) == (3, 4, "2. Two!\n")
