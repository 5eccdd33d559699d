"""The permission table (docs/protocol.md §6) over ``decide()``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planmode.core.approval import AllowedPrompt
from planmode.core.paths import UnsafePath, resolve_path
from planmode.core.permissions import (
    Decision,
    ToolContext,
    decide,
    plan_path_refusal,
    prompt_allows,
)

SLUG = "bold-eagle"


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """A workspace with a plan file, business code, symlinks in and around the plans dir."""
    root = (tmp_path / "workspace").resolve()
    plans = root / ".claude" / "plans"
    plans.mkdir(parents=True)
    (root / "src").mkdir()
    app = root / "src" / "app.py"
    app.write_text("print('hi')\n")
    plan = plans / f"{SLUG}.md"
    plan.write_text("# Plan\n")
    (root / "plans-link").symlink_to(plans, target_is_directory=True)
    (plans / "notes.md").symlink_to(app)
    return {"root": root, "plans": plans, "plan": plan, "app": app}


def context(layout: dict[str, Path], mode: str = "plan", **extra: Any) -> ToolContext:
    agent = extra.get("agent_id")
    plan = layout["plans"] / (f"{SLUG}-agent-{agent}.md" if agent else f"{SLUG}.md")
    return ToolContext(mode=mode, root=layout["root"], plan_file=plan, **extra)  # type: ignore[arg-type]


def run(layout: dict[str, Path], tool: str, tool_input: Any, **ctx: Any) -> Decision:
    mode = ctx.pop("mode", "plan")
    return decide(tool, tool_input, context(layout, mode, **ctx))


# (id, tool, input or a function of the layout, expected behavior, context overrides)
PLAN_TABLE: list[tuple[str, str, Any, str, dict[str, Any]]] = [
    ("read", "Read", {"file_path": "src/app.py"}, "allow", {}),
    ("read-outside-root", "Read", {"file_path": "/etc/passwd"}, "allow", {}),
    ("glob", "Glob", {"pattern": "**/*.py"}, "allow", {}),
    ("grep", "Grep", {"pattern": "x"}, "allow", {}),
    ("ls", "LS", {"path": "."}, "allow", {}),
    ("webfetch", "WebFetch", {"url": "https://example.com"}, "allow", {}),
    ("websearch", "WebSearch", {"query": "x"}, "allow", {}),
    ("ask-user", "AskUserQuestion", {"questions": []}, "allow", {}),
    ("todo", "TodoWrite", {"todos": []}, "allow", {}),
    ("write-plan-absolute", "Write", lambda p: {"file_path": str(p["plan"])}, "allow", {}),
    ("edit-plan-absolute", "Edit", lambda p: {"file_path": str(p["plan"])}, "allow", {}),
    ("multiedit-plan", "MultiEdit", lambda p: {"file_path": str(p["plan"])}, "allow", {}),
    ("write-plan-relative", "Write", {"file_path": f".claude/plans/{SLUG}.md"}, "allow", {}),
    (
        "write-plan-dotdot",
        "Write",
        {"file_path": f"src/../.claude/./plans/../plans/{SLUG}.md"},
        "allow",
        {},
    ),
    ("write-plan-symlinked-dir", "Write", {"file_path": f"plans-link/{SLUG}.md"}, "allow", {}),
    ("write-business-file", "Write", {"file_path": "src/app.py"}, "deny", {}),
    ("edit-business-file", "Edit", {"file_path": "src/app.py"}, "deny", {}),
    ("write-plans-dir", "Write", lambda p: {"file_path": str(p["plans"])}, "deny", {}),
    ("write-trailing-slash", "Write", lambda p: {"file_path": f"{p['plan']}/"}, "deny", {}),
    ("write-nul", "Write", lambda p: {"file_path": f"{p['plan']}\x00"}, "deny", {}),
    ("write-other-case", "Write", {"file_path": f".claude/plans/{SLUG.upper()}.md"}, "deny", {}),
    ("write-other-case-ext", "Write", {"file_path": f".claude/plans/{SLUG}.MD"}, "deny", {}),
    ("write-tilde", "Write", {"file_path": f"~/.claude/plans/{SLUG}.md"}, "deny", {}),
    ("write-outside-root", "Write", {"file_path": "/tmp/evil.md"}, "deny", {}),
    ("write-parent-escape", "Write", {"file_path": "../outside.md"}, "deny", {}),
    ("write-symlink-in-plans", "Write", {"file_path": ".claude/plans/notes.md"}, "deny", {}),
    ("write-no-path", "Write", {}, "deny", {}),
    ("write-path-not-string", "Write", {"file_path": 3}, "deny", {}),
    ("write-empty-path", "Write", {"file_path": ""}, "deny", {}),
    (
        "agent-own-plan",
        "Write",
        {"file_path": f".claude/plans/{SLUG}-agent-a1.md"},
        "allow",
        {"agent_id": "a1"},
    ),
    (
        "agent-main-plan",
        "Write",
        {"file_path": f".claude/plans/{SLUG}.md"},
        "deny",
        {"agent_id": "a1"},
    ),
    (
        "main-writes-agent-plan",
        "Write",
        {"file_path": f".claude/plans/{SLUG}-agent-a1.md"},
        "deny",
        {},
    ),
    ("notebook-edit", "NotebookEdit", {"notebook_path": "x.ipynb"}, "deny", {}),
    ("bash-ls", "Bash", {"command": "ls"}, "allow", {}),
    ("bash-read-pipeline", "Bash", {"command": "git log | head"}, "allow", {}),
    ("bash-rm", "Bash", {"command": "rm file"}, "deny", {}),
    ("bash-redirect", "Bash", {"command": "echo x > f"}, "deny", {}),
    ("bash-no-command", "Bash", {}, "deny", {}),
    ("bash-command-not-string", "Bash", {"command": ["ls"]}, "deny", {}),
    ("agent-explore", "Agent", {"subagent_type": "Explore"}, "allow", {}),
    ("task-plan", "Task", {"subagent_type": "Plan"}, "allow", {}),
    ("agent-general", "Agent", {"subagent_type": "general-purpose"}, "deny", {}),
    ("task-missing-type", "Task", {}, "deny", {}),
    ("exit-plan-mode", "ExitPlanMode", {}, "ask", {}),
    ("exit-plan-mode-teammate", "ExitPlanMode", {}, "allow", {"is_teammate": True}),
    ("enter-plan-mode-agent", "EnterPlanMode", {}, "deny", {"agent_id": "a1"}),
    ("unknown-tool", "Frobnicate", {}, "deny", {}),
    ("task-create", "TaskCreate", {"subject": "x", "description": "y"}, "allow", {}),
    ("task-get", "TaskGet", {"taskId": "1"}, "allow", {}),
    ("task-list", "TaskList", {}, "allow", {}),
    ("task-update", "TaskUpdate", {"taskId": "1", "status": "completed"}, "allow", {}),
    ("task-output", "TaskOutput", {"task_id": "1", "block": False, "timeout": 1}, "allow", {}),
    ("tool-search", "ToolSearch", {"query": "select:ExitPlanMode"}, "allow", {}),
    ("skill", "Skill", {"skill": "review"}, "allow", {}),
    ("mcp-resources", "ListMcpResourcesTool", {}, "allow", {}),
    ("mcp-tool", "mcp__github__create_issue", {"title": "x"}, "deny", {}),
    ("mcp-read-looking-tool", "mcp__fs__read_file", {"path": "x"}, "deny", {}),
    ("task-stop", "TaskStop", {"task_id": "1"}, "deny", {}),
    ("cron-create", "CronCreate", {"cron": "* * * * *", "prompt": "x"}, "deny", {}),
    ("enter-worktree", "EnterWorktree", {"name": "x"}, "deny", {}),
    ("powershell", "PowerShell", {"command": "ls"}, "deny", {}),
    ("enter-plan-mode", "EnterPlanMode", {}, "allow", {}),
    ("report-findings", "ReportFindings", {"findings": []}, "allow", {}),
    ("list-agents", "ListAgents", {}, "allow", {}),
    ("send-message", "SendMessage", {"to": "dev", "message": "write it"}, "deny", {}),
    ("workflow", "Workflow", {"name": "x"}, "deny", {}),
    ("schedule-wakeup", "ScheduleWakeup", {}, "deny", {}),
    ("monitor", "Monitor", {}, "deny", {}),
    ("kill-shell", "KillShell", {"shell_id": "1"}, "deny", {}),
]


@pytest.mark.parametrize(
    ("name", "tool", "tool_input", "expected", "extra"),
    PLAN_TABLE,
    ids=[row[0] for row in PLAN_TABLE],
)
def test_plan_mode_table(
    layout: dict[str, Path],
    name: str,
    tool: str,
    tool_input: Any,
    expected: str,
    extra: dict[str, Any],
) -> None:
    given = tool_input(layout) if callable(tool_input) else tool_input
    decision = run(layout, tool, given, **extra)
    assert decision.behavior == expected, f"{name}: {decision}"
    if expected == "deny":
        assert decision.message and decision.message.startswith("Denied by "), decision


def test_a_plan_file_replaced_by_a_symlink_is_not_the_plan(layout: dict[str, Path]) -> None:
    layout["plan"].unlink()
    layout["plan"].symlink_to(layout["app"])
    for spelling in (str(layout["plan"]), f".claude/plans/{SLUG}.md", str(layout["app"])):
        decision = run(layout, "Write", {"file_path": spelling})
        assert decision.behavior == "deny", spelling
        assert decision.message and decision.message.startswith("Denied by plan mode")


@pytest.fixture
def hops(layout: dict[str, Path]) -> dict[str, Path]:
    """Directory symlinks that make ``link/..`` mean two places: one into the plans
    directory from the root, one out of it into src/."""
    sub = layout["plans"] / "sub"
    sub.mkdir()
    (layout["root"] / "into-plans").symlink_to(sub, target_is_directory=True)
    pkg = layout["root"] / "src" / "pkg"
    pkg.mkdir()
    (layout["plans"] / "out").symlink_to(pkg, target_is_directory=True)
    return layout


@pytest.mark.parametrize(
    ("raw", "lexical", "resolved"),
    [
        # The kernel reaches the plan; a tool that drops "x/.." first writes root/<slug>.md.
        (f"into-plans/../{SLUG}.md", f"{SLUG}.md", f".claude/plans/{SLUG}.md"),
        # The text names the plan; the kernel writes src/<slug>.md.
        (f".claude/plans/out/../{SLUG}.md", f".claude/plans/{SLUG}.md", f"src/{SLUG}.md"),
    ],
)
def test_a_path_whose_lexical_and_resolved_readings_differ_is_denied(
    hops: dict[str, Path], raw: str, lexical: str, resolved: str
) -> None:
    root = hops["root"]
    assert resolve_path(raw, root) == root / resolved
    for spelling in (raw, str(root / raw)):
        decision = run(hops, "Write", {"file_path": spelling})
        assert decision.behavior == "deny", spelling
        message = str(decision.message)
        assert message.startswith("Denied by plan mode (only the plan file may be written)")
        assert f"names {root / lexical} when '..' is removed" in message
        assert f"but {root / resolved} when its symlinks are followed" in message
    for tool, given in (
        ("Edit", {"file_path": raw, "old_string": "a", "new_string": "b"}),
        ("MultiEdit", {"file_path": raw, "edits": []}),
    ):
        assert run(hops, tool, given).behavior == "deny"


def test_accept_edits_asks_when_one_reading_of_the_path_leaves_the_workspace(
    hops: dict[str, Path],
) -> None:
    root = hops["root"]
    # into-plans -> .claude/plans/sub: the kernel stays inside; the text leaves the root.
    raw = "into-plans/../../outside.txt"
    assert resolve_path(raw, root) == root / ".claude" / "outside.txt"
    decision = run(hops, "Write", {"file_path": raw}, mode="acceptEdits")
    assert decision.behavior == "ask"
    assert f"{root.parent / 'outside.txt'}, read lexically" in str(decision.message)
    assert run(hops, "Write", {"file_path": "src/new.py"}, mode="acceptEdits").behavior == "allow"


@pytest.mark.parametrize(
    "raw",
    [
        f".claude/plans/../plans/{SLUG}.md",  # ".." without a symlink before it
        f"plans-link/{SLUG}.md",  # a symlink without ".." after it
        f"./src/../.claude/plans/{SLUG}.md",
    ],
)
def test_a_path_whose_readings_agree_on_the_plan_is_allowed(
    hops: dict[str, Path], raw: str
) -> None:
    assert run(hops, "Write", {"file_path": raw}).behavior == "allow", raw
    assert plan_path_refusal(raw, context(hops)) is None


def test_a_plan_file_that_does_not_exist_yet_may_be_created(layout: dict[str, Path]) -> None:
    layout["plan"].unlink()
    assert run(layout, "Write", {"file_path": str(layout["plan"])}).behavior == "allow"


def test_denied_tools_are_named_in_the_reason(layout: dict[str, Path]) -> None:
    mcp = run(layout, "mcp__github__create_issue", {})
    assert mcp.message == (
        "Denied by plan mode (no MCP tools while planning): mcp__github__create_issue is an MCP "
        "tool; plan mode cannot know that it only reads"
    )
    unknown = run(layout, "Frobnicate", {})
    assert unknown.message == (
        "Denied by plan mode (tool not allowed while planning): Frobnicate is not a known "
        "planning tool"
    )
    assert "TaskStop stops a running task" in str(run(layout, "TaskStop", {}).message)


@pytest.mark.parametrize(
    ("tool", "tool_input", "rule", "vouched"),
    [
        ("Read", {"file_path": "x"}, "plan.readOnly", False),
        ("Write", {"file_path": "src/app.py"}, "plan.planFile", True),
        ("Write", {"file_path": f".claude/plans/{SLUG}.md"}, "plan.planFile", True),
        ("Bash", {"command": "ls"}, "plan.bash", True),
        ("Bash", {"command": "rm x"}, "plan.bash", True),
        ("Agent", {"subagent_type": "Explore"}, "plan.agent", True),
        ("Agent", {"subagent_type": "general-purpose"}, "plan.agent", True),
        ("ExitPlanMode", {}, "plan.exit", False),
        ("mcp__x__y", {}, "plan.tool", True),
    ],
)
def test_plan_mode_decisions_name_their_rule_on_the_wire(
    layout: dict[str, Path], tool: str, tool_input: dict[str, Any], rule: str, vouched: bool
) -> None:
    """``vouched``: plan mode stands behind the answer, so an agent's hook passes it on — its
    own denies and the allows it vouches for, not a reading tool's allow nor an ask."""
    decision = run(layout, tool, tool_input)
    assert (decision.rule, decision.vouched) == (rule, vouched)


