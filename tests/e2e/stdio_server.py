"""The real server as a child process spoken to over stdio by a small blocking LSP client.

For fault and bad-input tests: the test owns the process (so it can SIGKILL it), can write raw
bytes to its stdin, and gets every answer with a timeout, never a hang. The client answers the
server's own requests the way a minimal editor does (no workspace/applyEdit, no
showDocument), so allowed edits and plans are written to disk by the server itself.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planmode.lsp.transport.discovery import RpcError, discovery_path

SERVER = [sys.executable, "-m", "planmode", "lsp", "--log-level", "WARNING"]
START_TIMEOUT = 30.0


class ServerGone(Exception):
    """The server process closed its output (it died or exited)."""


def frame(message: Any) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream: Any) -> dict[str, Any]:
    """The next message a server wrote to ``stream`` (its stdout), read blocking."""
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    assert length, "the server closed stdout"
    return json.loads(stream.read(length))


class StdioServer:
    def __init__(
        self,
        root: Path,
        home: Path,
        *,
        session_id: str | None = None,
        init_options: dict[str, Any] | None = None,
        log: Path | None = None,
        ready: bool = True,
    ) -> None:
        self.root = root
        env = {**os.environ, "HOME": str(home)}
        for key in list(env):
            if key.startswith("CLAUDE_CODE_"):
                env.pop(key)
        self._log = open(log or os.devnull, "ab")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            cwd=root,
            env=env,
        )
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._answers: dict[Any, dict[str, Any]] = {}
        # How many notifications and requests the server has sent: waiters check again when it
        # grows (see `until`).
        self._heard = 0
        self._closed = False
        self.notifications: list[dict[str, Any]] = []
        # Every response, in the order it came (an error to a bad message may have id null).
        self.responses: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        options = dict(init_options or {})
        if session_id is not None:
            options["sessionId"] = session_id
        self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                "capabilities": {"workspace": {"configuration": True}},
                "initializationOptions": {"planMode": options} if options else None,
                "clientInfo": {"name": "stdio test client"},
            },
            timeout=START_TIMEOUT,
        )
        if ready:  # else the caller finishes the start-up: the server is starting until then
            self.finish_start()

    def finish_start(self) -> None:
        """The ``initialized`` notification, and the wait for the agent endpoint it opens."""
        self.notify("initialized", {})
        self.wait_endpoint()

    # -- wire ----------------------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self.proc.pid

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        with self._write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(frame(message))

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def start(self, method: str, params: Any = None) -> int:
        """Send a request without waiting; :meth:`answer` collects it."""
        msg_id = next(self._ids)
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return msg_id

    def answer(self, msg_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The raw response message to ``msg_id`` (``result`` or ``error``)."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while msg_id not in self._answers:
                if self._closed:
                    raise ServerGone(f"the server exited (code {self.proc.poll()})")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no answer to request {msg_id} within {timeout}s")
                self._arrived.wait(left)
            return self._answers.pop(msg_id)

    def poll_answer(self, msg_id: Any) -> dict[str, Any] | None:
        with self._lock:
            return self._answers.pop(msg_id, None)

    def request(self, method: str, params: Any = None, timeout: float = 10.0) -> Any:
        message = self.answer(self.start(method, params), timeout)
        if "error" in message and message["error"] is not None:
            error = message["error"]
            raise RpcError(int(error.get("code", 0)), str(error.get("message", "")))
        return message.get("result")

    def state(self, session_id: str | None = None) -> dict[str, Any]:
        params = {} if session_id is None else {"sessionId": session_id}
        return self.request("planMode/getState", params)

    def _read_loop(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        try:
            while True:
                length = None
                while True:
                    line = stream.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                assert length is not None, "a message without Content-Length"
                body = stream.read(length)
                if len(body) < length:
                    return
                self._dispatch(json.loads(body))
        finally:
            with self._arrived:
                self._closed = True
                self._arrived.notify_all()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self.server_requests.append(message)
            self._answer_server(message)
            self._hear()
        elif "method" in message:
            self.notifications.append(message)
            self._hear()
        else:
            with self._arrived:
                self.responses.append(message)
                self._answers[message.get("id")] = message
                self._arrived.notify_all()

    def _hear(self) -> None:
        with self._arrived:
            self._heard += 1
            self._arrived.notify_all()

    @property
    def heard(self) -> int:
        """How many notifications and requests the server has sent so far."""
        with self._lock:
            return self._heard

    def until(self, check: Callable[[], Any], timeout: float, what: str) -> Any:
        """``check()`` once it returns something truthy: called now and again after each
        notification or request from the server (what it looks at must change with one)."""
        deadline = time.monotonic() + timeout
        while True:
            heard = self.heard
            value = check()
            if value:
                return value
            if not self.wait_heard(heard, deadline):
                if self._closed:
                    raise AssertionError(f"{what} (the server exited, code {self.proc.poll()})")
                raise AssertionError(f"{what} (after {timeout}s)")

    def wait_heard(self, heard: int, deadline: float, answer_to: Any = None) -> bool:
        """Wait until the server has sent more than ``heard`` notifications and requests, or
        the answer to ``answer_to``; False at ``deadline`` or once it has closed its output."""
        with self._arrived:
            while self._heard == heard and answer_to not in self._answers:
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    return False
                self._arrived.wait(left)
            return True

    def _answer_server(self, message: dict[str, Any]) -> None:
        """What a minimal editor answers to the server's own requests."""
        method = message["method"]
        result: Any = None
        if method == "workspace/configuration":
            result = [None for _ in (message.get("params") or {}).get("items", [])]
        with contextlib.suppress(OSError, ValueError):
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    # -- lifecycle -----------------------------------------------------------------------
    def endpoint_info(self) -> dict[str, Any] | None:
        try:
            info = json.loads(discovery_path(self.root).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return info if isinstance(info, dict) else None

    def wait_endpoint(self, timeout: float = START_TIMEOUT) -> dict[str, Any]:
        """The discovery file once it describes this process's endpoint."""
        # The server opens it while handling `initialized`, then pushes the session's state.
        info = self.until(
            lambda: (i := self.endpoint_info()) is not None and i.get("pid") == self.pid and i,
            timeout,
            "the agent endpoint never appeared",
        )
        return dict(info)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """kill -9: no shutdown, no cleanup, no atexit."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        self.proc.wait(10)
        self._reader.join(5)
        self._close_pipes()

    def close(self) -> None:
        """A polite shutdown; a server that does not go within seconds is killed."""
        if self.alive():
            try:
                self.request("shutdown", None, timeout=5)
                self.notify("exit", None)
                self.proc.wait(5)
            except (
                OSError,
                ValueError,
                TimeoutError,
                ServerGone,
                RpcError,
                subprocess.SubprocessError,
            ):
                pass
        if self.alive():
            self.kill()
        self._close_pipes()

    def _close_pipes(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()
        self._log.close()

    def __enter__(self) -> StdioServer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
