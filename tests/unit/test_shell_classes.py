"""The read-only Bash classifier against the classes of escape of the security review.

One section per class (1–12), each closed by a rule rather than by a list of cases; then the
plainly read-only commands agents use, which must stay allowed. Where a class is about what a
program does (awk, git formats, git in another directory, npm and pip), the program runs for
real to show that the attack is real.
"""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planmode.core.permissions import Decision, ToolContext, decide
from planmode.core.shell import (
    MAX_COMMAND_LENGTH,
    bash_word,
    check,
    command_words,
    git_environment,
    git_environment_for,
    harmless_variable,
    is_single_simple_command,
    rule_forms,
    simple_commands,
)
from tests.unit.shell_corpus import AGENT_READS


def denied(command: str) -> str:
    verdict = check(command)
    assert verdict.read_only is False, f"{command!r} passed as read-only"
    assert verdict.reason
    return verdict.reason


def allowed(command: str) -> None:
    verdict = check(command)
    assert verdict.read_only, f"{command!r} denied: {verdict.reason}"


# -- 1. brace expansion: words bash would expand are computed -----------------------------------
@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("{a,b}", None),
        ("{1..3}", None),
        ("x{,}", None),
        ("{-delete,}", None),
        ("-{delete,x}", None),
        ("{'-delete',x}", None),
        ("a{b}", "a{b}"),  # no comma, no sequence: bash leaves it
        ("{}", "{}"),
        ("stash@{0}", "stash@{0}"),
        ("'{a,b}'", "{a,b}"),
        ("\\{a,b}", "{a,b}"),  # an escaped brace is not expanded
    ],
)
def test_brace_expansion_is_computed_as_bash_decides(written: str, value: str | None) -> None:
    assert bash_word(written) == value


@pytest.mark.parametrize(
    "command",
    [
        "find . {-delete,}",
        "find . -{delete,name}",
        "find . {'-delete',-print}",
        "sort {-o,out} in",
        "uniq a {b,c}",
        "sed {-i,s/a/b/} f",
        "git {log,--output=x}",
        "xxd {a,b}",
        "date {-s,0101}",
        "{rm,x}",
    ],
)
def test_brace_expansion_smuggles_no_option(command: str) -> None:
    denied(command)


def test_brace_expansion_into_a_program_whose_options_all_read_is_allowed() -> None:
    allowed("ls {src,tests} {1..3}")


# -- 2. options and operands are allow-listed per program ---------------------------------------
@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("uniq in.txt out.txt", "one too many"),
        ("uniq in.txt -- out.txt", "one too many"),
        ("uniq in.txt -c", "after an operand"),
        ("xxd -r dump.hex out.bin", "at most one operand"),
        ("xxd -ro 5 dump.hex out.bin", "-ro"),  # xxd reads -ro as -r: 5 is the input file
        ("xxd dump.hex -r", "at most one operand"),  # xxd: -r is the output file
        ("tree -Lo 2 out.txt", "-o"),  # tree: -L takes 2, -o takes out.txt
        ("sort -T /tmp in", "-T"),  # temporary files
        ("date 010100002030", "clock"),
        ("date -s 2020-01-01", "-s"),
        ("date --set=2020-01-01", "--set"),
        ("date -u 0101", "clock"),
        ("sort -o out in", "-o"),
        ("sort -uo out in", "-o"),
        ("sort --output=out in", "--output"),
        ("sort --out=x in", "--out"),  # getopt abbreviations are never read as another option
        ("sort --compress-program=sh in", "--compress-program"),
        ("tee out.txt", "tee"),
        ("tree -o out.txt", "-o"),
        ("tree -R -H x", "-R"),
        ("rg --pre=./evil foo", "--pre"),
        ("rg --hostname-bin=rm foo", "--hostname-bin"),
        ("file -C -m magic", "-C"),
        ("hostname evil", "one too many"),
        ("yq -i '.a=1' f.yaml", "-i"),
        ("find . -fprint out", "-fprint"),
        ("find . -newerXY x", "-newerXY"),
        ("find . -delete", "-delete"),
        ("python3 -c 'import os'", "--version"),
        ("python3 -m pip list", "--version"),
        ("node -e 'x'", "--version"),
        ("cargo --version", "cargo"),  # rustup runs the toolchain rust-toolchain.toml names
        ("rustc --version", "rustc"),
        ("ruby -v", "--version"),  # -v then reads a script from standard input
        ("npm install left-pad", "--version"),
        ("npm ls --userconfig=./evil", "--version"),
        ("pip install requests", "--version"),
        ("pip list --extra-index-url=x", "--version"),
        ("go version", "go"),  # a go.mod's toolchain line makes it download and run one
        ("command git push", "command -v"),
        ("awk -f prog.awk data", "-f"),
        ("awk -i inplace '{print}' f", "-i"),
        ("awk -o out '{print}' f", "-o"),
        ("awk 'BEGIN { system(\"rm x\") }'", "system"),
        ("awk '{ print > \"out\" }' f", ">"),
        ("awk '{ print $1,\n $2 >> \"out\" }' f", ">"),
        ('awk \'{ printf("%s", $1) > "f" }\' f', ">"),
        ("awk '{ print | \"sh\" }' f", "|"),
        ("awk 'BEGIN { \"date\" | getline d }'", "getline"),
        ("awk 'BEGIN { getline < \"/inet/tcp/0/h/80\" }'", "getline"),
        ("awk '@load \"x\"; {print}'", "@"),
        ('awk "$prog" f', "computed"),
        ("ss -K dst 1.2.3.4", "-K"),
        ("ss -D out", "-D"),
        ("xargs -a cmds rm", "rm"),
        ("ls | xargs sort -o x", "input words"),
        ("read PATH", "PATH"),
    ],
)
def test_options_and_operands_outside_the_program_list_are_denied(command: str, named: str) -> None:
    assert named in denied(command)


