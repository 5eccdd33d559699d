"""The agent endpoint: the same ``planMode/*`` requests on a socket only this user can reach.

While the editor's server runs it also listens on a Unix domain socket in a fresh 0700
directory under the user's runtime directory (:mod:`planmode.runtime`, else the temp
directory), and says so in its workspace's record there (``starting`` from ``initialize``,
``running`` with the socket, removed when it stops: what ``planmode hook`` and the CLI trust)
and, for people and older tools, in ``<root>/.claude/plan-mode/endpoint.json`` (0600; in the
state directory wherever it is kept, :mod:`planmode.core.state_dir`). Each
connection gets its own JSON-RPC protocol sharing the server's handlers, so an agent's
``planMode/exit`` shows its plan in the editor and waits for the user there. Only
``planMode/*`` methods are served, and a peer running as another user is refused
(SO_PEERCRED). The server's endpoint, open or not, is the feature object :class:`Endpoint`.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import os
import shutil
import socket
import struct
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcMethodNotFound
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage

from planmode import __version__, runtime
from planmode.core.approval import now_iso
from planmode.core.plans import write_atomic
from planmode.core.state_dir import STATE, StatePlace
from planmode.lsp import protocol
from planmode.lsp.params import PingParams
from planmode.lsp.results import OkResult
from planmode.lsp.server import Feature, PlanModeServer
from planmode.lsp.transport import framing
from planmode.lsp.transport.discovery import DISCOVERY_NAME
from planmode.lsp.transport.rpc import PlanModeProtocol

log = logging.getLogger(__name__)

# Beside each agent socket: {"root", "pid"} of the server listening on it (mode 0600).
SERVER_INFO = "server.json"


class AgentProtocol(PlanModeProtocol):
    """One agent connection: the server's ``planMode/*`` handlers, answers to this peer."""

    def __init__(self, server: PlanModeServer) -> None:
        super().__init__(server, server.protocol._converter)
        self.fm = server.protocol.fm

    def structure_top(self, data: dict[str, Any]) -> Any:
        method = data.get("method")
        if isinstance(method, str) and "jsonrpc" in data and not method.startswith("planMode/"):
            # Not ours to parse as LSP: answered "method not found" (or ignored, if a
            # notification other than $/cancelRequest).
            if "id" in data:
                return JsonRPCRequestMessage(
                    id=data["id"], method=method, jsonrpc=data["jsonrpc"], params=None
                )
            if method != "$/cancelRequest":
                return JsonRPCNotification(method=method, jsonrpc=data["jsonrpc"], params=None)
        return super().structure_top(data)

    def _get_handler(self, feature_name: str) -> Any:
        if not feature_name.startswith("planMode/"):
            raise JsonRpcMethodNotFound.of(feature_name)
        return super()._get_handler(feature_name)


def runtime_base() -> Path:
    """The user's runtime directory (:func:`planmode.runtime.directory`), else the temp
    directory (socket directories are private on their own; records are not kept there)."""
    try:
        return Path(runtime.ensure_directory())
    except OSError as exc:
        log.warning("using the temp directory: %s", exc)
    return Path(tempfile.gettempdir())


def _peer_uid(writer: asyncio.StreamWriter) -> int | None:
    sock = writer.get_extra_info("socket")
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def remove_dead_endpoints(base: Path) -> None:
    """Socket directories of servers that died without cleaning up (kill -9): a socket that
    refuses connections has no listener, and never will again."""
    for directory in base.glob("pm-*"):
        sock_path = directory / "agent.sock"
        if not directory.is_dir() or directory.stat().st_uid != os.getuid():
            continue
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.settimeout(0.2)
            probe.connect(str(sock_path))
        except (ConnectionRefusedError, FileNotFoundError):
            # Refused, or no socket at all in a directory older than a minute (not one
            # being set up right now).
            if sock_path.exists() or directory.stat().st_mtime < time.time() - 60:
                shutil.rmtree(directory, ignore_errors=True)
        except OSError:
            pass
        finally:
            probe.close()


def remove_orphan_records(base: Path) -> None:
    """Records of servers that died for workspaces that are gone too: nobody plans there any
    more, so "its server is gone" has no one left to tell. A record of a workspace that still
    exists stays: that is how the hook knows its server died."""
    for path in base.glob(f"{runtime.RECORD_PREFIX}*.json"):
        with contextlib.suppress(OSError, ValueError):
            info = json.loads(runtime.read(str(path)) or b"{}")
            if not isinstance(info, dict) or not isinstance(info.get("root"), str):
                continue
            if not os.path.isdir(info["root"]) and not runtime.pid_alive(info.get("pid")):
                path.unlink()


