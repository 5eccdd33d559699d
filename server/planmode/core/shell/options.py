"""Options and operands, read the way getopt reads them.

Short options cluster (``-nr``), a value is attached or the next word, ``--`` ends the
options, and a long option must be spelled out (docs/read-only-bash.md, "4. Programs,
options and operands"). A program's checker says what is wrong with its arguments, or None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

# Argument values: a literal string, or None when the shell computes it (an expansion, which
# may also become any number of words).
Args = Sequence[str | None]
# What is wrong with a program's arguments (naming the word), or None when they only read.
Checker = Callable[[Args], str | None]


# NamedTuples, not dataclasses, for the package's records: the server imports the package at
# start-up, and a frozen dataclass of nine fields costs more to create than the rest of it.
class Options(NamedTuple):
    """What a program accepts on its command line, getopt-style.

    Long options must be spelled out: getopt_long also takes any unambiguous prefix, and a
    prefix unique among the options listed here may name an option that is not listed.
    """

    flags: str = ""  # short options without a value
    valued: str = ""  # short options with a value (the rest of the word, or the next word)
    optional: str = ""  # short options whose value, if any, is the rest of the word
    longs: frozenset[str] = frozenset()  # --name
    long_valued: frozenset[str] = frozenset()  # --name=VALUE or --name VALUE
    long_optional: frozenset[str] = frozenset()  # --name or --name=VALUE
    operands: int | None = None  # at most this many operands; None: any number
    numbers: bool = False  # -5 means a count (uniq -5)
    # tree's own parser: in a cluster, each letter with a value takes the next word in turn
    # (tree -Lo 2 out is -L 2 -o out), never the rest of the cluster.
    values_follow: bool = False

    def parse(self, args: Args) -> Parsed | str:
        return _parse_options(self, args)


def names(text: str) -> frozenset[str]:
    """The option names in ``text``, separated by blanks."""
    return frozenset(text.split())


class Parsed(NamedTuple):
    """The options read (name, value or None) and the operands, in order."""

    options: list[tuple[str, str | None]]
    operands: list[str | None]

    def has(self, *wanted: str) -> bool:
        return any(name in wanted for name, _ in self.options)


def _parse_options(spec: Options, args: Args) -> Parsed | str:
    parsed = Parsed([], [])
    rest = list(args)
    options_ended = False
    while rest:
        arg = rest.pop(0)
        if arg is None:
            if options_ended and spec.operands is None:
                parsed.operands.append(None)
                continue
            return "a word computed by the shell (it could be any option)"
        if options_ended or arg == "-" or not arg.startswith("-"):
            parsed.operands.append(arg)
            continue
        if arg == "--":
            options_ended = True
            continue
        if parsed.operands and spec.operands is not None:
            # With POSIXLY_CORRECT set, getopt stops at the first operand: this word would be
            # one more operand (an output file for some programs).
            return f"option {arg} after an operand"
        problem = take_option(spec, arg, rest, parsed)
        if problem:
            return problem
    if spec.operands is not None and len(parsed.operands) > spec.operands:
        extra = parsed.operands[spec.operands]
        return f"at most {spec.operands} operand(s): {extra!r} is one too many (an output file?)"
    return parsed


def leading_options(
    args: Args, computed: str, take: Callable[[str, list[str | None]], str | None]
) -> tuple[list[str | None], str | None]:
    """Walks the options before the first operand (or ``--``), handing each to ``take``, which
    may consume its value from the rest. Returns the words after the options, or the problem:
    ``computed`` for a word the shell computes (it could be any option)."""
    rest = list(args)
    while rest:
        arg = rest[0]
        if arg is None:
            return rest, computed
        if arg == "--":
            rest.pop(0)
            break
        if not arg.startswith("-") or arg == "-":
            break
        rest.pop(0)
        problem = take(arg, rest)
        if problem:
            return rest, problem
    return rest, None


def take_option(spec: Options, arg: str, rest: list[str | None], parsed: Parsed) -> str | None:
    if arg.startswith("--"):
        name, equals, value = arg.partition("=")
        if name in spec.longs and not equals:
            parsed.options.append((name, None))
        elif name in spec.long_optional:
            parsed.options.append((name, value if equals else None))
        elif name in spec.long_valued:
            if not equals:
                if not rest:
                    return f"option {name} without its value"
                taken = rest.pop(0)
                if taken is None:
                    return f"the value of {name} is computed by the shell"
                value = taken or ""
            parsed.options.append((name, value))
        else:
            return f"option {name} is not known to be read-only"
        return None
    if spec.numbers and arg[1:].isdigit():
        parsed.options.append(("-" + arg[1:], None))
        return None
    for index, letter in enumerate(arg[1:], start=1):
        if letter in spec.valued and spec.values_follow:
            if not rest:
                return f"option -{letter} without its value"
            if rest.pop(0) is None:
                return f"the value of -{letter} is computed by the shell"
            parsed.options.append(("-" + letter, None))
            continue
        if letter in spec.valued:
            attached: str | None = arg[index + 1 :]
            if not attached:
                if not rest:
                    return f"option -{letter} without its value"
                attached = rest.pop(0)
                if attached is None:
                    return f"the value of -{letter} is computed by the shell"
            parsed.options.append(("-" + letter, attached))
            return None
        if letter in spec.optional:
            parsed.options.append(("-" + letter, arg[index + 1 :] or None))
            return None
        if letter not in spec.flags:
            return f"option -{letter} is not known to be read-only"
        parsed.options.append(("-" + letter, None))
    return None


def with_options(spec: Options, then: Callable[[Parsed], str | None] | None = None) -> Checker:
    """A checker: the arguments parse under ``spec``, then ``then`` accepts them."""

    def check(args: Args) -> str | None:
        parsed = spec.parse(args)
        if isinstance(parsed, str):
            return parsed
        return then(parsed) if then else None

    return check
