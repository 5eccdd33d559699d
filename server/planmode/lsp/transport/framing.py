"""LSP's Content-Length framing, read and written in one place.

A message is header lines — ``Content-Length: N`` and perhaps others (``Content-Type``) — each
ending ``\\r\\n``, a blank line, then N bytes of JSON. This module is the one reader
(:class:`Reader`) and writer (:func:`frame`, :func:`encode`) of that framing: the agent
endpoint, ``planmode lsp --tcp``, the clients of the endpoint (:mod:`.discovery`: the CLI, a
teammate's server) and stdio, where pygls's own loop reads through :func:`resync`. The Claude
Code hook keeps a minimal copy for its start-up
(:mod:`planmode.agents.claude_code.client`); ``tests/unit/test_framing.py`` feeds both the
same bytes.

**Reading survives garbage** (docs/protocol.md §1). A header line gives a length when, from
its last ``Content-Length:`` (any case) on, it reads ``Content-Length: N`` (spaces around N
allowed, at most 12 digits, at most :data:`MAX_CONTENT_LENGTH`): what comes before is skipped
— stray bytes, or the rest of a body shorter than its Content-Length said, glued to the front
of the next header — and a length no message can have is refused (reading it would try to
allocate that much), so the next well-formed message is understood again. The first length
counts; other header lines, and a blank line before any length, are passed over.

**Strict reading** (``strict=True``, TCP: a web page can POST to a loopback port): the bytes
must be LSP framing from the first one. A header line other than ``Content-Length: N`` or
``Content-Type: …``, a header without a length or with one over the limit, more than
:data:`MAX_HEADER_LINES` lines, or a line longer than any header raises :class:`NotFramed`,
and the connection is closed before anything is parsed.

Stdlib only, and importing it imports no pygls: the CLI reads it.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO, Protocol, cast

log = logging.getLogger(__name__)

# No message is this big; a header claiming more is garbage.
MAX_CONTENT_LENGTH = 128 * 1024 * 1024
# A length has at most this many digits (int() of a longer one could cost the reader seconds).
MAX_DIGITS = 12
# Strict reading: at most this many header lines, none longer than this.
MAX_HEADER_LINES = 8
MAX_LINE = 64 * 1024
NAME = b"content-length:"
# A line pygls's reader passes over (what :func:`resync` makes of every other header line).
IGNORED = b"X-Ignored-Header: planmode\r\n"
_TYPE_RE = re.compile(rb"Content-Type: *[\x20-\x7e]*\r\n", re.IGNORECASE)


class NotFramed(Exception):
    """Strict reading: the bytes are not LSP framing; the connection is closed unanswered."""


# -- writing ------------------------------------------------------------------------------------
def frame(body: bytes) -> bytes:
    """``body`` as one framed message."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(message: Any) -> bytes:
    """A JSON-RPC message, framed."""
    return frame(json.dumps(message).encode("utf-8"))


# -- reading ------------------------------------------------------------------------------------
def value_length(value: bytes) -> int | None:
    """The length a ``Content-Length:`` header's value gives: ASCII digits, spaces around."""
    digits = value.strip()
    if not digits.isdigit() or len(digits) > MAX_DIGITS:
        return None
    return int(digits)


def header_length(line: bytes) -> int | None:
    """The Content-Length a header line gives, read leniently (see above); None when it
    gives none."""
    at = line.lower().rfind(NAME)
    if at < 0:
        return None
    length = value_length(line[at + len(NAME) :])
    if length is None:
        return None
    if at > 0:
        log.warning("skipped %d bytes of garbage before a message header", at)
    if length > MAX_CONTENT_LENGTH:
        log.warning("refused a message header claiming %d bytes", length)
        return None
    return length


def _strict_length(line: bytes, limit: int) -> int | None:
    """A strict header line's length (None: a ``Content-Type`` line); :class:`NotFramed`
    for anything else."""
    if line.lower().startswith(NAME) and line.endswith(b"\r\n"):
        length = value_length(line[len(NAME) :])
        if length is not None:
            if length > limit:
                raise NotFramed(f"a message of {length} bytes (at most {limit} here)")
            return length
    if _TYPE_RE.fullmatch(line):
        return None
    raise NotFramed(f"not an LSP header: {line[:60]!r}")


