"""Real headless Neovim (Debian's 0.7) as the editor: its lenses, the approval through
``vim.lsp.buf.code_action()``, then the approved plan's progress marks and a step marked done
with a code action."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planmode.lsp.transport.discovery import connect, discovery_path

NVIM = shutil.which("nvim")
SCRIPT = Path(__file__).parent / "neovim" / "approve.lua"
PLAN = "# Plan from the agent\n\n1. Change the thing.\n\n## Verification\nRun the tests.\n"
REVISED = PLAN.replace("1. Change the thing.\n", "1. Change the thing.\n2. Document it.\n")

pytestmark = pytest.mark.skipif(NVIM is None, reason="neovim is not installed (make installs it)")


def plan_file(root: Path) -> Path:
    (path,) = (root / ".claude" / "plans").glob("*.md")
    return path


def agent(root: Path, handoff: Path, opened: Path) -> dict:
    """The agent: enter plan mode, write the plan, ask to exit; once the plan is open in the
    editor, submit a revision (replacing that exit) and wait for the decision."""
    deadline = time.monotonic() + 30
    while not discovery_path(root).exists():
        if time.monotonic() > deadline:
            raise AssertionError("the server started by Neovim never opened its endpoint")
        time.sleep(0.05)
    with connect(root, timeout=60) as conn:
        state = conn.request("planMode/enter", {"sessionId": "agent"})["state"]
        plan_path = Path(state["planFilePath"])
        plan_path.parent.mkdir(parents=True, exist_ok=True)
        plan_path.write_text(PLAN)
        conn._send(
            {
                "jsonrpc": "2.0",
                "id": 900,
                "method": "planMode/exit",
                "params": {"sessionId": "agent"},
            }
        )
        handoff.write_text(str(plan_path) + "\n")
        while not opened.exists():
            if time.monotonic() > deadline + 60:
                raise AssertionError("Neovim never opened the plan")
            time.sleep(0.05)
        conn._send(
            {
                "jsonrpc": "2.0",
                "id": 901,
                "method": "planMode/exit",
                "params": {"sessionId": "agent", "plan": REVISED},
            }
        )
        while True:
            message = conn._receive()
            if message.get("id") == 901:
                assert "error" not in message, message
                return message["result"]


async def test_neovim_approves_from_its_code_actions(tmp_path: Path) -> None:
    root = tmp_path / "workspace"
    root.mkdir()
    xdg = tmp_path / "xdg"
    handoff, out = tmp_path / "handoff.txt", tmp_path / "nvim-result.json"
    opened = tmp_path / "opened.txt"
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(xdg / "config"),
        "XDG_DATA_HOME": str(xdg / "data"),
        "XDG_CACHE_HOME": str(xdg / "cache"),
        "XDG_STATE_HOME": str(xdg / "state"),
        "HOME": str(tmp_path),
        "PLANMODE_NVIM_ROOT": str(root),
        "PLANMODE_NVIM_PYTHON": sys.executable,
        "PLANMODE_NVIM_HANDOFF": str(handoff),
        "PLANMODE_NVIM_OUT": str(out),
        "PLANMODE_NVIM_OPENED": str(opened),
        "PLANMODE_NVIM_EXPECT": "2. Document it.",
    }
    assert NVIM is not None
    nvim = await asyncio.create_subprocess_exec(
        NVIM, "--headless", "-u", "NONE", "-c", f"luafile {SCRIPT}",
        cwd=root, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        result = await asyncio.wait_for(
            asyncio.get_running_loop().run_in_executor(None, agent, root, handoff, opened), 90
        )
        await asyncio.wait_for(nvim.wait(), 30)
    finally:
        if nvim.returncode is None:
            nvim.kill()
            await nvim.wait()
    editor = json.loads(out.read_text())
    assert editor["ok"], editor
    assert editor["titles"] == [
        "Approve plan",
        "Approve & auto-accept edits",
        "Reject…",
        "Save for later",
    ]
    assert editor["mode"] == "default"  # the editor's own session, asked with params []
    # The revision reached the open buffer without :e, byte for byte the file; Neovim marks
    # it modified (a language server cannot save a buffer).
    assert editor["revised_text"] == REVISED == plan_file(root).read_text()
    assert editor["revised_modified"] is True
    # The line the revision added is marked (docs/protocol.md §12.4).
    assert editor["revised_marks"] == [
        "3 Added by the agent's revision (Keep or Undo it from the code actions)"
    ]
    # The same decisions as code actions, the revision's hunk counted, never out of date.
    assert editor["action_titles"][:4] == [
        "Approve plan (1 change unreviewed)",
        "Approve & auto-accept edits",
        "Reject…",
        "Save for later",
    ]
    # After approval: the progress lens, each step's mark as a Hint diagnostic (Neovim 0.7 has
    # no inlay hints), and the first step marked done with the code action on its line.
    assert editor["after_titles"] == ["Plan 0/2 done"]
    assert editor["marks_before"] == ["2 ○ step 1: pending", "3 ○ step 2: pending"]
    assert editor["step_titles"][:2] == ["Mark step done", "Mark step in progress"]
    assert editor["marks_after"] == ["2 ✓ step 1: done", "3 ○ step 2: pending"]
    assert editor["progress_done"] == 1
    assert result["outcome"] == "approved"
    assert result["plan"] == REVISED
    assert "## Approved Plan" in result["toolResult"]
    assert result["restoredMode"] == "default"
