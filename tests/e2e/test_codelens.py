"""The approval lenses on the plan file: what they show, what they do, and when they go stale."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e import harness
from tests.e2e.harness import Editor, running_editor
from tests.e2e.review import titles

REQUESTED = "planMode/approvalRequested"
RESOLVED = "planMode/approvalResolved"
PLAN = "# Plan\n\n1. Read src/app.py\n2. Change the greeting\n3. Run the app\n"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def arguments(lens: types.CodeLens) -> list[dict[str, Any]]:
    assert lens.command is not None
    return [dict(_plain(arg)) for arg in lens.command.arguments or []]


def _plain(value: Any) -> Any:
    if hasattr(value, "_asdict"):
        return value._asdict()
    return value


async def pending_exit(editor: Editor, plan: str = PLAN) -> tuple[Path, asyncio.Task[Any], str]:
    """Enter plan mode, write ``plan`` to the plan file, exit: the approval is pending."""
    entered = await editor.request("planMode/enter", {})
    plan_path = Path(entered["state"]["planFilePath"])
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(plan)
    seen = len(editor.notes[REQUESTED])
    task = editor.start("planMode/exit", {})
    approval = await editor.wait_for(REQUESTED, seen + 1)
    return plan_path, task, approval["approvalId"]


async def test_three_lenses_only_on_the_plan_file_while_pending(editor: Editor, root: Path) -> None:
    entered = await editor.request("planMode/enter", {})
    plan_path = Path(entered["state"]["planFilePath"])
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(PLAN)
    app = root / "src" / "app.py"
    assert await editor.lenses(plan_path) == []  # nothing to decide yet

    task = editor.start("planMode/exit", {})
    approval = await editor.wait_for(REQUESTED)
    approval_id = approval["approvalId"]
    lenses = await editor.lenses(plan_path)
    assert titles(lenses) == [
        "Approve plan",
        "Approve & auto-accept edits",
        "Reject…",
        "Save for later",
    ]
    assert all(lens.range.start.line == 0 for lens in lenses)
    approve, accept, reject, save = lenses
    assert save.command is not None and save.command.command == "planMode.saveForLater"
    assert approve.command is not None and approve.command.command == "planMode.approve"
    assert accept.command is not None and accept.command.command == "planMode.approve"
    assert reject.command is not None and reject.command.command == "planMode.reject"
    (approve_args,) = arguments(approve)
    assert approve_args["approvalId"] == approval_id
    assert approve_args["planSha256"] == sha(PLAN)
    assert approve_args.get("mode") is None
    (accept_args,) = arguments(accept)
    assert accept_args["approvalId"] == approval_id
    assert accept_args["planSha256"] == sha(PLAN)
    assert accept_args["mode"] == "acceptEdits"
    (reject_args,) = arguments(reject)
    assert reject_args["approvalId"] == approval_id

    # Only on the plan file.
    assert await editor.lenses(app) == []
    editor.open(app)
    assert await editor.lenses(app) == []

    # The lenses are advertised as commands the editor can run.
    init = editor.server_capabilities
    assert init is not None and init.execute_command_provider is not None
    assert {"planMode.approve", "planMode.reject"} <= set(init.execute_command_provider.commands)

    refreshes = editor.lens_refreshes
    assert await editor.run_lens(approve) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "approved"
    assert result["planWasEdited"] is False
    assert (await editor.state())["mode"] == "default"
    # Decided: the lenses go away, and the editor is told to ask again; the approved plan
    # shows its progress instead (docs/protocol.md §12.1).
    await editor.until(lambda: editor.lens_refreshes > refreshes)
    assert titles(await editor.lenses(plan_path)) == ["Plan 0/3 done"]


async def test_accept_edits_lens_restores_accept_edits(editor: Editor, root: Path) -> None:
    plan_path, task, _approval_id = await pending_exit(editor)
    lenses = await editor.lenses(plan_path)
    assert await editor.run_lens(lenses[1]) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "approved"
    assert result["restoredMode"] == "acceptEdits"
    assert (await editor.state())["mode"] == "acceptEdits"
    assert titles(await editor.lenses(plan_path)) == ["Plan 0/3 done"]


async def test_reject_lens_keeps_plan_mode(editor: Editor, root: Path) -> None:
    plan_path, task, approval_id = await pending_exit(editor)
    lenses = await editor.lenses(plan_path)
    assert await editor.run_lens(lenses[2]) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "rejected"
    assert result["toolResult"].startswith("User rejected the plan. Keep planning")
    await editor.until(
        lambda: any(n["approvalId"] == approval_id for n in editor.notes[RESOLVED]), 5
    )
    assert editor.notes[RESOLVED][-1]["outcome"] == "rejected"
    assert (await editor.state())["mode"] == "plan"
    assert await editor.lenses(plan_path) == []


async def test_reject_command_carries_feedback(editor: Editor, root: Path) -> None:
    _plan_path, task, approval_id = await pending_exit(editor)
    answer = await editor.execute(
        "planMode.reject", [{"approvalId": approval_id, "feedback": "Split step 2 in two."}]
    )
    assert answer == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "rejected"
    assert "Split step 2 in two." in result["toolResult"]


async def test_edited_plan_lens_title_counts_lines(editor: Editor, root: Path) -> None:
    plan_path, task, _approval_id = await pending_exit(editor)
    edited = (
        "# Plan\n\n1. Read src/app.py and its tests\n2. Change the greeting\n"
        "3. Run the app\n4. Run the tests\n5. Commit\n"
    )
    editor.open(plan_path)
    editor.change(plan_path, edited)
    lenses = await editor.lenses(plan_path)
    assert titles(lenses) == [
        "Approve plan (edited: +3 −1)",
        "Approve & auto-accept edits",
        "Reject…",
        "Save for later",
    ]
    assert arguments(lenses[0])[0]["planSha256"] == sha(edited)
    # Only removals.
    shorter = "# Plan\n\n1. Read src/app.py\n"
    editor.change(plan_path, shorter)
    lenses = await editor.lenses(plan_path)
    assert titles(lenses)[0] == "Approve plan (edited: +0 −2)"
    # Back to what was submitted: no longer edited.
    editor.change(plan_path, PLAN)
    lenses = await editor.lenses(plan_path)
    assert titles(lenses)[0] == "Approve plan"
    editor.change(plan_path, edited)
    lenses = await editor.lenses(plan_path)
    assert await editor.run_lens(lenses[0]) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["plan"] == edited
    assert result["planWasEdited"] is True
    assert "## Approved Plan (edited by user):\n" + edited in result["toolResult"]
    assert plan_path.read_text() == edited


async def test_stale_lens_cannot_approve_a_changed_plan(editor: Editor, root: Path) -> None:
    plan_path, task, approval_id = await pending_exit(editor)
    editor.open(plan_path)
    stale = await editor.lenses(plan_path)
    changed = PLAN + "4. Delete the database\n"
    editor.change(plan_path, changed)

    for lens in stale[:2]:
        try:
            await editor.run_lens(lens)
        except Exception as exc:
            assert getattr(exc, "code", None) == -32006, exc
            assert str(getattr(exc, "message", exc)).startswith("Plan changed since it was shown")
        else:
            raise AssertionError("a stale lens approved a changed plan")

    # Nothing changed.
    await editor.settle()
    assert not task.done()
    state = await editor.state()
    assert state["mode"] == "plan"
    assert state["pendingApproval"]["approvalId"] == approval_id
    assert plan_path.read_text() == PLAN
    assert editor.notes[RESOLVED] == []

    # The same through the request.
    error = await editor.error(
        "planMode/approve", {"approvalId": approval_id, "planSha256": sha(PLAN)}
    )
    assert error.code == -32006
    assert error.message.startswith("Plan changed since it was shown")

    fresh = await editor.lenses(plan_path)
    assert titles(fresh)[0] == "Approve plan (edited: +1 −0)"
    assert await editor.run_lens(fresh[0]) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "approved"
    assert result["plan"] == changed
    assert plan_path.read_text() == changed


async def test_lens_command_with_bad_arguments_changes_nothing(editor: Editor, root: Path) -> None:
    plan_path, task, approval_id = await pending_exit(editor)
    bad_calls: list[tuple[str, list[Any]]] = [
        ("planMode.approve", []),
        ("planMode.approve", [{"planSha256": sha(PLAN)}]),
        ("planMode.approve", [{"approvalId": approval_id, "planSha256": "zz"}]),
        ("planMode.approve", [{"approvalId": approval_id, "mode": "plan"}]),
        ("planMode.reject", [{"approvalId": 3}]),
    ]
    for command, args in bad_calls:
        try:
            await editor.execute(command, args)
        except Exception as exc:
            assert getattr(exc, "code", None) == -32602, (command, args, exc)
        else:
            raise AssertionError(f"{command} {args} succeeded")
    await editor.settle()
    assert not task.done()
    state = await editor.state()
    assert state["mode"] == "plan"
    assert state["pendingApproval"]["approvalId"] == approval_id
    assert len(await editor.lenses(plan_path)) == 4
    await editor.execute("planMode.reject", [{"approvalId": approval_id}])
    await asyncio.wait_for(task, 5)


async def test_lenses_of_another_session_sit_on_its_own_plan(editor: Editor, root: Path) -> None:
    main_plan = Path((await editor.request("planMode/enter", {}))["state"]["planFilePath"])
    other = await editor.request("planMode/enter", {"sessionId": "other"})
    other_plan = Path(other["state"]["planFilePath"])
    assert other_plan != main_plan
    task = editor.start("planMode/exit", {"sessionId": "other", "plan": PLAN})
    approval = await editor.wait_for(REQUESTED)
    assert approval["sessionId"] == "other"
    assert await editor.lenses(main_plan) == []
    lenses = await editor.lenses(other_plan)
    assert len(lenses) == 4
    assert await editor.run_lens(lenses[0]) == {"ok": True}
    assert (await asyncio.wait_for(task, 5))["outcome"] == "approved"
    assert (await editor.state("other"))["mode"] == "default"
    assert (await editor.state())["mode"] == "plan"


async def test_lenses_work_under_a_root_with_spaces_and_accents(tmp_path: Path, home: Path) -> None:
    root = (tmp_path / "my wörk space").resolve()
    (root / "src").mkdir(parents=True)
    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        plan_path, task, _approval_id = await pending_exit(editor)
        assert "%20" in plan_path.as_uri()
        editor.open(plan_path)
        edited = PLAN + "4. Ship it\n"
        editor.change(plan_path, edited)
        lenses = await editor.lenses(plan_path)
        assert titles(lenses)[0] == "Approve plan (edited: +1 −0)"
        assert await editor.run_lens(lenses[0]) == {"ok": True}
        result = await asyncio.wait_for(task, 5)
        assert result["plan"] == edited
        assert plan_path.read_text() == edited


async def test_no_show_document_when_the_editor_cannot(root: Path, home: Path) -> None:
    caps = harness.capabilities(show_document=False)
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps) as ed:
        plan_path, task, approval_id = await pending_exit(ed)
        assert len(await ed.lenses(plan_path)) == 4
        await ed.request("planMode/approve", {"approvalId": approval_id})
        assert (await asyncio.wait_for(task, 5))["outcome"] == "approved"
        assert ed.client.shown_documents == []
