"""find: starting points, then tests and actions from a list (no ``-ok*``, ``-delete``,
``-fprint*``, ``-fls``); ``-exec``/``-execdir`` only into a command the program table accepts
as one that takes any word (the caller's ``run``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from planmode.core.shell.options import Args, names

_FIND_TESTS_WITH_VALUE = names(
    """-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type
    -xtype -size -mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -user -group
    -uid -gid -perm -links -inum -samefile -used -fstype -maxdepth -mindepth -regextype
    -printf -context"""
)
_FIND_TESTS = names(
    """-empty -readable -writable -executable -print -print0 -prune -quit -true -false -depth
    -follow -mount -xdev -noleaf -ls -nouser -nogroup -daystart -ignore_readdir_race
    -noignore_readdir_race -warn -nowarn -not -a -and -o -or ! ( ) ,"""
)
_FIND_NEWER_XY = re.compile(r"-newer[aBcmt][aBcmt]\Z")


# The command of an -exec (its words, {} computed): why it may not only read, or None.
RunChecker = Callable[[list[str | None]], str | None]
_EXEC = frozenset({"-exec", "-execdir"})


def find(args: Args, run: RunChecker | None = None) -> str | None:
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
        if arg in _EXEC and run is not None:
            command, problem = _exec_command(arg, rest)
            problem = problem or run(command)
            if problem:
                return f"find {arg}: {problem}"
            continue
        if arg in _FIND_TESTS_WITH_VALUE or _FIND_NEWER_XY.match(arg):
            if not rest:
                return f"find {arg} without its value"
            if rest.pop(0) is None:
                return f"the value of find {arg} is computed by the shell"
            continue
        return f"find {arg} is not known to be read-only (it may write or run commands)"
    return None


def _exec_command(action: str, rest: list[str | None]) -> tuple[list[str | None], str | None]:
    """The command of ``-exec``/``-execdir``, taken from ``rest`` up to its ``;`` (or ``+``
    right after ``{}``). find puts a file name wherever ``{}`` stands: those words are
    computed (None); a computed word could be the terminator, so it is refused."""
    command: list[str | None] = []
    while rest:
        word = rest.pop(0)
        if word is None:
            return command, "a word computed by the shell (it could end the command)"
        if word == ";" or (word == "+" and command and command[-1] is None):
            if not command:
                return command, f"{action} without a command"
            if command[0] is None:
                return command, f"{action} runs the files it finds"
            return command, None
        command.append(None if "{}" in word else word)
    return command, f"{action} without its ';' or '+'"
