"""The steps of an approved plan, its verification section, and the files it names.

What progress reads from a plan's Markdown (docs/protocol.md §12.1); pure text, no state.

**Steps.** The steps are the top-level list items (``-``, ``*``, ``+``, ``1.``, ``1)``, task
boxes ``- [ ]`` / ``- [x]``) of the plan's *steps section*: the first section, in document
order, whose heading has a word starting with ``step``, ``implementation``, ``plan``,
``change`` or ``todo`` / ``to-do`` (any case) and that holds list items. A section runs from
its heading to the next heading of the same or a higher level, so ``## Implementation`` with
``### Step 1`` … subsections holds their items. Two headings are never the steps section:

* the plan's *title* — its first heading when every other heading is below it (``# Plan: add
  caching`` would otherwise hold the whole plan);
* a verification heading (``## Test plan`` names a plan, but it is what to check afterwards),
  unless it also has a word for the work (``## Implementation and testing``).

Without a steps section, the steps are the top-level list items of the whole plan. Markdown
is read as a CommonMark reader would, line by line: fenced code (```` ``` ```` / ``~~~``,
inside items too) holds no items; an item indented under another one's content is nested,
never a step; a line indented past the content is the item's continuation; an unindented line
right after an item's text is its lazy continuation, after a blank line it ends the list;
``***`` / ``---`` / ``___`` rules and headings (ATX and setext) end every list; an ordered
item starting at a number other than 1, or an empty item, does not interrupt a paragraph.

A step's *text* is its item's first paragraph, marker and task box removed, lines joined by one
space. A box ticked in the approved text (``- [x]``) marks its step as already done: the plan
the user approved says so (:attr:`PlanStep.checked`).

**Verification.** The first heading, other than the steps section's, with a word starting with
``verif`` (verification, verify), or ``testing`` / ``test plan``; else the first top-level
list item whose text starts that way. Pointed out when every step is done.

**Matching text.** :func:`normalise` makes a todo's text and a step's comparable: leading
list markers, task boxes and numbering (``2.``, ``2)``, ``Step 2:``) removed, Markdown
emphasis, code spans, links and images reduced to their text, case folded, whitespace
collapsed, trailing punctuation dropped; it is idempotent. :func:`step_number` reads the
number a todo starts with (``2.``, ``2)``, ``Step 2``, ``#2``). :func:`content_words` are the
words overlap matching compares (stop words left out).

**Files named.** :func:`file_mentions` collects what a text names as files: every run of
path characters (letters, digits, ``_ . - / ~ + @``), in code spans (on one line) or not. A
run with a ``/`` is a path (``./`` dropped, an absolute path inside the root made relative, a
``:42`` line suffix dropped), and its last part a file name. A run without ``/`` is a file
name when it has a letter and a dot (``parser.py``, ``.gitignore``), is in a code span
(```config```), or reads as a file name in prose (``LICENSE``, ``README``, ``Makefile``,
``Dockerfile``): the English word "config" in prose never names a file called ``config``.
Matching is case-sensitive, as the file system is.

**Bounds.** Of a plan, the first :data:`MAX_READ_CHARS` characters (whole lines) are read, and
its first :data:`MAX_STEPS` steps kept: a multi-megabyte "plan" would hold up its approval for
seconds, and tens of thousands of steps every notification after it. Real plans are far below
both. Everything that reads steps (progress, the library's step count) reads them so.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from planmode.core.lines import lsp_lines

StepStatus = Literal["pending", "inProgress", "done"]
STEP_STATUSES: tuple[StepStatus, ...] = ("pending", "inProgress", "done")
# An agent's update only ever raises a step: done > inProgress > pending.
STATUS_RANK: dict[str, int] = {status: rank for rank, status in enumerate(STEP_STATUSES)}
# The mark of a step's status, wherever a person reads it without our VS Code client.
MARKS: dict[StepStatus, str] = {"done": "✓", "inProgress": "◐", "pending": "○"}

STEP_HEADING = re.compile(r"(?<![^\W_])(?:step|implementation|plan|change|to-?do)", re.I)
VERIFICATION = re.compile(r"(?<![^\W_])(?:verif|testing\b|test[ \t]+plan\b)", re.I)
# A heading with one of these words is about the work even when it also names testing.
WORK_HEADING = re.compile(r"(?<![^\W_])(?:step|implementation|change|to-?do)", re.I)

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_ATX = re.compile(r"^ {0,3}(?P<level>#{1,6})(?:[ \t]+(?P<title>.*?))?[ \t]*$")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_RULE = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?P<marker>[-*+]|(?P<number>\d{1,9})[.)])(?P<space>[ \t]+|$)(?P<rest>.*)$"
)
_TASK_BOX = re.compile(r"^\[(?P<mark>[ xX])\](?:[ \t]+|$)")


@dataclass(frozen=True)
class PlanStep:
    """A step as written in the plan: its place, its text and whether its box is ticked."""

    index: int
    line: int  # 0-based, first line of the item
    end: int  # the line after the item's last non-blank line (nested items included)
    text: str
    checked: bool = False


@dataclass(frozen=True)
class Verification:
    """Where the plan says how to verify the change: a heading or a list item."""

    line: int
    title: str
    kind: str  # "section" or "step"


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    title: str


@dataclass
class _Item:
    line: int
    content: int  # the column the item's content starts at
    top: bool
    text: list[str]
    checked: bool
    end: int
    paragraph: bool = True  # still in its first paragraph


@dataclass(frozen=True)
class Outline:
    """A plan's headings and top-level list items (nested ones are part of their parent)."""

    headings: tuple[Heading, ...]
    items: tuple[PlanStep, ...]  # every top-level item, ``index`` its place among them
    lines: int


