"""What a JSON-RPC 2.0 message must be before the server handles it, and the error a message
that is not gets (docs/protocol.md §1, *Bad messages*).

Every transport (stdio, ``planmode lsp --tcp``, the agent endpoint) hands the server each
framed body (:mod:`planmode.lsp.transport.framing`); what is no JSON is JSON-RPC's parse error,
and a JSON value that is no message — not an object, ``jsonrpc`` not ``"2.0"``, a ``method``
that is no string, an ``id`` that is neither an integer nor a string (LSP's ``integer |
string``), neither a method nor an id — is an invalid request. Each is answered, with the
request's ``id`` when it has a valid one and ``id: null`` otherwise, except a message that
reads as a response (an ``id`` and a ``result`` or ``error``): a response is never answered.

Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# JSON-RPC 2.0's own error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

MessageId = int | str


@dataclass(frozen=True)
class Refusal:
    """Why a message is not handled: the error answered (``answer``: a response is never
    answered, only logged) to the request ``id`` (None: ``id: null``)."""

    code: int
    message: str
    id: MessageId | None = None
    answer: bool = True

    def response(self) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        }


def valid_id(value: object) -> bool:
    """An id LSP allows: an integer (not a boolean) or a string."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def check(message: Any) -> Refusal | None:
    """Why ``message`` (a parsed body) is no JSON-RPC 2.0 message; None when it is one."""
    if isinstance(message, list):
        return Refusal(INVALID_REQUEST, "a batch (a JSON array) is not supported: one message each")
    if not isinstance(message, dict):
        return Refusal(INVALID_REQUEST, f"a message is a JSON object, not {_kind(message)}")
    raw_id = message.get("id")
    msg_id = raw_id if valid_id(raw_id) else None
    response = "method" not in message and ("result" in message or "error" in message)
    if message.get("jsonrpc") != "2.0":
        version = message.get("jsonrpc")
        found = "it is missing" if "jsonrpc" not in message else f"not {_kind(version)}"
        if isinstance(version, str):
            found = f"not {version!r}"
        return Refusal(INVALID_REQUEST, f"'jsonrpc' must be \"2.0\", {found}", msg_id, not response)
    if "id" in message and msg_id is None:
        return Refusal(
            INVALID_REQUEST,
            f"'id' must be an integer or a string, not {_kind(raw_id)}",
            None,
            not response,
        )
    if "method" in message:
        if not isinstance(message["method"], str):
            return Refusal(
                INVALID_REQUEST,
                f"'method' must be a string, not {_kind(message['method'])}",
                msg_id,
            )
        return None
    if "id" in message:
        return None  # a response to one of the server's requests (no result: null)
    return Refusal(INVALID_REQUEST, "a message has a 'method' (a request) or an 'id' (a response)")
