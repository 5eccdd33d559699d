"""Where this user's plan-mode servers say they run: records in the per-user runtime directory.

A server keeps one record per workspace, ``<directory>/workspace-<key>.json`` (0600), where
``key`` is the SHA-256 of the workspace's real path: ``starting`` from ``initialize``,
``running`` with its agent socket once the endpoint listens, removed when it stops. A server
that dies (kill -9) leaves its record behind, which is how ``planmode hook`` tells a workspace
whose server is gone from one that never had a server (docs/protocol.md §9, §10).

The directory is the user's own (``$XDG_RUNTIME_DIR/planmode``, 0700), never a path inside a
workspace: nothing a repository ships or a planning agent writes there can say where the server
is, or that there is none. Records are trusted only in a directory owned by this user that no
one else may write.

Stdlib ``os`` only: ``planmode hook`` imports this before every Claude Code tool call.
"""

from __future__ import annotations

import os
import stat

RECORD_PREFIX = "workspace-"


def directory() -> str:
    """``$XDG_RUNTIME_DIR/planmode``; without it ``/run/user/<uid>/planmode`` when that
    directory is the user's, else ``/tmp/runtime-<uid>/planmode`` (platformdirs' fallback).
    Fixed paths, not the temp directory: the editor's server and the agent's hook run with
    different environments and must agree."""
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if not os.path.isabs(base):
        uid = os.getuid()
        base = f"/run/user/{uid}"
        if not private(base):
            base = f"/tmp/runtime-{uid}"
    return os.path.join(base, "planmode")


def private(path: str) -> bool:
    """A real directory (not a symlink) of this user that no one else may use (0700)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def ensure_directory() -> str:
    """The runtime directory, made (0700) if missing; OSError when it is not private."""
    folder = directory()
    os.makedirs(folder, mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077:
        os.chmod(folder, 0o700)  # made by an older release with the default mode
    if not private(folder):
        raise OSError(f"{folder} is not a private directory of this user (0700)")
    return folder


def private_directory(*names: str, make: bool = False) -> str:
    """A directory of its own under the runtime directory (an agent's notes, its records),
    with ``make`` made (0700); OSError when it is not private to this user."""
    folder = os.path.join(ensure_directory() if make else directory(), *names)
    if make:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise OSError(f"{folder} is not a private directory of this user")
    return folder


def _sha256_hex(data: bytes) -> str:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # 3.11, without OpenSSL
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found]  # 3.12 on
        except ImportError:
            from hashlib import sha256
    return str(sha256(data).hexdigest())


def record_name(root: str) -> str:
    """The record's file name for the workspace whose real path is ``root``."""
    return f"{RECORD_PREFIX}{_sha256_hex(os.fsencode(root))}.json"


def record_path(root: str) -> str:
    return os.path.join(directory(), record_name(root))


def write_record(root: str, state: str, socket: str | None = None) -> str:
    """Write this process's record of the workspace whose real path is ``root`` — ``state``
    ``starting``, or ``running`` with its agent ``socket`` — atomically, 0600; its path.
    OSError when it cannot be written."""
    import json  # not at the top: the hook only reads records
    import tempfile
    from datetime import UTC, datetime

    from planmode import __version__

    folder = ensure_directory()
    info: dict[str, object] = {
        "version": 1,
        "state": state,
        "pid": os.getpid(),
        "root": root,
        "serverVersion": __version__,
        "startedAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    if socket is not None:
        info["socket"] = socket
    path = os.path.join(folder, record_name(root))
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".record-")  # 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(info, indent=2) + "\n")
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return path


def find(start: str) -> tuple[str, str] | None:
    """The nearest workspace at or above ``start`` (its real path) with a record, and that
    record's path; None when there is none or the directory is not private."""
    folder = directory()
    if not private(folder):
        return None
    current = os.path.realpath(start)
    while True:
        path = os.path.join(folder, record_name(current))
        if os.path.lexists(path):
            return current, path
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def read(path: str) -> bytes | None:
    """A record's bytes; None when it is gone (its server stopped), not a regular file of
    this user, or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            return None
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def pid_alive(pid: object) -> bool:
    """Whether a process ``pid`` exists (of any user)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except OSError:
        return False
    return True
