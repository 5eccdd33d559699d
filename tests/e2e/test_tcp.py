"""`planmode lsp --tcp --host H --port N`: the same server over TCP, for debugging editors."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class TcpClient:
    def __init__(self, port: int) -> None:
        deadline = time.monotonic() + 20
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
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
            self.buffer += self.sock.recv(65536)
        header, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        while len(self.buffer) < length:
            self.buffer += self.sock.recv(65536)
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return json.loads(body)


def test_tcp_transport(tmp_path: Path) -> None:
    root = tmp_path / "workspace"
    root.mkdir()
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "planmode",
            "lsp",
            "--tcp",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        client = TcpClient(port)
        init = client.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "initializationOptions": {"planMode": {"sessionId": "tcp"}},
            },
        )
        commands = init["result"]["capabilities"]["executeCommandProvider"]["commands"]
        assert "planMode.approve" in commands and "planMode.reject" in commands
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        entered = client.request("planMode/enter", {})["result"]
        assert entered["state"]["sessionId"] == "tcp"
        assert entered["state"]["mode"] == "plan"
        assert Path(entered["state"]["planFilePath"]).parent == root / ".claude" / "plans"
        denied = client.request(
            "planMode/checkTool", {"tool": "Bash", "input": {"command": "rm x"}}
        )
        assert denied["result"]["behavior"] == "deny"
        client.request("shutdown", None)
        client.send({"jsonrpc": "2.0", "method": "exit", "params": None})
        server.wait(timeout=20)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
