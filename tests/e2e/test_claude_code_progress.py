"""After approval in the real Claude Code CLI: its todo tools fill in the plan's steps in the
editor, and a write outside the plan is flagged, asked about or denied per ``drift``
(docs/protocol.md §12.1–§12.2; docs/claude-code.md, "After approval: progress and drift").

The harness of ``test_claude_code.py``: Claude Code in tmux against a scripted model API, the
editor a pytest-lsp client. Which todo tools each version offers the model after approval is
measured here: the test uses what the request offers (``TodoWrite``, or ``TaskCreate`` and
``TaskUpdate``) and asserts which one that was per version.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.claude_code.agent import Agent, failure_report
from tests.e2e.claude_code.fake_api import FakeApi, tool_use
from tests.e2e.claude_code.project import (
    CASES,
    NEWEST,
    OLDEST,
    require_claude_code,
    set_up_project,
)
from tests.e2e.claude_code.tui import ClaudeCode
from tests.e2e.harness import Editor, capabilities, running_editor
from tests.e2e.review import lens

PLAN = """# Greet by name

## Steps
1. Read the name from argv in src/app.py
2. Add a test in tests/test_app.py

## Verification
Run the tests.
"""
FAREWELL = "# Farewell\n\n## Steps\n1. Say goodbye in src/app.py\n"
PROGRESS = "planMode/didChangeProgress"
# 2.1.332 offers its todo tools only with this set (docs/claude-code.md, the tools table).
TODO_ENV = {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}


def caps() -> types.ClientCapabilities:
    found = capabilities()
    found.window = types.WindowClientCapabilities(
        show_document=types.ShowDocumentClientCapabilities(support=True),
        show_message=types.ShowMessageRequestClientCapabilities(),
    )
    return found


@pytest.mark.parametrize(("version", "plans_directory"), CASES)
async def test_progress_and_drift_in_real_claude_code(
    version: str, plans_directory: str | None, tmp_path: Path
) -> None:
    require_claude_code(version)
    root, home = set_up_project(tmp_path, plans_directory)
    (root / "tests").mkdir()

    api = FakeApi()
    base_url = api.start()
    async with running_editor(root, home, caps=caps()) as editor:
        await editor.endpoint()
        claude = ClaudeCode(version, root, home, base_url, tmp_path, extra_env=TODO_ENV)
        try:
            await carry_out(Agent(api, claude), editor, root, version)
        except BaseException:
            print(failure_report(api, claude, tmp_path / "claude-code-report"))
            raise
        finally:
            claude.close()
            api.stop()


async def progress_until(editor: Editor, session: str, check: Any) -> dict[str, Any]:
    """The session's progress once ``check`` holds (asked again after each push)."""

    async def changed() -> dict[str, Any]:
        while True:
            pushes = len(editor.notes[PROGRESS])
            found = await editor.request("planMode/getProgress", {"sessionId": session})
            if check(found):
                return found
            await editor.wait_for(PROGRESS, pushes + 1, 10)

    return await asyncio.wait_for(changed(), 10)


