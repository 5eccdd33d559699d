"""A session's state survives a server restart; an unreadable saved state is reported."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from lsprotocol import types

from tests.e2e.harness import running_editor

MAIN = {"sessionId": "main"}


def session_file(root: Path, session_id: str) -> Path:
    return root / ".claude" / "plan-mode" / "sessions" / f"{session_id}.json"


async def test_plan_mode_survives_a_restart(root: Path, home: Path) -> None:
    async with running_editor(root, home, init_options=MAIN) as editor:
        await editor.request("planMode/setMode", {"mode": "acceptEdits"})
        before = (await editor.request("planMode/enter"))["state"]
        other = (await editor.request("planMode/slashCommand", {"sessionId": "b", "args": ""}))[
            "state"
        ]
    assert before["mode"] == "plan"

    async with running_editor(root, home, init_options=MAIN) as editor:
        await editor.ready()
        pushed = editor.notes["planMode/didChangeState"][0]
        after = await editor.state()
        assert pushed == after
        assert after["mode"] == "plan"
        assert after["prePlanMode"] == "acceptEdits"
        assert after["planSlug"] == before["planSlug"]
        assert after["planFilePath"] == before["planFilePath"]
        assert after == before
        assert await editor.state("b") == other

        # The kept prePlanMode is what leaving plan mode restores.
        pending = editor.start("planMode/exit", {"plan": "# Plan\n\n1. step\n"})
        requested = await editor.wait_for("planMode/approvalRequested")
        await editor.request("planMode/approve", {"approvalId": requested["approvalId"]})
        result = await asyncio.wait_for(pending, 10)
        assert result["restoredMode"] == "acceptEdits"
        assert Path(result["filePath"]).read_text() == "# Plan\n\n1. step\n"

    async with running_editor(root, home, init_options=MAIN) as editor:
        state = await editor.state()
        assert state["mode"] == "acceptEdits"
        assert state["prePlanMode"] is None
        assert state["hasExitedPlanMode"] is True
        assert state["planSlug"] == before["planSlug"]
        assert state["planExists"] is True


async def test_a_pending_exit_does_not_lose_plan_mode_on_restart(root: Path, home: Path) -> None:
    async with running_editor(root, home, init_options=MAIN) as editor:
        entered = await editor.request("planMode/enter")
        pending = editor.start("planMode/exit", {"plan": "# Plan\n"})
        await editor.wait_for("planMode/approvalRequested")
    pending.cancel()

    async with running_editor(root, home, init_options=MAIN) as editor:
        state = await editor.state()
        assert state["mode"] == "plan"
        assert state["prePlanMode"] == "default"
        assert state["planSlug"] == entered["state"]["planSlug"]
        assert state["planExists"] is True
        # The approval died with the old server; the agent can ask again.
        assert state["pendingApproval"] is None
        pending = editor.start("planMode/exit", {})
        requested = await editor.wait_for("planMode/approvalRequested")
        assert requested["submittedPlan"] == "# Plan\n"
        await editor.request("planMode/approve", {"approvalId": requested["approvalId"]})
        assert (await asyncio.wait_for(pending, 10))["outcome"] == "approved"


async def test_a_corrupt_default_session_is_reported_and_the_server_answers(
    root: Path, home: Path
) -> None:
    saved = session_file(root, "main")
    saved.parent.mkdir(parents=True)
    saved.write_text("{ this is not json")
    async with running_editor(root, home, init_options=MAIN) as editor:
        await editor.ready()
        error = await editor.message_until(lambda text: "main" in text)
        shown = next(m for m in editor.client.messages if m.message == error)
        assert shown.type == types.MessageType.Error
        state = await editor.state()
        assert state["sessionId"] == "main"
        assert state["mode"] == "default"
        assert (await editor.request("planMode/enter"))["state"]["mode"] == "plan"
        await editor.settle()
        # Reported once, not on every request.
        assert len([m for m in editor.messages() if m == error]) == 1
    # The fresh state was saved in its place and is what the next server finds.
    async with running_editor(root, home, init_options=MAIN) as editor:
        assert (await editor.state())["mode"] == "plan"


async def test_a_corrupt_named_session_is_reported_when_first_used(root: Path, home: Path) -> None:
    saved = session_file(root, "agent-7")
    saved.parent.mkdir(parents=True)
    saved.write_text(json.dumps({"sessionId": "agent-7", "modes": {"mode": "flying"}}))
    async with running_editor(root, home, init_options=MAIN) as editor:
        await editor.ready()
        state = await editor.state("agent-7")
        assert state["mode"] == "default"
        error = await editor.message_until(lambda text: "agent-7" in text)
        shown = next(m for m in editor.client.messages if m.message == error)
        assert shown.type == types.MessageType.Error
        assert (await editor.state())["mode"] == "default"
