"""``make bench``: planmode against a bare pygls server, started and driven the same way; and
the OS sandbox's overhead per Bash command against the bare ``bash -c``, and what Claude Code's
shell prefix adds to each Bash command (benchmarks/shell_prefix.py).

Each figure is the median of several rounds, measured in one run for both sides, printed
with its ratio (or, for the sandbox, its overhead) to the bare one. Not a test: machines are
shared and noisy, so read the ratios, and run it again when one looks off.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from codex_hook import codex_hook_cost  # benchmarks/, beside this script
from gemini_hook import fresh_bytecode, gemini_hook_cost  # benchmarks/, beside this script
from library_listing import library_listing_cost  # benchmarks/, beside this script
from lsprotocol import types
from opencode_plugin import opencode_plugin_cost  # benchmarks/, beside this script
from plan_diff import plan_diff_cost  # benchmarks/, beside this script
from progress_tracking import progress_tracking_cost  # benchmarks/, beside this script
from pygls.lsp.client import LanguageClient
from shell_prefix import shell_prefix_cost  # benchmarks/, beside this script

from planmode.demo import editor_capabilities
from planmode.sandbox import BWRAP, LANDLOCK
from planmode.sandbox.probe import detect

HERE = Path(__file__).parent
SERVERS = {
    "planmode": [sys.executable, "-m", "planmode", "lsp", "--log-level", "ERROR"],
    "bare": [sys.executable, str(HERE / "bare_server.py")],
}
TARGETS = {"checkTool": 1.5, "start-up": 1.2, "codeLens 5k lines": 3.0}
# The Claude Code hook runs before every tool call: per call against a bare `python -c pass`.
HOOK_TARGET = 2.0
HOOK_ROUNDS = 40
BARE_PYTHON = [sys.executable, "-c", "pass"]
# Start-ups are short and the machine is shared: more of them, bare and planmode alternating.
STARTUP_ROUNDS = 15
# The sandbox may add this much to each planning Bash command (docs/sandbox.md).
SANDBOX_TARGET_MS = 15.0
SANDBOX_COMMANDS = {"true": "true", "ls | head": "ls -la / | head -3"}
# Read-only and writing command lines, each different: no verdict is reused between calls.
COMMANDS = [
    f"git log --oneline -{n} | grep -n fix{n} | head -5" if n % 2 else f"rm -rf build{n}"
    for n in range(100)
]


def long_line(n: int, size: int = 10_000) -> str:
    """A read-only pipeline of about ``size`` characters: the whole line is walked."""
    unit = f"git log --oneline -{n} | grep -n 'fix {n}' | sort -u | head -5 | "
    return unit * (size // len(unit)) + "wc -l"


LONG_COMMANDS = [long_line(n) for n in range(20)]


def plan_text(lines: int) -> str:
    return "".join(
        f"{i}. Step {i}: change module_{i % 97}.py and check it.\n" for i in range(lines)
    )


class Client:
    """A pygls client that behaves like an editor: applies edits in memory, shows documents."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = LanguageClient("bench", "1")
        self.approvals: asyncio.Queue[Any] = asyncio.Queue()
        client = self.client

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(_params: Any) -> types.ApplyWorkspaceEditResult:
            return types.ApplyWorkspaceEditResult(applied=True)

        @client.feature(types.WINDOW_SHOW_DOCUMENT)
        def show(_params: Any) -> types.ShowDocumentResult:
            return types.ShowDocumentResult(success=True)

        @client.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams) -> list[Any]:
            return [None for _ in params.items]

        @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def refresh(_params: Any) -> None:
            return None

        @client.feature("planMode/approvalRequested")
        def requested(params: Any) -> None:
            self.approvals.put_nowait(params)

        for method in (
            "planMode/didChangeState",
            "planMode/approvalResolved",
            "planMode/didChangeProgress",
        ):
            client.feature(method)(lambda _params: None)
        for method in (types.WINDOW_SHOW_MESSAGE, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS):
            client.feature(method)(lambda _params: None)

    @property
    def pid(self) -> int:
        return int(self.client._server.pid)  # type: ignore[union-attr]

    async def start(self, command: list[str]) -> float:
        """Start the server; the seconds from spawning it until it answered ``initialize``."""
        started = time.perf_counter()
        await self.client.start_io(*command, cwd=str(self.root))
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=editor_capabilities(),
                root_uri=self.root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name="bench")],
            )
        )
        elapsed = time.perf_counter() - started
        self.client.initialized(types.InitializedParams())
        return elapsed

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        return await self.client.protocol.send_request_async(method, params)

    def open(self, path: Path, text: str, version: int = 1) -> None:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=path.as_uri(), language_id="markdown", version=version, text=text
                )
            )
        )

    def close(self, path: Path) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri())
            )
        )

    def edit(self, path: Path, line: int, text: str, version: int) -> None:
        at = types.Position(line=line, character=0)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=path.as_uri(), version=version
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=at, end=at), text=text
                    )
                ],
            )
        )

    async def code_lens(self, path: Path) -> Any:
        return await self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
        )


