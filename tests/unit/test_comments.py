"""Review comments in a plan: parsing, anchoring, stripping, inserting and re-anchoring."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planmode.core import comments
from planmode.core.comments import Anchor, Comment
from planmode.lsp import results

PLAN = """# Greet by name

## Context
The greeting is fixed.

## Steps
1. Read the name from argv.
> [!review] What if there is no argument?
> Fall back to "world".
2. Print the greeting.

```sh
> [!review] inside a fence: not a comment
```

## Verification
Run the tests.

> [!REVIEW]   Add a test for the fallback.
"""


def test_parse_finds_each_comment_with_its_lines_text_and_anchor() -> None:
    first, second = comments.parse(PLAN)
    assert first.text == 'What if there is no argument?\nFall back to "world".'
    assert (first.start, first.end) == (7, 9)
    assert first.anchor == Anchor("1. Read the name from argv.", ("Greet by name", "Steps"), 6)
    assert second.text == "Add a test for the fallback."
    assert second.anchor == Anchor("Run the tests.", ("Greet by name", "Verification"), 14)
    assert (second.start, second.end) == (18, 19)


def test_the_anchor_line_is_the_line_in_the_plan_without_comments() -> None:
    plain = comments.strip_comments(PLAN).splitlines()
    for comment in comments.parse(PLAN):
        assert plain[comment.anchor.line] == comment.anchor.quote.splitlines()[0]


def test_strip_removes_comments_and_the_blank_line_they_leave_doubled() -> None:
    assert comments.strip_comments(PLAN) == (
        "# Greet by name\n\n## Context\nThe greeting is fixed.\n\n## Steps\n"
        "1. Read the name from argv.\n2. Print the greeting.\n\n"
        "```sh\n> [!review] inside a fence: not a comment\n```\n\n"
        "## Verification\nRun the tests.\n"
    )


def test_a_comment_on_a_heading_annotates_the_section_under_its_parents() -> None:
    (comment,) = comments.parse("# Plan\n\n## Risks\n> [!review] missing rollback\n\nNone.\n")
    assert comment.anchor == Anchor("## Risks", ("Plan",), 2)


def test_a_comment_above_all_text_is_on_the_plan_as_a_whole() -> None:
    (comment,) = comments.parse("> [!review] too long overall\n\n# Plan\n")
    assert comment.anchor == Anchor("", (), 0)
    assert comments.strip_comments("> [!review] too long overall\n\n# Plan\n") == "\n# Plan\n"
    assert "on the plan as a whole" in comments.render([comment])


def test_a_paragraph_is_annotated_whole_and_a_list_item_alone() -> None:
    text = "Intro line one\nline two\n> [!review] a\n\n- first\n  more\n- second\n> [!review] b\n"
    first, second = comments.parse(text)
    assert first.anchor.quote == "Intro line one\nline two"
    assert second.anchor.quote == "- second"


@pytest.mark.parametrize(
    "text",
    [
        "> [!reviewer] no\n",  # another word
        ">[!review]x\n",  # the marker needs a space or the end of the line after it
        "    > [!review] indented code\n",  # four spaces: an indented code block
        "> [!note] GitHub alert\n",
        "Text with > [!review] in the middle\n",
        "~~~\n> [!review] fenced\n~~~\n",
    ],
)
def test_what_is_not_a_comment(text: str) -> None:
    assert comments.parse(text) == []
    assert comments.strip_comments(text) == text


def test_two_marker_lines_in_a_row_are_two_comments_on_the_same_block() -> None:
    text = "# Plan\n\n- step\n> [!review] one\n> more of one\n> [!REVIEW] two\n>[!review]\n"
    found = comments.parse(text)
    assert [(c.text, c.start, c.end) for c in found] == [
        ("one\nmore of one", 3, 5),
        ("two", 5, 6),
        ("", 6, 7),
    ]
    assert {c.anchor for c in found} == {Anchor("- step", ("Plan",), 2)}
    assert comments.strip_comments(text) == "# Plan\n\n- step\n"


def test_an_empty_marker_is_a_comment_that_is_not_delivered() -> None:
    found = comments.parse("Step\n> [!review]\n")
    assert [c.text for c in found] == [""]
    assert comments.delivered(found) == []
    assert comments.strip_comments("Step\n> [!review]\n") == "Step\n"


def test_crlf_and_missing_final_newline_are_kept() -> None:
    text = "# P\r\n\r\nStep\r\n> [!review] c\r\n"
    assert comments.strip_comments(text) == "# P\r\n\r\nStep\r\n"
    assert comments.strip_comments("Step\n> [!review] c") == "Step"
    assert comments.insert("Step", 0, "c") == "Step\n> [!review] c"
    assert comments.insert("# P\r\nStep\r\n", 1, "c") == "# P\r\nStep\r\n> [!review] c\r\n"


def test_insert_writes_after_the_block_and_after_earlier_comments() -> None:
    text = "# Plan\n\nFirst line\nsecond line\n\n- item\n"
    once = comments.insert(text, 2, "one")
    assert once == "# Plan\n\nFirst line\nsecond line\n> [!review] one\n\n- item\n"
    twice = comments.insert(once, 3, "two\nlines")
    assert [c.text for c in comments.parse(twice)] == ["one", "two\nlines"]
    assert comments.strip_comments(twice) == text
    with pytest.raises(ValueError):
        comments.insert(text, 0, "  \n ")


def test_insert_keeps_a_marker_in_a_continuation_line_inside_the_comment() -> None:
    text = comments.insert("Step\n", 0, "first\n[!review] second")
    assert [c.text for c in comments.parse(text)] == ["first\n\\[!review] second"]


def test_reanchor_keeps_comments_on_untouched_text_and_outdates_changed_text() -> None:
    found = comments.parse(PLAN)
    revised = comments.strip_comments(PLAN).replace("Run the tests.", "Run pytest.")
    revised = "# Greet by name\n\nA new introduction.\n\n" + revised.split("\n", 2)[2]
    kept, changed = comments.reanchor(found, revised)
    assert not kept.outdated
    assert kept.anchor.line == revised.splitlines().index("1. Read the name from argv.")
    assert changed.outdated and changed.anchor == found[1].anchor
    assert (kept.start, kept.end) == (-1, -1)


def test_reanchor_prefers_the_same_headings_when_a_quote_repeats() -> None:
    text = "# A\nRun it.\n# B\nRun it.\n"
    (comment,) = comments.parse("# A\nRun it.\n# B\nRun it.\n> [!review] here\n")
    (moved,) = comments.reanchor([comment], "# Intro\n\n" + text)
    assert moved.anchor.heading_path == ("B",) and moved.anchor.line == 5


def test_live_and_earlier_marks_a_comment_kept_over_changed_text_outdated() -> None:
    sent = comments.parse("Step one\n> [!review] why?\n\nStep two\n> [!review] and this\n")
    revised = "Step one, explained\n> [!review] why?\n\nStep two\n"
    live, earlier = comments.live_and_earlier(revised, sent)
    assert [(c.text, c.outdated) for c in live] == [("why?", True)]
    assert [(c.text, c.outdated, c.anchor.line) for c in earlier] == [("and this", False, 2)]


def test_the_history_s_shape_is_the_wire_s_and_round_trips() -> None:
    comment = Comment("text", Anchor("quote", ("A", "B"), 4), 9, 10, outdated=True)
    kept = comment.to_json()
    assert kept == {
        "text": "text",
        "quote": "quote",
        "headingPath": ["A", "B"],
        "line": 5,
        "outdated": True,
    }
    assert results.Comment.model_validate(comment).wire() == kept
    assert Comment.from_json(kept) == Comment("text", Anchor("quote", ("A", "B"), 4), outdated=True)
    with pytest.raises(ValueError):
        Comment.from_json({"quote": "q"})


def test_render_names_the_anchor_and_marks_outdated_comments() -> None:
    first, second = comments.parse(PLAN)
    text = comments.render([first, Comment(second.text, second.anchor, outdated=True)])
    assert text.startswith("1. under “Greet by name › Steps” on line 7: “1. Read the name")
    assert '   What if there is no argument?\n   Fall back to "world".' in text
    assert "2. under “Greet by name › Verification” on line 15" in text
    assert "(that text has changed since)" in text


# Plans built from lines that are likely to interact with the syntax: headings, list items,
# quotes, fences, blank lines, CR/LF endings.
_plan_lines = st.lists(
    st.one_of(
        st.sampled_from(
            ["", "# Title", "## Steps", "- item", "1. step", "  more", "> quote", "```", "~~~"]
        ),
        st.text(st.characters(codec="utf-8"), max_size=20),
    ),
    max_size=25,
)


@st.composite
def plans(draw: st.DrawFn) -> str:
    lines = draw(_plan_lines)
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(lines) + draw(st.sampled_from(["", eol]))
    return comments.strip_comments(text)


_comment_text = st.text(
    st.characters(codec="utf-8", blacklist_characters="\r\n"), min_size=1
).filter(lambda s: s.strip())


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(codec="utf-8")))
def test_text_without_comments_is_unchanged(text: str) -> None:
    if not comments.parse(text):
        assert comments.strip_comments(text) == text


@settings(max_examples=300, deadline=None)
@given(plans(), st.lists(st.tuples(st.integers(0, 30), _comment_text), max_size=4))
def test_stripping_then_adding_comments_is_stable(plan: str, notes: list[tuple[int, str]]) -> None:
    assert comments.strip_comments(plan) == plan
    text = plan
    for line, note in notes:
        text = comments.insert(text, line, note)
    assert comments.strip_comments(text) == plan
    found = comments.parse(text)
    assert sorted(c.text for c in found) == sorted(note.strip() for _, note in notes)
    # Every anchor is a block of the plan, or the top of it.
    quotes = {b.quote for b in comments.blocks(plan)}
    assert all(c.anchor.quote in quotes or c.anchor.quote == "" for c in found)
    # Unchanged plan: every comment stays anchored where it was.
    assert all(not c.outdated for c in comments.reanchor(found, plan))
