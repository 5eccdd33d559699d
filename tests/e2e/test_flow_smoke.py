import asyncio
from pathlib import Path

from tests.e2e.harness import Editor


async def test_exit_approve_with_edit(editor: Editor, root: Path) -> None:
    entered = await editor.request("planMode/enter", {})
    assert entered["state"]["mode"] == "plan"
    plan_path = Path(entered["state"]["planFilePath"])
    pending = editor.start("planMode/exit", {"plan": "# Plan\n\n1. step one\n"})
    requested = await editor.wait_for("planMode/approvalRequested")
    editor.open(plan_path)
    editor.change(plan_path, "# Plan\n\n1. step one\n2. step two\n")
    lenses = await editor.lenses(plan_path)
    titles = [lens.command.title for lens in lenses]
    assert titles[0] == "Approve plan (edited: +1 −0)", titles
    assert await editor.run_lens(lenses[0]) == {"ok": True}
    result = await asyncio.wait_for(pending, 10)
    assert result["outcome"] == "approved"
    assert "## Approved Plan (edited by user):" in result["toolResult"]
    assert plan_path.read_text() == "# Plan\n\n1. step one\n2. step two\n"
    assert requested["planFilePath"] == str(plan_path)
    state = await editor.state()
    assert state["mode"] == "default"