def _columns(text: str, start: int = 0) -> int:
    """The column after ``text`` written from column ``start``: tabs go to the next multiple
    of 4 (CommonMark)."""
    column = start
    for char in text:
        column = column + 4 - column % 4 if char == "\t" else column + 1
    return column


class _Reader:
    """One pass over a plan's lines: headings, and list items on a stack of open ones."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.headings: list[Heading] = []
        self.items: list[PlanStep] = []
        self.stack: list[_Item] = []
        self.fence: str | None = None
        self.blank_before = True
        self.paragraph_start: int | None = None  # a paragraph outside lists, open since

    def container(self) -> int:
        """The column the innermost open item's content starts at (0 outside lists)."""
        return self.stack[-1].content if self.stack else 0

    def close_to(self, indent: int) -> None:
        """Close the open items a line at ``indent`` is not inside."""
        while self.stack and self.stack[-1].content > indent:
            item = self.stack.pop()
            if item.top:
                self.items.append(
                    PlanStep(
                        len(self.items), item.line, item.end, " ".join(item.text), item.checked
                    )
                )

    def belongs(self, i: int) -> None:
        """Line ``i`` is part of the open top-level item."""
        if self.stack:
            self.stack[0].end = i + 1

    def read(self) -> None:
        for i, line in enumerate(self.lines):
            self.line(i, line)
        self.close_to(-1)

    def line(self, i: int, line: str) -> None:
        if self.fence is not None:
            stripped = line.strip()
            if stripped and set(stripped) == {self.fence[0]} and len(stripped) >= len(self.fence):
                self.fence = None
            self.belongs(i)
            return
        if not line.strip():
            self.blank_before = True
            self.paragraph_start = None
            for item in self.stack:
                item.paragraph = False
            return
        indent = _columns(line[: len(line) - len(line.lstrip(" \t"))])
        if self.blank_before:
            # After a blank line only indentation keeps a line inside an item.
            self.close_to(indent)
        if self.structural(i, line, indent):
            self.blank_before = False
            return
        if self.stack:
            innermost = self.stack[-1]
            if innermost.paragraph and (indent >= innermost.content or not self.blank_before):
                innermost.text.append(line.strip())  # continuation, or lazy continuation
                self.belongs(i)
            elif indent >= innermost.content:
                self.belongs(i)  # a later paragraph of the item
            else:
                self.close_to(-1)  # unindented text after an item's code: the list ends
        if not self.stack and self.paragraph_start is None:
            self.paragraph_start = i
        self.blank_before = False

    def structural(self, i: int, line: str, indent: int) -> bool:
        """A fence, heading, rule or list item at line ``i``: read it, return True."""
        inside = indent - self.container()
        opening = _FENCE.match(line)
        if opening and inside < 4 and not (opening["fence"][0] == "`" and "`" in opening["info"]):
            self.fence = opening["fence"]
            for item in self.stack:
                item.paragraph = False
            self.paragraph_start = None
            self.belongs(i)
            return True
        heading = _ATX.match(line)
        if heading and (not self.stack or indent < self.container()):
            self.close_to(-1)
            title = _ATX_CLOSING.sub("", heading["title"] or "").strip()
            self.headings.append(Heading(i, len(heading["level"]), title))
            self.paragraph_start = None
            return True
        if _SETEXT.match(line) and self.paragraph_start is not None and not self.stack:
            level = 1 if line.strip().startswith("=") else 2
            start = self.paragraph_start
            title = " ".join(part.strip() for part in self.lines[start:i])
            self.headings.append(Heading(start, level, title))
            self.paragraph_start = None
            return True
        if _RULE.match(line) and (not self.stack or indent < self.container()):
            self.close_to(-1)
            self.paragraph_start = None
            return True
        match = _ITEM.match(line)
        if match is None or _starts_no_list(match, self.stack, self.paragraph_start):
            return False
        self.close_to(indent)
        if indent - self.container() >= 4:
            return False  # indented code (or an item's continuation), not an item
        rest = match["rest"]
        after_marker = _columns(match["marker"], indent)
        spaces = _columns(match["space"], after_marker) - after_marker
        content = after_marker + (1 if not rest.strip() or spaces > 4 else spaces)
        box = _TASK_BOX.match(rest)
        checked = box is not None and box["mark"] in "xX"
        if box is not None:
            rest = rest[box.end() :]
        text = [rest.strip()] if rest.strip() else []
        self.stack.append(_Item(i, content, not self.stack, text, checked, i + 1))
        self.belongs(i)
        self.paragraph_start = None
        return True


