"""After approval, end to end: the approved plan's progress and drift (docs/protocol.md §12).

The real server, a scripted editor: the agent's todo tools and writes pass through checkTool
and move the plan's steps; the user marks steps (request, command, code action); a write
outside the plan is warned about, asked about or denied per the ``drift`` setting, also through
``planMode/applyEdit``; the editor shows the marks as inlay hints, or Hint diagnostics when it
has none; the progress survives a restart and ends when plan mode is entered again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.harness import Editor, capabilities, running_editor
from tests.e2e.planmode_cli import in_thread, run

PROGRESS = "planMode/didChangeProgress"
PLAN = """# Plan: a friendlier greeting

## Steps
1. Change the greeting in `src/app.py`
2. Add a test in `tests/test_app.py`
3. Update the README

## Verification
Run `pytest` and read the greeting.
"""
ALLOW = "Allow this file for this plan"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def caps(inlay_hints: bool = True) -> types.ClientCapabilities:
    """The harness's editor, with message actions (and inlay hints, unless told otherwise)."""
    found = capabilities()
    found.window = types.WindowClientCapabilities(
        show_document=types.ShowDocumentClientCapabilities(support=True),
        show_message=types.ShowMessageRequestClientCapabilities(),
    )
    assert found.text_document is not None and found.workspace is not None
    if inlay_hints:
        found.text_document.inlay_hint = types.InlayHintClientCapabilities()
        found.workspace.inlay_hint = types.InlayHintWorkspaceClientCapabilities(
            refresh_support=True
        )
    return found


@pytest.fixture
async def editor(root: Path, home: Path) -> AsyncIterator[Editor]:
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps()) as ed:
        yield ed


