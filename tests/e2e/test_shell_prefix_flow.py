"""The hook and the shell prefix together, as Claude Code runs them (docs/claude-code.md,
"Sandboxing planning Bash"): a ``PreToolUse`` of Bash through ``planmode hook`` against the real
server, then the command line through the installed prefix, in Claude Code's Bash environment.

What happened is read from the command's own output (its seccomp status) and from the disk.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planmode.agents.claude_code import shell_prefix
from tests.e2e.claude_code.recorded import Recorded
from tests.e2e.harness import Editor

SECCOMP = "grep Seccomp: /proc/self/status"


class Prefixed:
    """A recorded Claude Code session whose hooks and Bash run through planmode's prefix."""

    def __init__(self, session: Recorded, script: Path) -> None:
        self.recorded = session
        self.script = script
        self.cwd_file = session.home / "claude-5e1f-cwd"

    def hook_env(self) -> dict[str, str]:
        return {**self.recorded.env, shell_prefix.ENV_PREFIX: str(self.script)}

    def bash_env(self) -> dict[str, str]:
        """The Bash tool's environment: the session, Claude Code's binary, no project dir."""
        env = {k: v for k, v in self.hook_env().items() if k != "CLAUDE_PROJECT_DIR"}
        return {
            **env,
            "CLAUDE_CODE_SESSION_ID": self.recorded.session_id,
            "CLAUDE_CODE_EXECPATH": "/opt/claude/claude.exe",
            "SHELL": "/bin/bash",
        }

    async def pre_tool_use(self, command: str, mode: str = "plan") -> dict[str, Any] | None:
        event = self.recorded.event(
            "PreToolUse", "Bash", permission_mode=mode, tool_input={"command": command}
        )

        def run() -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                hook_argv(),
                input=json.dumps(event),
                capture_output=True,
                text=True,
                timeout=60,
                env=self.hook_env(),
                cwd=self.recorded.root,
            )

        done = await asyncio.get_running_loop().run_in_executor(None, run)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if done.stdout else None

    def bash(self, command: str) -> subprocess.CompletedProcess[str]:
        """The command as Claude Code 2.1.332 runs it: its line, through the prefix."""
        quoted = "'" + command.replace("'", "'\\''") + "'"
        line = f"eval {quoted} < /dev/null && pwd -P >| {self.cwd_file}"
        return subprocess.run(
            [str(self.script), line],
            env=self.bash_env(),
            cwd=self.recorded.root,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def record(self) -> tuple[str, str, str] | None:
        return shell_prefix.read_record(self.recorded.session_id, self.hook_env())


def hook_argv() -> list[str]:
    return [sys.executable, "-m", "planmode", "hook"]


@pytest.fixture
def prefixed(recorded: Recorded, tmp_path: Path) -> Prefixed:
    script = tmp_path / "data" / shell_prefix.NAME
    script.parent.mkdir()
    shell_prefix.install(str(script))
    # The tests read their own seccomp status in /proc/self, outside the project: the user
    # lets Claude Code read there without asking (else planmode leaves it to Claude Code).
    settings = recorded.root / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"additionalDirectories": ["/proc/self"]}}))
    return Prefixed(recorded, script)


def allowed(output: dict[str, Any] | None) -> dict[str, Any]:
    assert output is not None
    decided = output["hookSpecificOutput"]
    assert decided["permissionDecision"] == "allow", decided
    return dict(decided)


async def test_planning_bash_runs_in_the_sandbox_and_nothing_else_does(
    editor: Editor, prefixed: Prefixed
) -> None:
    await editor.endpoint()
    if (await editor.state())["sandbox"]["mechanism"] is None:
        pytest.skip("no OS sandbox here")
    # While planning the hook allows the proven read-only line as it is (no rewrite: Claude
    # Code 2.1.332 would ask for a rewritten one) and records how the prefix sandboxes it.
    decided = allowed(await prefixed.pre_tool_use(SECCOMP))
    assert "updatedInput" not in decided
    mode, state, _ = prefixed.record() or ("", "", "")
    assert (mode, state) == ("plan", shell_prefix.SANDBOX)
    assert prefixed.bash(SECCOMP).stdout.split() == ["Seccomp:", "2"]
    # Whatever the line would do, the sandbox holds on its own (a classifier escape).
    escaped = prefixed.recorded.root / "escaped"
    done = prefixed.bash(f"touch {escaped}; cd src && pwd")
    assert not escaped.exists()
    assert prefixed.cwd_file.read_text() == f"{prefixed.recorded.root}/src\n", done.stderr

    # The user approves the plan and works on in acceptEdits: the same line runs untouched.
    outside = await prefixed.pre_tool_use(SECCOMP, mode="acceptEdits")
    assert outside is None or "updatedInput" not in outside["hookSpecificOutput"]
    assert (prefixed.record() or ("",))[0] == "acceptEdits"
    assert prefixed.bash(SECCOMP).stdout.split() == ["Seccomp:", "0"]
    written = prefixed.bash(f"touch {escaped}")
    assert written.returncode == 0 and escaped.exists()


async def test_a_denied_line_is_denied_by_the_hook(editor: Editor, prefixed: Prefixed) -> None:
    await editor.endpoint()
    output = await prefixed.pre_tool_use("rm -rf src")
    assert output is not None
    assert output["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert (prefixed.recorded.root / "src" / "app.py").exists()


async def test_a_record_that_cannot_be_written_denies_while_planning(
    editor: Editor, prefixed: Prefixed
) -> None:
    await editor.endpoint()
    records = Path(shell_prefix.records_dir(prefixed.hook_env()))
    records.mkdir(parents=True)
    records.chmod(0o777)  # anyone could plant a record: not planmode's directory
    output = await prefixed.pre_tool_use("ls src")
    assert output is not None
    decided = output["hookSpecificOutput"]
    assert decided["permissionDecision"] == "deny"
    assert "not a private directory" in decided["permissionDecisionReason"]
    assert prefixed.record() is None


async def test_without_a_server_the_prefix_has_no_opinion(prefixed: Prefixed) -> None:
    """A workspace that never had a server: the hook is silent and the prefix runs the line
    as Claude Code asked (Claude Code's own plan mode decides)."""
    assert await prefixed.pre_tool_use(SECCOMP) is None
    mode, state, _ = prefixed.record() or ("", "", "")
    assert (mode, state) == ("plan", shell_prefix.NO_SERVER)
    assert prefixed.bash(SECCOMP).stdout.split() == ["Seccomp:", "0"]


async def test_the_session_end_removes_the_record(editor: Editor, prefixed: Prefixed) -> None:
    await editor.endpoint()
    allowed(await prefixed.pre_tool_use("ls src"))
    assert prefixed.record() is not None
    event = prefixed.recorded.event("SessionEnd")
    done = await asyncio.get_running_loop().run_in_executor(
        None,
        lambda: subprocess.run(
            hook_argv(),
            input=json.dumps(event),
            capture_output=True,
            text=True,
            timeout=60,
            env=prefixed.hook_env(),
        ),
    )
    assert done.returncode == 0, done.stderr
    assert prefixed.record() is None
