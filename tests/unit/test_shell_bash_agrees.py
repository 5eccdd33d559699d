"""For any line the classifier allows, bash runs exactly the commands, with exactly the words,
that the classifier read — and they write nothing, run nothing else and ask gpg nothing. For
any line at all, settings rules see every command bash runs.

Generated lines mix ordinary words with everything bash and a parser may read differently
(quotes, escapes, expansions, braces, tildes, globs, ``#``, control characters, line ends…)
and with the classes of the security review: awk programs that hide code behind a quote, git
formats that verify signatures, git after a ``cd``, npm and pip, ``find -exec``, sed scripts,
commands hidden from permission rules.

An allowed line is run by real bash in a throwaway directory where every program is a stub
that records its argv (builtins disabled so that echo, printf and test are stubs too) — except
awk, sed, git, npm and pip, which record their argv and then run for real: in a git
repository with a signed commit whose gpg.program leaves a marker, beside a nested repository
whose core.fsmonitor leaves one, under an .npmrc and a pip configuration that name log files.
Each recorded argv must match a command of :func:`command_words` — a computed word (None)
stands for any number of words — and, when bash reported no error, every command read must
have run; git must run in the directory the line started in; no file may appear or change.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planmode.core.shell import check, command_words, rule_forms

PROGRAMS = ["echo", "cat", "ls", "grep", "wc", "head", "printf", "sort", "cut", "find", "git"]
PROGRAMS += ["date", "awk", "sed", "test", "uniq", "xxd", "tail", "jq", "stat", "basename"]
PROGRAMS += ["npm", "pip", "rm", "cd"]
BUILTINS = ["echo", "printf", "test", "[", "pwd", "true", "false", "type"]
# Programs that record their argv, then run for real (see the module docstring).
REAL = {
    "awk": ["/usr/bin/awk"],
    "sed": ["/usr/bin/sed"],
    "git": ["/usr/bin/git"],
    "npm": ["/usr/bin/node", "/usr/bin/npm"],
    "pip": [sys.executable, "-m", "pip"],
}
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
# The classes of the security review, as whole commands: each is allowed or denied, and an
# allowed one must write nothing, run nothing and verify no signature.
AWK_PROGRAMS = [
    """'BEGIN{x=/"/;print > "p"}#"'""",
    """'/"/ {print} END {system("rm p")} #"'""",
    """'BEGIN { print length /"/; print > "p" #"/ }'""",
    """'BEGIN { s = "\\""; print > "p" }'""",
    """'# "\n{ print > "p" }'""",
    """'{print $1/2}'""",
    """'/"/ {n++} END {print n}'""",
    """'BEGIN{a=4;b=2;print a/b/1}'""",
]
GIT_FORMATS = [
    "--format=%+G?",
    "--format='% GS'",
    "--format=%-GK",
    "--format=%%G?",
    "--format='%w(%G?)'",
    "--pretty=format:%GG",
    "--format=%h%n%s",
    "--pretty=oneline",
]
CLASS_COMMANDS = [
    *[f"awk {program} x.txt" for program in AWK_PROGRAMS],
    *[f"git log -1 {fmt}" for fmt in GIT_FORMATS],
    "git for-each-ref --format='%(signature)'",
    "git for-each-ref --format='%(refname:short)' refs/heads",
    "git branch --list --format '%(signature)'",
    "cd sub && git status",
    "cd sub; git log -1",
    "(cd sub && git diff)",
    "for d in . sub; do git status; cd $d; done",
    "git status",
    "npm ls",
    "npm --version",
    "npm -v",
    "pip --version",
    "pip list",
    "find . -name x.txt -exec cat {} \\;",
    "find . -exec rm {} \\;",
    "sed -n '1,+1p' x.txt",
    "sed -n '1~2p;2{p;q}' x.txt",
    "sed 's/x/y/w p' x.txt",
    "sed '1e rm p' x.txt",
    "sed '/[/]/w p' x.txt",
]


@st.composite
def lines(draw: st.DrawFn) -> str:
    commands = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 4)) == 0:
            command = draw(st.sampled_from(CLASS_COMMANDS))
        else:
            program = draw(st.sampled_from(PROGRAM_SPELLINGS)).format(
                p=draw(st.sampled_from(PROGRAMS))
            )
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


def _stub(path: Path, real: list[str] | None = None) -> None:
    """A program that records its argv and the directory it runs in; a real one then runs
    (when it is installed)."""
    record = 'printf \'%s\\0\' "${0##*/}" "$@" > "$STUB_LOG/$$"\npwd > "$STUB_LOG/$$.pwd"\n'
    runs = f'exec {" ".join(real)} "$@"\n' if real and Path(real[0]).exists() else ""
    path.write_text("#!/bin/sh\n" + record + runs)
    path.chmod(0o755)


def _git(*args: str, cwd: Path) -> None:
    identity = ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run(["git", *identity, *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Path]:
    """A directory with stub programs, an init file that disables builtins, and a work
    directory: a git repository with a signed commit and a nested repository, files for
    globs to match, an .npmrc; pip's configuration file in the home."""
    if shutil.which("bash") is None:
        pytest.fail("bash is required")
    home = Path(tempfile.mkdtemp(prefix="planmode-bash-agrees-"))
    stubs = home / "bin"
    stubs.mkdir()
    for name in set(PROGRAMS) | set(BUILTINS):
        if name != "cd":
            _stub(stubs / name, REAL.get(name))
    (home / "init.sh").write_text("enable -n " + " ".join(BUILTINS) + "\n")
    markers = home / "markers"
    markers.mkdir()
    gpg = home / "gpg"
    gpg.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        '*-bsau*) cat >/dev/null; echo "[GNUPG:] SIG_CREATED D 1 8 00 0 X" >&2;'
        " printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nx\\n-----END PGP SIGNATURE-----\\n';;\n"
        f'*) echo verify >> "{markers}/gpg"; cat >/dev/null;;\n'
        "esac\n"
    )
    gpg.chmod(0o755)
    work = home / "work"
    work.mkdir()
    for name in ("a", "ab", "x.txt"):
        (work / name).write_text("x\n")
    _git("init", "-q", cwd=work)
    _git("add", "a", "ab", "x.txt", cwd=work)
    _git(
        "-c", f"gpg.program={gpg}", "-c", "user.signingkey=X", "commit", "-S", "-qm", "s", cwd=work
    )
    _git("config", "gpg.program", str(gpg), cwd=work)
    nested = work / "sub"
    nested.mkdir()
    _git("init", "-q", cwd=nested)
    (nested / "n.txt").write_text("n\n")
    _git("add", "n.txt", cwd=nested)
    _git("commit", "-qm", "n", cwd=nested)
    _git("config", "core.fsmonitor", f"{home / 'fsmonitor'}", cwd=nested)
    (home / "fsmonitor").write_text(f'#!/bin/sh\necho "$*" >> "{markers}/fsmonitor"\nexit 1\n')
    (home / "fsmonitor").chmod(0o755)
    (work / "package.json").write_text('{"name": "w", "version": "1.0.0"}\n')
    (work / ".npmrc").write_text(f"registry=http://127.0.0.1:9/\nlogs-dir={home / 'npm-logs'}\n")
    (home / "pip.conf").write_text(f"[global]\nlog = {home / 'pip.log'}\n")
    yield home
    shutil.rmtree(home)


