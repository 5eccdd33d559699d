"""The words of a command line that may name files, for checks on *where* a line reads.

An agent with rules of its own (core/agents.py) may ask before a Bash line reads outside its
working directories, and apply its ``Read(…)`` rules to the files a line names
(docs/claude-code.md, "The user's own rules").
Which words a program reads as paths is its own business; this module over-approximates:
every word of the line but the program names — arguments, redirection targets, assignment
values, loop lists, test operands — is an operand, as bash passes it (None when bash
computes it). Not operands: here-document bodies, file-descriptor duplications (``2>&1``) and
output thrown into ``/dev/null``.
"""

from __future__ import annotations

from typing import NamedTuple

from tree_sitter import Node

from planmode.core.shell.syntax import Line, Refused, read_line
from planmode.core.shell.words import literal, node_text, simple_command_words

# Nodes that are one word as bash reads it (their parts are not words of their own).
_WORDS = frozenset(
    {
        "word",
        "number",
        "string",
        "raw_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "brace_expression",
        "arithmetic_expansion",
        "ansi_c_string",
        "translated_string",
    }
)
# Nodes that hold no file name: the program's name, names of variables, test operators,
# here-documents (their body is the command's input, not a path), comments.
_NOT_OPERANDS = frozenset(
    {
        "command_name",
        "variable_name",
        "special_variable_name",
        "test_operator",
        "file_descriptor",
        "heredoc_redirect",
        "comment",
        "regex",
    }
)
_OUTPUT = frozenset({">", ">>", "&>", "&>>", ">|", ">&"})
_DUPLICATE = frozenset({">&", "<&"})
# Builtins that move the shell to a directory the line does not name: cd and pushd without an
# operand (home), with "-" (the previous one), popd (one from the stack).
_CHANGES_DIRECTORY = frozenset({"cd", "pushd", "popd"})


class Operand(NamedTuple):
    """One word that may name a file: bash's value (None when bash computes it) and the
    word as written."""

    value: str | None
    text: str


class Operands(NamedTuple):
    """The words of a line that may name files, in the order written, and whether the line
    moves to a directory it does not name (``cd``, ``cd -``, ``popd``)."""

    words: list[Operand]
    unnamed_directory: bool


def operands(command: str) -> Operands | None:
    """The operands of ``command``; None when the line is refused (nothing is known)."""
    found = read_line(command, _operands)
    return None if isinstance(found, Refused) else found


def _operands(line: Line) -> Operands:
    words: list[Operand] = []
    unnamed = False
    stack = [line.root]
    while stack:
        node = stack.pop()
        if node.type in _NOT_OPERANDS:
            continue
        if node.type == "command":
            unnamed = unnamed or _moves_unnamed(node)
        if node.type == "file_redirect":
            target = _redirect_target(node)
            if target is not None:
                words.append(Operand(literal(target), node_text(target)))
            continue
        if node.type in _WORDS:
            words.append(Operand(literal(node), node_text(node)))
            continue
        stack.extend(reversed(node.children))
    return Operands(words, unnamed)


def _redirect_target(node: Node) -> Node | None:
    """The file a redirection opens; None for a duplication or output into /dev/null."""
    operator = next((c.type for c in node.children if not c.is_named), "")
    named = [c for c in node.children if c.is_named and c.type != "file_descriptor"]
    if not named:
        return None
    target = named[-1]
    value = literal(target)
    if operator in _DUPLICATE and value is not None and (value.isdigit() or value == "-"):
        return None
    if operator in _OUTPUT and value == "/dev/null":
        return None
    return target


def _moves_unnamed(node: Node) -> bool:
    named, words = simple_command_words(node)
    if not named or not words:
        return False
    while words and words[0] in {"builtin", "command"}:
        words = words[1:]
    if not words or words[0] not in _CHANGES_DIRECTORY:
        return False
    if words[0] == "popd":
        return True
    targets = [w for w in words[1:] if w is None or not w.startswith("-") or w == "-"]
    return not targets or targets[0] == "-"
