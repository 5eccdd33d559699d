"""planMode/checkTool against the real server (docs/protocol.md §6 and
docs/read-only-bash.md).

The big tables run in one server each and collect every mismatch into one assertion message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcException

from tests.e2e.harness import Editor, running_editor

Row = tuple[str, str, Any, str]  # (id, tool, input, expected behavior)


async def mismatches(editor: Editor, rows: list[Row], **params: Any) -> list[str]:
    wrong = []
    for name, tool, tool_input, expected in rows:
        got = await editor.request(
            "planMode/checkTool", {"tool": tool, "input": tool_input, **params}
        )
        if got["behavior"] != expected:
            wrong.append(f"{name}: expected {expected}, got {got}")
        elif expected == "deny" and not str(got.get("message", "")).startswith("Denied by"):
            wrong.append(f"{name}: deny message does not name its rule: {got}")
    return wrong


async def enter(editor: Editor) -> Path:
    entered = await editor.request("planMode/enter")
    plan = Path(entered["state"]["planFilePath"])
    plan.parent.mkdir(parents=True, exist_ok=True)
    return plan


async def test_plan_mode_permission_table(editor: Editor, root: Path) -> None:
    plan = await enter(editor)
    plans = plan.parent
    rel = plan.relative_to(root).as_posix()
    plan.write_text("# Plan\n")
    (root / "plans-link").symlink_to(plans, target_is_directory=True)
    (plans / "notes.md").symlink_to(root / "src" / "app.py")
    # "x/.." read two ways: the kernel follows x first, a tool normalising text drops it.
    (plans / "sub").mkdir()
    (root / "into-plans").symlink_to(plans / "sub", target_is_directory=True)
    (plans / "out").symlink_to(root / "src", target_is_directory=True)
    agent_plan = plans / f"{plan.stem}-agent-a1.md"
    rows: list[Row] = [
        ("read", "Read", {"file_path": "src/app.py"}, "allow"),
        ("glob", "Glob", {"pattern": "**"}, "allow"),
        ("grep", "Grep", {"pattern": "x"}, "allow"),
        ("ls", "LS", {"path": "."}, "allow"),
        ("webfetch", "WebFetch", {"url": "https://example.com"}, "allow"),
        ("websearch", "WebSearch", {"query": "x"}, "allow"),
        ("ask-user", "AskUserQuestion", {"questions": []}, "allow"),
        ("todo", "TodoWrite", {"todos": []}, "allow"),
        ("write-plan-absolute", "Write", {"file_path": str(plan)}, "allow"),
        ("edit-plan-relative", "Edit", {"file_path": rel}, "allow"),
        ("multiedit-plan-dotdot", "MultiEdit", {"file_path": f"src/../{rel}"}, "allow"),
        ("write-plan-symlinked-dir", "Write", {"file_path": f"plans-link/{plan.name}"}, "allow"),
        ("write-other-file", "Write", {"file_path": "src/app.py"}, "deny"),
        ("write-link-dotdot-in", "Write", {"file_path": f"into-plans/../{plan.name}"}, "deny"),
        ("edit-link-dotdot-out", "Edit", {"file_path": f"{plans}/out/../{plan.name}"}, "deny"),
        ("edit-other-file", "Edit", {"file_path": str(root / "src" / "app.py")}, "deny"),
        ("write-plans-dir", "Write", {"file_path": str(plans)}, "deny"),
        ("write-trailing-slash", "Write", {"file_path": f"{plan}/"}, "deny"),
        ("write-nul", "Write", {"file_path": f"{plan}\x00"}, "deny"),
        ("write-upper-case", "Write", {"file_path": str(plans / plan.name.upper())}, "deny"),
        ("write-tilde", "Write", {"file_path": f"~/{rel}"}, "deny"),
        ("write-outside-root", "Write", {"file_path": "/tmp/elsewhere.md"}, "deny"),
        ("write-parent", "Write", {"file_path": f"../{plan.name}"}, "deny"),
        ("write-symlink-in-plans", "Write", {"file_path": str(plans / "notes.md")}, "deny"),
        ("write-agent-plan-as-main", "Write", {"file_path": str(agent_plan)}, "deny"),
        ("notebook-edit", "NotebookEdit", {"notebook_path": "n.ipynb"}, "deny"),
        ("bash-read", "Bash", {"command": "ls -la && git status 2>/dev/null"}, "allow"),
        ("bash-rm", "Bash", {"command": "rm file"}, "deny"),
        ("bash-hidden-write", "Bash", {"command": "cat x | tee y"}, "deny"),
        ("bash-unparseable", "Bash", {"command": "echo $("}, "deny"),
        ("agent-explore", "Agent", {"subagent_type": "Explore"}, "allow"),
        ("task-plan", "Task", {"subagent_type": "Plan"}, "allow"),
        ("agent-general", "Agent", {"subagent_type": "general-purpose"}, "deny"),
        ("exit-plan-mode", "ExitPlanMode", {}, "ask"),
        ("unknown-tool", "Frobnicate", {}, "deny"),
    ]
    wrong = await mismatches(editor, rows)
    agent_rows: list[Row] = [
        ("agent-own-plan", "Write", {"file_path": str(agent_plan)}, "allow"),
        ("agent-main-plan", "Write", {"file_path": str(plan)}, "deny"),
        ("agent-enter-plan-mode", "EnterPlanMode", {}, "deny"),
    ]
    wrong += await mismatches(editor, agent_rows, agentId="a1")
    # The plan file itself replaced by a symlink to business code is not the plan any more.
    plan.unlink()
    plan.symlink_to(root / "src" / "app.py")
    wrong += await mismatches(
        editor,
        [
            ("plan-is-symlink-absolute", "Write", {"file_path": str(plan)}, "deny"),
            ("plan-is-symlink-relative", "Edit", {"file_path": rel}, "deny"),
        ],
    )
    assert not wrong, "\n".join(wrong)
    assert (root / "src" / "app.py").read_text() == "print('hello')\n"


async def test_teammate_may_exit_without_asking(root: Path, home: Path) -> None:
    init = {
        "sessionId": "main",
        "teammate": {"agentName": "a", "teamName": "t", "planModeRequired": True},
    }
    async with running_editor(root, home, init_options=init) as editor:
        await enter(editor)
        got = await editor.request("planMode/checkTool", {"tool": "ExitPlanMode", "input": {}})
        assert got["behavior"] == "allow"


async def test_outside_plan_mode_the_permission_mode_decides(editor: Editor, root: Path) -> None:
    tables: dict[str, list[Row]] = {
        "bypassPermissions": [
            ("bypass-write-anywhere", "Write", {"file_path": "/etc/x"}, "allow"),
            ("bypass-bash", "Bash", {"command": "rm -rf build"}, "allow"),
            ("bypass-notebook", "NotebookEdit", {}, "allow"),
        ],
        "acceptEdits": [
            ("accept-write-inside", "Write", {"file_path": "src/app.py"}, "allow"),
            ("accept-write-outside", "Write", {"file_path": "/tmp/x.py"}, "ask"),
            ("accept-bash-write", "Bash", {"command": "rm x"}, "ask"),
            ("accept-bash-read", "Bash", {"command": "ls"}, "allow"),
        ],
        "default": [
            ("default-read", "Read", {"file_path": "src/app.py"}, "allow"),
            ("default-bash-read", "Bash", {"command": "git log -1 | head"}, "allow"),
            ("default-bash-write", "Bash", {"command": "rm x"}, "ask"),
            ("default-write", "Write", {"file_path": "src/app.py"}, "ask"),
            ("default-exit-plan", "ExitPlanMode", {}, "deny"),
        ],
    }
    wrong = []
    for mode, rows in tables.items():
        state = await editor.request("planMode/setMode", {"mode": mode})
        assert state["mode"] == mode
        wrong += await mismatches(editor, rows)
    assert not wrong, "\n".join(wrong)


DENY_ROWS: list[Row] = [
    ("deny-rm", "Bash", {"command": "rm -rf build"}, "deny"),
    ("deny-rm-in-list", "Bash", {"command": "ls; rm x"}, "deny"),
    # wherever bash finds the command (docs/read-only-bash.md, "Permission rules")
    ("deny-rm-after-glued-hash", "Bash", {"command": "[ -d src ]#; rm -rf src"}, "deny"),
    ("deny-rm-in-expansion", "Bash", {"command": "echo ${HOME#$(rm -rf src)}"}, "deny"),
    ("deny-rm-in-default", "Bash", {"command": "echo \"${x:-'$(rm -rf src)'}\""}, "deny"),
    ("deny-rm-in-heredoc", "Bash", {"command": "cat <<EOF\n`rm -rf src`\nEOF"}, "deny"),
    ("deny-rm-in-arithmetic", "Bash", {"command": "echo $(( $(rm -rf src) ))"}, "deny"),
    ("deny-rm-in-subscript", "Bash", {"command": "a[$(rm -rf src)]=1"}, "deny"),
    ("deny-rm-in-trap", "Bash", {"command": "trap 'rm -rf src' EXIT"}, "deny"),
    ("deny-rm-in-wrapper", "Bash", {"command": "timeout -s KILL 5 rm -rf src"}, "deny"),
    ("deny-rm-in-find-exec", "Bash", {"command": "find . -exec rm {} \\;"}, "deny"),
    ("other-bash", "Bash", {"command": "ls -la # rm"}, "allow"),
    ("deny-secret", "Read", {"file_path": "secrets/key.pem"}, "deny"),
    ("deny-secret-dotdot", "Read", {"file_path": "src/../secrets/a/b"}, "deny"),
    ("other-read", "Read", {"file_path": "src/app.py"}, "allow"),
]
DENY_RULES = {"deny": ["Bash(rm:*)", "Read(./secrets/**)"]}


async def _deny_rules_hold_in_every_mode(editor: Editor) -> list[str]:
    wrong = []
    for mode in ("bypassPermissions", "acceptEdits", "default", "plan"):
        await editor.request("planMode/setMode", {"mode": mode})
        wrong += [f"[{mode}] {w}" for w in await mismatches(editor, DENY_ROWS)]
    return wrong


async def test_deny_rules_from_initialization_options_win(root: Path, home: Path) -> None:
    init = {"sessionId": "main", "permissions": DENY_RULES}
    async with running_editor(root, home, init_options=init) as editor:
        await editor.ready()
        wrong = await _deny_rules_hold_in_every_mode(editor)
        assert not wrong, "\n".join(wrong)


async def test_deny_rules_from_workspace_settings_win(root: Path, home: Path) -> None:
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps({"permissions": DENY_RULES}))
    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        await editor.ready()
        wrong = await _deny_rules_hold_in_every_mode(editor)
        assert not wrong, "\n".join(wrong)


async def test_allow_rules_cover_one_matching_command(root: Path, home: Path) -> None:
    init = {"sessionId": "main", "permissions": {"allow": ["Bash(npm test:*)"]}}
    async with running_editor(root, home, init_options=init) as editor:
        await editor.ready()
        await editor.request("planMode/setMode", {"mode": "default"})
        rows: list[Row] = [
            ("npm-test-args", "Bash", {"command": "npm test -- -k x"}, "allow"),
            ("npm-test-then-rm", "Bash", {"command": "npm test; rm -rf /"}, "ask"),
            ("npm-test-and-curl", "Bash", {"command": "npm test && curl x"}, "ask"),
            ("npm-install", "Bash", {"command": "npm install"}, "ask"),
        ]
        wrong = await mismatches(editor, rows)
        assert not wrong, "\n".join(wrong)


async def test_wrong_params_are_invalid(editor: Editor) -> None:
    for params in (
        {"input": {}},
        {"tool": "Bash", "input": "ls"},
        {"tool": "Bash", "input": ["ls"]},
        {"tool": 3, "input": {}},
        {"tool": "", "input": {}},
    ):
        error = await editor.error("planMode/checkTool", params)
        assert isinstance(error, JsonRpcException)
        assert error.code == -32602, (params, error)
    # The server is still there and unchanged.
    assert (await editor.state())["mode"] == "default"


async def test_allowed_prompts_are_granted_on_approval_and_revoked_on_reentry(
    root: Path, home: Path
) -> None:
    init = {"sessionId": "main", "permissions": {"deny": ["Bash(pytest --deny-me:*)"]}}
    async with running_editor(root, home, init_options=init) as editor:
        await editor.ready()
        await enter(editor)
        prompts = [
            {"tool": "Bash", "prompt": "run tests"},
            {"tool": "Bash", "prompt": "npm run dev"},
        ]
        exiting = editor.start("planMode/exit", {"plan": "# Plan\n", "allowedPrompts": prompts})
        requested = await editor.wait_for("planMode/approvalRequested")
        granted = {"approvalId": requested["approvalId"], "allowedPrompts": prompts}
        await editor.request("planMode/approve", granted)
        result = await exiting
        assert result["outcome"] == "approved"
        assert result["grantedPrompts"] == prompts
        state = await editor.state()
        assert state["mode"] == "default"
        assert state["grantedPrompts"] == prompts
        rows: list[Row] = [
            ("pytest", "Bash", {"command": "pytest -q"}, "allow"),
            ("npm-test", "Bash", {"command": "npm test"}, "allow"),
            ("rm-build", "Bash", {"command": "rm -rf build"}, "ask"),
            ("dev-exactly", "Bash", {"command": "npm run dev"}, "allow"),
            # Not a prefix: "npm run dev" grants exactly that command (docs/protocol.md §6).
            ("dev-with-args", "Bash", {"command": "npm run dev -- --port 3"}, "ask"),
            ("deploy", "Bash", {"command": "npm run deploy"}, "ask"),
            ("deny-rule-wins", "Bash", {"command": "pytest --deny-me"}, "deny"),
        ]
        wrong = await mismatches(editor, rows)
        chained = await editor.request(
            "planMode/checkTool", {"tool": "Bash", "input": {"command": "pytest; rm -rf /"}}
        )
        if chained["behavior"] == "allow":
            wrong.append(f"pytest-then-rm: must not be allowed, got {chained}")
        assert not wrong, "\n".join(wrong)

        # Entering plan mode again starts a new plan without the old grants.
        await editor.request("planMode/enter")
        assert (await editor.state())["grantedPrompts"] == []
        await editor.request("planMode/setMode", {"mode": "default"})
        again = await editor.request(
            "planMode/checkTool", {"tool": "Bash", "input": {"command": "pytest"}}
        )
        assert again["behavior"] == "ask", again


async def test_hostile_bash_lines_get_a_deny_never_an_error(editor: Editor) -> None:
    """Deep nesting, lone surrogates, control characters and overlong lines: the real server
    answers each with a deny naming the reason, and keeps answering."""
    await enter(editor)
    hostile = {
        "nested-substitutions": ("$(echo " * 1500 + "$(rm x" + ")" * 1501, "rm"),
        "nested-subshells": ("( " * 4000 + "rm x" + " )" * 4000, "rm"),
        "lone-surrogate": ("ls \ud800", "surrogate"),
        "lone-low-surrogate": ("cat a\udc80b", "surrogate"),
        "carriage-return": ("ls\rrm -rf x", "U+000D"),
        "overlong": ("ls " + "x" * 30_000, "longer than"),
        "comment-continued": ("ls # x\n\\rm -rf x", "after a comment"),
    }
    wrong = []
    for name, (command, reason) in hostile.items():
        got = await editor.request(
            "planMode/checkTool", {"tool": "Bash", "input": {"command": command}}
        )
        if got["behavior"] != "deny" or reason not in got.get("message", ""):
            wrong.append(f"{name}: {str(got)[:300]}")
    assert not wrong, "\n".join(wrong)
    still = await editor.request(
        "planMode/checkTool", {"tool": "Bash", "input": {"command": "git status"}}
    )
    assert still["behavior"] == "allow"
