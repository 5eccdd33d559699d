"""After approval in the real OpenCode: the model's ``todowrite`` fills in the approved plan's
steps in the editor, and a write outside the plan is refused under ``drift: ask`` (with how the
user allows the file: no plugin hook brings OpenCode's question) and ``drift: deny`` —
docs/opencode.md, "After approval: progress and drift"; docs/protocol.md §12.1–§12.2.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.e2e.harness import Editor, running_editor
from tests.e2e.opencode.agent import Agent, failure_report
from tests.e2e.opencode.tui import OpenCode
from tests.e2e.test_gemini_progress import caps, progress_until
from tests.e2e.test_opencode import VERSION, lens, require_opencode, set_up

FIRST = "Read the name from argv in src/app.py"
SECOND = "Add a test in tests/test_app.py"
PLAN = f"# Greet by name\n\n## Steps\n1. {FIRST}.\n2. {SECOND}.\n\n## Verification\nRun it.\n"


async def test_progress_and_drift_in_real_opencode(tmp_path: Path) -> None:
    require_opencode()
    started = time.monotonic()
    root, home, api, env = set_up(tmp_path)
    async with running_editor(root, home, caps=caps()) as editor:
        await editor.endpoint()
        opencode = OpenCode(VERSION, root, home, extra_env=env, args=["--agent", "plan"])
        try:
            await carry_out(Agent(api, opencode), editor, root)
        except BaseException:
            print(failure_report(api, opencode, tmp_path / "opencode-report"))
            raise
        finally:
            opencode.close()
            api.stop()
    assert time.monotonic() - started < 60


async def carry_out(agent: Agent, editor: Editor, root: Path) -> None:
    await asyncio.to_thread(agent.opencode.ready, 30)
    await agent.prompt("Plan greeting by name in src/app.py")
    plan = agent.plan_path
    assert plan is not None
    written = await agent.call("write", {"filePath": str(plan), "content": PLAN})
    assert "Wrote file successfully" in written, written
    exit_call = agent.start("plan_exit", {})
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    session = requested["sessionId"]
    editor.open(plan)
    await editor.run_lens(await lens(editor, plan, "auto-accept"))
    approved = await agent.turn()
    assert (approved.result_for(exit_call["id"]) or "").startswith("User has approved your plan")
    assert "todowrite" in approved.tool_names, approved.tool_names
    progress = await editor.request("planMode/getProgress", {"sessionId": session})
    assert (progress["done"], progress["total"]) == (0, 2), progress

    # The model's todo list (OpenCode's todowrite, through the plugin): the steps fill in.
    todos = [
        {"content": FIRST, "status": "completed", "priority": "high"},
        {"content": SECOND, "status": "in_progress", "priority": "high"},
    ]
    await agent.call("todowrite", {"todos": todos})
    progress = await progress_until(editor, session, lambda p: p["done"] == 1)
    assert [(s["status"], s["source"]) for s in progress["steps"]] == [
        ("done", "todo"),
        ("inProgress", "todo"),
    ]

    # warn (the default): a write outside the plan runs unasked, and the editor is told.
    notes = root / "notes.txt"
    done = await agent.call("write", {"filePath": str(notes), "content": "x\n"})
    assert "Wrote file successfully" in done, done
    await editor.message_until(lambda m: m.startswith("Not in the approved plan: notes.txt"))

    # ask: refused, the model told how the user allows the file.
    editor.reconfigure({"drift": "ask"})
    await asyncio.sleep(1.0)
    asked = await agent.call("write", {"filePath": str(root / "asked.txt"), "content": "x\n"})
    assert asked.startswith("Not in the approved plan: asked.txt"), asked
    assert "Allow this file for this plan" in asked and "Allow this write anyway" not in asked
    assert not (root / "asked.txt").exists()
    # The user does what the model is told to ask for: allows the file; the retry writes it.
    await editor.execute("planMode.allowFile", [{"path": "asked.txt", "sessionId": session}])
    retried = await agent.call("write", {"filePath": str(root / "asked.txt"), "content": "x\n"})
    assert "Wrote file successfully" in retried, retried
    assert (root / "asked.txt").exists()

    # deny: refused with the reason, nothing written; a file the plan names still writes.
    editor.reconfigure({"drift": "deny"})
    await asyncio.sleep(1.0)
    denied = await agent.call("write", {"filePath": str(root / "denied.txt"), "content": "x\n"})
    assert denied.startswith("Not in the approved plan: denied.txt"), denied
    assert "enter plan mode" in denied, denied
    assert not (root / "denied.txt").exists()
    named = await agent.call(
        "write", {"filePath": str(root / "tests" / "test_app.py"), "content": ""}
    )
    assert "Wrote file successfully" in named, named
    progress = await editor.request("planMode/getProgress", {"sessionId": session})
    drifted = [d["path"] for d in progress["drift"]]
    assert drifted == ["notes.txt", "asked.txt", "denied.txt"], drifted
