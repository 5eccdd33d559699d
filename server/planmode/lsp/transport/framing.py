"""LSP's Content-Length framing, read and written in one place.

A message is header lines — ``Content-Length: N`` and perhaps others (``Content-Type``) — each
ending ``\\r\\n``, a blank line, then N bytes of JSON. This module is the one reader
(:class:`Reader`, and :func:`parse` for a body) and writer (:func:`frame`, :func:`encode`) of
that framing: stdio (:mod:`.stdio`), ``planmode lsp --tcp``, the agent endpoint and the
clients of the endpoint (:mod:`.discovery`: the CLI, a teammate's server). The agents' hooks
keep a minimal copy for its start-up (:mod:`planmode.agents.hookclient`);
``tests/unit/test_framing.py`` feeds both the same bytes.

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
from typing import Any, Protocol

log = logging.getLogger(__name__)

# No message is this big; a header claiming more is garbage.
MAX_CONTENT_LENGTH = 128 * 1024 * 1024
# A length has at most this many digits (int() of a longer one could cost the reader seconds).
MAX_DIGITS = 12
# Strict reading: at most this many header lines, none longer than this.
MAX_HEADER_LINES = 8
MAX_LINE = 64 * 1024
NAME = b"content-length:"
_TYPE_RE = re.compile(rb"Content-Type: *[\x20-\x7e]*\r\n", re.IGNORECASE)


class NotFramed(Exception):
    """Strict reading: the bytes are not LSP framing; the connection is closed unanswered."""


class NotJson(ValueError):
    """A body that is no JSON text (JSON-RPC's parse error): not UTF-8, not JSON, or nested
    deeper than :data:`MAX_DEPTH`."""


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


# -- the body: one JSON value ------------------------------------------------------------------
# Arrays and objects nested deeper than this are refused before the body is parsed: json's
# parser recurses once per level, and so does much of what reads a message after it. No LSP or
# planMode message comes near it (a WorkspaceEdit's text edit sits 8 levels down).
MAX_DEPTH = 64
_OPENERS = b"[{"
_NOT_STRUCTURE = bytes(byte for byte in range(256) if byte not in b'[]{}"')


def too_deep(body: bytes) -> bool:
    """Whether the body's arrays and objects nest deeper than :data:`MAX_DEPTH`, found without
    parsing it: a bracket inside a string does not count. For a body that is no JSON the
    depth counted is never less than json's parser would reach before its error."""
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH:
        return False
    if b"\\" in body:
        # Escapes left to right, as JSON reads them: every quote left then opens or closes a
        # string.
        body = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(body.translate(None, _NOT_STRUCTURE).split(b'"')[::2])
    depth = 0
    for byte in outside:
        if byte in _OPENERS:
            depth += 1
            if depth > MAX_DEPTH:
                return True
        else:
            depth -= 1
    return False


def parse(body: bytes) -> Any:
    """The body's JSON value; :class:`NotJson` for a body that is not UTF-8, not JSON, or
    nested deeper than :data:`MAX_DEPTH` (then refused before anything is parsed)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotJson(f"the message is not UTF-8 (byte {exc.start} of {len(body)})") from None
    if too_deep(body):
        raise NotJson(f"the message nests arrays and objects deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise NotJson(f"the message is not JSON: {exc}") from None