async def approve_plan(editor: Editor, plan: str = PLAN, mode: str = "acceptEdits") -> Path:
    """Plan mode entered, ``plan`` written and submitted, approved as shown."""
    entered = await editor.request("planMode/enter", {})
    path = Path(entered["state"]["planFilePath"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(plan)
    seen = len(editor.notes["planMode/approvalRequested"])
    task = editor.start("planMode/exit", {})
    approval = await editor.wait_for("planMode/approvalRequested", seen + 1)
    await editor.request(
        "planMode/approve",
        {"approvalId": approval["approvalId"], "planSha256": sha(plan), "mode": mode},
    )
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "approved"
    return path


async def check(editor: Editor, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return await editor.request("planMode/checkTool", {"tool": tool, "input": tool_input})


def statuses(progress: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(step["status"], step["source"]) for step in progress["steps"]]


async def test_no_progress_before_approval_and_after_plan_mode_is_entered_again(
    editor: Editor,
) -> None:
    error = await editor.error("planMode/getProgress", {})
    assert error.code == -32007
    assert error.message.startswith("No approved plan")
    error = await editor.error("planMode/setStepStatus", {"index": 0, "status": "done"})
    assert error.code == -32007

    path = await approve_plan(editor)
    progress = await editor.request("planMode/getProgress", {})
    assert progress["sessionId"] == "main"
    assert progress["planFilePath"] == str(path)
    assert progress["total"] == 3 and progress["done"] == 0
    assert [s["text"] for s in progress["steps"]] == [
        "Change the greeting in `src/app.py`",
        "Add a test in `tests/test_app.py`",
        "Update the README",
    ]
    assert [s["line"] for s in progress["steps"]] == [3, 4, 5]
    assert progress["verification"] == {"line": 7, "title": "Verification"}
    assert progress["drift"] == [] and progress["allowedPaths"] == []
    # The approval started it, and said so.
    assert (await editor.wait_for(PROGRESS))["approvalId"] == progress["approvalId"]

    await editor.request("planMode/enter", {})
    assert (await editor.error("planMode/getProgress", {})).code == -32007
    listed = await editor.request("planMode/listProgress", {})
    assert listed == {"progress": []}


async def test_todo_write_moves_steps_and_a_repeated_list_changes_nothing(editor: Editor) -> None:
    await approve_plan(editor)
    await editor.wait_for(PROGRESS)
    todos = [
        {"content": "Change the greeting in src/app.py", "status": "completed"},
        {"content": "2. Add the test", "status": "in_progress"},
        {"content": "Something the plan never says", "status": "completed"},
    ]
    answer = await check(editor, "TodoWrite", {"todos": todos})
    assert answer["behavior"] == "allow"
    changed = await editor.wait_for(PROGRESS, 2)
    assert statuses(changed) == [("done", "todo"), ("inProgress", "todo"), ("pending", None)]
    assert changed["done"] == 1

    await check(editor, "TodoWrite", {"todos": todos})
    await editor.settle()
    assert len(editor.notes[PROGRESS]) == 2, "a list that did not change is no change"
    progress = await editor.request("planMode/getProgress", {})
    assert statuses(progress) == statuses(changed)


async def test_task_create_and_task_update_move_steps(editor: Editor) -> None:
    await approve_plan(editor)
    for subject in ("Change the greeting in src/app.py", "Update the README"):
        assert (await check(editor, "TaskCreate", {"subject": subject}))["behavior"] == "allow"
    await check(editor, "TaskUpdate", {"taskId": "2", "status": "in_progress"})
    await check(editor, "TaskUpdate", {"taskId": "1", "status": "completed"})
    progress = await editor.request("planMode/getProgress", {})
    assert statuses(progress) == [("done", "todo"), ("pending", None), ("inProgress", "todo")]


async def test_the_users_mark_wins_and_bad_marks_change_nothing(editor: Editor) -> None:
    await approve_plan(editor)
    marked = await editor.request("planMode/setStepStatus", {"index": 1, "status": "done"})
    assert statuses(marked)[1] == ("done", "user")
    assert (await editor.wait_for(PROGRESS, 2))["steps"][1]["source"] == "user"

    for params, field in (
        ({"index": 3, "status": "done"}, "index"),
        ({"index": -1, "status": "done"}, "index"),
        ({"index": "1", "status": "done"}, "index"),
        ({"index": 0, "status": "finished"}, "status"),
        ({"index": 0}, "status"),
    ):
        error = await editor.error("planMode/setStepStatus", params)
        assert error.code == -32602, params
        assert f"'{field}'" in error.message, error.message
    await editor.settle()
    assert len(editor.notes[PROGRESS]) == 2
    assert await editor.request("planMode/getProgress", {}) == marked

    # The agent's later todo does not undo the user's mark; the user marks it again.
    await check(editor, "TodoWrite", {"todos": [{"content": "Step 2", "status": "pending"}]})
    await editor.request("planMode/setStepStatus", {"index": 0, "status": "inProgress"})
    await check(editor, "TodoWrite", {"todos": [{"content": "1.", "status": "completed"}]})
    progress = await editor.request("planMode/getProgress", {})
    assert statuses(progress)[:2] == [("inProgress", "user"), ("done", "user")]


async def test_writes_of_named_files_move_steps_and_every_step_done_points_at_verification(
    editor: Editor, root: Path
) -> None:
    await approve_plan(editor)
    answer = await check(editor, "Write", {"file_path": str(root / "src/app.py"), "content": ""})
    assert answer["behavior"] == "allow"
    answer = await check(editor, "Edit", {"file_path": "tests/test_app.py"})
    assert answer["behavior"] == "allow"
    progress = await editor.request("planMode/getProgress", {})
    assert statuses(progress) == [("inProgress", "edit"), ("inProgress", "edit"), ("pending", None)]
    assert progress["drift"] == []

    await editor.execute("planMode.setStepStatus", [{"index": 0, "status": "done"}])
    await editor.execute("planMode.setStepStatus", [{"index": 1, "status": "done"}])
    assert not any("are done" in m for m in editor.messages())
    await check(
        editor, "TodoWrite", {"todos": [{"content": "Update the README", "status": "completed"}]}
    )
    message = await editor.message_until(lambda text: "are done" in text)
    assert message.startswith("All 3 steps of the plan are done. Now verify the change:")
    assert "“Verification”" in message and "line 8" in message


async def test_drift_warns_and_the_user_allows_the_file_from_the_message(
    editor: Editor, root: Path
) -> None:
    path = await approve_plan(editor)
    await editor.wait_for(PROGRESS)
    editor.message_answer = ALLOW
    answer = await check(editor, "Write", {"file_path": "src/other.py", "content": "x"})
    assert answer["behavior"] == "allow"  # warn: the decision is unchanged
    changed = await editor.wait_for(PROGRESS, 2)
    assert [(d["path"], d["tool"]) for d in changed["drift"]] == [("src/other.py", "Write")]

    def questions() -> list[types.ShowMessageRequestParams]:
        return [m for m in editor.client.messages if isinstance(m, types.ShowMessageRequestParams)]

    await editor.until(lambda: bool(questions()))
    (question,) = questions()
    assert question.message.startswith("Not in the approved plan: src/other.py (Write)")
    assert [a.title for a in question.actions or []] == [ALLOW]
    allowed = await editor.wait_for(PROGRESS, 3)
    assert allowed["allowedPaths"] == ["src/other.py"]
    assert allowed["drift"] == changed["drift"]  # the record of what happened stays

    # Allowed: no more drift for it, even under deny; the plans directory never drifts.
    editor.message_answer = None
    editor.reconfigure({"drift": "deny"})
    for _ in range(100):
        answer = await check(editor, "Write", {"file_path": "src/third.py", "content": "x"})
        if answer["behavior"] == "deny":
            break
        await asyncio.sleep(0.05)
    assert answer["behavior"] == "deny", answer
    for raw in ("src/other.py", str(path), str(path.parent / "another-plan.md")):
        answer = await check(editor, "Write", {"file_path": raw, "content": "x"})
        assert answer["behavior"] == "allow", (raw, answer)


async def test_drift_diagnostic_and_allow_file_command(editor: Editor, root: Path) -> None:
    path = await approve_plan(editor)
    editor.open(path, PLAN)
    await check(editor, "Write", {"file_path": "notes.txt", "content": "x"})

    async def drift_diagnostics() -> list[types.Diagnostic]:
        for _ in range(100):
            found = [
                d for d in editor.client.diagnostics.get(path.as_uri(), []) if d.code == "drift"
            ]
            if found:
                return found
            await asyncio.sleep(0.05)
        return []

    (warning,) = await drift_diagnostics()
    assert warning.severity == types.DiagnosticSeverity.Warning
    assert warning.message.startswith("Not in the approved plan: notes.txt")

    actions = await editor.code_actions(path, 0, 0)
    titles = [a.title for a in actions]
    assert "Allow notes.txt for this plan" in titles
    error = await editor.error("planMode/setStepStatus", {"index": 9, "status": "done"})
    assert error.code == -32602
    progress = await editor.execute("planMode.allowFile", [{"path": "notes.txt"}])
    assert progress["allowedPaths"] == ["notes.txt"]
    for _ in range(100):
        if not [d for d in editor.client.diagnostics[path.as_uri()] if d.code == "drift"]:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the drift diagnostic stayed after the file was allowed")
    for bad in ("../elsewhere.txt", str(path)):
        with pytest.raises(JsonRpcException) as raised:
            await editor.execute("planMode.allowFile", [{"path": bad}])
        assert raised.value.code == -32602 and "'path'" in raised.value.message


async def test_drift_ask_and_deny_through_check_tool(root: Path, home: Path) -> None:
    async with running_editor(
        root, home, init_options={"sessionId": "main", "drift": "ask"}, caps=caps()
    ) as editor:
        await approve_plan(editor)
        answer = await check(editor, "Write", {"file_path": "src/other.py", "content": "x"})
        assert answer["behavior"] == "ask"
        assert answer["rule"] == "drift" and answer["vouched"] is True
        assert answer["message"].startswith("Not in the approved plan: src/other.py.")
        # A named file is no drift.
        answer = await check(editor, "Write", {"file_path": "src/app.py", "content": "x"})
        assert answer["behavior"] == "allow"

    async with running_editor(
        root, home, init_options={"sessionId": "deny", "drift": "deny"}, caps=caps()
    ) as editor:
        await approve_plan(editor)
        answer = await check(editor, "Edit", {"file_path": "src/other.py"})
        assert answer["behavior"] == "deny"
        assert answer["rule"] == "drift" and answer["vouched"] is True
        assert answer["message"].startswith("Not in the approved plan: src/other.py.")
        assert "enter plan mode and submit a plan that names it" in answer["message"]
        progress = await editor.request("planMode/getProgress", {})
        assert [d["path"] for d in progress["drift"]] == ["src/other.py"]

        # planMode/applyEdit: refused whole, nothing on disk changes.
        target = root / "src" / "other.py"
        edit = {
            "changes": {
                (root / "src" / "app.py").as_uri(): [
                    {
                        "range": {
                            "start": {"line": 0, "character": 0},
                            "end": {"line": 0, "character": 0},
                        },
                        "newText": "# hi\n",
                    }
                ]
            },
            "documentChanges": [{"kind": "create", "uri": target.as_uri()}],
        }
        result = await editor.request("planMode/applyEdit", {"edit": edit})
        assert result["applied"] is False
        assert result["failureReason"].startswith("Not in the approved plan: src/other.py.")
        assert not target.exists()
        assert (root / "src" / "app.py").read_text() == "print('hello')\n"
        assert editor.applied_edits == []

        # `changes` beside `documentChanges` is what an editor without documentChanges
        # support applies: a drifting target there refuses the whole edit as well.
        extra = root / "src" / "extra.py"
        extra.write_text("x = 1\n")
        insert = {
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "newText": "# hi\n",
        }
        edit = {
            "documentChanges": [
                {
                    "textDocument": {"uri": (root / "src" / "app.py").as_uri(), "version": None},
                    "edits": [insert],
                }
            ],
            "changes": {extra.as_uri(): [insert]},
        }
        result = await editor.request("planMode/applyEdit", {"edit": edit})
        assert result["applied"] is False
        assert result["failureReason"].startswith("Not in the approved plan: src/extra.py.")
        assert extra.read_text() == "x = 1\n"
        assert editor.applied_edits == []


async def test_apply_edit_counts_as_a_write(editor: Editor, root: Path) -> None:
    await approve_plan(editor)
    app = (root / "src" / "app.py").as_uri()
    edit = {
        "changes": {
            app: [
                {
                    "range": {
                        "start": {"line": 0, "character": 0},
                        "end": {"line": 0, "character": 0},
                    },
                    "newText": "# hi\n",
                }
            ]
        }
    }
    result = await editor.request("planMode/applyEdit", {"edit": edit})
    assert result["applied"] is True
    progress = await editor.request("planMode/getProgress", {})
    assert statuses(progress)[0] == ("inProgress", "edit")


async def test_inlay_hints_code_lens_and_code_actions_on_the_plan(editor: Editor) -> None:
    path = await approve_plan(editor)
    editor.open(path, PLAN)
    await editor.request("planMode/setStepStatus", {"index": 0, "status": "done"})
    await check(editor, "TodoWrite", {"todos": [{"content": "2.", "status": "in_progress"}]})
    assert editor.server_capabilities is not None
    assert editor.server_capabilities.inlay_hint_provider is not None

    hints = await editor.client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=20, character=0)
            ),
        )
    )
    lines = PLAN.split("\n")
    shown = {(h.position.line, h.position.character, h.label) for h in hints or []}
    assert shown == {
        (3, len(lines[3]), "✓ done"),
        (4, len(lines[4]), "◐ in progress"),
        (5, len(lines[5]), "○ pending"),
    }

    (lens,) = [le for le in await editor.lenses(path) if le.command is not None]
    assert lens.command is not None and lens.command.title == "Plan 1/3 done"
    shown_progress = await editor.run_lens(lens)
    assert shown_progress["done"] == 1
    text = await editor.message_until(lambda m: m.startswith("Plan 1/3"))
    assert "✓ 1. Change the greeting" in text

    actions = await editor.code_actions(path, 5, 5)
    assert [a.title for a in actions] == ["Mark step done", "Mark step in progress"]
    chosen = actions[0]
    assert isinstance(chosen, types.CodeAction) and chosen.command is not None
    await editor.execute(chosen.command.command, list(chosen.command.arguments or []))
    progress = await editor.request("planMode/getProgress", {})
    assert statuses(progress)[2] == ("done", "user")

    # The user edits the plan after approval: the marks follow their lines.
    edited = "Intro line.\n" + PLAN
    editor.change(path, edited)
    hints = await editor.client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=20, character=0)
            ),
        )
    )
    assert sorted(h.position.line for h in hints or []) == [4, 5, 6]


