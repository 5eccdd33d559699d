"""Finding a running server's agent endpoint: its workspace's record and a tiny JSON-RPC client.

Stdlib only — the CLI runs once per agent tool call and must start fast, so nothing here may
import pygls or pydantic (the agents' hooks have their own, lighter client:
:mod:`planmode.agents.hookclient`).

A running server listens on a Unix domain socket inside a 0700 directory and describes it in
its workspace's record in the user's runtime directory (:mod:`planmode.runtime`), the one the
CLI trusts; ``<root>/.claude/plan-mode/endpoint.json`` (0600) says the same for people, but a
file in the workspace could have come with the repository, so it decides nothing. Same
``planMode/*`` methods and LSP framing (:mod:`planmode.lsp.transport.framing`) as the editor
connection.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
from pathlib import Path
from typing import Any

from planmode import runtime
from planmode.lsp.transport import framing

DISCOVERY_NAME = "endpoint.json"


def discovery_path(root: Path) -> Path:
    """The workspace's own copy of the endpoint description (informational, never read)."""
    return root / ".claude" / "plan-mode" / DISCOVERY_NAME


def find_root(start: Path) -> Path | None:
    """The nearest workspace at or above ``start`` that has (or had) a server."""
    found = runtime.find(str(start))
    return Path(found[0]) if found is not None else None


class NoServer(Exception):
    """No live server for the workspace; the message says why."""


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def read_discovery(root: Path) -> dict[str, Any]:
    """The endpoint description of the server for ``root`` (its record); :class:`NoServer`
    when there is none, it is still starting, or its process is gone."""
    path = runtime.record_path(os.path.realpath(root))
    data = runtime.read(path)
    if data is None:
        raise NoServer(f"no plan-mode server is running for {root} (no record {path})")
    try:
        info = json.loads(data)
    except ValueError as exc:
        raise NoServer(f"cannot read {path}: {exc}") from exc
    if not isinstance(info, dict):
        raise NoServer(f"{path} does not describe an endpoint")
    pid = info.get("pid")
    if not runtime.pid_alive(pid):
        raise NoServer(f"the plan-mode server for {root} is gone (pid {pid}; stale {path})")
    if info.get("state") == "starting":
        raise NoServer(f"the plan-mode server for {root} is still starting; try again")
    if not isinstance(info.get("socket"), str):
        raise NoServer(f"{path} does not describe an endpoint")
    return info


class Connection:
    """A blocking JSON-RPC connection with LSP framing to a server's agent endpoint."""

    def __init__(self, socket_path: str, timeout: float | None = 30.0) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        try:
            self._sock.connect(socket_path)
        except OSError as exc:
            self._sock.close()
            raise NoServer(f"cannot connect to {socket_path}: {exc.strerror or exc}") from exc
        self._reader = framing.Reader()
        self._ids = itertools.count(1)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()

    def settimeout(self, timeout: float | None) -> None:
        self._sock.settimeout(timeout)

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        msg_id = next(self._ids)
        self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params or {}})
        while True:
            message = self._receive()
            if message.get("id") != msg_id or "method" in message:
                continue  # notifications, or answers to someone else
            if "error" in message:
                error = message["error"] or {}
                raise RpcError(int(error.get("code", -32603)), str(error.get("message", "")))
            return message.get("result")

    def _send(self, message: dict[str, Any]) -> None:
        self._sock.sendall(framing.encode(message))

    def _receive(self) -> dict[str, Any]:
        decoded = json.loads(framing.read_blocking(self._recv, self._reader))
        return decoded if isinstance(decoded, dict) else {}

    def _recv(self) -> bytes:
        chunk = self._sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        return chunk


def connect(root: Path, timeout: float | None = 30.0) -> Connection:
    """A connection to the live server for ``root`` (:class:`NoServer` otherwise)."""
    info = read_discovery(root)
    return Connection(info["socket"], timeout)
