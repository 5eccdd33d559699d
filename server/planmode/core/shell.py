"""Read-only Bash: parse a command line with tree-sitter-bash and prove every part reads only.

Fail closed. The tree is walked with an allow-list of node types; anything else — a parse
error, a redirection to a file, an assignment, a function definition, a program not in
:data:`READ_ONLY_PROGRAMS` or one used with an option that writes — makes the whole command
line not read-only. Command and process substitutions are checked like the outer line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import tree_sitter_bash
from tree_sitter import Language, Node, Parser


@dataclass(frozen=True)
class Verdict:
    read_only: bool
    # Why not, naming the part of the command that failed; empty when read-only.
    reason: str = ""


READ_ONLY = Verdict(True)

# Argument values: a literal string, or None when the shell computes it (an expansion).
Args = Sequence[str | None]
Checker = Callable[[Args], str | None]


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_bash.language()))


_UNQUOTED_ESCAPE = re.compile(r"\\(.)", re.S)
_GLOB = re.compile(r"[*?\[]")
_QUOTED_ESCAPE = re.compile(r'\\([$`"\\])')


def _literal(node: Node) -> str | None:
    """The value of a word the shell does not compute, or None."""
    text = (node.text or b"").decode("utf-8", "replace")
    if node.type == "number":
        return text
    if node.type == "word":
        if _GLOB.search(_UNQUOTED_ESCAPE.sub("", text)):
            return None  # a glob can expand to any file name, "-delete" included
        # Outside quotes a backslash only quotes the next character: r\m is rm.
        return _UNQUOTED_ESCAPE.sub(lambda m: m.group(1), text.replace("\\\n", ""))
    if node.type == "raw_string":
        return text[1:-1]
    if node.type == "string":
        if all(c.type in {'"', "string_content"} for c in node.children):
            inner = text[1:-1].replace("\\\n", "")
            return _QUOTED_ESCAPE.sub(lambda m: m.group(1), inner)
        return None
    if node.type == "concatenation":
        parts = [_literal(c) for c in node.children]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    return None


# -- the read-only table ---------------------------------------------------------------------
def _any(_args: Args) -> str | None:
    return None


def _refuse_options(*forbidden: str, prefixes: Sequence[str] = ()) -> Checker:
    """Allow the program unless an argument is (or starts with) a forbidden option."""

    def check(args: Args) -> str | None:
        for arg in args:
            if arg is None:
                return "an argument computed by the shell (it could be any option)"
            if arg in forbidden or any(arg.startswith(p) for p in prefixes):
                return f"option {arg} writes or runs commands"
            if arg.startswith("--") and "=" in arg and arg.split("=", 1)[0] in forbidden:
                return f"option {arg} writes or runs commands"
        return None

    return check


def _short_letters(arg: str, with_value: str = "") -> str:
    """The option letters of a short cluster ``-abc``, up to one that takes the rest as value."""
    letters = ""
    for letter in arg[1:]:
        letters += letter
        if letter in with_value:
            break
    return letters


def _abbreviates(arg: str, *names: str) -> bool:
    """getopt_long accepts any unambiguous prefix: ``--out`` is ``--output``."""
    name = arg.split("=", 1)[0]
    return len(name) > 2 and any(n.startswith(name) for n in names)


def _refuse_letters(letters: str, longs: Sequence[str] = (), with_value: str = "") -> Checker:
    """Refuse a short option (alone or in a cluster) or a long option, abbreviated or not."""

    def check(args: Args) -> str | None:
        for arg in args:
            if arg is None:
                return "an argument computed by the shell (it could be any option)"
            if arg == "--":
                return None
            if arg.startswith("--"):
                if _abbreviates(arg, *longs):
                    return f"option {arg} writes or runs commands"
            elif arg.startswith("-") and set(_short_letters(arg, with_value)) & set(letters):
                return f"option {arg} writes or runs commands"
        return None

    return check


def _xxd(args: Args) -> str | None:
    with_value = {"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-s", "-seek", "-n"}
    operands = 0
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg is None:
            return "an argument computed by the shell (it could name an output file)"
        if arg in with_value:
            rest[:1] = []
        elif arg == "-" or not arg.startswith("-"):
            operands += 1
    return "xxd INFILE OUTFILE writes OUTFILE" if operands > 1 else None


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


def _find(args: Args) -> str | None:
    forbidden = {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls"}
    for arg in args:
        if arg is None:
            return "an argument computed by the shell (it could be -delete or -exec)"
        if arg in forbidden or arg.startswith("-fprint"):
            return f"find {arg} writes or runs commands"
    return None


def _sort(args: Args) -> str | None:
    for arg in args:
        if arg is None:
            return "an argument computed by the shell (it could be -o)"
        if arg.startswith("--") and _abbreviates(arg, "--output", "--compress-program"):
            return f"sort {arg} writes a file or runs a program"
        if arg.startswith("-") and not arg.startswith("--") and "o" in arg[1:]:
            return f"sort {arg} writes a file (-o)"
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
            matches = [n for n in _SED_LONG if n.startswith(name)]
            if name in _SED_LONG:
                matches = [name]
            if len(matches) != 1:
                return f"sed option {arg} is not known to be read-only"
            option = matches[0]
            if option in {"--in-place", "--file"}:
                return f"sed {arg} edits files in place or runs a script file"
            if option in {"--expression", "--line-length"}:
                value = arg.split("=", 1)[1] if "=" in arg else (rest.pop(0) if rest else "")
                if value is None:
                    return "an argument computed by the shell"
                if option == "--expression":
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


_GIT_READ_ONLY = {
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "shortlog",
    "describe",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "cat-file",
    "grep",
    "whatchanged",
    "merge-base",
    "show-ref",
    "name-rev",
    "count-objects",
    "check-ignore",
    "version",
}
_GIT_WRITE_OPTIONS = ("--output", "-o", "--ext-diff", "--textconv", "--open-files-in-pager")


def _git(args: Args) -> str | None:
    rest = list(args)
    # global options before the subcommand
    while rest and rest[0] is not None and rest[0].startswith("-"):
        option: str = rest.pop(0) or ""
        if option == "--no-pager" or option.startswith("--git-dir=") or option == "-P":
            continue
        if option == "-C" and rest:
            rest.pop(0)
            continue
        return f"git option {option} is not known to be read-only"
    if not rest or rest[0] is None:
        return "git without a literal subcommand"
    sub, options = rest[0], rest[1:]
    if any(o is None for o in options):
        return "an argument computed by the shell"
    literal = [o for o in options if o is not None]
    for option in literal:
        if sub == "grep" and (
            (option.startswith("-") and not option.startswith("--") and "O" in option)
            or _abbreviates(option, "--open-files-in-pager")
        ):
            return f"git grep {option} runs a program on the matching files"
        if option in _GIT_WRITE_OPTIONS or option.startswith(
            tuple(f"{w}=" for w in _GIT_WRITE_OPTIONS)
        ):
            return f"git {sub} {option} writes a file or runs a program"
    if sub in _GIT_READ_ONLY:
        return None
    if sub == "branch":
        listing = {"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "-l"}
        listing |= {"--show-current", "--merged", "--no-merged", "--contains", "--no-color"}
        for option in literal:
            if option.startswith("-") and option.split("=", 1)[0] not in listing | {
                "--sort",
                "--format",
                "--color",
                "--points-at",
            }:
                return f"git branch {option} changes branches"
        if (
            "--list" not in literal
            and "-l" not in literal
            and any(not o.startswith("-") for o in literal)
        ):
            return "git branch NAME creates a branch"
        return None
    if sub in {"tag", "stash"}:
        if sub == "tag" and all(o in {"-l", "--list", "-n"} or o.startswith("-n") for o in literal):
            return None
        if sub == "stash" and literal[:1] in (["list"], ["show"]):
            return None
        return f"git {sub} with these arguments changes the repository"
    if sub == "remote":
        return None if all(o in {"-v", "--verbose"} for o in literal) else "git remote changes"
    if sub == "config":
        reading = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin"}
        return None if any(o in reading for o in literal) else "git config writes settings"
    if sub == "reflog":
        return None if literal[:1] in ([], ["show"]) else "git reflog changes the reflog"
    return f"git {sub} is not a read-only git command"


_XARGS_VALUE_LETTERS = "adEILnPs"
_XARGS_FLAG_LETTERS = "0prtxo"
_XARGS_OPTIONAL_LETTERS = "eil"  # -e[EOF], -i[REPLACE], -l[LINES]: the rest of the word
_XARGS_LONG_VALUE = ("--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars")
_XARGS_LONG = (
    *_XARGS_LONG_VALUE,
    "--process-slot-var",
    "--null",
    "--eof",
    "--replace",
    "--max-lines",
    "--interactive",
    "--no-run-if-empty",
    "--verbose",
    "--exit",
    "--open-tty",
    "--show-limits",
)


def _xargs(args: Args) -> str | None:
    rest = list(args)
    while rest:
        arg = rest[0]
        if arg is None:
            return "an argument computed by the shell"
        if arg == "--":
            rest.pop(0)
            break
        if not arg.startswith("-") or arg == "-":
            break
        rest.pop(0)
        if arg.startswith("--"):
            name = arg.split("=", 1)[0]
            matches = [n for n in _XARGS_LONG if n.startswith(name)]
            if name in _XARGS_LONG:
                matches = [name]
            if len(matches) != 1 or matches[0] == "--process-slot-var":
                return f"xargs option {arg} is not known to be read-only"
            if matches[0] in _XARGS_LONG_VALUE and "=" not in arg:
                rest[:1] = []
            continue
        for index, letter in enumerate(arg[1:], start=1):
            if letter in _XARGS_VALUE_LETTERS:
                if index == len(arg) - 1:
                    rest[:1] = []
                break
            if letter in _XARGS_OPTIONAL_LETTERS:
                break
            if letter not in _XARGS_FLAG_LETTERS:
                return f"xargs option -{letter} is not known to be read-only"
    if not rest:
        return None  # xargs runs echo by default
    program = rest[0]
    if program is None:
        return "xargs with a computed program"
    # xargs appends words read from its input: they could be any option of the program.
    name = program.rsplit("/", 1)[-1]
    if READ_ONLY_PROGRAMS.get(name) is not _any:
        return f"xargs {program}: input words could be options that write"
    return _check_program(program, rest[1:])


def _date(args: Args) -> str | None:
    return _refuse_letters("s", ("--set",), with_value="dfrI")(args)


def _uniq(args: Args) -> str | None:
    if any(a is None for a in args):
        return "an argument computed by the shell"
    after = args.index("--") if "--" in args else len(args)
    files = [a for a in args[:after] if a is not None and not a.startswith("-")]
    files += [a for a in args[after + 1 :] if a is not None]
    return "uniq INPUT OUTPUT writes OUTPUT" if len(files) > 1 else None


# Programs that print, read or search, none of whose options writes a file or runs a program.
PLAIN_READERS = """
    ls cat head tail wc grep egrep fgrep pwd echo true false which type stat du df
    diff cmp comm cut tr nl basename dirname realpath readlink whoami id uname printenv
    seq column fold rev tac od hexdump md5sum sha1sum sha256sum cksum strings paste expand
    unexpand fmt pr join look cd groups locale nproc arch lsb_release sleep jq tty
