"""What the plan library costs (docs/protocol.md §12.3): ``planMode/listPlans`` over 10,000
plans of one workspace, each with its status, against a running server.

The workspace holds 10,000 plan files and a record (``.claude/plan-mode/library.jsonl``) of a
decision on 6,000 of them — approved with progress, rejected, saved, taken up again — so every
status but underReview is listed, progress included. The first call reads the record; each later
call finds it unchanged by its size. Both are timed, from the request sent to the answer parsed
by the stdlib's json (an editor's parse; pygls's client would add its own named tuples): the
first (cold) and the median of the rest.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET = 1.0  # seconds, cold and warm
PLANS = 10_000


def workspace(root: Path) -> None:
    """10,000 plans and their record."""
    plans = root / ".claude" / "plans"
    plans.mkdir(parents=True)
    lines = []
    for n in range(PLANS):
        path = plans / f"plan-{n:05d}.md"
        path.write_text(f"# Plan {n}\n\n## Steps\n1. One\n2. Two\n")
        at = f"2026-01-01T00:{n // 1000:02d}:00.000Z"
        event: dict[str, Any] = {"plan": str(path), "at": at, "sessionId": f"s{n % 50}"}
        kind = n % 5
        if kind == 0:
            lines.append(
                {**event, "event": "approved", "approvalId": f"a{n}", "done": 0, "total": 2}
            )
            lines.append(
                {
                    "plan": str(path),
                    "event": "progress",
                    "at": at,
                    "approvalId": f"a{n}",
                    "done": n % 3,
                    "total": 2,
                }
            )
        elif kind == 1:
            lines.append({**event, "event": "rejected", "agent": "claude-code"})
        elif kind == 2:
            lines.append({**event, "event": "saved", "agent": "codex"})
            if n % 10 == 7:
                lines.append({**event, "event": "resumed"})
    state = root / ".claude" / "plan-mode"
    state.mkdir(parents=True)
    (state / "library.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


class RawClient:
    """A JSON-RPC client over the server's stdio that parses answers with the stdlib's json, as
    an editor does (pygls's client turns every object into a named tuple: its own cost, not
    the server's). Requests the server sends are answered with null."""

    def __init__(self, command: list[str], root: Path) -> None:
        self.command, self.root = command, root
        self.next_id = 0

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            cwd=str(self.root),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=1 << 26,
        )
        await self.call(
            "initialize",
            {"processId": None, "rootUri": self.root.as_uri(), "capabilities": {}},
        )
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while True:
            line = await self.process.stdout.readline()
            if line in (b"\r\n", b""):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message: dict[str, Any] = json.loads(await self.process.stdout.readexactly(length))
        return message

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        ours = self.next_id
        self.send({"jsonrpc": "2.0", "id": ours, "method": method, "params": params})
        while True:
            message = await self.receive()
            if "method" in message and "id" in message:  # the server asks: no opinion
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif message.get("id") == ours:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    async def stop(self) -> None:
        await self.call("shutdown", {})
        self.send({"jsonrpc": "2.0", "method": "exit"})
        await asyncio.wait_for(self.process.wait(), 10)


async def library_listing_cost(rounds: int, command: list[str]) -> int:
    """Print the cold and warm listPlans times; 1 when the target is missed."""
    with tempfile.TemporaryDirectory(prefix="planmode-bench-") as tmp:
        root = Path(tmp).resolve()
        workspace(root)
        bench = RawClient(command, root)
        await bench.start()
        try:
            started = time.perf_counter()
            listed = await bench.call("planMode/listPlans", {})
            cold = time.perf_counter() - started
            warm_times = []
            for _ in range(max(rounds, 3)):
                started = time.perf_counter()
                listed = await bench.call("planMode/listPlans", {})
                warm_times.append(time.perf_counter() - started)
        finally:
            await bench.stop()
    warm = statistics.median(warm_times)
    statuses: dict[str, int] = {}
    for plan in listed["plans"]:
        statuses[plan["status"]] = statuses.get(plan["status"], 0) + 1
    counts = ", ".join(f"{count} {status}" for status, count in sorted(statuses.items()))
    verdict = "ok" if max(cold, warm) < TARGET else "MISSED"
    print(
        f"\nplanMode/listPlans over {len(listed['plans'])} plans ({counts}): first {cold:.3f} s, "
        f"then {warm:.3f} s (median of {len(warm_times)}; target < {TARGET:.0f} s) {verdict}"
    )
    return int(max(cold, warm) >= TARGET)
