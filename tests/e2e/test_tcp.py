"""`planmode lsp --tcp`: loopback only, a token in initializationOptions, LSP framing or the
door, and no connection can stop the server (docs/protocol.md section 1)."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planmode.lsp.transport.framing import NotFramed, Reader
from tests.e2e.garbage import GARBAGE, LSP_GARBAGE, errors

PLANMODE_TCP = [sys.executable, "-m", "planmode", "lsp", "--tcp"]


class TcpClient:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""
        self.next_id = 0

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: dict | None) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                return message
            if "method" in message and "id" in message:  # a server request: answer it
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    def receive(self) -> dict:
        while b"\r\n\r\n" not in self.buffer:
            self.fill()
        header, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        while len(self.buffer) < length:
            self.fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return json.loads(body)

    def fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        self.buffer += chunk

    def closed_by_server(self) -> bytes:
        """Everything the server still sent before closing; raises if it does not close
        within the socket's timeout."""
        received = b""
        while chunk := self.sock.recv(65536):
            received += chunk
        return received

    def initialize(self, root: Path, token: str | None, session: str = "tcp") -> dict:
        options: dict[str, Any] = {"sessionId": session}
        if token is not None:
            options["token"] = token
        return self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "initializationOptions": {"planMode": options},
            },
        )

    def close(self) -> None:
        self.sock.close()


class TcpServer:
    def __init__(self, process: subprocess.Popen[bytes], info: dict[str, Any]) -> None:
        self.process = process
        self.port: int = info["port"]
        self.token: str = info["token"]

    def client(self) -> TcpClient:
        return TcpClient(self.port)

    def editor(self, root: Path, session: str = "tcp") -> TcpClient:
        client = self.client()
        init = client.initialize(root, self.token, session)
        assert "result" in init, init
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        return client

    def alive(self) -> bool:
        return self.process.poll() is None


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    root.mkdir()
    return root


@pytest.fixture
def tcp_server(tmp_path: Path, workspace: Path) -> Iterator[TcpServer]:
    endpoint = tmp_path / "run" / "tcp.json"
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [*PLANMODE_TCP, "--port", "0", "--endpoint-file", str(endpoint)],
        cwd=workspace,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        deadline = time.monotonic() + 20
        while not endpoint.exists():
            assert process.poll() is None, (tmp_path / "server.log").read_text()
            assert time.monotonic() < deadline, "the endpoint file never appeared"
            time.sleep(0.05)
        assert stat.S_IMODE(endpoint.stat().st_mode) == 0o600
        info = json.loads(endpoint.read_text())
        assert info["transport"] == "tcp" and info["host"] == "127.0.0.1"
        assert info["pid"] == process.pid and len(info["token"]) >= 32
        yield TcpServer(process, info)
        assert process.poll() is None, "the server stopped"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        assert not endpoint.exists(), "the endpoint file outlived the server"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log.close()


def test_an_editor_with_the_token_works(tcp_server: TcpServer, workspace: Path) -> None:
    client = tcp_server.client()
    init = client.initialize(workspace, tcp_server.token)
    commands = init["result"]["capabilities"]["executeCommandProvider"]["commands"]
    assert "planMode.approve" in commands and "planMode.reject" in commands
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    entered = client.request("planMode/enter", {})["result"]
    assert entered["state"]["sessionId"] == "tcp"
    assert entered["state"]["mode"] == "plan"
    assert Path(entered["state"]["planFilePath"]).parent == workspace / ".claude" / "plans"
    denied = client.request("planMode/checkTool", {"tool": "Bash", "input": {"command": "rm x"}})
    assert denied["result"]["behavior"] == "deny"
    client.request("shutdown", None)
    client.send({"jsonrpc": "2.0", "method": "exit", "params": None})
    client.closed_by_server()  # exit ends this connection (recv times out otherwise)...
    # ...and only it: the next editor finds the server, and the session's saved state.
    again = tcp_server.editor(workspace)
    assert again.request("planMode/getState", {})["result"]["mode"] == "plan"
    again.close()


def http_post(port: int, body: bytes) -> bytes:
    """What a web page's fetch(…, {method: "POST", body: "…"}) sends (text/plain: no CORS
    preflight); returns what the server answered before closing."""
    request = (
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: text/plain;charset=UTF-8\r\n"
        b"Origin: https://evil.example\r\nContent-Length: %d\r\n\r\n" % (port, len(body))
    ) + body
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def test_an_http_post_is_refused_and_changes_nothing(
    tcp_server: TcpServer, workspace: Path
) -> None:
    editor = tcp_server.editor(workspace)
    assert editor.request("planMode/enter", {})["result"]["state"]["mode"] == "plan"
    set_mode = {"jsonrpc": "2.0", "id": 1, "method": "planMode/setMode"}
    for body in (
        b"setMode bypassPermissions",
        json.dumps({**set_mode, "params": {"mode": "bypassPermissions"}}).encode(),
        json.dumps(
            {**set_mode, "params": {"mode": "bypassPermissions", "sessionId": "tcp"}}
        ).encode(),
    ):
        assert http_post(tcp_server.port, body) == b""
    state = editor.request("planMode/getState", {})["result"]
    assert state["mode"] == "plan"
    assert not any("bypass" in p.read_text() for p in workspace.rglob("*.json"))
    editor.close()