async def test_hint_diagnostics_for_an_editor_without_inlay_hints(root: Path, home: Path) -> None:
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, caps=caps(inlay_hints=False)
    ) as editor:
        path = await approve_plan(editor)
        editor.open(path, PLAN)
        await editor.request("planMode/setStepStatus", {"index": 2, "status": "done"})
        for _ in range(100):
            found = {
                (d.range.start.line, d.message)
                for d in editor.client.diagnostics.get(path.as_uri(), [])
                if d.code == "step" and d.severity == types.DiagnosticSeverity.Hint
            }
            if (5, "✓ step 3: done") in found:
                break
            await asyncio.sleep(0.05)
        assert found == {(3, "○ step 1: pending"), (4, "○ step 2: pending"), (5, "✓ step 3: done")}


async def test_progress_survives_a_restart(root: Path, home: Path) -> None:
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps()) as ed:
        await approve_plan(ed)
        await ed.request("planMode/setStepStatus", {"index": 1, "status": "done"})
        await check(ed, "Write", {"file_path": "src/other.py", "content": "x"})
        before = await ed.request("planMode/getProgress", {})
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps()) as ed:
        after = await ed.request("planMode/getProgress", {})
        assert after == before
        listed = await ed.request("planMode/listProgress", {})
        assert listed == {"progress": [before]}
        # And it goes on from there.
        await check(ed, "TodoWrite", {"todos": [{"content": "1.", "status": "completed"}]})
        assert (await ed.request("planMode/getProgress", {}))["done"] == 2