""".split()

READ_ONLY_PROGRAMS: dict[str, Checker] = {
    **dict.fromkeys(PLAIN_READERS, _any),
    "rg": _refuse_options("--pre", "--pre-glob", "--hostname-bin", prefixes=("--pre=",)),
    "tree": _refuse_letters("oR"),
    "file": _refuse_letters("C", ("--compile",), with_value="efFmP"),
    "xxd": _xxd,
    "test": _test,
    "[": _test,
    "printf": _printf,
    "find": _find,
    "sort": _sort,
    "sed": _sed,
    "git": _git,
    "xargs": _xargs,
    "date": _date,
    "uniq": _uniq,
    "hostname": _no_args,
    "env": _no_args,
    "yq": _refuse_letters("is", ("--inplace", "--in-place", "--split-exp")),
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


# -- the walk -------------------------------------------------------------------------------
_STRUCTURE = {
    "program",
    "list",
    "pipeline",
    "subshell",
    "compound_statement",
    "redirected_statement",
    "negated_command",
    "for_statement",
    "while_statement",
    "if_statement",
    "elif_clause",
    "else_clause",
    "do_group",
    "case_statement",
    "case_item",
    "comment",
}
_VALUES = {
    "word",
    "number",
    "string",
    "raw_string",
    "ansi_c_string",
    "translated_string",
    "concatenation",
    "simple_expansion",
    "expansion",
    "string_content",
    "variable_name",
    "special_variable_name",
    "arithmetic_expansion",
    "brace_expression",
    "command_substitution",
    "process_substitution",
    "extglob_pattern",
    "regex",
    "test_operator",
    "binary_expression",
    "unary_expression",
    "parenthesized_expression",
}


# tree-sitter-bash 0.25 can crash the process (SIGSEGV) on "{" followed by a character
# outside the Basic Multilingual Plane (e.g. U+E396A): such lines are never parsed.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@lru_cache(maxsize=1024)
def check(command: str) -> Verdict:
    """Whether ``command`` only reads. Anything not proven read-only is not."""
    if not command.strip():
        return Verdict(False, "an empty command")
    if "\x00" in command:
        return Verdict(False, "a NUL byte in the command")
    if _ASTRAL.search(command):
        return Verdict(False, "a character outside the Basic Multilingual Plane")
    try:
        tree = _parser().parse(command.encode("utf-8"))
    except Exception as exc:  # the grammar must never let a command through by crashing
        return Verdict(False, f"the command could not be parsed ({exc})")
    root = tree.root_node
    if root.has_error or root.is_missing:
        return Verdict(False, "the command could not be parsed completely")
    problem = _walk(root)
    return Verdict(False, problem) if problem else READ_ONLY


def _walk(node: Node) -> str | None:
    kind = node.type
    if not node.is_named:
        return None  # punctuation and keywords: ;, &&, |, do, done …
    if kind == "command":
        return _command(node)
    if kind == "file_redirect":
        return _redirect(node)
    if kind == "herestring_redirect":
        return _children(node)
    if kind == "test_command":
        return _arithmetic_tests(node) or _children(node)
    if kind == "arithmetic_expansion" or (
        kind == "compound_statement" and node.children and node.children[0].type == "(("
    ):
        return _arithmetic(node)
    if kind == "expansion":
        return _expansion(node) or _children(node)
    if kind in _STRUCTURE or kind in _VALUES:
        return _children(node)
    return f"shell construct '{kind}' is not allowed while planning"


# Bash evaluates a variable's value in arithmetic as an expression, and a subscript in it runs
# command substitutions: x='a[$(rm -rf ~)]'; echo $((x)). Only literal numbers are safe.
_ARITHMETIC_SAFE = {"number", "binary_expression", "unary_expression", "parenthesized_expression"}
_ARITHMETIC_TESTS = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"}


def _arithmetic(node: Node) -> str | None:
    stack = list(node.named_children)
    while stack:
        child = stack.pop()
        if child.type not in _ARITHMETIC_SAFE:
            return "arithmetic on anything but literal numbers (values are evaluated as code)"
        stack.extend(child.named_children)
    return None


def _arithmetic_tests(node: Node) -> str | None:
    stack = list(node.named_children)
    while stack:
        child = stack.pop()
        operators = [c for c in child.children if c.type == "test_operator"]
        if any((c.text or b"").decode() in _ARITHMETIC_TESTS for c in operators):
            operands = [c for c in child.named_children if c.type != "test_operator"]
            if any(o.type != "number" for o in operands) or "-v" in {
                (c.text or b"").decode() for c in operators
            }:
                return "an arithmetic or -v test on a non-number (it is evaluated as code)"
        stack.extend(child.named_children)
    return None


def _expansion(node: Node) -> str | None:
    tokens = [c.type for c in node.children]
    if "!" in tokens or "@" in tokens:
        return "an indirect or transforming expansion (${!x}, ${x@P}) can run commands"
    if ":" in tokens:
        after = node.children[tokens.index(":") + 1 :]
        if any(c.is_named and c.type != "number" for c in after):
            return "a substring offset that is not a number is evaluated as code"
    return None


def _children(node: Node) -> str | None:
    for child in node.children:
        problem = _walk(child)
        if problem:
            return problem
    return None


def _redirect(node: Node) -> str | None:
    operator = next((c.type for c in node.children if not c.is_named), "")
    target = node.child_by_field_name("destination") or node.children[-1]
    value = _literal(target) if target is not None else None
    destinations = node.children_by_field_name("destination")
    if len(destinations) > 1:
        return "words after a redirection's target (arguments that escape the check)"
    if operator in {"<"}:
        return _children(node)
    if (
        operator in {">&", "<&", ">&-", "<&-"}
        and value is not None
        and (value.isdigit() or value == "-")
    ):
        return None
    if operator in {">", ">>", "&>", "&>>", ">|"} and value == "/dev/null":
        return None
    shown = (node.text or b"").decode("utf-8", "replace")
    return f"redirection '{shown}' writes to a file"


def _command(node: Node) -> str | None:
    name_node: Node | None = None
    args: list[str | None] = []
    for child in node.children:
        if child.type == "variable_assignment":
            return "a variable assignment (it can change how programs behave)"
        if child.type == "command_name":
            name_node = child
            continue
        if child.type == "file_redirect":
            problem = _redirect(child)
            if problem:
                return problem
            continue
        if child.type == "herestring_redirect":
            problem = _walk(child)
            if problem:
                return problem
            continue
        problem = _walk(child)  # substitutions inside arguments are commands too
        if problem:
            return problem
        if child.is_named and child.type != "comment":
            args.append(_literal(child))
    if name_node is None:
        return "a command without a name"
    name = _literal(name_node.children[0]) if name_node.children else None
    if name is None:
        return "a program name computed by the shell"
    return _check_program(name, args)


def simple_commands(command: str) -> Iterator[str]:
    """The text of every simple command in ``command`` (for matching permission rules).

    Yields nothing when the line does not parse; callers treat that as no match.
    """
    if _ASTRAL.search(command) or "\x00" in command:
        return
    tree = _parser().parse(command.encode("utf-8"))
    if tree.root_node.has_error:
        return
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "command":
            yield (node.text or b"").decode("utf-8", "replace").strip()
        stack.extend(reversed(node.children))


_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})
# Programs that run the command given after their own options.
_WRAPPERS = frozenset({"sudo", "nohup", "nice", "time", "timeout", "exec", "command", "builtin"})
_WRAPPERS_WITH_VALUE = {"timeout": 1, "nice": 0}


def rule_forms(command: str, depth: int = 0) -> list[str] | None:
    """Every simple command of ``command`` as permission rules should see it.

    The program is unquoted and stripped of its directory (``/bin/r\\m x`` is ``rm x``),
    arguments are unquoted (computed ones read ``*``), the command a wrapper runs (``sudo``,
    ``env``, ``xargs``, ``timeout``…) is listed too, and so is the code given to a shell with
    ``-c`` or to ``eval``. None when that cannot be known: the line does not parse, a program
    name or a shell's code is computed — deny rules then fail closed.
    """
    if depth > 4 or _ASTRAL.search(command) or "\x00" in command:
        return None
    tree = _parser().parse(command.encode("utf-8"))
    if tree.root_node.has_error:
        return None
    forms: list[str] = []
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
    if _ASTRAL.search(command) or "\x00" in command:
        return False
    tree = _parser().parse(command.encode("utf-8"))
    root = tree.root_node
    if root.has_error or len(root.named_children) != 1:
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
