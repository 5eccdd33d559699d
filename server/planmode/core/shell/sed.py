"""sed: a script read command by command, as GNU sed reads it; no ``-i``, no ``-f``.

Addresses (``10``, ``$``, ``/re/I``, ``\\%re%``, ``first~step``, ``addr,+N``, ``addr,~N``,
``0,/re/``, ``!``), blocks ``{…}`` and the commands that only print or edit the pattern and
hold spaces (``p P d D q Q = l n N g G h H x z F y b t T :``, ``s///`` without the ``w`` and
``e`` flags). Anything else — ``w``, ``W``, ``e``, ``r``, ``R``, ``a``, ``i``, ``c``, a ``/``
inside a bracket expression (seds disagree whether it ends the expression) — refuses the
script (docs/read-only-bash.md, "4. Programs, options and operands").
"""

from __future__ import annotations

import re

from planmode.core.shell.options import Args

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
# Commands without arguments; q, Q and l take an optional number, b, t and T a label.
_SIMPLE_COMMANDS = frozenset("pPdDgGhHxzF=nN")
_NUMBER_ARGUMENT = re.compile(r"[0-9]*")
_LINE_ADDRESS = re.compile(r"[0-9]+(?:~[0-9]+)?|\$")
_SECOND_ADDRESS = re.compile(r"[+~][0-9]+|[0-9]+|\$")
_LABEL = re.compile(r"[^;\n}]*")
_S_FLAGS = re.compile(r"[gpiImM0-9]*")


class SedUnsafe(Exception):
    """The script may write, run a command, or be read differently by another sed."""


def sed(args: Args) -> str | None:
    scripts: list[str] = []
    script_given = False
    rest = list(args)
    operands_only = False
    while rest:
        arg = rest.pop(0)
        if arg is None:
            return "an argument computed by the shell (it could be -i)"
        if operands_only or arg == "-" or not arg.startswith("-"):
            if not script_given and not scripts:
                scripts.append(arg)
                script_given = True
            continue
        if arg == "--":
            operands_only = True
            continue
        if arg.startswith("--"):
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
                    scripts.append(value)
                    script_given = True
            continue
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
                    scripts.append(value)
                    script_given = True
                break
            if letter not in "nsEruzb":
                return f"sed option -{letter} is not known to be read-only"
    if not scripts:
        return None  # sed without a script only reports its usage
    script = "\n".join(scripts)  # sed joins -e scripts with newlines
    try:
        script_commands(script)
    except SedUnsafe as unsafe:
        return f"sed script {script!r} may write files or run commands ({unsafe})"
    return None


def script_commands(script: str) -> list[str]:
    """The command letters of a sed script, read as GNU sed reads it; raises
    :class:`SedUnsafe` for anything but the commands that only print or edit text."""
    reader = _Reader(script)
    commands: list[str] = []
    depth = 0
    while True:
        reader.skip(" \t\n;")
        if reader.at_end():
            break
        if reader.peek() == "#":
            reader.skip_line()
            continue
        if reader.peek() == "}":
            if depth == 0:
                raise SedUnsafe("an unmatched }")
            depth -= 1
            reader.index += 1
            reader.end_of_command()
            continue
        reader.address()
        reader.skip(" \t")
        if reader.peek() == "!":
            reader.index += 1
            reader.skip(" \t")
        command = reader.take()
        commands.append(command)
        if command == "{":
            depth += 1
            continue
        reader.arguments(command)
        reader.end_of_command()
    if depth:
        raise SedUnsafe("an unclosed {")
    return commands


class _Reader:
    """A position in a sed script."""

    def __init__(self, script: str) -> None:
        self.script = script
        self.index = 0

    def at_end(self) -> bool:
        return self.index >= len(self.script)

    def peek(self) -> str:
        return self.script[self.index : self.index + 1]

    def take(self) -> str:
        if self.at_end():
            raise SedUnsafe("a missing command")
        character = self.script[self.index]
        self.index += 1
        return character

    def skip(self, characters: str) -> None:
        while not self.at_end() and self.script[self.index] in characters:
            self.index += 1

    def skip_line(self) -> None:
        newline = self.script.find("\n", self.index)
        self.index = len(self.script) if newline < 0 else newline

    def match(self, pattern: re.Pattern[str]) -> str:
        found = pattern.match(self.script, self.index)
        text = found.group(0) if found else ""
        self.index += len(text)
        return text

    def address(self) -> None:
        if not self._one_address(first=True):
            return
        self.skip(" \t")
        if self.peek() == ",":
            self.index += 1
            self.skip(" \t")
            if not self.match(_SECOND_ADDRESS) and not self._one_address(first=False):
                raise SedUnsafe("a range without its second address")

    def _one_address(self, first: bool) -> bool:
        if self.peek() in {"/", "\\"}:
            if self.take() == "\\":
                self.delimited(self.take())
            else:
                self.delimited("/")
            self.skip("IM")
            return True
        return bool(self.match(_LINE_ADDRESS)) if first else False

    def delimited(self, delimiter: str) -> str:
        """The text up to the unescaped ``delimiter``, which is consumed."""
        if delimiter in {"", "\n", "\\"}:
            raise SedUnsafe("a missing or unusual delimiter")
        start = self.index
        in_bracket = False
        while not self.at_end():
            character = self.take()
            if character == "\\":
                if self.at_end():
                    break
                self.index += 1
            elif character == "\n" and delimiter != "\n":
                break
            elif in_bracket:
                if character == delimiter:
                    raise SedUnsafe(f"{delimiter!r} inside a bracket expression")
                if character == "]":
                    in_bracket = False
            elif character == "[":
                in_bracket = True
                if self.peek() == "^":
                    self.index += 1
                if self.peek() == "]":
                    self.index += 1
            elif character == delimiter:
                return self.script[start : self.index - 1]
        raise SedUnsafe("an unterminated regular expression or replacement")

    def arguments(self, command: str) -> None:
        if command in _SIMPLE_COMMANDS:
            return
        if command in {"q", "Q", "l", "L"}:
            self.skip(" \t")
            self.match(_NUMBER_ARGUMENT)
        elif command in {"b", "t", "T", ":"}:
            self.skip(" \t")
            label = self.match(_LABEL)
            if command == ":" and not label.strip():
                raise SedUnsafe("a label without a name")
        elif command == "s":
            delimiter = self.take()
            self.delimited(delimiter)
            self._replacement(delimiter)
            self.match(_S_FLAGS)
            if self.peek() in {"w", "e"}:
                raise SedUnsafe(f"the s flag {self.peek()!r} writes a file or runs a command")
        elif command == "y":
            delimiter = self.take()
            self.delimited(delimiter)
            self.delimited(delimiter)
        else:
            raise SedUnsafe(f"the command {command!r}")

    def _replacement(self, delimiter: str) -> None:
        """The replacement of ``s``: escapes (a backslash-newline too) up to the delimiter."""
        while not self.at_end():
            character = self.take()
            if character == "\\":
                self.take()
            elif character == "\n":
                break
            elif character == delimiter:
                return
        raise SedUnsafe("an unterminated replacement")

    def end_of_command(self) -> None:
        self.skip(" \t")
        if self.at_end() or self.peek() in {";", "\n", "}", "#"}:
            return
        raise SedUnsafe(f"{self.script[self.index : self.index + 8]!r} after a command")
