"""The server's state never shows in the user's ``git status``; plans do."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.harness import running_editor

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout


def commit_everything(root: Path) -> None:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "start")


async def test_only_the_plan_shows_in_git_status(root: Path, home: Path) -> None:
    commit_everything(root)
    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        await editor.ready()
        await editor.request("planMode/enter")
        pending = editor.start("planMode/exit", {"plan": "# Plan\n\n1. Greet.\n"})
        requested = await editor.wait_for("planMode/approvalRequested")
        await editor.request("planMode/approve", {"approvalId": requested["approvalId"]})
        result = await asyncio.wait_for(pending, 10)
        state_dir = root / ".claude" / "plan-mode"
        # The server wrote its state: sessions, transcripts, history and the endpoint.
        for part in ("sessions", "transcripts", "history", "endpoint.json"):
            assert (state_dir / part).exists(), part
        status = git(root, "status", "--porcelain", "--untracked-files=all")

    plan = Path(result["filePath"]).relative_to(root).as_posix()
    assert status.splitlines() == [f"?? {plan}"]
    assert (state_dir / ".gitignore").read_text().splitlines()[-1] == "*"


async def test_a_gitignore_the_user_changed_is_kept(root: Path, home: Path) -> None:
    commit_everything(root)
    state_dir = root / ".claude" / "plan-mode"
    state_dir.mkdir(parents=True)
    (state_dir / ".gitignore").write_text("*\n!keep.txt\n")
    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        await editor.ready()
        await editor.request("planMode/enter")
    assert (state_dir / ".gitignore").read_text() == "*\n!keep.txt\n"
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
