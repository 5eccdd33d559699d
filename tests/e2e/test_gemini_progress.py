"""After approval in the real Gemini CLI: the model's ``write_todos`` fills in the approved
plan's steps in the editor, and a write outside the plan is asked about in Gemini's own dialog
(``drift: ask``, in Gemini's auto-edit and YOLO modes too) or refused (``drift: deny``) —
docs/gemini.md, "After approval: progress and drift"; docs/protocol.md §12.1–§12.2.

Gemini CLI offers ``write_todos`` to Gemini 2 models only (not to the 3.x default, by its code):
the session runs ``-m gemini-2.5-flash``, which the fake API serves like any other.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e.gemini.agent import Agent, failure_report
from tests.e2e.gemini.fake_api import FakeApi, function_call
from tests.e2e.gemini.tui import GeminiCli
from tests.e2e.harness import Editor, capabilities, running_editor
from tests.e2e.test_gemini import GEMINI_VERSION, blocked, lens, require_gemini, set_up

PROGRESS = "planMode/didChangeProgress"
FIRST = "Read the name from argv in src/app.py"
SECOND = "Add a test in tests/test_app.py"
PLAN = f"# Greet by name\n\n## Steps\n1. {FIRST}.\n2. {SECOND}.\n\n## Verification\nRun it.\n"


def caps() -> types.ClientCapabilities:
    found = capabilities()
    found.window = types.WindowClientCapabilities(
        show_document=types.ShowDocumentClientCapabilities(support=True),
        show_message=types.ShowMessageRequestClientCapabilities(),
    )
    return found


async def test_progress_and_drift_in_real_gemini_cli(tmp_path: Path) -> None:
    require_gemini()
    root, home = set_up(tmp_path)

    api = FakeApi()
    base_url = api.start()
    async with running_editor(root, home, caps=caps()) as editor:
        await editor.endpoint()
        cli = GeminiCli(root, home, base_url, GEMINI_VERSION, args=["-m", "gemini-2.5-flash"])
        try:
            await carry_out(Agent(api, cli), editor, root, time.monotonic())
        except BaseException:
            print(failure_report(api, cli, tmp_path / "gemini-report"))
            raise
        finally:
            cli.close()
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


async def asked(agent: Agent, path: Path) -> str:
    """The model writes ``path``; Gemini's dialog comes (the screen), and the user says no."""
    agent.api.reply(function_call("write_file", {"file_path": str(path), "content": "x\n"}))
    screen = await asyncio.to_thread(agent.cli.wait_screen, r"Apply this change\?", 20, True)
    agent.cli.keys("Escape")
    await asyncio.to_thread(
        agent.cli.wait_screen, lambda shown: "Apply this change?" not in shown, 10, True
    )
    return screen


