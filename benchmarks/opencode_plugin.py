"""What planmode's OpenCode plugin adds to each tool call (docs/opencode.md, "planmode's
adapter").

The plugin runs inside OpenCode's process: its ``tool.execute.before`` is awaited before every
tool call. Here node loads it as OpenCode does (one module, its hooks) in a planning session
and times that hook per call against a running server — a read (allowed), a source write
(refused: the hook throws) and a shell line (allowed, marked for the sandbox) in turn — beside
an awaited no-op hook, the cost of any plugin (docs/opencode.md measured 0.04 ms inside
OpenCode).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

PLUGIN = Path(__file__).resolve().parents[1] / "server/planmode/agents/opencode/planmode.js"
# An in-process plugin may add this much to each tool call.
TARGET_MS = 5.0

DRIVER = r"""
import { PlanMode } from "./planmode.mjs"
const rounds = Number(process.argv[2])
const directory = process.env.BENCH_ROOT
const client = { session: { get: async () => ({ data: null }) }, _client: {}, tui: {} }
const hooks = await PlanMode({ client, directory, worktree: directory,
  project: { worktree: directory, vcs: "git" } })
const info = { id: "ses_bench", slug: "calm-island", time: { created: 1796142069727 } }
await hooks.event({ event: { type: "session.created", properties: { info } } })
await hooks["chat.params"]({ sessionID: "ses_bench", agent: "plan" })
const calls = [
  ["read", { filePath: `${directory}/src/app.py` }],
  ["write", { filePath: `${directory}/src/app.py`, content: "x = 1\n" }],
  ["bash", { command: "ls src", description: "List src" }],
]
const noop = async () => {}
const ours = [], bare = []
for (let n = 0; n < rounds; n++) {
  const [tool, args] = calls[n % calls.length]
  const input = { tool, sessionID: "ses_bench", callID: `call_${n}` }
  let start = performance.now()
  await noop(input, { args })
  bare.push(performance.now() - start)
  start = performance.now()
  try { await hooks["tool.execute.before"](input, { args: { ...args } }) } catch {}
  ours.push(performance.now() - start)
}
await hooks.dispose()
console.log(JSON.stringify({ ours, bare }))
process.exit(0)
"""


class Server(Protocol):
    async def start(self, command: list[str]) -> float: ...

    async def stop(self) -> None: ...


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


async def opencode_plugin_cost(
    rounds: int, server: Callable[[Path], Server], command: list[str]
) -> int:
    """Print the plugin's cost per tool call; the number of missed targets. ``server`` makes
    the benchmark's client of a planmode server on a root, started with ``command``."""
    node = shutil.which("node")
    if node is None:
        print("\nOpenCode plugin: node is not installed here, not measured")
        return 0
    with tempfile.TemporaryDirectory(prefix="planmode-bench-opencode-") as tmp:
        root = Path(tmp).resolve() / "workspace"
        (root / "src").mkdir(parents=True)
        (root / "src" / "app.py").write_text("print('hi')\n")
        shutil.copyfile(PLUGIN, Path(tmp) / "planmode.mjs")
        (Path(tmp) / "driver.mjs").write_text(DRIVER)
        bench = server(root)
        await bench.start(command)
        try:
            discovery = root / ".claude" / "plan-mode" / "endpoint.json"
            for _ in range(500):
                if discovery.exists():
                    break
                await asyncio.sleep(0.01)
            figures = await _run(node, Path(tmp), root, rounds)
        finally:
            await bench.stop()
    ours, bare = _median(figures["ours"]), _median(figures["bare"])
    ok = ours <= TARGET_MS
    print(f"\n{'OpenCode plugin':<22}{'per call':>12}{'no-op hook':>16}{'':>8}  target")
    print(
        f"{'tool.execute.before':<22}{ours:>10.2f}ms{bare:>14.3f}ms{'':>8}  ≤ {TARGET_MS:g} ms"
        f"  {'ok' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


async def _run(node: str, where: Path, root: Path, rounds: int) -> dict[str, Any]:
    def run() -> dict[str, Any]:
        done = subprocess.run(
            [node, "driver.mjs", str(rounds)],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "BENCH_ROOT": str(root)},
            check=True,
        )
        figures: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
        return figures

    work: Awaitable[dict[str, Any]] = asyncio.to_thread(run)
    return await work
