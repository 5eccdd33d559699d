"""The user's own rules in the real Claude Code CLI, with planmode's hooks installed
(docs/claude-code.md, "The user's own rules"): plan mode never allows what the user's Claude
Code rules deny, nor a read outside the project Claude Code would ask about; where the user
made a directory a working directory, plan mode vouches again.

Claude Code runs interactively in tmux against a scripted Messages API, as in
``test_claude_code.py``; the editor's server decides through ``planmode hook``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.claude_code.agent import Agent, failure_report
from tests.e2e.claude_code.fake_api import FakeApi, Request, tool_use
from tests.e2e.claude_code.tui import ClaudeCode, installed, prepare_home
from tests.e2e.harness import running_editor

VERSIONS = (Path(__file__).parent / "claude_code" / "versions.txt").read_text().split()


def set_up(root: Path, home: Path) -> None:
    """planmode's hooks in the project's settings, the user's deny rule in their own settings,
    and /proc/self among the project's working directories."""
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")}
    init = subprocess.run(
        [str(Path(sys.executable).parent / "planmode"), "init", "claude-code"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert init.returncode == 0, init.stderr
    project = root / ".claude" / "settings.json"
    written = json.loads(project.read_text())
    written["permissions"] = {"additionalDirectories": ["/proc/self"]}
    project.write_text(json.dumps(written))
    user = home / ".claude" / "settings.json"
    user.write_text(json.dumps({"permissions": {"deny": ["Bash(cat:*)"]}}))


def result(request: Request) -> tuple[bool, str]:
    """Whether the last tool call failed, and what the model reads of it."""
    results = request.tool_results()
    return bool(results and results[-1].get("is_error")), request.result_text()


@pytest.mark.parametrize("version", VERSIONS)
async def test_plan_mode_leaves_the_users_rules_to_claude_code(
    version: str, tmp_path: Path
) -> None:
    why = installed(version)
    if why is not None:
        pytest.skip(f"Claude Code {version} cannot run here: {why}")
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

            # A read outside the project: Claude Code asks, as it would without planmode.
            line = f"head {outside}/notes.txt"
            api.reply(tool_use("Bash", {"command": line, "description": "Notes"}))
            await asyncio.to_thread(claude.wait_screen, r"Do you want to proceed\?", 20)
            claude.keys("Escape")
            await asyncio.to_thread(claude.wait_screen, lambda s: "to proceed?" not in s, 10)
            claude.type("Not there")
            failed, told = result(await agent.turn())
            assert failed and "doesn't want to proceed" in told, told

            # A working directory of the user's (/proc/self): plan mode vouches, and the line
            # runs unasked, in the sandbox.
            status = await agent.call("Bash", {"command": "grep Seccomp: /proc/self/status"})
            assert status.result_text().split() == ["Seccomp:", "2" if sandboxed else "0"]
        except BaseException:
            print(failure_report(api, claude, tmp_path / "claude-code-report"))
            raise
        finally:
            claude.close()
            api.stop()
