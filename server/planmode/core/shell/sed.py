"""sed: scripts of ``p d q Q = l n N s///`` without ``w`` or ``e``; no ``-i``, no ``-f``."""

from __future__ import annotations

import re

from planmode.core.shell.options import Args

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


def sed(args: Args) -> str | None:
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