def outline(text: str) -> Outline:
    """Headings and top-level list items of ``text`` (see the module's rules)."""
    reader = _Reader(lsp_lines(text))
    reader.read()
    items = tuple(PlanStep(n, s.line, s.end, s.text, s.checked) for n, s in enumerate(reader.items))
    return Outline(tuple(reader.headings), items, len(reader.lines))


def _starts_no_list(match: re.Match[str], stack: list[_Item], paragraph_start: int | None) -> bool:
    """An item line that cannot start a list here: right after a paragraph (outside lists),
    an ordered item not starting at 1 or an empty item is paragraph text (CommonMark)."""
    if stack or paragraph_start is None:
        return False
    number = match["number"]
    return (number is not None and int(number) != 1) or not match["rest"].strip()


def _section_end(headings: tuple[Heading, ...], position: int, lines: int) -> int:
    level = headings[position].level
    for later in headings[position + 1 :]:
        if later.level <= level:
            return later.line
    return lines


def _is_title(headings: tuple[Heading, ...], position: int) -> bool:
    """The plan's title: its first heading, with every other heading below its level."""
    return (
        position == 0
        and len(headings) > 1
        and all(h.level > headings[0].level for h in headings[1:])
    )


def _names_steps(title: str) -> bool:
    """A steps heading: a step word, and not a verification heading (``Test plan``,
    ``Verification plan``) unless it also names the work (``Implementation and testing``)."""
    return STEP_HEADING.search(title) is not None and (
        VERIFICATION.search(title) is None or WORK_HEADING.search(title) is not None
    )


