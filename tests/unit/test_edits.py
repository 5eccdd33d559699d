"""Workspace edits: LSP positions (UTF-16), overlap rules, and all-or-nothing disk writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from planmode.core import edits
from planmode.core.edits import (
    ChangeText,
    CreateFile,
    DeleteFile,
    EditError,
    RenameFile,
    TextEdit,
    apply_text_edits,
    apply_to_disk,
    first_outside,
    simulate,
    targets,
)


def edit(sl: int, sc: int, el: int, ec: int, text: str) -> TextEdit:
    return TextEdit((sl, sc), (el, ec), text)


def lsp_position(text: str, index: int) -> tuple[int, int]:
    """Reference: the LSP position of ``text[index]`` (lines end at \\n, \\r\\n or \\r)."""
    before = text[:index]
    breaks = list(re.finditer(r"\r\n|\r|\n", before))
    line_start = breaks[-1].end() if breaks else 0
    units = len(before[line_start:].encode("utf-16-le")) // 2
    return len(breaks), units


# -- apply_text_edits -------------------------------------------------------------------------
def test_edits_refer_to_the_original_text() -> None:
    text = "one\ntwo\nthree\n"
    result = apply_text_edits(
        text, [edit(2, 0, 2, 5, "3"), edit(0, 0, 0, 3, "1"), edit(1, 0, 1, 0, "2: ")]
    )
    assert result == "1\n2: two\n3\n"


def test_utf16_positions_count_an_emoji_as_two_units() -> None:
    text = "a😀b\nx"
    assert apply_text_edits(text, [edit(0, 3, 0, 4, "B")]) == "a😀B\nx"
    assert apply_text_edits(text, [edit(0, 1, 0, 3, ":)")]) == "a:)b\nx"
    # Characters outside the BMP before the edit on the same line shift it by two each.
    assert apply_text_edits("😀😀z", [edit(0, 4, 0, 5, "!")]) == "😀😀!"


def test_non_bmp_in_an_earlier_line_does_not_shift_later_lines() -> None:
    assert apply_text_edits("😀\nab", [edit(1, 1, 1, 2, "B")]) == "😀\naB"


def test_crlf_and_cr_line_endings() -> None:
    text = "a\r\nb\rc\n"
    assert apply_text_edits(text, [edit(1, 0, 1, 1, "B")]) == "a\r\nB\rc\n"
    assert apply_text_edits(text, [edit(2, 0, 2, 1, "C")]) == "a\r\nb\rC\n"
    # A character past the line's end stays before its line break.
    assert apply_text_edits(text, [edit(0, 9, 0, 9, "!")]) == "a!\r\nb\rc\n"


@pytest.mark.parametrize("separator", ["\x0c", "\x0b", "\u2028", "\x85", "\x1e"])
def test_only_lsp_line_breaks_end_a_line(separator: str) -> None:
    text = f"a{separator}b\nc"
    assert apply_text_edits(text, [edit(0, 2, 0, 3, "B")]) == f"a{separator}B\nc"
    assert apply_text_edits(text, [edit(1, 0, 1, 1, "C")]) == f"a{separator}b\nC"


def test_positions_past_the_end_clamp() -> None:
    assert apply_text_edits("ab\ncd", [edit(0, 99, 0, 99, "!")]) == "ab!\ncd"
    assert apply_text_edits("ab\ncd", [edit(7, 0, 9, 0, "!")]) == "ab\ncd!"
    assert apply_text_edits("", [edit(0, 0, 0, 0, "new")]) == "new"


def test_inserts_at_the_same_position_keep_their_order() -> None:
    assert apply_text_edits("ab", [edit(0, 1, 0, 1, "1"), edit(0, 1, 0, 1, "2")]) == "a12b"


def test_adjacent_edits_are_fine() -> None:
    assert apply_text_edits("abcd", [edit(0, 0, 0, 2, "X"), edit(0, 2, 0, 4, "Y")]) == "XY"


@pytest.mark.parametrize(
    "pair",
    [
        (edit(0, 0, 0, 3, "X"), edit(0, 2, 0, 4, "Y")),
        (edit(0, 1, 0, 2, "X"), edit(0, 0, 0, 4, "Y")),
        (edit(0, 0, 1, 1, "X"), edit(1, 0, 1, 0, "Y")),
    ],
)
def test_overlapping_edits_are_rejected(pair: tuple[TextEdit, TextEdit]) -> None:
    with pytest.raises(EditError, match="overlap"):
        apply_text_edits("abcd\nefgh", list(pair))


def test_a_range_ending_before_it_starts_is_rejected() -> None:
    with pytest.raises(EditError, match="ends before it starts"):
        apply_text_edits("abcd", [edit(0, 3, 0, 1, "X")])


def test_a_negative_position_is_rejected() -> None:
    with pytest.raises(EditError, match="negative"):
        apply_text_edits("abcd", [edit(0, -1, 0, 1, "X")])


@given(
    text=st.text(alphabet=st.sampled_from("ab\n\r\x0c\u2028é😀")),
    data=st.data(),
    new_text=st.text(max_size=5),
)
def test_a_single_edit_equals_string_slicing(text: str, data: st.DataObject, new_text: str) -> None:
    begin = data.draw(st.integers(0, len(text)), label="begin")
    end = data.draw(st.integers(begin, len(text)), label="end")
    # LSP cannot name a point between \r and \n.
    for index in (begin, end):
        assume(not (0 < index < len(text) and text[index - 1 : index + 1] == "\r\n"))
    start, stop = lsp_position(text, begin), lsp_position(text, end)
    result = apply_text_edits(text, [TextEdit(start, stop, new_text)])
    assert result == text[:begin] + new_text + text[end:]


@given(st.text())
def test_no_edits_leave_the_text_alone(text: str) -> None:
    assert apply_text_edits(text, []) == text


# -- targets ----------------------------------------------------------------------------------
def test_targets_include_both_sides_of_a_rename_once(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    ops = [ChangeText(a, ()), RenameFile(a, b), DeleteFile(c), CreateFile(b)]
    assert targets(ops) == [a, b, c]
    assert first_outside(ops, {a, b}) == c
    assert first_outside(ops, {a, b, c}) is None
    assert first_outside([RenameFile(a, b)], {a}) == b


# -- simulate ---------------------------------------------------------------------------------
def test_simulate_computes_without_writing(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("hello")
    b, c = tmp_path / "b.txt", tmp_path / "c.txt"
    final = simulate(
        [
            ChangeText(a, (edit(0, 0, 0, 5, "bye"),)),
            RenameFile(a, b),
            CreateFile(c),
            ChangeText(c, (edit(0, 0, 0, 0, "new"),)),
        ]
    )
    assert final == {a: None, b: "bye", c: "new"}
    assert a.read_text() == "hello"
    assert not b.exists() and not c.exists()


@pytest.mark.parametrize(
    ("op_factory", "message"),
    [
        (lambda d: ChangeText(d / "missing", ()), "does not exist"),
        (lambda d: CreateFile(d / "exists"), "already exists"),
        (lambda d: RenameFile(d / "missing", d / "x"), "does not exist"),
        (lambda d: RenameFile(d / "exists", d / "other"), "already exists"),
        (lambda d: DeleteFile(d / "missing"), "does not exist"),
        (lambda d: DeleteFile(d / "dir"), "directory"),
    ],
)
def test_simulate_refuses_impossible_operations(
    tmp_path: Path, op_factory: object, message: str
) -> None:
    (tmp_path / "exists").write_text("e")
    (tmp_path / "other").write_text("o")
    (tmp_path / "dir").mkdir()
    with pytest.raises(EditError, match=message):
        simulate([op_factory(tmp_path)])  # type: ignore[operator]


def test_simulate_honours_the_ignore_and_overwrite_options(tmp_path: Path) -> None:
    (tmp_path / "exists").write_text("e")
    (tmp_path / "other").write_text("o")
    ops = [
        CreateFile(tmp_path / "exists", ignore_if_exists=True),
        DeleteFile(tmp_path / "missing", ignore_if_not_exists=True),
        RenameFile(tmp_path / "exists", tmp_path / "other", ignore_if_exists=True),
    ]
    assert simulate(ops) == {
        tmp_path / "exists": "e",
        tmp_path / "missing": None,
        tmp_path / "other": "o",
    }
    overwrite = simulate([RenameFile(tmp_path / "exists", tmp_path / "other", overwrite=True)])
    assert overwrite == {tmp_path / "exists": None, tmp_path / "other": "e"}
    assert simulate([CreateFile(tmp_path / "exists", overwrite=True)]) == {tmp_path / "exists": ""}


# -- apply_to_disk ----------------------------------------------------------------------------
@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    made = {name: tmp_path / "src" / f"{name}.py" for name in ("a", "b")}
    for name, path in made.items():
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"{name} = 1\n")
    return made


def snapshot(directory: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(directory.iterdir())}


def test_apply_to_disk_applies_every_operation(files: dict[str, Path]) -> None:
    a, b = files["a"], files["b"]
    new = a.parent / "c.py"
    apply_to_disk(
        [
            ChangeText(a, (edit(0, 4, 0, 5, "2"),)),
            CreateFile(new),
            ChangeText(new, (edit(0, 0, 0, 0, "c = 3\n"),)),
            DeleteFile(b),
        ]
    )
    assert snapshot(a.parent) == {"a.py": "a = 2\n", "c.py": "c = 3\n"}


def test_one_failing_operation_leaves_every_file_unchanged(files: dict[str, Path]) -> None:
    a, b = files["a"], files["b"]
    before = snapshot(a.parent)
    with pytest.raises(EditError, match="does not exist"):
        apply_to_disk(
            [
                ChangeText(a, (edit(0, 0, 0, 1, "A"),)),
                CreateFile(a.parent / "new.py"),
                DeleteFile(b),
                ChangeText(a.parent / "missing.py", (edit(0, 0, 0, 0, "x"),)),
            ]
        )
    assert snapshot(a.parent) == before


def test_overlapping_edits_in_one_file_leave_the_others_unchanged(
    files: dict[str, Path],
) -> None:
    a, b = files["a"], files["b"]
    before = snapshot(a.parent)
    with pytest.raises(EditError, match="overlap"):
        apply_to_disk(
            [
                ChangeText(a, (edit(0, 0, 0, 1, "A"),)),
                ChangeText(b, (edit(0, 0, 0, 3, "x"), edit(0, 1, 0, 2, "y"))),
            ]
        )
    assert snapshot(a.parent) == before


def test_a_write_failing_midway_puts_back_what_was_written(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = files["a"], files["b"]
    created = a.parent / "new.py"
    before = snapshot(a.parent)
    real_write = edits.write_atomic
    failed: list[Path] = []

    def flaky(path: Path, text: str) -> None:
        if path == b and not failed:
            failed.append(path)
            raise OSError(28, "No space left on device")
        real_write(path, text)

    monkeypatch.setattr(edits, "write_atomic", flaky)
    with pytest.raises(EditError, match="No space left"):
        apply_to_disk(
            [
                ChangeText(a, (edit(0, 0, 0, 1, "A"),)),
                CreateFile(created),
                ChangeText(created, (edit(0, 0, 0, 0, "new"),)),
                ChangeText(b, (edit(0, 0, 0, 1, "B"),)),
            ]
        )
    assert failed == [b]
    assert snapshot(a.parent) == before


def test_renaming_a_file_onto_itself_keeps_it(files: dict[str, Path]) -> None:
    a = files["a"]
    apply_to_disk([RenameFile(a, a, overwrite=True)])
    assert a.read_text() == "a = 1\n"
