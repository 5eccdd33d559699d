"""find: starting points, then tests and actions from a list (no ``-exec*``, ``-ok*``,
``-delete``, ``-fprint*``, ``-fls``).
"""

from __future__ import annotations

import re

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


def find(args: Args) -> str | None:
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