def steps_section(parsed: Outline) -> Heading | None:
    """The heading of the steps section (the module's rules), or None."""
    headings = parsed.headings
    for position, heading in enumerate(headings):
        if not _names_steps(heading.title):
            continue
        if _is_title(headings, position):
            continue
        end = _section_end(headings, position, parsed.lines)
        if any(heading.line < item.line < end for item in parsed.items):
            return heading
    return None


MAX_READ_CHARS = 100_000
MAX_STEPS = 1_000


def readable(text: str) -> str:
    """The part of a plan that is read: its first :data:`MAX_READ_CHARS`, whole lines."""
    if len(text) <= MAX_READ_CHARS:
        return text
    return text[: text.rfind("\n", 0, MAX_READ_CHARS) + 1]


def parse_steps(text: str) -> list[PlanStep]:
    """The steps of a plan (the module's rules, within its bounds); ``index`` counts from 0."""
    parsed = outline(readable(text))
    return _steps_of(parsed, steps_section(parsed))[:MAX_STEPS]


def _steps_of(parsed: Outline, section: Heading | None) -> list[PlanStep]:
    if section is None:
        chosen: Iterable[PlanStep] = parsed.items
    else:
        position = parsed.headings.index(section)
        end = _section_end(parsed.headings, position, parsed.lines)
        chosen = (item for item in parsed.items if section.line < item.line < end)
    return [PlanStep(n, s.line, s.end, s.text, s.checked) for n, s in enumerate(chosen)]


def find_verification(text: str) -> Verification | None:
    """Where the plan says how to verify the change (the module's rules), or None."""
    parsed = outline(text)
    return _verification_of(parsed, steps_section(parsed))


def _verification_of(parsed: Outline, section: Heading | None) -> Verification | None:
    for heading in parsed.headings:
        if heading != section and VERIFICATION.search(heading.title):
            return Verification(heading.line, heading.title, "section")
    for item in parsed.items:
        if VERIFICATION.match(_strip_markup(item.text).lstrip()):
            return Verification(item.line, item.text, "step")
    return None


@dataclass(frozen=True)
class PlanStructure:
    """Everything progress reads from an approved plan, from one pass over its text."""

    steps: tuple[PlanStep, ...]
    verification: Verification | None


def structure(text: str) -> PlanStructure:
    """The steps and verification of a plan, within its bounds."""
    parsed = outline(readable(text))
    section = steps_section(parsed)
    planned = _steps_of(parsed, section)[:MAX_STEPS]
    return PlanStructure(tuple(planned), _verification_of(parsed, section))


# -- matching text ---------------------------------------------------------------------------

_IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_REFERENCE_LINK = re.compile(r"!?\[([^\]\n]*)\]\[[^\]\n]*\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto|file):[^>\s]*)>")
_EMPHASIS = re.compile(r"(?<!\w)[*_~]+|[*_~]+(?!\w)")
_LEADING = re.compile(
    r"^(?:[-*+][ \t]+|\[[ xX]\](?:[ \t]+|$)|step[ \t]*#?\d+(?:\.\d+)*(?:[ \t]*[.):-])?(?:[ \t]+|$)"
    r"|#?\d{1,9}(?:\.\d+)*[.):](?:[ \t]+|$))",
    re.I,
)
_TRAILING = re.compile(r"[\s.,:;!?]+$")
_NUMBER = re.compile(
    r"^[\s*_`]*(?:step[ \t]*#?(?P<step>\d{1,9})(?!\d)|#(?P<hash>\d{1,9})(?!\d)"
    r"|(?P<number>\d{1,9})[.):](?!\d))",
    re.I,
)
_WORD = re.compile(r"\w+")
STOP_WORDS = frozenset(
    "a an and are as at be by for from in into is it its of on or so that the then this to "
    "use using via when where which while with".split()
)


