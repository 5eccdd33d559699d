"""git only where it opens the workspace's own repository: checkTool's cwd (docs/protocol.md
§6, docs/read-only-bash.md "5. git").

Claude Code keeps its shell's directory between calls: after an allowed `cd vendor/lib`, a
plain `git status` runs in vendor/lib, where git opens the vendored repository and runs its
configuration (here core.fsmonitor). The real server decides by the directory the caller
names, and the line is run for real to show what the deny prevents.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import Editor


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True, capture_output=True
    )


@pytest.fixture
def vendored(root: Path) -> Path:
    """The workspace's repository, with a vendored checkout whose fsmonitor leaves a marker."""
    git("init", "-q", cwd=root)
    nested = root / "vendor" / "lib"
    nested.mkdir(parents=True)
    git("init", "-q", cwd=nested)
    marker = root.parent / "pwned"
    git("config", "core.fsmonitor", f"sh -c 'echo fsmonitor >> {marker}'; false", cwd=nested)
    return nested


async def check(editor: Editor, command: str, **params: Any) -> dict[str, Any]:
    return await editor.request(
        "planMode/checkTool", {"tool": "Bash", "input": {"command": command}, **params}
    )


async def test_git_after_an_earlier_cd_is_decided_by_the_callers_directory(
    editor: Editor, root: Path, vendored: Path
) -> None:
    await editor.request("planMode/enter")
    marker = root.parent / "pwned"
    # The earlier call: a cd alone runs no git.
    assert (await check(editor, "cd vendor/lib", cwd=str(root)))["behavior"] == "allow"
    # Unsandboxed, the next call's git status runs the vendored repository's program.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root.parent)}
    subprocess.run(["bash", "-c", "git status"], cwd=vendored, env=env, capture_output=True)
    assert marker.exists(), "the vendored repository's fsmonitor should be live"
    marker.unlink()
    for command in ("git status", "ls && git log -1", "echo $(git diff)"):
        denied = await check(editor, command, cwd=str(vendored))
        assert denied["behavior"] == "deny", denied
        assert denied["rule"] == "plan.bash"
        assert f"the repository at {vendored} (its .git is a directory)" in denied["message"]
    assert (await check(editor, "ls", cwd=str(vendored)))["behavior"] == "allow"
    # From the root, or a folder of it that holds no repository, git opens the workspace's.
    for where in (root, root / "vendor"):
        allowed = await check(editor, "git status", cwd=str(where))
        assert allowed["behavior"] == "allow", allowed
    # A Claude Code call (it names its project) without cwd: its shell may be anywhere.
    unknown = await check(editor, "git status", projectDir=str(root))
    assert unknown["behavior"] == "deny" and "without cwd" in unknown["message"]
    # A caller that names no directory (the CLI, an editor) says the line runs at the root.
    assert (await check(editor, "git status"))["behavior"] == "allow"
    # A relative cwd says nothing: denied too.
    assert (await check(editor, "git status", cwd="vendor/lib"))["behavior"] == "deny"
    assert not marker.exists()
