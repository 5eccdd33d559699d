"""JSON Lines files shared between processes: inboxes and transcripts.

One append is one JSON line written with a single ``write`` under an exclusive ``flock``, so
concurrent writers (other agents, other servers) never interleave; readers skip a torn line.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def append_line(path: Path, message: dict[str, Any]) -> None:
    """Append one JSON line under an exclusive lock (safe with concurrent writers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    append_open(os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600), message)


def append_open(fd: int, message: dict[str, Any]) -> None:
    """:func:`append_line` to a file opened for appending (``fd``, closed here)."""
    line = json.dumps(message, ensure_ascii=False) + "\n"
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            data = line.encode("utf-8")
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                # A writer died mid-line: end that torn line, or it swallows this one.
                data = b"\n" + data
            while data:  # a regular file takes it whole; loop anyway, under the lock
                data = data[os.write(fd, data) :]
            os.fsync(fd)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _lock_shared(fd: int, attempts: int = 50) -> bool:
    """A shared lock, waiting a little for a writer; a lock held forever (a stuck process) is
    read through — readers skip a torn line anyway — rather than hanging the server."""
    for _ in range(attempts):
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            time.sleep(0.01)
    log.warning("a JSONL file stayed locked; reading it without the lock")
    return False


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """Every well-formed object line, in order; a torn or malformed line is skipped."""
    try:
        # Non-blocking open: a FIFO planted where a file should be must not hang the reader.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return
    yield from read_open(fd, path)


def read_open(fd: int, path: Path) -> Iterator[dict[str, Any]]:
    """:func:`read_lines` of a file opened for reading (``fd``, closed here; ``path`` names
    it in the log)."""
    with contextlib.closing(os.fdopen(fd, "rb")) as stream:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            log.warning("%s is not a regular file; ignoring it", path)
            return
        locked = _lock_shared(fd)
        try:
            data = stream.read()
        finally:
            if locked:
                fcntl.flock(fd, fcntl.LOCK_UN)
    for raw in data.splitlines():
        try:
            message = json.loads(raw)
        except ValueError:
            log.warning("skipping a malformed line in %s", path)
            continue
        if isinstance(message, dict):
            yield message
