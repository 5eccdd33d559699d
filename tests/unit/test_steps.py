"""The steps of a plan, its verification section, text normalisation and the files it names
(docs/protocol.md §12.1; rules in planmode/core/steps.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planmode.core import steps
from planmode.core.lines import lsp_lines


def texts(plan: str) -> list[str]:
    return [step.text for step in steps.parse_steps(plan)]


STEP_TABLE = [
    pytest.param(
        "# Plan: cache\n\n## Context\n- not a step\n\n## Steps\n1. First\n2. Second\n",
        ["First", "Second"],
        id="numbered-steps-section",
    ),
    pytest.param(
        "## Implementation\n- one\n- two\n\n## Later changes\n- three\n",
        ["one", "two"],
        id="first-matching-section-only",
    ),
    pytest.param(
        "## What changes\n* a\n+ b\n- c\n",
        ["a", "b", "c"],
        id="every-bullet-kind",
    ),
    pytest.param("## TODO\n1) a\n2) b\n", ["a", "b"], id="paren-numbers-and-todo-heading"),
    pytest.param("## To-do\n- a\n", ["a"], id="to-do-heading"),
    pytest.param(
        "## Steps\n- [ ] open box\n- [x] ticked box\n- [X] upper box\n",
        ["open box", "ticked box", "upper box"],
        id="task-boxes",
    ),
    pytest.param(
        "# Title\n\nIntro\n\n- top one\n  - nested\n- top two\n\n## Notes\n- top three\n",
        ["top one", "top two", "top three"],
        id="no-section-top-level-of-the-whole-plan",
    ),
    pytest.param(
        "## Steps\n1. Do it\n   ```sh\n   - not an item\n   ```\n2. Next\n\n```\n- fenced\n```\n",
        ["Do it", "Next"],
        id="fenced-code-is-no-list",
    ),
    pytest.param(
        "## Steps\n1. Start here\n   and continue\nlazily too\n2. Next\n",
        ["Start here and continue lazily too", "Next"],
        id="continuation-and-lazy-lines",
    ),
    pytest.param(
        "## Steps\n1. First\n\n   A second paragraph of the first.\n\n2. Second\n",
        ["First", "Second"],
        id="only-the-first-paragraph-is-the-text",
    ),
    pytest.param(
        "## Steps\n- a\n\nNot in the list any more.\n\n- b\n",
        ["a", "b"],
        id="a-paragraph-between-lists",
    ),
    pytest.param(
        "## Steps\n- a\n    - deeper\n        - deepest\n- b\n",
        ["a", "b"],
        id="nested-at-any-depth",
    ),
    pytest.param(
        "## Steps\n- a\n***\n- b\n",
        ["a", "b"],
        id="rule-ends-the-list",
    ),
    pytest.param(
        "# Plan: everything\n\n## Context\nprose\n\n## Approach\n- a\n\n## Verification\n- run\n",
        ["a", "run"],
        id="the-title-is-no-steps-section",
    ),
    pytest.param(
        "## Test plan\n- run pytest\n\n## Changes\n- edit a.py\n",
        ["edit a.py"],
        id="a-verification-heading-is-no-steps-section",
    ),
    pytest.param(
        "## Verification plan\n- run it\n\n## Implementation and testing\n- a\n",
        ["a"],
        id="a-heading-naming-work-and-testing-is-a-steps-section",
    ),
    pytest.param(
        "## Planned approach\nprose only\n\n## Steps\n- a\n",
        ["a"],
        id="a-matching-section-without-items-is-skipped",
    ),
    pytest.param(
        "## Explanation\n- not steps\n\n## Exchange rates\n- nor these\n",
        ["not steps", "nor these"],
        id="keywords-inside-words-do-not-count",
    ),
    pytest.param(
        "## Implementation\n### Step 1: model\n- add model\n### Step 2: route\n- add route\n"
        "## Verification\n- run\n",
        ["add model", "add route"],
        id="a-section-holds-its-subsections",
    ),
    pytest.param(
        "Steps\n-----\n\n- a\n- b\n\nOther\n=====\n- c\n",
        ["a", "b"],
        id="setext-headings",
    ),
    pytest.param(
        "## Steps\nThe year was\n2024. Then\n- a\n",
        ["a"],
        id="an-ordered-item-not-at-1-does-not-interrupt-a-paragraph",
    ),
    pytest.param("## Steps\n-\n- b\n", ["", "b"], id="an-empty-item"),
    pytest.param("", [], id="empty-plan"),
    pytest.param("Just prose.\n", [], id="no-list-at-all"),
    pytest.param("## Steps\r\n1. a\r\n2. b\r\n", ["a", "b"], id="crlf"),
    pytest.param("## Steps\n\t- code\n- b\n\t- nested\n", ["b"], id="a-tab-is-4-columns"),
    pytest.param("    - indented code\n", [], id="indented-code-is-no-item"),
]


@pytest.mark.parametrize(("plan", "expected"), STEP_TABLE)
def test_steps_are_the_top_level_items_of_the_steps_section(plan: str, expected: list[str]) -> None:
    assert texts(plan) == expected


def test_each_step_knows_its_index_line_and_box() -> None:
    plan = "# P\n\n## Steps\n1. a\n   more\n   - nested\n2. [x] not a box here\n- [x] done\n"
    found = steps.parse_steps(plan)
    assert [(s.index, s.line, s.end, s.checked) for s in found] == [
        (0, 3, 6, False),
        (1, 6, 7, True),
        (2, 7, 8, True),
    ]
    # "2. [x] …" is a task box too: a box is any item's first text.
    assert found[1].text == "not a box here"


def test_the_line_of_each_step_is_the_line_its_item_starts_on() -> None:
    plan = "# P\n\n## Steps\n\n1. a\n\n2. b\n   c\n\n- d\n"
    lines = lsp_lines(plan)
    for step in steps.parse_steps(plan):
        assert lines[step.line].lstrip().startswith(("1.", "2.", "-"))


VERIFICATION_TABLE = [
    ("## Steps\n- a\n\n## Verification\nrun it\n", (3, "Verification", "section")),
    ("## Steps\n- a\n\n### How to verify\nrun it\n", (3, "How to verify", "section")),
    ("## Testing\n- pytest\n", (0, "Testing", "section")),
    ("## Test Plan\n- pytest\n", (0, "Test Plan", "section")),
    ("## Steps\n- a\n- Verify: run `pytest`\n", (2, "Verify: run `pytest`", "step")),
    ("## Steps\n- a\n- **Verification**: run it\n", (2, "**Verification**: run it", "step")),
    ("## Steps\n- a\n- test the parser\n", None),
    ("## Implementation and testing\n- a\n\n## Testing\n- b\n", (3, "Testing", "section")),
    ("## Implementation and testing\n- a\n- Verify it\n", (2, "Verify it", "step")),
    ("```\n## Verification\n```\n", None),
]


@pytest.mark.parametrize(("plan", "expected"), VERIFICATION_TABLE)
def test_the_verification_section_or_step_is_found(
    plan: str, expected: tuple[int, str, str] | None
) -> None:
    found = steps.find_verification(plan)
    assert (found and (found.line, found.title, found.kind)) == expected


NORMALISE_TABLE = [
    ("Add the cache", "add the cache"),
    ("  Add   the\tcache.  ", "add the cache"),
    ("2. Add the cache", "add the cache"),
    ("2) Add the cache", "add the cache"),
    ("Step 2: Add the cache", "add the cache"),
    ("step 2 - Add the cache", "add the cache"),
    ("- [ ] Add the cache", "add the cache"),
    ("**Add** the `cache`", "add the cache"),
    ("Add [the cache](src/cache.py)", "add the cache"),
    ("Add ![the cache](img.png)", "add the cache"),
    ("_Add_ ~~the~~ cache", "add the cache"),
    ("Add `snake_case_name`", "add snake_case_name"),
    ("Keep 3 retries", "keep 3 retries"),
    ("ÉTÉ Straße", "été strasse"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALISE_TABLE)
def test_normalise(raw: str, expected: str) -> None:
    assert steps.normalise(raw) == expected


@pytest.mark.parametrize(
    ("raw", "number"),
    [
        ("2. Add", 2),
        ("2) Add", 2),
        ("Step 2", 2),
        ("step 12: Add", 12),
        ("**Step 3**: Add", 3),
        ("#4 Add", 4),
        ("Add 2. things", None),
        ("2 files", None),
        ("2.5 Add", None),
        ("Steps", None),
    ],
)
def test_step_number(raw: str, number: int | None) -> None:
    assert steps.step_number(raw) == number


def test_content_words_leave_out_stop_words() -> None:
    assert steps.content_words("add the cache to the server") == {"add", "cache", "server"}


MENTIONS_TABLE = [
    ("Edit `src/cache.py`.", {"src/cache.py"}, {"cache.py"}),
    (
        "Edit src/cache.py, then ./tests/test_cache.py:42.",
        {"src/cache.py", "tests/test_cache.py"},
        {"cache.py", "test_cache.py"},
    ),
    ("Touch /ws/lib/a.py and /elsewhere/b.py", {"lib/a.py"}, {"a.py", "b.py"}),
    ("See ~/notes.md and ../up.md", set(), {"notes.md", "up.md"}),
    ("Update the config and `settings`", set(), {"settings"}),
    ("Update LICENSE, README and the Makefile", set(), {"LICENSE", "README", "Makefile"}),
    ("Bump to 3.11 in step 2.", set(), set()),
    ("Add .gitignore and `.env`", set(), {".gitignore", ".env"}),
    ("The folder `docs/` only", {"docs"}, set()),
]


@pytest.mark.parametrize(("text", "paths", "names"), MENTIONS_TABLE)
def test_file_mentions(text: str, paths: set[str], names: set[str]) -> None:
    found = steps.file_mentions([text], "/ws")
    assert found.paths == paths
    assert names <= found.names
    # Prose words are never file names.
    assert not {"Edit", "the", "config", "and", "Update", "Bump"} & found.names


@pytest.mark.parametrize(
    ("relative", "named"),
    [
        ("src/cache.py", True),
        ("lib/cache.py", True),  # by its file name
        ("src/other.py", False),
        ("Makefile", True),
        ("config", False),
    ],
)
def test_a_file_is_named_by_its_path_or_its_name(relative: str, named: bool) -> None:
    mentions = steps.file_mentions(["Edit `src/cache.py`, the config and the Makefile."])
    assert mentions.names_file(relative) is named


markdownish = st.lists(
    st.sampled_from([*list("ab 1.)-*+[]x`~#>\t\n\r_="), "```", "- [ ] ", "1. ", "## ", "\n  "]),
    max_size=80,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(markdownish, st.text(max_size=200)))
def test_the_parser_never_raises_and_steps_are_items_in_order(text: str) -> None:
    found = steps.parse_steps(text)
    lines = lsp_lines(text)
    assert [s.index for s in found] == list(range(len(found)))
    assert all(0 <= s.line < s.end <= len(lines) for s in found)
    assert [s.line for s in found] == sorted({s.line for s in found})
    steps.find_verification(text)
    steps.file_mentions([text], "/ws")


@settings(max_examples=400, deadline=None)
@given(st.one_of(markdownish, st.text(max_size=100)))
def test_normalise_is_idempotent(text: str) -> None:
    once = steps.normalise(text)
    assert steps.normalise(once) == once


@given(st.lists(st.text(alphabet="abcdef XYZ", min_size=1, max_size=20), min_size=1, max_size=8))
def test_a_nested_item_is_never_a_step(words: list[str]) -> None:
    body = "".join(f"- top {w}\n  - nested {w}\n" for w in words)
    assert all(t.startswith("top") for t in texts("## Steps\n" + body))