async def carry_out(agent: Agent, editor: Editor, root: Path, started: float) -> None:
    first = await agent.prompt("Plan greeting by name in src/app.py")
    assert "write_todos" not in first.tool_names, first.tool_names  # not in plan mode
    assert agent.plans is not None
    session = agent.session_id
    plan = agent.plans / "greet.md"
    written = await agent.call("write_file", {"file_path": str(plan), "content": PLAN})
    assert "Successfully created" in written["output"], written
    agent.send("exit_plan_mode", {"plan_filename": "greet.md"})
    await editor.wait_for("planMode/approvalRequested", timeout=30)
    editor.open(plan)
    await editor.run_lens(await lens(editor, plan, "auto-accept"))
    approved = await agent.turn()
    assert "Plan approved" in approved.result("exit_plan_mode")["output"]
    assert "write_todos" in approved.tool_names, approved.tool_names
    progress = await editor.request("planMode/getProgress", {"sessionId": session})
    assert (progress["done"], progress["total"]) == (0, 2), progress

    # The model's todo list (Gemini's write_todos, through BeforeTool): the steps fill in.
    todos = [
        {"description": FIRST, "status": "completed"},
        {"description": SECOND, "status": "in_progress"},
    ]
    agent.send("write_todos", {"todos": todos})
    # Gemini's own policy asks before a todo list in Default mode (measured): the user allows
    # it for the session.
    await asyncio.to_thread(agent.cli.wait_screen, r"WriteTodos", 20, True)
    agent.cli.keys("Down")
    await asyncio.sleep(0.3)
    agent.cli.keys("Enter")
    wrote = (await agent.turn()).result("write_todos")
    assert "error" not in wrote, wrote
    progress = await progress_until(editor, session, lambda p: p["done"] == 1)
    assert [(s["status"], s["source"]) for s in progress["steps"]] == [
        ("done", "todo"),
        ("inProgress", "todo"),
    ]

    # warn (the default): a write outside the plan runs unasked (auto-accept edits), and the
    # editor is told.
    notes = root / "notes.txt"
    done = await agent.call("write_file", {"file_path": str(notes), "content": "x\n"})
    assert "Successfully created" in done["output"], done
    await editor.message_until(lambda m: m.startswith("Not in the approved plan: notes.txt"))

    # ask: Gemini's own dialog, although the approval auto-accepts edits; Esc says no.
    editor.reconfigure({"drift": "ask"})
    await asyncio.sleep(1.0)
    stray = root / "asked.txt"
    screen = await asked(agent, stray)
    assert "Not in the approved plan: asked.txt" in screen, screen  # the hook's reason
    declined = await agent.prompt("Leave it")
    assert not stray.exists(), declined.since_model()

    # The same in Gemini's own auto-edit mode (Shift+Tab from Default): still asked.
    agent.say("Left.")
    shown = await asyncio.to_thread(agent.cli.wait_ready, 10)
    assert "auto-accept edits" not in shown, shown  # Default, as the approval left it
    agent.cli.keys("BTab")
    await asyncio.to_thread(agent.cli.wait_screen, r"(?i)auto-accept edits", 10, True)
    await agent.prompt("Go on")
    auto = root / "auto.txt"
    screen = await asked(agent, auto)
    assert "Not in the approved plan: auto.txt" in screen, screen
    await agent.prompt("Leave that too")
    assert not auto.exists()

    # And in YOLO (Ctrl+Y), where Gemini asks nothing else; the hook's reason is the dialog's
    # text. This time the user allows it once: the write runs.
    agent.say("Left.")
    await asyncio.to_thread(agent.cli.wait_ready, 10)
    agent.cli.keys("C-y")
    await asyncio.to_thread(agent.cli.wait_screen, r"YOLO", 10, True)
    await agent.prompt("Go on")
    yolo = root / "yolo.txt"
    agent.api.reply(function_call("write_file", {"file_path": str(yolo), "content": "x\n"}))
    screen = await asyncio.to_thread(agent.cli.wait_screen, r"Apply this change\?", 20, True)
    assert "Not in the approved plan: yolo.txt" in screen, screen
    agent.cli.keys("Enter")  # 1. Allow once
    allowed = (await agent.turn()).result("write_file")
    assert "Successfully created" in allowed["output"], allowed
    assert yolo.read_text() == "x\n"

    # deny: refused with the reason, nothing written; a file the plan names still writes.
    editor.reconfigure({"drift": "deny"})
    await asyncio.sleep(1.0)
    agent.say("Done.")
    await agent.prompt("Try once more")
    denied = root / "denied.txt"
    refused = await agent.call("write_file", {"file_path": str(denied), "content": "x\n"})
    reason = blocked(refused)
    assert reason.startswith("Not in the approved plan: denied.txt"), reason
    assert "enter plan mode" in reason, reason
    assert not denied.exists()
    (root / "tests").mkdir()
    named = root / "tests" / "test_app.py"
    ok = await agent.call("write_file", {"file_path": str(named), "content": ""})
    assert "Successfully created" in ok["output"], ok
    progress = await editor.request("planMode/getProgress", {"sessionId": session})
    assert [d["path"] for d in progress["drift"]] == [
        "notes.txt",
        "asked.txt",
        "auto.txt",
        "yolo.txt",
        "denied.txt",
    ]
    assert time.monotonic() - started < 60
