"""What ``planmode hook codex`` costs per tool call of Codex (docs/codex.md), against a bare
``python -c pass``, interleaved, with the editor's server running.

Codex runs the hook before every tool call; the hook reads the turn's mode from Codex's
transcript (a ``turn_context`` line of about 12 kB, then the turn's tool output) and asks the
server. The calls are a Plan-mode turn's: a read-only command (allowed, rewritten into the
sandbox), a patch of a source file (refused) and a listing.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HOOK_TARGET = 2.0
SESSION = "019b0000-0000-7000-8000-000000000000"
TURN = "019b0000-0000-7000-8000-000000000001"
BARE_PYTHON = [sys.executable, "-c", "pass"]


def transcript(path: Path, root: Path) -> None:
    """A Plan-mode turn as Codex writes it: session_meta, the turn's context, some output."""
    lines: list[dict[str, Any]] = [
        {
            "type": "session_meta",
            "payload": {"id": SESSION, "cwd": str(root), "cli_version": "0.169.0"},
        },
        {
            "type": "turn_context",
            "payload": {
                "turn_id": TURN,
                "collaboration_mode": {
                    "mode": "plan",
                    "settings": {"developer_instructions": "Plan mode. " * 1100},
                },
            },
        },
    ]
    output = {"type": "function_call_output", "output": "line of output\n" * 300}
    lines += [{"type": "response_item", "payload": output} for _ in range(20)]
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))


def events(root: Path, transcript_path: Path) -> list[bytes]:
    base = {
        "session_id": SESSION,
        "turn_id": TURN,
        "transcript_path": str(transcript_path),
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5.5",
        "permission_mode": "default",
        "tool_use_id": "call_bench",
    }
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-x\n+y\n*** End Patch\n"
    calls = [
        ("Bash", {"command": "cat src/app.py"}),
        ("apply_patch", {"command": patch}),
        ("Bash", {"command": "ls src"}),
    ]
    return [
        json.dumps({**base, "tool_name": tool, "tool_input": tool_input}).encode()
        for tool, tool_input in calls
    ]


def run_with(argv: list[str], stdin: bytes) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


async def codex_hook_cost(rounds: int, client: Callable[[Path], Any], server: list[str]) -> int:
    """Print the hook's cost per call against ``python -c pass``; 1 when it misses its target.
    ``client(root)`` makes the benchmark's editor, which starts ``server``."""
    script = Path(sys.executable).with_name("planmode")
    hook = [str(script) if script.exists() else sys.executable, "hook", "codex"]
    if not script.exists():
        hook[1:1] = ["-m", "planmode"]
    with tempfile.TemporaryDirectory(prefix="planmode-bench-codex-") as tmp:
        root = Path(tmp).resolve()
        (root / "src").mkdir()
        (root / "src" / "app.py").write_text("print('hi')\n")
        rollout = root / "rollout.jsonl"
        transcript(rollout, root)
        editor = client(root)
        await editor.start(server)
        try:
            discovery = root / ".claude" / "plan-mode" / "endpoint.json"
            for _ in range(500):
                if discovery.exists():
                    break
                await asyncio.sleep(0.01)
            payloads = events(root, rollout)
            loop = asyncio.get_running_loop()
            bare, ours = [], []
            for n in range(rounds):
                bare.append(await loop.run_in_executor(None, run_with, BARE_PYTHON, b""))
                payload = payloads[n % len(payloads)]
                ours.append(await loop.run_in_executor(None, run_with, hook, payload))
        finally:
            await editor.stop()
    value, base = statistics.median(ours), statistics.median(bare)
    ratio = value / base
    ok = ratio <= HOOK_TARGET
    print(f"\n{'Codex hook':<22}{'per call':>12}{'python -c pass':>16}{'ratio':>8}  target")
    print(
        f"{'planmode hook codex':<22}{value * 1000:>10.2f}ms{base * 1000:>14.2f}ms{ratio:>7.2f}×"
        f"  ≤ {HOOK_TARGET}×  {'ok' if ok else 'MISSED'}"
    )
    return 0 if ok else 1
