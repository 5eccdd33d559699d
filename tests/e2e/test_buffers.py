"""Server-made changes to an open plan never corrupt the buffer (lsp/features/buffers.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from lsprotocol import types

from tests.e2e.harness import Editor, capabilities, running_editor
from tests.e2e.review import pending_exit

PLAN = "# Plan\n\n1. Read src/app.py\n2. Change the greeting\n\n## Verification\nRun it\n"
REVISED = "# Plan\n\n1. Read src/app.py\n2. Change the greeting to hi\n3. Log it\n\n## Verification\nRun it\n"  # noqa: E501


@contextlib.asynccontextmanager
async def reloading(editor: Editor, path: Path) -> AsyncIterator[None]:
    """The editor reloads the unmodified buffer when the file changes (VS Code, auto-revert)."""

    async def watch() -> None:
        while True:
            on_disk = path.read_bytes().decode()
            if on_disk != editor.buffers[path]:
                editor.change(path, on_disk)
            await asyncio.sleep(0.02)

    task = asyncio.ensure_future(watch())
    try:
        yield
    finally:
        task.cancel()


async def rejected(editor: Editor, task: asyncio.Task) -> None:
    state = await editor.state()
    await editor.request("planMode/reject", {"approvalId": state["pendingApproval"]["approvalId"]})
    await asyncio.wait_for(task, 5)


async def test_vs_code_reloads_an_unmodified_open_plan_and_gets_no_edit(
    root: Path, home: Path
) -> None:
    """VS Code reloads an unmodified buffer itself: an edit too would change it twice."""
    async with running_editor(root, home, client_name="Visual Studio Code") as editor:
        await editor.request("planMode/enter", {})
        path, task = await pending_exit(editor, PLAN)
        await rejected(editor, task)
        editor.open(path)
        async with reloading(editor, path):
            path2, task = await pending_exit(editor, REVISED)
            assert path2 == path
            assert editor.buffers[path] == REVISED == path.read_bytes().decode()
        assert editor.applied_edits == []  # its reload brought it: the buffer stays clean
        lenses = await editor.lenses(path)
        assert lenses[0].command is not None
        assert lenses[0].command.title == "Approve plan (1 change unreviewed)"
        assert await editor.run_lens(lenses[0]) == {"ok": True}
        result = await asyncio.wait_for(task, 5)
        assert result["plan"] == REVISED and result["userEditsDiff"] is None


async def test_a_revision_reaches_an_open_plan_that_is_never_reloaded(editor: Editor) -> None:
    """eglot without auto-revert, Neovim and Helix keep a buffer's text until :e: the
    revision comes as a versioned edit of the changed lines, and the file follows it."""
    await editor.request("planMode/enter", {})
    path, task = await pending_exit(editor, PLAN)
    await rejected(editor, task)
    editor.open(path)
    version = editor.versions[path.as_uri()]
    path, task = await pending_exit(editor, REVISED)
    (applied,) = editor.applied_edits
    assert applied["label"] == "Plan submitted for approval"
    (change,) = applied["edit"].document_changes
    assert change.text_document.version == version
    assert [(e.range.start.line, e.range.end.line, e.new_text) for e in change.edits] == [
        (3, 4, "2. Change the greeting to hi\n3. Log it\n")
    ]
    assert editor.buffers[path] == REVISED == path.read_bytes().decode()
    lenses = await editor.lenses(path)
    assert lenses[0].command is not None
    assert lenses[0].command.title == "Approve plan (1 change unreviewed)"
    assert await editor.run_lens(lenses[0]) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    # The edit the server sent is the agent's text, not the user's edit.
    assert result["plan"] == REVISED and result["userEditsDiff"] is None
    # The editor marks the buffer modified (no LSP request saves it): the user is told that
    # only the server changed it, and how to leave it clean.
    told = await editor.message_until(lambda m: "and so does its buffer" in m)
    assert "Revert the buffer to the file" in told and "unsaved changes" not in told


async def test_a_buffer_that_moved_on_gets_the_edit_again_against_its_new_text(
    editor: Editor,
) -> None:
    """The user types as the edit arrives: the editor refuses it (another version) and the
    server computes it again against what the buffer holds now."""
    await editor.request("planMode/enter", {})
    path, task = await pending_exit(editor, PLAN)
    await rejected(editor, task)
    editor.open(path)
    typed = PLAN.replace("Run it", "Run it twice")
    editor.before_edit = lambda: editor.change(path, typed)
    path, task = await pending_exit(editor, REVISED)
    first, second = editor.applied_edits
    (refused,) = first["edit"].document_changes
    (taken,) = second["edit"].document_changes
    assert taken.text_document.version == refused.text_document.version + 1
    assert editor.buffers[path] == REVISED == path.read_bytes().decode()
    lenses = await editor.lenses(path)
    assert lenses[0].command is not None
    assert lenses[0].command.title == "Approve plan (1 change unreviewed)"
    await rejected(editor, task)


async def test_an_editor_that_takes_no_edits_is_told_its_buffer_is_out_of_date(
    root: Path, home: Path
) -> None:
    """Without workspace/applyEdit the file is all the server can change: the buffer is out
    of date, and the Approve lens says it approves the file, until the buffer reloads."""
    async with running_editor(root, home, caps=capabilities(apply_edit=False)) as editor:
        await editor.request("planMode/enter", {})
        path, task = await pending_exit(editor, PLAN)
        await rejected(editor, task)
        editor.open(path)
        path, task = await pending_exit(editor, REVISED)
        assert editor.applied_edits == []
        assert editor.buffers[path] == PLAN and path.read_bytes().decode() == REVISED
        lenses = await editor.lenses(path)
        assert lenses[0].command is not None
        assert lenses[0].command.title == (
            "Approve plan (1 change unreviewed) (buffer out of date: approves the file)"
        )
        editor.change(path, REVISED)  # :e — the buffer reloaded
        lenses = await editor.lenses(path)
        assert lenses[0].command is not None
        assert lenses[0].command.title == "Approve plan (1 change unreviewed)"
        assert await editor.run_lens(lenses[0]) == {"ok": True}
        result = await asyncio.wait_for(task, 5)
        assert result["plan"] == REVISED and result["userEditsDiff"] is None


async def test_unsaved_changes_get_a_versioned_edit_and_the_file_follows(editor: Editor) -> None:
    await editor.request("planMode/enter", {})
    path, task = await pending_exit(editor, PLAN)
    await rejected(editor, task)
    editor.open(path)
    editor.change(path, PLAN.replace("Run it", "Run it twice"))  # unsaved
    version = editor.versions[path.as_uri()]
    path, task = await pending_exit(editor, REVISED)
    (applied,) = editor.applied_edits
    (change,) = applied["edit"].document_changes
    assert change.text_document.version == version
    # Only the changed lines, against the text the buffer held.
    assert [(e.range.start.line, e.range.end.line, e.new_text) for e in change.edits] == [
        (3, 4, "2. Change the greeting to hi\n3. Log it\n"),
        (6, 7, "Run it\n"),
    ]
    assert editor.buffers[path] == REVISED == path.read_bytes().decode()
    lenses = await editor.lenses(path)
    assert await editor.run_lens(lenses[0]) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["plan"] == REVISED and result["userEditsDiff"] is None


async def test_a_refused_revision_is_never_approved_as_the_users_edit(editor: Editor) -> None:
    await editor.request("planMode/enter", {})
    path, task = await pending_exit(editor, PLAN)
    await rejected(editor, task)
    editor.open(path)
    editor.change(path, PLAN + "\nmy unsaved note\n")  # unsaved: the edit goes first
    editor.refuse_edits = "User cancelled server edit"
    path, task = await pending_exit(editor, REVISED)
    assert len(editor.applied_edits) == 1
    assert editor.buffers[path] == PLAN + "\nmy unsaved note\n"  # the buffer kept its text
    assert path.read_bytes().decode() == REVISED  # the agent's plan is in the file
    lenses = await editor.lenses(path)
    assert lenses[0].command is not None
    title = lenses[0].command.title
    assert title == "Approve plan (1 change unreviewed) (buffer out of date: approves the file)"
    # The code action says the same, and approves the file (as Helix or eglot would).
    (action,) = [a for a in await editor.code_actions(path) if a.title == title]
    assert isinstance(action, types.CodeAction) and action.command is not None
    assert await editor.execute(action.command.command, list(action.command.arguments or []))
    result = await asyncio.wait_for(task, 5)
    assert result["plan"] == REVISED and result["userEditsDiff"] is None
    assert path.read_bytes().decode() == REVISED


async def test_an_out_of_date_buffer_counts_again_once_saved(editor: Editor) -> None:
    await editor.request("planMode/enter", {})
    path, task = await pending_exit(editor, PLAN)
    await rejected(editor, task)
    editor.open(path)
    editor.change(path, PLAN + "x\n")
    editor.refuse_edits = "no"
    path, task = await pending_exit(editor, REVISED)
    lenses = await editor.lenses(path)
    assert lenses[0].command is not None and "out of date" in lenses[0].command.title
    # The user saves their own text deliberately: it is the plan again, and their edit.
    path.write_text(PLAN + "x\n")
    editor.save(path)
    await editor.settle()
    lenses = await editor.lenses(path)
    assert lenses[0].command is not None
    assert lenses[0].command.title.startswith("Approve plan (edited")
    assert await editor.run_lens(lenses[0]) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["plan"] == PLAN + "x\n" and result["userEditsDiff"]


async def test_an_agents_edit_of_an_open_plan_reaches_the_buffer_versioned(
    editor: Editor,
) -> None:
    """planMode/applyEdit's ranges become a versioned edit against the buffer's text."""
    await editor.request("planMode/enter", {})
    path, task = await pending_exit(editor, PLAN)
    editor.open(path)
    editor.change(path, PLAN + "my note\n")  # unsaved
    version = editor.versions[path.as_uri()]
    answer = await editor.request(
        "planMode/applyEdit",
        {
            "edit": {
                "changes": {
                    path.as_uri(): [
                        {
                            "range": {
                                "start": {"line": 3, "character": 22},
                                "end": {"line": 3, "character": 22},
                            },
                            "newText": " to hi",
                        }
                    ]
                }
            },
            "label": "Sharper",
        },
    )
    assert answer == {"applied": True}
    (change,) = editor.applied_edits[-1]["edit"].document_changes
    assert change.text_document.version == version
    (edit,) = change.edits
    assert (edit.range.start.line, edit.new_text) == (3, "2. Change the greeting to hi\n")
    assert editor.buffers[path] == PLAN.replace("greeting\n", "greeting to hi\n") + "my note\n"
    await rejected(editor, task)


async def check_write(editor: Editor, path: Path, content: str) -> None:
    """The agent's own Write of the plan file, as its hook asks first and then runs it."""
    decision = await editor.request(
        "planMode/checkTool",
        {"tool": "Write", "input": {"file_path": str(path), "content": content}},
    )
    assert decision["behavior"] == "allow", decision
    path.write_text(content)


