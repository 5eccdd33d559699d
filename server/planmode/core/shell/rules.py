"""Rule forms: a command line as settings rules (``Bash(git status:*)``) see it.

Permission rules match the simple commands of a line, unquoted and with the commands that
wrappers (``sudo``, ``env``, ``xargs``, ``find -exec``…), shells given ``-c``, ``eval``,
``trap`` and ``alias`` run. A rule must see every command bash would run, in any mode: where
the tree could hide one from the walk below — a ``#`` bash does not read as a comment, code in
a pattern or a single-quoted default inside double quotes, arithmetic on variables (their
values are evaluated, subscripts run commands), a here-document bash splits differently —
the line is *uncertain* (:func:`certain_commands` is None). Then deny and ask rules count it
as covered and allow rules do not match it (docs/read-only-bash.md, "Permission rules").
Every function reads the line through the syntax guard: a refused line is uncertain too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from tree_sitter import Node

from planmode.core.shell.syntax import Line, read_line
from planmode.core.shell.walk import Walk
from planmode.core.shell.words import bash_word, literal, node_text, simple_command_words

_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})
# Programs that run a command given among their own words. Their options are not parsed: every
# literal word after the wrapper may start the command it runs, so each suffix is a form.
_WRAPPERS = frozenset(
    """sudo doas nohup nice time timeout exec command builtin env xargs setsid stdbuf ionice
    chrt taskset chroot unshare nsenter flock strace ltrace busybox coproc unbuffer pkexec
    watch""".split()
)
# Programs whose option's value is shell code (env -S: words split as a shell would).
_CODE_OPTIONS = {"su": "-c", "runuser": "-c", "flock": "-c", "script": "-c", "env": "-S"}
_LONG_CODE_OPTIONS = frozenset({"--command", "--split-string"})
# find's actions that run a command, up to ";" (or "+" after {}).
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
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


def certain_commands(line: Line) -> list[Node] | None:
    """Every simple command of ``line`` in the order written (nested ones included), or None
    when bash may run a command that the tree does not show as one."""
    return _Certainty(line).commands()


def simple_commands(command: str) -> Iterator[str]:
    """The text of every simple command in ``command`` (for matching permission rules).

    Yields nothing when the line is refused or uncertain; callers treat that as no match.
    """
    texts = read_line(command, _texts)
    return iter(texts if isinstance(texts, list) else [])


def _texts(line: Line) -> list[str] | None:
    nodes = certain_commands(line)
    return None if nodes is None else [node_text(c).strip() for c in nodes]


def command_words(command: str) -> list[list[str | None]] | None:
    """The words of every simple command in ``command`` as this package reads them — program
    first, then arguments, a computed word as None — nested ones (in substitutions) included.
    None when the line is refused or uncertain."""
    words = read_line(command, _words)
    return words if isinstance(words, list) else None


def _words(line: Line) -> list[list[str | None]] | None:
    nodes = certain_commands(line)
    if nodes is None:
        return None
    # `[ … ]` runs the builtin [ with words the tree parses as an expression: computed here.
    return [simple_command_words(c)[1] if c.type == "command" else ["[", None] for c in nodes]


def _is_test_builtin(node: Node) -> bool:
    """``[ … ]`` (tree-sitter's test_command, as ``[[ … ]]``), which bash runs as a command."""
    return node.type == "test_command" and bool(node.children) and node.children[0].type == "["


def rule_forms(command: str, depth: int = 0) -> list[str] | None:
    """Every simple command of ``command`` as permission rules should see it.

    The program is unquoted and stripped of its directory (``/bin/r\\m x`` is ``rm x``),
    arguments are unquoted (computed ones read ``*``), the command a wrapper runs is listed
    too, and so is the code given to a shell with ``-c``, to ``eval``, ``trap`` or ``alias``.
    None when that cannot be known: the line is refused or uncertain, a program name or a
    shell's code is computed — deny rules then fail closed.
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


# A wrapper with more words than this is uncertain: each suffix of its words is a form.
_MAX_WRAPPED_WORDS = 64


def _command_forms(words: list[str | None], depth: int, suffixes: bool = True) -> list[str] | None:
    """The forms of one simple command and of what it runs (None: unknown). ``suffixes``:
    also every suffix of a wrapper's words (not again for a suffix, which is one already)."""
    if not words or words[0] is None or depth > 8:
        return None
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    forms = [" ".join([program, *(a if a is not None else "*" for a in args)])]
    for code in _code_run_by(program, args) or []:
        inner = rule_forms(code, depth + 1) if code is not None else None
        if inner is None:
            return None
        forms += inner
    nested: list[list[str | None]] = []
    if program in _WRAPPERS and suffixes:
        if len(args) > _MAX_WRAPPED_WORDS:
            return None
        nested += [
            args[start:]
            for start, word in enumerate(args)
            if word is not None and not word.startswith("-")
        ]
    if program == "find":
        nested += _find_commands(args)
    for command in nested:
        inner = _command_forms(command, depth + 1, suffixes=program not in _WRAPPERS)
        if inner is None:
            return None
        forms += inner
    return forms


def _code_run_by(program: str, args: list[str | None]) -> list[str | None] | None:
    """The shell code ``program`` runs from its words (None: it runs none); a computed piece
    of code is None in the list."""
    if program in _SHELLS and "-c" in args:
        index = args.index("-c") + 1
        return [args[index] if index < len(args) else None]
    if program == "eval":
        return [None if any(a is None for a in args) else " ".join(a or "" for a in args)]
    operands = [a for a in args if a is None or not a.startswith("-")]
    if program == "watch":  # runs its words from the first operand on through sh -c
        first = next((i for i, a in enumerate(args) if a is None or not a.startswith("-")), None)
        words = args[first:] if first is not None else []
        return [None if None in words else " ".join(a or "" for a in words)]
    if program == "trap":
        return operands[:1]  # the action, then signal names
    if program == "alias":
        return [a if a is None else a.partition("=")[2] for a in args if a is None or "=" in a]
    option = _CODE_OPTIONS.get(program)
    if option is None:
        return None
    code: list[str | None] = []
    for index, word in enumerate(args):
        if word is None:
            code.append(None)  # it could be the option
        elif word == option or word in _LONG_CODE_OPTIONS:
            code.append(args[index + 1] if index + 1 < len(args) else None)
        elif word.startswith(option) or word.startswith(tuple(o + "=" for o in _LONG_CODE_OPTIONS)):
            code.append(word.partition("=")[2] if word.startswith("--") else word[2:])
    return code


def _find_commands(args: list[str | None]) -> list[list[str | None]]:
    """The commands of find's -exec, -execdir, -ok and -okdir actions."""
    commands: list[list[str | None]] = []
    rest = list(args)
    while rest:
        word = rest.pop(0)
        if word not in _FIND_EXEC:
            continue
        command: list[str | None] = []
        while rest and rest[0] != ";" and not (rest[0] == "+" and command[-1:] == ["{}"]):
            command.append(rest.pop(0))
        # {} as (part of) the program runs the files found: unknown.
        commands.append([None] if not command or "{}" in (command[0] or "{}") else command)
    return commands


def is_single_simple_command(command: str) -> bool:
    """True when ``command`` is exactly one command: no list, pipe, substitution or redirect,
    and nothing in it that bash could run as a command the tree does not show."""
    single = read_line(command, _is_single)
    return single is True


def _is_single(line: Line) -> bool:
    if len(line.root.named_children) != 1 or certain_commands(line) is None:
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


# Node types whose children the walk below reads; any other type makes the line uncertain.
_KNOWN = frozenset(
    """program list pipeline subshell compound_statement redirected_statement negated_command
    while_statement if_statement elif_clause else_clause do_group case_statement case_item
    for_statement function_definition variable_assignments command command_name word number
    string raw_string concatenation simple_expansion string_content variable_name
    special_variable_name brace_expression command_substitution process_substitution
    file_redirect file_descriptor herestring_redirect heredoc_redirect test_command
    binary_expression unary_expression parenthesized_expression test_operator regex
    extglob_pattern comment variable_assignment expansion declaration_command unset_command
    array ansi_c_string translated_string arithmetic_expansion heredoc_content""".split()
)
# Text in which bash may find code the tree did not parse as such.
_TEXT_LEAVES = frozenset({"word", "regex", "extglob_pattern", "string_content", "heredoc_content"})
_EXPANSION_OPERATORS = frozenset(
    ':- - := = :+ + :? ? # ## % %% / // /# /% ^ ^^ , ,, ${ } $ "'.split()
)
# Builtins that evaluate a variable name they are given: a subscript in it runs commands.
_NAME_EVALUATORS = frozenset(
    """read unset declare typeset local export readonly mapfile readarray wait getopts
    printf""".split()
)
# Variables whose value bash evaluates as a prompt (PS4 with set -x) or runs as code; named
# anywhere but in an expansion ($PS4, ${PS4}) they may be assigned.
_CODE_VARIABLES = re.compile(r"(?<![\w$])(?<!\$\{)(?:PS[0-4]|PROMPT_COMMAND)\b")


class _Certainty:
    """One walk over one parsed line, collecting its simple commands, or finding where bash
    may run a command the tree does not show."""

    def __init__(self, line: Line) -> None:
        self.line = line
        self.walk = Walk(line.source, line.text)

    def commands(self) -> list[Node] | None:
        if _CODE_VARIABLES.search(self.line.text) or not self._heredocs_agree():
            return None
        commands: list[Node] = []
        stack: list[tuple[Node, bool, bool]] = [(self.line.root, False, False)]
        while stack:
            node, in_substitution, in_expansion = stack.pop()
            if not node.is_named:
                if in_expansion and node.type not in _EXPANSION_OPERATORS:
                    return None  # ${!x}, ${x@P}, ${x:1:$n} …
                continue
            if not self._certain(node, in_substitution, in_expansion):
                return None
            if node.type == "command" or _is_test_builtin(node):
                commands.append(node)
            if node.type == "heredoc_redirect" and self._quoted_heredoc(node):
                children = [c for c in node.children if c.type != "heredoc_body"]
            else:
                children = node.children
            inner = in_substitution or node.type in {"command_substitution", "process_substitution"}
            nested = (in_expansion or node.type == "expansion") and node.type not in {
                "command_substitution",
                "process_substitution",
            }
            stack.extend((child, inner, nested) for child in reversed(children))
        return commands

    def _certain(self, node: Node, in_substitution: bool, in_expansion: bool) -> bool:
        kind = node.type
        if kind in {"heredoc_start", "heredoc_end"}:
            return True  # checked by _heredocs_agree
        if kind == "heredoc_body":  # only unquoted ones are walked: bash expands them
            return bool(node.named_children) or not _hides_code(node_text(node))
        if kind not in _KNOWN:
            return False
        if kind in _TEXT_LEAVES and not node.named_children and _hides_code(node_text(node)):
            return False
        if in_expansion and kind in {"raw_string", "ansi_c_string"}:
            # single quotes inside "${x:-'…'}" quote nothing
            return not _hides_code(node_text(node), escapes=False)
        if kind == "comment":
            return self.walk.comment(node, in_substitution)[0] is None
        if kind == "command":
            return self.walk.glued_words(node) is None and _evaluates_no_names(node)
        if kind == "declaration_command" or kind == "unset_command":
            return _evaluates_no_names(node)
        if kind == "arithmetic_expansion":
            return self.walk.arithmetic(node, in_substitution)[0] is None
        if kind == "compound_statement" and node.children and node.children[0].type == "((":
            return self.walk.arithmetic(node, in_substitution)[0] is None
        if kind == "test_command":
            return self.walk.test(node, in_substitution)[0] is None
        if kind == "variable_assignment":
            target = node.children[0] if node.children else None
            return target is not None and target.type == "variable_name"
        if kind == "expansion":
            return not any(c.type == "subscript" for c in node.children)
        if kind == "file_redirect":  # e.g. "echo 2>/dev/null\n\\cat": bash runs cat too
            return self.walk.redirect_shape(node) is None
        return True

    def _quoted_heredoc(self, node: Node) -> bool:
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        return start is not None and bash_word(node_text(start)) != node_text(start)

    def _heredocs_agree(self) -> bool:
        """Every here-document's body is where bash reads it: from the line after its
        operator (after the bodies before it on that line), to the first line equal to its
        delimiter (leading tabs stripped for ``<<-``)."""
        redirects: list[Node] = []
        stack = [self.line.root]
        while stack:
            node = stack.pop()
            if node.type == "heredoc_redirect":
                redirects.append(node)
            stack.extend(node.children)
        if not redirects:
            return True
        source = self.line.source
        position = 0
        for node in sorted(redirects, key=lambda n: n.start_byte):
            kinds = {c.type: c for c in node.children}
            start, end = kinds.get("heredoc_start"), kinds.get("heredoc_end")
            if start is None or end is None:
                return False
            delimiter = bash_word(node_text(start))
            if delimiter is None or "\n" in delimiter:
                return False
            strip_tabs = "<<-" in kinds
            newline = source.find(b"\n", start.end_byte)
            if newline < 0:
                return False
            body_start = max(position, newline + 1)
            line_start = body_start
            wanted = delimiter.encode("utf-8")
            while True:
                line_end = source.find(b"\n", line_start)
                text = source[line_start : line_end if line_end >= 0 else len(source)]
                if (text.lstrip(b"\t") if strip_tabs else text) == wanted:
                    break
                if line_end < 0:
                    return False  # bash reads to the end of the line, with a warning
                line_start = line_end + 1
            # tree-sitter leaves the tabs <<- strips out of the body's start and the end's span
            tabs = len(text) - len(text.lstrip(b"\t")) if strip_tabs else 0
            if (end.start_byte, end.end_byte) != (line_start + tabs, line_start + len(text)):
                return False
            body = kinds.get("heredoc_body")
            if body is not None:
                first_tabs = len(source[body_start:]) - len(source[body_start:].lstrip(b"\t"))
                lead = min(first_tabs, line_start - body_start) if strip_tabs else 0
                if not (
                    body_start <= body.start_byte <= body_start + lead
                    and line_start <= body.end_byte <= end.start_byte
                ):
                    return False
            position = (line_end + 1) if line_end >= 0 else len(source)
        return True


def _hides_code(text: str, escapes: bool = True) -> bool:
    """Whether bash could run code from ``text`` that the tree read as plain text: an
    unescaped backquote, ``$(``, ``$[``, ``<(`` or ``>(``."""
    index = 0
    while index < len(text):
        character = text[index]
        if character == "\\" and escapes:
            index += 2
            continue
        if character == "`" or text.startswith(("$(", "$[", "<(", ">("), index):
            return True
        index += 1
    return False


def _evaluates_no_names(node: Node) -> bool:
    """A builtin given a variable name evaluates its subscript (``read 'a[$(rm x)]'``,
    ``printf -v``, ``unset``, ``declare``…), and declare's ``-i``/``-n``/``-a``/``-A`` make
    later values code: certain only when no such name can hold a subscript."""
    if node.type == "command":
        named, words = simple_command_words(node)
        if not named or not words or words[0] is None:
            return True  # a computed program: rule_forms says None
        program, args = words[0].rsplit("/", 1)[-1], words[1:]
    else:  # declaration_command, unset_command: the keyword, then words and assignments
        program = node.children[0].type if node.children else ""
        args = [
            node_text(c.children[0] if c.type == "variable_assignment" else c)
            if c.type in {"variable_assignment", "variable_name"}
            else literal(c)
            for c in node.named_children
        ]
    if program in {"let", "fc"}:
        return False  # arithmetic; commands from the history
    if program == "hash" and "-p" in args:
        return False  # hash -p FILE NAME: NAME runs FILE
    if program in {"test", "["}:
        return _test_evaluates_no_names(args)
    if program in {"mapfile", "readarray"} and any(a is None or "-C" in a for a in args):
        return False  # -C: a callback, run as code
    if program not in _NAME_EVALUATORS:
        return True
    if program == "printf":
        if len(args) < 2 or (args[0] is not None and not args[0].startswith("-v")):
            return True  # only -v NAME assigns (a computed first word could be -v)
        args = args[:2]
    for arg in args:
        if arg is None or "[" in arg:
            return False
        if program in {"declare", "typeset", "local", "export", "readonly"} and re.match(
            r"-[a-zA-Z]*[inaA]", arg
        ):
            return False
    return True


def _test_evaluates_no_names(args: list[str | None]) -> bool:
    """test -v NAME (and -R) evaluates NAME's subscript: no literal -v/-R, and no computed
    word (which could be -v) followed by a word that could hold a subscript."""
    if any(a in {"-v", "-R"} for a in args):
        return False
    for word, following in pairwise(args):
        if word is None and (following is None or "[" in following):
            return False
    return True
