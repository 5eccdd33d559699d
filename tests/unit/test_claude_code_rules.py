"""Plan mode never allows what Claude Code's own rules or prompts would not (docs/claude-code.md,
"The user's own rules"): a vouched allow of a call from Claude Code becomes Claude Code's own
deny or ask where a deny or ask rule of its settings covers the call, or where the call names
a file outside its working directories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planmode.agents.claude_code.rules import Caller
from planmode.core.approval import AllowedPrompt
from planmode.core.permissions import Decision
from planmode.core.rules import path_rule_covers
from planmode.core.service import PlanModeService
from planmode.core.session import Session
from planmode.core.shell.paths import Operand, operands
from tests.unit.conftest import ServiceFactory


@pytest.fixture
def workspace(root: Path, fake_home: Path, tmp_path: Path) -> dict[str, Path]:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print(1)\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("notes\n")
    (root / "link").symlink_to(outside)
    (fake_home / ".ssh").mkdir()
    (fake_home / ".ssh" / "id_rsa").write_text("KEY\n")
    return {"root": root, "home": fake_home, "outside": outside, "managed": tmp_path / "managed"}


def settings(path: Path, **permissions: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": permissions}))


def caller(where: dict[str, Path], cwd: Path | None = None) -> Caller:
    return Caller(where["root"], where["home"] / ".claude", cwd, where["managed"])


def planning(make_service: ServiceFactory) -> tuple[PlanModeService, Session]:
    service = make_service()
    session = service.session("s1")
    assert session is not None
    service.enter(session)
    return service, session


def check(
    service: PlanModeService,
    session: Session,
    where: dict[str, Path],
    tool: str,
    tool_input: dict[str, Any],
    cwd: Path | None = None,
) -> Decision:
    return service.check_tool(session, tool, tool_input, caller=caller(where, cwd))


def bash(command: str) -> dict[str, Any]:
    return {"command": command, "description": "x"}


@pytest.mark.parametrize("place", ["user", "project", "local", "managed", "drop-in"])
def test_a_deny_rule_in_any_of_claude_codes_settings_files_is_claude_codes_to_apply(
    make_service: ServiceFactory, workspace: dict[str, Path], place: str
) -> None:
    files = {
        "user": workspace["home"] / ".claude" / "settings.json",
        "project": workspace["root"] / ".claude" / "settings.json",
        "local": workspace["root"] / ".claude" / "settings.local.json",
        "managed": workspace["managed"] / "managed-settings.json",
        "drop-in": workspace["managed"] / "managed-settings.d" / "10-policy.json",
    }
    settings(files[place], deny=["Read(~/.ssh/**)", "Bash(cat:*)"])
    service, session = planning(make_service)
    denied = check(service, session, workspace, "Bash", bash("cat src/app.py"))
    # Not vouched: the hook says nothing and Claude Code applies its rule itself.
    assert (denied.behavior, denied.rule, denied.vouched) == ("deny", "claudeCode.deny", False)
    assert denied.message == (
        f"Denied by Claude Code's deny rule 'Bash(cat:*)' in {files[place]}: Bash is not "
        "permitted (Claude Code denies it itself)"
    )
    # Claude Code applies its Read rules to the files a Bash line names (measured).
    key = workspace["home"] / ".ssh" / "id_rsa"
    assert check(service, session, workspace, "Bash", bash(f"head {key}")).rule == (
        "claudeCode.deny"
    )
    assert check(service, session, workspace, "Bash", bash("head ~/.ssh/id_rsa")).rule == (
        "claudeCode.deny"
    )
    # Another line is still plan mode's to allow; without Claude Code (another agent, the
    # CLI) the rules of this module do not apply.
    assert check(service, session, workspace, "Bash", bash("head src/app.py")).rule == "plan.bash"
    assert service.check_tool(session, "Bash", bash("cat src/app.py")).rule == "plan.bash"


def test_an_ask_rule_makes_claude_code_ask(
    make_service: ServiceFactory, workspace: dict[str, Path]
) -> None:
    config = workspace["home"] / ".claude" / "settings.json"
    settings(config, ask=["Bash(wc:*)", "Agent(Explore)", "Read(./src/secret.txt)"])
    service, session = planning(make_service)
    asked = check(service, session, workspace, "Bash", bash("wc -l src/app.py"))
    assert (asked.behavior, asked.rule) == ("ask", "claudeCode.ask")
    assert asked.message == (
        f"Claude Code's ask rule 'Bash(wc:*)' in {config} covers this Bash call: Claude Code "
        "asks the user."
    )
    explore = {"subagent_type": "Explore", "prompt": "look"}
    for tool in ("Agent", "Task"):
        assert check(service, session, workspace, tool, explore).rule == "claudeCode.ask"
    assert check(service, session, workspace, "Bash", bash("cat src/secret.txt")).rule == (
        "claudeCode.ask"
    )
    assert check(service, session, workspace, "Agent", {"subagent_type": "Plan"}).rule == (
        "plan.agent"
    )


@pytest.mark.parametrize(
    "rule",
    ["Bash(cat", 42, None, "Read(", "not a rule at all"],
)
def test_a_rule_that_cannot_be_read_covers_every_call(
    make_service: ServiceFactory, workspace: dict[str, Path], rule: object
) -> None:
    settings(workspace["root"] / ".claude" / "settings.json", deny=[rule])
    service, session = planning(make_service)
    assert check(service, session, workspace, "Bash", bash("ls src")).rule == "claudeCode.deny"


@pytest.mark.parametrize(
    "text",
    ["{not json", '{"permissions": []}', '{"permissions": {"ask": "Bash"}}', "[1]"],
)
def test_a_settings_file_that_cannot_be_read_leaves_every_call_to_claude_code(
    make_service: ServiceFactory, workspace: dict[str, Path], text: str
) -> None:
    path = workspace["root"] / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text(text)
    service, session = planning(make_service)
    asked = check(service, session, workspace, "Bash", bash("ls src"))
    assert (asked.behavior, asked.rule) == ("ask", "claudeCode.ask")
    assert str(path) in (asked.message or "")
    # An empty file is no settings at all, as for Claude Code.
    path.write_text("")
    assert check(service, session, workspace, "Bash", bash("ls src")).rule == "plan.bash"


@pytest.mark.parametrize(
    "command",
    [
        "head {outside}/notes.txt",
        "ls {outside}",
        "cat < {outside}/notes.txt",
        "grep -r x --file={outside}/notes.txt src",
        "ls -I{outside} src",
        "ls ..",
        "ls src/../..",
        "head link/notes.txt",
        "ls link",
        "head */notes.txt",
        "ls ~",
        "ls $HOME",
        'head "$x"',
        "ls $(pwd)",
        "ls .*",
        "cd && cat .bashrc",
        "cd - && ls",
        "cd link && ls",
        "grep Seccomp: /proc/self/status",
        "head -c 10 /dev/null",
        # Every word counts, whatever the program makes of it: Claude Code knows grep's
        # pattern is none and runs this unasked; plan mode leaves it to Claude Code.
        "grep -r /etc src",
    ],
)
def test_a_line_that_may_read_outside_claude_codes_working_directories_is_claude_codes_to_ask(
    make_service: ServiceFactory, workspace: dict[str, Path], command: str
) -> None:
    """Claude Code asks before a Bash line reads outside its working directories, and a hook's
    allow would skip that question (measured)."""
    service, session = planning(make_service)
    line = command.format(outside=workspace["outside"])
    decision = check(service, session, workspace, "Bash", bash(line))
    assert (decision.behavior, decision.rule) == ("ask", "claudeCode.workingDirectories"), decision
    assert str(workspace["root"]) in (decision.message or "")


@pytest.mark.parametrize(
    "command",
    [
        "ls src",
        "head src/app.py",
        "ls src/*.py",
        "grep -rn 'a b' --include='*.py' . 2>/dev/null",
        "ls src 2>&1 | head -n 3",
        "cd src && ls",
        "cd {root}/src && ls",
        "git log --oneline -3 HEAD~1",
        "cat <<'EOF'\n$HOME /etc/passwd\nEOF",
    ],
)
def test_a_line_inside_the_project_is_still_plan_modes_to_allow(
    make_service: ServiceFactory, workspace: dict[str, Path], command: str
) -> None:
    service, session = planning(make_service)
    line = command.format(root=workspace["root"])
    # Claude Code's shell in the project root, as its hook says (its cwd).
    decision = check(service, session, workspace, "Bash", bash(line), workspace["root"])
    assert (decision.behavior, decision.rule) == ("allow", "plan.bash"), decision


def test_additional_directories_are_working_directories_too(
    make_service: ServiceFactory, workspace: dict[str, Path]
) -> None:
    service, session = planning(make_service)
    line = bash(f"head {workspace['outside']}/notes.txt")
    assert check(service, session, workspace, "Bash", line).rule == "claudeCode.workingDirectories"
    settings(
        workspace["root"] / ".claude" / "settings.json",
        additionalDirectories=[str(workspace["outside"]), "relative/ignored"],
    )
    assert check(service, session, workspace, "Bash", line).rule == "plan.bash"
    assert check(service, session, workspace, "Bash", bash("head link/notes.txt")).rule == (
        "plan.bash"
    )
    # /proc/self as one: what Claude Code needs not to ask for `grep … /proc/self/status`.
    settings(workspace["root"] / ".claude" / "settings.json", additionalDirectories=["/proc/self"])
    status = bash("grep Seccomp: /proc/self/status")
    assert check(service, session, workspace, "Bash", status).rule == "plan.bash"


def test_relative_paths_are_read_from_claude_codes_shell_directory(
    make_service: ServiceFactory, workspace: dict[str, Path]
) -> None:
    """The hook payload's cwd follows Claude Code's shell after a `cd` (measured)."""
    src = workspace["root"] / "src"
    (src / "away").symlink_to(workspace["outside"])
    service, session = planning(make_service)
    line = bash("head away/notes.txt")
    assert check(service, session, workspace, "Bash", line, cwd=src).rule == (
        "claudeCode.workingDirectories"
    )
    assert check(service, session, workspace, "Bash", bash("cat app.py"), cwd=src).rule == (
        "plan.bash"
    )


def test_an_ask_keeps_the_sandbox_for_when_the_user_allows_the_call(
    make_service: ServiceFactory, workspace: dict[str, Path]
) -> None:
    service, session = planning(make_service)
    if service.sandbox.mechanism is None:
        pytest.skip(f"no sandbox here: {service.sandbox.detail}")
    line = bash(f"head {workspace['outside']}/notes.txt")
    asked = check(service, session, workspace, "Bash", line)
    assert (asked.behavior, asked.rule) == ("ask", "claudeCode.workingDirectories")
    assert asked.sandbox is not None and asked.sandbox.prefix
    settings(workspace["root"] / ".claude" / "settings.json", deny=["Bash(head:*)"])
    assert check(service, session, workspace, "Bash", line).sandbox is None


def test_claude_codes_own_plan_file_outside_the_project_is_written_unless_a_rule_says_no(
    make_service: ServiceFactory, workspace: dict[str, Path]
) -> None:
    """Claude Code writes its own plan file without asking wherever it is (measured), so plan
    mode may vouch for it outside the project; a deny or ask rule over it is Claude Code's."""
    service, session = planning(make_service)
    plans = workspace["home"] / ".claude" / "plans"
    plans.mkdir(parents=True)
    session.plan_file = plans / "plan-a-thing-quiet-river.md"
    write = {"file_path": str(session.plan_file), "content": "# Plan\n"}
    assert check(service, session, workspace, "Write", write).rule == "plan.planFile"
    settings(workspace["home"] / ".claude" / "settings.json", ask=["Edit(~/.claude/plans/**)"])
    asked = check(service, session, workspace, "Write", write)
    assert (asked.behavior, asked.rule) == ("ask", "claudeCode.ask")