def test_outside_plan_mode_only_grants_and_settings_have_their_own_rule(
    layout: dict[str, Path],
) -> None:
    grant = AllowedPrompt("Bash", "run tests")
    granted = run(
        layout, "Bash", {"command": "pytest -q"}, mode="default", granted_prompts=(grant,)
    )
    assert (granted.behavior, granted.rule, granted.vouched) == ("allow", "grant", True)
    assert run(layout, "Read", {"file_path": "x"}, mode="default").rule == "mode"
    assert run(layout, "Bash", {"command": "ls"}, mode="default").rule == "mode"
    assert not run(layout, "Bash", {"command": "ls"}, mode="default").vouched
    denied = run(layout, "Bash", {"command": "ls"}, mode="default", deny_rules=("Bash(ls:*)",))
    # A settings rule's deny is the agent's own rules' to apply: plan mode does not speak.
    assert (denied.behavior, denied.rule, denied.vouched) == ("deny", "settings.deny", False)


def test_deny_messages_name_the_rule(layout: dict[str, Path]) -> None:
    assert "plan mode (only the plan file may be written)" in str(
        run(layout, "Write", {"file_path": "src/app.py"}).message
    )
    assert "read-only Bash" in str(run(layout, "Bash", {"command": "rm x"}).message)
    assert "rm" in str(run(layout, "Bash", {"command": "rm x"}).message)
    assert "Explore and Plan" in str(run(layout, "Agent", {"subagent_type": "x"}).message)
    agent = run(layout, "EnterPlanMode", {}, agent_id="a")
    assert "EnterPlanMode tool cannot be used in agent contexts" in str(agent.message)


