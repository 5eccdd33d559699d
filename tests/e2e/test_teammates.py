"""Teammate plan approval: the teammate's exit goes to the lead's inbox, the lead answers
from lenses on the teammate's plan, and the teammate's next turn applies the answer."""

from __future__ import annotations

import json
from pathlib import Path

from planmode.core.teams import inbox_path
from tests.e2e.harness import Editor, running_editor

TEAMMATE = {"agentName": "builder", "teamName": "alpha", "planModeRequired": True}
PLAN = "# Builder's plan\n\n1. build it\n"


async def submit(teammate: Editor) -> dict:
    entered = await teammate.request("planMode/enter")
    plan_path = Path(entered["state"]["planFilePath"])
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(PLAN)
    return await teammate.request("planMode/exit")


async def test_round_trip_approve(root: Path, home: Path) -> None:
    async with (
        running_editor(root, home, init_options={"sessionId": "lead"}) as lead,
        running_editor(
            root, home, init_options={"sessionId": "mate", "teammate": TEAMMATE}
        ) as teammate,
    ):
        result = await submit(teammate)
        assert result["outcome"] == "awaitingLeaderApproval"
        request_id = result["requestId"]
        assert result["toolResult"].startswith(
            "Your plan has been submitted to the team lead for approval."
        )
        assert result["toolResult"].endswith(f"Request ID: {request_id}")
        lines = inbox_path(root, "alpha", "team-lead").read_text().splitlines()
        assert len(lines) == 1
        request = json.loads(json.loads(lines[0])["text"])
        assert request["type"] == "plan_approval_request"
        assert request["planContent"] == PLAN
        assert request["requestId"] == request_id

        # Never approved before the lead answers.
        turn = await teammate.request("planMode/nextTurn")
        assert "leaderResponse" not in turn
        assert (await teammate.state())["mode"] == "plan"

        announced = await lead.wait_for("planMode/approvalRequested")
        assert announced["approvalId"] == request_id
        plan_path = Path(result["filePath"])
        lead.open(plan_path)
        lenses = await lead.lenses(plan_path)
        titles = [lens.command.title for lens in lenses if lens.command]
        assert titles == ["Approve plan from builder", "Reject…"]
        assert await lead.run_lens(lenses[0]) == {"ok": True}
        assert await lead.lenses(plan_path) == []

        turn = await teammate.request("planMode/nextTurn")
        assert turn["leaderResponse"]["approved"] is True
        assert [a["type"] for a in turn["attachments"]] == ["plan_mode_exit"]
        assert (await teammate.state())["mode"] == "default"


async def test_round_trip_reject_keeps_planning(root: Path, home: Path) -> None:
    async with (
        running_editor(root, home, init_options={"sessionId": "lead"}) as lead,
        running_editor(
            root, home, init_options={"sessionId": "mate", "teammate": TEAMMATE}
        ) as teammate,
    ):
        result = await submit(teammate)
        await lead.wait_for("planMode/approvalRequested")
        await lead.request(
            "planMode/reject", {"approvalId": result["requestId"], "feedback": "add tests"}
        )
        turn = await teammate.request("planMode/nextTurn")
        assert turn["leaderResponse"] == {
            "requestId": result["requestId"],
            "approved": False,
            "feedback": "add tests",
            "permissionMode": None,
        }
        assert (await teammate.state())["mode"] == "plan"
        again = await lead.error("planMode/approve", {"approvalId": result["requestId"]})
        assert again.code == -32005


async def test_required_teammate_without_a_plan_is_refused(root: Path, home: Path) -> None:
    async with running_editor(
        root, home, init_options={"sessionId": "mate", "teammate": TEAMMATE}
    ) as teammate:
        await teammate.request("planMode/enter")
        error = await teammate.error("planMode/exit")
        assert error.code == -32004
        assert error.message.startswith("No plan file found at ")
        assert (await teammate.state())["mode"] == "plan"
        assert not inbox_path(root, "alpha", "team-lead").exists()


async def test_voluntary_teammate_exits_without_approval(root: Path, home: Path) -> None:
    voluntary = {**TEAMMATE, "planModeRequired": False}
    async with running_editor(
        root, home, init_options={"sessionId": "mate", "teammate": voluntary}
    ) as teammate:
        result = await submit(teammate)
        assert result["outcome"] == "approved"
        assert result["restoredMode"] == "default"
        assert (await teammate.state())["mode"] == "default"
        assert not inbox_path(root, "alpha", "team-lead").exists()
