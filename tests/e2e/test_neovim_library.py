"""Real headless Neovim (Debian's 0.7) finds the workspace's plans with its own workspace-symbol
request: each plan's title, its status as the container (docs/protocol.md §12.3)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NVIM = shutil.which("nvim")
SCRIPT = Path(__file__).parent / "neovim" / "symbols.lua"

pytestmark = pytest.mark.skipif(NVIM is None, reason="neovim is not installed (make installs it)")


async def test_neovim_lists_the_plans_as_workspace_symbols(tmp_path: Path) -> None:
    root = (tmp_path / "workspace").resolve()
    plans = root / ".claude" / "plans"
    plans.mkdir(parents=True)
    saved = plans / "bold-eagle.md"
    saved.write_text("# Cache the parser\n\n1. Add a cache\n")
    drafting = plans / "quiet-river.md"
    drafting.write_text("Steps only\n\n1. One\n")
    state = root / ".claude" / "plan-mode"
    state.mkdir()
    record = {"plan": str(saved), "event": "saved", "at": "2026-01-01T00:00:00.000Z"}
    (state / "library.jsonl").write_text(json.dumps(record) + "\n")
    (root / "notes.md").write_text("notes\n")
    out = tmp_path / "nvim-result.json"
    xdg = tmp_path / "xdg"
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(xdg / "config"),
        "XDG_DATA_HOME": str(xdg / "data"),
        "XDG_CACHE_HOME": str(xdg / "cache"),
        "XDG_STATE_HOME": str(xdg / "state"),
        "HOME": str(tmp_path),
        "PLANMODE_NVIM_ROOT": str(root),
        "PLANMODE_NVIM_PYTHON": sys.executable,
        "PLANMODE_NVIM_OUT": str(out),
    }
    assert NVIM is not None
    nvim = await asyncio.create_subprocess_exec(
        NVIM, "--headless", "-u", "NONE", "-c", f"luafile {SCRIPT}",
        cwd=root, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        await asyncio.wait_for(nvim.wait(), 60)
    finally:
        if nvim.returncode is None:
            nvim.kill()
            await nvim.wait()
    result = json.loads(out.read_text())
    assert result["ok"], result
    assert result["provider"] is True
    by_name = {s["name"]: s for s in result["all"]}
    assert set(by_name) == {"Cache the parser", "quiet-river"}, result
    assert by_name["Cache the parser"]["container"] == "saved"
    assert by_name["Cache the parser"]["uri"] == saved.as_uri()
    assert by_name["quiet-river"]["container"] == "drafting"
    assert result["all_items"] == 2  # what its picker lists
    assert [s["name"] for s in result["cache"]] == ["Cache the parser"]
