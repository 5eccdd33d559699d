"""The line diff is a valid diff (its opcodes rebuild the new text from the old), the same as
difflib's on small inputs, and stays fast and valid on large texts of repeated lines."""

from __future__ import annotations

import difflib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from planmode.core import linediff
from planmode.core.linediff import opcodes, unified_diff

lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "same\n", "x"]), max_size=30)


def rebuilt(old: list[str], new: list[str]) -> list[str]:
    """The new text as the opcodes build it from the old, checking that they tile both."""
    built: list[str] = []
    position = new_position = 0
    for tag, i1, i2, j1, j2 in opcodes(old, new):
        assert (i1, j1) == (position, new_position), "opcodes must cover both texts in order"
        position, new_position = i2, j2
        if tag == "equal":
            assert old[i1:i2] == new[j1:j2]
        else:
            assert i1 < i2 or j1 < j2
        built += new[j1:j2]
    assert (position, new_position) == (len(old), len(new))
    return built


@settings(max_examples=300, deadline=None)
@given(lines, lines)
def test_opcodes_rebuild_the_new_text(old: list[str], new: list[str]) -> None:
    assert rebuilt(old, new) == new


@settings(max_examples=300, deadline=None)
@given(lines, lines)
def test_small_texts_diff_as_difflib_does_between_their_common_ends(
    old: list[str], new: list[str]
) -> None:
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[len(old) - 1 - tail] == new[-1 - tail]:
        tail += 1
    middle = difflib.SequenceMatcher(
        None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
    )
    expected = sum(size for *_, size in middle.get_matching_blocks()) + head + tail
    found = sum(i2 - i1 for tag, i1, i2, _, _ in opcodes(old, new) if tag == "equal")
    assert found == expected


def test_an_edit_in_the_middle_of_a_long_text_is_one_hunk() -> None:
    old = [f"line {i}\n" for i in range(5000)]
    new = [*old[:2500], "inserted\n", *old[2500:]]
    changed = [op for op in opcodes(old, new) if op[0] != "equal"]
    assert changed == [("insert", 2500, 2500, 2500, 2501)]


def test_equal_texts_have_only_equal_opcodes() -> None:
    text = ["a\n", "b\n"]
    assert all(op[0] == "equal" for op in opcodes(text, list(text)))
    assert opcodes([], []) == []


def test_repeated_lines_diff_to_the_changes_made() -> None:
    """A megabyte of a few repeated lines with scattered replacements: each replacement is one
    change of one line (the fallback for gaps without unique lines finds them)."""
    old = ["- [ ] Run the tests\n" if i % 3 else "\n" for i in range(50_000)]
    new = list(old)
    for i in range(100, 50_000, 500):
        new[i] = "- [x] Ran the tests\n"
    assert rebuilt(old, new) == new
    changed = [op for op in opcodes(old, new) if op[0] != "equal"]
    assert changed == [("replace", i, i + 1, i, i + 1) for i in range(100, 50_000, 500)]


def test_large_texts_of_repeated_lines_rebuild_whatever_the_edits() -> None:
    chooser = random.Random(7)
    vocabulary = ["\n", "```\n", "- [ ] Run the tests\n", "Check it.\n"]
    for distinct in (0, 40):
        words = vocabulary + [f"{n}. Step {n}\n" for n in range(distinct)]
        old = [chooser.choice(words) for _ in range(3000)]
        new = list(old)
        for _ in range(300):
            at = chooser.randrange(len(new))
            action = chooser.randrange(3)
            if action == 0:
                del new[at]
            elif action == 1:
                new.insert(at, chooser.choice(words))
            else:
                new[at] = chooser.choice(words)
        assert rebuilt(old, new) == new
        assert rebuilt(new, old) == old


def test_the_work_budget_only_changes_how_the_rest_is_diffed(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(linediff, "WORK_PER_LINE", 0)
    old = [f"{n % 50}\n" for n in range(4000)] + [f"u{n}\n" for n in range(200)]
    new = list(reversed(old))
    assert rebuilt(old, new) == new


def test_unified_diff_is_difflibs_for_distinct_lines() -> None:
    old = [f"{n}. Step {n}\n" for n in range(60)]
    new = [line for line in old if "7" not in line]
    new[10:10] = ["inserted\n", "another\n"]
    ours = "".join(unified_diff(old, new, "a", "b"))
    assert ours == "".join(difflib.unified_diff(old, new, "a", "b"))
    assert "".join(unified_diff(old, old, "a", "b")) == ""
