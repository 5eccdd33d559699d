"""Running ``planmode`` as an agent's hook runs it: a subprocess with the hook's JSON on stdin
(``hook_payloads/``, with the workspace filled in), from a thread while the editor goes on."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PAYLOADS = Path(__file__).parent / "hook_payloads"


def payload(name: str, root: Path, plan_file: str = "", **changes: Any) -> str:
    text = (PAYLOADS / name).read_text()
    event = json.loads(text.replace("WORKSPACE", str(root)).replace("PLAN_FILE", plan_file))
    event.update(changes)
    return json.dumps(event)


def run(
    args: list[str],
    stdin: str = "",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "planmode", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        # Claude Code's own, when the tests run under it, would name another project.
        env={**{k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}, **(env or {})},
    )


def init(agent: str, root: Path, env: dict[str, str]) -> None:
    """``planmode init <agent>`` in the project ``root`` as a user runs it (the installed
    script), ``env`` over the test's environment (the private ``HOME`` and the like)."""
    done = subprocess.run(
        [str(Path(sys.executable).parent / "planmode"), "init", agent],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr


async def in_thread(fn, *args):  # type: ignore[no-untyped-def]
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)