@pytest.mark.parametrize(
    "command",
    [
        "uniq -c in.txt",
        "uniq -f 2 -s 1 in.txt",
        "uniq -3 in.txt",
        "xxd -r dump.hex",
        "xxd -s 0x10 -l 32 -c 8 f",
        "date +%s",
        "date -d yesterday +%F",
        "date -Iseconds",
        "date --iso-8601=seconds",
        "sort -k2,2 -t, -n f",
        "sort -rn",
        "awk '{print ($1 > 2)}' f",
        "awk '$3 > 100 {print $1}' f",
        "awk '/a|b/' f",
        "awk -v n=3 'NR <= n' f",
        "awk -F'\\t' '{print $2}' f",
        "awk 'BEGIN { x = \"a > b | c\"; print x }'",
        "hostname -f",
        "ss -tunap",
        "find . -newermt 2024-01-01 -print",
    ],
)
def test_reading_options_and_operands_are_allowed(command: str) -> None:
    allowed(command)


# -- 3. git config: the whole argument list must be a reading form ------------------------------
@pytest.mark.parametrize(
    "command",
    [
        "git config a b --get",  # options end at the first operand: this sets a
        "git config user.name x",
        "git config --get a b c",
        "git config --get --add a b",
        "git config --add a b",
        "git config --unset a",
        "git config --replace-all a b",
        "git config -e",
        "git config --edit",
        "git config --file x a b",
        "git config --global alias.x '!rm -rf ~'",
        "git config user.name --list",
        "git config --list a",
        "git config set a b",
        "git config user.name ''",  # two operands: sets user.name
        "git config edit",  # newer gits: a subcommand, which opens an editor
        "git config --edit user.name",
        "git config unset a",
        "git config get a --add",
        "git config",
    ],
)
def test_git_config_that_writes_is_denied(command: str) -> None:
    denied(command)


@pytest.mark.parametrize(
    "command",
    [
        "git config --get user.name",
        "git config --get-all remote.origin.fetch",
        "git config --get-regexp '^alias\\.'",
        "git config --list",
        "git config -l --show-origin",
        "git config --show-origin --get user.email",
        "git config --global --get user.name",
        "git config --file .gitmodules --get-regexp path",
        "git config --get core.bare true",
        "git config get user.name",
        "git config list --show-scope",
        "git config user.name",  # one operand: its value
        "git config --global user.email",
        "git config --type=bool core.bare",
        "git config remote.origin.url",
    ],
)
def test_git_config_reading_forms_are_allowed(command: str) -> None:
    allowed(command)


# -- 4. bash and tree-sitter read the text alike, or the line is refused ------------------------
@pytest.mark.parametrize(
    "character",
    ["\r", "\x0b", "\x0c", "\x1b", "\x7f", "\x85", "\u2028", "\u2029", "\x01"],
)
def test_control_characters_other_than_tab_and_newline_are_refused(character: str) -> None:
    reason = denied(f"ls{character}rm x")
    assert f"U+{ord(character):04X}" in reason


def test_backslash_crlf_continuation_is_refused() -> None:
    assert "U+000D" in denied("ls \\\r\nrm -rf x")


def test_tab_and_newline_are_ordinary() -> None:
    allowed("ls\t-la\ncat README.md\n")


@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("ls#x", "parsed"),
        ("echo 'a b'\\$x", "bash reads as one"),  # tree-sitter: two words; bash: one
        ("l\\\ns -la", "bash reads as one"),
        # tree-sitter continues a command after a comment's line; bash runs rm
        ("ls # x\n\\rm -rf /", "after a comment"),
        ("echo # x\n\\\nrm x", "after a comment"),
        ("echo -n2>/dev/null", "glued"),
        ("echo a \\ b", "skipped"),  # tree-sitter drops the word " b"
        # bash: uniq in " " writes a file named " "
        ("uniq in \\  && ls", "skipped"),
        ("echo $(echo a #)\nrm x)", "comment inside a substitution"),
        ("echo $'\\x2ddelete'", "$'"),
        ("find . $'-delete'", "computed"),
        ('echo $"hello"', '$"'),
        ("echo ${x#a}", "parameter expansion"),
        ("echo ${x%a}", "parameter expansion"),
        ("echo ${x:-$(rm y)}", "parameter expansion"),
        ("echo ${x:=/tmp}", "parameter expansion"),
        ("echo ${x/a/b}", "parameter expansion"),
        ("echo ${x^^}", "parameter expansion"),
        ("echo ${x[0]}", "parameter expansion"),
        ("echo ${#x}", "parameter expansion"),
        ("echo ${!x}", "parameter expansion"),
        ("echo ${x@P}", "parameter expansion"),
        ("echo ${x:1:2}", "parameter expansion"),
    ],
)
def test_where_bash_reads_differently_the_line_is_denied(command: str, named: str) -> None:
    assert named in denied(command)


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("a#b", None),  # bash: one word a#b; not worth modelling: computed
        ("~", None),
        ("~/x", None),
        ("a=~/x", None),
        ("a=b:~/x", None),
        ("HEAD~1", "HEAD~1"),
        ("--opt=~/x", None),  # refused alike (bash expands only after name=)
        ("x~", "x~"),
        ("'~'", "~"),
        ('"a\\"b"', 'a"b'),
        ('"a\\b"', "a\\b"),
        ("a\\ b", "a b"),
        ("l\\\ns", "ls"),
        ("'a'\"b\"c", "abc"),
        ('"$x"', None),
        ("*.py", None),
        ("[ab]", None),
        ("?", None),
    ],
)
def test_words_are_read_as_bash_reads_them(written: str, value: str | None) -> None:
    assert bash_word(written) == value


def test_a_comment_after_a_blank_is_a_comment() -> None:
    allowed("ls -la # list everything")
    allowed("ls;# nothing else")


# -- 5. assignments: only plain lower-case shell variables --------------------------------------
SENSITIVE = [
    "PATH",
    "HOME",
    "IFS",
    "ENV",
    "BASH_ENV",
    "PS4",
    "CDPATH",
    "GLOBIGNORE",
    "SHELLOPTS",
    "BASHOPTS",
    "GIT_DIR",
    "GIT_CONFIG_GLOBAL",
    "GIT_EXTERNAL_DIFF",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "PYTHONPATH",
    "PAGER",
    "http_proxy",
    "npm_config_registry",
    "npm_config_logs_dir",
    "https_proxy",
    "no_proxy",
    "histchars",
    "auto_resume",
    "Path",
]


