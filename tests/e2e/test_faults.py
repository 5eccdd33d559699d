"""Faults: kill -9 mid-write and mid-approval, fifty concurrent sessions, 10,000 plan files.

Each test drives the real server process (tests/e2e/stdio_server.py) and, where an agent is
involved, the agent endpoint socket. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import statistics
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from planmode.lsp.transport.discovery import Connection, NoServer, RpcError, connect, read_discovery
from tests.e2e.stdio_server import StdioServer

PLAN_BYTES = 2 * 1024 * 1024


@pytest.fixture
def logs(tmp_path: Path) -> Iterator[Path]:
    """Server stderr, printed when a test fails (pytest shows captured output then)."""
    path = tmp_path / "server.log"
    yield path
    if path.exists():
        print(path.read_text(errors="replace")[-20000:])


def big_plan(version: int, size: int = PLAN_BYTES) -> str:
    """A plan whose every line names its version: any mix of two versions is detectable."""
    line = f"- step of plan version {version:04d} " + "x" * 60 + "\n"
    return f"# Plan version {version:04d}\n\n" + line * (size // len(line))


def whole_edit(path: Path, text: str) -> dict[str, Any]:
    """A WorkspaceEdit that (re)creates ``path`` holding ``text``."""
    uri = path.as_uri()
    return {
        "documentChanges": [
            {"kind": "create", "uri": uri, "options": {"overwrite": True}},
            {
                "textDocument": {"uri": uri, "version": None},
                "edits": [
                    {
                        "range": {
                            "start": {"line": 0, "character": 0},
                            "end": {"line": 0, "character": 0},
                        },
                        "newText": text,
                    }
                ],
            },
        ]
    }


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def md_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("*.md"))


# -- kill -9 -------------------------------------------------------------------------------


def kill_when_writing(plan_path: Path, timeout: float = 20.0) -> None:
    """Return the moment a write of ``plan_path`` is seen to begin (a temp file next to it,
    or the file itself changing), so that the caller's kill lands in the middle of it."""
    before = plan_path.stat()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(name.startswith(f".{plan_path.name}") for name in os.listdir(plan_path.parent)):
            return
        with contextlib.suppress(FileNotFoundError):
            now = plan_path.stat()
            if (now.st_ino, now.st_size, now.st_mtime_ns) != (
                before.st_ino,
                before.st_size,
                before.st_mtime_ns,
            ):
                return
    raise AssertionError(f"no write of {plan_path} began within {timeout}s")


