"""Agent revisions of a plan the user has seen, hunk by hunk: Keep / Undo lenses, and history."""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e import harness
from tests.e2e.harness import Editor, running_editor
from tests.e2e.review import agent_revises, hunk_pairs, pending_exit, whole

REQUESTED = "planMode/approvalRequested"
KEEP, UNDO = "planMode.keepHunk", "planMode.undoHunk"
UNDO_LABEL = "Undo a change to the plan"

PLAN = (
    "# Plan\n\n1. Read src/app.py\n2. Change the greeting\n3. Run the app\n\n"
    "## Verification\nRun pytest"
)


def unified_body(old: str, new: str) -> list[str]:
    """The lines of ``diff -u old new`` after the two file headers."""
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True))
    marked = "".join(
        line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n" for line in lines
    )
    return marked.splitlines(keepends=True)[2:]


def approve_title(lenses: list[types.CodeLens]) -> str:
    first = lenses[0].command
    assert first is not None and first.command == "planMode.approve"
    return first.title


async def revisions(editor: Editor, **params: Any) -> list[tuple[int, str, str]]:
    listed = await editor.request("planMode/listRevisions", params)
    return [(r["id"], r["author"], r["reason"]) for r in listed["revisions"]]


async def test_revision_during_pending_approval_hunk_by_hunk(editor: Editor, root: Path) -> None:
    await editor.request("planMode/enter", {})
    path, task = await pending_exit(editor, PLAN)
    editor.open(path)
    lenses = await editor.lenses(path)
    assert hunk_pairs(lenses) == []  # nothing revised yet
    assert approve_title(lenses) == "Approve plan"

    # The agent revises: a deletion-only hunk and a change of the last line (no newline).
    r1 = PLAN.replace("2. Change the greeting\n", "").replace(
        "Run pytest", "Run pytest -q\nand read the output"
    )
    await agent_revises(editor, path, PLAN, r1, "Tighten the plan")
    assert editor.buffers[path] == r1
    lenses = await editor.lenses(path)
    assert approve_title(lenses) == "Approve plan (2 changes unreviewed)"
    (a_line, a_keep, a_undo, a_args), (b_line, b_keep, b_undo, b_args) = hunk_pairs(lenses)
    assert (a_line, a_keep, a_undo) == (
        3,
        "Keep (+0 −1)",
        "Undo: restores “2. Change the greeting”",
    )
    assert (b_line, b_keep, b_undo) == (6, "Keep (+2 −1)", "Undo: restores “Run pytest”")
    assert a_args["path"] == str(path) and a_args["hunkId"] != b_args["hunkId"]
    # listHunks says the same, with the removed lines' text (an editor's ghost text).
    listed = (await editor.request("planMode/listHunks", {"path": str(path)}))["hunks"]
    assert [(h["line"], h["added"], h["removed"], h["removedLines"]) for h in listed] == [
        (3, 0, 1, ["2. Change the greeting"]),
        (6, 2, 1, ["Run pytest"]),
    ]

    # Undo the last-line hunk: exactly the old text comes back, through the editor.
    edits_before = len(editor.applied_edits)
    version_before = editor.versions[path.as_uri()]
    assert await editor.execute(UNDO, [b_args]) == {"ok": True}
    after_b = PLAN.replace("2. Change the greeting\n", "")
    assert editor.buffers[path] == after_b
    assert len(editor.applied_edits) == edits_before + 1
    undo_edit = editor.applied_edits[-1]
    assert undo_edit["label"] == UNDO_LABEL
    # Versioned, against the text the buffer held, touching only the changed lines.
    (change,) = undo_edit["edit"].document_changes
    assert change.text_document.uri == path.as_uri()
    assert change.text_document.version == version_before
    (text_edit,) = change.edits
    assert text_edit.new_text == "Run pytest"
    assert path.read_text() == after_b  # the file follows the buffer
    lenses = await editor.lenses(path)
    assert [p[:3] for p in hunk_pairs(lenses)] == [(a_line, a_keep, a_undo)]
    assert "1 change unreviewed" in approve_title(lenses)

    # A stale hunk id: -32006, and nothing changes.
    for command, args in ((UNDO, b_args), (KEEP, b_args), (KEEP, {**a_args, "hunkId": "f" * 16})):
        try:
            await editor.execute(command, [args])
        except Exception as exc:
            assert getattr(exc, "code", None) == -32006, exc
        else:
            raise AssertionError(f"{command} of a stale hunk succeeded")
    assert editor.buffers[path] == after_b
    assert len(editor.applied_edits) == edits_before + 1
    assert len(hunk_pairs(await editor.lenses(path))) == 1

    # Keep the deletion: its lenses go, the text stays.
    assert await editor.execute(KEEP, [a_args]) == {"ok": True}
    lenses = await editor.lenses(path)
    assert hunk_pairs(lenses) == []
    assert "unreviewed" not in approve_title(lenses)
    assert editor.buffers[path] == after_b

    # Second revision: an insertion-only hunk and a deletion-only hunk; undo both.
    r2 = after_b.replace("# Plan\n", "# Plan\nGoal: a friendlier greeting.\n").replace(
        "3. Run the app\n", ""
    )
    await agent_revises(editor, path, after_b, r2, "Add the goal")
    (ins_line, ins_keep, ins_undo, ins_args), (del_line, _, del_undo, del_args) = hunk_pairs(
        await editor.lenses(path)
    )
    assert (ins_line, ins_keep, ins_undo) == (1, "Keep (+1 −0)", "Undo: removes 1 added line(s)")
    assert (del_line, del_undo) == (4, "Undo: restores “3. Run the app”")
    assert await editor.execute(UNDO, [ins_args]) == {"ok": True}
    assert editor.buffers[path] == after_b.replace("3. Run the app\n", "")
    ((moved_line, _, _, moved_args),) = hunk_pairs(await editor.lenses(path))
    assert moved_line == 3 and moved_args["hunkId"] != del_args["hunkId"]
    assert await editor.execute(UNDO, [moved_args]) == {"ok": True}
    assert editor.buffers[path] == after_b
    assert hunk_pairs(await editor.lenses(path)) == []

    # Third revision left unreviewed: approving takes the plan as it stands.
    r3 = after_b.replace("Run pytest", "Run pytest and check the greeting")
    await agent_revises(editor, path, after_b, r3, "Say what to check")
    lenses = await editor.lenses(path)
    assert approve_title(lenses) == "Approve plan (1 change unreviewed)"
    assert len(hunk_pairs(lenses)) == 1
    assert await editor.run_lens(lenses[0]) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "approved"
    assert result["plan"] == r3
    assert path.read_text() == r3
    # Decided: no review lens is left; the approved plan shows its progress.
    assert [le.command.command for le in await editor.lenses(path) if le.command] == [
        "planMode.showProgress"
    ]

    # Every change is a revision, with its author and reason.
    assert await revisions(editor) == [
        (1, "agent", "submitted for approval"),
        (2, "agent", "Tighten the plan"),
        (3, "user", "undo of an agent change"),
        (4, "agent", "Add the goal"),
        (5, "user", "undo of an agent change"),
        (6, "user", "undo of an agent change"),
        (7, "agent", "Say what to check"),
    ]
    diff = await editor.request("planMode/revisionDiff", {"from": 2, "to": 3})
    # pygls renames a result key that is a Python keyword ("from" comes over as "_1").
    assert [v for k, v in diff.items() if k not in ("path", "to", "diff")] == [2]
    assert diff["to"] == 3 and diff["path"] == str(path)
    body = diff["diff"].splitlines(keepends=True)[2:]
    assert body == unified_body(r1, after_b)
    assert "-and read the output\n\\ No newline at end of file\n+Run pytest\n" in diff["diff"]

    # No review any more: an agent edit after approval shows no hunk lenses.
    await agent_revises(editor, path, r3, r3 + "\nmore", "After approval")
    assert hunk_pairs(await editor.lenses(path)) == []