def _strip_markup(text: str) -> str:
    text = _IMAGE_OR_LINK.sub(r"\1", text)
    text = _REFERENCE_LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = text.replace("`", "")
    return _EMPHASIS.sub("", text)


def _normalise_once(text: str) -> str:
    text = " ".join(_strip_markup(text).split())
    while True:
        shorter = _LEADING.sub("", text, count=1)
        if shorter == text:
            break
        text = shorter
    return _TRAILING.sub("", text)


def normalise(text: str) -> str:
    """``text`` as todos and steps are compared (the module's rules). Idempotent."""
    text = text.casefold()
    while True:
        again = _normalise_once(text).casefold()
        if again == text:
            return text
        text = again


def step_number(text: str) -> int | None:
    """The step number a todo starts with (``2.``, ``2)``, ``Step 2``, ``#2``), or None."""
    match = _NUMBER.match(text)
    if match is None:
        return None
    return int(match["step"] or match["hash"] or match["number"])


def content_words(normalised: str) -> frozenset[str]:
    """The words of a normalised text that overlap matching compares."""
    return frozenset(w for w in _WORD.findall(normalised) if w not in STOP_WORDS)


# -- files named -----------------------------------------------------------------------------

_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_PATH_RUN = re.compile(r"[\w.\-/~+@]+")
_LINE_SUFFIX = re.compile(r"(?::\d+){1,2}$")
# A bare word in prose that still reads as a file name: LICENSE, README, Makefile, Dockerfile.
_PROSE_FILE_NAME = re.compile(r"[A-Z][A-Z0-9_]{2,}|[A-Z][a-z]*file")


@dataclass(frozen=True)
class Mentions:
    """What a text names as files: paths relative to the root and bare file names."""

    paths: frozenset[str]
    names: frozenset[str]

    def names_file(self, relative: str) -> bool:
        """Whether ``relative`` (a POSIX path relative to the root) is named: by that path, or
        by its file name."""
        return relative in self.paths or PurePosixPath(relative).name in self.names


def _clean_run(run: str) -> str:
    run = _LINE_SUFFIX.sub("", run.rstrip(".,;:!?-"))
    while run.startswith("./"):
        run = run[2:]
    return run


def _relative(run: str, root: str | None) -> str | None:
    """A path run as a path relative to the root; None for one that is not."""
    if run.startswith("~"):
        return None
    if run.startswith("/"):
        if root is None:
            return None
        normal = os.path.normpath(run)
        if not normal.startswith(root.rstrip("/") + "/"):
            return None
        return normal[len(root.rstrip("/")) + 1 :]
    normal = os.path.normpath(run)
    return None if normal.startswith("..") or normal == "." else normal


def _add_run(run: str, spanned: bool, root: str | None, paths: set[str], names: set[str]) -> None:
    run = _clean_run(run)
    if not run:
        return
    if "/" in run:
        relative = _relative(run, root)
        if relative is not None:
            paths.add(relative)
        name = run.rstrip("/").rsplit("/", 1)[-1]
        if name and not run.endswith("/"):
            names.add(name)
        return
    if not any(char.isalpha() for char in run):
        return  # "2.", "3.11": numbers, not files
    if "." in run or spanned or _PROSE_FILE_NAME.fullmatch(run):
        names.add(run)


def file_mentions(texts: Iterable[str], root: str | None = None) -> Mentions:
    """The files ``texts`` name (the module's rules); ``root`` makes absolute paths inside it
    relative."""
    paths: set[str] = set()
    names: set[str] = set()
    for text in texts:
        for span in _CODE_SPAN.finditer(text):
            for run in _PATH_RUN.findall(span.group(2)):
                _add_run(run, True, root, paths, names)
        for run in _PATH_RUN.findall(text):
            _add_run(run, False, root, paths, names)
    return Mentions(frozenset(paths), frozenset(names))
