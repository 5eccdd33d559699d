"""What planmode's Gemini CLI hook keeps between calls, per session, in the user's runtime
directory (``<runtime dir>/gemini/<session id>/``, 0700; :mod:`planmode.runtime`), never in the
workspace:

* ``mode`` — the session's mode as the server last answered: whether a call the hook cannot
  check must be refused (it fails closed while planning), and how Gemini resolves a relative
  file path (against the plans directory while planning);
* ``transcript`` — how far the hook has read Gemini's transcript (:mod:`.transcript`), and
  which transcript.

Each is one small file replaced whole (hooks of one event run in parallel). A note that cannot
be read says nothing; one that cannot be written is skipped, except where safety needs it (the
caller decides).

Stdlib ``os`` only: the hook imports this before every tool call.
"""

from __future__ import annotations

import os

from planmode import runtime

MODE = "mode"
TRANSCRIPT = "transcript"


def valid_session(session_id: object) -> bool:
    """A session id that can name a directory: Gemini's are UUIDs."""
    return (
        isinstance(session_id, str)
        and 0 < len(session_id) <= 128
        and not session_id.startswith(".")
        and all(c.isalnum() or c in "-_." for c in session_id)
    )


def directory(session_id: str, make: bool = False) -> str:
    """The session's directory of notes (made, private, with ``make``)."""
    if not valid_session(session_id):
        raise OSError(f"session id {session_id!r} cannot name a directory")
    return runtime.private_directory("gemini", session_id, make=make)


def read(session_id: str, name: str) -> str | None:
    try:
        fd = os.open(os.path.join(directory(session_id), name), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        return os.read(fd, 4096).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def write(session_id: str, name: str, text: str) -> None:
    """Replace the note atomically; OSError when it cannot be written."""
    folder = directory(session_id, make=True)
    path = os.path.join(folder, name)
    temp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    os.replace(temp, path)


def write_quietly(session_id: str, name: str, text: str) -> None:
    try:  # noqa: SIM105 (contextlib costs the hook an import)
        write(session_id, name, text)
    except OSError:
        pass


def remove(session_id: str, name: str) -> None:
    try:  # noqa: SIM105 (contextlib costs the hook an import)
        os.unlink(os.path.join(directory(session_id), name))
    except OSError:
        pass


def forget(session_id: str) -> None:
    """The session ended: its notes go."""
    try:
        folder = directory(session_id)
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)
    except OSError:
        pass