# -- path resolution --------------------------------------------------------------------------
@pytest.mark.parametrize("raw", ["", "   ", "a\x00b", "dir/", "dir/.", None, 7, ["x"]])
def test_resolve_path_refuses_what_is_not_a_file_path(raw: object, tmp_path: Path) -> None:
    with pytest.raises(UnsafePath):
        resolve_path(raw, tmp_path)


def test_resolve_path_follows_symlink_loops_into_an_error(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(UnsafePath):
        resolve_path("a", tmp_path)
    context = ToolContext("plan", tmp_path, tmp_path / "p.md")
    assert plan_path_refusal("a", context) is not None


# -- outside plan mode ------------------------------------------------------------------------
OUTSIDE_TABLE: list[tuple[str, str, str, dict[str, Any], str]] = [
    ("bypass-write", "bypassPermissions", "Write", {"file_path": "/etc/x"}, "allow"),
    ("bypass-bash", "bypassPermissions", "Bash", {"command": "rm -rf x"}, "allow"),
    ("bypass-notebook", "bypassPermissions", "NotebookEdit", {}, "allow"),
    ("accept-write-inside", "acceptEdits", "Write", {"file_path": "src/app.py"}, "allow"),
    ("accept-edit-new-file", "acceptEdits", "Edit", {"file_path": "src/new.py"}, "allow"),
    ("accept-write-outside", "acceptEdits", "Write", {"file_path": "/tmp/x.py"}, "ask"),
    ("accept-write-escape", "acceptEdits", "Write", {"file_path": "../x.py"}, "ask"),
    ("accept-bash-write", "acceptEdits", "Bash", {"command": "rm x"}, "ask"),
    ("accept-bash-read", "acceptEdits", "Bash", {"command": "ls"}, "allow"),
    ("default-read", "default", "Read", {"file_path": "src/app.py"}, "allow"),
    ("default-grep", "default", "Grep", {"pattern": "x"}, "allow"),
    ("default-bash-read", "default", "Bash", {"command": "git status"}, "allow"),
    ("default-bash-write", "default", "Bash", {"command": "rm x"}, "ask"),
    ("default-write", "default", "Write", {"file_path": "src/app.py"}, "ask"),
    ("default-notebook", "default", "NotebookEdit", {}, "ask"),
    ("default-agent", "default", "Agent", {"subagent_type": "general-purpose"}, "ask"),
    ("default-exit-plan", "default", "ExitPlanMode", {}, "deny"),
    ("default-enter-plan", "default", "EnterPlanMode", {}, "allow"),
]


@pytest.mark.parametrize(
    ("name", "mode", "tool", "tool_input", "expected"),
    OUTSIDE_TABLE,
    ids=[row[0] for row in OUTSIDE_TABLE],
)
def test_outside_plan_mode(
    layout: dict[str, Path],
    name: str,
    mode: str,
    tool: str,
    tool_input: dict[str, Any],
    expected: str,
) -> None:
    decision = run(layout, tool, tool_input, mode=mode)
    assert decision.behavior == expected, f"{name}: {decision}"
    if expected == "deny":
        assert decision.message and decision.message.startswith("Denied by ")


DENY_RULES = ("Bash(rm:*)", "Read(./secrets/**)")


@pytest.mark.parametrize("mode", ["plan", "default", "acceptEdits", "auto", "bypassPermissions"])
@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"command": "rm -rf build"}),
        ("Bash", {"command": "ls && rm x"}),
        ("Bash", {"command": "echo $(rm x)"}),
        ("Read", {"file_path": "secrets/key.pem"}),
        ("Read", {"file_path": "./secrets/deep/er/key"}),
        ("Read", {"file_path": "src/../secrets/key.pem"}),
    ],
    ids=["rm", "rm-in-list", "rm-in-substitution", "secret", "deep-secret", "dotdot-secret"],
)
def test_deny_rules_win_in_every_mode(
    layout: dict[str, Path], mode: str, tool: str, tool_input: dict[str, Any]
) -> None:
    decision = run(layout, tool, tool_input, mode=mode, deny_rules=DENY_RULES)
    assert decision.behavior == "deny", decision
    # While planning, plan mode's own deny comes first where it denies too (the one an agent's
    # hook reports); the rule's deny stands wherever plan mode would allow.
    own = mode == "plan" and decision.rule.startswith("plan.")
    expected = "Denied by plan mode" if own else "Denied by the deny rule"
    assert decision.message and decision.message.startswith(expected), decision


