"""Words: what bash makes of a word as written, and which variables a line may assign.

A word is *literal* when bash passes it on unchanged; anything bash could expand, split or
join makes it *computed* (None), which may become any word or several (docs/read-only-bash.md,
"2. Words: what bash would compute" and "3. Variables").
"""

from __future__ import annotations

import re

from tree_sitter import Node

# Outside quotes these make bash expand the word (parameters, substitutions, globs, extended
# globs), or end it; "{", "}" and "~" are decided where they stand (bash_word).
_EXPANDS_UNQUOTED = frozenset("$`*?[]()#")
_ENDS_WORD = frozenset(" \t\n;&|<>")
_LITERAL_NODES = frozenset({"word", "number", "string", "raw_string", "concatenation"})


def bash_word(text: str) -> str | None:
    """The one word bash makes of ``text`` (a word as written, quotes included), or None when
    bash would compute it: expand it, split it, or make it into more or fewer words."""
    out: list[str] = []
    index, end = 0, len(text)
    while index < end:
        character = text[index]
        if character == "\\":
            if index + 1 == end:
                return None
            following = text[index + 1]
            if following != "\n":  # backslash-newline is removed
                out.append(following)
            index += 2
        elif character == "'":
            close = text.find("'", index + 1)
            if close < 0:
                return None
            out.append(text[index + 1 : close])
            index = close + 1
        elif character == '"':
            index += 1
            while index < end and text[index] != '"':
                inner = text[index]
                if inner in "$`":
                    return None
                if inner == "\\" and index + 1 < end and text[index + 1] in '$`"\\\n':
                    if text[index + 1] != "\n":
                        out.append(text[index + 1])
                    index += 2
                    continue
                out.append(inner)
                index += 1
            if index == end:
                return None
            index += 1
        elif character == "{" and ("," in text[index:] or ".." in text[index:]):
            return None  # a brace expansion (bash needs a comma or a sequence inside)
        elif character in "{}":
            out.append(character)
            index += 1
        elif character == "~" and (index == 0 or text[index - 1] in "=:"):
            return None  # a tilde prefix (also after "=" and ":" in name=value words)
        elif character in _EXPANDS_UNQUOTED or character in _ENDS_WORD:
            return None
        else:
            out.append(character)
            index += 1
    return "".join(out)


def splits(text: str) -> bool:
    """An unescaped blank, newline or operator character inside what the parser calls one
    word: bash ends the word there."""
    escaped = False
    for character in text:
        if escaped:
            escaped = False
        elif character == "\\":
            escaped = True
        elif character in _ENDS_WORD:
            return True
    return False


def node_text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def literal(node: Node) -> str | None:
    """The value of a word the shell does not compute, or None."""
    if node.type not in _LITERAL_NODES or not _plain_parts(node):
        return None
    return bash_word(node_text(node))


def _plain_parts(node: Node) -> bool:
    """No part of the word is an expansion (checked on the tree first: cheaper than text)."""
    if node.type == "string":
        return all(child.type in {'"', "string_content"} for child in node.children)
    if node.type == "concatenation":
        return all(child.type in _LITERAL_NODES and _plain_parts(child) for child in node.children)
    return True


_SHELL_VARIABLE = re.compile(r"[a-z_][a-z0-9_]{0,31}\Z")
# Lower-case names that still change how bash or a program behaves.
_LOWER_CASE_SPECIAL = frozenset({"histchars", "auto_resume"})


def harmless_variable(name: str) -> bool:
    """May a command line assign ``name`` (``x=…``, ``for x in``, ``read x``)?

    Only plain lower-case shell variables. Every variable bash itself reads (PATH, HOME, IFS,
    BASH_ENV, PS4, GLOBIGNORE, …) and every variable exported to programs by convention
    (GIT_*, LD_*, PYTHONPATH, …) has an upper-case name; the lower-case exceptions — the proxy
    variables, npm's ``npm_config_*`` (and every ``npm_*``) and bash's
    ``histchars``/``auto_resume`` — are refused by name.
    """
    return (
        _SHELL_VARIABLE.match(name) is not None
        and "proxy" not in name
        and not name.startswith("npm_")
        and name not in _LOWER_CASE_SPECIAL
    )


# Children of a simple command that are not among the words it passes to the program.
_NOT_ARGUMENTS = frozenset(
    {"variable_assignment", "file_redirect", "heredoc_redirect", "herestring_redirect", "comment"}
)


def simple_command_words(node: Node) -> tuple[bool, list[str | None]]:
    """The words of one simple command as bash passes them — the program first, a computed
    word as None — and whether the command names a program at all (``>f`` does not)."""
    named = False
    words: list[str | None] = []
    for child in node.children:
        if child.type == "command_name":
            named = True
            words.append(literal(child.children[0]) if child.children else None)
        elif child.is_named and child.type not in _NOT_ARGUMENTS:
            words.append(literal(child))
    return named, words
