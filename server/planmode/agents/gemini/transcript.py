"""What Gemini CLI's transcript says that no hook is told: the line it adds when the user
leaves plan mode with Shift+Tab while the model is idle (a ``user`` message whose only text is
``User has manually exited Plan Mode. Switching to <mode>.``), and the one it adds at once when
the user cancels the turn with Esc (an ``info`` line ``Request cancelled.``) — while a hook
holding ``exit_plan_mode`` keeps running (docs/gemini.md, "The review channel, and why").

Read on from where the hook's last reading stopped (:mod:`.notes`): only lines written since
count, so a session's old lines (a resumed session's, those before planmode first saw it) say
nothing about now. The search is a byte search over the new part; only the lines that hold the
text are parsed, and only a ``user`` message of that text alone counts — a file the model read,
or its own words, never do.

Stdlib only, the hook's own JSON codec: the hook reads this before every tool call.
"""

from __future__ import annotations

import os

from planmode.agents.gemini import notes, versions
from planmode.agents.hookclient import loads

_MARKER = versions.MANUAL_EXIT.encode()
# A transcript that grew by more than this since the last call is not searched from the old
# offset: the hook must stay quick (the line comes in the same turn, near the end).
MAX_READ = 8 << 20


def _offset(session_id: str, path: str) -> int | None:
    """Where the last reading of ``path`` stopped; None when this transcript was never read."""
    note = notes.read(session_id, notes.TRANSCRIPT)
    if note is None:
        return None
    offset, _, noted = note.partition(" ")
    return int(offset) if offset.isdigit() and noted == path else None


def start(session_id: str, path: object) -> None:
    """From here on: what the transcript holds so far is history."""
    if isinstance(path, str) and path:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        notes.write_quietly(session_id, notes.TRANSCRIPT, f"{size} {path}")


def manual_exit(session_id: str, path: object) -> str | None:
    """The protocol's mode the user switched to by leaving plan mode with Shift+Tab since the
    last reading (the last such line), None when they did not; the reading moves on."""
    if not isinstance(path, str) or not path or "\n" in path:
        return None
    offset = _offset(session_id, path)
    try:
        size = os.path.getsize(path)
    except OSError:
        return None
    if offset is None or offset > size or size - offset > MAX_READ:
        start(session_id, path)  # a new or replaced transcript: from its end on
        return None
    if offset == size:
        return None
    with open(path, "rb") as stream:
        stream.seek(offset)
        chunk = stream.read(size - offset)
    end = chunk.rfind(b"\n")
    if end < 0:
        return None  # a line still being written: next time
    found = None
    at = chunk.find(_MARKER, 0, end)
    while at >= 0:
        line_start = chunk.rfind(b"\n", 0, at) + 1
        line_end = chunk.find(b"\n", at)
        found = _mode_of(chunk[line_start:line_end]) or found
        at = chunk.find(_MARKER, line_end, end)
    notes.write_quietly(session_id, notes.TRANSCRIPT, f"{offset + end + 1} {path}")
    return found


def _mode_of(line: bytes) -> str | None:
    try:
        entry = loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(entry, dict) or entry.get("type") != "user":
        return None
    content = entry.get("content")
    if not isinstance(content, list) or len(content) != 1 or not isinstance(content[0], dict):
        return None
    text = content[0].get("text")
    if not isinstance(text, str):
        return None
    return versions.described_mode(text, versions.MANUAL_EXIT)


_CANCELLED = b'"Request cancelled."'


class Cancelled:
    """Whether the user cancelled the turn (Esc) since this was made: a ``Request cancelled.``
    info line written after it. Called again and again while an exit is held: each call reads
    only what was added since."""

    def __init__(self, path: object) -> None:
        self.path = path if isinstance(path, str) and path else None
        self.offset = 0
        if self.path is not None:
            try:
                self.offset = os.path.getsize(self.path)
            except OSError:
                self.path = None

    def __call__(self) -> bool:
        if self.path is None:
            return False
        try:
            with open(self.path, "rb") as stream:
                stream.seek(self.offset)
                chunk = stream.read(MAX_READ)
        except OSError:
            return False
        end = chunk.rfind(b"\n")
        if end < 0:
            return False
        self.offset += end + 1
        lines = chunk[: end + 1].splitlines()
        return any(_CANCELLED in line and _is_cancel(line) for line in lines)


def _is_cancel(line: bytes) -> bool:
    try:
        entry = loads(line)
    except (ValueError, RecursionError):
        return False
    return (
        isinstance(entry, dict)
        and entry.get("type") == "info"
        and entry.get("content") == versions.CANCELLED
    )
