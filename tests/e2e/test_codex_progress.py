"""After approval in the real Codex CLI: the model's ``update_plan`` fills in the approved
plan's steps in the editor, and a patch outside the plan is refused under ``drift: ask`` (with
how the user allows the file: Codex's PreToolUse takes no ``ask``) and ``drift: deny`` —
docs/codex.md, "After approval: progress and drift"; docs/protocol.md §12.1–§12.2.

Codex 0.169.0 offers ``update_plan`` only with ``[tools.update_plan] enabled = true`` in its
configuration (by its code; its default model is offered none): the user's config sets it.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from tests.e2e.codex.fake_api import FakeApi, add_file, custom_tool_call, function_call, patch, text
from tests.e2e.codex.tui import Codex, write_config
from tests.e2e.harness import Editor, running_editor
from tests.e2e.planmode_cli import init
from tests.e2e.review import lens
from tests.e2e.test_codex import VERSION, Model, report, require_codex, workspace
from tests.e2e.test_gemini_progress import caps, progress_until

FIRST = "Read the name from argv in src/app.py"
SECOND = "Add a test in tests/test_app.py"
PLAN = f"# Greet by name\n\n## Steps\n1. {FIRST}.\n2. {SECOND}.\n\n## Verification\nRun it.\n"
BLOCKED = "Command blocked by PreToolUse hook: "


def set_up(root: Path, home: Path, base_url: str) -> None:
    write_config(home / ".codex", root, base_url, extra="[tools.update_plan]\nenabled = true\n")
    init("codex", root, {"HOME": str(home), "CODEX_HOME": str(home / ".codex")})


async def test_progress_and_drift_in_real_codex(tmp_path: Path) -> None:
    require_codex()
    root = workspace(tmp_path)
    home = tmp_path / "home"
    api = FakeApi()
    base_url = api.start()
    set_up(root, home, base_url)
    async with running_editor(root, home, caps=caps()) as editor:
        await editor.endpoint()
        codex = Codex(VERSION, root, home, base_url, tmp_path, configured=True)
        try:
            await carry_out(Model(api, codex), editor, root, time.monotonic())
        except BaseException:
            print(report(api, codex, tmp_path / "codex-report"))
            raise
        finally:
            codex.close()
            api.stop()


def adding(path: str) -> dict[str, Any]:
    return custom_tool_call("apply_patch", patch(add_file(path, "x")))


async def carry_out(model: Model, editor: Editor, root: Path, started: float) -> None:
    codex = model.codex
    await asyncio.to_thread(codex.ready)
    await asyncio.to_thread(codex.plan_mode)
    await asyncio.to_thread(codex.type, "Plan greeting by name in src/app.py")
    first = await model.turn()
    assert "update_plan" in first.tool_names, first.tool_names
    model.api.reply(text(f"The plan:\n\n<proposed_plan>\n{PLAN}</proposed_plan>\n"))
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    plan = Path(requested["planFilePath"])
    session = requested["sessionId"]
    editor.open(plan)
    await editor.run_lens(await lens(editor, plan, "auto-accept"))
    await asyncio.to_thread(codex.wait_screen, "Implement this plan", 30, visible=True)
    codex.keys("1")
    await model.turn()
    progress = await editor.request("planMode/getProgress", {"sessionId": session})
    assert (progress["done"], progress["total"]) == (0, 2), progress

    # The model's checklist (update_plan, through PreToolUse): the steps fill in.
    steps = [{"step": FIRST, "status": "completed"}, {"step": SECOND, "status": "in_progress"}]
    updated = await model.call(function_call("update_plan", {"plan": steps}))
    assert "Plan updated" in updated.output(), updated.output()
    progress = await progress_until(editor, session, lambda p: p["done"] == 1)
    assert [(s["status"], s["source"]) for s in progress["steps"]] == [
        ("done", "todo"),
        ("inProgress", "todo"),
    ]

    # warn (the default): a patch outside the plan is applied, and the editor is told.
    applied = await model.call(adding("notes.txt"))
    assert "Success" in applied.output(), applied.output()
    await editor.message_until(lambda m: m.startswith("Not in the approved plan: notes.txt"))

    # ask: Codex's PreToolUse takes no ask, so the patch is refused with how to allow it.
    editor.reconfigure({"drift": "ask"})
    await asyncio.sleep(1.0)
    asked = (await model.call(adding("asked.txt"))).output()
    assert asked.startswith(f"{BLOCKED}Not in the approved plan: asked.txt"), asked
    assert "Allow this file for this plan" in asked and "Allow this write anyway" not in asked
    assert not (root / "asked.txt").exists()
    # The user does what the model is told to ask for: allows the file; the retry applies.
    await editor.execute("planMode.allowFile", [{"path": "asked.txt", "sessionId": session}])
    retried = await model.call(adding("asked.txt"))
    assert "Success" in retried.output(), retried.output()
    assert (root / "asked.txt").exists()

    # deny: refused with the reason, nothing written; a file the plan names still writes.
    editor.reconfigure({"drift": "deny"})
    await asyncio.sleep(1.0)
    denied = (await model.call(adding("denied.txt"))).output()
    assert denied.startswith(f"{BLOCKED}Not in the approved plan: denied.txt"), denied
    assert "enter plan mode" in denied, denied
    assert not (root / "denied.txt").exists()
    named = await model.call(adding("tests/test_app.py"))
    assert "Success" in named.output(), named.output()
    progress = await editor.request("planMode/getProgress", {"sessionId": session})
    drifted = [d["path"] for d in progress["drift"]]
    assert drifted == ["notes.txt", "asked.txt", "denied.txt"], drifted
    assert time.monotonic() - started < 60
