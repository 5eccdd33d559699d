"""LSP framing that recovers from garbage (server/planmode/lsp/transport/framing.py)."""

from __future__ import annotations

import asyncio
import io

from planmode.lsp.transport.framing import (
    MAX_CONTENT_LENGTH,
    ResyncingReader,
    ResyncingStream,
    resync,
)


def test_a_header_glued_to_garbage_is_found_again() -> None:
    assert resync(b'junk"}Content-Length: 12\r\n') == b"Content-Length: 12\r\n"
    assert resync(b"Content-Length: 12\r\n") == b"Content-Length: 12\r\n"
    assert resync(b"\r\n") == b"\r\n"
    assert resync(b"no header here\r\n") == b"no header here\r\n"


def test_an_impossible_length_is_refused() -> None:
    assert resync(b"Content-Length: %d\r\n" % MAX_CONTENT_LENGTH) != b""
    refused = resync(b"Content-Length: %d\r\n" % (MAX_CONTENT_LENGTH + 1))
    assert b"Content-Length" not in refused and refused.endswith(b"\r\n")


def test_the_blocking_stream_resyncs_lines_and_keeps_bodies() -> None:
    stream = ResyncingStream(io.BytesIO(b'{"a"Content-Length: 2\r\n\r\n{}'))
    assert stream.readline() == b"Content-Length: 2\r\n"
    assert stream.readline() == b"\r\n"
    assert stream.read(2) == b"{}"
    assert stream.readline() == b""


def test_the_async_reader_resyncs_lines() -> None:
    async def run() -> list[bytes]:
        reader = asyncio.StreamReader()
        reader.feed_data(b"xxContent-Length: 2\r\n\r\n{}")
        reader.feed_eof()
        wrapped = ResyncingReader(reader)
        return [await wrapped.readline(), await wrapped.readline(), await wrapped.readexactly(2)]

    assert asyncio.run(run()) == [b"Content-Length: 2\r\n", b"\r\n", b"{}"]