@pytest.mark.parametrize("name", SENSITIVE)
def test_an_environment_affecting_variable_is_never_assigned(name: str) -> None:
    assert not harmless_variable(name)
    for command in (
        f"for {name} in .; do ls; done",
        f"{name}=. ls",
        f"{name}=x; git log",
        f"read {name}",
        f"read -a {name}",
    ):
        denied(command)


@pytest.mark.parametrize(
    "command",
    [
        "for f in a b; do cat $f; done",
        'for file in src/*.py; do wc -l "$file"; done',
        "n=3; head -n $n README.md",
        "dir=src; ls $dir",
        "while read -r line; do echo $line; done < notes.txt",
    ],
)
def test_plain_lower_case_variables_are_harmless(command: str) -> None:
    allowed(command)


@pytest.mark.parametrize(
    "command",
    ["a[$(rm x)]=1", "a=(1 2)", "export a=1", "declare a=1", "local a=1", "unset a"],
)
def test_arrays_and_declarations_are_denied(command: str) -> None:
    denied(command)


# -- 6. git: no other repository, configuration or program --------------------------------------
@pytest.mark.parametrize(
    "command",
    [
        "git -C vendor/evil log",
        "git --git-dir=fixtures/evil.git log",
        "git --work-tree=/ status",
        "git -c core.fsmonitor=./x status",
        "git -c core.pager='rm -rf x' log",
        "git --config-env=core.pager=X log",
        "git --exec-path=./bin log",
        "git --namespace=x log",
        "git --bare log",
        "git -p log",
        "git --paginate log",
        "git log --ext-diff",
        "git diff --ext",  # an abbreviation of --ext-diff
        "git log -p --textconv",
        "git cat-file --textconv HEAD:f",
        "git cat-file --filters HEAD:f",
        "git grep -Orm foo",
        "git grep --open-files-in-pager=rm foo",
        "git log --show-signature",
        "git log --format='%G?'",
        "git log --pretty='format:%GG'",
        "git branch --format='%(signature)'",
        "git log --output=out.txt",
        "git log --out=out.txt",
        "git log --exec=x",
        "git cat-file --batch-command",
        "git worktree add ../elsewhere",
        "git worktree remove x",
        "git cherry -v main HEAD 3 out",
        "git submodule update --init",
        "git submodule status --recursive",
        "git submodule --quiet foreach ls",
        "git submodule foreach ls",
        "git help -w log",
        "GIT_DIR=x git log",
    ],
)
def test_git_cannot_choose_repository_configuration_or_program(command: str) -> None:
    denied(command)


