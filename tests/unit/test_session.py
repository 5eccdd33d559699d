"""Sessions on disk: the JSON round trip, and what happens to a file that is unreadable."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from planmode.core.approval import AllowedPrompt, Approval
from planmode.core.modes import ModeState
from planmode.core.session import CorruptSession, Session, SessionStore, is_valid_session_id


def full_session() -> Session:
    return Session(
        id="sess-1",
        modes=ModeState(
            mode="plan",
            pre_plan_mode="acceptEdits",
            auto_mode_active=True,
            allow_rules=("Read", "Bash(ls:*)"),
            stripped_dangerous_rules=("Bash(python:*)",),
            has_exited_plan_mode=True,
            needs_plan_mode_exit_attachment=False,
            needs_auto_mode_exit_attachment=True,
        ),
        slug="bold-eagle",
        granted_prompts=(AllowedPrompt("Bash", "run tests"),),
        created_at="2024-01-02T03:04:05.000Z",
    )


def test_json_round_trip_keeps_everything_but_the_pending_approval(tmp_path: Path) -> None:
    session = full_session()
    session.pending = Approval("sess-1", tmp_path / "p.md", "plan")
    data = json.loads(json.dumps(session.to_json()))
    assert data["sessionId"] == "sess-1"
    assert data["planSlug"] == "bold-eagle"
    assert data["grantedPrompts"] == [{"tool": "Bash", "prompt": "run tests"}]
    loaded = Session.from_json(data)
    assert loaded.modes == session.modes
    assert loaded.slug == "bold-eagle"
    assert loaded.granted_prompts == session.granted_prompts
    assert loaded.created_at == session.created_at
    assert loaded.pending is None


def test_store_save_then_load(root: Path) -> None:
    store = SessionStore(root)
    store.save(full_session())
    assert store.path("sess-1") == root / ".claude" / "plan-mode" / "sessions" / "sess-1.json"
    loaded = store.load("sess-1")
    assert loaded is not None
    assert loaded.modes == full_session().modes
    assert loaded.slug == "bold-eagle"


def test_unknown_session_loads_as_none(root: Path) -> None:
    assert SessionStore(root).load("never-saved") is None


def test_from_json_ignores_unknown_fields_and_defaults_missing_ones() -> None:
    loaded = Session.from_json({"sessionId": "s", "modes": {"mode": "plan", "future": 1}})
    assert loaded.modes == ModeState(mode="plan")
    assert loaded.slug is None
    assert loaded.granted_prompts == ()


@pytest.mark.parametrize(
    "content",
    [
        "{truncated",
        "",
        "[]",
        "null",
        '"just a string"',
        json.dumps({"modes": {"mode": "plan"}}),
        json.dumps({"sessionId": "s", "modes": {"mode": "yolo"}}),
        json.dumps({"sessionId": "s", "modes": ["plan"]}),
        json.dumps({"sessionId": "s", "grantedPrompts": [{"tool": "Bash"}]}),
    ],
    ids=[
        "bad-json",
        "empty",
        "list",
        "null",
        "string",
        "no-id",
        "unknown-mode",
        "modes-list",
        "prompt-without-text",
    ],
)
def test_corrupt_session_file_is_moved_aside_and_reported(
    root: Path, caplog: pytest.LogCaptureFixture, content: str
) -> None:
    store = SessionStore(root)
    path = store.path("s")
    path.parent.mkdir(parents=True)
    path.write_text(content, encoding="utf-8")
    with caplog.at_level(logging.ERROR), pytest.raises(CorruptSession) as raised:
        store.load("s")
    assert raised.value.session_id == "s"
    assert not path.exists()
    aside = [p for p in path.parent.iterdir() if p.name.startswith("s.corrupt-")]
    assert len(aside) == 1
    assert aside[0].read_text(encoding="utf-8") == content
    assert any(str(path) in r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)
    # Once moved aside the session is simply new.
    assert store.load("s") is None


@pytest.mark.parametrize("session_id", ["", "../escape", "a/b", ".hidden", "x" * 129])
def test_unsafe_session_ids_are_refused(root: Path, session_id: str) -> None:
    assert not is_valid_session_id(session_id)
    with pytest.raises(ValueError, match="sessionId"):
        SessionStore(root).path(session_id)


@pytest.mark.parametrize("session_id", ["a", "0b7e-uuid-like", "agent_1.2"])
def test_safe_session_ids(session_id: str) -> None:
    assert is_valid_session_id(session_id)


def test_slugs_maps_each_saved_slug_to_its_session(root: Path) -> None:
    store = SessionStore(root)
    store.save(Session("one", slug="bold-eagle"))
    store.save(Session("two", slug="calm-otter"))
    store.save(Session("three"))
    (store.directory / "junk.json").write_text("{broken")
    assert store.slugs() == {"bold-eagle": "one", "calm-otter": "two"}


def test_slugs_of_a_workspace_without_sessions_is_empty(root: Path) -> None:
    assert SessionStore(root).slugs() == {}
