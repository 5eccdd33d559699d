"""The approved plan, handed from the ``Stop`` hook that heard the approval to the prompt that
starts implementing it (docs/codex.md, "Approving").

Codex leaves Plan mode only through its own question at the end of the planning turn
("Implement this plan?"), which the user answers in the terminal after approving in the
editor; no hook answer chooses it. So the ``Stop`` hook that was told "approved" keeps what
the model must read — the approved text, edited or not, and the user's notes — in a record,
and the ``UserPromptSubmit`` hook of the prompt Codex then sends in Default mode hands it to
the model (its ``additionalContext``, a developer message after the prompt):

* "Yes, implement this plan" sends ``Implement the plan.`` in the same session;
* "Yes, clear context and implement" starts a new session (a new id, nothing naming the old
  one) whose prompt is ``Read the approved plan at <file> and implement it.``, ``<file>``
  holding the plan as Codex's model proposed it: the record whose proposed plan is that text.

A record is one file in the user's runtime directory (:mod:`planmode.runtime`, private to the
user), never in the workspace: ``codex-approved-<key>.json`` (0600), ``key`` the SHA-256 of
the session id. It is taken once, dropped when the session proposes another plan or ends, and
ignored once a day old. Stdlib only.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time

from planmode import runtime
from planmode.agents.hookclient import dumps, loads

# Not typing.TYPE_CHECKING: the typing module is not imported at run time (the hook's start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PREFIX = "codex-approved-"
MAX_AGE = 24 * 3600.0
# Codex's prompt for "Yes, clear context and implement" (docs/codex.md).
FRESH_THREAD = ("Read the approved plan at ", " and implement it.")


def _path(session_id: str) -> str:
    import hashlib  # not on every tool call's path: only where a plan is decided or handed on

    key = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()
    return os.path.join(runtime.directory(), f"{PREFIX}{key}.json")


def keep(session_id: str, root: str, proposed: str, text: str) -> None:
    """Keep ``text`` (what the model reads) for the session's next prompt in Default mode;
    ``proposed`` is the plan as the model proposed it (Codex's own copy for a new thread)."""
    folder = runtime.ensure_directory()
    record: dict[str, Any] = {"sessionId": session_id, "root": root, "proposed": proposed}
    record.update(text=text, at=time.time())
    path = _path(session_id)
    temporary = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, dumps(record).encode())
    finally:
        os.close(fd)
    os.replace(temporary, path)


def drop(session_id: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(_path(session_id))


def _read(path: str) -> dict[str, Any] | None:
    data = runtime.read(path)
    if data is None:
        return None
    try:
        record = loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("text"), str):
        return None
    at = record.get("at")
    if not isinstance(at, int | float) or time.time() - at > MAX_AGE:
        return None
    return record


def take(session_id: str, prompt: object) -> str | None:
    """What the model of this session must read with ``prompt``: its own approved plan, or —
    for Codex's fresh thread — the approved plan whose proposed text Codex hands it; taken
    once. None when there is none."""
    if not runtime.private(runtime.directory()):
        return None
    own = _path(session_id)
    record = _read(own)
    if record is not None:
        drop(session_id)
        return str(record["text"])
    proposed = _fresh_thread_plan(prompt)
    if proposed is None:
        return None
    folder = runtime.directory()
    for name in sorted(os.listdir(folder)):
        if not name.startswith(PREFIX):
            continue
        path = os.path.join(folder, name)
        found = _read(path)
        if found is not None and found.get("proposed") == proposed:
            with contextlib.suppress(OSError):
                os.unlink(path)
            return str(found["text"])
    return None


def _fresh_thread_plan(prompt: object) -> str | None:
    """The plan Codex's "clear context and implement" prompt names (its file's text)."""
    head, tail = FRESH_THREAD
    if not isinstance(prompt, str) or not prompt.startswith(head) or not prompt.endswith(tail):
        return None
    path = prompt[len(head) : -len(tail)]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        return None
