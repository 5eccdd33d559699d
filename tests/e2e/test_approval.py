"""ExitPlanMode end to end: the exit waits, the user approves or rejects, the agent is told."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.harness import Editor
from tests.e2e.review import begin_exit, enter

EXIT = "planMode/exit"
REQUESTED = "planMode/approvalRequested"
RESOLVED = "planMode/approvalResolved"
NOT_IN_PLAN_MODE = (
    "You are not in plan mode. This tool is only for exiting plan mode after writing a plan. "
    "If your plan was already approved, continue with implementation."
)
PLAN = "# Plan\n\n1. Read src/app.py\n2. Change the greeting\n"
EXIT_RESULT_KEYS = {
    "outcome",
    "plan",
    "filePath",
    "isAgent",
    "planWasEdited",
    "userEditsDiff",
    "restoredMode",
    "grantedPrompts",
    "feedback",
    "requestId",
    "remark",
    "comments",
    "notes",
    "chosenMode",
    "toolResult",
}


def approved_text(path: Path, plan: str, edited: bool = False) -> str:
    heading = "## Approved Plan (edited by user):" if edited else "## Approved Plan:"
    return (
        "User has approved your plan. You can now start coding. Start with updating your todo "
        "list if applicable\n"
        "\n"
        f"Your plan has been saved to: {path}\n"
        "You can refer back to it if needed during implementation.\n"
        "\n"
        f"{heading}\n"
        f"{plan}"
    )


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def still_pending(editor: Editor, task: asyncio.Task[Any]) -> None:
    await editor.settle()
    await asyncio.sleep(0.1)
    assert not task.done(), task.result() if not task.exception() else task.exception()


async def resolved(editor: Editor, approval_id: str) -> dict[str, Any]:
    def found() -> bool:
        return any(n["approvalId"] == approval_id for n in editor.notes[RESOLVED])

    await editor.until(found, 5)
    return next(n for n in editor.notes[RESOLVED] if n["approvalId"] == approval_id)


async def test_exit_outside_plan_mode_is_refused_with_the_exact_message(
    editor: Editor, root: Path
) -> None:
    error = await editor.error(EXIT, {"plan": PLAN})
    assert error.code == -32001
    assert error.message.startswith(NOT_IN_PLAN_MODE)
    state = await editor.state()
    assert state["mode"] == "default"
    assert state["pendingApproval"] is None
    assert not Path(state["planFilePath"]).exists()
    assert editor.notes[REQUESTED] == []


async def test_exit_waits_and_asks_the_user_then_approve_restores_mode(
    editor: Editor, root: Path
) -> None:
    plan_path = await enter(editor)
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(PLAN)
    refreshes = editor.lens_refreshes

    task, approval = await begin_exit(editor)
    assert set(approval) >= {
        "approvalId",
        "sessionId",
        "planFilePath",
        "submittedPlan",
        "allowedPrompts",
        "requestedAt",
    }
    assert approval["sessionId"] == "main"
    assert approval["planFilePath"] == str(plan_path)
    assert approval["submittedPlan"] == PLAN
    assert approval["allowedPrompts"] == []
    assert approval.get("agentId") is None
    datetime.fromisoformat(approval["requestedAt"].replace("Z", "+00:00"))

    # The plan is brought up in the editor, focused.
    await editor.until(lambda: editor.client.shown_documents)
    shown = editor.client.shown_documents[-1]
    assert shown.uri == plan_path.as_uri()
    assert shown.take_focus is True
    await editor.until(lambda: editor.lens_refreshes > refreshes)

    await still_pending(editor, task)
    state = await editor.state()
    assert state["mode"] == "plan"
    assert state["pendingApproval"]["approvalId"] == approval["approvalId"]

    assert await editor.request("planMode/approve", {"approvalId": approval["approvalId"]}) == {
        "ok": True
    }
    result = await asyncio.wait_for(task, 5)
    assert set(result) == EXIT_RESULT_KEYS
    assert result["outcome"] == "approved"
    assert result["plan"] == PLAN
    assert result["filePath"] == str(plan_path)
    assert result["isAgent"] is False
    assert result["planWasEdited"] is False
    assert result["userEditsDiff"] is None
    assert result["restoredMode"] == "default"
    assert result["grantedPrompts"] == []
    assert result["feedback"] is None
    assert result["requestId"] is None
    assert result["toolResult"] == approved_text(plan_path, PLAN)

    note = await resolved(editor, approval["approvalId"])
    assert note["outcome"] == "approved"
    assert note["restoredMode"] == "default"
    state = await editor.state()
    assert state["mode"] == "default"
    assert state["prePlanMode"] is None
    assert state["hasExitedPlanMode"] is True
    assert state["needsPlanModeExitAttachment"] is True
    assert state["pendingApproval"] is None
    assert plan_path.read_text() == PLAN


async def test_plan_given_to_exit_is_written_first_and_counts_as_edited(
    editor: Editor, root: Path
) -> None:
    plan_path = await enter(editor)
    task, approval = await begin_exit(editor, plan=PLAN)
    assert plan_path.read_text() == PLAN
    assert approval["submittedPlan"] == PLAN
    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    result = await asyncio.wait_for(task, 5)
    assert result["planWasEdited"] is True
    assert result["toolResult"] == approved_text(plan_path, PLAN, edited=True)


async def test_approve_with_accept_edits_restores_that_mode(editor: Editor, root: Path) -> None:
    await enter(editor)
    task, approval = await begin_exit(editor, plan=PLAN)
    await editor.request(
        "planMode/approve", {"approvalId": approval["approvalId"], "mode": "acceptEdits"}
    )
    result = await asyncio.wait_for(task, 5)
    assert result["restoredMode"] == "acceptEdits"
    assert (await resolved(editor, approval["approvalId"]))["restoredMode"] == "acceptEdits"
    assert (await editor.state())["mode"] == "acceptEdits"


async def test_user_edit_in_the_buffer_is_what_gets_approved(editor: Editor, root: Path) -> None:
    plan_path = await enter(editor)
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(PLAN)
    task, approval = await begin_exit(editor)
    edited = PLAN.replace("2. Change the greeting\n", "2. Change the greeting to 'hi'\n3. Test\n")
    editor.open(plan_path)
    editor.change(plan_path, edited)
    # Unsaved: the file on disk still holds the submitted plan.
    assert plan_path.read_text() == PLAN

    await editor.request(
        "planMode/approve", {"approvalId": approval["approvalId"], "planSha256": sha(edited)}
    )
    result = await asyncio.wait_for(task, 5)
    assert result["planWasEdited"] is True
    assert result["plan"] == edited
    assert result["toolResult"] == approved_text(plan_path, edited, edited=True)
    diff = result["userEditsDiff"]
    assert diff is not None
    assert diff.startswith("--- ")
    assert "\n+++ " in diff
    assert "\n@@ " in diff
    assert "\n-2. Change the greeting\n" in diff
    assert "\n+2. Change the greeting to 'hi'\n" in diff
    assert "\n+3. Test\n" in diff
    # The approved text is what the plan file now holds.
    assert plan_path.read_text() == edited


UNSAVED = "Its buffer still has unsaved changes"


async def test_approving_over_unsaved_changes_says_how_to_leave_the_buffer_clean(
    editor: Editor,
) -> None:
    """No LSP request saves or reverts a buffer: an editor keeps the buffer the plan was
    approved from marked modified (eglot: and its file changed on disk), so the user is told.
    Before: nothing was said."""
    plan_path = await enter(editor)
    task, approval = await begin_exit(editor, plan=PLAN)
    editor.open(plan_path)
    edited = PLAN + "3. Tell the team\n"
    editor.change(plan_path, edited)
    await editor.request(
        "planMode/approve", {"approvalId": approval["approvalId"], "planSha256": sha(edited)}
    )
    assert (await asyncio.wait_for(task, 5))["plan"] == edited
    (told,) = [m for m in editor.client.messages if UNSAVED in m.message]
    assert told.type == types.MessageType.Info
    assert told.message.startswith(f"Plan approved: {plan_path.relative_to(editor.root)} holds")
    assert "revert the buffer to the file" in told.message and "M-x revert-buffer" in told.message

    # Saved before the approval: the buffer is clean, nothing to say.
    await editor.request("planMode/enter")
    task, approval = await begin_exit(editor, plan=PLAN)
    await editor.until(lambda: editor.buffers[plan_path] == PLAN)
    plan_path.write_text(edited)
    editor.change(plan_path, edited)
    editor.save(plan_path)
    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 5)
    await editor.settle()
    assert len([m for m in editor.client.messages if UNSAVED in m.message]) == 1


async def test_exit_without_a_plan_file_asks_and_approves_the_empty_plan(
    editor: Editor, root: Path
) -> None:
    plan_path = await enter(editor)
    editor.message_answer = "Approve"
    result = await asyncio.wait_for(editor.request(EXIT, {}), 5)
    assert result["outcome"] == "approved"
    assert result["toolResult"] == "User has approved exiting plan mode. You can now proceed."
    assert result["plan"] is None
    assert any("Exit plan mode?" in m for m in editor.messages())
    assert (await editor.state())["mode"] == "default"
    assert not plan_path.exists() or plan_path.read_text() == ""


async def test_a_plan_written_while_the_no_plan_question_is_open_is_not_approved_by_it(
    editor: Editor, root: Path
) -> None:
    """The question showed no plan: its Approve is bound to that. A plan the agent writes
    meanwhile is not approved by it (refused as changed since shown); it is shown for review."""
    plan_path = await enter(editor)
    editor.message_answer = "Approve"
    editor.message_gate = asyncio.Event()
    task = editor.start(EXIT, {})
    await editor.until(lambda: any(m.startswith("Exit plan mode?") for m in editor.messages()))
    # The agent writes its plan (a checkTool-allowed Write) while the user reads the question.
    await editor.request(
        "planMode/checkTool",
        {"tool": "Write", "input": {"file_path": str(plan_path), "content": PLAN}},
    )
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(PLAN)
    editor.message_gate.set()
    warning = await editor.message_until(lambda m: m.startswith("Not approved"))
    assert "the agent wrote its plan" in warning
    await editor.until(
        lambda: any(d.uri == plan_path.as_uri() for d in editor.client.shown_documents)
    )
    await still_pending(editor, task)
    state = await editor.state()
    assert state["mode"] == "plan" and state["pendingApproval"] is not None
    assert RESOLVED not in editor.notes or editor.notes[RESOLVED] == []
    assert plan_path.read_text() == PLAN
    # Shown now, with its lenses: approving it approves what the user sees.
    editor.open(plan_path)
    approve = (await editor.lenses(plan_path))[0]
    await editor.run_lens(approve)
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "approved" and result["plan"] == PLAN


async def test_exit_without_a_plan_file_can_be_rejected_from_the_message(
    editor: Editor, root: Path
) -> None:
    await enter(editor)
    editor.message_answer = "Reject"
    result = await asyncio.wait_for(editor.request(EXIT, {}), 5)
    assert result["outcome"] == "rejected"
    assert (await editor.state())["mode"] == "plan"


async def test_subagent_plan_approval_gets_the_agent_text(editor: Editor, root: Path) -> None:
    plan_path = await enter(editor)
    task, approval = await begin_exit(editor, agentId="explorer1", plan=PLAN)
    agent_path = Path(approval["planFilePath"])
    assert agent_path.name == f"{plan_path.stem}-agent-explorer1.md"
    assert agent_path.read_text() == PLAN
    assert approval["agentId"] == "explorer1"
    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "approved"
    assert result["isAgent"] is True
    assert result["filePath"] == str(agent_path)
    assert result["toolResult"] == (
        "User has approved the plan. There is nothing else needed from you now. "
        'Please respond with "ok"'
    )


async def test_unknown_or_decided_approvals_cannot_be_decided(editor: Editor, root: Path) -> None:
    await enter(editor)
    for method in ("planMode/approve", "planMode/reject"):
        error = await editor.error(method, {"approvalId": "no-such-approval"})
        assert error.code == -32005
        assert error.message.startswith("No pending approval")

    task, approval = await begin_exit(editor, plan=PLAN)
    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 5)
    for method in ("planMode/approve", "planMode/reject"):
        error = await editor.error(method, {"approvalId": approval["approvalId"]})
        assert error.code == -32005
        assert error.message.startswith("No pending approval")
    assert (await editor.state())["mode"] == "default"
    assert [n["outcome"] for n in editor.notes[RESOLVED]] == ["approved"]


async def test_approve_naming_an_unknown_session_fails_and_creates_nothing(
    editor: Editor, root: Path
) -> None:
    await enter(editor)
    task, approval = await begin_exit(editor, plan=PLAN)
    sessions = root / ".claude" / "plan-mode" / "sessions"
    error = await editor.error(
        "planMode/approve", {"approvalId": approval["approvalId"], "sessionId": "ghost"}
    )
    assert error.code == -32005
    assert not (sessions / "ghost.json").exists()
    assert all("ghost" not in p.name for p in sessions.glob("*"))
    # The real approval is untouched.
    await still_pending(editor, task)
    state = await editor.state()
    assert state["pendingApproval"]["approvalId"] == approval["approvalId"]
    await editor.request("planMode/reject", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 5)


async def test_reject_keeps_plan_mode_and_a_new_exit_works(editor: Editor, root: Path) -> None:
    plan_path = await enter(editor)
    task, approval = await begin_exit(editor, plan=PLAN)
    feedback = "Also update the README."
    assert await editor.request(
        "planMode/reject", {"approvalId": approval["approvalId"], "feedback": feedback}
    ) == {"ok": True}
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "rejected"
    assert result["toolResult"].startswith("User rejected the plan. Keep planning")
    assert feedback in result["toolResult"]
    assert result["feedback"] == feedback
    assert result["restoredMode"] is None
    assert (await resolved(editor, approval["approvalId"]))["outcome"] == "rejected"
    state = await editor.state()
    assert state["mode"] == "plan"
    assert state["pendingApproval"] is None
    assert state["hasExitedPlanMode"] is False
    assert plan_path.read_text() == PLAN

    revised = PLAN + "3. Update the README\n"
    task2, approval2 = await begin_exit(editor, plan=revised)
    assert approval2["approvalId"] != approval["approvalId"]
    await editor.request("planMode/approve", {"approvalId": approval2["approvalId"]})
    result2 = await asyncio.wait_for(task2, 5)
    assert result2["outcome"] == "approved"
    assert result2["plan"] == revised
    assert (await editor.state())["mode"] == "default"


async def test_a_second_exit_answers_the_first_as_rejected(editor: Editor, root: Path) -> None:
    await enter(editor)
    first, approval1 = await begin_exit(editor, plan=PLAN)
    second, approval2 = await begin_exit(editor, plan=PLAN + "3. More\n")
    result1 = await asyncio.wait_for(first, 5)
    assert result1["outcome"] == "rejected"
    assert result1["toolResult"].startswith("User rejected the plan. Keep planning")
    assert (await resolved(editor, approval1["approvalId"]))["outcome"] == "rejected"
    await still_pending(editor, second)
    state = await editor.state()
    assert state["pendingApproval"]["approvalId"] == approval2["approvalId"]
    error = await editor.error("planMode/approve", {"approvalId": approval1["approvalId"]})
    assert error.code == -32005
    await editor.request("planMode/approve", {"approvalId": approval2["approvalId"]})
    assert (await asyncio.wait_for(second, 5))["outcome"] == "approved"


async def test_cancelling_a_pending_exit_keeps_plan_mode(editor: Editor, root: Path) -> None:
    plan_path = await enter(editor)
    seen = len(editor.notes[REQUESTED])
    protocol = editor.client.protocol
    future = asyncio.ensure_future(
        protocol.send_request_async(EXIT, {"plan": PLAN}, msg_id="exit-to-cancel")
    )
    approval = await editor.wait_for(REQUESTED, seen + 1)
    assert len(await editor.lenses(plan_path)) == 4
    refreshes = editor.lens_refreshes
    protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="exit-to-cancel"))
    with pytest.raises(JsonRpcException):
        await asyncio.wait_for(future, 5)
    note = await resolved(editor, approval["approvalId"])
    assert note["outcome"] == "cancelled"
    state = await editor.state()
    assert state["mode"] == "plan"
    assert state["pendingApproval"] is None
    await editor.until(lambda: editor.lens_refreshes > refreshes, 5)
    assert await editor.lenses(plan_path) == []
    error = await editor.error("planMode/approve", {"approvalId": approval["approvalId"]})
    assert error.code == -32005
    assert (await editor.state())["mode"] == "plan"


async def test_allowed_prompts_are_granted_on_approval_and_revoked_on_reentry(
    editor: Editor, root: Path
) -> None:
    await enter(editor)
    prompts = [{"tool": "Bash", "prompt": "run tests"}]
    task, approval = await begin_exit(editor, plan=PLAN, allowedPrompts=prompts)
    assert approval["allowedPrompts"] == prompts
    assert (await editor.state())["grantedPrompts"] == []
    # The approver names the prompts it showed (as the lenses do): those are granted.
    await editor.request(
        "planMode/approve", {"approvalId": approval["approvalId"], "allowedPrompts": prompts}
    )
    result = await asyncio.wait_for(task, 5)
    assert result["grantedPrompts"] == prompts
    assert (await editor.state())["grantedPrompts"] == prompts
    await enter(editor)
    assert (await editor.state())["grantedPrompts"] == []


async def bash(editor: Editor, command: str) -> str:
    answer = await editor.request(
        "planMode/checkTool", {"tool": "Bash", "input": {"command": command}}
    )
    return str(answer["behavior"])


async def test_an_approval_that_did_not_show_the_grants_grants_nothing(editor: Editor) -> None:
    """A decision that names no allowed prompts (a bare request, an old client) approves the
    plan alone: what it was never shown is not granted."""
    await enter(editor)
    prompts = [{"tool": "Bash", "prompt": "python3 *"}]
    task, approval = await begin_exit(editor, plan=PLAN, allowedPrompts=prompts)
    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "approved"
    assert result["grantedPrompts"] == []
    state = await editor.state()
    assert state["mode"] == "default" and state["grantedPrompts"] == []
    assert await bash(editor, "python3 -c 'import os'") == "ask"
    # Naming a prompt the plan never asked for grants nothing either.
    await enter(editor)
    task, approval = await begin_exit(editor, plan=PLAN, allowedPrompts=prompts)
    sneaked = [{"tool": "Bash", "prompt": "rm *"}]
    await editor.request(
        "planMode/approve", {"approvalId": approval["approvalId"], "allowedPrompts": sneaked}
    )
    assert (await asyncio.wait_for(task, 5))["grantedPrompts"] == []
    assert await bash(editor, "rm build") == "ask"


async def test_the_no_plan_question_shows_the_grants_it_approves(editor: Editor) -> None:
    """An exit without a plan asks ``Exit plan mode?``: the question states each rule it
    grants, and approving it grants exactly those."""
    await enter(editor)
    editor.message_answer = "Approve"
    prompts = [{"tool": "Bash", "prompt": "python3 *"}]
    result = await asyncio.wait_for(editor.request(EXIT, {"allowedPrompts": prompts}), 5)
    (question,) = [m for m in editor.messages() if m.startswith("Exit plan mode?")]
    assert question == (
        "Exit plan mode? The agent wrote no plan. Approving also allows these commands without "
        "asking: Bash “python3 *”: `python3` followed by any plain words."
    )
    assert result["outcome"] == "approved"
    assert result["grantedPrompts"] == prompts
    assert await bash(editor, "python3 -c 'import os'") == "allow"


async def test_allowed_prompts_are_shown_with_their_rules_before_they_are_granted(
    editor: Editor, root: Path
) -> None:
    plan_path = await enter(editor)
    prompts = [
        {"tool": "Bash", "prompt": "run tests"},
        {"tool": "Bash", "prompt": "npm run dev"},
        {"tool": "Bash", "prompt": "deploy; rm -rf /"},
    ]
    task, approval = await begin_exit(editor, plan=PLAN, allowedPrompts=prompts)
    rules = [g["rule"] for g in approval["grants"]]
    assert [{"tool": g["tool"], "prompt": g["prompt"]} for g in approval["grants"]] == prompts
    assert rules[0].startswith("Bash “run tests” (category test): `pytest`, ")
    assert rules[1] == "Bash “npm run dev”: exactly `npm run dev`"
    assert rules[2].startswith("Bash “deploy; rm -rf /”: allows nothing")
    assert (await editor.state())["pendingApproval"]["grants"] == approval["grants"]
    editor.open(plan_path)
    approve, accept_edits, reject, save = await editor.lenses(plan_path)
    # Saving grants nothing: its title says nothing of the commands.
    assert save.command and save.command.title == "Save for later"
    shown = " and allow “run tests” (test commands); `npm run dev`; “deploy; rm -rf /” (nothing)"
    assert approve.command and approve.command.title == "Approve plan" + shown
    assert accept_edits.command
    assert accept_edits.command.title == "Approve & auto-accept edits and allow the same"
    for lens in (approve, accept_edits):
        assert lens.command and lens.command.tooltip == (
            "Approving also allows these commands without asking:\n"
            + "\n".join(f"• {rule}" for rule in rules)
        )
    assert reject.command and reject.command.tooltip is None
    # The lenses name what they showed: that is what approving them grants.
    for lens in (approve, accept_edits):
        assert lens.command and lens.command.arguments
        assert lens.command.arguments[0]["allowedPrompts"] == prompts
    # Granted as shown: the exact rule, not a prefix.
    await editor.run_lens(approve)
    await asyncio.wait_for(task, 5)
    for command, behavior in [
        ("pytest -q", "allow"),
        ("npm run dev", "allow"),
        ("npm run dev --host 0.0.0.0", "ask"),
        ("deploy", "ask"),
    ]:
        got = await editor.request(
            "planMode/checkTool", {"tool": "Bash", "input": {"command": command}}
        )
        assert got["behavior"] == behavior, (command, got)


async def test_rejected_plan_grants_nothing(editor: Editor, root: Path) -> None:
    await enter(editor)
    prompts = [{"tool": "Bash", "prompt": "run tests"}]
    task, approval = await begin_exit(editor, plan=PLAN, allowedPrompts=prompts)
    await editor.request("planMode/reject", {"approvalId": approval["approvalId"]})
    result = await asyncio.wait_for(task, 5)
    assert result["grantedPrompts"] == []
    assert (await editor.state())["grantedPrompts"] == []


WRONG_PARAMS: list[tuple[str, dict[str, Any], str]] = [
    ("planMode/approve", {"approvalId": None}, "approvalId"),
    ("planMode/approve", {"approvalId": 7}, "approvalId"),
    ("planMode/approve", {"planSha256": "abc"}, "planSha256"),
    ("planMode/approve", {"planSha256": 12}, "planSha256"),
    ("planMode/approve", {"mode": "plan"}, "mode"),
    ("planMode/approve", {"mode": "yolo"}, "mode"),
    ("planMode/reject", {"approvalId": None}, "approvalId"),
    ("planMode/reject", {"feedback": ["no"]}, "feedback"),
]


async def test_wrong_params_are_refused_and_change_nothing(editor: Editor, root: Path) -> None:
    plan_path = await enter(editor)
    task, approval = await begin_exit(editor, plan=PLAN)
    for method, params, field in WRONG_PARAMS:
        full = {"approvalId": approval["approvalId"], **params}
        if full["approvalId"] is None:
            del full["approvalId"]  # missing altogether
        error = await editor.error(method, full)
        assert error.code == -32602, (method, params)
        assert field in error.message, (method, params, error.message)
    await still_pending(editor, task)
    state = await editor.state()
    assert state["mode"] == "plan"
    assert state["pendingApproval"]["approvalId"] == approval["approvalId"]
    assert editor.notes[RESOLVED] == []
    assert plan_path.read_text() == PLAN
    await editor.request("planMode/reject", {"approvalId": approval["approvalId"]})
    await asyncio.wait_for(task, 5)


async def test_exit_with_wrong_allowed_prompts_is_refused(editor: Editor, root: Path) -> None:
    await enter(editor)
    error = await editor.error(
        EXIT, {"plan": PLAN, "allowedPrompts": [{"tool": "Write", "prompt": "anything"}]}
    )
    assert error.code == -32602
    assert "allowedPrompts" in error.message
    state = await editor.state()
    assert state["mode"] == "plan"
    assert state["pendingApproval"] is None
    assert not Path(state["planFilePath"]).exists()


async def test_leaving_plan_mode_by_hand_answers_the_waiting_exit(
    editor: Editor, root: Path
) -> None:
    plan_path = await enter(editor)
    task, approval = await begin_exit(editor, plan=PLAN)
    assert len(await editor.lenses(plan_path)) == 4
    refreshes = editor.lens_refreshes
    state = await editor.request("planMode/setMode", {"mode": "default"})
    assert state["mode"] == "default"
    assert state["pendingApproval"] is None
    result = await asyncio.wait_for(task, 5)
    assert result["outcome"] == "rejected"
    # The agent is told the truth: it is out of plan mode, not to keep planning.
    assert result["toolResult"].startswith("The user left plan mode (now default)")
    assert (await resolved(editor, approval["approvalId"]))["outcome"] == "rejected"
    # The editor is told the lenses are gone.
    await editor.until(lambda: editor.lens_refreshes > refreshes, 5)
    assert await editor.lenses(plan_path) == []


async def test_exit_with_plan_updates_an_open_stale_buffer(editor: Editor) -> None:
    """An agent's new plan is never undone by older text open in the editor: the file gets
    it, and the unmodified buffer the editor did not reload gets it as an edit
    (lsp/features/buffers.py), so the buffer holds the file's text without a reload."""
    entered = await editor.request("planMode/enter")
    plan_path = Path(entered["state"]["planFilePath"])
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text("# Old plan\n")
    editor.open(plan_path)
    new_plan = "# New plan\n\n1. the agent's revision\n"
    pending = editor.start("planMode/exit", {"plan": new_plan})
    await editor.wait_for("planMode/approvalRequested")
    assert plan_path.read_text() == new_plan == editor.buffers[plan_path]
    assert len(editor.applied_edits) == 1
    lenses = await editor.lenses(plan_path)
    assert lenses[0].command is not None
    assert lenses[0].command.title == "Approve plan"
    await editor.run_lens(lenses[0])
    result = await asyncio.wait_for(pending, 10)
    assert result["plan"] == new_plan
    assert result["userEditsDiff"] is None
    assert plan_path.read_text() == new_plan
