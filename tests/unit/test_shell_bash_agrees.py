"""For any line the classifier allows, bash runs exactly the commands, with exactly the words,
that the classifier read.

Generated lines mix ordinary words with everything bash and a parser may read differently
(quotes, escapes, expansions, braces, tildes, globs, ``#``, control characters, line ends…).
An allowed line is run by real bash in a throwaway directory where every program is a stub
that records its argv (builtins disabled so that echo, printf and test are stubs too). Each
recorded argv must match a command of :func:`command_words` — a computed word (None) stands
for any number of words — and, when bash reported no error, every command read must have run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planmode.core.shell import check, command_words

PROGRAMS = ["echo", "cat", "ls", "grep", "wc", "head", "printf", "sort", "cut", "find", "git"]
PROGRAMS += ["date", "awk", "sed", "test", "uniq", "xxd", "tail", "jq", "stat", "basename"]
BUILTINS = ["echo", "printf", "test", "[", "pwd", "true", "false", "type"]
PROGRAM_SPELLINGS = ["{p}", "'{p}'", '"{p}"', "\\{p}", "{p}''"]
PIECES = [
    # ordinary
    *["a", "-n", "x.txt", "--opt=1", "-l", "1", "src/", ".", "-", "--", "+%s"],
    # quoting and escapes
    *["'a b'", '"a b"', '"a\\"b"', "a\\ b", "\\$x", "'$x'", '"a\\b"', "\\\n", "'\n'"],
    # expansions
    *["$x", '"$x"', "${x}", "${x:-y}", "$'a'", '$"a"', "$(echo a)", "`echo a`", "$((1+2))"],
    # braces, tildes, globs
    *["{a,b}", "{1..2}", "{}", "a{b}", "x{,}", "{-n,}", "~", "~/x", "a=~/x", "HEAD~1", "*", "?"],
    "[a]",
    # comments and odd characters
    *["#x", "a#b", "\\#", "'#'", "=", "%", "^", ",", "!", "\t", "\u00a0", "é", "$", "a$"],
    *["\r", "\x0b", "\x0c", "\\\r\n", "\u2028", "\\", ";", "&", "(", ")", "|", "<", ">"],
    *["\u200b", "\ufeff", "\u3000", "\u202e", "\u0085"],
    # redirections, and what bash and the parser may split differently around them
    *["2>/dev/null", ">/dev/null", "<<<x", "2>&1", "2", ">", "\\ ", "\\\t", " \\\n "],
]
JOINERS = ["; ", " && ", " | ", "\n", " # note\n", ";#c\n"]
# Compound commands around a command: each body runs once or twice with stubs that succeed.
WRAPPERS = [
    "{c}",
    "( {c} )",
    "{{ {c}; }}",
    "for v in 1 2; do {c}; done",
    "if {c}; then {c}; fi",
    "echo $({c})",
    "{c} <<'EOF'\n$x `y` \\\nEOF",
    "{c} <<EOF\nplain\nEOF",
]


@st.composite
def lines(draw: st.DrawFn) -> str:
    commands = []
    for _ in range(draw(st.integers(1, 3))):
        program = draw(st.sampled_from(PROGRAM_SPELLINGS)).format(p=draw(st.sampled_from(PROGRAMS)))
        words = [
            "".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=3)))
            for _ in range(draw(st.integers(0, 4)))
        ]
        command = " ".join([program, *words])
        commands.append(draw(st.sampled_from(WRAPPERS)).format(c=command))
    line = commands[0]
    for command in commands[1:]:
        line += draw(st.sampled_from(JOINERS)) + command
    return line


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Path]:
    """A directory with stub programs, an init file that disables builtins, and a few files
    for globs to match."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.fail("bash is required")
    home = Path(tempfile.mkdtemp(prefix="planmode-bash-agrees-"))
    stubs = home / "bin"
    stubs.mkdir()
    stub = stubs / "stub"
    # dash's printf is a builtin: the stub runs no other program (PATH holds only stubs).
    stub.write_text('#!/bin/sh\nprintf \'%s\\0\' "${0##*/}" "$@" > "$STUB_LOG/$$"\n')
    stub.chmod(0o755)
    for name in set(PROGRAMS) | set(BUILTINS):
        (stubs / name).symlink_to(stub)
    (home / "init.sh").write_text("enable -n " + " ".join(BUILTINS) + "\n")
    work = home / "work"
    work.mkdir()
    for name in ("a", "ab", "x.txt"):
        (work / name).write_text("x\n")
    yield home
    shutil.rmtree(home)


