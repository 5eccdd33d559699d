"""Claude Code's transcript of a session (``transcript_path`` in every hook payload, JSONL):
what it says of the session's plan file so far — the slug on its lines and the plan-mode
attachments' ``planFilePath`` (docs/claude-code.md, "The plan file") — read on from where the
last reading stopped.

The version of Claude Code that writes it is read by the hook itself, which must not import
json.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Only the start of a transcript line is searched for these before it is parsed.
_MARKERS = (b'"slug"', b'"planFilePath"')


@dataclass
class TranscriptFacts:
    """What a Claude Code transcript says about the session's plan so far."""

    slug: str | None = None
    plan_file: str | None = None
    # Bytes of the transcript already read (whole lines only).
    offset: int = 0


def read_transcript(path: Path, facts: TranscriptFacts) -> TranscriptFacts:
    """``facts`` updated with the transcript's lines after ``facts.offset``.

    Only whole lines are read, so a line being written is read next time. The conversation's
    own lines count: a subagent's plan_mode attachment (``isSubAgent``) names its own file.
    """
    try:
        with open(path, "rb") as stream:
            stream.seek(facts.offset)
            chunk = stream.read()
    except OSError:
        return facts
    end = chunk.rfind(b"\n")
    if end < 0:
        return facts
    slug, plan_file = facts.slug, facts.plan_file
    for line in chunk[: end + 1].splitlines():
        if not any(marker in line for marker in _MARKERS):
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        if isinstance(entry.get("slug"), str) and entry["slug"]:
            slug = entry["slug"]
        found = _attachment_plan_file(entry.get("attachment"))
        if found is not None:
            plan_file = found
    return TranscriptFacts(slug, plan_file, facts.offset + end + 1)


def _attachment_plan_file(attachment: Any) -> str | None:
    if not isinstance(attachment, dict):
        return None
    if attachment.get("type") not in {"plan_mode", "plan_mode_reentry", "plan_file_reference"}:
        return None
    if attachment.get("isSubAgent"):
        return None
    found = attachment.get("planFilePath")
    return found if isinstance(found, str) else None
