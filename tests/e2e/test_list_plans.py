"""planMode/listPlans: every plan file, whose it is, and whether it awaits review."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.e2e.harness import Editor

PLAN = "# Plan\n\n1. Ünïcode step\n"


async def plans(editor: Editor) -> dict[str, dict[str, Any]]:
    listed = (await editor.request("planMode/listPlans", {}))["plans"]
    return {entry["path"]: entry for entry in listed}


async def test_no_plans_yet(editor: Editor, root: Path) -> None:
    assert await plans(editor) == {}
    await editor.request("planMode/enter", {})
    assert await plans(editor) == {}  # entering alone writes no plan


async def test_lists_plans_with_owner_size_time_and_pending(editor: Editor, root: Path) -> None:
    main = await editor.request("planMode/enter", {})
    main_path = Path(main["state"]["planFilePath"])
    main_path.parent.mkdir(parents=True, exist_ok=True)
    main_path.write_text(PLAN)
    other = await editor.request("planMode/enter", {"sessionId": "other"})
    other_path = Path(other["state"]["planFilePath"])
    other_plan = "# Other\n"

    before = datetime.now(UTC) - timedelta(seconds=5)
    task = editor.start("planMode/exit", {"sessionId": "other", "plan": other_plan})
    approval = await editor.wait_for("planMode/approvalRequested")

    listed = await plans(editor)
    assert set(listed) == {str(main_path), str(other_path)}
    main_entry = listed[str(main_path)]
    assert main_entry["slug"] == main["state"]["planSlug"]
    assert main_entry["sessionId"] == "main"
    assert main_entry["sizeBytes"] == len(PLAN.encode("utf-8"))
    assert main_entry["pending"] is False
    other_entry = listed[str(other_path)]
    assert other_entry["slug"] == other["state"]["planSlug"]
    assert other_entry["sessionId"] == "other"
    assert other_entry["sizeBytes"] == len(other_plan.encode("utf-8"))
    assert other_entry["pending"] is True
    for entry in listed.values():
        modified = datetime.fromisoformat(entry["modified"].replace("Z", "+00:00"))
        assert before <= modified <= datetime.now(UTC) + timedelta(seconds=5)

    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 5)
    listed = await plans(editor)
    assert listed[str(other_path)]["pending"] is False
    assert listed[str(main_path)]["pending"] is False


async def test_subagent_plans_are_listed_under_the_session_slug(editor: Editor, root: Path) -> None:
    entered = await editor.request("planMode/enter", {})
    slug = entered["state"]["planSlug"]
    task = editor.start("planMode/exit", {"agentId": "a1", "plan": PLAN})
    approval = await editor.wait_for("planMode/approvalRequested")
    listed = await plans(editor)
    agent_path = Path(approval["planFilePath"])
    assert set(listed) == {str(agent_path)}
    entry = listed[str(agent_path)]
    assert entry["slug"] == slug
    assert entry["sessionId"] == "main"
    assert entry["pending"] is True
    await editor.request("planMode/reject", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 5)
    assert (await plans(editor))[str(agent_path)]["pending"] is False


async def test_plans_written_outside_the_server_are_listed(editor: Editor, root: Path) -> None:
    plans_dir = root / ".claude" / "plans"
    plans_dir.mkdir(parents=True)
    (plans_dir / "quiet-river.md").write_text("# Old plan\n")
    (plans_dir / "notes.txt").write_text("not a plan\n")
    listed = await plans(editor)
    assert list(listed) == [str(plans_dir / "quiet-river.md")]
    entry = listed[str(plans_dir / "quiet-river.md")]
    assert entry["slug"] == "quiet-river"
    assert entry.get("sessionId") is None
    assert entry["sizeBytes"] == len("# Old plan\n")
    assert entry["pending"] is False


async def test_list_plans_rejects_a_bad_session_id(editor: Editor, root: Path) -> None:
    error = await editor.error("planMode/listPlans", {"sessionId": 42})
    assert error.code == -32602
    assert "sessionId" in error.message
