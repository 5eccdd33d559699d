"""xargs and xxd: options read word by word before the command xargs runs or the file xxd
reads."""

from __future__ import annotations

import re

from planmode.core.shell.options import Args, Options, Parsed, leading_options, names, take_option


def xargs_command(args: Args) -> list[str | None] | str:
    """The command xargs runs — its program and first words, empty when it runs ``echo`` —
    or what is wrong with xargs's own options. xargs appends words read from its input, so
    whether that command reads is the program table's question."""
    spec = Options(
        flags="0prtx",
        valued="adEILnPs",
        longs=names("--null --no-run-if-empty --verbose --exit --interactive --open-tty"),
        long_valued=names("--arg-file --delimiter --max-args --max-procs --max-chars --max-lines"),
    )
    parsed = Parsed([], [])

    def take(arg: str, rest: list[str | None]) -> str | None:
        problem = take_option(spec, arg, rest, parsed)
        return f"xargs: {problem}" if problem else None

    rest, problem = leading_options(args, "an argument computed by the shell", take)
    return problem or rest


# xxd reads each option word by its prefix (-r, -re and -revert are all -r; -ro is -r, the
# "o" ignored), not as a getopt cluster: only these spellings are accepted.
_XXD_FLAGS = names(
    """-a -autoskip -b -bits -C -capitalize -d -E -EBCDIC -e -i -include -p -ps -postscript
    -plain -r -revert -u -h -help -v -version"""
)
_XXD_VALUED = names("-c -cols -g -groupsize -l -len -o -offset -s -seek -n -name -R")
_XXD_ATTACHED = re.compile(r"-[cglos][+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+)\Z")


def xxd(args: Args) -> str | None:
    def take(arg: str, rest: list[str | None]) -> str | None:
        if arg in _XXD_VALUED:
            if not rest or rest.pop(0) is None:
                return f"xxd {arg} without a literal value"
        elif arg not in _XXD_FLAGS and not _XXD_ATTACHED.match(arg):
            return f"xxd option {arg} is not known to be read-only"
        return None

    rest, problem = leading_options(
        args, "an argument computed by the shell (it could name an output file)", take
    )
    if problem:
        return problem
    if len(rest) > 1:
        return "xxd INFILE OUTFILE writes OUTFILE (at most one operand)"
    if rest and rest[0] is None:
        return "an argument computed by the shell (it could be more than one file)"
    return None
