"""The trimmed line diff is a valid diff: its opcodes rebuild the new text from the old."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from planmode.core.linediff import opcodes

lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "same\n", "x"]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(lines, lines)
def test_opcodes_rebuild_the_new_text(old: list[str], new: list[str]) -> None:
    rebuilt: list[str] = []
    position = 0
    for tag, i1, i2, j1, j2 in opcodes(old, new):
        assert i1 == position, "opcodes must cover the old text in order"
        position = i2
        if tag == "equal":
            assert old[i1:i2] == new[j1:j2]
        rebuilt += new[j1:j2]
    assert position == len(old)
    assert rebuilt == new


def test_an_edit_in_the_middle_of_a_long_text_is_one_hunk() -> None:
    old = [f"line {i}\n" for i in range(5000)]
    new = [*old[:2500], "inserted\n", *old[2500:]]
    changed = [op for op in opcodes(old, new) if op[0] != "equal"]
    assert changed == [("insert", 2500, 2500, 2500, 2501)]


def test_equal_texts_have_only_equal_opcodes() -> None:
    text = ["a\n", "b\n"]
    assert all(op[0] == "equal" for op in opcodes(text, list(text)))
    assert opcodes([], []) == []
