"""Programs with one short rule each: the plain readers, test, printf, env, date, read and
command."""

from __future__ import annotations

from planmode.core.shell.options import Args, Options, Parsed, names, with_options
from planmode.core.shell.words import harmless_variable


def reader(args: Args) -> str | None:
    """Programs none of whose options writes or runs anything: every word is harmless."""
    return None


def test(args: Args) -> str | None:
    for arg in args:
        if arg is None:
            return "an argument computed by the shell (it could be -v, which runs code)"
        if arg in {"-v", "-R"}:
            return f"test {arg} evaluates a subscript, which can run commands"
    return None


def printf(args: Args) -> str | None:
    if args and (args[0] is None or args[0].startswith("-v")):
        return "printf -v assigns a variable (its subscript can run commands)"
    return None


def no_args(args: Args) -> str | None:
    return "arguments would change the system" if args else None


def _date_operands(parsed: Parsed) -> str | None:
    for operand in parsed.operands:
        if operand is None or not operand.startswith("+"):
            return f"date {operand or '(computed)'} sets the system clock (only +FORMAT reads)"
    return None


def _read_names(parsed: Parsed) -> str | None:
    assigned = [value for name, value in parsed.options if name == "-a"] + parsed.operands
    for name in assigned:
        if name is None or not harmless_variable(name):
            return f"read assigns {name or 'a computed name'} (only plain lower-case variables)"
    return None


def _command_v(parsed: Parsed) -> str | None:
    if not parsed.has("-v", "-V"):
        return "command runs the program (only command -v or -V reads)"
    return None


date = with_options(
    Options(
        flags="uR",
        valued="dfr",
        optional="I",
        longs=names("--utc --universal --rfc-email --debug --help --version"),
        long_valued=names("--date --file --reference --rfc-3339"),
        long_optional=names("--iso-8601"),
        operands=1,
    ),
    _date_operands,
)
read = with_options(Options(flags="rs", valued="dtnNpua"), _read_names)
command = with_options(Options(flags="vVp", operands=None), _command_v)