def test_deny_rules_leave_other_calls_alone(layout: dict[str, Path]) -> None:
    ctx = {"deny_rules": DENY_RULES}
    assert run(layout, "Read", {"file_path": "src/app.py"}, **ctx).behavior == "allow"
    assert run(layout, "Bash", {"command": "ls"}, **ctx).behavior == "allow"
    bypass = run(layout, "Bash", {"command": "rmdir x"}, mode="bypassPermissions", **ctx)
    assert bypass.behavior == "allow"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("npm test", "allow"),
        ("npm test -- -k x", "allow"),
        ("npm   test   --watch", "allow"),
        ("npm test; rm -rf /", "ask"),
        ("npm test && curl x", "ask"),
        ("npm test | tee log", "ask"),
        ("npm test $(rm -rf x)", "ask"),
        ("npm test > out", "ask"),
        ("npm testing", "ask"),
        ("npm run build", "ask"),
    ],
)
def test_allow_rules_cover_only_one_matching_command(
    layout: dict[str, Path], command: str, expected: str
) -> None:
    decision = run(
        layout, "Bash", {"command": command}, mode="default", allow_rules=("Bash(npm test:*)",)
    )
    assert decision.behavior == expected, decision


def test_allow_rules_do_not_apply_in_plan_mode(layout: dict[str, Path]) -> None:
    decision = run(layout, "Bash", {"command": "npm test"}, allow_rules=("Bash(npm test:*)",))
    assert decision.behavior == "deny"


