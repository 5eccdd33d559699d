"""What planmode's Gemini CLI hook costs per tool call (docs/gemini.md, "The adapter").

``planmode hook gemini`` (the installed script, as Gemini CLI runs it) against a running
server, per call, interleaved with ``python -c pass``: the BeforeTool payloads of a planning
session — a read (nothing said), a read-only shell line (rewritten into the launcher, its
record left), a write of another file than the plan (refused) — as Gemini CLI 0.61.0 sends
them, with its environment (``GEMINI_PROJECT_DIR``, ``GEMINI_PLANS_DIR``).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from planmode import runtime
from planmode.agents.gemini import shell

# A command hook runs before every tool call: per call against a bare `python -c pass`.
TARGET = 2.0
SESSION = "5b6e3c0e-1111-4222-8333-944445555666"
BARE_PYTHON = [sys.executable, "-c", "pass"]


def events(root: Path, plans: Path) -> list[bytes]:
    base = {
        "session_id": SESSION,
        "transcript_path": str(root / "session.jsonl"),
        "cwd": str(root),
        "hook_event_name": "BeforeTool",
    }
    calls: list[tuple[str, dict[str, Any]]] = [
        ("read_file", {"file_path": str(root / "src" / "app.py")}),
        ("run_shell_command", {"command": "ls src", "description": "List src"}),
        ("write_file", {"file_path": str(plans / "notes.md"), "content": "x\n"}),
    ]
    return [
        json.dumps({**base, "tool_name": tool, "tool_input": tool_input}).encode()
        for tool, tool_input in calls
    ]


def fresh_bytecode() -> None:
    """Compile planmode's modules, as installing it does: with PYTHONDONTWRITEBYTECODE set (a
    container's default) a module changed since its .pyc was written would be compiled again
    on every call, which no installed planmode does."""
    import compileall

    import planmode

    compileall.compile_dir(Path(planmode.__file__).parent, quiet=1)


def _run(argv: list[str], stdin: bytes, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


async def gemini_hook_cost(
    root: Path, call: Callable[[str, dict[str, Any]], Awaitable[Any]], rounds: int
) -> int:
    """Print the hook's cost per call against ``python -c pass``, with the server of ``root``
    running (``call`` asks it); 1 when the target is missed."""
    script = Path(sys.executable).with_name("planmode")
    base = [str(script)] if script.exists() else [sys.executable, "-m", "planmode"]
    launcher = str(root / "bin" / shell.NAME)
    hook = [*base, "hook", "gemini", "--launcher", launcher]
    plans = root / "home" / ".gemini" / "tmp" / "bench" / SESSION / "plans"
    plans.mkdir(parents=True)
    (plans / "plan.md").write_text("# Plan\n")
    (root / "session.jsonl").write_text("")
    env = {**os.environ, "GEMINI_PROJECT_DIR": str(root), "GEMINI_PLANS_DIR": str(plans)}
    planning = json.dumps(
        {
            "session_id": SESSION,
            "hook_event_name": "BeforeTool",
            "cwd": str(root),
            "tool_name": "write_file",
            "tool_input": {"file_path": str(plans / "plan.md"), "content": "# Plan\n"},
        }
    ).encode()
    await call("planMode/setMode", {"sessionId": SESSION, "mode": "plan"})
    _run(hook, planning, env)  # the plan is the session's; the hook notes it plans
    records = Path(runtime.directory()) / shell.RECORDS
    before = set(os.listdir(records)) if records.exists() else set()
    loop = asyncio.get_running_loop()
    bare, ours = [], []
    payloads = events(root, plans)
    for n in range(rounds):
        bare.append(await loop.run_in_executor(None, _run, BARE_PYTHON, b""))
        ours.append(await loop.run_in_executor(None, _run, hook, payloads[n % 3], env))
    for name in set(os.listdir(records)) - before if records.exists() else ():
        (records / name).unlink(missing_ok=True)  # the shell lines never ran
    await call("planMode/endSession", {"sessionId": SESSION})
    value, base_value = statistics.median(ours), statistics.median(bare)
    ratio = value / base_value
    ok = ratio <= TARGET
    print(
        f"{'planmode hook gemini':<22}{value * 1000:>10.2f}ms{base_value * 1000:>14.2f}ms"
        f"{ratio:>7.2f}×  ≤ {TARGET}×  {'ok' if ok else 'MISSED'}"
    )
    return 0 if ok else 1