async def timed(action: Callable[[], Awaitable[Any]], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        await action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def rss_bytes(pid: int) -> float:
    """Resident memory of a process (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return float(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


async def measure_startup(rounds: int) -> dict[str, dict[str, float]]:
    """Spawn to the initialize answer, and the memory then, alternating the two servers."""
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in SERVERS}
    for _ in range(rounds):
        for name in ("bare", "planmode"):
            with tempfile.TemporaryDirectory(prefix="planmode-bench-") as tmp:
                bench = Client(Path(tmp).resolve())
                elapsed = await bench.start(SERVERS[name])
                figures = samples[name]
                figures.setdefault("start-up", []).append(elapsed)
                figures.setdefault("RSS after initialize", []).append(rss_bytes(bench.pid))
                await bench.stop()
    return {
        name: {key: statistics.median(values) for key, values in figures.items()}
        for name, figures in samples.items()
    }


async def measure(name: str, rounds: int) -> dict[str, float]:
    figures: dict[str, list[float]] = {}
    command = SERVERS[name]
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="planmode-bench-") as tmp:
            root = Path(tmp).resolve()
            bench = Client(root)
            await bench.start(command)
            try:
                await one_round(bench, root, figures)
            finally:
                await bench.stop()
    return {key: statistics.median(values) for key, values in figures.items()}


async def one_round(bench: Client, root: Path, figures: dict[str, list[float]]) -> None:
    entered = await bench.call("planMode/enter", {})
    # Everything loaded and initialized: the memory a working server holds.
    figures.setdefault("RSS after 1st request", []).append(rss_bytes(bench.pid))
    state = getattr(entered, "state", None)
    plan_path = Path(getattr(state, "planFilePath", root / ".claude" / "plans" / "bench.md"))

    commands = iter(COMMANDS * 2)

    def check() -> Awaitable[Any]:
        tool_input = {"command": next(commands)}
        return bench.call("planMode/checkTool", {"tool": "Bash", "input": tool_input})

    for _ in range(20):  # warm up: first calls pay for lazy imports in both servers
        await check()
    figures.setdefault("checkTool", []).append(await timed(check, 100))

    long_commands = iter(LONG_COMMANDS * 2)

    def check_long() -> Awaitable[Any]:
        tool_input = {"command": next(long_commands)}
        return bench.call("planMode/checkTool", {"tool": "Bash", "input": tool_input})

    figures.setdefault("checkTool 10 kB line", []).append(await timed(check_long, 20))

    megabyte = plan_text(17_000)  # ~1 MB
    edit = {
        "edit": {
            "changes": {
                plan_path.as_uri(): [
                    {
                        "range": {
                            "start": {"line": 0, "character": 0},
                            "end": {"line": 0, "character": 0},
                        },
                        "newText": megabyte,
                    }
                ]
            }
        }
    }
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text("")
    figures.setdefault("applyEdit 1 MB", []).append(
        await timed(lambda: bench.call("planMode/applyEdit", edit), 3)
    )

    # A 5,000-line plan under review, edited in place, then its lenses.
    five_k = plan_text(5_000)
    pending = asyncio.ensure_future(bench.call("planMode/exit", {"plan": five_k}))
    approval = await approval_or_answer(bench, pending)
    bench.open(plan_path, five_k)
    bench.edit(plan_path, 2_500, "An edit by the user.\n", 2)
    figures.setdefault("codeLens 5k lines", []).append(
        await timed(lambda: bench.code_lens(plan_path), 20)
    )
    await decide(bench, approval, pending)
    # Closed: the next figure is the server's own work. With the plan open in an editor that
    # does not reload it (eglot, Neovim) a revision also waits up to buffers.RELOAD_WAIT for a
    # reload before its edit, which this client would never answer.
    bench.close(plan_path)

    # exit -> approve of a 4.5 MB plan.
    await bench.call("planMode/enter", {})
    huge = plan_text(77_000)  # ~4.5 MB

    async def exit_and_approve() -> None:
        waiting = asyncio.ensure_future(bench.call("planMode/exit", {"plan": huge}))
        await decide(bench, await approval_or_answer(bench, waiting), waiting)
        await bench.call("planMode/enter", {})

    figures.setdefault("exit→approve 4.5 MB", []).append(await timed(exit_and_approve, 2))


async def approval_or_answer(bench: Client, pending: asyncio.Future[Any]) -> Any:
    """The approval the server asked for; None for a server that answered exit at once."""
    queue_get = asyncio.ensure_future(bench.approvals.get())
    done, _ = await asyncio.wait({queue_get, pending}, return_when=asyncio.FIRST_COMPLETED)
    if queue_get in done:
        return queue_get.result()
    queue_get.cancel()
    return None


async def decide(bench: Client, approval: Any, pending: asyncio.Future[Any]) -> None:
    approval_id = getattr(approval, "approvalId", "none")
    await bench.call("planMode/approve", {"approvalId": approval_id})
    await pending


def shown(key: str, value: float) -> str:
    """Memory in MB, times in ms."""
    if key.startswith("RSS"):
        return f"{value / 2**20:.1f}MB"
    return f"{value * 1000:.2f}ms"


def report(ours: dict[str, float], bare: dict[str, float]) -> int:
    print(f"\n{'figure':<22}{'planmode':>12}{'bare pygls':>13}{'ratio':>8}  target")
    misses = 0
    for key, value in ours.items():
        base = bare.get(key, float("nan"))
        ratio = value / base if base else float("nan")
        target = TARGETS.get(key)
        verdict = ""
        if target is not None:
            verdict = f"≤ {target}×  {'ok' if ratio <= target else 'MISSED'}"
            misses += ratio > target
        print(f"{key:<22}{shown(key, value):>12}{shown(key, base):>13}{ratio:>7.2f}×  {verdict}")
    if "checkTool" in ours and "checkTool 10 kB line" in ours:
        long, short = ours["checkTool 10 kB line"], ours["checkTool"]
        print(f"\ncheckTool on a 10 kB line takes {long / short:.1f}× a short line's time")
    return misses


def run_once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def sandbox_overhead(rounds: int) -> int:
    """Each mechanism that works here, against the bare ``bash -c``, interleaved."""
    print(f"\n{'sandbox':<30}{'sandboxed':>11}{'bare':>10}{'overhead':>10}  target")
    misses = 0
    for mechanism in (LANDLOCK, BWRAP):
        found = detect({"PLANMODE_SANDBOX": mechanism.split("+")[0]})
        if found.mechanism is None:
            print(f"{mechanism:<30}  not available here: {found.detail}")
            continue
        for label, command in SANDBOX_COMMANDS.items():
            wrapped = found.wrap(command)
            assert wrapped is not None
            bare_argv = [found.bash, "-c", command]
            boxed, bare = [], []
            for _ in range(rounds * 4):
                bare.append(run_once(bare_argv))
                boxed.append(run_once(wrapped.argv))
            value, base = statistics.median(boxed), statistics.median(bare)
            overhead = (value - base) * 1000
            ok = overhead <= SANDBOX_TARGET_MS
            misses += not ok
            name = f"{mechanism} {label}"
            print(
                f"{name:<30}{value * 1000:>9.2f}ms{base * 1000:>8.2f}ms{overhead:>8.2f}ms"
                f"  ≤ {SANDBOX_TARGET_MS:g} ms  {'ok' if ok else 'MISSED'}"
            )
    return misses


def hook_events(root: Path) -> list[bytes]:
    """PreToolUse payloads as Claude Code 2.x sends them, in plan mode: a read (no answer), a
    read-only Bash line (allowed), a write (denied)."""
    base = {
        "session_id": "bench-session",
        "transcript_path": str(root / "transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "plan",
        "hook_event_name": "PreToolUse",
        "tool_use_id": "toolu_bench",
    }
    calls = [
        ("Read", {"file_path": str(root / "src" / "app.py")}),
        ("Bash", {"command": "ls src", "description": "List src"}),
        ("Write", {"file_path": str(root / "src" / "app.py"), "content": "x = 1\n"}),
    ]
    return [
        json.dumps({**base, "tool_name": tool, "tool_input": tool_input}).encode()
        for tool, tool_input in calls
    ]


def run_with(argv: list[str], stdin: bytes, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


async def hook_per_call(rounds: int) -> int:
    """``planmode hook`` (the installed script, as Claude Code runs it) against a running
    server, per call, interleaved with ``python -c pass``."""
    script = Path(sys.executable).with_name("planmode")
    hook = [str(script), "hook"] if script.exists() else [sys.executable, "-m", "planmode", "hook"]
    fresh_bytecode()
    with tempfile.TemporaryDirectory(prefix="planmode-bench-") as tmp:
        root = Path(tmp).resolve()
        (root / "src").mkdir()
        (root / "src" / "app.py").write_text("print('hi')\n")
        # Claude Code's transcript names its plan file, so the write is decided at once.
        plan = root / "plans" / "bench-plan.md"
        attachment = {"type": "plan_mode", "isSubAgent": False, "planFilePath": str(plan)}
        line = {"type": "attachment", "slug": "bench-plan", "attachment": attachment}
        (root / "transcript.jsonl").write_text(json.dumps(line) + "\n")
        bench = Client(root)
        await bench.start(SERVERS["planmode"])
        try:
            discovery = root / ".claude" / "plan-mode" / "endpoint.json"
            for _ in range(500):
                if discovery.exists():
                    break
                await asyncio.sleep(0.01)
            events = hook_events(root)
            # As Claude Code runs its hooks: the hook finds the workspace from here.
            claude_env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}
            loop = asyncio.get_running_loop()
            bare, ours = [], []
            for n in range(rounds):
                event = events[n % len(events)]
                bare.append(await loop.run_in_executor(None, run_with, BARE_PYTHON, b""))
                ours.append(await loop.run_in_executor(None, run_with, hook, event, claude_env))
            value, base = statistics.median(ours), statistics.median(bare)
            ratio = value / base
            ok = ratio <= HOOK_TARGET
            print(
                f"\n{'agent hooks':<22}{'per call':>12}{'python -c pass':>16}{'ratio':>8}  target"
            )
            print(
                f"{'planmode hook':<22}{value * 1000:>10.2f}ms{base * 1000:>14.2f}ms{ratio:>7.2f}×"
                f"  ≤ {HOOK_TARGET}×  {'ok' if ok else 'MISSED'}"
            )
            # Gemini CLI's hook beside it, against the same server (benchmarks/gemini_hook.py).
            gemini_missed = await gemini_hook_cost(root, bench.call, rounds)
        finally:
            await bench.stop()
    return (0 if ok else 1) + gemini_missed


async def main(rounds: int) -> int:
    print(
        f"planmode benchmark: median of {rounds} rounds per figure, {STARTUP_ROUNDS} start-ups "
        "(same run, same client)"
    )
    startup = await measure_startup(STARTUP_ROUNDS)
    bare = startup["bare"] | await measure("bare", rounds)
    ours = startup["planmode"] | await measure("planmode", rounds)
    misses = report(ours, bare)
    misses += await progress_tracking_cost(rounds, Client, SERVERS["planmode"])
    misses += await hook_per_call(HOOK_ROUNDS)
    misses += await opencode_plugin_cost(HOOK_ROUNDS * 3, Client, SERVERS["planmode"])
    misses += await codex_hook_cost(HOOK_ROUNDS, Client, SERVERS["planmode"])
    misses += sandbox_overhead(rounds)
    misses += shell_prefix_cost(rounds)
    misses += plan_diff_cost(rounds)
    misses += await library_listing_cost(rounds, SERVERS["planmode"])
    print("\nAll targets met." if not misses else f"\n{misses} target(s) missed.")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    raise SystemExit(asyncio.run(main(parser.parse_args().rounds)))
