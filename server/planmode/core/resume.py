"""Resuming and forking a conversation: the plan that goes with it (docs/protocol.md §5.4).

A resumed session takes the transcript's slug and finds its plan; a fork gets a new slug and
a copy of the original plan. The plan comes from the file on disk, or — for a remote session
or a fork whose file is gone — from the transcript's own record of it.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from planmode.core import plans, transcripts
from planmode.core.errors import InvalidParams
from planmode.core.registry import SessionRegistry
from planmode.core.session import Session


def resume(
    registry: SessionRegistry, session: Session, transcript: str, remote: bool = False
) -> tuple[bool, Path]:
    """Adopt the transcript's slug, then find its plan; returns (found, plan path).

    Locally only the file on disk counts; a remote session (whose disk may be gone)
    recovers the plan from the transcript's layers and writes it back.
    """
    lines = _load(registry.root, transcript)
    slug = _transcript_slug(lines)
    if slug is None:
        return False, registry.plan_path(session)
    if session.slug != slug:
        session.slug = slug
    if transcripts.exited_plan_mode(lines):
        session.modes = replace(session.modes, has_exited_plan_mode=True)
    registry.save(session)
    path = registry.plan_path(session)
    found = transcripts.recover_plan(lines, registry.read_text(path), use_transcript=remote)
    if found is None:
        return False, path
    if found.layer != "file":
        plans.write_plan(path, found.content)
        registry.snapshot(session, path, found.content)
    return True, path


def fork(registry: SessionRegistry, session: Session, transcript: str) -> tuple[bool, Path]:
    """A new slug for the session, the original plan copied to it; returns (copied, path)."""
    lines = _load(registry.root, transcript)
    original = _transcript_slug(lines)
    # Always a fresh slug when there is a plan to copy: reusing the session's own slug
    # would copy the original over whatever plan that session already has.
    if session.slug is None or original is not None:
        session.slug = None
        session.slug = plans.generate_plan_slug(
            registry.plans_directory,
            lambda p: p.exists() or p.stem == original,
        )
        registry.save(session)
    path = registry.plan_path(session)
    if original is None:
        return False, path
    source = registry.plans_directory / plans.plan_file_name(original)
    found = transcripts.recover_plan(lines, registry.read_text(source))
    if found is None:
        return False, path
    plans.write_plan(path, found.content)
    registry.snapshot(session, path, found.content)
    return True, path


def _load(root: Path, raw: str) -> list[dict[str, Any]]:
    path = Path(os.path.expanduser(raw))
    path = path if path.is_absolute() else root / path
    try:
        return transcripts.load(path)
    except FileNotFoundError:
        raise InvalidParams(f"field 'transcript': no transcript at {path}") from None
    except OSError as exc:
        raise InvalidParams(f"field 'transcript': cannot read {path}: {exc}") from exc


def _transcript_slug(lines: list[dict[str, Any]]) -> str | None:
    """The transcript's slug; one that is no plain file name (``../x``, ``/tmp/x``) is refused,
    or a resume would read and write plans outside the plans directory."""
    slug = transcripts.slug_of(lines)
    if slug is not None and not plans.SAFE_ID_RE.match(slug):
        raise InvalidParams(f"field 'transcript': its slug {slug!r} is not a safe file name")
    return slug