async def test_planmode_progress_in_a_terminal(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    none = await in_thread(run, ["progress"], "", root)
    assert none.returncode == 1 and none.stdout == ""
    assert "No approved plan" in none.stderr
    missing = await in_thread(run, ["progress", "--session", "main"], "", root)
    assert missing.returncode == 1 and "No approved plan" in missing.stderr

    path = await approve_plan(editor)
    await check(editor, "TodoWrite", {"todos": [{"content": "1.", "status": "completed"}]})
    await check(editor, "Write", {"file_path": "notes.txt", "content": "x"})
    shown = await in_thread(run, ["progress"], "", root)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[:4] == [
        f"Plan 1/3  {path}",
        "  ✓ 1. Change the greeting in `src/app.py`  (todo)",
        "  ○ 2. Add a test in `tests/test_app.py`",
        "  ○ 3. Update the README",
    ]
    assert lines[4] == "Written outside the plan:"
    assert lines[5].startswith("  ! notes.txt (Write, ")
    as_json = await in_thread(run, ["progress", "--session", "main", "--json"], "", root)
    assert json.loads(as_json.stdout) == await editor.request("planMode/getProgress", {})

    # The agent names what it writes: control characters in a path (a terminal's escape
    # sequences: retitle the window, clear the screen) are shown, never sent to the terminal.
    await check(editor, "Write", {"file_path": "\x1b]0;pwned\x07\x1b[2Jx.txt", "content": "x"})
    shown = await in_thread(run, ["progress"], "", root)
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "  ! \\x1b]0;pwned\\x07\\x1b[2Jx.txt (Write, " in shown.stdout


async def test_apply_edit_under_ask_asks_the_user_in_the_editor(root: Path, home: Path) -> None:
    async with running_editor(
        root, home, init_options={"sessionId": "main", "drift": "ask"}, caps=caps()
    ) as editor:
        await approve_plan(editor)

        def create(name: str) -> dict[str, Any]:
            target = (root / name).as_uri()
            return {"edit": {"documentChanges": [{"kind": "create", "uri": target}]}}

        refused = await editor.request("planMode/applyEdit", create("no.txt"))
        assert refused["applied"] is False
        assert refused["failureReason"].startswith("Not in the approved plan: no.txt.")
        assert not (root / "no.txt").exists()
        editor.message_answer = "Apply anyway"
        applied = await editor.request("planMode/applyEdit", create("yes.txt"))
        assert applied["applied"] is True
        assert (root / "yes.txt").exists()
        asked = [
            m.message
            for m in editor.client.messages
            if isinstance(m, types.ShowMessageRequestParams)
            and m.actions
            and m.actions[0].title == "Apply anyway"
        ]
        assert [m.split(".")[0] for m in asked] == [
            "Not in the approved plan: no",
            "Not in the approved plan: yes",
        ]


async def test_planmode_progress_shows_the_plan_approved_last(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    await approve_plan(editor)
    other = "# Other\n\n## Steps\n1. Something else in `src/app.py`\n"
    entered = await editor.request("planMode/enter", {"sessionId": "second"})
    path = Path(entered["state"]["planFilePath"])
    path.write_text(other)
    task = editor.start("planMode/exit", {"sessionId": "second"})
    approval = await editor.wait_for("planMode/approvalRequested", 2)
    await editor.request(
        "planMode/approve",
        {"sessionId": "second", "approvalId": approval["approvalId"], "planSha256": sha(other)},
    )
    await asyncio.wait_for(task, 5)
    shown = await in_thread(run, ["progress"], "", root)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"Plan 0/1  {path}"
    assert lines[-1] == "Older plans still carried out (planmode progress --session ID): main"
    listed = json.loads((await in_thread(run, ["progress", "--json"], "", root)).stdout)
    assert [p["sessionId"] for p in listed["progress"]] == ["main", "second"]


async def test_a_mark_or_allow_offered_for_an_earlier_plan_changes_nothing(
    editor: Editor, root: Path
) -> None:
    path = await approve_plan(editor)
    editor.open(path, PLAN)
    await check(editor, "Write", {"file_path": "notes.txt", "content": "x"})
    offered = {a.title: a for a in await editor.code_actions(path, 5, 5)}
    mark, allow = offered["Mark step done"], offered["Allow notes.txt for this plan"]
    first = await editor.request("planMode/getProgress", {})
    assert mark.command is not None and allow.command is not None
    assert list(mark.command.arguments or []) == [
        {"index": 2, "status": "done", "sessionId": "main", "approvalId": first["approvalId"]}
    ]

    # The agent plans again, and a plan with other steps is approved before the user picks.
    second_plan = PLAN.replace("Update the README", "Remove the old greeting")
    editor.change(path, second_plan)
    await approve_plan(editor, second_plan)
    before = await editor.request("planMode/getProgress", {})
    assert before["approvalId"] != first["approvalId"]
    for command in (mark.command, allow.command):
        with pytest.raises(JsonRpcException) as raised:
            await editor.execute(command.command, list(command.arguments or []))
        assert raised.value.code == -32602 and "'approvalId'" in raised.value.message
    assert await editor.request("planMode/getProgress", {}) == before
    # The request with the approval carried out now is taken.
    marked = await editor.request(
        "planMode/setStepStatus",
        {"index": 2, "status": "done", "approvalId": before["approvalId"]},
    )
    assert statuses(marked)[2] == ("done", "user")


async def test_many_files_outside_the_plan_are_not_a_message_each(editor: Editor) -> None:
    await approve_plan(editor)
    for n in range(12):
        await check(editor, "Write", {"file_path": f"gen/file{n}.py", "content": "x"})
    progress = await editor.request("planMode/getProgress", {})
    assert len(progress["drift"]) == 12  # every one recorded, shown on the plan
    await editor.message_until(lambda m: "more files written outside the plan" in m)
    await editor.settle()
    told = [m for m in editor.messages() if m.startswith("Not in the approved plan:")]
    assert len(told) == 5, told
    assert len([m for m in editor.messages() if "more files written outside" in m]) == 1


async def test_many_files_outside_the_plan_are_a_bounded_number_of_diagnostics(
    editor: Editor,
) -> None:
    path = await approve_plan(editor)
    editor.open(path, PLAN)
    for n in range(30):
        await check(editor, "Write", {"file_path": f"gen/file{n}.py", "content": "x"})

    def drift_marks() -> list[types.Diagnostic]:
        found = editor.client.diagnostics.get(path.as_uri(), [])
        return [d for d in found if d.code == "drift"]

    await editor.until(lambda: any("10 more files" in d.message for d in drift_marks()))
    marks = drift_marks()
    assert len(marks) == 21
    assert [m.message.split(" (")[0] for m in marks[:2]] == [
        "Not in the approved plan: gen/file0.py",
        "Not in the approved plan: gen/file1.py",
    ]
    assert marks[-1].message.startswith("And 10 more files written outside the plan")
    allow = [a.title for a in await editor.code_actions(path, 0, 0) if "Allow" in a.title]
    assert len(allow) == 20 and allow[0] == "Allow gen/file0.py for this plan"
