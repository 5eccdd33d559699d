"""Sessions: one agent conversation's mode state, plan slug and grants, kept on disk.

A session is saved after every change to ``<root>/.claude/plan-mode/sessions/<id>.json``
(atomically, never through a symlink: :mod:`planmode.core.state_dir`), so a server started
again on the same workspace finds it in plan mode with the same slug (docs/protocol.md §2).
Pending approvals are not saved: the request that waits for one dies with the server that held
it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from planmode.core.approval import AllowedPrompt, Approval, now_iso
from planmode.core.attachments import TurnCounter
from planmode.core.comments import Comment
from planmode.core.modes import PERMISSION_MODES, ModeState
from planmode.core.plans import SAFE_ID_RE, is_slug
from planmode.core.state_dir import STATE, StatePlace

log = logging.getLogger(__name__)

FORMAT_VERSION = 1


def is_valid_session_id(session_id: str) -> bool:
    return bool(SAFE_ID_RE.match(session_id))


@dataclass
class Session:
    id: str
    modes: ModeState = field(default_factory=ModeState)
    slug: str | None = None
    granted_prompts: tuple[AllowedPrompt, ...] = ()
    created_at: str = field(default_factory=now_iso)
    pending: Approval | None = None
    # Attachment turn counters: "" for the conversation itself, else per subagent id.
    turns: dict[str, TurnCounter] = field(default_factory=dict)
    # A teammate's plan_approval_request still waiting for the lead's answer.
    awaiting_request: str | None = None
    # The agent's own plan file (docs/protocol.md §3, core/agents.py), once learned: it
    # replaces <plans directory>/<slug>.md for everything. Saved with how the agent reported it,
    # so a restart never learns it anew from what the agent says.
    plan_file: Path | None = None
    plan_file_source: str | None = None
    # Plan file -> the review comments sent with its last rejection (docs/protocol.md §5.6):
    # shown while the agent revises, across a restart too, until the plan is approved.
    sent_comments: dict[Path, tuple[Comment, ...]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "sessionId": self.id,
            "planSlug": self.slug,
            "modes": asdict(self.modes),
            "grantedPrompts": [{"tool": p.tool, "prompt": p.prompt} for p in self.granted_prompts],
            "turns": {key: asdict(counter) for key, counter in self.turns.items()},
            "awaitingRequest": self.awaiting_request,
            "planFile": str(self.plan_file) if self.plan_file else None,
            "planFileSource": self.plan_file_source if self.plan_file else None,
            "sentComments": {
                str(path): [c.to_json() for c in sent] for path, sent in self.sent_comments.items()
            },
            "createdAt": self.created_at,
            "updatedAt": now_iso(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Session:
        raw_modes = data.get("modes") or {}
        known = {f.name for f in fields(ModeState)}
        values = {k: v for k, v in raw_modes.items() if k in known}
        for key in ("allow_rules", "stripped_dangerous_rules"):
            if isinstance(values.get(key), list):
                values[key] = tuple(values[key])
        modes = replace(ModeState(), **values)
        if modes.mode not in PERMISSION_MODES:
            raise ValueError(f"unknown mode {modes.mode!r}")
        slug = data.get("planSlug")
        if slug is not None and not (isinstance(slug, str) and SAFE_ID_RE.match(slug)):
            # A slug names a file in the plans directory: never a path (../src/app).
            log.warning("a saved plan slug %r is no file name: a new one is chosen", slug)
            slug = None
        plan_file = _saved_plan_file(data.get("planFile"), slug)
        source = data.get("planFileSource")
        return cls(
            id=str(data["sessionId"]),
            modes=modes,
            slug=slug,
            granted_prompts=tuple(
                AllowedPrompt(str(p["tool"]), str(p["prompt"]))
                for p in data.get("grantedPrompts") or []
            ),
            created_at=str(data.get("createdAt") or now_iso()),
            awaiting_request=data.get("awaitingRequest"),
            plan_file=plan_file,
            plan_file_source=source if plan_file is not None and isinstance(source, str) else None,
            sent_comments=_saved_comments(data.get("sentComments")),
            turns={
                str(key): TurnCounter(
                    turns_since_attachment=counter.get("turns_since_attachment"),
                    attachments_since_exit=int(counter.get("attachments_since_exit", 0)),
                )
                for key, counter in (data.get("turns") or {}).items()
            },
        )


def _saved_comments(raw: object) -> dict[Path, tuple[Comment, ...]]:
    """Saved sent comments; what does not read as a plan path and its comments is left out."""
    found: dict[Path, tuple[Comment, ...]] = {}
    for path, sent in (raw if isinstance(raw, dict) else {}).items():
        try:
            if not (isinstance(path, str) and os.path.isabs(path) and isinstance(sent, list)):
                raise ValueError(f"not a plan path and its comments: {path!r}")
            found[Path(path)] = tuple(Comment.from_json(c) for c in sent)
        except (ValueError, TypeError, AttributeError) as exc:
            log.warning("saved review comments not used: %s", exc)
    return found


def _saved_plan_file(raw: object, slug: object) -> Path | None:
    """A saved adopted plan file, when it still looks like one: an absolute, normalised
    ``<slug>.md`` of the session's own slug (the registry checks the rest)."""
    if raw is None:
        return None
    if (
        isinstance(raw, str)
        and "\x00" not in raw
        and os.path.isabs(raw)
        and os.path.normpath(raw) == raw
        and Path(raw).name == f"{slug}.md"
        and is_slug(Path(raw).stem)
    ):
        return Path(raw)
    log.warning("a saved plan file %r is not the plan of slug %r: not used", raw, slug)
    return None