async def test_revision_after_rejection_and_history(editor: Editor, root: Path) -> None:
    await editor.request("planMode/enter", {})
    state = await editor.state()
    path = Path(state["planFilePath"])

    # No review yet: an agent edit of the plan in plan mode shows no hunk lenses.
    answer = await editor.request(
        "planMode/applyEdit",
        {
            "edit": {
                "documentChanges": [
                    {"kind": "create", "uri": path.as_uri()},
                    {
                        "textDocument": {"uri": path.as_uri(), "version": None},
                        "edits": [whole("", "# Draft\n")],
                    },
                ]
            },
            "label": "First draft",
        },
    )
    assert answer == {"applied": True}
    assert await editor.lenses(path) == []

    _, first = await pending_exit(editor, PLAN)
    approval_id = (await editor.state())["pendingApproval"]["approvalId"]
    assert await editor.request(
        "planMode/reject", {"approvalId": approval_id, "feedback": "Less."}
    ) == {"ok": True}
    assert (await asyncio.wait_for(first, 5))["outcome"] == "rejected"
    assert await editor.lenses(path) == []  # rejected, but nothing revised since

    # The agent exits again with a changed plan: hunks against the rejected text.
    second_plan = PLAN.replace("1. Read src/app.py\n", "1. Read src/app.py and its tests\n")
    second_plan = second_plan.replace("3. Run the app\n", "")
    _, second = await pending_exit(editor, second_plan)
    lenses = await editor.lenses(path)
    assert approve_title(lenses) == "Approve plan (2 changes unreviewed)"
    pairs = hunk_pairs(lenses)
    assert [(line, keep) for line, keep, _, _ in pairs] == [
        (2, "Keep (+1 −1)"),
        (4, "Keep (+0 −1)"),
    ]
    assert pairs[0][2] == "Undo: restores “1. Read src/app.py”"
    # Not open in the editor: the undo is written to the file, no editor edit.
    edits_before = len(editor.applied_edits)
    assert await editor.execute(UNDO, [pairs[1][3]]) == {"ok": True}
    assert len(editor.applied_edits) == edits_before
    restored = second_plan.replace(
        "2. Change the greeting\n", "2. Change the greeting\n3. Run the app\n"
    )
    assert path.read_text() == restored
    ((_, _, _, args),) = hunk_pairs(await editor.lenses(path))
    assert await editor.execute(KEEP, [args]) == {"ok": True}
    assert hunk_pairs(await editor.lenses(path)) == []

    # The user edits in place, then approves: a user revision.
    editor.open(path)
    edited = restored.replace("# Plan\n", "# Plan: greeting\n")
    editor.change(path, edited)
    approval_id = (await editor.state())["pendingApproval"]["approvalId"]
    assert await editor.request("planMode/approve", {"approvalId": approval_id}) == {"ok": True}
    result = await asyncio.wait_for(second, 5)
    assert result["plan"] == edited and result["planWasEdited"] is True

    expected = [
        (1, "agent", "First draft"),
        (2, "agent", "submitted for approval"),
        (3, "agent", "submitted for approval"),
        (4, "user", "undo of an agent change"),
        (5, "user", "edited at approval"),
    ]
    assert await revisions(editor) == expected
    assert await revisions(editor, path=str(path)) == expected
    assert await revisions(editor, path=path.as_uri()) == expected
    listed = await editor.request("planMode/listRevisions", {})
    assert listed["path"] == str(path)
    for revision in listed["revisions"]:
        assert revision["time"] and revision["sizeBytes"] >= 0 and revision["lines"] >= 1
    texts = {1: "# Draft\n", 2: PLAN, 3: second_plan, 4: restored, 5: edited}

    # The unified diff between any two.
    for old in texts:
        for new in texts:
            answer = await editor.request(
                "planMode/revisionDiff", {"path": str(path), "from": old, "to": new}
            )
            diff = answer["diff"]
            if old == new:
                assert diff == ""
                continue
            head = diff.splitlines()[:2]
            assert head[0].startswith(f"--- {path.name}@{old} (")
            assert head[1].startswith(f"+++ {path.name}@{new} (")
            assert diff.splitlines(keepends=True)[2:] == unified_body(texts[old], texts[new])
    four_to_five = await editor.request("planMode/revisionDiff", {"from": 4, "to": 5})
    assert "-# Plan\n+# Plan: greeting\n" in four_to_five["diff"]
    assert "(user, edited at approval)" in four_to_five["diff"].splitlines()[1]

    # Bad ids, bad shapes, and paths that are not plan files.
    outside = root / "src" / "app.py"
    for params in (
        {"from": 1, "to": 99},
        {"from": 0, "to": 1},
        {"from": 1},
        {"from": "one", "to": 2},
        {"path": str(outside), "from": 1, "to": 2},
        {"path": outside.as_uri(), "from": 1, "to": 2},
        {"path": str(path.with_suffix(".txt")), "from": 1, "to": 2},
    ):
        error = await editor.error("planMode/revisionDiff", params)
        assert error.code == -32602, (params, error)
    for params in ({"path": str(outside)}, {"path": str(root / "elsewhere.md")}):
        error = await editor.error("planMode/listRevisions", params)
        assert error.code == -32602, (params, error)
    for command in (KEEP, UNDO):
        try:
            await editor.execute(command, [{"path": str(outside), "hunkId": "abc"}])
        except Exception as exc:
            assert getattr(exc, "code", None) == -32602, exc
        else:
            raise AssertionError(f"{command} on a file that is not a plan succeeded")
    assert (await editor.state())["mode"] == "default"


async def test_undo_without_apply_edit_writes_the_file(root: Path, home: Path) -> None:
    caps = harness.capabilities(apply_edit=False)
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps) as editor:
        await editor.request("planMode/enter", {})
        path, task = await pending_exit(editor, PLAN)
        revised = PLAN + "\n4. Ship"
        await agent_revises(editor, path, PLAN, revised, "Ship it")
        assert path.read_text() == revised
        ((line, _, undo, args),) = hunk_pairs(await editor.lenses(path))
        assert (line, undo) == (7, "Undo: restores “Run pytest”")
        assert await editor.execute(UNDO, [args]) == {"ok": True}
        assert path.read_text() == PLAN
        assert editor.applied_edits == []
        assert hunk_pairs(await editor.lenses(path)) == []
        task.cancel()
