"""Revision marks, end to end (lsp/features/revisionmarks.py, docs/protocol.md §12.4): what the
agent's revision of a plan under review changed, in the plan itself — the removed text as an
inlay hint where it was, each added line a Hint diagnostic, the removed text a Hint diagnostic
too for an editor without inlay hints; gone once the hunk is kept or undone or the plan
decided."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.e2e.harness import Editor, capabilities, running_editor
from tests.e2e.review import agent_revises, pending_exit

PLAN = (
    "# Plan\n\n1. Read src/app.py\n2. Change the greeting\n3. Run the app\n\n"
    "## Verification\nRun it\n"
)
# Line 3 changed, a line added after it, "3. Run the app" removed.
REVISED = (
    "# Plan\n\n1. Read src/app.py\n2. Change the greeting to hi\n3. Log it\n\n"
    "## Verification\nRun it\n"
)


def caps(inlay_hints: bool) -> types.ClientCapabilities:
    found = capabilities()
    assert found.text_document is not None and found.workspace is not None
    if inlay_hints:
        found.text_document.inlay_hint = types.InlayHintClientCapabilities()
        found.workspace.inlay_hint = types.InlayHintWorkspaceClientCapabilities(
            refresh_support=True
        )
    return found


async def revised(editor: Editor) -> tuple[Path, asyncio.Task]:
    """A plan rejected, then revised by the agent while open in the editor."""
    await editor.request("planMode/enter", {})
    path, task = await pending_exit(editor, PLAN)
    editor.open(path)
    state = await editor.state()
    await editor.request("planMode/reject", {"approvalId": state["pendingApproval"]["approvalId"]})
    await asyncio.wait_for(task, 5)
    path, task = await pending_exit(editor, REVISED)
    assert editor.buffers[path] == REVISED
    return path, task


async def hints(editor: Editor, path: Path) -> list[types.InlayHint]:
    found = await editor.client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=50, character=0)
            ),
        )
    )
    return list(found or [])


def marks(editor: Editor, path: Path) -> set[tuple[int, str, str]]:
    return {
        (d.range.start.line, str(d.code), d.message)
        for d in editor.client.diagnostics.get(path.as_uri(), [])
        if str(d.code).startswith("revision-") and d.severity == types.DiagnosticSeverity.Hint
    }


async def marks_until(editor: Editor, path: Path, wanted: set[tuple[int, str, str]]) -> None:
    for _ in range(100):
        if marks(editor, path) == wanted:
            return
        await asyncio.sleep(0.05)
    assert marks(editor, path) == wanted


ADDED = "Added by the agent's revision (Keep or Undo it from the code actions)"


async def test_removed_text_is_ghost_text_and_added_lines_hints(root: Path, home: Path) -> None:
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, caps=caps(inlay_hints=True)
    ) as editor:
        path, task = await revised(editor)
        (hint,) = await hints(editor, path)
        assert (hint.position.line, hint.position.character) == (3, 0)
        assert hint.label == "− “2. Change the greeting” +1 more"
        assert hint.tooltip == (
            "Removed by the agent's revision:\n2. Change the greeting\n3. Run the app"
        )
        assert hint.padding_right is True
        # Each added line a Hint; the removed text is the inlay hint's alone.
        await marks_until(
            editor, path, {(3, "revision-added", ADDED), (4, "revision-added", ADDED)}
        )
        # The hint outside the requested range is not sent.
        outside = await editor.client.text_document_inlay_hint_async(
            types.InlayHintParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                range=types.Range(
                    start=types.Position(line=5, character=0),
                    end=types.Position(line=8, character=0),
                ),
            )
        )
        assert not outside

        # Kept: the marks go.
        (hunk,) = (await editor.request("planMode/listHunks", {}))["hunks"]
        await editor.request("planMode/keepHunk", {"path": str(path), "hunkId": hunk["hunkId"]})
        assert await hints(editor, path) == []
        await marks_until(editor, path, set())
        await editor.request(
            "planMode/reject",
            {"approvalId": (await editor.state())["pendingApproval"]["approvalId"]},
        )
        await asyncio.wait_for(task, 5)


async def test_an_editor_without_inlay_hints_gets_the_removed_text_as_a_hint(
    root: Path, home: Path
) -> None:
    """eglot 1.9 and Neovim 0.7 ask for no inlay hints: the removed text is a diagnostic too."""
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, caps=caps(inlay_hints=False)
    ) as editor:
        path, task = await revised(editor)
        await marks_until(
            editor,
            path,
            {
                (3, "revision-added", ADDED),
                (4, "revision-added", ADDED),
                (
                    3,
                    "revision-removed",
                    "Removed by the agent's revision: 2. Change the greeting ⏎ 3. Run the app",
                ),
            },
        )
        # Undone: the old lines are back and the marks go.
        (hunk,) = (await editor.request("planMode/listHunks", {}))["hunks"]
        undone = await editor.request(
            "planMode/undoHunk", {"path": str(path), "hunkId": hunk["hunkId"]}
        )
        assert undone == {"ok": True}
        assert editor.buffers[path] == PLAN
        await marks_until(editor, path, set())
        await editor.request(
            "planMode/reject",
            {"approvalId": (await editor.state())["pendingApproval"]["approvalId"]},
        )
        await asyncio.wait_for(task, 5)


async def test_the_marks_go_when_the_plan_is_approved(root: Path, home: Path) -> None:
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, caps=caps(inlay_hints=True)
    ) as editor:
        path, task = await revised(editor)
        await marks_until(
            editor, path, {(3, "revision-added", ADDED), (4, "revision-added", ADDED)}
        )
        state = await editor.state()
        await editor.request(
            "planMode/approve", {"approvalId": state["pendingApproval"]["approvalId"]}
        )
        assert (await asyncio.wait_for(task, 5))["outcome"] == "approved"
        # The approved plan's progress marks come; no revision's.
        assert [h for h in await hints(editor, path) if str(h.label).startswith("−")] == []
        await marks_until(editor, path, set())


async def test_a_removal_at_the_end_is_marked_on_the_last_line(root: Path, home: Path) -> None:
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, caps=caps(inlay_hints=True)
    ) as editor:
        await editor.request("planMode/enter", {})
        path, task = await pending_exit(editor, PLAN)
        editor.open(path)
        state = await editor.state()
        await editor.request(
            "planMode/reject", {"approvalId": state["pendingApproval"]["approvalId"]}
        )
        await asyncio.wait_for(task, 5)
        shorter = PLAN.replace("\n## Verification\nRun it\n", "")
        path, task = await pending_exit(editor, shorter)
        (hint,) = await hints(editor, path)
        last = shorter.split("\n")[-2]
        assert (hint.position.line, hint.position.character) == (4, len(last))
        assert hint.label == "− “(blank line)” +2 more"
        await marks_until(editor, path, set())  # nothing was added
        state = await editor.state()
        await editor.request(
            "planMode/reject", {"approvalId": state["pendingApproval"]["approvalId"]}
        )
        await asyncio.wait_for(task, 5)


async def test_an_agents_edit_under_review_is_marked_at_once(root: Path, home: Path) -> None:
    """planMode/applyEdit of a plan under review: its marks come with it, no request needed."""
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, caps=caps(inlay_hints=False)
    ) as editor:
        await editor.request("planMode/enter", {})
        path, task = await pending_exit(editor, PLAN)
        editor.open(path)
        await marks_until(editor, path, set())
        await agent_revises(editor, path, PLAN, PLAN.replace("Run it\n", "Run it twice\n"), "More")
        await marks_until(
            editor,
            path,
            {
                (7, "revision-added", ADDED),
                (7, "revision-removed", "Removed by the agent's revision: Run it"),
            },
        )
        state = await editor.state()
        await editor.request(
            "planMode/reject", {"approvalId": state["pendingApproval"]["approvalId"]}
        )
        await asyncio.wait_for(task, 5)


async def test_the_agents_own_write_under_review_is_marked_at_once(root: Path, home: Path) -> None:
    """Claude Code rewrites its plan with its own Write while it is under review: the buffer
    follows the file, and the revision is recorded as the agent's and marked."""
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, caps=caps(inlay_hints=True)
    ) as editor:
        await editor.request("planMode/enter", {})
        path, task = await pending_exit(editor, PLAN)
        editor.open(path)
        decision = await editor.request(
            "planMode/checkTool",
            {"tool": "Write", "input": {"file_path": str(path), "content": REVISED}},
        )
        assert decision["behavior"] == "allow"
        path.write_text(REVISED)
        await editor.until(lambda: editor.buffers[path] == REVISED, 10)
        added = {(3, "revision-added", ADDED), (4, "revision-added", ADDED)}
        await marks_until(editor, path, added)
        (hint,) = [h for h in await hints(editor, path) if str(h.label).startswith("−")]
        assert (hint.position.line, hint.label) == (3, "− “2. Change the greeting” +1 more")
        (revision,) = (await editor.request("planMode/listRevisions", {}))["revisions"][-1:]
        assert (revision["author"], revision["reason"]) == ("agent", "changed outside the editor")
        state = await editor.state()
        assert state["pendingApproval"]["submittedPlan"] == REVISED
        await editor.request(
            "planMode/reject", {"approvalId": state["pendingApproval"]["approvalId"]}
        )
        await asyncio.wait_for(task, 5)