def test_kill_during_plan_writes_keeps_plan_mode_and_a_whole_plan(
    root: Path, home: Path, logs: Path
) -> None:
    rng = random.Random(1234)
    server = StdioServer(root, home, session_id="s1", log=logs)
    try:
        entered = server.request("planMode/enter", {})["state"]
        slug, plan_path = entered["planSlug"], Path(entered["planFilePath"])
        written: list[str] = []
        version = 0
        for cycle in range(3):
            acked: str | None = None
            # A few writes that complete, then one (or more, pipelined) in flight at the kill.
            for _ in range(2):
                version += 1
                text = big_plan(version)
                written.append(text)
                if version % 2:
                    params = {"plan": text, "detach": True}
                    result = server.request("planMode/exit", params, timeout=30)
                    assert result["outcome"] == "pending"
                else:
                    params = {"edit": whole_edit(plan_path, text)}
                    assert server.request("planMode/applyEdit", params, timeout=30)["applied"]
                acked = text
            in_flight = []
            for _ in range(2):
                version += 1
                text = big_plan(version)
                written.append(text)
                in_flight.append(text)

            def send(texts: tuple[str, ...] = tuple(in_flight), to: StdioServer = server) -> None:
                with contextlib.suppress(OSError, ValueError):  # the pipe breaks at the kill
                    for t in texts:
                        to.start("planMode/exit", {"plan": t, "detach": True})

            sender = threading.Thread(target=send, daemon=True)
            sender.start()
            kill_when_writing(plan_path)
            time.sleep(rng.uniform(0.0, 0.004) * cycle)  # the first kill at once, then later
            pid = server.pid
            server.kill()
            sender.join(10)

            # The discovery file outlives the killed process: it must read as stale.
            info = json.loads((root / ".claude/plan-mode/endpoint.json").read_text())
            assert info["pid"] == pid
            with pytest.raises(NoServer):
                read_discovery(root)
            with pytest.raises(NoServer):
                connect(root, timeout=5)

            on_disk = plan_path.read_text(encoding="utf-8")
            assert on_disk in written, (
                f"torn plan after kill -9 in cycle {cycle}: {len(on_disk)} bytes, "
                f"head {on_disk[:40]!r}, tail {on_disk[-40:]!r}"
            )
            # What was acknowledged is durable: the file holds it or a later write.
            assert written.index(on_disk) >= written.index(acked)
            assert md_files(plan_path.parent) == [plan_path.name]

            server = StdioServer(root, home, session_id="s1", log=logs)
            state = server.state()
            assert state["mode"] == "plan"
            assert state["prePlanMode"] == "default"
            assert state["planSlug"] == slug
            assert state["planFilePath"] == str(plan_path)
            assert state["planExists"] is True
            assert state["pendingApproval"] is None  # approvals die with their server
            # The new server replaced the stale discovery file with its own.
            assert read_discovery(root)["pid"] == server.pid
            plans = server.request("planMode/listPlans", {})["plans"]
            assert [(p["slug"], p["sessionId"], p["pending"]) for p in plans] == [
                (slug, "s1", False)
            ]
            assert plans[0]["sizeBytes"] == len(on_disk.encode("utf-8"))
            session_file = root / ".claude/plan-mode/sessions/s1.json"
            assert json.loads(session_file.read_text())["modes"]["mode"] == "plan"
        # Still fully working: one more plan, submitted and approved.
        final = "# Final plan\n\n1. done\n"
        waiting = server.start("planMode/exit", {"plan": final})
        pending = server.until(
            lambda: server.state()["pendingApproval"], 10, "the final exit never became pending"
        )
        server.request("planMode/approve", {"approvalId": pending["approvalId"]})
        result = server.answer(waiting)["result"]
        assert result["outcome"] == "approved"
        assert result["plan"] == final
        assert plan_path.read_text() == final
        assert server.state()["mode"] == "default"
    finally:
        server.close()


def test_kill_during_pending_approval_reports_to_the_agent_and_keeps_plan_mode(
    root: Path, home: Path, logs: Path
) -> None:
    server = StdioServer(root, home, session_id="editor", log=logs)
    try:
        info = server.wait_endpoint()
        plan = "# Plan\n\n1. first step\n"
        agent_outcome: dict[str, Any] = {}

        def agent() -> None:
            with Connection(info["socket"], timeout=30) as conn:
                entered = conn.request("planMode/enter", {"sessionId": "agent"})
                agent_outcome["state"] = entered["state"]
                try:
                    agent_outcome["result"] = conn.request(
                        "planMode/exit", {"sessionId": "agent", "plan": plan}
                    )
                except (ConnectionError, OSError) as exc:
                    agent_outcome["error"] = exc

        waiting = threading.Thread(target=agent, daemon=True)
        waiting.start()
        pending = server.until(
            lambda: server.state("agent")["pendingApproval"], 10, "the exit never became pending"
        )
        slug = server.state("agent")["planSlug"]
        server.kill()
        waiting.join(10)
        assert not waiting.is_alive(), "the agent still waits on a dead server"
        # Reported cleanly: its connection ended, it was not told "approved".
        assert "result" not in agent_outcome
        assert isinstance(agent_outcome.get("error"), ConnectionError)
        with pytest.raises(NoServer):
            connect(root, timeout=5)

        server = StdioServer(root, home, session_id="editor", log=logs)
        state = server.state("agent")
        assert state["mode"] == "plan"
        assert state["planSlug"] == slug
        assert state["pendingApproval"] is None
        assert Path(state["planFilePath"]).read_text() == plan
        # The dead approval cannot be decided any more.
        with pytest.raises(RpcError) as stale:
            server.request("planMode/approve", {"approvalId": pending["approvalId"]})
        assert stale.value.code == -32005
        assert server.state("agent")["mode"] == "plan"

        # The agent tries again through the new endpoint; the editor approves.
        revised = plan + "2. second step\n"
        with connect(root, timeout=30) as conn:
            conn._send(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "planMode/exit",
                    "params": {"sessionId": "agent", "plan": revised},
                }
            )
            again = server.until(
                lambda: server.state("agent")["pendingApproval"], 10, "the new exit never pended"
            )
            assert again["approvalId"] != pending["approvalId"]
            params = {"approvalId": again["approvalId"], "planSha256": digest(revised)}
            server.request("planMode/approve", params)
            while True:
                message = conn._receive()
                if message.get("id") == 1:
                    break
        assert message["result"]["outcome"] == "approved"
        assert message["result"]["plan"] == revised
        assert server.state("agent")["mode"] == "default"
    finally:
        server.close()


