"""Regression tests for defects found in an audit of the code, through the real server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.e2e.harness import Editor


async def test_plan_mode_checks_changes_smuggled_next_to_document_changes(
    editor: Editor, root: Path
) -> None:
    # An editor without documentChanges support applies `changes`: both are targets
    # (docs/protocol.md §6).
    entered = await editor.request("planMode/enter", {})
    plan_path = Path(entered["state"]["planFilePath"])
    app = root / "src" / "app.py"
    start = {"line": 0, "character": 0}
    answer = await editor.request(
        "planMode/applyEdit",
        {
            "edit": {
                "documentChanges": [{"kind": "create", "uri": plan_path.as_uri()}],
                "changes": {
                    app.as_uri(): [{"range": {"start": start, "end": start}, "newText": "X"}]
                },
            }
        },
    )
    assert answer["applied"] is False
    assert str(app) in answer["failureReason"]
    assert editor.applied_edits == []
    assert not plan_path.exists()
    assert app.read_text() == "print('hello')\n"


async def test_an_exit_superseded_while_its_plan_syncs_to_the_editor_is_answered(
    editor: Editor, root: Path
) -> None:
    entered = await editor.request("planMode/enter", {})
    plan_path = Path(entered["state"]["planFilePath"])
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text("# old\n")
    editor.open(plan_path)  # the buffer holds other text: the first exit waits on applyEdit
    first = editor.start("planMode/exit", {"plan": "# first\n"})
    second = editor.start("planMode/exit", {"plan": "# second\n"})
    answer = await asyncio.wait_for(first, 10)
    assert answer["outcome"] == "rejected"
    pending = (await editor.state())["pendingApproval"]
    await editor.request("planMode/reject", {"approvalId": pending["approvalId"]})
    assert (await asyncio.wait_for(second, 10))["outcome"] == "rejected"
