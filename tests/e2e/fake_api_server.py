"""The plumbing every scripted model API shares (``tests/e2e/<agent>/fake_api.py``).

A fake API serves on a free port of 127.0.0.1 in a thread and logs every request. The test
plays the model: ``turn()`` waits for the CLI's next main-loop request, ``reply()`` answers
it; a side request (a title, a router) is answered at once. What each agent's module adds is
its wire: the routes, the request's shape, the answer's stream.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Generic, TypeVar

Answer = list[dict[str, Any]]
RequestT = TypeVar("RequestT")


class JsonHandler(BaseHTTPRequestHandler):
    """HTTP/1.1, nothing written to stderr, the request body read and JSON sent.

    A fake API answers ``get`` and ``post``; ``head`` and ``connect`` answer 501, as
    ``BaseHTTPRequestHandler`` answers a method it has no ``do_`` for, unless it says more."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        return

    def do_GET(self) -> None:
        self.get()

    def do_POST(self) -> None:
        self.post()

    def do_HEAD(self) -> None:
        self.head()

    def do_CONNECT(self) -> None:
        self.connect()

    def get(self) -> None:
        self._unsupported()

    def post(self) -> None:
        self._unsupported()

    def head(self) -> None:
        self._unsupported()

    def connect(self) -> None:
        self._unsupported()

    def _unsupported(self) -> None:
        self.send_error(HTTPStatus.NOT_IMPLEMENTED, f"Unsupported method ({self.command!r})")

    def send_empty(self, status: int) -> None:
        """An answer with no body."""
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def read_body(self) -> bytes:
        """The request's body (``{}`` when it has none)."""
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b"{}"

    def send_json(
        self,
        payload: Any,
        status: int = 200,
        *,
        content_type: str = "application/json",
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


@dataclass
class ScriptedApi(Generic[RequestT]):
    """The server, its request log and the queue of main-loop turns.

    A subclass says which requests are the agent's turns (``is_main_loop``), what a side
    request gets (``side_reply``) and what a turn the test never answered gets
    (``unanswered``); ``client`` names the CLI in a timeout."""

    log: list[RequestT] = field(default_factory=list)
    _turns: queue.Queue[tuple[RequestT, queue.Queue[Answer]]] = field(default_factory=queue.Queue)
    _server: ThreadingHTTPServer | None = None
    _pending: queue.Queue[Answer] | None = None

    client: ClassVar[str] = "the CLI"
    # How long a main-loop request waits for the test's reply (seconds).
    answer_timeout: ClassVar[float] = 300

    def is_main_loop(self, request: RequestT) -> bool:
        raise NotImplementedError

    def side_reply(self, request: RequestT) -> Answer:
        raise NotImplementedError

    def unanswered(self) -> Answer:
        raise NotImplementedError

    def serve(self, handler: type[BaseHTTPRequestHandler]) -> int:
        """Serve ``handler`` on a free port of 127.0.0.1 in a daemon thread; the port."""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self._server.server_port

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # the model's side
    def _answer(self, request: RequestT) -> Answer:
        """What the handler streams back: at once for a side request, else the test's reply."""
        if not self.is_main_loop(request):
            return self.side_reply(request)
        answer: queue.Queue[Answer] = queue.Queue()
        self._turns.put((request, answer))
        try:
            return answer.get(timeout=self.answer_timeout)
        except queue.Empty:
            return self.unanswered()

    def turn(self, timeout: float = 60.0) -> RequestT:
        """Wait for the CLI's next main-loop request; answer it with ``reply``."""
        if self._pending is not None:
            raise AssertionError("the previous turn was never answered")
        try:
            request, self._pending = self._turns.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise TimeoutError(f"no request from {self.client} within {timeout:.0f} s") from None
        return request

    def reply(self, *blocks: dict[str, Any]) -> None:
        """Answer the turn ``turn()`` returned with these blocks, streamed."""
        if self._pending is None:
            raise AssertionError("reply() without a turn()")
        self._pending.put(list(blocks))
        self._pending = None

    def main_loop(self) -> list[RequestT]:
        return [r for r in self.log if self.is_main_loop(r)]


async def next_turn(
    api: ScriptedApi[RequestT], timeout: float, screen: Callable[[], str]
) -> RequestT:
    """``api.turn`` in a thread, so an editor's LSP client keeps answering the server meanwhile,
    waiting a second at a time up to ``timeout``. A turn that does not come back means the CLI
    shows something in the terminal (a dialog, a question): the error carries ``screen()``."""

    def wait() -> RequestT:
        deadline = time.monotonic() + timeout
        while True:
            try:
                return api.turn(min(1.0, max(0.0, deadline - time.monotonic())))
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise TimeoutError(
                        f"{api.client} sent no request within {timeout:.0f} s; its screen:\n"
                        + screen()
                    ) from None

    return await asyncio.to_thread(wait)