def run_in_bash(home: Path, line: str) -> tuple[list[list[str]], bool]:
    """The argv of every program bash ran for ``line``, and whether bash ran all of it."""
    log = Path(tempfile.mkdtemp(dir=home))
    env = {
        "PATH": str(home / "bin"),
        "HOME": str(home),
        "BASH_ENV": str(home / "init.sh"),
        "STUB_LOG": str(log),
        "x": "v w",
        "LC_ALL": "C.UTF-8",
    }
    done = subprocess.run(
        ["/bin/bash", "-c", line],
        cwd=home / "work",
        env=env,
        capture_output=True,
        timeout=20,
        stdin=subprocess.DEVNULL,
    )
    ran = []
    for record in sorted(log.iterdir()):
        ran.append(record.read_bytes().decode("utf-8", "surrogateescape").split("\0")[:-1])
    shutil.rmtree(log)
    # The stubs print nothing and succeed: output on standard error or a failure is bash
    # refusing part of the line (a syntax error, a missing input file), after which not every
    # command runs.
    return ran, not done.stderr and done.returncode == 0


def matches(pattern: list[str | None], argv: list[str]) -> bool:
    """A literal word matches itself; a computed one (None) any number of words."""
    if not pattern:
        return not argv
    head, rest = pattern[0], pattern[1:]
    if head is None:
        return any(matches(rest, argv[split:]) for split in range(len(argv) + 1))
    return bool(argv) and argv[0] == head and matches(rest, argv[1:])


def unseen(ran: list[list[str]], read: list[list[str | None]]) -> list[list[str]]:
    """What bash ran that matches no command the classifier read (brace expansion may run a
    substitution twice: the same command, checked once)."""
    return [argv for argv in ran if not any(matches(pattern, argv) for pattern in read)]


def not_run(ran: list[list[str]], read: list[list[str | None]]) -> list[list[str | None]]:
    return [pattern for pattern in read if not any(matches(pattern, argv) for argv in ran)]


@settings(
    max_examples=int(os.environ.get("PLANMODE_BASH_EXAMPLES", "250")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(line=lines())
def test_an_allowed_line_is_read_by_bash_as_by_the_classifier(sandbox: Path, line: str) -> None:
    if not check(line).read_only:
        return  # denied: nothing runs
    read = command_words(line)
    assert read is not None
    ran, clean = run_in_bash(sandbox, line)
    assert not unseen(ran, read), f"bash ran {ran}, the classifier read {read}"
    # An input redirection from a missing file fails silently under 2>/dev/null.
    if clean and "<" not in line.replace("<<", ""):
        assert not not_run(ran, read), f"bash ran {ran}, the classifier read {read}"


@pytest.mark.parametrize(
    "line",
    [
        "echo a b 'c d' \"e f\" g\\ h",
        "ls {a,b} x{,} ~ ~/x a=~/x HEAD~1 *",
        "cat x.txt | grep -n a | wc -l",
        "echo $(echo inner) `basename a/b`",
        "echo a#b c # a comment\nls -l",
        "ls \\\n-la",
    ],
)
def test_known_lines_agree_with_bash(sandbox: Path, line: str) -> None:
    """Fixed examples, so that the property above is known to compare something."""
    assert check(line).read_only, check(line).reason
    read = command_words(line)
    assert read is not None
    ran, clean = run_in_bash(sandbox, line)
    assert clean
    assert not unseen(ran, read) and not not_run(ran, read), (ran, read)
    assert len(ran) == len(read)