# -- fifty sessions ------------------------------------------------------------------------


def test_fifty_sessions_interleaving_stay_consistent(root: Path, home: Path, logs: Path) -> None:
    count = 50
    server = StdioServer(root, home, session_id="editor", log=logs)
    try:
        socket_path = server.wait_endpoint()["socket"]
        start = threading.Barrier(count, timeout=30)
        approved_ids: list[str] = []
        approved_lock = threading.Lock()

        def agent(index: int) -> dict[str, Any]:
            sid = f"agent-{index:02d}"
            before = "acceptEdits" if index % 2 else "default"
            text = f"# Plan of {sid}\n\n" + f"- step for {sid}\n" * (index + 1)
            with Connection(socket_path, timeout=30) as conn:
                conn.request("planMode/setMode", {"sessionId": sid, "mode": before})
                start.wait()
                state = conn.request("planMode/enter", {"sessionId": sid})["state"]
                assert state["mode"] == "plan" and state["prePlanMode"] == before
                plan_path = Path(state["planFilePath"])
                own = conn.request(
                    "planMode/checkTool",
                    {"sessionId": sid, "tool": "Write", "input": {"file_path": str(plan_path)}},
                )
                other = conn.request(
                    "planMode/checkTool",
                    {"sessionId": sid, "tool": "Write", "input": {"file_path": "src/app.py"}},
                )
                assert (own["behavior"], other["behavior"]) == ("allow", "deny")
                applied = conn.request(
                    "planMode/applyEdit",
                    {"sessionId": sid, "edit": whole_edit(plan_path, "draft\n")},
                )
                assert applied == {"applied": True}
                # The whole edit is refused when any part of it is outside the plan file.
                mixed = whole_edit(plan_path, "never\n")
                mixed["documentChanges"].append(
                    {"kind": "create", "uri": (root / f"{sid}.txt").as_uri()}
                )
                refused = conn.request("planMode/applyEdit", {"sessionId": sid, "edit": mixed})
                assert refused["applied"] is False
                assert plan_path.read_text() == "draft\n"
                # Overwrite the draft with the real plan, then ask for approval and wait.
                conn.request(
                    "planMode/applyEdit",
                    {"sessionId": sid, "edit": whole_edit(plan_path, text)},
                )
                conn._send(
                    {
                        "jsonrpc": "2.0",
                        "id": 1000,
                        "method": "planMode/exit",
                        "params": {"sessionId": sid},
                    }
                )
                pending = server.until(
                    lambda: conn.request("planMode/getState", {"sessionId": sid})[
                        "pendingApproval"
                    ],
                    30,
                    f"{sid}: exit never became pending",
                )
                assert pending["submittedPlan"] == text
                # Another session's approval; interleaves with every other agent's work.
                server.request(
                    "planMode/approve",
                    {
                        "approvalId": pending["approvalId"],
                        "sessionId": sid,
                        "planSha256": digest(text),
                    },
                    timeout=30,
                )
                with approved_lock:
                    approved_ids.append(pending["approvalId"])
                while True:
                    message = conn._receive()
                    if message.get("id") == 1000:
                        break
                return {
                    "sid": sid,
                    "before": before,
                    "text": text,
                    "plan_path": plan_path,
                    "exit": message.get("result"),
                    "approvalId": pending["approvalId"],
                }

        with ThreadPoolExecutor(count) as pool:
            outcomes = list(pool.map(agent, range(count), timeout=90))

        paths = {o["plan_path"] for o in outcomes}
        assert len(paths) == count, "two sessions share a plan file"
        assert len(set(approved_ids)) == count
        for outcome in outcomes:
            result = outcome["exit"]
            assert result["outcome"] == "approved", outcome["sid"]
            assert result["plan"] == outcome["text"]
            assert result["restoredMode"] == outcome["before"]
            assert result["planWasEdited"] is False
            assert outcome["plan_path"].read_text() == outcome["text"]
            state = server.state(outcome["sid"])
            assert state["mode"] == outcome["before"]
            assert state["prePlanMode"] is None
            assert state["pendingApproval"] is None
            assert state["hasExitedPlanMode"] is True
            assert state["planFilePath"] == str(outcome["plan_path"])
            saved = json.loads(
                (root / f".claude/plan-mode/sessions/{outcome['sid']}.json").read_text()
            )
            assert saved["modes"]["mode"] == outcome["before"]
            # Every approval was decided exactly once.
            with pytest.raises(RpcError) as again:
                server.request("planMode/approve", {"approvalId": outcome["approvalId"]})
            assert again.value.code == -32005

        server.until(
            lambda: (
                len([n for n in server.notifications if n["method"].endswith("Resolved")]) >= count
            ),
            10,
            "approvalResolved notifications missing",
        )
        resolved = [
            n["params"] for n in server.notifications if n["method"] == "planMode/approvalResolved"
        ]
        assert sorted(r["approvalId"] for r in resolved) == sorted(approved_ids)
        assert {r["outcome"] for r in resolved} == {"approved"}

        plans = server.request("planMode/listPlans", {})["plans"]
        owners = {p["path"]: p["sessionId"] for p in plans}
        for outcome in outcomes:
            assert owners[str(outcome["plan_path"])] == outcome["sid"]
        assert not any(p["pending"] for p in plans)
        assert server.state("editor")["mode"] == "default"
    finally:
        server.close()


