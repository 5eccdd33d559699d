"""awk: only ``-F`` and ``-v``, and a program that prints to standard output only.

The program is read token by token as awk's lexer reads it (:func:`awk_tokens`): strings with
their escapes, regular-expression literals where the grammar allows one and division
elsewhere, comments to the end of the line. Among the real tokens the program may not call
``system``, ``getline``, ``close`` or ``fflush``, use ``|&``, gawk's ``@include``/``@load``/
indirect calls, or redirect or pipe what ``print``/``printf`` write (elsewhere ``>`` compares:
``awk '$3 > 100'`` is allowed). Where awks could read a ``/`` differently the program is refused
(docs/read-only-bash.md, "4. Programs, options and operands").
"""

from __future__ import annotations

import re
from typing import NamedTuple

from planmode.core.shell.options import Args, Options, Parsed, leading_options, names, take_option

_AWK_OPTIONS = Options(valued="Fv", long_valued=names("--field-separator --assign"))
# Functions and statements that run a program, read another file or flush output elsewhere.
_AWK_FORBIDDEN_NAMES = frozenset({"system", "getline", "close", "fflush"})
# After these keywords an expression may start: a "/" there opens a regular expression.
_AWK_KEYWORDS = frozenset(
    """BEGIN END BEGINFILE ENDFILE function func if else while for do break continue next
    nextfile exit return delete in getline print printf switch case default""".split()
)
# Built-in functions: followed by "(" they are calls; `length` alone is a value, so a "/"
# after one is division to some awks and a regular expression to others (mawk).
_AWK_BUILTINS = frozenset(
    """length substr index split sub gsub match sprintf sin cos atan2 exp log sqrt int rand
    srand tolower toupper systime strftime gensub asort asorti patsplit and or xor lshift
    rshift compl mktime strtonum isarray typeof mkbool""".split()
)
# Multi-character operators, longest first.
_AWK_OPERATORS = (
    "**=",
    "|&",
    "&&",
    "||",
    "==",
    "!=",
    "<=",
    ">=",
    ">>",
    "!~",
    "++",
    "--",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "^=",
    "**",
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|0[xX][0-9a-fA-F]+")


class Token(NamedTuple):
    kind: str  # "name", "number", "string", "regex", "newline" or the operator itself
    text: str


class AwkUnclear(Exception):
    """The program cannot be tokenised the way every awk would tokenise it."""


def awk(args: Args) -> str | None:
    def take(arg: str, rest: list[str | None]) -> str | None:
        taken = take_option(_AWK_OPTIONS, arg, rest, Parsed([], []))
        if taken:
            return f"awk: {taken} (only -F and -v; -f, -i, -l, -o, -p, -d and -e are refused)"
        return None

    rest, problem = leading_options(
        args, "an argument computed by the shell (it could be -f or a program)", take
    )
    if problem:
        return problem
    if not rest:
        return "awk without a program"
    program = rest.pop(0)
    if program is None:
        return "an awk program computed by the shell"
    if any(arg is None for arg in rest):
        return "an argument computed by the shell"
    return program_problem(program)


def program_problem(program: str) -> str | None:
    """Why the awk ``program`` may do more than print to standard output, or None."""
    try:
        tokens = awk_tokens(program)
    except AwkUnclear as unclear:
        return f"an awk program that awks could read differently ({unclear})"
    forbidden = _forbidden_token(tokens) or _print_redirect(tokens)
    if forbidden:
        return (
            f"awk program uses {forbidden!r} (only programs that print to standard output are "
            "allowed: no redirection, pipe, system or getline)"
        )
    return None


def awk_tokens(program: str) -> list[Token]:
    """The tokens of an awk program as awk's lexer reads them. Raises :class:`AwkUnclear`
    where awks disagree or the program is malformed (an unterminated string or regular
    expression, a "/" that may be either, a stray backslash)."""
    tokens: list[Token] = []
    index, end = 0, len(program)
    # For each open "(": whether it is the condition of if/while/for, after whose ")" a
    # statement (which may be a regular expression) begins.
    parens: list[str] = []
    after_condition: str | None = None  # the keyword whose condition a ")" just closed
    while index < end:
        character = program[index]
        if character in " \t":
            index += 1
            continue
        if character == "\\" and program.startswith("\\\n", index):
            index += 2  # a continued line
            continue
        closed, after_condition = after_condition, None
        if character == "#":
            newline = program.find("\n", index)
            index = end if newline < 0 else newline
            continue
        if character == "\n":
            tokens.append(Token("newline", "\n"))
            index += 1
            continue
        if character == '"':
            close = _string_end(program, index)
            tokens.append(Token("string", program[index : close + 1]))
            index = close + 1
            continue
        if character == "/" and _regex_allowed(tokens, closed):
            close = _regex_end(program, index)
            tokens.append(Token("regex", program[index : close + 1]))
            index = close + 1
            continue
        name = _NAME.match(program, index)
        if name:
            tokens.append(Token("name", name.group(0)))
            index = name.end()
            continue
        number = _NUMBER.match(program, index)
        if number:
            tokens.append(Token("number", number.group(0)))
            index = number.end()
            continue
        operator = next((o for o in _AWK_OPERATORS if program.startswith(o, index)), character)
        if character == "\\" or not character.isprintable():
            raise AwkUnclear(f"the character {character!r} outside a string")
        if operator == "(":
            previous = tokens[-1].text if tokens else ""
            parens.append(previous if previous in {"if", "while", "for"} else "")
        elif operator == ")":
            after_condition = parens.pop() if parens else ""
        tokens.append(Token(operator, operator))
        index += len(operator)
    return tokens


def _string_end(program: str, start: int) -> int:
    """The index of the quote closing the string that opens at ``start``."""
    index = start + 1
    while index < len(program):
        character = program[index]
        if character == "\\":
            if program.startswith("\\\n", index):
                break  # continued inside a string by some awks only
            index += 2
            continue
        if character == "\n":
            break
        if character == '"':
            return index
        index += 1
    raise AwkUnclear("an unterminated string")


def _regex_end(program: str, start: int) -> int:
    """The index of the "/" closing the regular expression that opens at ``start``.

    Inside a bracket expression some awks (gawk, mawk) read "/" as a character and others end
    the expression there: such a "/" is refused.
    """
    index = start + 1
    in_bracket = False
    while index < len(program):
        character = program[index]
        if character == "\\":
            if program.startswith("\\\n", index):
                break
            index += 2
            continue
        if character == "\n":
            break
        if in_bracket:
            if character == "/":
                raise AwkUnclear('a "/" inside a bracket expression')
            if character == "[" and program[index + 1 : index + 2] in {":", ".", "="}:
                close = program.find(program[index + 1] + "]", index + 2)
                if close < 0:
                    break
                index = close + 2
                continue
            if character == "]":
                in_bracket = False
        elif character == "[":
            in_bracket = True
            index += 1
            # "]" first in a bracket expression (after an optional "^") is a character.
            if program[index : index + 1] == "^":
                index += 1
            if program[index : index + 1] == "]":
                index += 1
            continue
        elif character == "/":
            return index
        index += 1
    raise AwkUnclear("an unterminated regular expression")


def _regex_allowed(tokens: list[Token], closed: str | None) -> bool:
    """Whether a "/" here opens a regular expression (True) or divides (False), following
    awk's grammar: after an operand it divides, where an operand is expected it opens a
    regular expression. Raises :class:`AwkUnclear` where awks read it differently."""
    if closed is not None:
        # ")" closing if/for's condition starts a statement; closing while's may end a
        # do-while statement; any other ")" ends an operand.
        if closed in {"if", "for"}:
            return True
        if closed == "while":
            raise AwkUnclear('a "/" right after a while condition')
        return False
    if not tokens:
        return True
    last = tokens[-1]
    if last.kind in {"number", "string", "regex"} or last.text == "]":
        return False
    if last.kind == "name":
        if last.text in _AWK_KEYWORDS:
            return True
        if last.text in _AWK_BUILTINS:
            raise AwkUnclear(f'a "/" after {last.text} (division or a regular expression)')
        return False
    if last.text in {"++", "--", "$"}:
        raise AwkUnclear(f'a "/" after {last.text} (division or a regular expression)')
    return True  # after an operator, "(", ",", "{", "}", ";" or a newline


def _forbidden_token(tokens: list[Token]) -> str | None:
    for token in tokens:
        if token.kind == "name" and token.text in _AWK_FORBIDDEN_NAMES:
            return token.text
        if token.text in {"|&", "@"}:
            return token.text
    return None


def _print_redirect(tokens: list[Token]) -> str | None:
    """A ``>`` or ``|`` after print/printf in the same statement, outside parentheses: an
    output redirection or a pipe to a command (elsewhere ``>`` compares)."""
    for start, token in enumerate(tokens):
        if token.kind != "name" or token.text not in {"print", "printf"}:
            continue
        depth = 0
        for following in tokens[start + 1 :]:
            if following.text in {";", "{", "}"}:
                break
            depth += {"(": 1, ")": -1}.get(following.text, 0)
            if depth <= 0 and following.text[:1] in {">", "|"}:
                return following.text
    return None
