"""``planmode lsp``: the language server on stdin and stdout.

Stdin is read with the one framer (:mod:`planmode.lsp.transport.framing`, lenient: garbage
between messages is skipped) and each body handed to the server's protocol as the agent
endpoint and TCP hand theirs (``PlanModeProtocol.handle_body``): a bad message gets the same
answer on every transport. Otherwise this is pygls's own stdio loop: blocking reads in its
thread pool, answers written to stdout, ``exit`` ends the process, and the server shuts down
when stdin ends.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from typing import BinaryIO, Protocol, cast

from pygls.io_ import StdoutWriter

from planmode.lsp.server import PlanModeServer
from planmode.lsp.transport import framing
from planmode.lsp.transport.rpc import PlanModeProtocol

log = logging.getLogger(__name__)

CHUNK = 65536


class Input(Protocol):
    """A blocking byte stream that returns what is there (``sys.stdin.buffer``)."""

    def read1(self, size: int, /) -> bytes: ...


def serve(
    server: PlanModeServer, stdin: Input | None = None, stdout: BinaryIO | None = None
) -> None:
    """Serve one editor on ``stdin`` and ``stdout`` (the process's own by default) until the
    editor sends ``exit`` or closes stdin."""
    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    try:
        asyncio.run(_read(server, stdin or cast(Input, sys.stdin.buffer)))
    except BrokenPipeError:
        log.error("the editor closed the connection; the server stops")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated


async def _read(server: PlanModeServer, stdin: Input) -> None:
    loop = asyncio.get_running_loop()
    reader = framing.Reader()
    stop = server._stop_event
    protocol = server.protocol
    assert stop is not None and isinstance(protocol, PlanModeProtocol)
    while not stop.is_set():
        data = await loop.run_in_executor(server.thread_pool, stdin.read1, CHUNK)
        if not data:
            break
        reader.feed(data)
        while not stop.is_set() and (body := reader.next()) is not None:
            protocol.handle_body(body)