def test_a_plan_file_of_plan_modes_own_outside_the_project_is_claude_codes_to_ask(
    make_service: ServiceFactory, workspace: dict[str, Path]
) -> None:
    """Claude Code's project may be a directory inside the workspace: the workspace's plans
    directory is then outside it, and Claude Code would ask before writing there."""
    service, session = planning(make_service)
    (workspace["root"] / "sub").mkdir()
    plan = service.plan_path(session)
    write = {"file_path": str(plan), "content": "# Plan\n"}
    assert check(service, session, workspace, "Write", write).rule == "plan.planFile"
    sub = {**workspace, "root": workspace["root"] / "sub"}
    assert check(service, session, sub, "Write", write).rule == "claudeCode.workingDirectories"


def test_a_granted_prompt_is_bound_by_claude_codes_rules_too(
    make_service: ServiceFactory, workspace: dict[str, Path]
) -> None:
    service = make_service()
    session = service.session("s1")
    assert session is not None
    service.set_mode(session, "acceptEdits")
    session.granted_prompts = (AllowedPrompt(tool="Bash", prompt="run tests"),)
    assert check(service, session, workspace, "Bash", bash("pytest -q")).rule == "grant"
    settings(workspace["root"] / ".claude" / "settings.json", deny=["Edit(src/**)"])
    assert check(service, session, workspace, "Bash", bash("pytest -q src")).rule == (
        "claudeCode.deny"
    )
    assert check(service, session, workspace, "Bash", bash("pytest -q /tmp")).rule == (
        "claudeCode.workingDirectories"
    )


