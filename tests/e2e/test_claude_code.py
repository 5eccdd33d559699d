"""Plan mode in the real Claude Code CLI (from npm), with the editor's server deciding.

Claude Code runs interactively in tmux (``-p`` offers no plan-mode tools) against a scripted
Anthropic Messages API on 127.0.0.1; the test plays the model and the editor (a pytest-lsp
client that started the server). What the model learns comes back in the tool results Claude
Code sends the API; what happened on disk is checked on disk.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from planmode.discovery import discovery_path
from tests.e2e.claude_code.agent import Agent, failure_report
from tests.e2e.claude_code.fake_api import FakeApi, Request
from tests.e2e.claude_code.tui import ClaudeCode, installed, prepare_home
from tests.e2e.harness import Editor, running_editor

# The oldest version the hook is written for and the newest at the time of writing; the
# Makefile installs exactly these (make claude-code).
VERSIONS = (Path(__file__).parent / "claude_code" / "versions.txt").read_text().split()

PROMPT = "Plan greeting by name in src/app.py"
ORIGINAL = "print('hello')\n"


def hooks_settings() -> dict[str, object]:
    """The hooks as the README gives them, `planmode` found on the hook's PATH."""
    command = {"type": "command", "command": "planmode hook"}
    return {
        "hooks": {
            "PreToolUse": [{"matcher": "*", "hooks": [command]}],
            "PermissionRequest": [
                {"matcher": "ExitPlanMode", "hooks": [{**command, "timeout": 86400}]}
            ],
            "SessionEnd": [{"hooks": [command]}],
        }
    }


async def endpoint(root: Path) -> None:
    for _ in range(1000):
        if discovery_path(root).exists():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the server never opened its agent endpoint")


def denied(request: Request) -> str:
    """The reason of a denied tool call as the model reads it."""
    results = request.tool_results()
    assert results and results[-1].get("is_error"), request.tool_results()
    return request.result_text()


@pytest.mark.parametrize("version", VERSIONS)
async def test_plan_mode_in_real_claude_code(version: str, tmp_path: Path) -> None:
    why = installed(version)
    if why is not None:
        pytest.skip(f"Claude Code {version} cannot run here: {why}")
    root = (tmp_path / "workspace").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(ORIGINAL)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(hooks_settings(), indent=2))
    home = tmp_path / "home"
    prepare_home(home, root)

    api = FakeApi()
    base_url = api.start()
    async with running_editor(root, home) as editor:
        await endpoint(root)
        venv_bin = Path(sys.executable).parent
        claude = ClaudeCode(
            version,
            root,
            home,
            base_url,
            tmp_path,
            extra_env={"PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"},
        )
        try:
            await plan_in_claude_code(Agent(api, claude), editor, root)
        except BaseException:
            print(failure_report(api, claude, tmp_path / "claude-code-report"))
            raise
        finally:
            claude.close()
            api.stop()


async def plan_in_claude_code(agent: Agent, editor: Editor, root: Path) -> None:
    app = root / "src" / "app.py"
    await agent.prompt(PROMPT)
    assert agent.plan_path is not None, "Claude Code named no plan file"

    # Reading is allowed, and so is a read-only shell command.
    read = await agent.call("Read", {"file_path": str(app)})
    assert "print('hello')" in read.result_text()
    listed = await agent.call("Bash", {"command": "ls src", "description": "List src"})
    assert "app.py" in listed.result_text()

    # Writing anything but the plan is denied, with the rule that denied it.
    write = await agent.call("Write", {"file_path": str(app), "content": "print('hi')\n"})
    reason = denied(write)
    assert "Denied by plan mode" in reason, reason
    assert app.read_text() == ORIGINAL
    remove = await agent.call("Bash", {"command": "rm -rf src", "description": "Remove src"})
    reason = denied(remove)
    assert "Denied by plan mode" in reason and "rm" in reason, reason
    assert app.exists()

    agent.say("Planning stops here.")
