"""Read-only Bash: prove, from the text alone, that a command line only reads.

Fail closed, in three layers (docs/read-only-bash.md says why each exists):

1. **The text.** Characters on which bash and tree-sitter-bash can read a line differently
   (control characters other than tab and newline, lone surrogates, characters outside the
   Basic Multilingual Plane) and overlong lines are refused before parsing.
2. **The tree.** tree-sitter-bash parses the line; the walk allows a short list of node types.
   A word counts as *literal* only when bash would pass it on unchanged: anything bash could
   expand (parameters, substitutions, braces, globs, tildes, ``$'…'``) is *computed*.
   Parameter expansions with operators, assignments to anything but plain lower-case shell
   variables, and here-documents bash would expand are refused.
3. **The programs.** Every simple command names a program of :data:`READ_ONLY_PROGRAMS`; each
   has an allow-list of options and a limit on operands. A computed word passes only where
   every possible value is harmless (a program none of whose options writes).

:func:`check` never raises: anything unexpected is a denial naming the reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Tree


@dataclass(frozen=True)
class Verdict:
    read_only: bool
    # Why not, naming the part of the command that failed; empty when read-only.
    reason: str = ""


READ_ONLY = Verdict(True)

# Argument values: a literal string, or None when the shell computes it (an expansion, which
# may also become any number of words).
Args = Sequence[str | None]
Checker = Callable[[Args], str | None]

# Longer lines are refused unparsed: tree-sitter-bash parses long pipelines in more than
# linear time (about 0.5 s at 20 kB); `make bench` measures a 10 kB line.
MAX_COMMAND_LENGTH = 20_000


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_bash.language()))


# -- layer 1: the text --------------------------------------------------------------------------
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


def _parse(command: str) -> Tree | None:
    """The syntax tree of a line that passes :func:`refused_text` and parses cleanly."""
    if refused_text(command):
        return None
    tree = _parser().parse(command.encode("utf-8"))
    root = tree.root_node
    return None if root.has_error or root.is_missing else tree


# -- layer 2: words -----------------------------------------------------------------------------
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


def _splits(text: str) -> bool:
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


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _literal(node: Node) -> str | None:
    """The value of a word the shell does not compute, or None."""
    if node.type not in _LITERAL_NODES or not _plain_parts(node):
        return None
    return bash_word(_text(node))


def _plain_parts(node: Node) -> bool:
    """No part of the word is an expansion (checked on the tree first: cheaper than text)."""
    if node.type == "string":
        return all(child.type in {'"', "string_content"} for child in node.children)
    if node.type == "concatenation":
        return all(child.type in _LITERAL_NODES and _plain_parts(child) for child in node.children)
    return True


# -- layer 2: variables -------------------------------------------------------------------------
_SHELL_VARIABLE = re.compile(r"[a-z_][a-z0-9_]{0,31}\Z")
# Lower-case names that still change how bash or a program behaves.
_LOWER_CASE_SPECIAL = frozenset({"histchars", "auto_resume"})


def harmless_variable(name: str) -> bool:
    """May a command line assign ``name`` (``x=…``, ``for x in``, ``read x``)?

    Only plain lower-case shell variables. Every variable bash itself reads (PATH, HOME, IFS,
    BASH_ENV, PS4, GLOBIGNORE, …) and every variable exported to programs by convention
    (GIT_*, LD_*, PYTHONPATH, …) has an upper-case name; the lower-case exceptions — the proxy
    variables and bash's ``histchars``/``auto_resume`` — are refused by name.
    """
    return (
        _SHELL_VARIABLE.match(name) is not None
        and "proxy" not in name
        and name not in _LOWER_CASE_SPECIAL
    )


# -- layer 3: options and operands --------------------------------------------------------------
@dataclass(frozen=True)
class Options:
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


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass
class Parsed:
    options: list[tuple[str, str | None]]
    operands: list[str | None]

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)


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
        problem = _take_option(spec, arg, rest, parsed)
        if problem:
            return problem
    if spec.operands is not None and len(parsed.operands) > spec.operands:
        extra = parsed.operands[spec.operands]
        return f"at most {spec.operands} operand(s): {extra!r} is one too many (an output file?)"
    return parsed


def _leading_options(
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


def _take_option(spec: Options, arg: str, rest: list[str | None], parsed: Parsed) -> str | None:
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


def _with(spec: Options, then: Callable[[Parsed], str | None] | None = None) -> Checker:
    """A checker: the arguments parse under ``spec``, then ``then`` accepts them."""

    def check(args: Args) -> str | None:
        parsed = spec.parse(args)
        if isinstance(parsed, str):
            return parsed
        return then(parsed) if then else None

    return check


def _reader(args: Args) -> str | None:
    """Programs none of whose options writes or runs anything: every word is harmless."""
    return None


# -- layer 3: programs with their own rules -----------------------------------------------------
def _test(args: Args) -> str | None:
    for arg in args:
        if arg is None:
            return "an argument computed by the shell (it could be -v, which runs code)"
        if arg in {"-v", "-R"}:
            return f"test {arg} evaluates a subscript, which can run commands"
    return None


def _printf(args: Args) -> str | None:
    if args and (args[0] is None or args[0].startswith("-v")):
        return "printf -v assigns a variable (its subscript can run commands)"
    return None


def _no_args(args: Args) -> str | None:
    return "arguments would change the system" if args else None


_FIND_TESTS_WITH_VALUE = _names(
    """-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type
    -xtype -size -mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -user -group
    -uid -gid -perm -links -inum -samefile -used -fstype -maxdepth -mindepth -regextype
    -printf -context"""
)
_FIND_TESTS = _names(
    """-empty -readable -writable -executable -print -print0 -prune -quit -true -false -depth
    -follow -mount -xdev -noleaf -ls -nouser -nogroup -daystart -ignore_readdir_race
    -noignore_readdir_race -warn -nowarn -not -a -and -o -or ! ( ) ,"""
)
_FIND_NEWER_XY = re.compile(r"-newer[aBcmt][aBcmt]\Z")


def _find(args: Args) -> str | None:
    rest = list(args)
    while rest and rest[0] in {"-H", "-L", "-P"}:
        rest.pop(0)
    while rest and rest[0] is not None and rest[0].startswith(("-D", "-O")):
        option = rest.pop(0) or ""
        if option == "-D":
            rest[:1] = []
    expression = False
    while rest:
        arg = rest.pop(0)
        if arg is None:
            return "an argument computed by the shell (it could be -delete or -exec)"
        if not expression and not arg.startswith("-") and arg not in {"!", "(", ")", ","}:
            continue  # a starting point
        expression = True
        if arg in _FIND_TESTS:
            continue
        if arg in _FIND_TESTS_WITH_VALUE or _FIND_NEWER_XY.match(arg):
            if not rest:
                return f"find {arg} without its value"
            if rest.pop(0) is None:
                return f"the value of find {arg} is computed by the shell"
            continue
        return f"find {arg} is not known to be read-only (it may write or run commands)"
    return None


_SED_COMMAND = re.compile(
    r"""^\s*(?:(?:\d+|\$|/(?:[^/\\]|\\.)*/)(?:\s*,\s*(?:\d+|\$|/(?:[^/\\]|\\.)*/))?)?\s*!?\s*
        (?:[pdqQ=lnN]|s(?P<d>[^\s\\\w])(?:(?!(?P=d))[^\\]|\\.)*(?P=d)(?:(?!(?P=d))[^\\]|\\.)*(?P=d)[gpiIm0-9]*)
        \s*$""",
    re.X,
)
_SED_LONG = (
    "--debug",
    "--expression",
    "--file",
    "--follow-symlinks",
    "--help",
    "--in-place",
    "--line-length",
    "--null-data",
    "--zero-terminated",
    "--posix",
    "--quiet",
    "--silent",
    "--regexp-extended",
    "--sandbox",
    "--separate",
    "--unbuffered",
    "--version",
)


def _sed(args: Args) -> str | None:
    script_given = False
    rest = list(args)
    operands_only = False
    while rest:
        arg = rest.pop(0)
        if arg is None:
            return "an argument computed by the shell (it could be -i)"
        script: str | None = None
        if operands_only or arg == "-" or not arg.startswith("-"):
            if script_given:
                continue
            script = arg
        elif arg == "--":
            operands_only = True
            continue
        elif arg.startswith("--"):
            name = arg.split("=", 1)[0]
            if name not in _SED_LONG:
                return f"sed option {name} is not known to be read-only"
            if name in {"--in-place", "--file"}:
                return f"sed {arg} edits files in place or runs a script file"
            if name in {"--expression", "--line-length"}:
                value = arg.split("=", 1)[1] if "=" in arg else (rest.pop(0) if rest else "")
                if value is None:
                    return "an argument computed by the shell"
                if name == "--expression":
                    script = value
        else:
            for index, letter in enumerate(arg[1:], start=1):
                if letter == "i":
                    return f"sed {arg} edits files in place"
                if letter == "f":
                    return "sed -f runs a script file that cannot be checked"
                if letter in "el":
                    value = arg[index + 1 :] or (rest.pop(0) if rest else "")
                    if value is None:
                        return "an argument computed by the shell"
                    if letter == "e":
                        script = value
                    break
                if letter not in "nsEruzb":
                    return f"sed option -{letter} is not known to be read-only"
            if script is None:
                continue
        if script is not None:
            script_given = True
            if not _sed_script_reads(script):
                return f"sed script {script!r} may write files or run commands"
    return None


def _sed_script_reads(script: str) -> bool:
    parts = [p for p in re.split(r"[;\n]", script) if p.strip()]
    return bool(parts) and all(_SED_COMMAND.match(p) for p in parts)


# awk: only programs that print to standard output. Outside string literals the program may
# not redirect or pipe what it prints, call ``system``, ``getline``, ``close`` or ``fflush``,
# or use gawk's ``@include``/``@load``/indirect calls or /inet special files.
_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_AWK_FORBIDDEN = re.compile(r"@|\|&|\bsystem\b|\bgetline\b|\bclose\b|\bfflush\b|/inet")
_AWK_OPTIONS = Options(valued="Fv", long_valued=_names("--field-separator --assign"))


def _awk(args: Args) -> str | None:
    def take(arg: str, rest: list[str | None]) -> str | None:
        taken = _take_option(_AWK_OPTIONS, arg, rest, Parsed([], []))
        if taken:
            return f"awk: {taken} (only -F and -v; -f, -i, -l, -o, -p, -d and -e are refused)"
        return None

    rest, problem = _leading_options(
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


def _xargs(args: Args) -> str | None:
    spec = Options(
        flags="0prtx",
        valued="adEILnPs",
        longs=_names("--null --no-run-if-empty --verbose --exit --interactive --open-tty"),
        long_valued=_names("--arg-file --delimiter --max-args --max-procs --max-chars --max-lines"),
    )
    parsed = Parsed([], [])

    def take(arg: str, rest: list[str | None]) -> str | None:
        problem = _take_option(spec, arg, rest, parsed)
        return f"xargs: {problem}" if problem else None

    rest, problem = _leading_options(args, "an argument computed by the shell", take)
    if problem:
        return problem
    if not rest:
        return None  # xargs runs echo by default
    program = rest[0]
    if program is None:
        return "xargs with a computed program"
    # xargs appends words read from its input: they could be any option of the program.
    name = program.rsplit("/", 1)[-1]
    if READ_ONLY_PROGRAMS.get(name) is not _reader:
        return f"xargs {program}: input words could be options that write"
    return _check_program(program, rest[1:])


# xxd reads each option word by its prefix (-r, -re and -revert are all -r; -ro is -r, the
# "o" ignored), not as a getopt cluster: only these spellings are accepted.
_XXD_FLAGS = _names(
    """-a -autoskip -b -bits -C -capitalize -d -E -EBCDIC -e -i -include -p -ps -postscript
    -plain -r -revert -u -h -help -v -version"""
)
_XXD_VALUED = _names("-c -cols -g -groupsize -l -len -o -offset -s -seek -n -name -R")
_XXD_ATTACHED = re.compile(r"-[cglos][+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+)\Z")


def _xxd(args: Args) -> str | None:
    def take(arg: str, rest: list[str | None]) -> str | None:
        if arg in _XXD_VALUED:
            if not rest or rest.pop(0) is None:
                return f"xxd {arg} without a literal value"
        elif arg not in _XXD_FLAGS and not _XXD_ATTACHED.match(arg):
            return f"xxd option {arg} is not known to be read-only"
        return None

    rest, problem = _leading_options(
        args, "an argument computed by the shell (it could name an output file)", take
    )
    if problem:
        return problem
    if len(rest) > 1:
        return "xxd INFILE OUTFILE writes OUTFILE (at most one operand)"
    if rest and rest[0] is None:
        return "an argument computed by the shell (it could be more than one file)"
    return None


def _date(parsed: Parsed) -> str | None:
    for operand in parsed.operands:
        if operand is None or not operand.startswith("+"):
            return f"date {operand or '(computed)'} sets the system clock (only +FORMAT reads)"
    return None


def _read(parsed: Parsed) -> str | None:
    names = [value for name, value in parsed.options if name == "-a"] + parsed.operands
    for name in names:
        if name is None or not harmless_variable(name):
            return f"read assigns {name or 'a computed name'} (only plain lower-case variables)"
    return None


def _command_v(parsed: Parsed) -> str | None:
    if not parsed.has("-v", "-V"):
        return "command runs the program (only command -v or -V reads)"
    return None


def _version(*accepted: tuple[str, ...]) -> Checker:
    """A program allowed only to print its version: the arguments are exactly one of these."""

    def check(args: Args) -> str | None:
        if tuple(args) in accepted:
            return None
        shown = " or ".join(" ".join(a) for a in accepted)
        return f"only `{shown}` is known to be read-only"

    return check


def _npm(args: Args) -> str | None:
    if tuple(args) in {("--version",), ("-v",)}:
        return None
    if not args or args[0] not in {"ls", "list", "ll", "la"}:
        return "only npm ls/list and npm --version are known to be read-only"
    spec = Options(
        flags="aglp",
        valued="w",
        longs=_names(
            """--all --json --long --parseable --global --link --package-lock-only --unicode
            --workspaces --production --prod --dev --no-unicode --no-color --no-description"""
        ),
        long_valued=_names("--depth --omit --include --workspace"),
    )
    return _with(spec)(args[1:])


def _pip(args: Args) -> str | None:
    if tuple(args) in {("--version",), ("-V",)}:
        return None
    sub = args[0] if args else None
    specs = {
        "list": Options(
            flags="ouelv",
            longs=_names(
                """--outdated --uptodate --editable --local --user --not-required
                --exclude-editable --include-editable --pre --verbose --quiet"""
            ),
            long_valued=_names("--format --path --exclude"),
            operands=0,
        ),
        "show": Options(flags="fv", longs=_names("--files --verbose --quiet")),
        "freeze": Options(
            flags="l",
            valued="r",
            longs=_names("--local --user --all --exclude-editable --quiet"),
            long_valued=_names("--requirement --path --exclude"),
            operands=0,
        ),
    }
    spec = specs.get(sub or "")
    if spec is None:
        return "only pip list, show, freeze and --version are known to be read-only"
    return _with(spec)(args[1:])


# -- git ----------------------------------------------------------------------------------------
# git runs programs that configuration names (core.fsmonitor, textconv and diff drivers,
# filters, gpg.program, the pager). The command line may not choose another repository or
# configuration: -C, -c, --git-dir, --work-tree and friends are refused. Which repository and
# which configuration git reads at run time is the sandbox's side: see git_environment().
_GIT_GLOBAL = frozenset(
    {"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"}
)
# Options of the commands that show history and diffs (log, show, diff, …); exact spelling.
_GIT_HISTORY_LONGS = _names(
    """--oneline --stat --shortstat --numstat --name-only --name-status --patch --no-patch
    --graph --all --decorate --no-decorate --abbrev-commit --no-abbrev-commit --reverse
    --first-parent --no-merges --merges --follow --cached --staged --summary --raw --cc
    --combined-all-paths --no-color --color-words --word-diff --minimal --patience --histogram
    --ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-cr-at-eol
    --ignore-space-at-eol --no-prefix --full-index --binary --left-right --cherry-pick
    --cherry-mark --cherry --boundary --ancestry-path --simplify-by-decoration --topo-order
    --date-order --author-date-order --no-walk --branches --tags --remotes --not --all-match
    --invert-grep --regexp-ignore-case --extended-regexp --fixed-strings --basic-regexp
    --perl-regexp --log-size --source --use-mailmap --mailmap --full-history --dense --sparse
    --simplify-merges --parents --children --no-renames --no-ext-diff --no-textconv
    --compact-summary --patch-with-stat --patch-with-raw --indent-heuristic
    --no-indent-heuristic --function-context --text --ignore-submodules --pickaxe-all
    --pickaxe-regex --remerge-diff --relative-date --reflog --walk-reflogs --merge --stdin
    --left-only --right-only --count --objects --no-object-names --exit-code --quiet --check
    --no-index --irreversible-delete --expand-tabs --no-expand-tabs --notes --no-notes
    --show-notes --standard-notes --single-worktree --no-min-parents --no-max-parents
    --name-rev --show-pulls --shortstat --dirstat --cumulative --no-relative --relative
    --find-copies-harder --full-diff --root --no-standard-notes --show-linear-break
    --verbose --short --long --branch --porcelain --null --show-stash --ahead-behind
    --no-ahead-behind --renames --ignored --untracked-files --no-column --column
    --line-porcelain --incremental --show-email --show-stats --show-name --show-number
    --progress --no-progress --color-lines --color-by-age --numbered --summary --email
    --committer --tags --dirty --always --long --exact-match --contains --first-match
    --debug --show-toplevel --show-prefix --show-cdup --git-dir --absolute-git-dir
    --is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository
    --show-superproject-working-tree --abbrev-ref --symbolic --symbolic-full-name --verify
    --sq --sq-quote --local-env-vars --git-common-dir --show-object-format --shared-index-path
    --others --modified --deleted --killed --unmerged --stage --directory --no-empty-directory
    --eol --exclude-standard --full-name --recurse-submodules --error-unmatch --deduplicate
    --resolve-undo --sparse --name-only --full-tree --object-only --max-count
    --line-number --files-with-matches --files-without-match --only-matching --ignore-case
    --word-regexp --invert-match --heading --break --show-function --untracked --no-untracked
    --exclude-standard --no-exclude-standard --recursive --no-recursive --all-match
    --function-context --batch --batch-check --batch-all-objects --buffer --follow-symlinks
    --unordered --allow-unknown-type --non-matching --no-index --head --heads --hash
    --dereference --exclude-existing --independent --octopus --is-ancestor --fork-point
    --name-only --undefined --always --refs --annotate --abbrev --no-abbrev --all
    --undefined --stdin --only-matching --shortstat"""
)
_GIT_HISTORY_LONG_VALUED = _names(
    """--format --pretty --max-count --skip --since --after --until --before --author
    --committer --grep --date --abbrev --decorate --diff-filter --unified --stat --stat-width
    --stat-name-width --stat-count --dirstat --word-diff --word-diff-regex --color
    --color-moved --submodule --anchored --diff-algorithm --inter-hunk-context --src-prefix
    --dst-prefix --line-prefix --find-renames --find-copies --break-rewrites --glob --exclude
    --relative --encoding --notes --diff-merges --max-parents --min-parents --since-as-filter
    --ignore-submodules --untracked-files --ignored --column --sort --contains --no-contains
    --merged --no-merged --points-at --candidates --match --exclude --dirty --broken
    --short --prefix --abbrev-ref --default --resolve-git-dir --git-path --show-object-format
    --with-tree --exclude-from --exclude-per-directory --format --ignore-rev --ignore-revs-file
    --contents --max-depth --threads --and --or --open --ext-grep --count --since-as-filter
    --object-only --batch --batch-check --filter --pattern-type"""
)
_GIT_HISTORY_LETTERS = frozenset("pswzcmtabilvrRWqnfeEFGPLBCDMNOSUHT0123456789hdkoAu")
# Each letter: what it means in the commands below (all read): p patch, s no patch, w ignore
# whitespace, z NUL, c combined, m merges, t tree, a text, b ignore space change, i ignore
# case, l rename limit/files, v verbose, r recursive, R reverse, W function context, q quiet,
# n count, f first parent/show-name, e email, E extended, F fixed, G/S pickaxe, P perl, L
# line range, B/C/D/M break/copies/delete/move, N numbered, O order file (read), U context,
# H cached, T tags, 0-9 counts, h help text, d directories,
# k killed, o others, A after context, u untracked.
_GIT_READERS = frozenset(
    """status log diff show blame annotate shortlog describe rev-parse rev-list ls-files
    ls-tree cat-file grep whatchanged merge-base show-ref name-rev count-objects check-ignore
    version diff-tree diff-index diff-files show-branch range-diff""".split()
)
# Options that write a file, run a program or ask gpg (which runs gpg.program).
_GIT_REFUSED = (
    "--output",
    "--ext-diff",
    "--textconv",
    "--filters",
    "--open-files-in-pager",
    "--show-signature",
    "--exec",
    "--upload-pack",
    "--batch-command",
)


def _git(args: Args) -> str | None:
    rest = list(args)
    while rest and rest[0] is not None and rest[0].startswith("-"):
        option = rest.pop(0) or ""
        if option in {"--version", "-v"} and not rest:
            return None
        if option not in _GIT_GLOBAL:
            return (
                f"git option {option} is refused (it could choose another repository, "
                "configuration or program)"
            )
    if not rest or rest[0] is None:
        return "git without a literal subcommand"
    sub, options = rest[0], rest[1:]
    if any(option is None for option in options):
        return "an argument computed by the shell (it could be any option)"
    literal = [option for option in options if option is not None]
    for option in literal:
        # %G…: signature placeholders; %(signature…): ref-filter signatures — both run gpg.
        if "%G" in option or "%(signature" in option:
            return f"git {sub} {option} runs gpg.program to check signatures"
        name = option.split("=", 1)[0]
        if option.startswith("-") and any(r.startswith(name) for r in _GIT_REFUSED if name[2:]):
            return f"git {sub} {option} writes a file or runs a program"
    checker = _GIT_SUBCOMMANDS.get(sub)
    if checker is not None:
        return checker(literal)
    if sub not in _GIT_READERS:
        return f"git {sub} is not a read-only git command"
    if sub == "grep" and any(
        o.startswith("-") and not o.startswith("--") and "O" in o for o in literal
    ):
        return f"git grep -O runs a program on the matching files ({literal})"
    if sub == "cat-file" and any(o in {"--textconv", "--filters"} for o in literal):
        return "git cat-file --textconv/--filters runs configured programs"
    return _git_history_options(sub, literal)


def _git_history_options(sub: str, options: list[str]) -> str | None:
    """Options of the reading subcommands: long ones from the list, short letters allowed;
    everything after ``--`` and every word not starting with ``-`` is a revision or a path."""
    for option in options:
        if option == "--":
            return None
        if not option.startswith("-") or option == "-":
            continue
        if option.startswith("--"):
            name, equals, _value = option.partition("=")
            if name in _GIT_HISTORY_LONG_VALUED or (name in _GIT_HISTORY_LONGS and not equals):
                continue
            if name.startswith("--no-") and name[5:] and ("--" + name[5:]) in _GIT_HISTORY_LONGS:
                continue
            return f"git {sub} option {name} is not known to be read-only"
        letters = option[1:]
        if not letters:
            continue
        if letters[0] in "nUlLSGOABCMg" and len(letters) > 1:
            continue  # -n5, -U3, -L1,2:f, -Sfoo: a letter with its value attached
        if not set(letters) <= _GIT_HISTORY_LETTERS:
            return f"git {sub} option {option} is not known to be read-only"
    return None


def _git_config(options: list[str]) -> str | None:
    """Only reading forms, and the whole argument list must be one of them."""
    actions = {
        "--get": (1, 2),
        "--get-all": (1, 2),
        "--get-regexp": (1, 2),
        "--get-urlmatch": (2, 2),
        "--get-color": (1, 2),
        "--get-colorbool": (1, 2),
        "--list": (0, 0),
        "-l": (0, 0),
    }
    modifiers = _names(
        """--show-origin --show-scope --null -z --includes --no-includes --global --system
        --local --worktree --bool --int --bool-or-int --path --expiry-date --name-only"""
    )
    valued = _names("--file -f --blob --type --default")
    if options[:1] in (["get"], ["list"]):
        return _git_config_subcommand(options)
    chosen: list[str] = []
    operands: list[str] = []
    rest = list(options)
    while rest:
        option = rest.pop(0)
        name, equals, _ = option.partition("=")
        if operands:
            # git config stops reading options at the first operand: `git config a b --get`
            # sets a to b.
            operands.append(option)
        elif option in actions:
            chosen.append(option)
        elif option in modifiers:
            continue
        elif name in valued:
            if not equals:
                if not rest:
                    return f"git config {name} without its value"
                rest.pop(0)
        elif option.startswith("-"):
            return f"git config {option} is not a reading option"
        else:
            operands.append(option)
    if len(chosen) != 1:
        return "git config without exactly one reading action (--get, --get-all, --list …)"
    low, high = actions[chosen[0]]
    if not low <= len(operands) <= high:
        return f"git config {chosen[0]} with {len(operands)} operand(s) would write settings"
    return None


def _git_config_subcommand(options: list[str]) -> str | None:
    sub, rest = options[0], options[1:]
    allowed = _names(
        """--show-origin --show-scope --null -z --includes --no-includes --global --system
        --local --worktree --all --regexp --name-only --type --default --file --blob --url
        --value --fixed-value"""
    )
    operands: list[str] = []
    for option in rest:
        name = option.partition("=")[0]
        if option.startswith("-") and not operands:
            if name not in allowed:
                return f"git config {sub} {option} is not a reading option"
        else:
            operands.append(option)
    limit = 0 if sub == "list" else 1
    if len(operands) > limit:
        return f"git config {sub} with {len(operands)} operand(s)"
    return None


def _git_branch(options: list[str]) -> str | None:
    listing = _names(
        """-a --all -r --remotes -v -vv --verbose -l --list --show-current --no-color -i
        --ignore-case --no-column --omit-empty --no-abbrev"""
    )
    valued = _names("--sort --format --color --column --abbrev")
    filters = _names("--contains --no-contains --merged --no-merged --points-at")
    listed = False
    operands = 0
    rest = list(options)
    while rest:
        option = rest.pop(0)
        name = option.partition("=")[0]
        if option in listing or re.fullmatch(r"-[arvli]+", option):
            listed = listed or option == "--list" or (option[1:2] != "-" and "l" in option)
            continue
        if name in valued:
            continue
        if name in filters:
            listed = True
            if "=" not in option and rest and not rest[0].startswith("-"):
                rest.pop(0)  # the commit the filter takes
            continue
        if option.startswith("-"):
            return f"git branch {option} changes branches"
        operands += 1
    if operands and not listed:
        return "git branch NAME creates a branch"
    return None


def _git_tag(options: list[str]) -> str | None:
    listing = _names("-l --list -i --ignore-case --no-column --omit-empty")
    valued = _names("--sort --format --color --column")
    filters = _names("--contains --no-contains --merged --no-merged --points-at")
    listed = False
    operands = 0
    rest = list(options)
    while rest:
        option = rest.pop(0)
        name = option.partition("=")[0]
        if option in listing:
            listed = listed or option in {"-l", "--list"}
            continue
        if re.fullmatch(r"-n\d*", option):
            listed = True
            continue
        if name in valued:
            continue
        if name in filters:
            listed = True
            if "=" not in option and rest and not rest[0].startswith("-"):
                rest.pop(0)
            continue
        if option.startswith("-"):
            return f"git tag {option} changes tags"
        operands += 1
    if operands and not listed:
        return "git tag NAME creates a tag"
    return None


def _git_stash(options: list[str]) -> str | None:
    if options[:1] not in (["list"], ["show"]):
        return "git stash with these arguments changes the repository"
    return _git_history_options("stash", options[1:])


def _git_remote(options: list[str]) -> str | None:
    if all(option in {"-v", "--verbose"} for option in options):
        return None
    if options[:1] == ["get-url"] and all(
        not o.startswith("-") or o in {"--push", "--all"} for o in options[1:]
    ):
        return None
    return "git remote with these arguments changes remotes or contacts them"


def _git_reflog(options: list[str]) -> str | None:
    if not options:
        return None
    if options[0] == "show":
        return _git_history_options("reflog", options[1:])
    if options[0].startswith("-"):
        return _git_history_options("reflog", options)
    return "git reflog with these arguments changes the reflog (only git reflog show reads)"


_GIT_SUBCOMMANDS: dict[str, Callable[[list[str]], str | None]] = {
    "config": _git_config,
    "branch": _git_branch,
    "tag": _git_tag,
    "stash": _git_stash,
    "remote": _git_remote,
    "reflog": _git_reflog,
}


def git_environment(git_dir: str | None, work_tree: str | None) -> dict[str, str]:
    """The environment a planning command runs in so that git reads only trusted config.

    ``git_dir``/``work_tree``: the workspace's own repository (None when it has none). git is
    pinned to it — a repository committed inside the workspace (a bare one, or a vendored
    checkout with its own ``.git/config``) is never discovered — and the settings that make
    git run programs are neutralised as command-line configuration (``GIT_CONFIG_COUNT``,
    which outranks every configuration file).
    """
    neutral = {
        "core.fsmonitor": "false",
        "core.hooksPath": "/dev/null",
        "core.pager": "cat",
        "core.sshCommand": "false",
        "core.askPass": "false",
        "safe.bareRepository": "explicit",
        "log.showSignature": "false",
        "gpg.program": "false",
        "gpg.ssh.program": "false",
        "gpg.x509.program": "false",
        "protocol.allow": "never",
        "credential.helper": "",
    }
    env = {"GIT_CONFIG_COUNT": str(len(neutral)), "GIT_OPTIONAL_LOCKS": "0"}
    for index, (key, value) in enumerate(neutral.items()):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    env["GIT_DIR"] = git_dir or "/nonexistent/planmode-no-repository"
    if work_tree:
        env["GIT_WORK_TREE"] = work_tree
    env["GIT_CEILING_DIRECTORIES"] = "/"
    return env


def git_environment_for(root: Path) -> dict[str, str]:
    """:func:`git_environment` for the repository holding ``root`` (walking up to the first
    ``.git``: a directory, or a file naming one with ``gitdir:`` as worktrees have)."""
    for directory in (root, *root.parents):
        dot_git = directory / ".git"
        try:
            if dot_git.is_dir():
                return git_environment(str(dot_git), str(directory))
            if dot_git.is_file():
                first = dot_git.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
                if first.startswith("gitdir:"):
                    target = (directory / first.removeprefix("gitdir:").strip()).resolve()
                    return git_environment(str(target), str(directory))
                return git_environment(None, None)
        except OSError:
            return git_environment(None, None)
    return git_environment(None, None)


# -- the read-only table ------------------------------------------------------------------------
# Programs none of whose options writes a file or runs a program: any word is harmless.
PLAIN_READERS = """
    ls cat head tail wc grep egrep fgrep pwd echo true false which type stat du df
    diff cmp comm cut tr nl basename dirname realpath readlink whoami id uname printenv
    seq column fold rev tac od hexdump md5sum sha1sum sha224sum sha256sum sha384sum sha512sum
    b2sum cksum strings paste expand unexpand fmt pr join look cd groups locale nproc arch
    sleep jq tty base64 base32 ps lsof free uptime who w whereis lscpu getconf
