"""LSP framing that survives garbage on the wire.

pygls's reader expects every header line to be exactly ``Content-Length: N\\r\\n``. After stray
bytes without a newline, or a body shorter than its Content-Length said, the rest of a body is
glued to the front of the next header line, and so on for every message after it: the server
would never understand anything again. These wrappers cut a header line back to where
``Content-Length:`` starts, and refuse a length no message can have (reading it would try to
allocate that much), so the next well-formed message is understood again.
"""

from __future__ import annotations

import logging
import re
from typing import Any, BinaryIO, cast

log = logging.getLogger(__name__)

HEADER = b"Content-Length:"
# No message is this big; a header claiming more is garbage.
MAX_CONTENT_LENGTH = 128 * 1024 * 1024
_LENGTH_RE = re.compile(rb"^Content-Length: (\d+)\r\n$")
_REFUSED = b"X-Refused-Header: oversized\r\n"


def resync(line: bytes) -> bytes:
    """The header line as the reader should see it."""
    at = line.find(HEADER)
    if at > 0:
        log.warning("skipped %d bytes of garbage before a message header", at)
        line = line[at:]
    match = _LENGTH_RE.match(line)
    if match and int(match.group(1)) > MAX_CONTENT_LENGTH:
        log.warning("refused a message header claiming %s bytes", match.group(1).decode())
        return _REFUSED
    return line


class ResyncingStream:
    """A blocking binary stream (stdin) for pygls's ``start_io``."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def readline(self) -> bytes:
        line: bytes = self._stream.readline()
        return resync(line) if line else line

    def read(self, n: int) -> bytes:
        data: bytes = self._stream.read(n)
        return data


def resyncing_stdin(stream: BinaryIO) -> BinaryIO:
    """``stream`` wrapped for ``start_io(stdin=...)``, which reads only readline and read."""
    return cast(BinaryIO, ResyncingStream(stream))


class ResyncingReader:
    """An asyncio stream reader for pygls's ``run_async`` (the agent endpoint)."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader

    async def readline(self) -> bytes:
        line: bytes = await self._reader.readline()
        return resync(line) if line else line

    async def readexactly(self, n: int) -> bytes:
        data: bytes = await self._reader.readexactly(n)
        return data