class Reader:
    """Framed messages out of a byte stream, one body at a time; no I/O of its own: it is
    fed what was received (:meth:`feed`) and asked for the next body (:meth:`next`).

    ``limit``: the largest body accepted (strict reading; it may change between messages).
    """

    def __init__(self, strict: bool = False, limit: int = MAX_CONTENT_LENGTH) -> None:
        self.strict = strict
        self.limit = limit
        self._buffer = bytearray()
        self._length: int | None = None  # this message's, once its header gave one
        self._lines = 0  # header lines of this message so far
        self._in_body = False

    @property
    def pending(self) -> bool:
        """Whether bytes of an unfinished message are held."""
        return bool(self._buffer) or self._length is not None or self._lines > 0

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def next(self) -> bytes | None:
        """The next whole body, or None until more bytes arrive; strict: :class:`NotFramed`."""
        while not self._in_body:
            end = self._buffer.find(b"\n")
            if end < 0:
                self._overlong()
                return None
            line = bytes(self._buffer[: end + 1])
            del self._buffer[: end + 1]
            self._header_line(line)
        assert self._length is not None
        if len(self._buffer) < self._length:
            return None
        body = bytes(self._buffer[: self._length])
        del self._buffer[: self._length]
        self._length, self._lines, self._in_body = None, 0, False
        return body

    def end(self) -> None:
        """The stream ended; strict: :class:`NotFramed` when it ended inside a message."""
        if self.strict and self.pending:
            where = "message" if self._in_body else "header"
            raise NotFramed(f"the connection ended inside a {where}")

    def _header_line(self, line: bytes) -> None:
        if self.strict:
            if line == b"\r\n":
                if self._length is None:
                    raise NotFramed("a header without Content-Length")
                self._in_body = True
                return
            self._lines += 1
            if self._lines > MAX_HEADER_LINES:
                raise NotFramed(f"more than {MAX_HEADER_LINES} header lines")
            length = _strict_length(line, self.limit)
            if length is not None:
                self._length = length
        elif not line.strip():
            self._in_body = self._length is not None
        elif self._length is None:
            self._length = header_length(line)

    def _overlong(self) -> None:
        """A header line without its end yet: longer than any header, it is garbage — refused
        (strict), else all but its tail dropped (a header may still end it)."""
        if len(self._buffer) <= MAX_LINE:
            return
        if self.strict:
            raise NotFramed("a header line longer than any LSP header")
        del self._buffer[:-MAX_LINE]


class AsyncStream(Protocol):
    def read(self, n: int = ..., /) -> Awaitable[bytes]: ...


async def read_async(stream: AsyncStream, reader: Reader) -> bytes | None:
    """The next body from an asyncio stream; None when it ended (strict: :class:`NotFramed`
    when it ended inside a message)."""
    while (body := reader.next()) is None:
        data = await stream.read(65536)
        if not data:
            reader.end()
            return None
        reader.feed(data)
    return body


def read_blocking(receive: Callable[[], bytes], reader: Reader) -> bytes:
    """The next body, ``receive()`` called for more bytes until it is whole (``receive``
    raises when the stream ends)."""
    while (body := reader.next()) is None:
        reader.feed(receive())
    return body


# -- stdio: pygls's own loop --------------------------------------------------------------------
def resync(line: bytes) -> bytes:
    """A header line as pygls's reader should see it: exactly ``Content-Length: N`` where the
    line gives a length (:func:`header_length`); a blank line as it is; anything else a line
    pygls passes over (it reads ``Content-Length: N`` only, whole and in that case)."""
    if not line.strip():
        return line
    length = header_length(line)
    return b"Content-Length: %d\r\n" % length if length is not None else IGNORED


class ResyncingStream:
    """A blocking binary stream (stdin) for pygls's ``start_io``, whose loop reads header
    lines with ``readline`` and bodies with ``read``."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def readline(self) -> bytes:
        line = self._stream.readline()
        return resync(line) if line else line

    def read(self, n: int) -> bytes:
        return self._stream.read(n)


def resyncing_stdin(stream: BinaryIO) -> BinaryIO:
    """``stream`` wrapped for ``start_io(stdin=...)``, which reads only readline and read."""
    return cast(BinaryIO, ResyncingStream(stream))
