"""Finding a running server's agent endpoint: the discovery file and a tiny JSON-RPC client.

Stdlib only — the CLI and the Claude Code hook run once per agent tool call and must start
fast, so nothing here may import pygls or pydantic.

A running server listens on a Unix domain socket inside a 0700 directory and describes it in
``<root>/.claude/plan-mode/endpoint.json`` (mode 0600). Same ``planMode/*`` methods and LSP
framing as the editor connection.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import os
import socket
from pathlib import Path
from typing import Any

DISCOVERY_NAME = "endpoint.json"


def discovery_path(root: Path) -> Path:
    return root / ".claude" / "plan-mode" / DISCOVERY_NAME


def find_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` with a discovery file."""
    current = start.resolve()
    for candidate in (current, *current.parents):
        if discovery_path(candidate).is_file():
            return candidate
    return None


class NoServer(Exception):
    """No live server for the workspace; the message says why."""


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    return True


def read_discovery(root: Path) -> dict[str, Any]:
    """The endpoint description of the server for ``root``; :class:`NoServer` when absent or
    stale (the process is gone or the socket refuses connections)."""
    path = discovery_path(root)
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NoServer(f"no plan-mode server is running for {root} ({path} is missing)") from None
    except (OSError, ValueError) as exc:
        raise NoServer(f"cannot read {path}: {exc}") from exc
    if not isinstance(info, dict) or not isinstance(info.get("socket"), str):
        raise NoServer(f"{path} does not describe an endpoint")
    pid = info.get("pid")
    if not isinstance(pid, int) or not _pid_alive(pid):
        raise NoServer(f"the plan-mode server for {root} is gone (stale {path}, pid {pid})")
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
        self._buffer = b""
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
        body = json.dumps(message).encode("utf-8")
        self._sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _receive(self) -> dict[str, Any]:
        while b"\r\n\r\n" not in self._buffer:
            self._fill()
        header, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        length = None
        for line in header.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length is None:
            raise ConnectionError("a message without Content-Length")
        while len(self._buffer) < length:
            self._fill()
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        decoded = json.loads(body)
        return decoded if isinstance(decoded, dict) else {}

    def _fill(self) -> None:
        chunk = self._sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self._buffer += chunk


def connect(root: Path, timeout: float | None = 30.0) -> Connection:
    """A connection to the live server for ``root`` (:class:`NoServer` otherwise)."""
    info = read_discovery(root)
    return Connection(info["socket"], timeout)