async def carry_out(agent: Agent, editor: Editor, root: Path, version: str) -> None:
    session = agent.claude.session_id
    await agent.prompt("Plan greeting by name in src/app.py")
    plan = agent.plan_path
    assert plan is not None, "Claude Code named no plan file"
    await agent.call("Write", {"file_path": str(plan), "content": PLAN})
    await agent.load("ExitPlanMode")
    agent.exit_plan_mode()
    await editor.wait_for("planMode/approvalRequested", timeout=30)
    editor.open(plan)
    await editor.run_lens(await lens(editor, plan, "auto-accept"))
    approved = await agent.turn()
    assert "User has approved your plan" in approved.result_text()
    started = await editor.request("planMode/getProgress", {"sessionId": session})
    assert (started["done"], started["total"]) == (0, 2), started

    # The model's todos: neither version offers TodoWrite; both keep their todo list with
    # TaskCreate and TaskUpdate (2.1.332 only with CLAUDE_CODE_ENABLE_TODO_TOOLS=1, deferred
    # behind ToolSearch; 2.1.197 in every request). The steps fill in.
    assert "TodoWrite" not in approved.tool_names, approved.tool_names
    if version in (OLDEST, NEWEST):
        assert ("TaskCreate" in approved.tool_names) == (version == OLDEST), approved.tool_names
    first = "Read the name from argv in src/app.py"
    await agent.load("TaskCreate")
    for subject in (first, "Add a test in tests/test_app.py"):
        created = await agent.call("TaskCreate", {"subject": subject, "description": subject})
        assert not created.tool_results()[-1].get("is_error"), created.result_text()
    await agent.load("TaskUpdate")
    await agent.call("TaskUpdate", {"taskId": "1", "status": "completed"})
    await agent.call("TaskUpdate", {"taskId": "2", "status": "in_progress"})
    progress = await progress_until(editor, session, lambda p: p["done"] == 1)
    assert [(s["status"], s["source"]) for s in progress["steps"]] == [
        ("done", "todo"),
        ("inProgress", "todo"),
    ]

    # warn (the default): a write outside the plan runs, and the editor is told.
    notes = root / "notes.txt"
    wrote = await agent.call("Write", {"file_path": str(notes), "content": "x\n"})
    assert not wrote.tool_results()[-1].get("is_error"), wrote.result_text()
    assert notes.read_text() == "x\n"
    await editor.message_until(lambda m: m.startswith("Not in the approved plan: notes.txt"))
    progress = await progress_until(editor, session, lambda p: p["drift"])
    assert [d["path"] for d in progress["drift"]] == ["notes.txt"]

    # ask: Claude Code shows its own prompt, in acceptEdits too; the user says no.
    editor.reconfigure({"drift": "ask"})
    await asyncio.sleep(1.0)
    asked = root / "asked.txt"
    agent.api.reply(tool_use("Write", {"file_path": str(asked), "content": "x\n"}))
    screen = await asyncio.to_thread(agent.claude.wait_screen, r"Do you want to", 20)
    assert "Do you want to create asked.txt?" in screen or version != OLDEST, screen
    if version == NEWEST:  # 2.1.332 shows the hook's reason in its prompt
        assert "requires confirmation" in screen, screen
        assert "Not in the approved plan: asked.txt" in screen, screen
    agent.claude.keys("Escape")
    await asyncio.to_thread(agent.claude.wait_screen, lambda shown: "Do you want" not in shown, 10)
    agent.claude.type("Leave it")
    declined = await agent.turn()
    assert declined.tool_results()[-1].get("is_error"), declined.result_text()
    assert not asked.exists()

    # deny: refused with the reason, nothing written.
    editor.reconfigure({"drift": "deny"})
    await asyncio.sleep(1.0)
    denied_path = root / "denied.txt"
    refused = await agent.call("Write", {"file_path": str(denied_path), "content": "x\n"})
    reason = refused.result_text()
    assert refused.tool_results()[-1].get("is_error"), reason
    assert "Not in the approved plan: denied.txt" in reason, reason
    assert "enter plan mode" in reason, reason
    assert not denied_path.exists()
    # A file the plan names still writes.
    named = await agent.call(
        "Write", {"file_path": str(root / "tests" / "test_app.py"), "content": ""}
    )
    assert not named.tool_results()[-1].get("is_error"), named.result_text()

    # A second plan in the same session: entering plan mode ends the first plan's tracking,
    # and Claude Code numbers its tasks on (measured: the next is "#3"), which the second
    # plan's progress follows.
    agent.say("Done.")
    await asyncio.to_thread(agent.claude.wait_screen, r"Done\.", 10)
    await asyncio.to_thread(agent.claude.cycle_mode, "plan mode on")
    await agent.prompt("Also plan a farewell")
    await agent.call("Write", {"file_path": str(plan), "content": FAREWELL})
    # The server learns of Claude Code's mode with its first tool call in it.
    ended = await editor.error("planMode/getProgress", {"sessionId": session})
    assert ended.code == -32007
    await agent.load("ExitPlanMode")
    agent.exit_plan_mode()
    await editor.wait_for("planMode/approvalRequested", count=2, timeout=30)
    editor.change(plan, plan.read_text())
    await editor.run_lens(await lens(editor, plan, "auto-accept"))
    await agent.turn()
    await agent.load("TaskCreate")
    bye = "Say goodbye in src/app.py"
    created = await agent.call("TaskCreate", {"subject": bye, "description": bye})
    assert created.result_text().startswith("Task #3 created"), created.result_text()
    await agent.load("TaskUpdate")
    await agent.call("TaskUpdate", {"taskId": "3", "status": "completed"})
    second = await progress_until(editor, session, lambda p: p["done"] == 1)
    assert [s["text"] for s in second["steps"]] == ["Say goodbye in src/app.py"]