@pytest.fixture(scope="module")
def hostile_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with, committed inside it, a bare repository and a vendored checkout whose
    configuration runs programs (fsmonitor, textconv, a filter, an external diff)."""
    root = tmp_path_factory.mktemp("hostile") / "workspace"
    marker = root.parent / "pwned"
    run = {"check": True, "capture_output": True}

    def git(*args: str, cwd: Path) -> None:
        subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, **run)  # type: ignore[call-overload]

    root.mkdir()
    git("init", "-q", cwd=root)
    (root / "f.txt").write_text("a\n")
    git("add", "f.txt", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", cwd=root)
    vendored = root / "vendor" / "lib"
    vendored.mkdir(parents=True)
    git("init", "-q", cwd=vendored)
    (vendored / "g.txt").write_text("one\n")
    (vendored / ".gitattributes").write_text("*.txt diff=evil filter=evil\n")
    touch = f"sh -c 'echo $0 >> {marker}'"
    for key, value in {
        "core.fsmonitor": f"{touch} fsmonitor; false",
        "diff.evil.textconv": f"{touch} textconv; cat",
        "filter.evil.clean": f"{touch} clean; cat",
        "diff.external": f"{touch} external",
    }.items():
        git("config", key, value, cwd=vendored)
    git("add", "g.txt", ".gitattributes", cwd=vendored)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v", cwd=vendored)
    (vendored / "g.txt").write_text("two\n")
    bare = root / "fixtures" / "evil.git"
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(vendored), str(bare)], check=True, capture_output=True
    )
    git("config", "core.fsmonitor", f"{touch} bare-fsmonitor; false", cwd=bare)
    git("config", "core.worktree", str(vendored), cwd=bare)
    return root


GIT_READS_IN_HOSTILE_PLACES = [
    ("vendor/lib", "git status"),
    ("vendor/lib", "git diff"),
    ("vendor/lib", "git diff HEAD"),
    ("vendor/lib", "git log -p -1"),
    ("vendor/lib", "git show HEAD"),
    ("vendor/lib", "git blame g.txt"),
    ("vendor/lib", "git ls-files -m"),
    ("fixtures/evil.git", "git status"),
    ("fixtures/evil.git", "git log -1"),
    ("fixtures/evil.git", "git diff"),
]


def test_the_attacks_are_real_without_the_git_environment(hostile_workspace: Path) -> None:
    """Without git_environment() the committed configuration runs: the test below can fail."""
    marker = hostile_workspace.parent / "pwned"
    marker.unlink(missing_ok=True)
    subprocess.run(
        ["bash", "-c", "git status; git diff"],
        cwd=hostile_workspace / "vendor" / "lib",
        capture_output=True,
    )
    assert marker.exists()
    marker.unlink()


@pytest.mark.parametrize(("where", "command"), GIT_READS_IN_HOSTILE_PLACES)
def test_allowed_git_reads_run_no_committed_configuration(
    hostile_workspace: Path, where: str, command: str
) -> None:
    allowed(command)
    marker = hostile_workspace.parent / "pwned"
    marker.unlink(missing_ok=True)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(hostile_workspace.parent),
        **git_environment(str(hostile_workspace / ".git"), str(hostile_workspace)),
    }
    subprocess.run(
        ["bash", "-c", command], cwd=hostile_workspace / where, env=env, capture_output=True
    )
    assert not marker.exists(), marker.read_text()


def test_git_submodule_status_runs_no_configuration_of_the_submodule(tmp_path: Path) -> None:
    """A populated submodule whose own repository runs programs (fsmonitor, an external diff,
    a pager): git status of the superproject runs them, git submodule status does not."""
    marker = tmp_path / "pwned"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }

    def git(*args: str, cwd: Path) -> None:
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)

    library, superproject = tmp_path / "lib", tmp_path / "super"
    for repository in (library, superproject):
        git("init", "-q", str(repository), cwd=tmp_path)
    (library / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=library)
    git("commit", "-qm", "one", cwd=library)
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "sub",
        cwd=superproject)  # fmt: skip
    git("commit", "-qm", "with a submodule", cwd=superproject)
    submodule = superproject / "sub"
    touch = f"sh -c 'echo $0 >> {marker}'"
    for key, value in {
        "core.fsmonitor": f"{touch} fsmonitor; false",
        "diff.external": f"{touch} external",
        "core.pager": f"{touch} pager",
    }.items():
        git("config", key, value, cwd=submodule)
    (submodule / "a.txt").write_text("changed\n")
    subprocess.run(["git", "status"], cwd=superproject, env=env, capture_output=True)
    assert marker.exists(), "the submodule's configuration should be live"
    marker.unlink()
    for command in ("git submodule status", "git submodule", "git submodule status --cached"):
        allowed(command)
        subprocess.run(["bash", "-c", command], cwd=superproject, env=env, capture_output=True)
        assert not marker.exists(), (command, marker.read_text())


def test_git_environment_for_finds_the_workspace_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)
    (plain / "src").mkdir()
    assert git_environment_for(plain / "src")["GIT_DIR"] == str(plain / ".git")
    assert git_environment_for(plain / "src")["GIT_WORK_TREE"] == str(plain)
    worktree = tmp_path / "worktree"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {plain / '.git'}\n")
    assert git_environment_for(worktree)["GIT_DIR"] == str(plain / ".git")
    assert git_environment_for(tmp_path)["GIT_DIR"].startswith("/nonexistent")


def test_planning_bash_runs_git_with_the_workspace_configuration_only(
    hostile_workspace: Path,
) -> None:
    """The agent's path: checkTool allows `git status` while planning and answers with the
    sandbox argv; run from inside the committed repositories, it runs none of their programs."""
    from planmode.core.service import PlanModeService
    from planmode.core.settings import Settings

    service = PlanModeService(hostile_workspace, Settings.model_validate({}))
    session = service.session("s1")
    service.enter(session)
    if service.sandbox.mechanism is None:
        pytest.skip(f"no sandbox here: {service.sandbox.detail}")
    marker = hostile_workspace.parent / "pwned"
    for where, command in GIT_READS_IN_HOSTILE_PLACES:
        decision = service.check_tool(session, "Bash", {"command": command})
        assert decision.behavior == "allow" and decision.sandbox is not None, decision
        assert "GIT_DIR=" + str(hostile_workspace / ".git") in decision.sandbox.argv
        marker.unlink(missing_ok=True)
        subprocess.run(
            decision.sandbox.argv,
            cwd=hostile_workspace / where,
            capture_output=True,
            timeout=30,
            env={"PATH": "/usr/bin:/bin", "HOME": str(hostile_workspace.parent)},
        )
        assert not marker.exists(), (where, command, marker.read_text())


def test_without_a_repository_git_finds_none(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **git_environment(None, None)}
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, capture_output=True)
    done = subprocess.run(["git", "status"], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode != 0


# -- 7. a decision never raises -----------------------------------------------------------------
def _context(tmp_path: Path) -> ToolContext:
    return ToolContext(mode="plan", root=tmp_path, plan_file=tmp_path / "plan.md")


HOSTILE_INPUTS = [
    "$(echo " * 1500 + ")" * 1500,
    "(" * 9000 + "ls" + ")" * 9000,
    "( " * 4000 + "ls" + " )" * 4000,
    "{ " * 3000 + "ls" + "; }" * 3000,
    "ls && " * 3000 + "ls",
    'echo "$(echo ' * 900 + ')"' * 900,
    "echo $(echo " * 1500 + "$(rm x" + ")" * 1501,
    "ls \ud800",
    "\udfff",
    "cat a\udc80b",
    "ls " + "x" * (MAX_COMMAND_LENGTH + 1),
    "ls {\U000e396a",
    "echo \x00",
]


@pytest.mark.parametrize("command", HOSTILE_INPUTS, ids=range(len(HOSTILE_INPUTS)))
def test_hostile_input_is_a_decision_never_an_exception(command: str, tmp_path: Path) -> None:
    verdict = check(command)
    assert verdict.read_only or verdict.reason
    for rules in ((), ("Bash(rm:*)",)):
        context = ToolContext(
            mode="plan", root=tmp_path, plan_file=tmp_path / "plan.md", deny_rules=rules
        )
        decision = decide("Bash", {"command": command}, context)
        assert decision.behavior in {"allow", "deny"}
    # The helpers permission rules use do not raise either.
    list(simple_commands(command))
    rule_forms(command)
    command_words(command)
    is_single_simple_command(command)


def test_reasons_name_the_hostile_part() -> None:
    assert "surrogate" in denied("ls \ud800")
    assert "longer than" in denied("ls " + "x" * MAX_COMMAND_LENGTH)
    assert "NUL" in denied("echo \x00")
    assert "Basic Multilingual Plane" in denied("ls {\U000e396a")
    allowed("( " * 50 + "ls" + " )" * 50)  # nesting alone is no reason: it is walked, not recursed


def test_a_failing_decision_is_a_deny_naming_the_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from planmode.core import permissions

    def broken(_command: str) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(permissions.shell, "check", broken)
    decision = decide("Bash", {"command": "ls"}, _context(tmp_path))
    assert decision.behavior == "deny"
    assert "RecursionError" in (decision.message or "")
    # plan mode's own rule: the Claude Code hook speaks only for rules starting with "plan."
    assert decision.rule == "plan.error"


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.characters(exclude_categories=()), max_size=60))
def test_any_text_at_all_gets_a_verdict(text: str) -> None:
    verdict = check(text)
    assert verdict.read_only or verdict.reason


# -- 8. awk: the program is read token by token, as awk's lexer reads it ----------------------
AWK_HIDDEN = [
    # a '"' inside a regular expression or a comment is no string
    """awk 'BEGIN{x=/"/;system("touch p")}#"'""",
    """awk '/"/ {print} END {system("touch p")} #"'""",
    """awk '# a "comment\n{ print > "out" }'""",
    """awk '$0 ~ /"/ { "date" | getline d } #"'""",
    """awk 'BEGIN { print "a" } /"/ { print | "sh" } #"'""",
    # a "/" where awks disagree whether it divides or opens a regular expression
    """awk 'BEGIN { print length /"/; system("touch p") #"/ }'""",
    """awk '{ n++ /"/; system("touch p") #"/ }'""",
    """awk '/[/]"/ { system("touch p") } #"'""",
    # escapes inside strings
    """awk 'BEGIN { s = "\\""; system("touch p") }'""",
    """awk 'BEGIN { s = "a\\\\"; system("touch p") }'""",
    """awk 'BEGIN { s = "a\\\n"; system("touch p") }'""",
    # gawk's namespaces and indirect calls
    """awk 'BEGIN { awk::system("touch p") }'""",
    """awk 'BEGIN { f = "system"; @f("touch p") }'""",
]


@pytest.mark.parametrize("command", AWK_HIDDEN)
def test_awk_constructs_hidden_behind_what_looks_like_a_string_are_denied(command: str) -> None:
    denied(command)


def test_the_awk_quote_attack_is_real(tmp_path: Path) -> None:
    """Real awk runs system() behind the '"' of a regular expression: the test above can fail."""
    subprocess.run(
        ["bash", "-c", """awk 'BEGIN{x=/"/;system("touch p")}#"'"""],
        cwd=tmp_path,
        capture_output=True,
        timeout=10,
    )
    assert (tmp_path / "p").exists()


@pytest.mark.parametrize(
    "command",
    [
        """awk '/"/ {print}' f""",
        """awk '$0 ~ /"/ {n++} END {print n} # count "quotes"' f""",
        """awk '{ print $1/2 }' f""",
        """awk 'BEGIN { a = 4; b = 2; print a/b/1 }'""",
        """awk '{ x /= 2; print x }' f""",
        """awk '{ s = "a\\"b"; print s }' f""",
        """awk '/a\\/b/' f""",
        """awk 'NR % 2 == 0 { print }' f""",
        """awk '{ if ($1 ~ /^#/) next; print }' f""",
        """awk '{ a[$1]++ } END { for (k in a) print k, a[k] }' f""",
        """awk 'BEGIN { printf "%d/%d\\n", 1, 2 }'""",
    ],
)
def test_awk_programs_that_only_print_are_allowed(command: str) -> None:
    allowed(command)


# -- 9. git formats: every placeholder read as git reads it ----------------------------------
GIT_FORMATS_THAT_VERIFY = [
    "git log --format='%G?'",
    "git log --format='%+G?'",
    "git log --format='%-GS'",
    "git log --format='% G?'",
    "git log --format='%h%n%GK'",
    "git log --pretty='format:%-GK'",
    "git log --pretty='tformat:%GG'",
    "git log --format='%%%G?'",  # "%%" is a percent sign: %G? follows
    "git log --format='%<(8)%GF'",
    "git log --format='%w(%G?)'",  # no valid %w(): git prints "%w(" and reads %G?
    "git show -s --format='%GP'",
    "git rev-list --format='%GT' HEAD",
    "git log --pretty=evil",  # pretty.evil from configuration may be %G?
    "git log --format=signed",
    "git for-each-ref --format='%(signature)'",
    "git for-each-ref --format '%(signature:grade)'",
    "git for-each-ref --format='%(*signature)'",
    "git branch --format='%(signature)'",
    "git branch --list --format '%(signature)'",
    "git tag -l --format='%(signature:key)'",
    "git for-each-ref --format='%(unknownatom)'",
    "git log --format='%Z'",  # unknown to this git; a later one may give it a meaning
]


@pytest.mark.parametrize("command", GIT_FORMATS_THAT_VERIFY)
def test_git_formats_that_may_verify_signatures_are_denied(command: str) -> None:
    denied(command)


@pytest.mark.parametrize(
    "command",
    [
        "git log --format='%%G?'",  # a literal "%G?"
        "git log --format='%h %an %ad %s%n%b'",
        "git log --format='%C(auto)%h%d %s %C(blue)%an%Creset'",
        "git log --pretty='format:%<(20,trunc)%s|%>|(40)%cr'",
        "git log --format='%x00%H%x09%(trailers:only,unfold)'",
        "git log --pretty=oneline",
        "git log --pretty=fuller -1",
        "git show -s --format=%ci HEAD",
        "git for-each-ref --format='%(refname:short) %(objectname:short) %(upstream:track)'",
        "git for-each-ref --format='%(if)%(HEAD)%(then)*%(else) %(end)%(refname)' refs/heads",
        "git for-each-ref --format='%(contents:signature)' refs/tags",  # the text, not checked
        "git branch --format='%(refname:short)'",
        "git tag -l --format='%(taggerdate:short) %(refname:short)'",
        "git ls-files --format='%(objectname) %(path)'",
        "git log --date=format:%Y-%m-%d --format=%ad",  # --date's format is strftime's
    ],
)
def test_git_formats_that_print_are_allowed(command: str) -> None:
    allowed(command)


def test_a_signature_placeholder_with_a_modifier_runs_gpg(tmp_path: Path) -> None:
    """With a signed commit, %+G? runs gpg.program: the denials above guard a real program."""
    fake_gpg = tmp_path / "gpg"
    marker = tmp_path / "verified"
    fake_gpg.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        '*-bsau*) cat >/dev/null; echo "[GNUPG:] SIG_CREATED D 1 8 00 0 X" >&2;'
        " printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nx\\n-----END PGP SIGNATURE-----\\n';;\n"
        f'*) echo verify >> "{marker}"; cat >/dev/null;;\n'
        "esac\n"
    )
    fake_gpg.chmod(0o755)
    repo = tmp_path / "repo"
    identity = ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "user.signingkey=X"]
    sign = [*identity, "-c", f"gpg.program={fake_gpg}", "commit", "-S", "-qm", "signed"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", *sign, "--allow-empty"], cwd=repo, check=True)
    subprocess.run(["git", "config", "gpg.program", str(fake_gpg)], cwd=repo, check=True)
    subprocess.run(["git", "log", "-1", "--format=%%G?"], cwd=repo, capture_output=True)
    assert not marker.exists()
    subprocess.run(["git", "log", "-1", "--format=%+G?"], cwd=repo, capture_output=True)
    assert marker.exists()
    denied("git log -1 --format=%+G?")


# -- 10. git runs only in the directory the line started in -----------------------------------
GIT_IN_ANOTHER_DIRECTORY = [
    "cd vendor/lib && git status",
    "cd fixtures/evil.git; git status",
    "(cd vendor/lib && git diff)",
    "{ cd vendor/lib; git status; }",
    "for d in vendor/lib; do cd $d; git status; done",
    "for d in . vendor/lib; do git status; cd $d; done",  # the second git runs after the cd
    "git status; cd vendor/lib; git status",
    "echo $(cd vendor/lib && git status)",
    "cd $(git rev-parse --show-toplevel) && git status",
    "cd /usr/lib && /usr/bin/git log",
    "pushd vendor/lib && git status",
    "env -C vendor/lib git status",
    "git -C vendor/lib status",
]


@pytest.mark.parametrize("command", GIT_IN_ANOTHER_DIRECTORY)
def test_git_after_a_change_of_directory_is_denied(command: str) -> None:
    denied(command)


@pytest.mark.parametrize("command", [c for c in GIT_IN_ANOTHER_DIRECTORY[:5] if "vendor/lib" in c])
def test_git_in_another_directory_runs_its_configuration_unsandboxed(
    hostile_workspace: Path, command: str
) -> None:
    """Run as an agent without a sandbox runs it (no git_environment): the committed
    configuration runs, so the classifier must refuse these lines by itself."""
    marker = hostile_workspace.parent / "pwned"
    marker.unlink(missing_ok=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(hostile_workspace.parent)}
    subprocess.run(["bash", "-c", command], cwd=hostile_workspace, env=env, capture_output=True)
    assert marker.exists()
    marker.unlink()


def test_changes_of_directory_without_git_and_git_without_them_are_allowed() -> None:
    allowed("cd server && ls && cat README.md")
    allowed("(cd src; ls) && cat README.md")
    allowed("git log -1 && ls src")


# The same attack over two calls: Claude Code keeps its shell's directory, so `cd vendor/lib`
# (no git: allowed) leaves the next call's plain `git status` running there. The caller says
# where a line runs (checkTool's cwd): git is allowed only where its discovery finds the
# workspace's own repository.
def _planning_in(root: Path, cwd: Path | None = None, unknown: str | None = None) -> ToolContext:
    return ToolContext(
        mode="plan", root=root, plan_file=root / "plan.md", cwd=cwd, cwd_unknown=unknown
    )


def _decide_in(
    root: Path, command: str, cwd: Path | None = None, unknown: str | None = None
) -> Decision:
    return decide("Bash", {"command": command}, _planning_in(root, cwd, unknown))


GIT_LINES = ["git status", "ls && git diff HEAD", "echo $(git log -1)", "cat f | /usr/bin/git log"]


@pytest.mark.parametrize("where", ["vendor/lib", "fixtures/evil.git"])
@pytest.mark.parametrize("command", GIT_LINES)
def test_git_where_the_caller_runs_it_must_find_the_workspace_repository(
    hostile_workspace: Path, where: str, command: str
) -> None:
    decision = _decide_in(hostile_workspace, command, hostile_workspace / where)
    assert decision.behavior == "deny", decision
    assert decision.rule == "plan.bash"
    # The reason names the repository git would open.
    assert f"the repository at {hostile_workspace / where} " in (decision.message or "")
    assert _decide_in(hostile_workspace, "ls", hostile_workspace / where).behavior == "allow"


@pytest.mark.parametrize("where", ["", "vendor", "fixtures"])
def test_git_from_the_root_or_a_plain_folder_in_it_is_allowed(
    hostile_workspace: Path, where: str
) -> None:
    for command in GIT_LINES:
        decision = _decide_in(hostile_workspace, command, hostile_workspace / where)
        assert decision.behavior == "allow", decision
    assert _decide_in(hostile_workspace, "git status").behavior == "allow"  # no cwd: the root


def test_the_attack_an_earlier_cd_leaves_behind_is_real_and_denied(hostile_workspace: Path) -> None:
    """Run as an agent without a sandbox runs it: `cd vendor/lib` alone is allowed; the next
    call's `git status`, run in vendor/lib, runs the nested repository's fsmonitor. Given
    that call's cwd, the decision is a deny; where it is allowed, the line runs none of it."""
    marker = hostile_workspace.parent / "pwned"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(hostile_workspace.parent)}
    vendored = hostile_workspace / "vendor" / "lib"
    assert _decide_in(hostile_workspace, "cd vendor/lib", hostile_workspace).behavior == "allow"
    marker.unlink(missing_ok=True)
    subprocess.run(["bash", "-c", "git status"], cwd=vendored, env=env, capture_output=True)
    assert marker.exists(), "the nested repository's configuration should be live"
    marker.unlink()
    assert _decide_in(hostile_workspace, "git status", vendored).behavior == "deny"
    for where in ("", "vendor", "fixtures"):
        assert _decide_in(hostile_workspace, "git status", hostile_workspace / where).behavior == (
            "allow"
        )
        subprocess.run(
            ["bash", "-c", "git status; git diff"],
            cwd=hostile_workspace / where,
            env=env,
            capture_output=True,
        )
        assert not marker.exists(), (where, marker.read_text())