# -- 10,000 plan files ---------------------------------------------------------------------


def _timed(call: Any, repeat: int = 3) -> tuple[float, Any]:
    """The median wall time of ``call()`` and its last result."""
    times, result = [], None
    for _ in range(repeat):
        began = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - began)
    return statistics.median(times), result


def test_ten_thousand_plan_files_keep_listing_and_slugs_fast(
    root: Path, home: Path, logs: Path
) -> None:
    plans_dir = root / ".claude" / "plans"
    plans_dir.mkdir(parents=True)
    body = "# A plan\n\n1. a step\n"
    for i in range(10):
        (plans_dir / f"seed-plan-{i:05d}.md").write_text(body)
    server = StdioServer(root, home, session_id="main", log=logs)
    try:
        fresh = iter(range(1_000_000))

        def list_plans() -> list[dict[str, Any]]:
            return server.request("planMode/listPlans", {}, timeout=60)["plans"]

        def new_session() -> dict[str, Any]:
            return server.state(f"fresh-{next(fresh)}")

        small_list, listed = _timed(list_plans)
        assert len(listed) == 10
        small_slug, _ = _timed(new_session, 5)

        for i in range(10, 10_000):
            (plans_dir / f"seed-plan-{i:05d}.md").write_text(body)

        big_list, listed = _timed(list_plans)
        assert len(listed) == 10_000
        assert {p["slug"] for p in listed} == {f"seed-plan-{i:05d}" for i in range(10_000)}
        big_slug, state = _timed(new_session, 5)
        assert not Path(state["planFilePath"]).exists()
        assert Path(state["planFilePath"]).parent == plans_dir

        # Generous bounds: a loaded machine is noisy; a quadratic or per-file-subprocess
        # implementation is not within them.
        assert big_list < 5.0, f"listPlans of 10,000 plans took {big_list:.2f}s"
        print(f"listPlans: {small_list:.3f}s (10), {big_list:.3f}s (10,000)")
        print(f"new session slug: {small_slug:.3f}s (10), {big_slug:.3f}s (10,000)")
        # Slug generation does not look at every file: about as fast with 10,000 plans.
        assert big_slug < max(20 * small_slug, 0.5), (big_slug, small_slug)
        slugs = {server.state(f"slug-check-{i}")["planSlug"] for i in range(20)}
        assert len(slugs) == 20
        assert all(not (plans_dir / f"{s}.md").exists() for s in slugs)
    finally:
        server.close()
