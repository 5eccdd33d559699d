"""Who wrote a plan's text (core/provenance.py): only the user's typing in the editor is
theirs; an edit the server sent, a text the agent's own tool writes, a reload of the file are
not — except typing an editor sends only when it saves (eglot, Neovim)."""

from __future__ import annotations

from pathlib import Path

from planmode.core.comments import parse
from planmode.core.provenance import Provenance
from planmode.core.service import PlanModeService
from tests.unit.editor_buffers import Buffers

PATH = Path("/ws/.claude/plans/plan.md")
PLAN = "# Plan\n\n1. Do it.\n"
MINE = PLAN + "> [!review] Mine.\n"
AGENTS = PLAN + "> [!review] The agent's.\n"


def comment_texts(known: Provenance, text: str) -> list[str]:
    return [c.text for c in known.users_comments(PATH, parse(text))]


def test_typing_is_the_users_and_adds_their_comments() -> None:
    known = Provenance()
    known.opened(PATH, PLAN)
    assert known.changed(PATH, MINE, disk=PLAN) == "user"
    assert known.is_users(PATH, MINE)
    assert comment_texts(known, MINE) == ["Mine."]


def test_an_edit_the_server_sent_is_the_agents() -> None:
    known = Provenance()
    known.opened(PATH, PLAN)
    known.wrote(PATH, AGENTS, "agent")
    assert known.changed(PATH, AGENTS, disk=PLAN) == "agent"
    assert comment_texts(known, AGENTS) == []
    assert [c.text for c in known.others_comments(PATH, parse(AGENTS))] == ["The agent's."]


def test_a_reload_is_nobodys_unless_the_editor_saves_it_next() -> None:
    known = Provenance()
    known.opened(PATH, PLAN)
    # The file changed on disk and the editor reloaded it: not the user's.
    assert known.changed(PATH, AGENTS, disk=AGENTS) is None
    assert comment_texts(known, AGENTS) == []
    # eglot: the user typed, saved; the held-back change arrives once the file is written.
    known.opened(PATH, PLAN)
    assert known.changed(PATH, MINE, disk=MINE) is None
    assert known.saved(PATH, MINE) is True
    assert known.is_users(PATH, MINE) and comment_texts(known, MINE) == ["Mine."]
    # A save of another text does not make an earlier reload the user's.
    known.opened(PATH, PLAN)
    known.changed(PATH, AGENTS, disk=AGENTS)
    known.changed(PATH, AGENTS + "x\n", disk=AGENTS)
    assert known.saved(PATH, AGENTS) is False


def test_a_text_the_agents_tool_writes_stays_the_agents_when_saved(
    service: PlanModeService,
) -> None:
    session = service.require_session("s")
    service.enter(session)
    path = service.plan_path(session)
    approval, _ = service.begin_exit(session, plan=PLAN)
    editor = Buffers(service)
    editor.open(path)
    # Claude Code's Write, allowed while planning: its content is the agent's.
    check = {"file_path": str(path), "content": AGENTS}
    assert service.check_tool(session, "Write", check).behavior == "allow"
    path.write_text(AGENTS)
    editor.reload(path)
    service.editor_saved(path, AGENTS)  # the user saves out of habit
    assert service.comment_view(path)[0] == []
    # An Edit's text is found too: the old string replaced in the file.
    edit = {"file_path": str(path), "old_string": "1. Do it.", "new_string": "1. Do it now."}
    assert service.check_tool(session, "Edit", edit).behavior == "allow"
    edited = AGENTS.replace("1. Do it.", "1. Do it now.")
    assert service.review.provenance.author(path, edited) == "agent"
    assert approval.approval_id
