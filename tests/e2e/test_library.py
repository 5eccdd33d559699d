"""The plan library (docs/protocol.md §12.3): save for later, take up again, every plan with its
status through a whole life, workspace symbols, any version in full, and the CLI."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e.harness import Editor
from tests.e2e.planmode_cli import in_thread, payload, run
from tests.e2e.review import enter

REQUESTED, RESOLVED = "planMode/approvalRequested", "planMode/approvalResolved"
SAVE = "planMode.saveForLater"
PLAN = (
    "# Cache the parser\n\n## Steps\n1. Add a cache to src/parse.py\n2. Use it in src/app.py\n\n"
    "## Verification\nRun pytest\n"
)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def submit(
    editor: Editor, plan: str = PLAN, session_id: str | None = None
) -> tuple[asyncio.Task[Any], dict[str, Any]]:
    seen = len(editor.notes[REQUESTED])
    params: dict[str, Any] = {"plan": plan}
    if session_id:
        params["sessionId"] = session_id
    task = editor.start("planMode/exit", params)
    return task, await editor.wait_for(REQUESTED, seen + 1)


async def library(editor: Editor) -> dict[str, dict[str, Any]]:
    listed = (await editor.request("planMode/listPlans", {}))["plans"]
    return {entry["path"]: entry for entry in listed}


async def status(editor: Editor, path: Path) -> tuple[str, Any]:
    entry = (await library(editor))[str(path)]
    return entry["status"], entry.get("progress")


def save_lens(lenses: list[types.CodeLens]) -> types.CodeLens:
    (found,) = [lens for lens in lenses if lens.command and lens.command.command == SAVE]
    return found


async def test_save_for_later_from_the_lens_answers_saved_and_stays_in_plan(
    editor: Editor, root: Path
) -> None:
    await enter(editor)
    task, approval = await submit(editor)
    path = Path(approval["planFilePath"])
    editor.open(path)
    lenses = await editor.lenses(path)
    titles = [lens.command.title for lens in lenses if lens.command]
    assert titles[:4] == [
        "Approve plan",
        "Approve & auto-accept edits",
        "Reject…",
        "Save for later",
    ]
    lens = save_lens(lenses)
    assert lens.command is not None
    (args,) = lens.command.arguments or []
    assert dict(args) == {
        "approvalId": approval["approvalId"],
        "sessionId": approval["sessionId"],
        "planSha256": sha(PLAN),
    }
    # The same decision among the plan's code actions (editors without lenses).
    actions = await editor.code_actions(path, line=3)
    assert "Save for later" in [a.title for a in actions]

    assert await editor.run_lens(lens) == {"ok": True}
    result = await asyncio.wait_for(task, 10)
    assert result["outcome"] == "saved"
    assert result["plan"] == PLAN
    assert result["toolResult"].startswith("The user saved the plan for later")
    assert "Do not implement it now" in result["toolResult"]
    assert str(path) in result["toolResult"] and "ExitPlanMode" in result["toolResult"]
    resolved = editor.notes[RESOLVED][-1]
    assert resolved["approvalId"] == approval["approvalId"] and resolved["outcome"] == "saved"
    state = await editor.state()
    assert state["mode"] == "plan" and state["pendingApproval"] is None
    assert path.read_text() == PLAN  # kept as it was
    assert [lens for lens in await editor.lenses(path) if lens.command.command == SAVE] == []
    entry = (await library(editor))[str(path)]
    assert entry["status"] == "saved" and "progress" not in entry
    assert entry["sessionId"] == state["sessionId"]
    assert entry["decidedAt"] and entry["firstSeen"]


async def test_save_for_later_guards_change_nothing(editor: Editor, root: Path) -> None:
    await enter(editor)
    task, approval = await submit(editor)
    path = Path(approval["planFilePath"])
    approval_id = approval["approvalId"]
    bad: list[tuple[dict[str, Any], int, str]] = [
        ({}, -32602, "approvalId"),
        ({"approvalId": ""}, -32602, "approvalId"),
        ({"approvalId": 7}, -32602, "approvalId"),
        ({"approvalId": approval_id, "planSha256": "abc"}, -32602, "planSha256"),
        ({"approvalId": "nope"}, -32005, "No pending approval"),
        ({"approvalId": approval_id, "sessionId": "other"}, -32005, "No pending approval"),
        ({"approvalId": approval_id, "planSha256": sha("# Other\n")}, -32006, "Plan changed"),
    ]
    for params, code, says in bad:
        error = await editor.error("planMode/saveForLater", params)
        assert error.code == code, (params, error)
        assert says in str(error), (params, error)
        # Nothing changed: still pending, still under review.
        assert (await editor.state())["pendingApproval"]["approvalId"] == approval_id
        assert not task.done()
    assert (await status(editor, path))[0] == "underReview"
    # The agent revises the plan after the user saw it: a save without a digest saves only
    # what was shown.
    path.write_text(PLAN + "3. Also this\n")
    error = await editor.error("planMode/saveForLater", {"approvalId": approval_id})
    assert error.code == -32006
    assert not task.done()
    # The command takes exactly one object argument.
    error_text = ""
    try:
        await editor.execute(SAVE, [])
    except Exception as exc:  # the editor sees the JSON-RPC error
        error_text = str(exc)
    assert "one object argument" in error_text
    assert not task.done()
    await editor.request("planMode/reject", {"approvalId": approval_id})
    assert (await asyncio.wait_for(task, 10))["outcome"] == "rejected"
    # Decided already: saving it now is no pending approval.
    error = await editor.error("planMode/saveForLater", {"approvalId": approval_id})
    assert error.code == -32005


async def test_a_plan_through_its_whole_life(editor: Editor, root: Path) -> None:
    plan_path = await enter(editor)
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(PLAN)
    assert await status(editor, plan_path) == ("drafting", None)

    task, approval = await submit(editor)
    assert await status(editor, plan_path) == ("underReview", None)
    await editor.request(
        "planMode/reject", {"approvalId": approval["approvalId"], "feedback": "Smaller."}
    )
    await asyncio.wait_for(task, 10)
    assert await status(editor, plan_path) == ("rejected", None)

    task, approval = await submit(editor)
    assert await status(editor, plan_path) == ("underReview", None)
    await editor.request(
        "planMode/saveForLater", {"approvalId": approval["approvalId"], "planSha256": sha(PLAN)}
    )
    assert (await asyncio.wait_for(task, 10))["outcome"] == "saved"
    assert await status(editor, plan_path) == ("saved", None)

    # Another session takes it up: its plan file is the saved one, its history goes on.
    revisions_before = (await editor.request("planMode/listRevisions", {"path": str(plan_path)}))[
        "revisions"
    ]
    taken = await editor.request(
        "planMode/takeUpPlan", {"sessionId": "later", "path": str(plan_path)}
    )
    assert taken["planFilePath"] == str(plan_path)
    assert taken["takenUpFrom"] == str(plan_path)
    assert taken["state"]["sessionId"] == "later"
    assert taken["state"]["mode"] == "plan"
    assert taken["state"]["planFilePath"] == str(plan_path)
    assert await status(editor, plan_path) == ("drafting", None)
    # The model is told once, at its next turn.
    turn = await editor.request("planMode/nextTurn", {"sessionId": "later"})
    first = turn["attachments"][0]
    assert first["type"] == "plan_taken_up"
    assert first["planFilePath"] == str(plan_path) and first["planExists"] is True
    assert "took up a saved plan" in first["text"] and "ExitPlanMode" in first["text"]
    again = await editor.request("planMode/nextTurn", {"sessionId": "later"})
    assert "plan_taken_up" not in [a["type"] for a in again["attachments"]]
    # The first session no longer holds that plan: its next plan is a new file.
    assert (await editor.state())["planFilePath"] != str(plan_path)

    task, approval = await submit(editor, session_id="later")
    assert approval["planFilePath"] == str(plan_path)
    assert await status(editor, plan_path) == ("underReview", None)
    await editor.request(
        "planMode/approve", {"approvalId": approval["approvalId"], "planSha256": sha(PLAN)}
    )
    assert (await asyncio.wait_for(task, 10))["outcome"] == "approved"
    assert await status(editor, plan_path) == ("executing", {"done": 0, "total": 2})
    entry = (await library(editor))[str(plan_path)]
    assert entry["sessionId"] == "later"

    revisions_after = (await editor.request("planMode/listRevisions", {"path": str(plan_path)}))[
        "revisions"
    ]
    assert revisions_after[: len(revisions_before)] == revisions_before


async def test_take_up_refuses_what_is_not_saved(editor: Editor, root: Path) -> None:
    plan_path = await enter(editor)
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(PLAN)
    before = await editor.state()
    for params, says in [
        ({}, "path"),
        ({"path": ""}, "path"),
        ({"path": 3}, "path"),
        ({"path": str(root / "src" / "app.py")}, "path"),
        ({"path": str(plan_path)}, "drafting, not saved"),
    ]:
        error = await editor.error("planMode/takeUpPlan", params)
        assert error.code == -32602, (params, error)
        assert says in str(error), (params, error)
        assert await editor.state() == before
    # Under review: not saved either.
    task, approval = await submit(editor)
    error = await editor.error("planMode/takeUpPlan", {"path": str(plan_path)})
    assert error.code == -32602 and "underReview" in str(error)
    await editor.request("planMode/saveForLater", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 10)
    # A session with a plan under review of its own must decide it first.
    other = await enter(editor, "busy")
    other.write_text("# Busy\n\n1. One\n")
    busy_task, busy = await submit(editor, "# Busy\n\n1. One\n", "busy")
    error = await editor.error("planMode/takeUpPlan", {"sessionId": "busy", "path": str(plan_path)})
    assert error.code == -32602 and "under review" in str(error)
    assert (await status(editor, plan_path))[0] == "saved"
    await editor.request("planMode/reject", {"approvalId": busy["approvalId"]})
    await asyncio.wait_for(busy_task, 10)


async def test_workspace_symbols_list_the_plans(editor: Editor, root: Path) -> None:
    assert editor.server_capabilities is not None
    assert editor.server_capabilities.workspace_symbol_provider
    await enter(editor)
    task, approval = await submit(editor)
    path = Path(approval["planFilePath"])
    await editor.request("planMode/saveForLater", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 10)
    other = await enter(editor, "other")
    other.write_text("Just a list\n\n1. One\n")

    async def symbols(query: str) -> list[types.SymbolInformation]:
        found = await editor.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
        return [s for s in found or [] if isinstance(s, types.SymbolInformation)]

    every = await symbols("")
    by_name = {s.name: s for s in every}
    assert set(by_name) == {"Cache the parser", other.stem}
    cache = by_name["Cache the parser"]
    assert cache.container_name == "saved"
    assert cache.kind == types.SymbolKind.File
    assert cache.location.uri == path.as_uri()
    assert by_name[other.stem].container_name == "drafting"
    assert [s.name for s in await symbols("PARSER")] == ["Cache the parser"]
    assert [s.name for s in await symbols(other.stem[:5])] == [other.stem]
    assert await symbols("no such plan") == []
    # A plan given a title is listed by it from then on.
    other.write_text("# Farewell\n\n1. One\n")
    assert [s.name for s in await symbols("farewell")] == ["Farewell"]


async def test_revision_text_opens_any_version(editor: Editor, root: Path) -> None:
    await enter(editor)
    task, approval = await submit(editor)
    path = Path(approval["planFilePath"])
    await editor.request("planMode/reject", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 10)
    revised = PLAN.replace("Run pytest", "Run pytest -q")
    task, approval = await submit(editor, revised)
    revisions = (await editor.request("planMode/listRevisions", {"path": str(path)}))["revisions"]
    assert [r["id"] for r in revisions] == [1, 2]
    first = await editor.request("planMode/revisionText", {"path": str(path), "id": 1})
    assert first["text"] == PLAN and first["id"] == 1 and first["path"] == str(path)
    assert first["author"] == "agent" and first["reason"] and first["time"]
    second = await editor.request("planMode/revisionText", {"id": 2})  # the session's plan
    assert second["text"] == revised
    relative = await editor.request(
        "planMode/revisionText", {"path": str(path.relative_to(root)), "id": 2}
    )
    assert relative["text"] == revised
    for params, says in [
        ({"path": str(path), "id": 3}, "no revision 3"),
        ({"path": str(path), "id": 0}, "id"),
        ({"path": str(path)}, "id"),
        ({"path": str(path), "id": "one"}, "id"),
        ({"path": str(path), "id": True}, "id"),  # not revision 1
        ({"path": str(path), "id": "2"}, "id"),
        ({"path": str(path), "id": 2.0}, "id"),
        ({"path": str(root / "README.md"), "id": 1}, "path"),
    ]:
        error = await editor.error("planMode/revisionText", params)
        assert error.code == -32602, (params, error)
        assert says in str(error), (params, error)
    await editor.request("planMode/reject", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 10)


async def test_the_cli_saves_lists_and_takes_up(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    await enter(editor)
    task, approval = await submit(editor)
    path = Path(approval["planFilePath"])
    saved = await in_thread(run, ["save"], "", root)
    assert saved.returncode == 0, saved.stderr
    assert saved.stdout.startswith("Saved for later")
    assert (await asyncio.wait_for(task, 10))["outcome"] == "saved"
    none = await in_thread(run, ["save"], "", root)
    assert none.returncode == 1 and "No pending approval" in none.stderr

    table = await in_thread(run, ["plans"], "", root)
    assert table.returncode == 0, table.stderr
    header, row = table.stdout.splitlines()
    assert header.split() == ["STATUS", "AGENT", "SESSION", "MODIFIED", "PLAN"]
    assert row.split()[0] == "saved"
    assert row.endswith(str(path.relative_to(root)))
    listed = json.loads((await in_thread(run, ["plans", "--json"], "", root)).stdout)
    assert [p["status"] for p in listed["plans"]] == ["saved"]

    missing = await in_thread(run, ["plans", "take-up", "no-such-plan"], "", root)
    assert missing.returncode == 1 and "no plan 'no-such-plan'" in missing.stderr
    # Without --session: the session that saved it takes it up.
    own = await in_thread(run, ["plans", "take-up", path.stem], "", root)
    assert own.returncode == 0, own.stderr
    assert f"{path} is the plan of session main again" in own.stdout
    task, approval = await submit(editor)
    assert (await in_thread(run, ["save"], "", root)).returncode == 0
    assert (await asyncio.wait_for(task, 10))["outcome"] == "saved"
    # With --session: another.
    taken = await in_thread(
        run, ["plans", "take-up", path.stem, "--session", "cli-later"], "", root
    )
    assert taken.returncode == 0, taken.stderr
    assert f"{path} is the plan of session cli-later" in taken.stdout
    state = await editor.state("cli-later")
    assert state["mode"] == "plan" and state["planFilePath"] == str(path)
    again = await in_thread(run, ["plans", "take-up", str(path)], "", root)
    assert again.returncode == 1 and "drafting, not saved" in again.stderr


async def test_claude_codes_hook_answers_a_saved_plan_with_a_deny(
    editor: Editor, root: Path
) -> None:
    """Saved is a deny whose message is the saved text: Claude Code stays in plan mode and the
    model reads why (docs/claude-code.md, "Save for later")."""
    await editor.endpoint()
    event = payload("permission_request_exit_plan_mode.json", root)
    hook = asyncio.ensure_future(in_thread(run, ["hook"], event))
    approval = await editor.wait_for(REQUESTED, timeout=30)
    await editor.request(
        "planMode/saveForLater",
        {"approvalId": approval["approvalId"], "sessionId": approval["sessionId"]},
    )
    answered = await asyncio.wait_for(hook, 30)
    assert answered.returncode == 0, answered.stderr
    decision = json.loads(answered.stdout)["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny"
    assert decision["message"].startswith("The user saved the plan for later")
    entry = (await library(editor))[approval["planFilePath"]]
    assert entry["status"] == "saved" and entry["agent"] == "claude-code"


async def test_executing_until_every_step_is_done(editor: Editor, root: Path) -> None:
    """The library's progress is the executing session's, live: done when every step is."""
    await enter(editor)
    task, approval = await submit(editor)
    path = Path(approval["planFilePath"])
    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 10)
    assert await status(editor, path) == ("executing", {"done": 0, "total": 2})
    await editor.request("planMode/setStepStatus", {"index": 0, "status": "done"})
    assert await status(editor, path) == ("executing", {"done": 1, "total": 2})
    symbols = await editor.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    assert [s.container_name for s in symbols or []] == ["executing 1/2"]
    await editor.request("planMode/setStepStatus", {"index": 1, "status": "done"})
    assert await status(editor, path) == ("done", {"done": 2, "total": 2})
    # A new plan mode: the plan stays done in the library.
    await enter(editor)
    assert await status(editor, path) == ("done", {"done": 2, "total": 2})


async def test_saving_keeps_what_the_buffer_shows(editor: Editor, root: Path) -> None:
    """Unsaved edits and review comments in the buffer are what the user saved: the file gets
    them, and the user is told the buffer is still marked modified."""
    await enter(editor)
    task, approval = await submit(editor)
    path = Path(approval["planFilePath"])
    editor.open(path)
    edited = PLAN.replace("2. Use it", "2. Use it\n> [!review] Measure first.\n3. Measure")
    editor.change(path, edited)
    lens = save_lens(await editor.lenses(path))
    assert await editor.run_lens(lens) == {"ok": True}
    result = await asyncio.wait_for(task, 10)
    assert result["outcome"] == "saved" and result["plan"] == edited
    assert path.read_text() == edited
    told = await editor.message_until(lambda m: m.startswith("Plan saved for later"))
    assert "save it or revert it" in told
    revisions = (await editor.request("planMode/listRevisions", {"path": str(path)}))["revisions"]
    assert (revisions[-1]["author"], revisions[-1]["reason"]) == ("user", "saved for later")
    kept = await editor.request(
        "planMode/revisionText", {"path": str(path), "id": revisions[-1]["id"]}
    )
    assert kept["text"] == edited


async def test_take_up_this_plan_is_a_code_action_of_a_saved_plan(
    editor: Editor, root: Path
) -> None:
    """Editors without our client's Plans view take a saved plan up from the plan itself."""
    plan_path = await enter(editor)
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(PLAN)
    editor.open(plan_path)

    async def take_up_actions() -> list[types.CodeAction | types.Command]:
        found = await editor.code_actions(plan_path, line=3)
        return [a for a in found if a.title == "Take up this plan"]

    assert await take_up_actions() == []  # drafting
    task, approval = await submit(editor)
    assert await take_up_actions() == []  # under review
    await editor.request("planMode/saveForLater", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 10)
    # The session leaves plan mode meanwhile; the action takes the plan up where it was saved.
    await editor.request("planMode/setMode", {"mode": "default"})
    (action,) = await take_up_actions()
    assert isinstance(action, types.CodeAction) and action.command is not None
    (argument,) = action.command.arguments or []
    assert dict(argument) == {"path": str(plan_path), "sessionId": approval["sessionId"]}
    taken = await editor.execute(action.command.command, [dict(argument)])
    assert taken["planFilePath"] == str(plan_path)
    state = await editor.state()
    assert state["mode"] == "plan" and state["planFilePath"] == str(plan_path)
    assert await take_up_actions() == []  # drafting again
    # Its argument checked as the request's: a plan that is not saved is -32602.
    try:
        await editor.execute("planMode.takeUpPlan", [{"path": str(plan_path)}])
    except Exception as exc:  # the editor sees the JSON-RPC error
        assert "drafting, not saved" in str(exc)
    else:
        raise AssertionError("a drafting plan was taken up")