def _files(home: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``home`` but the stubs' records and git's own directory: its size and
    modification time."""
    found: dict[str, tuple[int, int]] = {}
    for directory, subdirectories, names in os.walk(home):
        subdirectories[:] = [d for d in subdirectories if d != ".git" and not d.startswith("log")]
        for name in names:
            path = Path(directory, name)
            try:
                stat = path.lstat()
            except OSError:
                continue
            found[str(path.relative_to(home))] = (stat.st_size, stat.st_mtime_ns)
    return found


def run_in_bash(
    home: Path, line: str, bin_dir: str = "bin", work: Path | None = None
) -> tuple[list[list[str]], bool, set[str]]:
    """The argv of every program bash ran for ``line``, whether bash ran all of it, and the
    directories git ran in."""
    log = Path(tempfile.mkdtemp(dir=home, prefix="log"))
    env = {
        "PATH": str(home / bin_dir),
        "HOME": str(home),
        "BASH_ENV": str(home / "init.sh"),
        "STUB_LOG": str(log),
        "x": "v w",
        "LC_ALL": "C.UTF-8",
        "PIP_CONFIG_FILE": str(home / "pip.conf"),
        "PIP_NO_INPUT": "1",
    }
    done = subprocess.run(
        ["/bin/bash", "-c", line],
        cwd=work or home / "work",
        env=env,
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    ran, git_directories = [], set()
    for record in sorted(log.iterdir()):
        if record.suffix == ".pwd":
            continue
        ran.append(record.read_bytes().decode("utf-8", "surrogateescape").split("\0")[:-1])
        if ran[-1][:1] == ["git"]:
            git_directories.add((log / f"{record.name}.pwd").read_text().strip())
    shutil.rmtree(log)
    # The stubs print nothing and succeed: output on standard error or a failure is bash
    # refusing part of the line (a syntax error, a missing input file), after which not every
    # command runs. The real programs may fail and print.
    real = any(argv and argv[0] in REAL for argv in ran)
    clean = not real and not done.stderr and done.returncode == 0
    return ran, clean, git_directories


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
    """What the classifier read that bash did not run (``cd`` is bash's own)."""
    return [
        pattern
        for pattern in read
        if pattern[:1] != ["cd"] and not any(matches(pattern, argv) for argv in ran)
    ]


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
    before = _files(sandbox)
    ran, clean, git_directories = run_in_bash(sandbox, line)
    assert not unseen(ran, read), f"bash ran {ran}, the classifier read {read}"
    # An input redirection from a missing file fails silently under 2>/dev/null.
    if clean and "<" not in line.replace("<<", ""):
        assert not not_run(ran, read), f"bash ran {ran}, the classifier read {read}"
    assert git_directories <= {str(sandbox / "work")}, f"git ran in {git_directories}"
    changed = {k: v for k, v in _files(sandbox).items() if before.get(k) != v}
    assert not changed, f"{line!r} wrote {sorted(changed)}"


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
    ran, clean, _ = run_in_bash(sandbox, line)
    assert clean
    assert not unseen(ran, read) and not not_run(ran, read), (ran, read)
    assert len(ran) == len(read)


@pytest.mark.parametrize(
    ("line", "trace"),
    [
        ("""awk 'BEGIN{x=/"/;print > "p"}#"'""", "work/p"),
        ("git log -1 --format=%+G?", "markers/gpg"),
        ("cd sub && git status", "markers/fsmonitor"),
        ("npm ls", "npm-logs"),
        ("pip list", "pip.log"),
        ("sed 's/x/y/w p' x.txt", "work/p"),
    ],
)
def test_the_sandbox_shows_what_each_class_would_do(sandbox: Path, line: str, trace: str) -> None:
    """Run although denied: each class's line leaves its trace here, so the property above,
    which runs only allowed lines, would see one that slipped through."""
    assert not check(line).read_only
    before = _files(sandbox)
    run_in_bash(sandbox, line)
    changed = {k for k, v in _files(sandbox).items() if before.get(k) != v}
    assert any(k.startswith(trace) for k in changed), changed
    for path in changed:
        (sandbox / path).unlink()
    shutil.rmtree(sandbox / "npm-logs", ignore_errors=True)


# -- settings rules see every command bash runs ------------------------------------------------
# Places where a command hides from a walk over the tree (docs/read-only-bash.md,
# "Permission rules"), each around {c}; bash runs {c} in each.
HIDING = [
    "[ -d a ]#; {c}",
    "echo ${{HOME#$({c})}}",
    "echo \"${{x:-'$({c})'}}\"",
    'echo "${{y:-`{c}`}}"',
    "echo ${{y:-$({c})}}",
    "cat <<EOF\n`{c}`\nEOF",
    "cat <<EOF\n$({c})\nEOF",
    "cat <<-EOF\n\t$({c})\n\tEOF",
    "cat <<'EOF'\nEOF \nEOF\n{c}",
    "echo $(( $({c}) ))",
    "a[$({c})]=1",
    "ls > $({c})",
    "cat <({c})",
    "case $({c}) in x) ls;; esac",
    "[[ $({c}) == x ]]",
    "f() {{ {c}; }}; f",
    "trap '{c}' EXIT",
    "eval '{c}'",
    "sh -c '{c}'",
    "timeout -s KILL 5 {c}",
    "nice -n 5 {c}",
    "env -u HOME {c}",
    "echo x | xargs -I{{}} {c}",
    "find . -name x.txt -exec {c} {{}} \\;",
    "read 'a[$({c})]' < x.txt",
    "printf -v 'a[$({c})]' x",
    "y='a[$({c})]'; echo $((y))",
]
HIDDEN = ["rm x", "rm -rf a", "grep -c x x.txt", "echo hidden"]
# Real programs that run others: the rule side must see what they run.
RUNNERS = {
    "sh": "/bin/sh",
    "timeout": "/usr/bin/timeout",
    "nice": "/usr/bin/nice",
    "env": "/usr/bin/env",
    "xargs": "/usr/bin/xargs",
    "find": "/usr/bin/find",
}


@st.composite
def hiding_lines(draw: st.DrawFn) -> str:
    hidden = draw(st.sampled_from(HIDING)).format(c=draw(st.sampled_from(HIDDEN)))
    if draw(st.booleans()):
        return hidden
    return draw(lines()) + draw(st.sampled_from(["; ", " && ", "\n"])) + hidden


@pytest.fixture(scope="module")
def rule_sandbox(sandbox: Path) -> Path:
    """The sandbox with a second program directory: stubs only (no real git, awk, sed, npm or
    pip, which every line may run here) and the real runners."""
    stubs = sandbox / "bin-rules"
    stubs.mkdir(exist_ok=True)
    for name in set(PROGRAMS) | set(BUILTINS):
        if name != "cd" and name not in RUNNERS:
            _stub(stubs / name)
    for name, real in RUNNERS.items():
        if not (stubs / name).exists():
            (stubs / name).symlink_to(real)
    return sandbox


@settings(
    max_examples=int(os.environ.get("PLANMODE_BASH_EXAMPLES", "250")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(line=st.one_of(lines(), hiding_lines()))
def test_settings_rules_see_every_command_bash_runs(rule_sandbox: Path, line: str) -> None:
    forms = rule_forms(line)
    if forms is None:
        return  # uncertain: deny and ask rules cover the line, allow rules do not match it
    programs = {form.split(" ", 1)[0] for form in forms}
    work = Path(tempfile.mkdtemp(dir=rule_sandbox, prefix="log-work"))
    for name in ("a", "ab", "x.txt"):
        (work / name).write_text("x\n")
    try:
        ran, _, _ = run_in_bash(rule_sandbox, line, bin_dir="bin-rules", work=work)
    finally:
        shutil.rmtree(work)
    missing = [argv for argv in ran if argv[0] not in programs]
    assert not missing, f"bash ran {missing}, the rules saw {forms}"
