"""``planmode lsp --tcp``: the language server on a loopback port, behind a token.

A port on 127.0.0.1 is reachable by every local process and by every web page the user opens
(a ``text/plain`` POST needs no CORS preflight). So, per connection:

* the listener binds loopback addresses only (:func:`check_loopback`);
* the connection must speak LSP framing from its first byte (strict reading,
  :mod:`planmode.lsp.transport.framing`): header lines other than ``Content-Length: N`` and
  ``Content-Type: …`` — an HTTP request line such as ``POST / HTTP/1.1`` — close it
  unanswered, before anything is parsed;
* its first message must be ``initialize`` carrying the server's token in
  ``initializationOptions.planMode.token`` (compared in constant time, then removed from the
  options). Anything else is answered with an error and the connection closed. The token is
  generated at start (or taken from ``PLANMODE_TCP_TOKEN``) and written, with the port, to a
  0600 file (``endpoint_file``), so an editor's configuration can read it;
* each authenticated connection gets its own :class:`PlanModeServer`, as a stdio editor gets
  its own process. Its ``exit`` notification, its ``shutdown`` request or its close end that
  connection only (its agent endpoint and background tasks with it); the listener keeps
  serving the next editor.

The file format and the rules are documented in ``docs/protocol.md`` (section 1).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import os
import secrets
import signal
import socket
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import lsp_method

from planmode.core.approval import now_iso
from planmode.core.plans import write_atomic
from planmode.lsp import protocol
from planmode.lsp.server import PlanModeServer
from planmode.lsp.transport import framing
from planmode.lsp.transport.framing import NotFramed
from planmode.lsp.transport.rpc import PlanModeProtocol

log = logging.getLogger(__name__)

TOKEN_ENV = "PLANMODE_TCP_TOKEN"
MIN_TOKEN_LENGTH = 16
# A connection that has not authenticated within this time is closed.
FIRST_MESSAGE_SECONDS = 10.0
# Bigger than any initialize; a first message claiming more is not an editor.
MAX_FIRST_MESSAGE = 1024 * 1024


class Refused(Exception):
    """A framed first message that is not an authenticated ``initialize``."""

    def __init__(self, message: str, msg_id: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.msg_id = msg_id


# -- start-up checks ---------------------------------------------------------------------------
class UnsafeHost(ValueError):
    pass


def check_loopback(host: str) -> None:
    """Refuse (:class:`UnsafeHost`) a host that is not, or does not resolve only to, loopback
    addresses: the port carries no encryption and the token would cross the network."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError as exc:
        raise UnsafeHost(f"cannot resolve --host {host!r}: {exc}") from exc
    addresses = {str(info[4][0]) for info in infos}
    outside = sorted(a for a in addresses if not ipaddress.ip_address(a.split("%")[0]).is_loopback)
    if not addresses or outside:
        raise UnsafeHost(
            f"refusing to listen on --host {host!r} ({', '.join(outside) or 'no address'}): "
            "planmode lsp --tcp listens on loopback addresses only (127.0.0.1, ::1, localhost). "
            "To reach it from another machine, forward the port over SSH."
        )