def test_what_plan_mode_does_not_vouch_for_is_left_as_it_was(
    make_service: ServiceFactory, workspace: dict[str, Path]
) -> None:
    settings(workspace["root"] / ".claude" / "settings.json", deny=["Bash(rm:*)"])
    service, session = planning(make_service)
    outside = {"file_path": str(workspace["outside"] / "notes.txt")}
    # Reading tools: the hook is silent on them anyway, Claude Code decides.
    assert check(service, session, workspace, "Read", outside).rule == "plan.readOnly"
    # Plan mode's own denies stand.
    assert check(service, session, workspace, "Bash", bash("rm -rf /")).behavior == "deny"
    write = {"file_path": str(workspace["root"] / "src" / "app.py"), "content": ""}
    assert check(service, session, workspace, "Write", write).rule == "plan.planFile"
    assert check(service, session, workspace, "Write", write).behavior == "deny"


# -- the pieces ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("pattern", "path", "covered"),
    [
        ("~/.ssh/**", "HOME/.ssh/id_rsa", True),
        ("~/.ssh", "HOME/.ssh/id_rsa", True),
        ("~/.ssh/**", "HOME/.sshx", False),
        ("//etc/passwd", "/etc/passwd", True),
        ("/src/**", "ROOT/src/app.py", True),
        ("/src/**", "/src/x", True),
        ("src/**", "ROOT/src/app.py", True),
        ("./src/**", "ROOT/src/app.py", True),
        ("src/**", "ROOT/lib/app.py", False),
        (".env", "ROOT/deep/down/.env", True),
        ("*.pem", "ROOT/certs/a.pem", True),
        ("src/*.py", "ROOT/src/deep/a.py", False),
        ("**", "/anything", True),
        ("src/[ab].py", "ROOT/lib/x", True),
        ("{a,b}/x", "ROOT/lib/x", True),
        ("~other/x", "/elsewhere", True),
        ("src/**", "ROOT/link/x", False),
    ],
)
def test_path_patterns_cover_every_reading_claude_code_may_have(
    workspace: dict[str, Path], pattern: str, path: str, covered: bool
) -> None:
    raw = path.replace("HOME", str(workspace["home"])).replace("ROOT", str(workspace["root"]))
    assert path_rule_covers(pattern, raw, workspace["root"]) is covered


