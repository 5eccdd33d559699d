"""Every agent's hook client of the server's agent endpoint, light enough to run before each
tool call (Claude Code's, Gemini CLI's, Codex's hooks): the workspace's record (a server that
is starting is waited for), one JSON-RPC request over the socket, JSON through json's own C
codec, and the framer's minimal copy.

Stdlib only, and only what this path needs (its start-up is measured: ``make bench``): no
``json`` module (its import pulls in ``re`` and ``enum`` and costs as much again as Python's
own start-up) but the C codec under it, no ``socket`` module but ``_socket``, and a minimal
copy of the framer (:func:`next_message`; :mod:`planmode.lsp.transport.framing` imports json
and re), pinned to it by ``tests/unit/test_framing.py``.
"""

from __future__ import annotations

import os

from planmode import runtime

# Not typing.TYPE_CHECKING: the typing module is not imported at run time (see above).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket
    from collections.abc import Callable
    from typing import Any

try:
    import _json
except ImportError:  # another Python: the json module does the same, slower to import
    _json = None  # type: ignore[assignment]

PING = "planMode/ping"
# How long a call waits for a server whose record says it is starting.
STARTING_WAIT = 3.0
# A request answered at once (checkTool, endSession…): a server that takes longer (seconds,
# PLANMODE_HOOK_TIMEOUT) is taken as failed.
TIMEOUT = 20.0
# A request answered when the user has decided (an exit): after this long without a word from
# the server (seconds, PLANMODE_HOOK_KEEPALIVE) it is pinged, and as long again without an
# answer to the ping it is taken for dead.
KEEPALIVE = 10.0


class _ScanContext:
    """What ``_json.make_scanner`` reads from its context (json.decoder.JSONDecoder's)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {
        "NaN": float("nan"),
        "Infinity": float("inf"),
        "-Infinity": float("-inf"),
    }.__getitem__


def loads(data: bytes | str) -> Any:
    """``json.loads``, through the C scanner json itself uses."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    if _json is None:
        import json

        return json.loads(text)
    text = text.strip(" \t\n\r")
    try:
        value, end = _json.make_scanner(_ScanContext())(text, 0)  # type: ignore[arg-type]
    except StopIteration as stop:
        raise ValueError(f"not JSON at character {stop.value}") from None
    except SystemError:
        # An error inside an array or object: the scanner reports it with json.decoder's
        # JSONDecodeError, which it only finds when the json module is loaded.
        raise ValueError("not JSON") from None
    if end != len(text):
        raise ValueError(f"extra data at character {end}")
    return value


def _unencodable(value: object) -> object:
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: object) -> str:
    """``json.dumps`` (compact), through the C encoder json itself uses."""
    if _json is None:
        import json

        return json.dumps(value, separators=(",", ":"))
    encoder = _json.make_encoder(
        {}, _unencodable, _json.encode_basestring_ascii, None, ":", ",", False, False, True
    )
    return "".join(encoder(value, 0))


class HookError(Exception):
    """The server could not be asked or did not answer properly."""


def seconds(name: str, default: float) -> float:
    """The positive number of seconds environment variable ``name`` gives, else ``default``."""
    try:
        value = float(os.environ.get(name) or default)
    except ValueError:
        return default
    return value if value > 0 else default


def timeout() -> float:
    return seconds("PLANMODE_HOOK_TIMEOUT", TIMEOUT)


def keepalive() -> float:
    return seconds("PLANMODE_HOOK_KEEPALIVE", KEEPALIVE)


def text(result: dict[str, Any], key: str) -> str | None:
    """The result's ``key``, text or absent; anything else is a server that answered wrong."""
    value = result.get(key)
    if value is not None and not isinstance(value, str):
        raise HookError(f"the plan-mode server's {key!r} is not text")
    return value


def _named_session(session: object) -> bool:
    return isinstance(session, str) and bool(session)


def event(raw: bytes, valid_session: Callable[[object], bool] = _named_session) -> dict[str, Any]:
    """The hook event an agent wrote on stdin: a JSON object naming its session. Raises on
    anything else (bad JSON, deep nesting, another shape); the hook decides all the same."""
    found = loads(raw)
    if not isinstance(found, dict):
        raise ValueError("not a JSON object")
    if not valid_session(found.get("session_id")):
        raise ValueError("no session_id")
    return found


