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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def append_line(path: Path, message: dict[str, Any]) -> None:
    """Append one JSON line under an exclusive lock (safe with concurrent writers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(message, ensure_ascii=False) + "\n"
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
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


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """Every well-formed object line, in order; a torn or malformed line is skipped."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    with contextlib.closing(os.fdopen(fd, "rb")) as stream:
        fcntl.flock(fd, fcntl.LOCK_SH)
        try:
            data = stream.read()
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    for raw in data.splitlines():
        try:
            message = json.loads(raw)
        except ValueError:
            log.warning("skipping a malformed line in %s", path)
            continue
        if isinstance(message, dict):
            yield message
