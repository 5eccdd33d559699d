"""A user's deny rule wins in every mode: settings rules see every command bash would run.

``Bash(rm:*)`` denied must deny a line that runs ``rm`` wherever bash finds the command — after
a ``#`` glued to a word, in a parameter expansion's word, in a here-document that expands, in
arithmetic, a subscript, a trap, an alias, a wrapper… Where the rule side cannot enumerate
the commands with certainty, deny and ask rules treat the line as covered and allow rules do
not match it (docs/read-only-bash.md, "Permission rules"). Real bash runs these lines in
tests/unit/test_shell_bash_agrees.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planmode.core.modes import PERMISSION_MODES
from planmode.core.permissions import ToolContext, decide
from planmode.core.shell import is_single_simple_command, rule_forms, simple_commands

# Each runs `rm` (bash 5.2, non-interactive), in a place a simple walk over the tree misses.
HIDDEN_RM = [
    # after a redirection the tree reads as taking the next line's words (found by hypothesis)
    "echo 2>/dev/null\n\\rm -rf src",
    "ls a2>f\nrm -rf src",
    # after a "#" bash does not read as a comment
    "[ -d src ]#; rm -rf src",
    "ls#; rm -rf src",
    "echo a#b; rm x",
    # in the words of parameter expansions
    "echo ${HOME#$(rm -rf src)}",
    "echo ${HOME%`rm -rf src`}",
    "echo ${x:-$(rm -rf src)}",
    "echo \"${x:-'$(rm -rf src)'}\"",  # single quotes quote nothing inside "${…}"
    'echo "${x:-`rm -rf src`}"',
    "echo ${x/$(rm -rf src)/y}",
    "echo ${x:$(rm -rf src)}",
    "echo ${!x}",  # x='a[$(rm -rf src)]' is evaluated
    "echo ${x@P}",  # a prompt expansion runs command substitutions
    # command and process substitutions in any word position
    "ls > $(rm -rf src)",
    "cat < <(rm -rf src)",
    "cat <<< $(rm -rf src)",
    "x=$(rm -rf src) ls",
    "for f in $(rm -rf src); do ls; done",
    "case $(rm -rf src) in x) ls;; esac",
    "case x in $(rm -rf src)) ls;; esac",
    "[[ $(rm -rf src) == x ]]",
    "[[ x =~ `rm -rf src` ]]",
    "f() { rm -rf src; }; f",
    "echo $(echo $(echo `rm -rf src`))",
    # here-documents that expand
    "cat <<EOF\n$(rm -rf src)\nEOF",
    "cat <<EOF\n`rm -rf src`\nEOF",
    "cat <<EOF\n${x:-`rm -rf src`}\nEOF",
    "cat <<-EOF\n\t`rm -rf src`\n\tEOF",
    "cat <<'EOF'\nEOF \nEOF\nrm -rf src",
    "cat <<EOF\nx\nEOF\nrm -rf src",
    # arithmetic and subscripts: variables' values are evaluated, subscripts run commands
    "echo $(( $(rm -rf src) ))",
    "echo $((x))",
    "echo $[x]",
    "(( x ))",
    "for ((i = x; i < 1; i++)); do ls; done",
    "[[ x -eq 1 ]]",
    "a[$(rm -rf src)]=1",
    "echo ${a[$(rm -rf src)]}",
    "let x",
    "read 'a[$(rm -rf src)]' < /dev/null",
    "printf -v 'a[$(rm -rf src)]' x",
    "test -v 'a[$(rm -rf src)]'",
    "[ -v 'a[$(rm -rf src)]' ]",
    "unset 'a[$(rm -rf src)]'",
    "declare 'a[$(rm -rf src)]=1'",
    "declare -i x; x='a[$(rm -rf src)]'",
    "declare -n r='a[$(rm -rf src)]'; echo $r",
    "mapfile -C 'rm -rf src' -c 1 < f",
    # code that builtins run later
    "trap 'rm -rf src' EXIT",
    "alias ls='rm -rf src'",
    "PS4='$(rm -rf src)'; set -x; ls",
    "hash -p /bin/rm ls; ls -rf src",
    "eval 'rm -rf src'",
    "fc -s rm",
    'eval "$cmd"',
    "bash -c 'rm -rf src'",
    'sh -c "$cmd"',
    # wrappers and runners, whatever their options take
    "timeout -s KILL 5 rm -rf src",
    "exec -a name rm -rf src",
    "sudo -u root rm -rf src",
    "nice -n 5 rm -rf src",
    "env -S 'rm -rf src'",
    "env -u HOME rm -rf src",
    "xargs -I{} rm -rf {}",
    "find . -exec rm -rf {} \\;",
    "find . -execdir rm {} +",
    "find . -exec {} \\;",
    "watch -n 1 rm -rf src",
    "su -c 'rm -rf src'",
    "coproc rm -rf src",
    "$(echo rm) -rf src",
    "/bin/r\\m -rf src",
]
# Lines that run no rm and are read with certainty: a deny rule for rm lets them through.
CERTAIN_WITHOUT_RM = [
    "git status",
    "ls -la # rm is mentioned in a comment",
    "[ -f x ] && cat x",
    'for f in *.py; do wc -l "$f"; done',
    "export FOO=bar && npm test",
    "local a; read -r line < f",
    "echo ${x%.py} ${x:-default} $((1 + 2))",
    "printf '%s\\n' \"$x\"",
    "git commit -m \"$(cat <<'EOF'\nrm -rf src is only text here\nEOF\n)\"",
    "cat <<'EOF'\n$(rm -rf src) `rm -rf src`\nEOF",
    "cat <<-EOF\n\tplain\n\tEOF",
    "cat <<EOF > f\nplain\nEOF\ngit add f",
    "echo $PS4",
]


def _context(tmp_path: Path, mode: str, **rules: tuple[str, ...]) -> ToolContext:
    return ToolContext(
        mode=mode,  # type: ignore[arg-type]
        root=tmp_path,
        plan_file=tmp_path / "plan.md",
        **rules,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("command", HIDDEN_RM)
def test_a_deny_rule_wins_wherever_bash_finds_the_command(tmp_path: Path, command: str) -> None:
    for mode in PERMISSION_MODES:
        context = _context(tmp_path, mode, deny_rules=("Bash(rm:*)",))
        decision = decide("Bash", {"command": command}, context)
        assert decision.behavior == "deny", (mode, command, decision)
        # While planning, plan mode's own deny of the line comes first (the hook reports it).
        assert decision.rule == ("plan.bash" if mode == "plan" else "settings.deny")


@pytest.mark.parametrize("command", HIDDEN_RM)
def test_an_ask_rule_asks_and_an_allow_rule_never_allows(tmp_path: Path, command: str) -> None:
    asking = _context(tmp_path, "default", ask_rules=("Bash(rm:*)",))
    assert decide("Bash", {"command": command}, asking).behavior == "ask"
    program = command.split()[0]
    allowing = _context(tmp_path, "default", allow_rules=(f"Bash({program}:*)", "Bash(rm:*)"))
    if decide("Bash", {"command": command}, allowing).rule == "settings.allow":
        # an allow rule may allow only a single simple command it wholly covers
        assert is_single_simple_command(command), command
        assert all(p.startswith(("rm", program)) for p in simple_commands(command))


@pytest.mark.parametrize("command", CERTAIN_WITHOUT_RM)
def test_a_deny_rule_does_not_cover_lines_known_to_run_no_such_command(
    tmp_path: Path, command: str
) -> None:
    forms = rule_forms(command)
    assert forms is not None, command
    assert not any(f == "rm" or f.startswith("rm ") for f in forms), forms
    context = _context(tmp_path, "bypassPermissions", deny_rules=("Bash(rm:*)",))
    assert decide("Bash", {"command": command}, context).behavior == "allow"


@pytest.mark.parametrize(
    ("command", "seen"),
    [
        ("echo ${x:-$(rm a)}", "rm a"),
        ("ls > $(rm a)", "rm a"),
        ("cat <(rm a)", "rm a"),
        ("case x in $(rm a)) ls;; esac", "rm a"),
        ("[[ $(rm a) == x ]]", "rm a"),
        ("cat <<EOF\n$(rm a)\nEOF", "rm a"),
        ("f() { rm a; }", "rm a"),
        ("trap 'rm a' EXIT", "rm a"),
        ("alias x='rm a'", "rm a"),
        ("timeout -s KILL 5 rm a", "rm a"),
        ("exec -a name rm a", "rm a"),
        ("env -S 'rm a'", "rm a"),
        ("find . -exec rm a {} \\;", "rm a {}"),
        ("xargs -0 rm a", "rm a"),
        ("watch -n 1 rm a", "rm a"),
    ],
)
def test_commands_in_every_position_are_seen(command: str, seen: str) -> None:
    forms = rule_forms(command)
    assert forms is not None and seen in forms, forms


@pytest.mark.parametrize(
    "command",
    [
        "[ -d src ]#; rm -rf src",
        "echo ${HOME#$(rm -rf src)}",
        "echo \"${x:-'$(rm -rf src)'}\"",
        "cat <<EOF\n`rm -rf src`\nEOF",
        "echo $((x))",
        "a[$(rm x)]=1",
        "read 'a[$(rm x)]'",
        "PS4='$(rm x)'; set -x; ls",
    ],
)
def test_where_commands_cannot_be_enumerated_the_line_is_uncertain(command: str) -> None:
    assert rule_forms(command) is None
    assert list(simple_commands(command)) == []
    assert not is_single_simple_command(command)


def test_an_allow_rule_does_not_match_an_uncertain_line(tmp_path: Path) -> None:
    context = _context(tmp_path, "default", allow_rules=("Bash(echo:*)",))
    assert decide("Bash", {"command": "echo hi"}, context).rule == "settings.allow"
    hidden = decide("Bash", {"command": "echo ${HOME#$(rm -rf src)}"}, context)
    assert hidden.behavior == "ask" and hidden.rule != "settings.allow"


def test_a_wrapper_with_very_many_words_is_uncertain() -> None:
    assert rule_forms("sudo " + " ".join(["x"] * 100)) is None
    assert rule_forms("sudo " + " ".join(["sudo"] * 40) + " rm x") is not None