@pytest.mark.parametrize(
    "first",
    [
        "no-token",
        "wrong-token",
        "token-elsewhere",
        "not-initialize",
    ],
)
def test_a_connection_without_the_token_is_refused(
    tcp_server: TcpServer, workspace: Path, first: str
) -> None:
    client = tcp_server.client()
    if first == "not-initialize":
        client.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "planMode/setMode",
                "params": {"mode": "bypassPermissions", "token": tcp_server.token},
            }
        )
        answer = client.receive()
    elif first == "token-elsewhere":
        client.next_id = 0
        answer = client.request(
            "initialize",
            {
                "processId": None,
                "rootUri": workspace.as_uri(),
                "capabilities": {},
                "initializationOptions": {"token": tcp_server.token},
            },
        )
    else:
        token = None if first == "no-token" else tcp_server.token[:-1] + "x"
        answer = client.initialize(workspace, token)
    assert answer["id"] == 1
    assert answer["error"]["code"] == -32600
    assert "initializationOptions.planMode.token" in answer["error"]["message"]
    assert client.closed_by_server() == b""
    assert not (workspace / ".claude").exists(), "a refused connection changed the workspace"


def test_a_garbage_first_line_is_closed_unanswered(tcp_server: TcpServer) -> None:
    for garbage in (b"GET / HTTP/1.1\r\n\r\n", b"\x16\x03\x01\x02\x00", b"Content-Length: x\r\n"):
        with socket.create_connection(("127.0.0.1", tcp_server.port), timeout=10) as sock:
            sock.sendall(garbage)
            sock.shutdown(socket.SHUT_WR)
            assert sock.recv(65536) == b""


def is_framed(data: bytes) -> bool:
    reader = Reader(strict=True)
    reader.feed(data)
    try:
        return reader.next() is not None and not reader.pending
    except NotFramed:
        return False


def test_an_editors_bad_messages_get_their_own_errors(
    tcp_server: TcpServer, workspace: Path, tmp_path: Path
) -> None:
    """Once authenticated, bad messages are answered as on stdio (tests/e2e/test_bad_input.py):
    200k-deep nesting and a body that was no UTF-8 got no answer and logged a traceback."""
    client = tcp_server.editor(workspace)
    # Bytes that are no LSP framing close a TCP connection (test_a_garbage_first_line_…).
    framed = [(junk, expected) for junk, expected in GARBAGE + LSP_GARBAGE if is_framed(junk)]
    assert len(framed) > 20
    for junk, expected in framed:
        client.sock.sendall(junk)
        client.next_id += 1
        client.send({"jsonrpc": "2.0", "id": client.next_id, "method": "planMode/getState"})
        responses = []
        while (message := client.receive()).get("id") != client.next_id or "method" in message:
            if "method" not in message:
                responses.append(message)
            elif "id" in message:  # a server request: answer it
                client.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        assert message["result"]["sessionId"] == "tcp"
        assert errors(responses) == ([] if expected is None else [expected]), junk
    assert tcp_server.alive()
    assert "Traceback" not in (tmp_path / "server.log").read_text(errors="replace")


def test_no_connection_stops_the_server(tcp_server: TcpServer, workspace: Path) -> None:
    # Dropped without a word, mid-session, with exit but no shutdown, with an idle peer open.
    idle = socket.create_connection(("127.0.0.1", tcp_server.port), timeout=10)
    first = tcp_server.editor(workspace, session="one")
    first.request("planMode/enter", {})
    first.close()
    second = tcp_server.editor(workspace, session="two")
    second.send({"jsonrpc": "2.0", "method": "exit", "params": None})
    second.closed_by_server()
    raw = socket.create_connection(("127.0.0.1", tcp_server.port), timeout=10)
    raw.close()
    time.sleep(0.3)
    assert tcp_server.alive()
    third = tcp_server.editor(workspace, session="one")
    assert third.request("planMode/getState", {})["result"]["mode"] == "plan"
    # Two editors at once: each its own connection, neither answered on the other's.
    fourth = tcp_server.editor(workspace, session="two")
    assert fourth.request("planMode/getState", {})["result"]["sessionId"] == "two"
    assert third.request("planMode/getState", {})["result"]["sessionId"] == "one"
    third.close()
    fourth.close()
    idle.close()


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.1"])
def test_a_host_that_is_not_loopback_is_refused(tmp_path: Path, host: str) -> None:
    done = subprocess.run(
        [*PLANMODE_TCP, "--host", host, "--port", "0", "--endpoint-file", str(tmp_path / "t")],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ},
    )
    assert done.returncode == 2
    assert "listens on loopback addresses only" in done.stderr
    assert not (tmp_path / "t").exists()