def test_ask_rules_ask_before_allow_rules(layout: dict[str, Path]) -> None:
    decision = run(
        layout,
        "Bash",
        {"command": "npm test"},
        mode="default",
        allow_rules=("Bash(npm test:*)",),
        ask_rules=("Bash(npm:*)",),
    )
    assert decision.behavior == "ask"


# -- allowedPrompts ---------------------------------------------------------------------------
TESTS = AllowedPrompt("Bash", "run tests")
DEV = AllowedPrompt("Bash", "npm run dev")


@pytest.mark.parametrize(
    ("prompt", "command", "covered"),
    [
        (TESTS, "pytest -q", True),
        (TESTS, "pytest", True),
        (TESTS, "npm test", True),
        (TESTS, "python -m pytest tests/unit", True),
        (TESTS, "cargo test", True),
        (TESTS, "pytest; rm -rf /", False),
        (TESTS, "pytest && curl x", False),
        (TESTS, "pytest $(rm x)", False),
        (TESTS, "pytest > out", False),
        (TESTS, "PYTEST_ADDOPTS=-x pytest", False),
        (TESTS, "rm -rf build", False),
        (TESTS, "pytestevil", False),
        (DEV, "npm run dev", True),
        (DEV, "npm run dev -- --port 3", False),  # exact: no more words
        (AllowedPrompt("Bash", "npm run dev *"), "npm run dev -- --port 3", True),
        (DEV, "npm run deploy", False),
        (DEV, "npm run devil", False),
        (DEV, "npm run dev; rm x", False),
        (AllowedPrompt("Read", "run tests"), "pytest", False),
    ],
)
def test_prompt_allows(prompt: AllowedPrompt, command: str, covered: bool) -> None:
    assert prompt_allows(prompt, command) is covered


