"""The one framer (server/planmode/lsp/transport/framing.py): lenient reading that survives
garbage, strict reading for TCP, a body's JSON read without recursing — and the Claude Code
hook's minimal copy of it (server/planmode/agents/hookclient.py), which must read every
byte stream exactly as the framer does."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planmode.agents import hookclient
from planmode.lsp.transport import framing
from planmode.lsp.transport.framing import MAX_CONTENT_LENGTH, NotFramed, Reader


def framer_reads(stream: bytes, chunks: list[int] | None = None) -> list[bytes]:
    """Every body the framer reads from ``stream``, fed in pieces of the given sizes."""
    reader, bodies, at = Reader(), [], 0
    for size in [*(chunks or []), len(stream)]:
        reader.feed(stream[at : at + size])
        at += size
        while (body := reader.next()) is not None:
            bodies.append(body)
    return bodies


def hook_reads(stream: bytes, chunks: list[int] | None = None) -> list[bytes]:
    """The same through the hook's copy (agents/hookclient.py): a buffer it reads whole
    messages off."""
    buffer, bodies, at = b"", [], 0
    for size in [*(chunks or []), len(stream)]:
        buffer += stream[at : at + size]
        at += size
        while True:
            body, buffer = hookclient.next_message(buffer)
            if body is None:
                break
            bodies.append(body)
    return bodies


A = b'{"jsonrpc":"2.0","id":1,"result":{}}'
B = b'{"jsonrpc":"2.0","method":"planMode/didChangeState","params":{}}'
STREAMS = {
    "one message": (framing.frame(A), [A]),
    "several in one read": (framing.frame(A) + framing.frame(B) + framing.frame(A), [A, B, A]),
    "extra headers": (
        b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
        b"\r\n%b" % (len(A), A),
        [A],
    ),
    "a header before the length": (b"Content-Type: x\r\nContent-Length: 2\r\n\r\n{}", [b"{}"]),
    "lower case": (b"content-length: 2\r\n\r\n{}", [b"{}"]),
    "upper case": (b"CONTENT-LENGTH: 2\r\n\r\n{}", [b"{}"]),
    "no space, spaces after": (b"Content-Length:2  \r\n\r\n{}", [b"{}"]),
    "bare newlines": (b"Content-Length: 2\n\n{}", [b"{}"]),
    "missing Content-Length": (b"Content-Type: x\r\n\r\n" + framing.frame(A), [A]),
    "a blank line first": (b"\r\n" + framing.frame(A), [A]),
    "garbage before a header": (b'junk"}Content-Length: 2\r\n\r\n{}', [b"{}"]),
    "a length inside the garbage": (
        b'{"x": "Content-Length: 9"}Content-Length: 2\r\n\r\n{}',
        [b"{}"],
    ),
    "binary garbage first": (b"\x00\xff\xfe garbage\r\n" + framing.frame(B), [B]),
    "a body shorter than its length": (
        b"Content-Length: 5\r\n\r\n{}" + framing.frame(A) + framing.frame(B),
        [b"{}Con", B],
    ),
    "the first length counts": (b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", [b"{}"]),
    "no number": (b"Content-Length: banana\r\n\r\n{}" + framing.frame(A), [A]),
    "a negative length": (b"Content-Length: -5\r\n\r\n" + framing.frame(A), [A]),
    "an impossible length": (
        b"Content-Length: %d\r\n\r\n{}" % (MAX_CONTENT_LENGTH + 1) + framing.frame(A),
        [A],
    ),
    "thirteen digits": (b"Content-Length: 0000000000002\r\n\r\n{}" + framing.frame(A), [A]),
    "an empty body": (b"Content-Length: 0\r\n\r\n" + framing.frame(A), [b"", A]),
    "half a message": (framing.frame(A) + b"Content-Length: 40\r\n\r\n{", [A]),
}


@pytest.mark.parametrize(("stream", "expected"), STREAMS.values(), ids=list(STREAMS))
def test_the_framer_and_the_hooks_copy_read_the_same(stream: bytes, expected: list[bytes]) -> None:
    assert framer_reads(stream) == expected
    assert hook_reads(stream) == expected
    # Split anywhere (a header cut in two, a body across reads): the same messages.
    for cut in range(1, len(stream)):
        assert framer_reads(stream, [cut]) == expected, cut
        assert hook_reads(stream, [cut]) == expected, cut
    one_byte = [1] * len(stream)
    assert framer_reads(stream, one_byte) == hook_reads(stream, one_byte) == expected


PIECES = st.sampled_from(
    [
        b"Content-Length: 2\r\n",
        b"content-length:7\n",
        b"Content-Length: 99999999999999\r\n",
        b"Content-Type: x\r\n",
        b"\r\n",
        b"\n",
        b"{}",
        b'{"a":1}',
        b"junk",
        b"Content-Le",
        b"ngth: 3\r\n",
        b" \t",
        b"\x00\xff",
    ]
)


@given(st.lists(PIECES, max_size=30), st.lists(st.integers(1, 12), max_size=10))
def test_any_stream_in_any_pieces_reads_the_same(pieces: list[bytes], chunks: list[int]) -> None:
    stream = b"".join(pieces)
    assert hook_reads(stream, chunks) == framer_reads(stream, chunks) == framer_reads(stream)


def test_the_hooks_copy_writes_and_limits_as_the_framer() -> None:
    assert hookclient.frame(A) == framing.frame(A)
    assert hookclient.MAX_CONTENT_LENGTH == framing.MAX_CONTENT_LENGTH
    assert json.loads(framing.encode({"id": 1})[len(b"Content-Length: 9\r\n\r\n") :]) == {"id": 1}


def test_a_header_line_longer_than_any_is_garbage_and_dropped() -> None:
    reader = Reader()
    reader.feed(b"x" * (framing.MAX_LINE * 3))
    assert reader.next() is None
    reader.feed(b"Content-Length: 2\r\n\r\n{}")
    assert reader.next() == b"{}"
    assert not reader.pending


# -- strict reading (TCP) -----------------------------------------------------------------------
def strict(stream: bytes, limit: int = MAX_CONTENT_LENGTH) -> list[bytes]:
    reader, bodies = Reader(strict=True, limit=limit), []
    reader.feed(stream)
    while (body := reader.next()) is not None:
        bodies.append(body)
    reader.end()
    return bodies


def test_strict_reading_takes_lsp_framing_only() -> None:
    assert strict(framing.frame(A) + framing.frame(B)) == [A, B]
    typed = b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n{}"
    assert strict(typed) == [b"{}"]
    for garbage, why in (
        (b"POST / HTTP/1.1\r\n\r\n", "not an LSP header"),
        (b"junkContent-Length: 2\r\n\r\n{}", "not an LSP header"),
        (b"Content-Length: x\r\n", "not an LSP header"),
        (b"Content-Length: 2\n\n{}", "not an LSP header"),
        (b"Content-Type: x\r\n\r\n{}", "without Content-Length"),
        (b"Content-Type: x\r\n" * 9 + b"Content-Length: 2\r\n\r\n{}", "header lines"),
        (b"\x16\x03\x01\x02\x00", "ended inside a header"),
        (b"Content-Length: 5\r\n\r\n{}", "ended inside a message"),
        (b"x" * (framing.MAX_LINE + 1), "longer than any"),
    ):
        with pytest.raises(NotFramed, match=why):
            strict(garbage)
    with pytest.raises(NotFramed, match="at most 10"):
        strict(b"Content-Length: 11\r\n\r\n", limit=10)
    assert strict(b"Content-Type: x\r\n" * 7 + b"Content-Length: 2\r\n\r\n{}") == [b"{}"]


def test_the_async_reader_reads_a_stream_to_its_end() -> None:
    async def run() -> list[bytes | None]:
        stream = asyncio.StreamReader()
        stream.feed_data(b"xxContent-Length: 2\r\n\r\n{}" + framing.frame(A)[:5])
        stream.feed_eof()
        reader = Reader()
        return [await framing.read_async(stream, reader), await framing.read_async(stream, reader)]

    assert asyncio.run(run()) == [b"{}", None]


def test_the_blocking_reader_asks_for_more_until_a_body_is_whole() -> None:
    pieces = [b"Content-Len", b"gth: 2\r\n", b"\r\n{", b"}"]
    assert framing.read_blocking(lambda: pieces.pop(0), Reader()) == b"{}"
    assert pieces == []


# -- the body ---------------------------------------------------------------------------------
def nested(depth: int, inner: str = "1") -> bytes:
    return ("[" * depth + inner + "]" * depth).encode()


def test_a_body_is_parsed_as_json() -> None:
    assert framing.parse(b'{"a": [1, {"b": "x"}]}') == {"a": [1, {"b": "x"}]}
    assert framing.parse(nested(framing.MAX_DEPTH)) is not None


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b'{"a": "\xff"}', "not UTF-8 (byte 7 of 10)"),
        (b"{not json}", "not JSON"),
        (b"", "not JSON"),
        (nested(framing.MAX_DEPTH + 1), "deeper than 64 levels"),
        (b"[" * 200_000 + b"]" * 200_000, "deeper than 64 levels"),
        (b'{"a":' * 5000 + b"1" + b"}" * 5000, "deeper than 64 levels"),
        # Never closed: json's parser would recurse all the same.
        (b"[" * 200_000, "deeper than 64 levels"),
    ],
)
def test_a_body_that_is_no_json_is_refused_without_recursing(body: bytes, says: str) -> None:
    with pytest.raises(framing.NotJson, match=re.escape(says)):
        framing.parse(body)


@pytest.mark.parametrize(
    "body",
    [
        # Brackets inside strings are text, escaped quotes and backslashes included.
        json.dumps({"plan": "[" * 1000 + "{" * 1000}).encode(),
        json.dumps({"plan": '\\"[[[' * 500, "x": [[["\\"]]]}).encode(),
        json.dumps([["x"] * 1000] * 10).encode(),
        nested(framing.MAX_DEPTH, json.dumps("]]]]" * 100)),
    ],
)
def test_brackets_in_strings_do_not_count(body: bytes) -> None:
    assert not framing.too_deep(body)
    assert framing.parse(body) == json.loads(body)


def json_depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((json_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((json_depth(v) for v in value.values()), default=0)
    return 0


# Values whose strings are full of brackets, quotes and backslashes.
tricky = st.recursive(
    st.none() | st.text(alphabet='[]{}"\\ab', max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet='[]{}"\\', max_size=3), inner, max_size=3)
    ),
    max_leaves=30,
)


@given(value=tricky, wrapped=st.integers(min_value=40, max_value=70))
def test_the_depth_is_counted_as_json_nests(value: object, wrapped: int) -> None:
    for _ in range(wrapped):
        value = [value] if wrapped % 2 else {"k": value}
    body = json.dumps(value).encode()
    assert framing.too_deep(body) == (json_depth(value) > framing.MAX_DEPTH)


def test_the_cli_reads_the_framer_without_pygls() -> None:
    code = (
        "import sys, planmode.lsp.transport.discovery, planmode.lsp.transport.framing\n"
        "print(' '.join(m for m in ('pygls', 'lsprotocol', 'pydantic') if m in sys.modules))\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.split() == []