def test_a_symlink_is_covered_under_the_name_and_the_target(workspace: dict[str, Path]) -> None:
    through = str(workspace["root"] / "link" / "notes.txt")
    assert path_rule_covers("link/**", through, workspace["root"])
    assert path_rule_covers(f"/{workspace['outside']}/**", through, workspace["root"])


def test_the_operands_of_a_line_are_every_word_but_the_programs() -> None:
    found = operands("cat < /a 2>/dev/null >&2 | head -n 3 <<< 'x' && ls *.py 2>&1 >out")
    assert found is not None
    assert found.words == [
        Operand("/a", "/a"),
        Operand("-n", "-n"),
        Operand("3", "3"),
        Operand("x", "'x'"),
        Operand(None, "*.py"),
        Operand("out", "out"),
    ]
    assert not found.unnamed_directory
    loop = operands('for f in a /b; do head "$f"; done; [[ -f /c ]]; x=/d ls')
    assert loop is not None
    assert [w.value for w in loop.words] == ["a", "/b", None, "/c", "/d"]
    assert operands("cat <<EOF\n/etc/passwd\nEOF") == ([], False)
    for moves in ("cd", "cd && ls", "cd -", "pushd", "popd", "builtin cd", "cd -P"):
        found = operands(moves)
        assert found is not None and found.unnamed_directory, moves
    assert operands("cd src") == ([Operand("src", "src")], False)
    assert operands("echo 'unterminated") is None
