"""The user's own rules in the real Claude Code CLI, with planmode's hooks installed
(docs/claude-code.md, "The user's own rules"): plan mode never allows what the user's Claude
Code rules deny, nor a read outside the project Claude Code would ask about — and when the user
allows such a read, it still runs in the sandbox.

Claude Code runs interactively in tmux against a scripted Messages API, as in
``test_claude_code.py``; the editor's server decides through ``planmode hook``.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from tests.e2e.claude_code.agent import Agent, failure_report
from tests.e2e.claude_code.fake_api import FakeApi, Request, tool_use
from tests.e2e.claude_code.project import require_claude_code
from tests.e2e.claude_code.tui import ClaudeCode, prepare_home
from tests.e2e.harness import running_editor
from tests.e2e.planmode_cli import init

VERSIONS = (Path(__file__).parent / "claude_code" / "versions.txt").read_text().split()


def set_up(root: Path, home: Path) -> None:
    """planmode's hooks (and shell prefix) in the project's settings, the user's deny rule in
    their own settings."""
    init("claude-code", root, {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")})
    user = home / ".claude" / "settings.json"
    user.write_text(json.dumps({"permissions": {"deny": ["Bash(cat:*)"]}}))


def result(request: Request) -> tuple[bool, str]:
    """Whether the last tool call failed, and what the model reads of it."""
    results = request.tool_results()
    return bool(results and results[-1].get("is_error")), request.result_text()


def choose_yes(claude: ClaudeCode) -> None:
    """Answer Claude Code's question with its Yes: 2.1.197 offers it first, 2.1.332's
    auto-mode question offers No first."""
    for _ in range(4):
        chosen = [line for line in claude.screen().splitlines() if line.strip().startswith("❯")]
        if chosen and "Yes" in chosen[-1]:
            claude.keys("Enter")
            return
        claude.keys("Down")
        time.sleep(0.2)
    raise AssertionError(f"no Yes to choose:\n{claude.screen()}")


@pytest.mark.parametrize("version", VERSIONS)
async def test_plan_mode_leaves_the_users_rules_to_claude_code(
    version: str, tmp_path: Path
) -> None:
    require_claude_code(version)
    root = (tmp_path / "workspace").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("notes\n")
    home = tmp_path / "home"
    prepare_home(home, root)
    set_up(root, home)

    api = FakeApi()
    base_url = api.start()
    async with running_editor(root, home) as editor:
        await editor.endpoint()
        sandboxed = bool((await editor.state())["sandbox"]["mechanism"])
        claude = ClaudeCode(version, root, home, base_url, tmp_path)
        agent = Agent(api, claude)
        try:
            await agent.prompt("Plan something")
            # A line plan mode proves read-only, which the user's deny rule covers: denied by
            # Claude Code's rule, not allowed by the hook.
            failed, told = result(await agent.call("Bash", {"command": "cat src/app.py"}))
            assert failed and "has been denied" in told, told

            # A read outside the project: Claude Code asks, as it would without planmode. The
            # user says yes, and the line still runs in planmode's sandbox.
            line = "grep Seccomp: /proc/self/status"
            api.reply(tool_use("Bash", {"command": line, "description": "Status"}))
            await asyncio.to_thread(claude.wait_screen, r"Do you want to proceed\?", 20)
            await asyncio.to_thread(choose_yes, claude)
            status = await agent.turn()
            assert status.result_text().split() == ["Seccomp:", "2" if sandboxed else "0"]

            # Inside the project plan mode vouches: the line runs unasked.
            read = await agent.call("Bash", {"command": "head src/app.py"})
            assert read.result_text().strip() == "print('hello')", read.result_text()
        except BaseException:
            print(failure_report(api, claude, tmp_path / "claude-code-report"))
            raise
        finally:
            claude.close()
            api.stop()
