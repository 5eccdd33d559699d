"""The agent endpoint: the same planMode/* requests over a socket only this user can reach."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import pytest

from planmode import runtime
from planmode.lsp.transport.discovery import (
    Connection,
    NoServer,
    RpcError,
    connect,
    discovery_path,
    read_discovery,
)
from tests.e2e.harness import Editor, running_editor


async def test_discovery_file_and_socket_are_private(editor: Editor, root: Path) -> None:
    info = await editor.endpoint()
    assert stat.S_IMODE(discovery_path(root).stat().st_mode) == 0o600
    socket_dir = Path(info["socket"]).parent
    assert stat.S_IMODE(socket_dir.stat().st_mode) == 0o700
    assert info["root"] == str(root)


async def test_agent_exit_is_approved_in_the_editor(editor: Editor, root: Path) -> None:
    await editor.endpoint()

    def agent() -> dict:
        with connect(root) as conn:
            assert conn.request("planMode/enter")["state"]["mode"] == "plan"
            return conn.request("planMode/exit", {"plan": "# Plan\n\n1. a step\n"})

    waiting = asyncio.get_running_loop().run_in_executor(None, agent)
    requested = await editor.wait_for("planMode/approvalRequested")
    await editor.request("planMode/approve", {"approvalId": requested["approvalId"]})
    result = await asyncio.wait_for(waiting, 10)
    assert result["outcome"] == "approved"
    assert "## Approved Plan" in result["toolResult"]
    assert (await editor.state())["mode"] == "default"


async def test_only_plan_mode_methods_are_served(editor: Editor, root: Path) -> None:
    await editor.endpoint()

    def agent() -> tuple[int, str]:
        with connect(root) as conn:
            try:
                conn.request("shutdown")
            except RpcError as exc:
                return exc.code, conn.request("planMode/getState")["mode"]
        raise AssertionError("shutdown was served on the agent endpoint")

    code, mode = await asyncio.get_running_loop().run_in_executor(None, agent)
    assert code == -32601
    assert mode == "default"
    assert (await editor.state())["mode"] == "default"  # the editor's server is still up


async def test_a_dropped_agent_leaves_plan_mode_intact(editor: Editor, root: Path) -> None:
    info = await editor.endpoint()
    conn = Connection(info["socket"])
    await asyncio.get_running_loop().run_in_executor(None, conn.request, "planMode/enter")
    conn._send({"jsonrpc": "2.0", "id": 99, "method": "planMode/exit", "params": {}})
    await editor.wait_for("planMode/approvalRequested")
    conn.close()
    resolved = await editor.wait_for("planMode/approvalResolved")
    assert resolved["outcome"] == "cancelled"
    state = await editor.state()
    assert state["mode"] == "plan"
    assert state["pendingApproval"] is None


async def test_stale_discovery_is_detected(root: Path, home: Path) -> None:
    async with running_editor(root, home) as running:
        await running.endpoint()
        await running.settle()
    # Stopped cleanly: its record is gone with it, and a file in the workspace decides nothing.
    assert not Path(runtime.record_path(str(root))).exists()
    discovery_path(root).write_text(json.dumps({"socket": "/elsewhere.sock", "pid": os.getpid()}))
    with pytest.raises(NoServer, match="no plan-mode server is running"):
        connect(root)
    # A server that died without cleaning up: its record names a process that is gone.
    record = Path(runtime.record_path(str(root)))
    dead = {"state": "running", "socket": "/nonexistent/agent.sock", "pid": 2**22 + 7}
    try:
        record.write_text(json.dumps(dead))
        with pytest.raises(NoServer, match="gone"):
            connect(root)
        record.write_text(json.dumps({**dead, "pid": os.getpid()}))
        with pytest.raises(NoServer, match="cannot connect"):
            connect(root)
    finally:
        record.unlink(missing_ok=True)


async def test_the_record_is_private_and_names_the_endpoint(editor: Editor, root: Path) -> None:
    info = await editor.endpoint()
    record = Path(runtime.record_path(str(root)))
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == 0o700
    assert json.loads(record.read_text())["state"] == "running"
    assert read_discovery(root)["socket"] == info["socket"]


async def test_a_starting_server_forgets_dead_servers_of_deleted_workspaces(
    root: Path, home: Path, tmp_path: Path
) -> None:
    """Their records would pile up; a dead server's record of a workspace that still exists
    stays (the hook denies there until a server starts again)."""
    runtime.ensure_directory()
    kept, deleted = tmp_path / "kept", tmp_path / "deleted"
    kept.mkdir()
    records = {w: Path(runtime.record_path(str(w))) for w in (kept, deleted)}
    for workspace, record in records.items():
        record.write_text(
            json.dumps({"state": "running", "pid": 2**22 + 7, "root": str(workspace)})
        )
    try:
        async with running_editor(root, home) as running:
            await running.endpoint()
        assert records[kept].exists()
        assert not records[deleted].exists()
    finally:
        for record in records.values():
            record.unlink(missing_ok=True)
