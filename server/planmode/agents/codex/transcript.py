"""What Codex's transcript says that its hook payloads do not (docs/codex.md, "The plan and
the exit", "Telling Plan mode from the transcript").

Codex writes its transcript (``CODEX_HOME/sessions/…/rollout-<time>-<session>.jsonl``, one
compact JSON object a line) as things happen, before it runs a hook:

* whether a turn plans: Codex's Plan mode is only an instruction, and every hook payload says
  ``permission_mode: "default"``; the turn's ``turn_context`` line, written when the turn
  starts, says ``collaboration_mode.mode`` (``plan`` or ``default``) — :func:`turn_mode`;
* the plan: the model's ``<proposed_plan>`` block, lifted out of its message into an
  ``item_completed`` event whose item is ``{"type": "Plan", "text": …}``, written before the
  ``Stop`` hook runs — :func:`proposed_plan` (a plan the Stop hook already answered is
  followed by that answer, a ``HookPrompt`` item, and is not proposed again);
* which Codex wrote it: the first line's ``session_meta`` ``cli_version`` —
  :func:`cli_version`.

Read from the end, a block at a time, and only the lines that can matter are parsed: the
hook reads this before every tool call (``make bench``). Stdlib only, with the hook's JSON
codec. A line still being written, or one that is no JSON, is passed over.
"""

from __future__ import annotations

import os

from planmode.agents.hookclient import loads

# Not typing.TYPE_CHECKING: the typing module is not imported at run time (the hook's start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

PLAN_MODE = "plan"
BLOCK = 1 << 16
_TURN_CONTEXT = b'"type":"turn_context"'
_ITEM_COMPLETED = b'"type":"item_completed"'
_PLAN_ITEM = b'"type":"Plan"'
_HOOK_PROMPT = b'"type":"HookPrompt"'


def lines_from_end(path: str) -> Iterator[bytes]:
    """The file's lines, last first (the last one may be cut short: still being written)."""
    with open(path, "rb") as stream:
        end = stream.seek(0, os.SEEK_END)
        size = BLOCK
        rest = b""
        while end > 0:
            start = max(0, end - size)
            stream.seek(start)
            parts = (stream.read(end - start) + rest).split(b"\n")
            rest = parts[0]  # begins mid-line unless the file does
            for line in reversed(parts[1:]):
                if line.strip():
                    yield line
            end = start
            size = min(size * 2, 1 << 22)
        if rest.strip():
            yield rest


def _object(line: bytes) -> dict[str, Any] | None:
    try:
        value = loads(line)
    except (ValueError, RecursionError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def _turn_context(line: bytes) -> dict[str, Any] | None:
    """The payload of a ``turn_context`` line (a cheap test first: most lines are not)."""
    if _TURN_CONTEXT not in line:
        return None
    entry = _object(line)
    if entry is None or entry.get("type") != "turn_context":
        return None
    payload = entry.get("payload")
    return payload if isinstance(payload, dict) else None


def turn_mode(path: str, turn_id: str | None) -> str | None:
    """Codex's collaboration mode of the turn ``turn_id`` (``plan`` or ``default``): its
    ``turn_context``, the newest in the transcript. None when that is not known — no such
    line, one of another turn (when ``turn_id`` is given), a transcript that cannot be read."""
    try:
        for line in lines_from_end(path):
            context = _turn_context(line)
            if context is None:
                continue
            if turn_id is not None and context.get("turn_id") != turn_id:
                return None
            collaboration = context.get("collaboration_mode")
            mode = collaboration.get("mode") if isinstance(collaboration, dict) else None
            return mode if isinstance(mode, str) else None
    except OSError:
        return None
    return None


def proposed_plan(path: str, turn_id: str) -> str | None:
    """The plan the turn ``turn_id`` proposes now: the text of its last ``Plan`` item when no
    Stop hook has answered the turn since (a ``HookPrompt`` after it: that plan was reviewed
    and the model was told why to go on). None when the turn proposed none since, or the
    transcript cannot be read."""
    try:
        for line in lines_from_end(path):
            if _turn_context(line) is not None:
                return None  # the turn's start: nothing proposed
            if _ITEM_COMPLETED not in line or (_PLAN_ITEM not in line and _HOOK_PROMPT not in line):
                continue
            entry = _object(line)
            payload = entry.get("payload") if entry is not None else None
            if not isinstance(payload, dict) or payload.get("type") != "item_completed":
                continue
            item = payload.get("item")
            if payload.get("turn_id") != turn_id or not isinstance(item, dict):
                continue
            if item.get("type") == "HookPrompt":
                return None
            if item.get("type") == "Plan":
                text = item.get("text")
                return text if isinstance(text, str) else None
    except OSError:
        return None
    return None


def cli_version(path: str) -> str | None:
    """The Codex version that writes the transcript (its ``session_meta`` line, the first)."""
    try:
        with open(path, "rb") as stream:
            first = stream.readline(1 << 20)
    except OSError:
        return None
    entry = _object(first)
    payload = entry.get("payload") if entry is not None else None
    version = payload.get("cli_version") if isinstance(payload, dict) else None
    return version if isinstance(version, str) else None