class SessionStore:
    """Reads and writes session files under one workspace's state directory (``sessions``;
    a file that is a symlink, or behind one, is kept in the user's state directory instead:
    :mod:`planmode.core.state_dir`)."""

    def __init__(self, root: Path | StatePlace) -> None:
        self.state = StatePlace.of(root, STATE)
        self.root = self.state.root

    @property
    def directory(self) -> Path:
        """Where the session files are kept now."""
        return self.state.folder("sessions")

    @staticmethod
    def _name(session_id: str) -> tuple[str, str]:
        if not is_valid_session_id(session_id):
            raise ValueError(f"sessionId {session_id!r} is not a safe file-name segment")
        return ("sessions", f"{session_id}.json")

    def path(self, session_id: str) -> Path:
        """Where the session's file is kept now."""
        return self.state.path(self._name(session_id))

    def load(self, session_id: str) -> Session | None:
        """The saved session, or None. A corrupt file is moved aside and reported."""
        name = self._name(session_id)
        try:
            data = json.loads(self.state.read_text(name))
            return Session.from_json(data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            aside = f"{session_id}.corrupt-{os.getpid()}"
            path = self.path(session_id)
            log.error("session file %s is unreadable (%s); moved to %s", path, exc, aside)
            with contextlib.suppress(OSError, ValueError):
                self.state.rename(name, aside)
            raise CorruptSession(session_id, str(exc)) from exc

    def save(self, session: Session) -> None:
        self.state.write_atomic(
            self._name(session.id), json.dumps(session.to_json(), indent=2) + "\n"
        )

    def slugs(self) -> dict[str, str]:
        """slug -> session id for every saved session (for listing plans)."""
        return {
            data["planSlug"]: str(data.get("sessionId"))
            for data in self._saved()
            if isinstance(data.get("planSlug"), str)
        }

    def with_sent_comments(self) -> list[str]:
        """The ids of the saved sessions that keep comments sent with a rejection."""
        return [
            str(data.get("sessionId"))
            for data in self._saved()
            if isinstance(data.get("sentComments"), dict) and data["sentComments"]
        ]

    def adopted(self) -> dict[Path, tuple[str, str | None]]:
        """Adopted plan file -> the session's id and how the file was learned
        (``planFileSource``), for every saved session (one that does not look like a plan
        file of its slug is left out)."""
        found = {}
        for data in self._saved():
            if isinstance(data.get("planFile"), str):
                path = _saved_plan_file(data["planFile"], data.get("planSlug"))
                source = data.get("planFileSource")
                if path is not None:
                    found[path] = (
                        str(data.get("sessionId")),
                        source if isinstance(source, str) else None,
                    )
        return found

    def _saved(self) -> Iterator[dict[str, Any]]:
        try:
            entries = self.state.entries("sessions")
        except OSError:
            return
        for entry in entries:
            if not entry.name.endswith(".json") or not is_valid_session_id(entry.name[:-5]):
                continue
            try:
                data = json.loads(self.state.read_text(("sessions", entry.name)))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                yield data


class CorruptSession(Exception):
    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"saved state of session {session_id!r} was unreadable: {reason}")
        self.session_id = session_id
