"""awk: only ``-F`` and ``-v``, and a program that prints to standard output only.

Outside string literals the program may not redirect or pipe what it prints, call ``system``,
``getline``, ``close`` or ``fflush``, or use gawk's ``@include``/``@load``/indirect calls or
/inet special files. Elsewhere ``>`` compares: ``awk '$3 > 100'`` is allowed.
"""

from __future__ import annotations

import re

from planmode.core.shell.options import Args, Options, Parsed, leading_options, names, take_option

_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_AWK_FORBIDDEN = re.compile(r"@|\|&|\bsystem\b|\bgetline\b|\bclose\b|\bfflush\b|/inet")
_AWK_OPTIONS = Options(valued="Fv", long_valued=names("--field-separator --assign"))


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
    code = _AWK_STRING.sub("S", program)
    if '"' in code:
        return "an awk program with an unterminated string"
    forbidden = _AWK_FORBIDDEN.search(code) or _awk_print_redirect(code)
    if forbidden:
        return (
            f"awk program uses {forbidden.group(0)!r} (only programs that print to standard "
            "output are allowed: no redirection, pipe, system or getline)"
        )
    return None


_AWK_PRINT = re.compile(r"\bprintf?\b")


def _awk_print_redirect(code: str) -> re.Match[str] | None:
    """A ``>`` or ``|`` after print/printf in the same statement, outside parentheses: an
    output redirection or a pipe to a command (elsewhere ``>`` compares and ``|`` is ``||``
    or a regex alternation)."""
    for start in _AWK_PRINT.finditer(code):
        depth = 0
        for index in range(start.end(), len(code)):
            character = code[index]
            if character in ";{}":
                break
            depth += {"(": 1, ")": -1}.get(character, 0)
            if depth <= 0 and character in ">|":
                return re.compile(re.escape(character)).match(code, index)
    return None