def choose_token(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """``PLANMODE_TCP_TOKEN`` when set (at least 16 characters), else a new random token."""
    given = environ.get(TOKEN_ENV)
    if given is None:
        return secrets.token_urlsafe(32)
    if len(given) < MIN_TOKEN_LENGTH or not given.isprintable():
        raise ValueError(f"{TOKEN_ENV} must be at least {MIN_TOKEN_LENGTH} printable characters")
    return given


def default_endpoint_file(port: int) -> Path:
    from planmode.lsp.transport.endpoint import runtime_base

    return runtime_base() / f"tcp-{port}.json"


def authenticate(body: bytes, token: str) -> dict[str, Any]:
    """The first message, when it is ``initialize`` with the right token (removed from it);
    else :class:`Refused`."""
    try:
        message = framing.parse(body)
    except framing.NotJson as exc:
        raise Refused(f"the first message is no JSON-RPC message: {exc}") from exc
    if not isinstance(message, dict):
        raise Refused("the first message is not a JSON-RPC object")
    msg_id = message.get("id")
    msg_id = msg_id if isinstance(msg_id, int | str) and not isinstance(msg_id, bool) else None
    if message.get("method") != types.INITIALIZE or msg_id is None:
        raise Refused(
            "the first message must be the initialize request, with the server's token in "
            "initializationOptions.planMode.token",
            msg_id,
        )
    params = message.get("params")
    options = params.get("initializationOptions") if isinstance(params, dict) else None
    section = options.get(protocol.SETTINGS_SECTION) if isinstance(options, dict) else None
    given = section.pop("token", None) if isinstance(section, dict) else None
    if not isinstance(given, str) or not hmac.compare_digest(
        given.encode("utf-8", "replace"), token.encode("utf-8")
    ):
        raise Refused(
            "this planmode TCP server needs its token in initializationOptions.planMode.token "
            "(from the server's endpoint file)",
            msg_id,
        )
    return message


# -- one connection ----------------------------------------------------------------------------
class TcpProtocol(PlanModeProtocol):
    """An editor's TCP connection: ``exit`` ends the connection, never the process."""

    closed = False

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        if (user_handler := self.fm.features.get(types.EXIT)) is not None:
            yield user_handler, args, None
        self.closed = True
        if self.writer is not None:
            self.writer.close()


def end_connection(server: PlanModeServer) -> None:
    """What the editor's leaving ends: what the features keep waiting on it (its agent
    endpoint, exits awaiting a decision), background tasks and requests."""
    server.stopping = True
    server.connection_ended()
    server.cancel_tasks()
    for future in list(server.protocol._request_futures.values()):
        future.cancel()


class TcpListener:
    """Serves each editor that connects with a server of its own, made by ``make_server``
    (lsp/app.py's ``create_server``) with :class:`TcpProtocol`."""

    def __init__(
        self,
        token: str,
        endpoint_file: Path | None,
        make_server: Callable[[type[TcpProtocol]], PlanModeServer],
    ) -> None:
        self.token = token
        self.endpoint_file = endpoint_file
        self.make_server = make_server
        self.servers: set[PlanModeServer] = set()
        self._listener: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> int:
        """Listen; write the endpoint file; return the port (useful with port 0)."""
        self._listener = await asyncio.start_server(self._connection, host, port)
        bound = int(self._listener.sockets[0].getsockname()[1])
        if self.endpoint_file is None:
            self.endpoint_file = default_endpoint_file(bound)
        info = {
            "version": 1,
            "transport": "tcp",
            "host": host,
            "port": bound,
            "token": self.token,
            "pid": os.getpid(),
            "startedAt": now_iso(),
        }
        # 0600 from the start: the token is never readable by others, not even briefly.
        write_atomic(self.endpoint_file, json.dumps(info, indent=2) + "\n", mode=0o600)
        log.info("listening on %s:%s; token in %s", host, bound, self.endpoint_file)
        return bound

    async def serve_forever(self) -> None:
        assert self._listener is not None
        async with self._listener:
            await self._listener.serve_forever()

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
        if self.endpoint_file is None:
            return
        with contextlib.suppress(OSError, ValueError):
            info = json.loads(self.endpoint_file.read_text(encoding="utf-8"))
            if info.get("pid") == os.getpid():
                self.endpoint_file.unlink()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        # LSP framing from the first byte, and a first message no bigger than an initialize.
        framed = framing.Reader(strict=True, limit=MAX_FIRST_MESSAGE)
        try:
            first = await self._first_message(reader, framed, writer, peer)
            if first is not None:
                framed.limit = framing.MAX_CONTENT_LENGTH
                await self._serve(first, reader, framed, writer)
        except Exception:
            log.exception("TCP connection from %s failed", peer)
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _first_message(
        self,
        reader: asyncio.StreamReader,
        framed: framing.Reader,
        writer: asyncio.StreamWriter,
        peer: Any,
    ) -> dict[str, Any] | None:
        try:
            body = await asyncio.wait_for(framing.read_async(reader, framed), FIRST_MESSAGE_SECONDS)
        except NotFramed as exc:
            log.warning("closed a TCP connection from %s: %s", peer, exc)
            return None
        except (TimeoutError, ConnectionError):
            log.warning("closed a TCP connection from %s: no message in time", peer)
            return None
        if body is None:
            return None
        try:
            return authenticate(body, self.token)
        except Refused as exc:
            log.warning("refused a TCP connection from %s: %s", peer, exc.message)
            if exc.msg_id is not None:
                error = {"code": -32600, "message": exc.message}
                writer.write(framing.encode({"jsonrpc": "2.0", "id": exc.msg_id, "error": error}))
                with contextlib.suppress(ConnectionError):
                    await writer.drain()
            return None

    async def _serve(
        self,
        first: dict[str, Any],
        reader: asyncio.StreamReader,
        framed: framing.Reader,
        writer: asyncio.StreamWriter,
    ) -> None:
        server = self.make_server(TcpProtocol)
        self.servers.add(server)
        rpc = server.protocol
        assert isinstance(rpc, TcpProtocol)
        rpc.set_writer(writer)
        try:
            rpc.handle_body(json.dumps(first).encode("utf-8"))
            while not rpc.closed:
                try:
                    body = await framing.read_async(reader, framed)
                except NotFramed as exc:
                    log.warning("closed an editor's TCP connection: %s", exc)
                    break
                except ConnectionError:
                    break
                if body is None:
                    break
                rpc.handle_body(body)
        finally:
            self.servers.discard(server)
            end_connection(server)


async def serve(
    host: str,
    port: int,
    token: str,
    endpoint_file: Path | None,
    make_server: Callable[[type[TcpProtocol]], PlanModeServer],
) -> None:
    """Listen until the process is stopped (a signal); connections come and go."""
    listener = TcpListener(token, endpoint_file, make_server)
    main = asyncio.current_task()
    if main is not None:  # SIGTERM ends the listener cleanly (endpoint file removed)
        with contextlib.suppress(NotImplementedError, RuntimeError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main.cancel)
    await listener.start(host, port)
    try:
        await listener.serve_forever()
    finally:
        listener.close()
        for server in list(listener.servers):
            end_connection(server)