def test_a_symlinked_directory_counts_where_it_leads(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "workspace", tmp_path / "elsewhere"
    for repository in (root, root / "deps" / "lib", elsewhere):
        repository.mkdir(parents=True)
        subprocess.run(["git", "init", "-q"], cwd=repository, check=True)
    (root / "docs").mkdir()
    (root / "into-lib").symlink_to(root / "deps" / "lib", target_is_directory=True)
    (root / "out").symlink_to(elsewhere, target_is_directory=True)
    (root / "docs-link").symlink_to(root / "docs", target_is_directory=True)
    into = _decide_in(root, "git status", root / "into-lib")
    assert into.behavior == "deny" and str(root / "deps" / "lib") in (into.message or "")
    out = _decide_in(root, "git status", root / "out")
    assert out.behavior == "deny" and "outside the workspace" in (out.message or "")
    assert str(elsewhere) in (out.message or "")
    assert _decide_in(root, "git status", root / "docs-link").behavior == "allow"
    assert _decide_in(root, "git status", tmp_path).behavior == "deny"  # above the root


def _bare_git_directory(directory: Path) -> None:
    """HEAD beside commondir: a worktree's git directory, its objects and refs elsewhere."""
    (directory / "HEAD").write_text("ref: refs/heads/main\n")
    (directory / "commondir").write_text("..\n")


@pytest.mark.parametrize(
    ("make", "named"),
    [
        (lambda d: (d / ".git").write_text("gitdir: /somewhere/else\n"), ".git is a file"),
        (lambda d: (d / ".git").symlink_to("/somewhere/else"), ".git is a symlink"),
        (lambda d: (d / ".git").mkdir(), ".git is a directory"),
        (_bare_git_directory, "bare git directory"),
    ],
)
def test_every_kind_of_repository_on_the_way_is_found(
    tmp_path: Path, make: Callable[[Path], object], named: str
) -> None:
    nested = tmp_path / "a" / "b"
    (nested / "c").mkdir(parents=True)
    make(nested)
    decision = _decide_in(tmp_path, "git log -1", nested / "c")
    assert decision.behavior == "deny" and named in (decision.message or ""), decision


def test_without_a_directory_git_is_denied_only_when_the_caller_should_have_named_one(
    hostile_workspace: Path,
) -> None:
    """A Claude Code call without cwd: its shell may be anywhere, so git is denied (other
    reads are not). A caller that names no directory at all (the CLI, an editor) says the
    line runs at the root."""
    from planmode.agents.claude_code.rules import Caller
    from planmode.core.service import PlanModeService
    from planmode.core.settings import Settings

    unknown = _decide_in(hostile_workspace, "git status", unknown="no cwd")
    assert unknown.behavior == "deny" and "no cwd" in (unknown.message or "")
    assert _decide_in(hostile_workspace, "ls", unknown="no cwd").behavior == "allow"
    service = PlanModeService(hostile_workspace, Settings.model_validate({}))
    session = service.require_session("s1")
    service.enter(session)
    status = {"command": "git status"}
    claude = Caller(hostile_workspace, hostile_workspace.parent / ".claude")
    assert service.check_tool(session, "Bash", status, caller=claude).behavior == "deny"
    here = Caller(hostile_workspace, hostile_workspace.parent / ".claude", hostile_workspace)
    assert service.check_tool(session, "Bash", status, caller=here).behavior == "allow"
    assert service.check_tool(session, "Bash", status).behavior == "allow"
    vendored = str(hostile_workspace / "vendor" / "lib")
    assert service.check_tool(session, "Bash", status, cwd=vendored).behavior == "deny"
    assert service.check_tool(session, "Bash", status, cwd="vendor/lib").behavior == "deny"


# -- 11. package managers read the workspace's configuration: version queries only -----------
@pytest.mark.parametrize(
    "command",
    [
        "npm ls",
        "npm ls --depth=0",
        "npm list --all --json",
        "npm_config_registry=http://127.0.0.1:9/ npm --version",
        "npm_config_logs_dir=/tmp/x npm -v",
        "npm --version --userconfig=./evil",
        "pip list",
        "pip list --disable-pip-version-check",
        "pip show requests",
        "pip freeze",
        "pip3 list --outdated",
        "pip --version --isolated",
    ],
)
def test_package_managers_do_only_their_version_query(command: str) -> None:
    denied(command)


class NpmWorkspace(NamedTuple):
    root: Path
    requests: list[str]  # what the workspace's registry received: path and authorization

    def run(self, command: str) -> list[Path]:
        """Runs ``command`` there with a fresh home; the directories npm wrote into."""
        home, logs = self.root.parent / "home", self.root.parent / "logs"
        for directory in (home, logs):
            shutil.rmtree(directory, ignore_errors=True)
        home.mkdir()
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "PLANMODE_SECRET": "s3cret"}
        subprocess.run(
            ["bash", "-c", command], cwd=self.root, env=env, capture_output=True, timeout=60
        )
        return [d for d in (home, logs) if d.exists() and any(d.iterdir())]


