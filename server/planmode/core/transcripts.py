"""Transcripts and plan recovery: resume and fork (docs/protocol.md §5.4).

The server appends its own events — mode changes, ExitPlanMode calls, plan snapshots — to
``<root>/.claude/plan-mode/transcripts/<sessionId>.jsonl`` (never through a symlink:
:mod:`planmode.core.state_dir`), each line carrying the session's plan slug, so any session
can be resumed. Recovering a plan tries, in order: the file on disk; the last
``file_snapshot`` system line; the ``plan`` of the last ``ExitPlanMode`` tool_use; the last
user line's ``planContent``; the last ``plan_file_reference`` attachment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planmode.core.approval import now_iso
from planmode.core.jsonl import read_lines
from planmode.core.state_dir import STATE, StatePlace


def _name(session_id: str) -> tuple[str, str]:
    return ("transcripts", f"{session_id}.jsonl")


def transcript_path(root: Path | StatePlace, session_id: str) -> Path:
    """Where the session's transcript is kept now."""
    return StatePlace.of(root, STATE).path(_name(session_id))


def append_event(root: Path | StatePlace, session_id: str, event: dict[str, Any]) -> None:
    StatePlace.of(root, STATE).append_line(_name(session_id), {"timestamp": now_iso(), **event})


def mode_change(slug: str | None, before: str, after: str) -> dict[str, Any]:
    return {"type": "system", "subtype": "mode_change", "slug": slug, "from": before, "to": after}


def file_snapshot(slug: str | None, path: Path, content: str) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "file_snapshot",
        "slug": slug,
        "snapshotFiles": [{"key": "plan", "path": str(path), "content": content}],
    }


def exit_call(slug: str | None, plan: str | None) -> dict[str, Any]:
    tool_input: dict[str, Any] = {} if plan is None else {"plan": plan}
    return {
        "type": "assistant",
        "slug": slug,
        "message": {"content": [{"type": "tool_use", "name": "ExitPlanMode", "input": tool_input}]},
    }


def decision(slug: str | None, outcome: str, feedback: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "system",
        "subtype": "plan_decision",
        "slug": slug,
        "outcome": outcome,
    }
    if feedback:
        event["feedback"] = feedback
    return event


# -- reading --------------------------------------------------------------------------------
def load(path: Path) -> list[dict[str, Any]]:
    """The transcript's lines (malformed ones skipped); FileNotFoundError when it is absent."""
    if not path.is_file():
        raise FileNotFoundError(path)
    return list(read_lines(path))


def slug_of(lines: Iterable[dict[str, Any]]) -> str | None:
    """The plan slug recorded in a transcript (the last one given)."""
    found = None
    for line in lines:
        slug = line.get("slug")
        if isinstance(slug, str) and slug:
            found = slug
    return found


def exited_plan_mode(lines: Iterable[dict[str, Any]]) -> bool:
    """Whether the conversation left plan mode at some point (for re-entry on resume)."""
    return any(
        line.get("subtype") == "mode_change" and line.get("from") == "plan" for line in lines
    )


def _from_snapshot(line: dict[str, Any]) -> str | None:
    if line.get("type") != "system" or line.get("subtype") != "file_snapshot":
        return None
    for snapshot in line.get("snapshotFiles") or []:
        if isinstance(snapshot, dict) and snapshot.get("key") == "plan":
            content = snapshot.get("content")
            if isinstance(content, str):
                return content
    return None


def _from_exit_tool_use(line: dict[str, Any]) -> str | None:
    if line.get("type") != "assistant":
        return None
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    found = None
    for block in content if isinstance(content, list) else []:
        if (
            isinstance(block, dict)
            and block.get("type") == "tool_use"
            and block.get("name") == "ExitPlanMode"
            and isinstance(block.get("input"), dict)
            and isinstance(block["input"].get("plan"), str)
        ):
            found = block["input"]["plan"]
    return found


def _from_user_plan_content(line: dict[str, Any]) -> str | None:
    if line.get("type") != "user":
        return None
    content = line.get("planContent")
    return content if isinstance(content, str) else None


def _from_plan_file_reference(line: dict[str, Any]) -> str | None:
    """``{"type": "attachment", "attachment": {"type": "plan_file_reference", "planContent"}}``,
    or the same fields flat on the line."""
    if line.get("type") != "attachment":
        return None
    for holder in (line.get("attachment"), line):
        if not isinstance(holder, dict):
            continue
        kinds = (holder.get("type"), holder.get("subtype"), holder.get("attachmentType"))
        content = holder.get("planContent")
        if "plan_file_reference" in kinds and isinstance(content, str):
            return content
    return None


RECOVERY_LAYERS: tuple[tuple[str, Callable[[dict[str, Any]], str | None]], ...] = (
    ("file_snapshot", _from_snapshot),
    ("ExitPlanMode", _from_exit_tool_use),
    ("planContent", _from_user_plan_content),
    ("plan_file_reference", _from_plan_file_reference),
)


@dataclass(frozen=True)
class Recovered:
    content: str
    layer: str  # "file" or one of RECOVERY_LAYERS' names


def recover_plan(
    lines: list[dict[str, Any]], on_disk: str | None, use_transcript: bool = True
) -> Recovered | None:
    """The plan in recovery order: the file, then each transcript layer (latest line first)."""
    if on_disk is not None:
        return Recovered(on_disk, "file")
    if not use_transcript:
        return None
    for name, extract in RECOVERY_LAYERS:
        for line in reversed(lines):
            content = extract(line)
            if content is not None:
                return Recovered(content, name)
    return None
