"""Code actions: the lenses' decisions for editors without lenses (eglot, Helix, Neovim)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e import harness
from tests.e2e.harness import Editor, running_editor
from tests.e2e.review import agent_revises, hunk_pairs, pending_exit
from tests.e2e.teammates import TEAMMATE, submit

PLAN = "# Plan\n\n1. Read src/app.py\n2. Change the greeting\n3. Run the app\n\n## Verification\n"
KEEP, UNDO = "planMode.keepHunk", "planMode.undoHunk"


def commands(actions: list[types.CodeAction | types.Command]) -> list[tuple[str, str, Any]]:
    """(title, command, arguments) of each action, whether a CodeAction or a bare Command."""
    found = []
    for action in actions:
        command = action.command if isinstance(action, types.CodeAction) else action
        assert isinstance(command, types.Command), action
        found.append((command.title, command.command, harness.plain(command.arguments)))
    return found


def of_lenses(lenses: list[types.CodeLens]) -> list[tuple[str, str, Any]]:
    return [
        (lens.command.title, lens.command.command, harness.plain(lens.command.arguments))
        for lens in lenses
        if lens.command is not None
    ]


async def test_advertised(editor: Editor) -> None:
    assert editor.server_capabilities is not None
    provider = editor.server_capabilities.code_action_provider
    assert isinstance(provider, types.CodeActionOptions)
    assert list(provider.code_action_kinds or []) == [types.CodeActionKind.QuickFix]


async def test_the_lenses_as_code_actions_and_hunks_where_the_cursor_is(
    editor: Editor, root: Path
) -> None:
    await editor.request("planMode/enter", {})
    plan_path, task = await pending_exit(editor, PLAN)
    assert await editor.code_actions(root / "src" / "app.py") == []
    editor.open(plan_path)
    lenses = await editor.lenses(plan_path)
    for line in (0, 4, 7):  # anywhere in the plan: the same decisions as the lenses
        actions = await editor.code_actions(plan_path, line)
        assert all(isinstance(a, types.CodeAction) for a in actions)
        assert all(a.kind == types.CodeActionKind.QuickFix for a in actions)  # type: ignore[union-attr]
        assert commands(actions) == of_lenses(lenses)
    assert [title for title, _, _ in commands(actions)] == [
        "Approve plan",
        "Approve & auto-accept edits",
        "Reject…",
        "Save for later",
    ]
    # A client asking only for other kinds gets none; a parent kind lets them through.
    assert await editor.code_actions(plan_path, only=[types.CodeActionKind.Refactor]) == []
    assert len(await editor.code_actions(plan_path, only=[types.CodeActionKind.QuickFix])) == 4

    # The agent revises: Keep / Undo only where the range touches the changed hunk.
    revised = PLAN.replace("3. Run the app\n", "3. Run the app twice\n4. Check the log\n")
    await agent_revises(editor, plan_path, PLAN, revised, "More checks")
    lenses = await editor.lenses(plan_path)
    ((hunk_line, keep_title, undo_title, hunk_args),) = hunk_pairs(lenses)
    assert hunk_line == 4
    approvals = of_lenses(lenses)[:4]
    assert commands(await editor.code_actions(plan_path, 2)) == approvals
    for line, end in ((4, 4), (5, 5), (1, 4), (5, 9)):
        assert commands(await editor.code_actions(plan_path, line, end)) == [
            *approvals,
            (keep_title, KEEP, [hunk_args]),
            (undo_title, UNDO, [hunk_args]),
        ]
    assert commands(await editor.code_actions(plan_path, 6)) == approvals

    # Undo chosen from the code action menu puts the old lines back in the buffer.
    (undo,) = [a for a in await editor.code_actions(plan_path, 4) if a.title.startswith("Undo")]
    assert isinstance(undo, types.CodeAction) and undo.command is not None
    assert await editor.execute(undo.command.command, list(undo.command.arguments or [])) == {
        "ok": True
    }
    assert editor.buffers[plan_path] == PLAN
    assert len(await editor.code_actions(plan_path, 4)) == 4

    # Approve from the menu: the agent gets the plan the user saw.
    approve = (await editor.code_actions(plan_path))[0]
    assert isinstance(approve, types.CodeAction) and approve.command is not None
    assert await editor.execute(approve.command.command, list(approve.command.arguments or []))
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "approved" and result["plan"] == PLAN
    assert await editor.code_actions(plan_path) == []


async def test_bare_commands_for_a_client_without_literal_support(root: Path, home: Path) -> None:
    caps = harness.capabilities(code_action_literals=False)
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps) as ed:
        await ed.request("planMode/enter", {})
        plan_path, task = await pending_exit(ed, PLAN)
        actions = await ed.code_actions(plan_path)
        assert all(isinstance(a, types.Command) for a in actions)
        assert commands(actions) == of_lenses(await ed.lenses(plan_path))
        reject = actions[2]
        assert isinstance(reject, types.Command)
        assert await ed.execute(reject.command, list(reject.arguments or [])) == {"ok": True}
        assert (await asyncio.wait_for(task, 5))["outcome"] == "rejected"


async def test_a_teammates_request_from_the_leads_code_actions(root: Path, home: Path) -> None:
    async with (
        running_editor(root, home, init_options={"sessionId": "lead"}) as lead,
        running_editor(
            root, home, init_options={"sessionId": "mate", "teammate": TEAMMATE}
        ) as teammate,
    ):
        result = await submit(teammate)
        await lead.wait_for("planMode/approvalRequested")
        plan_path = Path(result["filePath"])
        lead.open(plan_path)
        actions = await lead.code_actions(plan_path, 2)
        assert commands(actions) == of_lenses(await lead.lenses(plan_path))
        assert [a.title for a in actions] == ["Approve plan from builder", "Reject…"]
        approve = actions[0]
        assert isinstance(approve, types.CodeAction) and approve.command is not None
        assert await lead.execute(approve.command.command, list(approve.command.arguments or []))
        assert await lead.code_actions(plan_path) == []
        turn = await teammate.request("planMode/nextTurn")
        assert turn["leaderResponse"]["approved"] is True


async def by_position(editor: Editor, method: str, params: Any) -> dict[str, Any]:
    """The raw answer (result or error) to ``method`` sent with exactly ``params``."""
    try:
        result = await editor.client.protocol.send_request_async(method, params)
    except Exception as exc:  # JsonRpcException: compare code and message
        return {"error": (getattr(exc, "code", None), str(exc))}
    return {"result": harness.plain(result)}


async def test_empty_array_params_are_no_params(editor: Editor) -> None:
    """``params: []`` (JSON-RPC by-position, no arguments) answers exactly as ``{}``."""
    await editor.ready()
    # Side-effect free, or failing for a missing field: [] and {} answer the same.
    for method in (
        "planMode/getState",
        "planMode/setMode",
        "planMode/checkTool",
        "planMode/applyEdit",
        "planMode/approve",
        "planMode/reject",
        "planMode/nextTurn",
        "planMode/resume",
        "planMode/fork",
        "planMode/listPlans",
        "planMode/agentDefinitions",
        "planMode/listRevisions",
        "planMode/revisionDiff",
    ):
        empty, braces = await by_position(editor, method, []), await by_position(editor, method, {})
        assert empty == braces, method
    exit_outside = await by_position(editor, "planMode/exit", [])
    assert exit_outside["error"][0] == -32001
    # The methods that change state, each with [] only.
    slash = await by_position(editor, "planMode/slashCommand", [])
    assert slash["result"]["message"] == "Enabled plan mode"
    await editor.request("planMode/setMode", {"mode": "default"})
    entered = await by_position(editor, "planMode/enter", [])
    assert entered["result"]["state"]["mode"] == "plan"
    waiting = asyncio.ensure_future(by_position(editor, "planMode/exit", []))
    approval = await editor.wait_for("planMode/approvalRequested")
    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    assert (await asyncio.wait_for(waiting, 5))["result"]["outcome"] == "approved"
    ended = await by_position(editor, "planMode/endSession", [])
    assert "result" in ended
    # Anything else by position is still refused, naming the problem.
    listed = await by_position(editor, "planMode/getState", ["main"])
    assert listed["error"][0] == -32602 and "must be an object" in listed["error"][1]


async def test_a_message_names_the_plan_when_the_editor_cannot_show_it(
    root: Path, home: Path
) -> None:
    """eglot and Helix have no window/showDocument: a plain message says what to do."""
    caps = harness.capabilities(show_document=False)
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps) as ed:
        await ed.request("planMode/enter", {})
        plan_path, task = await pending_exit(ed, PLAN)
        relative = str(plan_path.relative_to(root))
        text = await ed.message_until(lambda m: relative in m)
        assert text == (
            f"The agent asks you to approve its plan: {relative}. Open it and choose Approve "
            "plan, Approve & auto-accept edits or Reject… from its code actions (or lenses), or "
            "run `planmode approve` or `planmode reject --feedback TEXT` in a terminal in the "
            "workspace."
        )
        (shown,) = [m for m in ed.client.messages if m.message == text]
        assert isinstance(shown, types.ShowMessageParams)  # not a request: nothing waits on it
        assert shown.type == types.MessageType.Info
        assert ed.client.shown_documents == []
        ed.client.messages.clear()
        await ed.request(
            "planMode/reject", {"approvalId": (await ed.state())["pendingApproval"]["approvalId"]}
        )
        await asyncio.wait_for(task, 5)

    # An editor that can show the plan gets it shown, and no such message.
    async with running_editor(root, home, init_options={"sessionId": "other"}) as ed:
        await ed.request("planMode/enter", {})
        plan_path, task = await pending_exit(ed, PLAN)
        await ed.until(lambda: ed.client.shown_documents)
        assert not [m for m in ed.messages() if "asks you to approve" in m]
        await ed.request(
            "planMode/reject", {"approvalId": (await ed.state())["pendingApproval"]["approvalId"]}
        )
        await asyncio.wait_for(task, 5)


async def test_an_exit_without_a_plan_file_is_told_not_asked_when_the_editor_cannot_show_it(
    root: Path, home: Path
) -> None:
    """No showMessageRequest for eglot and Helix: a message, then the empty plan's actions."""
    caps = harness.capabilities(show_document=False)
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps) as ed:
        await ed.request("planMode/enter", {})
        plan_path = Path((await ed.state())["planFilePath"])
        assert not plan_path.exists()
        prompts = [{"tool": "Bash", "prompt": "python3 *"}]
        task = ed.start("planMode/exit", {"allowedPrompts": prompts})
        relative = str(plan_path.relative_to(root))
        text = await ed.message_until(lambda m: relative in m)
        # What approving grants is said before it is granted, here too.
        assert text == (
            f"Exit plan mode? The agent wrote no plan ({relative} does not exist). Approving "
            "also allows these commands without asking: Bash “python3 *”: `python3` followed "
            "by any plain words. Open it and choose Approve plan, Approve & auto-accept edits "
            "or Reject… from its code actions (or lenses), or run `planmode approve` or "
            "`planmode reject --feedback TEXT` in a terminal in the workspace."
        )
        assert all(isinstance(m, types.ShowMessageParams) for m in ed.client.messages)
        (shown,) = [m for m in ed.client.messages if m.message == text]
        assert shown.type == types.MessageType.Info
        assert not task.done()  # nothing answered for the user

        # What the message says works: the empty buffer the editor opens offers the decisions.
        ed.open(plan_path, "")
        actions = await ed.code_actions(plan_path)
        assert [a.title for a in actions] == [
            "Approve plan and allow `python3` …",
            "Approve & auto-accept edits and allow the same",
            "Reject…",
            "Save for later",
        ]
        approve = actions[0]
        assert isinstance(approve, types.CodeAction) and approve.command is not None
        await ed.execute(approve.command.command, list(approve.command.arguments or []))
        result = await asyncio.wait_for(task, 5)
        assert result["outcome"] == "approved"
        assert result["grantedPrompts"] == prompts
        assert (await ed.state())["mode"] == "default"
