"""Rule forms: a command line as settings rules (``Bash(git status:*)``) see it.

Permission rules match the simple commands of a line, unquoted and with the commands that
wrappers (``sudo``, ``env``, ``xargs``…), shells given ``-c`` and ``eval`` run. Every function
reads the line through the syntax guard: a refused line has no commands, no words and no
forms, and deny rules then fail closed.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from planmode.core.shell.syntax import Line, Refused, read_line
from planmode.core.shell.words import node_text, simple_command_words

_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})
# Programs that run the command given after their own options.
_WRAPPERS = frozenset({"sudo", "nohup", "nice", "time", "timeout", "exec", "command", "builtin"})
_WRAPPERS_WITH_VALUE = {"timeout": 1, "nice": 0}
# What makes a command more than one simple command.
_NOT_SIMPLE = frozenset(
    {
        "command_substitution",
        "process_substitution",
        "file_redirect",
        "heredoc_redirect",
        "herestring_redirect",
        "variable_assignment",
    }
)


def _commands(line: Line) -> list[Node]:
    """Every simple command of ``line`` in the order written, nested ones included."""
    commands: list[Node] = []
    stack = [line.root]
    while stack:
        node = stack.pop()
        if node.type == "command":
            commands.append(node)
        stack.extend(reversed(node.children))
    return commands


def simple_commands(command: str) -> Iterator[str]:
    """The text of every simple command in ``command`` (for matching permission rules).

    Yields nothing when the line is refused; callers treat that as no match.
    """
    texts = read_line(command, lambda line: [node_text(c).strip() for c in _commands(line)])
    return iter([] if isinstance(texts, Refused) else texts)


def command_words(command: str) -> list[list[str | None]] | None:
    """The words of every simple command in ``command`` as this package reads them — program
    first, then arguments, a computed word as None — nested ones (in substitutions) included.
    None when the line is refused."""
    words = read_line(command, lambda line: [simple_command_words(c)[1] for c in _commands(line)])
    return None if isinstance(words, Refused) else words


def rule_forms(command: str, depth: int = 0) -> list[str] | None:
    """Every simple command of ``command`` as permission rules should see it.

    The program is unquoted and stripped of its directory (``/bin/r\\m x`` is ``rm x``),
    arguments are unquoted (computed ones read ``*``), the command a wrapper runs (``sudo``,
    ``env``, ``xargs``, ``timeout``…) is listed too, and so is the code given to a shell with
    ``-c`` or to ``eval``. None when that cannot be known: the line is refused, a program
    name or a shell's code is computed — deny rules then fail closed.
    """
    if depth > 4:
        return None
    commands = command_words(command)
    if commands is None:
        return None
    forms: list[str] = []
    for words in commands:
        nested = _command_forms(words, depth)
        if nested is None:
            return None
        forms += nested
    return forms


def _command_forms(words: list[str | None], depth: int) -> list[str] | None:
    """The forms of one simple command and of what it runs."""
    if not words or words[0] is None:
        return None
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    forms = [" ".join([program, *(a if a is not None else "*" for a in args)])]
    if program in _SHELLS and "-c" in args:
        code = args[args.index("-c") + 1] if args.index("-c") + 1 < len(args) else None
        inner = rule_forms(code, depth + 1) if code is not None else None
        return None if inner is None else forms + inner
    if program == "eval":
        if any(a is None for a in args):
            return None
        inner = rule_forms(" ".join(a for a in args if a is not None), depth + 1)
        return None if inner is None else forms + inner
    if program in _WRAPPERS or program in {"env", "xargs"}:
        rest = list(args)
        skip_values = _WRAPPERS_WITH_VALUE.get(program, 0)
        while (
            rest
            and rest[0] is not None
            and (rest[0].startswith("-") or (program == "env" and "=" in rest[0]))
        ):
            rest.pop(0)
        rest = rest[skip_values:]
        if rest:
            inner_forms = _command_forms(rest, depth + 1)
            return None if inner_forms is None else forms + inner_forms
    return forms


def is_single_simple_command(command: str) -> bool:
    """True when ``command`` is exactly one command: no list, pipe, substitution or redirect."""
    single = read_line(command, _is_single)
    return single is True


def _is_single(line: Line) -> bool:
    if len(line.root.named_children) != 1:
        return False
    only = line.root.named_children[0]
    if only.type != "command":
        return False
    stack = list(only.children)
    while stack:
        node = stack.pop()
        if node.type in _NOT_SIMPLE:
            return False
        stack.extend(node.children)
    return True