class WorkspaceRecord:
    """This server's record of its workspace in the user's runtime directory
    (:mod:`planmode.runtime`): left behind only by a server that died."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path: Path | None = None
        self.socket: str | None = None

    def write(self, state: str, socket_path: str | None = None) -> None:
        """Record ``state``; a failure is logged (the hook then finds no server), not fatal."""
        try:
            path = Path(runtime.write_record(str(self.root), state, socket_path))
        except OSError as exc:
            log.error("no record of this server for planmode hook: %s", exc)
            return
        self.path, self.socket = path, socket_path

    def remove(self) -> None:
        """Gone with the server that wrote it: not when another server of the workspace has
        written its own since."""
        path, self.path = self.path, None
        if path is None:
            return
        with contextlib.suppress(OSError, ValueError):
            info = json.loads(path.read_text(encoding="utf-8"))
            if info.get("pid") == os.getpid() and info.get("socket") == self.socket:
                path.unlink()


class AgentEndpoint:
    def __init__(self, server: PlanModeServer, root: Path) -> None:
        self.server = server
        self.root = root
        self.directory: Path | None = None
        self.socket_path: Path | None = None
        self.record = WorkspaceRecord(root)
        self.state = StatePlace(root, STATE)
        self._listener: asyncio.AbstractServer | None = None
        self._stop = threading.Event()

    @property
    def discovery_file(self) -> Path:
        """Where the endpoint description is kept now (never written through a symlink)."""
        return self.state.path(DISCOVERY_NAME)

    async def start(self) -> None:
        base = runtime_base()
        remove_dead_endpoints(base)
        remove_orphan_records(base)
        self.directory = Path(tempfile.mkdtemp(prefix="pm-", dir=base))
        os.chmod(self.directory, 0o700)
        self.socket_path = self.directory / "agent.sock"
        self._listener = await asyncio.start_unix_server(self._serve, path=str(self.socket_path))
        os.chmod(self.socket_path, 0o600)
        # Which workspace this socket serves: how a teammate's server finds the lead's.
        write_atomic(
            self.directory / SERVER_INFO,
            json.dumps({"root": str(self.root), "pid": os.getpid()}) + "\n",
            mode=0o600,
        )
        # The record first: whoever waits for the workspace file finds the record too.
        self.record.write("running", str(self.socket_path))
        info = {
            "version": 1,
            "transport": "unix",
            "socket": str(self.socket_path),
            "pid": os.getpid(),
            "root": str(self.root),
            "serverVersion": __version__,
            "startedAt": now_iso(),
        }
        try:
            # 0600 from the start: the file is never readable by others, not even briefly.
            self.state.write_atomic(DISCOVERY_NAME, json.dumps(info, indent=2) + "\n", mode=0o600)
        except OSError as exc:  # for people only: the record above is what tools read
            log.error("cannot write the endpoint description: %s", exc)
        log.info("agent endpoint listening on %s", self.socket_path)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        uid = _peer_uid(writer)
        if uid is not None and uid != os.getuid():
            log.warning("refused an agent connection from uid %s", uid)
            writer.close()
            return
        protocol = AgentProtocol(self.server)
        protocol.set_writer(writer)
        framed = framing.Reader()  # survives garbage: the agent's next message is read again
        try:
            while not self._stop.is_set():
                body = await framing.read_async(reader, framed)
                if body is None:
                    break
                protocol.handle_body(body)
        except ConnectionError:
            pass
        finally:
            # A dropped agent cancels what it was waiting for, like $/cancelRequest.
            for future in list(protocol._request_futures.values()):
                future.cancel()
            with contextlib.suppress(Exception):
                writer.close()

    def stop(self) -> None:
        """Stop listening and remove the record and the discovery file (only if they are
        still ours)."""
        # The record before the socket: a hook that finds it finds the socket still listening.
        self.record.remove()
        self._stop.set()
        if self._listener is not None:
            self._listener.close()
        with contextlib.suppress(OSError, ValueError):
            info = json.loads(self.state.read_text(DISCOVERY_NAME))
            if info.get("socket") == str(self.socket_path):
                self.state.unlink(DISCOVERY_NAME)
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


class Endpoint(Feature):
    """This server's agent endpoint: announced once initialize names the workspace, listening
    from initialized until shutdown."""

    def __init__(self, server: PlanModeServer) -> None:
        self.server = server
        # None until announced, and again once it could not open or the editor left.
        self.agent: AgentEndpoint | None = None

    @property
    def directory(self) -> Path | None:
        """The directory of its socket, while it has one."""
        return self.agent.directory if self.agent is not None else None

    @property
    def socket_path(self) -> Path | None:
        return self.agent.socket_path if self.agent is not None else None

    def announce(self) -> None:
        """The workspace is known: record that its server is starting, so that a hook called
        before the endpoint listens waits for it rather than find no server."""
        if self.agent is not None:
            return
        agent = AgentEndpoint(self.server, self.server.service.root)
        agent.record.write("starting")
        self.agent = agent
        atexit.register(agent.stop)

    async def start(self) -> None:
        """Open the endpoint for the server's workspace; a failure is logged, not fatal."""
        self.announce()
        assert self.agent is not None
        try:
            await self.agent.start()
        except OSError as exc:
            log.error("cannot open the agent endpoint: %s", exc)
            self.close()

    def stop(self) -> None:
        """Stop listening and remove what says it listens (shutdown)."""
        if self.agent is not None:
            self.agent.stop()

    def close(self) -> None:
        """Stop, and forget it: it is not stopped again at exit."""
        agent, self.agent = self.agent, None
        if agent is not None:
            agent.stop()
            atexit.unregister(agent.stop)

    def connection_ended(self) -> None:
        self.close()


def ping(_server: PlanModeServer, _params: PingParams) -> OkResult:
    """Still here: what a hook waiting on a pending exit asks after a silence."""
    return OkResult()


def register(server: PlanModeServer) -> None:
    server.add_feature(Endpoint(server))
    server.request(protocol.PING, PingParams)(ping)
