"""Review comments through the agent endpoint: the Claude Code hook and `planmode reject
--comments` deliver them with their anchors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.e2e.harness import Editor
from tests.e2e.planmode_cli import in_thread, payload, run
from tests.e2e.review import lens_titled

HOOK_PLAN = "# Plan\n\n1. Say goodbye in src/app.py.\n\n## Verification\nRun it.\n"
COMMENT = "> [!review] Say it in French too.\n"


def commented(plan: str) -> str:
    return plan.replace("src/app.py.\n", "src/app.py.\n" + COMMENT)


async def hook_waiting(editor: Editor, root: Path) -> tuple[asyncio.Future, Path]:  # type: ignore[type-arg]
    await editor.endpoint()
    event = payload("permission_request_exit_plan_mode.json", root)
    waiting = asyncio.ensure_future(in_thread(run, ["hook"], event))
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    path = Path(requested["planFilePath"])
    editor.open(path)
    editor.change(path, commented(HOOK_PLAN))
    return waiting, path


async def test_the_hook_denies_with_the_comments_as_the_message(editor: Editor, root: Path) -> None:
    waiting, path = await hook_waiting(editor, root)
    lenses = await editor.lenses(path)
    reject = lens_titled(lenses, "Reject… (1 comment)")
    assert reject.command is not None and reject.command.arguments
    await editor.execute(
        reject.command.command, [{**reject.command.arguments[0], "feedback": "Close."}]
    )
    done = await asyncio.wait_for(waiting, 30)
    decision = json.loads(done.stdout)["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny"
    # Claude Code hands the deny message to the model verbatim as ExitPlanMode's result.
    assert "Close." in decision["message"]
    assert decision["message"].endswith(
        "The user's comments on the plan, each on the text it quotes:\n"
        "1. under “Plan” on line 3: “1. Say goodbye in src/app.py.”\n"
        "   Say it in French too."
    )


async def test_the_hook_approves_with_the_notes_at_the_end_of_the_plan(
    editor: Editor, root: Path
) -> None:
    waiting, path = await hook_waiting(editor, root)
    await editor.run_lens(lens_titled(await editor.lenses(path), "Approve plan"))
    done = await asyncio.wait_for(waiting, 30)
    decision = json.loads(done.stdout)["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "allow"
    # The approved plan is the model's only text on approval (it reads it under
    # "## Approved Plan"): the plan without the comment, then the notes.
    assert decision["updatedInput"]["plan"] == (
        HOOK_PLAN + "\n## The user's notes with the approval:\n"
        "The user's comments on the plan, each on the text it quotes:\n"
        "1. under “Plan” on line 3: “1. Say goodbye in src/app.py.”\n"
        "   Say it in French too.\n"
    )
    assert path.read_text() == HOOK_PLAN


async def test_cli_reject_with_comments(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    await editor.request("planMode/enter", {})
    waiting = editor.start("planMode/exit", {"plan": HOOK_PLAN})
    requested = await editor.wait_for("planMode/approvalRequested")
    path = Path(requested["planFilePath"])
    editor.open(path)
    editor.change(path, commented(HOOK_PLAN))
    rejected = await in_thread(run, ["reject", "--comments", "--feedback", "Nearly."], "", root)
    assert rejected.returncode == 0, rejected.stderr
    result = await asyncio.wait_for(waiting, 10)
    assert result["remark"] == "Nearly."
    assert [(c["text"], c["quote"], c["line"]) for c in result["comments"]] == [
        ("Say it in French too.", "1. Say goodbye in src/app.py.", 3)
    ]
    # Without --comments the rejection carries the feedback alone.
    waiting = editor.start("planMode/exit", {"plan": HOOK_PLAN})
    await editor.wait_for("planMode/approvalRequested", 2)
    editor.change(path, commented(HOOK_PLAN))
    plain = await in_thread(run, ["reject", "--feedback", "Again."], "", root)
    assert plain.returncode == 0, plain.stderr
    result = await asyncio.wait_for(waiting, 10)
    assert result["comments"] == [] and result["feedback"] == "Again."