def test_granted_prompts_allow_outside_plan_but_never_past_a_deny(
    layout: dict[str, Path],
) -> None:
    granted = {"granted_prompts": (TESTS,)}
    assert run(layout, "Bash", {"command": "pytest -q"}, mode="default", **granted).behavior == (
        "allow"
    )
    assert run(layout, "Bash", {"command": "rm -rf x"}, mode="default", **granted).behavior == (
        "ask"
    )
    denied = run(
        layout,
        "Bash",
        {"command": "pytest -q"},
        mode="default",
        deny_rules=("Bash(pytest:*)",),
        **granted,
    )
    assert denied.behavior == "deny"
    # In plan mode a grant does not make a non-read-only command runnable.
    assert run(layout, "Bash", {"command": "pytest -q"}, **granted).behavior == "deny"


# -- deny rules see through spelling, wrappers and shells ------------------------------------
DENY_RM = ("Bash(rm:*)",)


@pytest.mark.parametrize(
    "command",
    [
        "r\\m -rf build",
        "/bin/rm -rf build",
        "bash -c 'rm -rf build'",
        'sh -c "ls && rm -rf build"',
        "sudo rm -rf build",
        "env DEBUG=1 rm -rf build",
        "timeout 5 rm -rf build",
        "find . -name '*.o' | xargs rm",
        "eval rm -rf build",
        "$CMD -rf build",
        'bash -c "$SCRIPT"',
        "echo 'unclosed",
    ],
)
def test_deny_rules_are_not_dodged(command: str, tmp_path: Path) -> None:
    for mode in ("bypassPermissions", "default", "acceptEdits"):
        context = ToolContext(
            mode=mode, root=tmp_path, plan_file=tmp_path / "p.md", deny_rules=DENY_RM
        )
        decision = decide("Bash", {"command": command}, context)
        assert decision.behavior == "deny", (mode, command, decision)
        assert decision.message is not None and "Bash(rm:*)" in decision.message


@pytest.mark.parametrize("command", ["ls $DIR", "git status", "echo rm", "grep -rn rm src"])
def test_deny_rules_leave_other_commands_alone(command: str, tmp_path: Path) -> None:
    context = ToolContext(
        mode="bypassPermissions", root=tmp_path, plan_file=tmp_path / "p.md", deny_rules=DENY_RM
    )
    assert decide("Bash", {"command": command}, context).behavior == "allow"


@pytest.mark.parametrize(
    ("tool_input", "problem"),
    [
        ({}, "file_path must be a non-empty string"),
        ({"file_path": 5}, "file_path must be a non-empty string"),
        ({"file_path": "src/\x00x.py"}, "file_path contains a NUL byte"),
        ({"file_path": "src/"}, "'src/' names a directory, not a file"),
    ],
)
def test_a_write_with_no_file_path_says_so(
    layout: dict[str, Path], tool_input: dict[str, Any], problem: str
) -> None:
    # Before: "Write of file_path must be a non-empty string — while planning, …".
    decision = run(layout, "Write", tool_input)
    assert decision.behavior == "deny"
    assert decision.message == (
        "Denied by plan mode (only the plan file may be written): "
        f"Write of no file path ({problem}) — while planning, write only {layout['plan']}"
    )