""".split()

_VERSION_ONLY: dict[str, tuple[tuple[str, ...], ...]] = {
    # Interpreters and toolchains whose version query runs nothing the workspace chooses.
    # Not cargo/rustc (rustup proxies run the toolchain a rust-toolchain.toml `path` names),
    # not yarn/pnpm (.yarnrc.yml's yarnPath, corepack), not ruby -v (then reads a script).
    **dict.fromkeys(["python", "python3"], (("--version",), ("-V",), ("-VV",))),
    **dict.fromkeys(["node", "nodejs"], (("--version",), ("-v",))),
    **dict.fromkeys(["java", "javac"], (("-version",), ("--version",))),
    **dict.fromkeys(["gcc", "g++", "cc", "c++", "clang", "clang++", "cmake"], (("--version",),)),
    "make": (("--version",), ("-v",)),
    "go": (("version",),),
    "ruby": (("--version",),),
    "perl": (("--version",), ("-v",)),
}

READ_ONLY_PROGRAMS: dict[str, Checker] = {
    **dict.fromkeys(PLAIN_READERS, _reader),
    **{name: _version(*forms) for name, forms in _VERSION_ONLY.items()},
    "rg": _with(
        Options(
            flags="nNiSswvlcoHIFLUPxzqaub0pVh.",
            valued="eAfBCgtTmMjrEd",
            longs=_names(
                """--line-number --no-line-number --ignore-case --smart-case
                --case-sensitive --word-regexp --line-regexp --invert-match
                --files-with-matches --files-without-match --count --count-matches
                --only-matching --with-filename --no-filename --no-heading --heading
                --fixed-strings --follow --multiline --pcre2 --search-zip --text --binary
                --hidden --no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot
                --no-ignore-global --unrestricted --files --type-list --json --null --vimgrep
                --column --byte-offset --trim --pretty --stats --quiet --no-messages
                --passthru --one-file-system --no-config --debug --version --help
                --no-require-git --sort-files --line-buffered --block-buffered
                --crlf --null-data --multiline-dotall --no-unicode --glob-case-insensitive
                --include-zero --no-follow --no-column --no-pcre2"""
            ),
            long_valued=_names(
                """--regexp --after-context --before-context --context --glob --iglob
                --type --type-not --type-add --type-clear --max-count --max-depth
                --max-filesize --max-columns --threads --replace --encoding --engine --sort
                --sortr --color --colors --context-separator --field-match-separator
                --field-context-separator --path-separator --ignore-file --dfa-size-limit
                --regex-size-limit --file --generate"""
            ),
        )
    ),
    "tree": _with(
        Options(
            flags="adlfxsphugDFqNQrtcvUCnAJXi",
            valued="LPI",
            longs=_names(
                """--noreport --dirsfirst --du --si --prune --matchdirs --ignore-case
                --gitignore --inodes --device --fromfile --help --version"""
            ),
            long_valued=_names("--charset --filelimit --timefmt --sort --info"),
            values_follow=True,
        )
    ),
    "file": _with(
        Options(
            flags="bcEhiklLnNrsSvzZ0",
            valued="efFmP",
            longs=_names(
                """--brief --mime --mime-type --mime-encoding --dereference
                --no-dereference --keep-going --list --raw --special-files --uncompress
                --uncompress-noreport --no-buffer --no-pad --print0 --extension --apple
                --help --version --checking-printout"""
            ),
            long_valued=_names("--exclude --exclude-quiet --separator --files-from --magic-file"),
        )
    ),
    "xxd": _xxd,
    "test": _test,
    "[": _test,
    "printf": _printf,
    "find": _find,
    "sort": _with(
        Options(
            flags="bdfgiMhnRrVcCmsuz0123456789",
            valued="ktSy",
            longs=_names(
                """--ignore-leading-blanks --dictionary-order --ignore-case
                --general-numeric-sort --ignore-nonprinting --month-sort
                --human-numeric-sort --numeric-sort --random-sort --reverse --version-sort
                --check --merge --stable --unique --zero-terminated --debug --help
                --version"""
            ),
            long_valued=_names(
                """--sort --key --field-separator --buffer-size --parallel
                --random-source --batch-size --files0-from"""
            ),
            long_optional=_names("--check"),
        )
    ),
    "sed": _sed,
    "git": _git,
    "xargs": _xargs,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "date": _with(
        Options(
            flags="uR",
            valued="dfr",
            optional="I",
            longs=_names("--utc --universal --rfc-email --debug --help --version"),
            long_valued=_names("--date --file --reference --rfc-3339"),
            long_optional=_names("--iso-8601"),
            operands=1,
        ),
        _date,
    ),
    "uniq": _with(
        Options(
            flags="cdDiuz",
            valued="fsw",
            longs=_names(
                """--count --repeated --ignore-case --unique --zero-terminated --help
                --version"""
            ),
            long_valued=_names("--skip-fields --skip-chars --check-chars"),
            long_optional=_names("--all-repeated --group"),
            numbers=True,
            operands=1,  # uniq INPUT OUTPUT writes OUTPUT
        )
    ),
    "hostname": _with(
        Options(
            flags="adfiIsAV",
            longs=_names(
                """--alias --domain --fqdn --long --ip-address --all-ip-addresses
                --all-fqdns --short --version --help"""
            ),
            operands=0,  # hostname NAME sets the host name
        )
    ),
    "env": _no_args,
    "yq": _with(
        Options(
            flags="rPCMeNn",
            valued="opI",
            longs=_names(
                """--prettyPrint --colors --no-colors --exit-status --null-input --no-doc
                --unwrapScalar --help --version"""
            ),
            long_valued=_names("--output-format --input-format --indent"),
        )
    ),
    "command": _with(Options(flags="vVp", operands=None), _command_v),
    "read": _with(Options(flags="rs", valued="dtnNpua"), _read),
    "npm": _npm,
    "pip": _pip,
    "pip3": _pip,
    "ss": _with(
        Options(
            flags="tulnpaxwmoiesrHO46",
            longs=_names(
                """--tcp --udp --listening --numeric --processes --all --unix --raw --memory
                --options --info --extended --summary --resolve --no-header --oneline --ipv4
                --ipv6 --help --version"""
            ),
        )
    ),
}
_TRUSTED_DIRS = ("/bin/", "/usr/bin/", "/usr/local/bin/")


def _check_program(name: str, args: Args) -> str | None:
    program = name
    if "/" in name:
        if not name.startswith(_TRUSTED_DIRS) or ".." in name.split("/"):
            return f"{name} is not a known read-only program"
        program = name.rsplit("/", 1)[1]
    checker = READ_ONLY_PROGRAMS.get(program)
    if checker is None:
        return f"{name} is not a known read-only program"
    problem = checker(args)
    return f"{program}: {problem}" if problem and not problem.startswith(program) else problem


# -- layer 2: the walk --------------------------------------------------------------------------
_STRUCTURE = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "subshell",
        "compound_statement",
        "redirected_statement",
        "negated_command",
        "while_statement",
        "if_statement",
        "elif_clause",
        "else_clause",
        "do_group",
        "case_statement",
        "case_item",
        "variable_assignments",
    }
)
_VALUES = frozenset(
    {
        "word",
        "number",
        "string",
        "raw_string",
        "concatenation",
        "simple_expansion",
        "string_content",
        "variable_name",
        "special_variable_name",
        "brace_expression",
        "command_substitution",
        "process_substitution",
        "regex",
        "test_operator",
        "binary_expression",
        "unary_expression",
        "parenthesized_expression",
        "file_descriptor",
        "command_name",
    }
)
# Where bash starts a comment: "#" at the beginning of a word.
_COMMENT_AFTER = frozenset(b" \t\n;&|()")


class _Walk:
    """One walk over one parsed line; ``problem()`` is the first part that may not only read."""

    def __init__(self, source: bytes, text: str) -> None:
        self.source = source
        self.text = text
        self.heredocs = 0

    def problem(self, root: Node) -> str | None:
        # An explicit stack: a long `a && b && …` nests as deep as it is long.
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, in_substitution = stack.pop()
            if not node.is_named:
                continue  # punctuation and keywords: ;, &&, |, do, done …
            problem, children = self.visit(node, in_substitution)
            if problem:
                return problem
            inner = in_substitution or node.type in {"command_substitution", "process_substitution"}
            stack.extend((child, inner) for child in reversed(children))
        return None

    def visit(self, node: Node, in_substitution: bool) -> tuple[str | None, list[Node]]:
        kind = node.type
        visitor = _VISITORS.get(kind)
        if visitor is not None:
            return visitor(self, node, in_substitution)
        if kind in _STRUCTURE or kind in _VALUES:
            return None, node.children
        if kind in {"ansi_c_string", "translated_string"}:
            return (
                f"{_text(node)[:2]}…' quoting (bash decodes or translates it; only plain "
                "quotes are read as written)",
                [],
            )
        return f"shell construct '{kind}' is not allowed while planning", []

    # -- visitors ----------------------------------------------------------------------------
    def command(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        translated = self.translated(node)
        if translated[0]:
            return translated
        glued = self.glued_words(node)
        if glued:
            return glued, []
        name: str | None = None
        named = False
        args: list[str | None] = []
        for child in node.children:
            if child.type == "command_name":
                named = True
                name = _literal(child.children[0]) if child.children else None
            elif child.is_named and child.type not in {
                "variable_assignment",
                "file_redirect",
                "herestring_redirect",
                "heredoc_redirect",
                "comment",
            }:
                args.append(_literal(child))
        if not named:
            return "a command without a name", []
        if name is None:
            return "a program name computed by the shell", []
        problem = _check_program(name, args)
        return problem, node.children

    def glued_words(self, node: Node) -> str | None:
        """Two words the parser separates with no blank between them are one word for bash
        (tree-sitter splits ``'a b'\\$x`` in two)."""
        previous: Node | None = None
        for index, child in enumerate(node.children):
            if child.type == "comment" and index + 1 < len(node.children):
                # tree-sitter continues the command after a comment's line ends; bash does not.
                return "words after a comment (bash ends the command at the end of the line)"
            parts = child.children if child.type == "concatenation" else [child]
            split = next((p for p in parts if p.type == "word" and _splits(_text(p))), None)
            if split is not None:
                return f"the word {_text(split)!r} holds a blank or operator bash splits at"
            if child.type in _NOT_WORDS:
                previous = None
                continue
            if previous is not None:
                gap = self.source[previous.end_byte : child.start_byte].replace(b"\\\n", b"")
                if not gap or gap.strip(b" \t\n"):
                    return f"words {_text(previous)!r} and {_text(child)!r} that bash reads as one"
            previous = child
        return None

    def translated(self, node: Node, _in: bool = False) -> tuple[str | None, list[Node]]:
        # tree-sitter reads $"…" as a lone "$" token before a string, bash as one word.
        if any(child.type == "$" for child in node.children):
            return '$"…" quoting (bash translates it; only plain quotes are read as written)', []
        return None, node.children

    def assignment(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        target = node.children[0] if node.children else None
        if target is None or target.type != "variable_name":
            return "an assignment to an array element (its subscript is evaluated as code)", []
        name = _text(target)
        if not harmless_variable(name):
            return (
                f"an assignment to {name} (only plain lower-case shell variables; this one "
                "changes how bash or programs behave)",
                [],
            )
        if any(child.type == "array" for child in node.children):
            return "an array assignment", []
        return None, node.children[1:]

    def for_loop(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        variable = node.child_by_field_name("variable")
        if variable is None or not harmless_variable(_text(variable)):
            shown = _text(variable) if variable is not None else "?"
            return (
                f"a for loop assigning {shown} (only plain lower-case shell variables; this "
                "one changes how bash or programs behave)",
                [],
            )
        return None, [c for c in node.children if c != variable]

    def expansion(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        kinds = [child.type for child in node.children]
        if len(kinds) == 3 and kinds[1] in {"variable_name", "special_variable_name"}:
            return None, []
        return (
            f"the parameter expansion {_text(node)!r} (only plain ${{name}}: bash evaluates "
            "operators, subscripts and patterns, and their words are not checked)",
            [],
        )

    def arithmetic(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        # Bash evaluates a variable's value in arithmetic as an expression, and a subscript in
        # it runs command substitutions: x='a[$(rm -rf ~)]'; echo $((x)). Only literal numbers.
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            if child.type not in _ARITHMETIC_SAFE:
                return (
                    "arithmetic on anything but literal numbers (values are evaluated as code)",
                    [],
                )
            stack.extend(child.named_children)
        return None, []

    def compound(self, node: Node, in_sub: bool) -> tuple[str | None, list[Node]]:
        if node.children and node.children[0].type == "((":
            return self.arithmetic(node, in_sub)
        return None, node.children

    def test(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            operators = {_text(c) for c in child.children if c.type == "test_operator"}
            if operators & _ARITHMETIC_TESTS:
                operands = [c for c in child.named_children if c.type != "test_operator"]
                if (
                    "-v" in operators
                    or "-R" in operators
                    or any(o.type != "number" for o in operands)
                ):
                    return "an arithmetic or -v test on a non-number (it is evaluated as code)", []
            stack.extend(child.named_children)
        return None, node.children

    def comment(self, node: Node, in_substitution: bool) -> tuple[str | None, list[Node]]:
        start = node.start_byte
        if in_substitution:
            return "a comment inside a substitution (bash versions disagree where it ends)", []
        if start > 0 and self.source[start - 1] not in _COMMENT_AFTER:
            return "a '#' glued to the word before it (bash does not start a comment there)", []
        return None, []

    def file_redirect(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        operator = next((c.type for c in node.children if not c.is_named), "")
        start = node.start_byte
        if node.children and node.children[0].type == "file_descriptor":
            glued = start > 0 and self.source[start - 1] not in b" \t\n;&|()"
            if glued or not _text(node.children[0]).isdigit():
                # bash reads "a2>f" (and tree-sitter's "-n2>f") as a word and a redirection
                # of standard output
                return f"the redirection '{_text(node)}' glued to the word before it", []
        destinations = node.children_by_field_name("destination")
        if len(destinations) != 1:
            return "words after a redirection's target (arguments that escape the check)", []
        value = _literal(destinations[0])
        shown = _text(node)
        if operator == "<":
            if value is None:
                return f"redirection '{shown}' from a computed file", []
            if value.startswith(("/dev/tcp/", "/dev/udp/")):
                return f"redirection '{shown}' opens a network connection", []
            return None, []
        if operator in {">&", "<&"} and value is not None and (value.isdigit() or value == "-"):
            return None, []
        if operator in {">&-", "<&-"}:
            return None, []
        if operator in {">", ">>", "&>", "&>>", ">|", ">&"} and value == "/dev/null":
            return None, []
        return f"redirection '{shown}' writes to a file", []

    def heredoc(self, node: Node, _in: bool) -> tuple[str | None, list[Node]]:
        self.heredocs += 1
        problem = _heredoc_problem(node, self.text, self.heredocs)
        skipped = {"heredoc_start", "heredoc_body", "heredoc_end"}
        return problem, [c for c in node.children if c.type not in skipped]


_NOT_WORDS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect", "comment"})
_ARITHMETIC_SAFE = frozenset(
    {"number", "binary_expression", "unary_expression", "parenthesized_expression"}
)
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"})
_Visitor = Callable[[_Walk, Node, bool], tuple[str | None, list[Node]]]
_VISITORS: dict[str, _Visitor] = {
    "command": _Walk.command,
    "variable_assignment": _Walk.assignment,
    "for_statement": _Walk.for_loop,
    "expansion": _Walk.expansion,
    "arithmetic_expansion": _Walk.arithmetic,
    "compound_statement": _Walk.compound,
    "test_command": _Walk.test,
    "comment": _Walk.comment,
    "file_redirect": _Walk.file_redirect,
    "heredoc_redirect": _Walk.heredoc,
    "herestring_redirect": lambda walk, node, _in: (None, node.children),
    "concatenation": _Walk.translated,
}


# Nodes whose whole span is read as one piece (their inner parts need not cover every byte).
_WHOLE = frozenset({"string", "raw_string", "heredoc_body", "comment", "regex"})


def _skipped_text(source: bytes, root: Node) -> str | None:
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


def _heredoc_problem(node: Node, text: str, count: int) -> str | None:
    """A here-document passes when bash reads it exactly as tree-sitter does.

    Allowed: one per line, ``<<`` (not ``<<-``), a plain delimiter, a body bash does not
    expand (a quoted delimiter, or no ``$``, backquote or backslash in it), the body starting
    on the second line and the delimiter line ending the command.
    """
    if count > 1:
        return "more than one here-document"
    kinds = [c.type for c in node.children]
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    end = next((c for c in node.children if c.type == "heredoc_end"), None)
    if "<<" not in kinds or start is None or end is None:
        return "a here-document other than <<DELIMITER (<<- strips tabs: refused)"
    written = _text(start)
    delimiter = bash_word(written)
    if delimiter is None or not re.fullmatch(r"[A-Za-z0-9_]+", delimiter):
        return f"the here-document delimiter {written!r} (only letters, digits and _)"
    quoted = written != delimiter
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 2 or lines[-1] != delimiter or delimiter in lines[1:-1]:
        return "a here-document that does not end the command (its delimiter line must be last)"
    first_line_bytes = len(lines[0].encode("utf-8"))
    if start.end_byte > first_line_bytes:
        return "a here-document started after the first line"
    expected = "".join(line + "\n" for line in lines[1:-1])
    if (_text(body) if body is not None else "") != expected or _text(end) != delimiter:
        return "a here-document that bash and the parser split differently"
    if not quoted and re.search(r"[$`\\]", expected):
        return "an unquoted here-document whose body bash expands ($, ` or \\)"
    return None


# -- the decision -------------------------------------------------------------------------------
def check(command: str) -> Verdict:
    """Whether ``command`` only reads. Anything not proven read-only is not; never raises."""
    if not isinstance(command, str):
        return Verdict(False, "the command is not a string")
    if len(command) > 4096:
        return _decide(command)
    return _decide_cached(command)


@lru_cache(maxsize=1024)
def _decide_cached(command: str) -> Verdict:
    return _decide(command)


def _decide(command: str) -> Verdict:
    try:
        refused = refused_text(command)
        if refused:
            return Verdict(False, refused)
        source = command.encode("utf-8")
        root = _parser().parse(source).root_node
        if root.has_error or root.is_missing:
            return Verdict(False, "the command could not be parsed completely")
        problem = _skipped_text(source, root) or _Walk(source, command).problem(root)
    except Exception as exc:  # a checker's bug must deny, not let the command through
        return Verdict(False, f"the command could not be checked ({type(exc).__name__}: {exc})")
    return Verdict(False, problem) if problem else READ_ONLY


def simple_commands(command: str) -> Iterator[str]:
    """The text of every simple command in ``command`` (for matching permission rules).

    Yields nothing when the line does not parse; callers treat that as no match.
    """
    tree = _parse(command)
    if tree is None:
        return
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "command":
            yield _text(node).strip()
        stack.extend(reversed(node.children))


_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})
# Programs that run the command given after their own options.
_WRAPPERS = frozenset({"sudo", "nohup", "nice", "time", "timeout", "exec", "command", "builtin"})
_WRAPPERS_WITH_VALUE = {"timeout": 1, "nice": 0}


def command_words(command: str) -> list[list[str | None]] | None:
    """The words of every simple command in ``command`` as this module reads them — program
    first, then arguments, a computed word as None — nested ones (in substitutions) included.
    None when the line is refused or does not parse."""
    tree = _parse(command)
    if tree is None:
        return None
    commands: list[list[str | None]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        if node.type != "command":
            continue
        words: list[str | None] = []
        for child in node.children:
            if child.type == "command_name":
                words.append(_literal(child.children[0]) if child.children else None)
            elif child.is_named and child.type not in {
                "variable_assignment",
                "file_redirect",
                "heredoc_redirect",
                "herestring_redirect",
                "comment",
            }:
                words.append(_literal(child))
        commands.append(words)
    return commands


def rule_forms(command: str, depth: int = 0) -> list[str] | None:
    """Every simple command of ``command`` as permission rules should see it.

    The program is unquoted and stripped of its directory (``/bin/r\\m x`` is ``rm x``),
    arguments are unquoted (computed ones read ``*``), the command a wrapper runs (``sudo``,
    ``env``, ``xargs``, ``timeout``…) is listed too, and so is the code given to a shell with
    ``-c`` or to ``eval``. None when that cannot be known: the line does not parse, a program
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
    tree = _parse(command)
    if tree is None:
        return False
    root = tree.root_node
    if len(root.named_children) != 1:
        return False
    only = root.named_children[0]
    if only.type != "command":
        return False
    stack = list(only.children)
    while stack:
        node = stack.pop()
        if node.type in {
            "command_substitution",
            "process_substitution",
            "file_redirect",
            "heredoc_redirect",
            "herestring_redirect",
            "variable_assignment",
        }:
            return False
        stack.extend(node.children)
    return True