def why(exc: BaseException) -> str:
    """What went wrong, in one line for the user and the agent."""
    if isinstance(exc, HookError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def gone(root: str, pid: object) -> str:
    """Why a call is denied while planning when the workspace's server has died."""
    return (
        "Denied by plan mode (the plan-mode server is gone): the editor's plan-mode server "
        f"for {root} (pid {pid}) stopped, so plan mode cannot check this call. Ask the user "
        "to restart it: reopen the workspace in the editor, or restart the editor's planmode "
        "language server (`planmode lsp`)."
    )


def unasked(message: str, agent: str) -> str:
    """The refusal of a call plan mode asks the user about (a drift ``ask``, vouched) by an
    agent whose hook cannot bring its own prompt (docs/protocol.md §12.2): the server's reason
    without its question to the user, and how the user lets the write through."""
    head = message.strip()
    if head.endswith("?") and ". " in head:
        head = head[: head.rindex(". ") + 1]  # the question is the user's, not the model's
    return (
        f"{head} The drift setting asks the user before such a write, and {agent} cannot ask "
        "from its hook, so it is refused: ask the user to allow this file for this plan in the "
        "editor (“Allow this file for this plan”), then try again; or enter plan mode and "
        "submit a plan that names it."
    )


class ServerGone(Exception):
    """The workspace's record names a server that is not there any more: it died."""

    def __init__(self, pid: object) -> None:
        super().__init__(f"the plan-mode server (pid {pid}) is gone")
        self.pid = pid


class NoServer(Exception):
    """The workspace's record went away: its server stopped."""


def endpoint(record: str) -> dict[str, Any]:
    """The record of a server that listens: waits (briefly) for one that is starting."""
    deadline = None
    while True:
        data = runtime.read(record)
        if data is None:
            raise NoServer
        info = loads(data)
        if not isinstance(info, dict):
            raise HookError(f"{record} is not a server's record")
        if not runtime.pid_alive(info.get("pid")):
            raise ServerGone(info.get("pid"))
        if info.get("state") == "running" and isinstance(info.get("socket"), str):
            return info
        if info.get("state") != "starting":
            raise HookError(f"{record} is not a server's record")
        import time

        if deadline is None:
            deadline = time.monotonic() + STARTING_WAIT
        elif time.monotonic() > deadline:
            raise HookError(f"the plan-mode server is still starting after {STARTING_WAIT:g} s")
        time.sleep(0.05)


def request(
    info: dict[str, Any],
    method: str,
    params: dict[str, Any],
    timeout: float,
    keepalive: float | None = None,
) -> dict[str, Any]:
    """One JSON-RPC request to the server's agent endpoint; its result. With ``keepalive``
    the answer may take any time, as long as the server answers a ping after each silence."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout if keepalive is None else keepalive)
    try:
        try:
            sock.connect(info["socket"])
        except (FileNotFoundError, ConnectionRefusedError):
            raise ServerGone(info.get("pid")) from None
        _send(sock, 1, method, params)
        return _answer(sock, keepalive)
    except OSError as exc:  # includes the timeout
        raise HookError(f"the plan-mode server did not answer {method}: {exc}") from exc
    finally:
        sock.close()


def _send(sock: _socket.socket, msg_id: int, method: str, params: dict[str, Any]) -> None:
    data = dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()
    sock.sendall(frame(data))


def _answer(sock: _socket.socket, keepalive: float | None) -> dict[str, Any]:
    buffer = b""
    pinged = False

    def more() -> bytes:
        nonlocal pinged
        while True:
            try:
                return _recv(sock)
            except TimeoutError:
                if keepalive is None:
                    raise
                if pinged:
                    raise HookError(
                        "the plan-mode server stopped answering "
                        f"(no answer to {PING} within {keepalive:g} s)"
                    ) from None
                _send(sock, 2, PING, {})
                pinged = True

    while True:
        body, buffer = next_message(buffer)
        if body is None:
            buffer += more()
            continue
        message = loads(body)
        if not isinstance(message, dict) or "method" in message:
            continue  # a notification
        if message.get("id") == 2:
            pinged = False  # the server is alive: the wait goes on
            continue
        if message.get("id") != 1:
            continue
        if "error" in message:
            error = message["error"] if isinstance(message["error"], dict) else {}
            raise HookError(f"the plan-mode server refused: {error.get('message')}")
        result = message.get("result")
        if not isinstance(result, dict):
            raise HookError("the plan-mode server answered without a result")
        return result


# The framer's minimal copy: planmode.lsp.transport.framing is the one reader, but it imports
# json and re. tests/unit/test_framing.py feeds both the same bytes and pins the two alike.
MAX_CONTENT_LENGTH = 128 * 1024 * 1024


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


def next_message(buffer: bytes) -> tuple[bytes | None, bytes]:
    """The first whole message's body in ``buffer``, and what follows it; ``(None, buffer)``
    until more bytes arrive. A header line gives a length from its last ``Content-Length:``
    (any case) on; other lines, and a blank line before any length, are passed over."""
    length = None
    at = 0
    while True:
        end = buffer.find(b"\n", at)
        if end < 0:
            return None, buffer
        line, at = buffer[at : end + 1], end + 1
        if not line.strip():
            if length is not None:
                break
        elif length is None:
            length = _header_length(line)
    if len(buffer) - at < length:
        return None, buffer
    return buffer[at : at + length], buffer[at + length :]


def _header_length(line: bytes) -> int | None:
    at = line.lower().rfind(b"content-length:")
    digits = line[at + 15 :].strip() if at >= 0 else b""
    if not digits.isdigit() or len(digits) > 12 or int(digits) > MAX_CONTENT_LENGTH:
        return None
    return int(digits)


def _recv(sock: _socket.socket) -> bytes:
    chunk = sock.recv(65536)
    if not chunk:
        raise HookError("the plan-mode server closed the connection")
    return bytes(chunk)