@pytest.fixture(scope="module")
def hostile_npm_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NpmWorkspace]:
    """A project whose .npmrc names its own registry (a local listener), hands it a secret
    from the environment as the registry's token, and says where npm writes its logs."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    requests: list[str] = []

    class Registry(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append(f"{self.path} {self.headers.get('authorization')}")
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Registry)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    registry = f"127.0.0.1:{server.server_address[1]}"
    root = tmp_path_factory.mktemp("npm") / "workspace"
    root.mkdir()
    (root / "package.json").write_text('{"name": "w", "version": "1.0.0"}')
    (root / ".npmrc").write_text(
        f"registry=http://{registry}/\nupdate-notifier=true\n"
        f"//{registry}/:_authToken=${{PLANMODE_SECRET}}\nlogs-dir={root.parent / 'logs'}\n"
    )
    yield NpmWorkspace(root, requests)
    server.shutdown()


def test_npm_ls_writes_and_sends_a_secret_where_the_workspace_says(
    hostile_npm_workspace: NpmWorkspace,
) -> None:
    """Measured: the denials above guard a real leak."""
    hostile_npm_workspace.requests.clear()
    assert hostile_npm_workspace.run("npm ls")
    assert any("Bearer s3cret" in r for r in hostile_npm_workspace.requests)
    denied("npm ls")


@pytest.mark.parametrize(
    "command",
    ["npm --version", "npm -v", "npm_config_logs_dir=../logs npm_config_loglevel=silly npm -v"],
)
def test_npm_version_neither_writes_nor_connects(
    hostile_npm_workspace: NpmWorkspace, command: str
) -> None:
    hostile_npm_workspace.requests.clear()
    assert not hostile_npm_workspace.run(command)
    assert not hostile_npm_workspace.requests


@pytest.mark.parametrize(
    ("arguments", "writes"),
    [
        (["show", "pip"], True),
        (["list", "--disable-pip-version-check"], True),
        (["--version"], False),
        (["-V"], False),
    ],
)
def test_pip_writes_where_its_configuration_says_except_for_its_version(
    tmp_path: Path, arguments: list[str], writes: bool
) -> None:
    """A pip.conf in the running environment's prefix (here PIP_CONFIG_FILE, read the same
    way) names a log file: measured, every command but the version query appends to it."""
    pip = shutil.which("pip") or shutil.which("pip3")
    if pip is None:
        pytest.skip("pip is not installed")
    log = tmp_path / "pip.log"
    config = tmp_path / "pip.conf"
    config.write_text(f"[global]\nlog = {log}\nindex-url = http://127.0.0.1:9/simple\n")
    env = {**os.environ, "PIP_CONFIG_FILE": str(config), "HOME": str(tmp_path)}
    subprocess.run([pip, *arguments], env=env, capture_output=True, timeout=120)
    assert log.exists() is writes
    assert check(" ".join(["pip", *arguments])).read_only is not writes


# -- 12. find -exec and sed scripts: the command run and the script read as the program does --
@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("find . -exec rm {} \\;", "rm"),
        ("find . -execdir rm -rf {} +", "rm"),
        ("find . -exec sort -o out {} \\;", "file names"),  # sort -o: an option could write
        ("find . -exec xargs rm \\;", "file names"),
        ("find . -exec find . -delete \\;", "file names"),
        ("find . -exec git log \\;", "file names"),
        ("find . -exec {} \\;", "runs the files"),
        ("find . -exec ./{} \\;", "runs the files"),
        ("find . -exec grep x {}", "';' or '+'"),
        ("find . -exec grep x {} \\; -delete", "-delete"),
        ("find . -ok cat {} \\;", "-ok"),
        ("find . -okdir cat {} \\;", "-okdir"),
        ("find . -exec $cmd {} \\;", "computed"),
        ("find . -exec cat {} $end rm x \\;", "computed"),
        ("sed 's/a/b/w out' f", "'w'"),
        ("sed 's/a/b/gw out' f", "'w'"),
        ("sed '2{s/a/b/e}' f", "'e'"),
        ("sed -n '1~2w out' f", "'w'"),
        ("sed '0,/x/{w out' -e '}' f", "'w'"),  # -e scripts are joined with newlines
        ("sed '/[/]/w out' f", "bracket"),  # seds disagree where this expression ends
        ("sed 'r /etc/shadow' f", "'r'"),
        ("sed '1{p' f", "unclosed"),
    ],
)
def test_find_exec_and_sed_scripts_that_write_or_run_are_denied(command: str, named: str) -> None:
    assert named in denied(command)


@pytest.mark.parametrize(
    "command",
    [
        "find . -exec grep -l foo {} +",
        "find . -type f -execdir wc -l {} \\;",
        "find . -exec grep + {} \\;",  # "+" ends the command only right after {}
        "find . -exec /usr/bin/cat {} \\; -print",
        "sed -n '10,+5p' f",
        "sed -n '5,~4p' f",
        "sed -n '$p' f",
        "sed -n '/a/I,/b/Mp' f",
        "sed -n '\\%/usr%p' f",
        "sed ':a;N;$!ba;s/\\n/ /g' f",
        "sed -e '1{' -e 'p' -e '}' f",
        "sed 'y/abc/xyz/;1!G;h;$!d' f",
        "sed -E 's/(a|b)+/[&]/2;tx;s/^/-/;:x' f",
        "sed '#n\n/x/p' f",
    ],
)
def test_find_exec_into_readers_and_gnu_sed_scripts_are_allowed(command: str) -> None:
    allowed(command)


# -- the over-denials cut: what agents read while planning --------------------------------------
def test_the_corpus_of_agent_reads_is_large() -> None:
    assert len(AGENT_READS) >= 150
    assert len(set(AGENT_READS)) == len(AGENT_READS)


@pytest.mark.parametrize("command", AGENT_READS)
def test_plainly_read_only_commands_are_allowed(command: str) -> None:
    allowed(command)


@pytest.mark.parametrize(
    "command",
    [
        "cat <<'EOF' | grep x\nbody\nEOF",
        'cat <<"EOF"\n$(rm x)\nEOF',
        "cat <<\\EOF\n`rm x`\nEOF\n",
        "cat <<EOF\nno expansions here\nEOF",
    ],
)
def test_here_documents_bash_does_not_expand_are_allowed(command: str) -> None:
    allowed(command)


@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("cat <<EOF\n$(rm x)\nEOF", "expands"),
        ("cat <<EOF\n`rm x`\nEOF", "expands"),
        ("cat <<'EOF'\nEOF \nrm x\nEOF", "split"),  # "EOF " is not the delimiter for bash
        ("cat <<'EOF'\nhi\nEOF\nrm x", "end"),
        ("cat <<'EOF'\nEOF\nrm x\nEOF", "end"),
        ("cat <<-'EOF'\n\thi\n\tEOF", "<<-"),
        ("cat <<'A' <<'B'\na\nA\nb\nB", ""),
        ("cat <<'E;F'\nx\nE;F", "delimiter"),
        ("cat <<'EOF' > out.txt\nx\nEOF", "writes"),
        ("sh <<'EOF'\nrm x\nEOF", "sh"),
    ],
)
def test_here_documents_bash_would_read_differently_are_denied(command: str, named: str) -> None:
    assert named in denied(command)
