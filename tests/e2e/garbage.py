"""Bytes that make no good message, each with the answer the server gives it: garbage on the
wire before any frame, frames that hold no JSON or no JSON-RPC message, ids and methods of the
wrong type, nesting deeper than any message. Fed to stdio (test_bad_input.py), the agent
endpoint and TCP (test_tcp.py): the answer is the same on each."""

from __future__ import annotations

from typing import Any

from planmode.lsp.transport.framing import frame as framed_bytes
from tests.e2e.stdio_server import frame

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
NO_ANSWER = None
# Bytes that are no good message, each with the answer it gets: (code, id) — id None is
# `id: null`, for a message whose id is missing or unusable — or NO_ANSWER (bytes that frame no
# message, a response).
GARBAGE: list[tuple[bytes, tuple[int, Any] | None]] = [
    (b"\x00\xff\xfe garbage without any header\r\n", NO_ANSWER),
    (b"not a header\r\n\r\n", NO_ANSWER),
    (b"Content-Length: banana\r\n\r\n{}", NO_ANSWER),  # the {} is skipped as garbage
    (b"Content-Length: -5\r\n\r\n", NO_ANSWER),
    (b"Content-Length: 2\r\n\r\n{}", (INVALID_REQUEST, None)),  # a JSON object, no message
    (b"Content-Length: 5\r\n\r\n[1,2]", (INVALID_REQUEST, None)),
    (b"Content-Length: 13\r\n\r\n{not json!!!}", (PARSE_ERROR, None)),
    (b'Content-Length: 33\r\n\r\n{"jsonrpc":"2.0","params":{}, "x"', (PARSE_ERROR, None)),
    (frame({"jsonrpc": "2.0", "params": {}}), (INVALID_REQUEST, None)),  # no id, no method
    (frame({"jsonrpc": "2.0", "id": 90005}), NO_ANSWER),  # a response to nothing
    (frame({"jsonrpc": "2.0", "id": None, "method": "planMode/getState"}), (INVALID_REQUEST, None)),
    (frame({"jsonrpc": "2.0", "method": "planMode/setMode", "params": {"mode": "x"}}), NO_ANSWER),
    (frame({"jsonrpc": "2.0", "id": 90006, "method": 42, "params": {}}), (INVALID_REQUEST, 90006)),
    (frame({"jsonrpc": "2.0", "method": 123}), (INVALID_REQUEST, None)),
    (
        frame({"jsonrpc": "2.0", "id": 90007, "method": "planMode/getState", "params": 3}),
        (INVALID_PARAMS, 90007),
    ),
    (frame({"jsonrpc": "2.0", "id": 90009, "method": "no/such/method"}), (METHOD_NOT_FOUND, 90009)),
    (
        frame([{"jsonrpc": "2.0", "id": 90010, "method": "planMode/getState"}]),
        (INVALID_REQUEST, None),
    ),
    (b"Content-Length: 3\r\n\r\n\xff\xfe\xfd", (PARSE_ERROR, None)),
    (b"Content-Length: 99999999999999\r\n\r\n{}", NO_ANSWER),  # no message is that big
    (
        frame({"jsonrpc": "1.0", "id": 90011, "method": "planMode/getState"}),
        (INVALID_REQUEST, 90011),
    ),
    (frame({"id": 90012, "method": "planMode/getState"}), (INVALID_REQUEST, 90012)),
    (
        frame({"jsonrpc": "2.0", "id": {"a": 1}, "method": "planMode/getState"}),
        (INVALID_REQUEST, None),
    ),
    (frame({"jsonrpc": "2.0", "id": [13], "method": "planMode/getState"}), (INVALID_REQUEST, None)),
    (frame({"jsonrpc": "2.0", "id": True, "method": "planMode/getState"}), (INVALID_REQUEST, None)),
    (
        frame({"jsonrpc": "2.0", "id": 90001.5, "method": "planMode/getState"}),
        (INVALID_REQUEST, None),
    ),
    (frame({"jsonrpc": "2.0", "id": {"a": 1}, "result": {}}), NO_ANSWER),  # a bad response
    # Not UTF-8 inside a string of an otherwise good request.
    (
        framed_bytes(b'{"jsonrpc":"2.0","id":90014,"method":"planMode/getState","x":"\xff"}'),
        (PARSE_ERROR, None),
    ),
    # Nested far deeper than any message: refused before it is parsed.
    (framed_bytes(b"[" * 200_000 + b"]" * 200_000), (PARSE_ERROR, None)),
    (
        framed_bytes(
            b'{"jsonrpc":"2.0","id":90015,"method":"planMode/getState","params":{"x":'
            + b'{"a":' * 5000
            + b"1"
            + b"}" * 5000
            + b"}}"
        ),
        (PARSE_ERROR, None),
    ),
]
# Standard LSP requests, which the agent endpoint does not serve (-32601 there).
LSP_GARBAGE: list[tuple[bytes, tuple[int, Any] | None]] = [
    (
        frame({"jsonrpc": "2.0", "id": 90008, "method": "workspace/executeCommand", "params": "x"}),
        (INVALID_PARAMS, 90008),
    ),
    (
        frame({"jsonrpc": "2.0", "id": 90016, "method": "textDocument/codeLens", "params": {}}),
        (INVALID_PARAMS, 90016),
    ),
]


def errors(responses: list[dict[str, Any]]) -> list[tuple[int, Any]]:
    return [(r["error"]["code"], r["id"]) for r in responses if r.get("error") is not None]
