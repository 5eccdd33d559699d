"""Review comments the user writes into a plan, anchored to the text they annotate.

The syntax (docs: README "Reviewing with comments") is a Markdown blockquote whose first line
starts with the marker ``[!review]``, on its own lines after the block it annotates::

    - Migrate the database in place.
    > [!review] Do it in a copy first; we cannot restore production.
    > Continuation lines are more `>` lines.

It reads as a quote in every editor and renders as one on GitHub. The marker is matched
case-insensitively with up to three spaces of indentation, never inside a fenced code block.

A comment annotates the nearest block of plan text above it: a heading (then the whole
section), a list item, a paragraph or a fenced code block. Its anchor is that block's text (the
quote), the headings it sits under and its line in the plan without comments. Comments are not
plan content: :func:`strip_comments` removes them (and the blank line they leave doubled).

When the agent revises the plan, :func:`reanchor` finds each comment's quote in the new text:
found, the comment stays anchored there; gone (the text it annotated changed), it is outdated.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

MARKER = "[!review]"
_COMMENT = re.compile(r"^ {0,3}>[ \t]?\[!review\](?:[ \t]+|$)(.*)$", re.IGNORECASE)
_QUOTE_LINE = re.compile(r"^ {0,3}>[ \t]?(.*)$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
# One scan of the whole text: most plans hold no comment, and a megabyte plan is read on
# every keystroke (diagnostics, lenses).
_ANY_MARKER = re.compile(r"\[!review\]", re.IGNORECASE)
# How much of a quote the agent's text repeats; the structured result keeps it whole.
QUOTE_PREVIEW = 160


@dataclass(frozen=True)
class Anchor:
    """What a comment annotates: a block of the plan without comments."""

    quote: str  # the block's text ("" for a comment above all plan text)
    heading_path: tuple[str, ...]  # titles of the headings the block sits under, outermost first
    line: int  # 0-based first line of the block in the plan without comments


@dataclass(frozen=True)
class Comment:
    text: str
    anchor: Anchor
    # 0-based lines [start, end) the comment occupies in the document; (-1, -1) for a comment
    # that is no longer written there (one delivered earlier and re-anchored since).
    start: int = -1
    end: int = -1
    outdated: bool = False

    # As the agent receives it (an ExitResult's ``comments``): its anchor's text and headings,
    # and ``line``, 1-based in the plan without comments.
    @property
    def quote(self) -> str:
        return self.anchor.quote

    @property
    def heading_path(self) -> tuple[str, ...]:
        return self.anchor.heading_path

    @property
    def line(self) -> int:
        return self.anchor.line + 1

    def to_json(self) -> dict[str, Any]:
        """As the plan's history keeps it (core/history.py): the agent's shape."""
        return {
            "text": self.text,
            "quote": self.quote,
            "headingPath": list(self.heading_path),
            "line": self.line,
            "outdated": self.outdated,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Comment:
        """A comment as :meth:`to_json` wrote it; ValueError otherwise."""
        try:
            path = raw.get("headingPath") or []
            return cls(
                text=str(raw["text"]),
                anchor=Anchor(str(raw["quote"]), tuple(str(h) for h in path), int(raw["line"]) - 1),
                outdated=bool(raw.get("outdated", False)),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a comment: {raw!r}") from exc


@dataclass(frozen=True)
class Block:
    """A block of plan text: 0-based lines [start, end) of the plan without comments."""

    start: int
    end: int
    quote: str
    heading_path: tuple[str, ...]


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _split(text: str) -> list[str]:
    """Lines with their endings, as an editor counts them (only LF, CRLF and CR end one), so
    that joining them gives the text back exactly."""
    return _LINE.findall(text)


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


# Per line, the first line of the fenced code block it is in (opening and closing fence
# included), or None outside fences.
Fences = list[int | None]


def _scan(lines: Sequence[str]) -> tuple[list[tuple[int, int, str]], Fences, bool]:
    """The comments ``(start, end, text)`` of ``lines``, the fences per line, and whether the
    last fence is left open (it then runs to the end)."""
    comments: list[tuple[int, int, str]] = []
    fenced: Fences = [None] * len(lines)
    fence: str | None = None
    opened = 0
    i = 0
    while i < len(lines):
        line = _bare(lines[i])
        opening = _FENCE.match(line)
        if fence is not None:
            fenced[i] = opened
            closing = opening.group(1) if opening else ""
            if closing[:1] == fence[0] and len(closing) >= len(fence) and line.strip() == closing:
                fence = None
            i += 1
            continue
        if opening:
            fence, opened = opening.group(1), i
            fenced[i] = i
            i += 1
            continue
        marker = _COMMENT.match(line)
        if marker is None:
            i += 1
            continue
        parts = [marker.group(1).strip()]
        j = i + 1
        while j < len(lines):
            more = _QUOTE_LINE.match(_bare(lines[j]))
            if more is None or _COMMENT.match(_bare(lines[j])):
                break
            parts.append(more.group(1).strip())
            j += 1
        comments.append((i, j, "\n".join(parts).strip()))
        i = j
    return comments, fenced, fence is not None


def _quote(lines: Sequence[str], start: int, end: int) -> str:
    return "\n".join(_bare(line).rstrip() for line in lines[start:end]).strip()


def _blocks(lines: Sequence[str], fenced: Sequence[int | None], quotes: bool = True) -> list[Block]:
    """The blocks of a plan without comments (lines with their endings); without ``quotes``
    their quotes are left empty (see :func:`_quote`), which is much faster on a long plan."""
    blocks: list[Block] = []
    headings: list[tuple[int, str]] = []
    path: tuple[str, ...] = ()
    start: int | None = None

    def close(end: int) -> None:
        nonlocal start
        if start is not None:
            quote = _quote(lines, start, end) if quotes else ""
            blocks.append(Block(start, end, quote, path))
        start = None

    for i, raw in enumerate(lines):
        line = _bare(raw)
        if fenced[i] is not None:
            if start is None or fenced[start] != fenced[i]:
                close(i)
                start = i
            continue
        if start is not None and fenced[start] is not None:
            close(i)
        if not line.strip():
            close(i)
            continue
        heading = _HEADING.match(line)
        if heading:
            close(i)
            level = len(heading.group(1))
            while headings and headings[-1][0] >= level:
                headings.pop()
            path = tuple(title for _, title in headings)
            # The heading's own block sits under its parents: a comment on it is on the section.
            start = i
            close(i + 1)
            headings.append((level, (heading.group(2) or "").strip()))
            path = tuple(title for _, title in headings)
            continue
        if _LIST_ITEM.match(line) or start is None:
            close(i)
            start = i
    close(len(lines))
    return blocks


def blocks(text: str) -> list[Block]:
    """The blocks of ``text``, which must hold no comments (see :func:`strip_comments`)."""
    lines = _split(text)
    return _blocks(lines, _scan(lines)[1])


def _stripped_lines(
    lines: Sequence[str], comments: Iterable[tuple[int, int, str]], fenced: Fences
) -> list[int]:
    """Indices of the lines that remain once the comments are removed."""
    drop: set[int] = set()
    for start, end, _ in comments:
        drop.update(range(start, end))
        before = start - 1
        while before in drop:
            before -= 1
        after = end
        # A comment written between blank lines leaves two in a row: drop the one before it.
        blank_before = before >= 0 and fenced[before] is None and not _bare(lines[before]).strip()
        blank_after = after >= len(lines) or not _bare(lines[after]).strip()
        if blank_before and blank_after:
            drop.add(before)
    keep = [i for i in range(len(lines)) if i not in drop]
    return keep


def strip_comments(text: str) -> str:
    """The plan without its comments. A plan without comments comes back unchanged."""
    if not _ANY_MARKER.search(text):
        return text
    lines = _split(text)
    found, fenced, _ = _scan(lines)
    if not found:
        return text
    kept = _stripped_lines(lines, found, fenced)
    out = [lines[i] for i in kept]
    # The last line keeps the ending the text had: a comment removed at the end of a text
    # without a final newline must not leave the new last line with one.
    if out and not text.endswith(("\n", "\r")):
        out[-1] = _bare(out[-1])
    return "".join(out)


def document_lines(text: str) -> list[int]:
    """For each line of the plan without comments, its line in ``text``."""
    lines = _split(text)
    found, fenced, _ = _scan(lines)
    return _stripped_lines(lines, found, fenced) if found else list(range(len(lines)))


def is_only_comments(lines: Sequence[str]) -> bool:
    """Whether ``lines`` (with their endings) hold comments and nothing else but blanks."""
    text = "".join(lines)
    return bool(parse(text)) and not strip_comments(text).strip()


def parse(text: str) -> list[Comment]:
    """The comments written in ``text``, each anchored to the block it annotates."""
    if not _ANY_MARKER.search(text):
        return []
    lines = _split(text)
    found, fenced, _ = _scan(lines)
    if not found:
        return []
    kept = _stripped_lines(lines, found, fenced)
    plain_lines = [lines[i] for i in kept]
    plain_blocks = _blocks(plain_lines, [fenced[i] for i in kept], quotes=False)
    starts = [block.start for block in plain_blocks]
    comments = []
    for start, end, body in found:
        # The last line of the plan without comments that stood above the comment, and the
        # last block starting at or before it.
        last = bisect_left(kept, start) - 1
        index = bisect_right(starts, last) - 1
        if last < 0 or index < 0:
            anchor = Anchor("", (), 0)
        else:
            block = plain_blocks[index]
            quote = _quote(plain_lines, block.start, block.end)
            anchor = Anchor(quote, block.heading_path, block.start)
        comments.append(Comment(body, anchor, start, end))
    return comments


def insert(text: str, line: int, comment: str) -> str:
    """``text`` with ``comment`` written after the block holding 0-based ``line``.

    Goes straight after the block, without blank lines, so that :func:`strip_comments` gives
    ``text`` back. Multi-line comments become continuation lines. ValueError for an empty comment.
    """
    body = [part.strip() for part in re.split(r"\r\n|\r|\n", comment.strip())]
    if not body or not body[0]:
        raise ValueError("a comment needs text")
    lines = _split(text)
    found, fenced, left_open = _scan(lines)
    eol = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    # A continuation line that starts with the marker would begin a second comment.
    more = ["\\" + part if _COMMENT.match(f"> {part}") else part for part in body[1:]]
    written = [f"> {MARKER} {body[0]}{eol}"] + [
        f"> {part}{eol}" if part else f">{eol}" for part in more
    ]
    after = 0
    in_comment = {i for start, end, _ in found for i in range(start, end)}
    for block in _blocks(
        [line_ if i not in in_comment else "\n" for i, line_ in enumerate(lines)], fenced
    ):
        if block.start <= line:
            after = block.end
    # After any comments already written under that block, so they keep their order, and
    # after a quote right below it (one below a fence), which would read as a continuation.
    while after < len(lines) and (
        after in in_comment
        or (fenced[after] is None and _QUOTE_LINE.match(_bare(lines[after])) is not None)
    ):
        after += 1
    # A fence left open runs to the end: a comment after it would be code. It goes above.
    if left_open and after == len(lines) and after > 0:
        after = fenced[after - 1] or 0
    if after > 0 and not lines[after - 1].endswith(("\n", "\r")):
        lines[after - 1] += eol
        if after == len(lines):
            written[-1] = _bare(written[-1])
    return "".join(lines[:after] + written + lines[after:])


def reanchor(comments: Iterable[Comment], text: str) -> list[Comment]:
    """Comments made on an earlier version, found again in ``text`` (a plan without comments).

    A comment whose quote is still a block of ``text`` is anchored there (preferring the same
    headings); otherwise it is outdated and keeps its old anchor. A comment above all text
    stays anchored to the top.
    """
    comments = list(comments)
    if not comments:
        return []
    found = blocks(text)
    by_quote: dict[str, list[Block]] = {}
    for block in found:
        by_quote.setdefault(block.quote, []).append(block)
    result = []
    for comment in comments:
        comment = replace(comment, start=-1, end=-1)
        anchor = comment.anchor
        if not anchor.quote:
            result.append(replace(comment, anchor=replace(anchor, line=0), outdated=False))
            continue
        candidates = by_quote.get(anchor.quote, [])
        same = [b for b in candidates if b.heading_path == anchor.heading_path]
        chosen = (same or candidates)[0] if candidates else None
        if chosen is None:
            result.append(replace(comment, outdated=True))
        else:
            moved = Anchor(chosen.quote, chosen.heading_path, chosen.start)
            result.append(replace(comment, anchor=moved, outdated=False))
    return result


def live_and_earlier(
    text: str, delivered: Sequence[Comment], live: Sequence[Comment] | None = None
) -> tuple[list[Comment], list[Comment]]:
    """The comments written in ``text`` (``live``: those of them to count, default all) and
    the ``delivered`` ones no longer written there.

    A written comment that was delivered before (same text) but whose annotated text changed
    since is outdated; the earlier ones are re-anchored against the plan without comments.
    """
    if live is None:
        live = parse(text)
    before = {c.text: c for c in delivered}
    marked = []
    for comment in live:
        sent = before.get(comment.text)
        changed = sent is not None and sent.anchor.quote != comment.anchor.quote
        marked.append(replace(comment, outdated=changed) if changed else comment)
    written = {c.text for c in live}
    gone = [c for c in delivered if c.text not in written]
    return marked, reanchor(gone, strip_comments(text)) if gone else []


def _heading_text(path: Sequence[str]) -> str:
    return " › ".join(path)


def _preview(quote: str) -> str:
    flat = " ".join(quote.split())
    return flat if len(flat) <= QUOTE_PREVIEW else flat[: QUOTE_PREVIEW - 1] + "…"


def render(comments: Sequence[Comment]) -> str:
    """The comments as the model reads them: one numbered item each, with its anchor."""
    items = []
    for n, comment in enumerate(comments, 1):
        where = []
        if comment.anchor.heading_path:
            where.append(f"under “{_heading_text(comment.anchor.heading_path)}”")
        if comment.anchor.quote:
            where.append(f"on line {comment.anchor.line + 1}: “{_preview(comment.anchor.quote)}”")
        else:
            where.append("on the plan as a whole")
        if comment.outdated:
            where.append("(that text has changed since)")
        body = comment.text.replace("\n", "\n   ")
        items.append(f"{n}. {' '.join(where)}\n   {body}")
    return "\n".join(items)


def delivered(comments: Iterable[Comment]) -> list[Comment]:
    """The comments worth sending: an empty ``[!review]`` marker says nothing."""
    return [c for c in comments if c.text.strip()]
