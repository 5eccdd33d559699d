"""The syntax guard: every entry point of :mod:`planmode.core.shell` reads a line through it,
and it fails closed — a line it refuses, or one on which anything raises, is known to nobody.
"""

from __future__ import annotations

import pytest

from planmode.core.shell import (
    READ_ONLY_PROGRAMS,
    check,
    command_words,
    is_single_simple_command,
    rule_forms,
    simple_commands,
)
from planmode.core.shell.syntax import Line, Refused, read_line

REFUSED = [
    "",  # empty
    "ls\rx",  # a control character
    "ls " + "a" * 20_001,  # too long
    "ls 'unterminated",  # a parse error
    "rm -rf \\ /tmp/x",  # text the parser skips: bash runs rm -rf ' /tmp/x'
    "echo a \\ b",
]


@pytest.mark.parametrize("command", REFUSED)
def test_every_entry_point_refuses_what_the_guard_refuses(command: str) -> None:
    assert isinstance(read_line(command, lambda line: line), Refused)
    assert check(command).read_only is False
    assert command_words(command) is None
    assert rule_forms(command) is None
    assert list(simple_commands(command)) == []
    assert is_single_simple_command(command) is False


def test_a_line_that_passes_is_read_by_every_entry_point() -> None:
    line = read_line("ls -la src", lambda line: line)
    assert isinstance(line, Line)
    assert (line.text, line.source, line.root.type) == ("ls -la src", b"ls -la src", "program")
    assert check("ls -la src").read_only
    assert command_words("ls -la src") == [["ls", "-la", "src"]]
    assert rule_forms("ls -la src") == ["ls -la src"]
    assert list(simple_commands("ls -la src")) == ["ls -la src"]
    assert is_single_simple_command("ls -la src")


def test_an_exception_refuses_naming_it() -> None:
    def broken(line: Line) -> str:
        raise RuntimeError(f"checker bug on {line.text}")

    refused = read_line("ls", broken)
    assert isinstance(refused, Refused)
    assert refused.reason == "the command could not be checked (RuntimeError: checker bug on ls)"
    not_text = read_line(b"ls", lambda line: line)
    assert isinstance(not_text, Refused)
    assert not_text.reason == "the command is not a string"


def test_a_checker_that_raises_denies(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(args: object) -> str | None:
        raise ValueError("bad table entry")

    monkeypatch.setitem(READ_ONLY_PROGRAMS, "wc", broken)
    verdict = check("wc -l guard-test-only.txt")  # a line no other test decides (the cache)
    assert verdict.read_only is False
    assert verdict.reason == "the command could not be checked (ValueError: bad table entry)"
