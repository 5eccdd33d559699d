"""The syntax guard: the one way a command line becomes a syntax tree.

Every entry point of the package reads a line through :func:`read_line`. A line is refused
before parsing when bash and tree-sitter-bash could read its text differently or when it is
too long (:func:`refused_text`); after parsing when the tree has errors or the parser skipped
text that bash reads as part of a word (:func:`skipped_text`); and whenever anything raises,
in the guard or in what the caller does with the tree. docs/read-only-bash.md ("1. The text")
says why each refusal exists.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

# Longer lines are refused unparsed: tree-sitter-bash parses long pipelines in more than
# linear time (about 0.5 s at 20 kB); `make bench` measures a 10 kB line.
MAX_COMMAND_LENGTH = 20_000

# Nodes whose whole span is read as one piece (their inner parts need not cover every byte).
_WHOLE = frozenset({"string", "raw_string", "heredoc_body", "comment", "regex"})

T = TypeVar("T")


# Plain classes, not dataclasses: they cost almost nothing to create at import (see Options).
class Line:
    """A line that passed the guard: as written, as UTF-8 bytes, and the root of its tree."""

    __slots__ = ("root", "source", "text")

    def __init__(self, text: str, source: bytes, root: Node) -> None:
        self.text = text
        self.source = source
        self.root = root


class Refused:
    """Why a line was not read: nothing about it is known."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"Refused({self.reason!r})"


def read_line(command: object, use: Callable[[Line], T]) -> T | Refused:
    """``use`` applied to the parsed ``command``, or why the line is refused.

    Fails closed: anything that raises — here or in ``use`` — refuses the line, naming the
    exception, so that a bug in a checker can never let a command through.
    """
    try:
        if not isinstance(command, str):
            return Refused("the command is not a string")
        refused = refused_text(command)
        if refused:
            return Refused(refused)
        source = command.encode("utf-8")
        root = _parser().parse(source).root_node
        if root.has_error or root.is_missing:
            return Refused("the command could not be parsed completely")
        skipped = skipped_text(source, root)
        if skipped:
            return Refused(skipped)
        return use(Line(command, source, root))
    except Exception as exc:
        return Refused(f"the command could not be checked ({type(exc).__name__}: {exc})")


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_bash.language()))


def refused_text(command: str) -> str | None:
    """Why ``command`` is not even parsed, or None.

    Bash splits only on space, tab and newline and treats every other byte as a word
    character; tree-sitter-bash treats some of them (CR, VT, FF, line separators) as blanks
    or line ends. Where the two can disagree, the line is refused.
    """
    if not command.strip():
        return "an empty command"
    if len(command) > MAX_COMMAND_LENGTH:
        return f"a command longer than {MAX_COMMAND_LENGTH} characters"
    for character in command:
        code = ord(character)
        if character in "\t\n" or 0x20 <= code < 0x7F:
            continue
        if character == "\x00":
            return "a NUL byte in the command"
        category = unicodedata.category(character)
        if category == "Cs":
            return f"a lone surrogate (U+{code:04X}) in the command"
        if category in {"Cc", "Zl", "Zp"}:
            return (
                f"control character U+{code:04X} (bash and the parser read it differently; "
                "only tab and newline are allowed)"
            )
        if code > 0xFFFF:
            # tree-sitter-bash 0.25 can crash the process (SIGSEGV) on "{" followed by such a
            # character: lines holding one are never parsed.
            return "a character outside the Basic Multilingual Plane"
    return None


def skipped_text(source: bytes, root: Node) -> str | None:
    """Text that no token covers must be blanks to bash too.

    tree-sitter-bash silently drops some text — an escaped blank (``echo a \\ b``) reads as
    whitespace, where bash passes the word " b" (``uniq in \\ `` writes a file named " ").
    """
    spans: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _WHOLE or not node.children:
            spans.append((node.start_byte, node.end_byte))
        else:
            stack.extend(node.children)
    spans.sort()
    position = 0
    for start, end in [*spans, (len(source), len(source))]:
        if start > position:
            gap = source[position:start].replace(b"\\\n", b"")
            if gap.strip(b" \t\n"):
                shown = source[position:start].decode("utf-8", "replace")
                return f"text the parser skipped ({shown!r}; bash reads it as part of a word)"
        position = max(position, end)
    return None
