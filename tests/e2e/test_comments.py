"""Review comments end to end: written in an open buffer, shown, delivered on reject and
approve with their anchors, re-anchored or outdated after the agent's revision."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e.harness import Editor, running_editor
from tests.e2e.review import begin_exit, by_code, diagnostics_until, enter, lens_titled, titles

PLAN = (
    "# Greet by name\n\n## Steps\n1. Read the name from argv.\n2. Print the greeting.\n\n"
    "## Verification\nRun the tests.\n"
)
COMMENTED = (
    "# Greet by name\n\n## Steps\n1. Read the name from argv.\n"
    "> [!review] What if there is no argument?\n"
    "2. Print the greeting.\n\n## Verification\nRun the tests.\n\n"
    "> [!review] Add a test for the fallback.\n"
)


async def exit_with_plan(editor: Editor, plan: str) -> tuple[asyncio.Task[Any], dict[str, Any]]:
    return await begin_exit(editor, plan=plan)


async def test_comments_written_in_the_buffer_reach_the_agent_on_reject(
    editor: Editor, root: Path
) -> None:
    path = await enter(editor)
    task, approval = await exit_with_plan(editor, PLAN)
    editor.open(path)
    assert titles(await editor.lenses(path)) == [
        "Approve plan",
        "Approve & auto-accept edits",
        "Reject…",
        "Save for later",
    ]

    # The user writes two comments in the buffer, unsaved.
    editor.change(path, COMMENTED)
    found = await diagnostics_until(editor, path, lambda f: len(by_code(f, "review-comment")) == 2)
    first, second = by_code(found, "review-comment")
    assert (first.range.start.line, first.range.end.line) == (4, 4)
    assert (second.range.start.line, second.range.end.line) == (10, 10)
    assert first.source == second.source == "planmode review"
    assert first.severity == types.DiagnosticSeverity.Information
    assert first.message == (
        "Comment for the agent on “1. Read the name from argv.”: What if there is no argument?"
    )
    lenses = await editor.lenses(path)
    # Comments are not edits of the plan; the reject lens counts them.
    assert titles(lenses) == [
        "Approve plan",
        "Approve & auto-accept edits",
        "Reject… (2 comments)",
        "Save for later",
    ]

    reject = lens_titled(lenses, "Reject…")
    assert reject.command is not None and reject.command.arguments is not None
    (arguments,) = reject.command.arguments
    await editor.execute(
        reject.command.command, [{**arguments, "feedback": "Handle errors before printing."}]
    )
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "rejected"
    assert result["remark"] == "Handle errors before printing."
    assert result["comments"] == [
        {
            "text": "What if there is no argument?",
            "quote": "1. Read the name from argv.",
            "headingPath": ["Greet by name", "Steps"],
            "line": 4,
            "outdated": False,
        },
        {
            "text": "Add a test for the fallback.",
            "quote": "Run the tests.",
            "headingPath": ["Greet by name", "Verification"],
            "line": 8,
            "outdated": False,
        },
    ]
    assert result["toolResult"].endswith(
        "The user's feedback:\nHandle errors before printing.\n\n"
        "The user's comments on the plan, each on the text it quotes:\n"
        "1. under “Greet by name › Steps” on line 4: “1. Read the name from argv.”\n"
        "   What if there is no argument?\n"
        "2. under “Greet by name › Verification” on line 8: “Run the tests.”\n"
        "   Add a test for the fallback."
    )
    assert result["feedback"] in result["toolResult"]
    assert approval["approvalId"]

    # The agent revises: the steps stay, the verification changes, the comments are gone.
    revised = PLAN.replace("Run the tests.", "Run pytest with and without a name.")
    task, _ = await exit_with_plan(editor, revised)
    await editor.until(lambda: editor.buffers[path] == revised)
    found = await diagnostics_until(
        editor,
        path,
        lambda f: bool(by_code(f, "review-comment-sent") and by_code(f, "review-comment-outdated")),
    )
    (kept,) = by_code(found, "review-comment-sent")
    (outdated,) = by_code(found, "review-comment-outdated")
    assert kept.range.start.line == 3 and kept.severity == types.DiagnosticSeverity.Hint
    assert "What if there is no argument?" in kept.message
    assert outdated.range.start.line == 6  # the heading it was under
    assert "Add a test for the fallback." in outdated.message
    assert by_code(found, "review-comment") == []
    assert titles(await editor.lenses(path))[2] == "Reject…"

    # Approving with a note: the plan is approved without it, the agent reads it.
    noted = revised.replace(
        "2. Print the greeting.\n", "2. Print the greeting.\n> [!review] Keep it short.\n"
    )
    editor.change(path, noted)
    await diagnostics_until(editor, path, lambda f: len(by_code(f, "review-comment")) == 1)
    lenses = await editor.lenses(path)
    # A comment is neither an edit nor a change to review; the agent's new verification is.
    assert titles(lenses)[0] == "Approve plan (1 change unreviewed)"
    await editor.run_lens(lens_titled(lenses, "Approve plan"))
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "approved"
    assert result["plan"] == revised
    assert result["planWasEdited"] is True  # ExitPlanMode's own plan input counts as an edit
    assert [c["text"] for c in result["comments"]] == ["Keep it short."]
    assert result["comments"][0]["quote"] == "2. Print the greeting."
    assert result["toolResult"].endswith(
        "## The user's notes with the approval:\n"
        "The user's comments on the plan, each on the text it quotes:\n"
        "1. under “Greet by name › Steps” on line 5: “2. Print the greeting.”\n"
        "   Keep it short."
    )
    assert path.read_text() == revised

    revisions = await editor.request("planMode/listRevisions", {"path": str(path)})
    with_comments = [r for r in revisions["revisions"] if r.get("comments")]
    assert [r["reason"] for r in with_comments] == [
        "rejected with 2 comments",
        "approved with 1 comment",
    ]


async def test_a_code_action_rejects_with_the_comments(editor: Editor) -> None:
    """Editors without lenses (eglot, Helix) reject with the comments through a code action."""
    path = await enter(editor)
    task, _ = await exit_with_plan(editor, PLAN)
    editor.open(path)
    editor.change(path, COMMENTED)
    await diagnostics_until(editor, path, lambda f: len(by_code(f, "review-comment")) == 2)
    actions = await editor.code_actions(path, line=4)
    reject = next(a for a in actions if a.title == "Reject… (2 comments)")
    command = reject.command if isinstance(reject, types.CodeAction) else reject
    assert command is not None and command.arguments is not None
    assert command.arguments[0]["includeComments"] is True
    await editor.execute(command.command, list(command.arguments))
    result = await asyncio.wait_for(task, 5)
    assert result["remark"] is None
    assert [c["text"] for c in result["comments"]] == [
        "What if there is no argument?",
        "Add a test for the fallback.",
    ]
    assert result["feedback"].startswith("The user's comments on the plan")
    # Without a remark the comments follow the rejection at once: no empty feedback heading.
    assert "The user's feedback:" not in result["toolResult"]
    assert result["toolResult"].endswith(f"ready.\n\n{result['feedback']}")


async def test_plain_approve_and_reject_requests_leave_comments_out(editor: Editor) -> None:
    path = await enter(editor)
    task, approval = await exit_with_plan(editor, PLAN)
    editor.open(path)
    editor.change(path, COMMENTED)
    await diagnostics_until(editor, path, lambda f: len(by_code(f, "review-comment")) == 2)
    await editor.request(
        "planMode/reject", {"approvalId": approval["approvalId"], "feedback": "No."}
    )
    result = await asyncio.wait_for(task, 5)
    assert result["comments"] == [] and result["feedback"] == "No."
    # An approval through the bare request approves the plan without the comments.
    task, approval = await exit_with_plan(editor, COMMENTED)
    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    result = await asyncio.wait_for(task, 5)
    assert result["plan"] == PLAN and result["comments"] == []
    assert path.read_text() == PLAN
    error = await editor.error(
        "planMode/reject", {"approvalId": "x", "includeComments": "yes please"}
    )
    assert error.code == -32602


# Two comments in a row under the first step: two comments, each on that step.
IN_A_ROW = PLAN.replace(
    "1. Read the name from argv.\n",
    "1. Read the name from argv.\n"
    "> [!review] What if there is no argument?\n"
    "> [!review] And two of them?\n",
)


async def test_two_comments_in_a_row_are_two_comments(editor: Editor) -> None:
    path = await enter(editor)
    task, _ = await exit_with_plan(editor, PLAN)
    editor.open(path)
    editor.change(path, IN_A_ROW)
    found = await diagnostics_until(editor, path, lambda f: len(by_code(f, "review-comment")) == 2)
    assert [(d.range.start.line, d.range.end.line) for d in by_code(found, "review-comment")] == [
        (4, 4),
        (5, 5),
    ]
    lenses = await editor.lenses(path)
    assert titles(lenses)[2] == "Reject… (2 comments)"
    await editor.run_lens(lens_titled(lenses, "Reject…"))
    result = await asyncio.wait_for(task, 5)
    assert [(c["text"], c["quote"]) for c in result["comments"]] == [
        ("What if there is no argument?", "1. Read the name from argv."),
        ("And two of them?", "1. Read the name from argv."),
    ]


async def test_comments_sent_with_a_rejection_survive_a_restart(root: Path, home: Path) -> None:
    """Before: the comments sent with a rejection were kept in the server's memory only: after
    a restart the agent's revision showed none of them."""
    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        path = await enter(editor)
        task, _ = await exit_with_plan(editor, PLAN)
        editor.open(path)
        editor.change(path, COMMENTED)
        await diagnostics_until(editor, path, lambda f: len(by_code(f, "review-comment")) == 2)
        await editor.run_lens(lens_titled(await editor.lenses(path), "Reject…"))
        assert len((await asyncio.wait_for(task, 5))["comments"]) == 2

    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        # The agent revises: the steps stay, the verification changes, the comments are gone.
        revised = PLAN.replace("Run the tests.", "Run pytest with and without a name.")
        task, _ = await exit_with_plan(editor, revised)
        editor.open(path)
        found = await diagnostics_until(
            editor,
            path,
            lambda f: bool(
                by_code(f, "review-comment-sent") and by_code(f, "review-comment-outdated")
            ),
        )
        (kept,) = by_code(found, "review-comment-sent")
        (outdated,) = by_code(found, "review-comment-outdated")
        assert kept.range.start.line == 3 and "What if there is no argument?" in kept.message
        assert outdated.range.start.line == 6 and "Add a test for the fallback." in outdated.message
        # Approved, they are done with: the next server shows none.
        await editor.run_lens(lens_titled(await editor.lenses(path), "Approve plan"))
        assert (await asyncio.wait_for(task, 5))["outcome"] == "approved"

    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        await editor.request("planMode/enter")
        task, approval = await exit_with_plan(editor, revised)
        editor.open(path)
        await editor.until(lambda: path.as_uri() in editor.client.diagnostics)
        await editor.settle()
        published = editor.client.diagnostics[path.as_uri()]
        assert by_code(published, "review-comment-sent") == []
        assert by_code(published, "review-comment-outdated") == []
        await editor.request("planMode/reject", {"approvalId": approval["approvalId"]})
        await asyncio.wait_for(task, 5)
