"""What progress tracking costs checkTool (docs/protocol.md §12): the same tool calls, one by
one, for a session carrying out an approved 20-step plan and for one that carries out none,
alternating, against one running server.

Both sessions are in ``acceptEdits`` (the mode an approval with auto-accept edits leaves), so
the permission check is the same; only the tracked one reads its calls for progress and drift.
The calls are what an agent makes while implementing: reads and shell lines, its todo list
(``TodoWrite`` with one todo moving on each time, ``TaskCreate`` / ``TaskUpdate``), writes of
files the plan names, and now and then a write of a file it never names (drift, told to the
editor under the default ``warn``).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET = 1.10
STEPS = 20


def plan() -> str:
    items = "".join(f"{n}. Rework module {n} in `src/mod{n}.py`\n" for n in range(1, STEPS + 1))
    return f"# Plan: rework the modules\n\n## Steps\n{items}\n## Verification\nRun the tests.\n"


def calls(count: int) -> list[tuple[str, dict[str, Any]]]:
    """``count`` calls of an implementing agent (the module's mix), each different."""
    todos = [
        {"content": f"Rework module {n} in src/mod{n}.py", "status": "pending"}
        for n in range(1, STEPS + 1)
    ]
    found: list[tuple[str, dict[str, Any]]] = []
    for i in range(count):
        step = i % STEPS + 1
        kind = i % 8
        if kind == 0:
            found.append(("Read", {"file_path": f"src/mod{step}.py"}))
        elif kind == 1:
            found.append(("Bash", {"command": f"grep -n def src/mod{step}.py"}))
        elif kind == 2:
            todo = todos[(i // 8) % STEPS]
            todo["status"] = "in_progress" if todo["status"] == "pending" else "completed"
            found.append(("TodoWrite", {"todos": [dict(t) for t in todos]}))
        elif kind == 3:
            found.append(("TaskCreate", {"subject": f"Rework module {step} in src/mod{step}.py"}))
        elif kind == 4:
            found.append(("TaskUpdate", {"taskId": str(i // 8 + 1), "status": "completed"}))
        elif kind in (5, 6):
            found.append(("Write", {"file_path": f"src/mod{step}.py", "content": f"v{i}\n"}))
        else:
            found.append(("Edit", {"file_path": f"extra/file{i}.py", "old_string": "a"}))
    return found


async def progress_tracking_cost(rounds: int, client_cls: Any, command: list[str]) -> int:
    """Print the per-call medians and their ratio; 1 when the target is missed."""
    tracked_times: list[float] = []
    plain_times: list[float] = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="planmode-bench-") as tmp:
            root = Path(tmp).resolve()
            bench = client_cls(root)
            await bench.start(command)
            try:
                await approve(bench, "tracked")
                await bench.call("planMode/setMode", {"sessionId": "plain", "mode": "acceptEdits"})
                sequence = calls(240)
                for warm in sequence[:40]:  # lazy imports, first files: not what is measured
                    await check(bench, "plain", *warm)
                for tool, tool_input in sequence[40:]:
                    # Alternating, so the machine's noise falls on both alike.
                    plain_times.append(await check(bench, "plain", tool, tool_input))
                    tracked_times.append(await check(bench, "tracked", tool, tool_input))
                progress = await bench.call("planMode/getProgress", {"sessionId": "tracked"})
            finally:
                await bench.stop()
    plain, tracked = statistics.median(plain_times), statistics.median(tracked_times)
    ratio = tracked / plain
    done = f"{getattr(progress, 'done', '?')}/{getattr(progress, 'total', '?')}"
    drifted = len(getattr(progress, "drift", []) or [])
    verdict = "ok" if ratio <= TARGET else "MISSED"
    print(
        f"\ncheckTool with progress tracking ({STEPS}-step plan, {len(tracked_times)} calls: "
        f"todos, writes, reads; plan {done} done, {drifted} drifting files at the end): "
        f"{tracked * 1000:.2f} ms against {plain * 1000:.2f} ms untracked, "
        f"{ratio:.2f}× (target ≤ {TARGET}×) {verdict}"
    )
    return int(ratio > TARGET)


async def approve(bench: Any, session: str) -> None:
    """``session`` carries out the 20-step plan, approved with auto-accept edits."""
    entered = await bench.call("planMode/enter", {"sessionId": session})
    path = Path(entered.state.planFilePath)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = plan()
    path.write_text(text)
    waiting = asyncio.ensure_future(bench.call("planMode/exit", {"sessionId": session}))
    approval = await bench.approvals.get()
    await bench.call(
        "planMode/approve",
        {"sessionId": session, "approvalId": approval.approvalId, "mode": "acceptEdits"},
    )
    await waiting


async def check(bench: Any, session: str, tool: str, tool_input: dict[str, Any]) -> float:
    started = time.perf_counter()
    answer = await bench.call(
        "planMode/checkTool", {"sessionId": session, "tool": tool, "input": tool_input}
    )
    elapsed = time.perf_counter() - started
    assert answer.behavior in ("allow", "ask"), (session, tool, answer)
    return elapsed