async def test_the_agents_own_write_reaches_an_unmodified_open_plan(editor: Editor) -> None:
    """Claude Code writes its plan itself: the buffer of an editor that reloads nothing gets
    the file's new text as an edit, without waiting for the exit."""
    entered = await editor.request("planMode/enter", {})
    path = Path(entered["state"]["planFilePath"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PLAN)
    editor.open(path)
    await check_write(editor, path, REVISED)
    await editor.until(lambda: editor.buffers[path] == REVISED, 10)
    (applied,) = editor.applied_edits
    assert applied["label"] == "The agent's edit of the plan"
    assert path.read_bytes().decode() == REVISED
    # Its exit then finds the buffer holding the plan: no second edit, not out of date.
    path, task = await pending_exit(editor, REVISED)
    assert len(editor.applied_edits) == 1
    lenses = await editor.lenses(path)
    assert lenses[0].command is not None and lenses[0].command.title == "Approve plan"
    await rejected(editor, task)


async def test_the_agents_own_write_leaves_the_users_unsaved_typing_alone(editor: Editor) -> None:
    entered = await editor.request("planMode/enter", {})
    path = Path(entered["state"]["planFilePath"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PLAN)
    editor.open(path)
    typed = PLAN + "my note\n"
    editor.change(path, typed)  # unsaved
    await check_write(editor, path, REVISED)
    await asyncio.sleep(0.5)
    await editor.settle()
    assert editor.applied_edits == [] and editor.buffers[path] == typed


async def test_vs_code_reloads_the_agents_own_write_itself(root: Path, home: Path) -> None:
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, client_name="Visual Studio Code"
    ) as editor:
        entered = await editor.request("planMode/enter", {})
        path = Path(entered["state"]["planFilePath"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PLAN)
        editor.open(path)
        await check_write(editor, path, REVISED)
        await asyncio.sleep(1.5)  # longer than the reload the server gives an editor
        await editor.settle()
        assert editor.applied_edits == [] and editor.buffers[path] == PLAN


async def test_an_edit_refused_by_the_user_leaves_the_buffer_out_of_date(editor: Editor) -> None:
    """eglot's "Server wants to edit … Proceed?" answered no: the file has the revision, the
    buffer keeps its text and is out of date, so the file is what an approval takes."""
    await editor.request("planMode/enter", {})
    path, task = await pending_exit(editor, PLAN)
    await rejected(editor, task)
    editor.open(path)
    editor.refuse_edits = "User cancelled server edit"
    path, task = await pending_exit(editor, REVISED)
    assert len(editor.applied_edits) == 1  # asked once: a refusal is not retried
    assert editor.buffers[path] == PLAN and path.read_bytes().decode() == REVISED
    lenses = await editor.lenses(path)
    assert lenses[0].command is not None
    assert lenses[0].command.title == (
        "Approve plan (1 change unreviewed) (buffer out of date: approves the file)"
    )
    assert await editor.run_lens(lenses[0]) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["plan"] == REVISED and result["userEditsDiff"] is None
