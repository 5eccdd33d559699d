"""Session state over the wire: getState, setMode, enter, /plan, sessions (docs/protocol.md
§1–§4)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import Editor, capabilities, running_editor

STATE_FIELDS = {
    "sessionId",
    "mode",
    "prePlanMode",
    "planSlug",
    "planFilePath",
    "planExists",
    "hasExitedPlanMode",
    "needsPlanModeExitAttachment",
    "autoModeActive",
    "pendingApproval",
}
NON_PLAN_MODES = ("default", "acceptEdits", "auto", "bypassPermissions")

ENTERED = (
    "Entered plan mode. You should now focus on exploring the codebase and designing an "
    "implementation approach."
)
ENTER_STANDARD = (
    ENTERED + "\n\n"
    "In plan mode, you should:\n"
    "1. Thoroughly explore the codebase to understand existing patterns\n"
    "2. Identify similar features and architectural approaches\n"
    "3. Consider multiple approaches and their trade-offs\n"
    "4. Use AskUserQuestion if you need to clarify the approach\n"
    "5. Design a concrete implementation strategy\n"
    "6. When ready, use ExitPlanMode to present your plan for approval\n"
    "\n"
    "Remember: DO NOT write or edit any files yet. This is a read-only exploration and "
    "planning phase."
)
ENTER_INTERVIEW = (
    ENTERED + "\n\n"
    "DO NOT write or edit any files except the plan file. Detailed workflow instructions will "
    "follow."
)
INVALID_PARAMS = -32602


async def plan_with_content(editor: Editor, text: str) -> Path:
    """Enter plan mode and write the plan file (as the agent would)."""
    entered = await editor.request("planMode/enter")
    path = Path(entered["state"]["planFilePath"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- getState ---------------------------------------------------------------------------


async def test_get_state_has_every_field_with_fresh_values(editor: Editor, root: Path) -> None:
    state = await editor.state()
    assert set(state) >= STATE_FIELDS, STATE_FIELDS - set(state)
    assert state["sessionId"] == "main"
    assert state["mode"] == "default"
    assert state["prePlanMode"] is None
    assert re.fullmatch(r"[a-z]+(-[a-z]+)+", state["planSlug"]), state["planSlug"]
    assert state["planFilePath"] == str(root / ".claude" / "plans" / f"{state['planSlug']}.md")
    assert state["planExists"] is False
    assert state["hasExitedPlanMode"] is False
    assert state["needsPlanModeExitAttachment"] is False
    assert state["autoModeActive"] is False
    assert state["pendingApproval"] is None
    # The slug is generated once and stays.
    again = await editor.state()
    assert again["planSlug"] == state["planSlug"]
    assert again["planFilePath"] == state["planFilePath"]


async def test_plan_exists_follows_the_plan_file(editor: Editor) -> None:
    path = await plan_with_content(editor, "# Plan\n")
    assert (await editor.state())["planExists"] is True
    path.unlink()
    assert (await editor.state())["planExists"] is False


# -- setMode ----------------------------------------------------------------------------


async def test_set_mode_to_each_mode_and_into_and_out_of_plan(editor: Editor) -> None:
    for mode in NON_PLAN_MODES:
        state = await editor.request("planMode/setMode", {"mode": mode})
        assert state["mode"] == mode
        assert state["prePlanMode"] is None
        assert (await editor.state())["mode"] == mode

        entered = await editor.request("planMode/setMode", {"mode": "plan"})
        assert entered["mode"] == "plan"
        assert entered["prePlanMode"] == mode, f"entering plan from {mode}"
        assert entered["needsPlanModeExitAttachment"] is False

        # Leaving plan mode with the user's own switch: no approval is asked for.
        left = await editor.request("planMode/setMode", {"mode": mode})
        assert left["mode"] == mode
        assert left["prePlanMode"] is None
        assert left["hasExitedPlanMode"] is True
        assert left["needsPlanModeExitAttachment"] is True
        assert left["pendingApproval"] is None
    assert editor.notes["planMode/approvalRequested"] == []


async def test_set_mode_out_of_plan_goes_to_the_chosen_mode(editor: Editor) -> None:
    await editor.request("planMode/setMode", {"mode": "acceptEdits"})
    await editor.request("planMode/setMode", {"mode": "plan"})
    left = await editor.request("planMode/setMode", {"mode": "bypassPermissions"})
    assert left["mode"] == "bypassPermissions"
    assert left["prePlanMode"] is None


async def test_set_mode_out_of_plan_answers_a_waiting_exit(editor: Editor) -> None:
    await editor.request("planMode/setMode", {"mode": "acceptEdits"})
    await editor.request("planMode/enter")
    pending = editor.start("planMode/exit", {"plan": "# Plan\n"})
    requested = await editor.wait_for("planMode/approvalRequested")
    assert (await editor.state())["pendingApproval"]["approvalId"] == requested["approvalId"]
    left = await editor.request("planMode/setMode", {"mode": "acceptEdits"})
    assert left["mode"] == "acceptEdits"
    assert left["pendingApproval"] is None
    # The agent's waiting ExitPlanMode call is not left hanging.
    result = await asyncio.wait_for(pending, 10)
    assert result["outcome"] == "rejected"
    resolved = await editor.wait_for("planMode/approvalResolved")
    assert resolved["approvalId"] == requested["approvalId"]
    error = await editor.error("planMode/approve", {"approvalId": requested["approvalId"]})
    assert error.code == -32005
    assert (await editor.state())["mode"] == "acceptEdits"


async def test_set_mode_plan_twice_keeps_the_first_pre_plan_mode(editor: Editor) -> None:
    await editor.request("planMode/setMode", {"mode": "acceptEdits"})
    await editor.request("planMode/setMode", {"mode": "plan"})
    again = await editor.request("planMode/setMode", {"mode": "plan"})
    assert again["mode"] == "plan"
    assert again["prePlanMode"] == "acceptEdits"


BAD_SET_MODE_PARAMS: list[tuple[dict[str, Any], str]] = [
    ({"mode": "fly"}, "mode"),
    ({}, "mode"),
    ({"mode": 3}, "mode"),
    ({"mode": None}, "mode"),
    ({"mode": "PLAN"}, "mode"),
    ({"mode": "plan", "sessionId": 7}, "sessionId"),
]


async def test_set_mode_bad_params_are_invalid_and_change_nothing(editor: Editor) -> None:
    await editor.request("planMode/setMode", {"mode": "acceptEdits"})
    before = await editor.state()
    for params, field in BAD_SET_MODE_PARAMS:
        error = await editor.error("planMode/setMode", params)
        assert error.code == INVALID_PARAMS, params
        assert field in error.message, (params, error.message)
        assert await editor.state() == before, params


async def test_set_mode_params_not_an_object_is_invalid(editor: Editor) -> None:
    before = await editor.state()
    error = await editor.error("planMode/setMode", ["plan"])  # type: ignore[arg-type]
    assert error.code == INVALID_PARAMS
    assert await editor.state() == before


async def test_set_mode_auto_with_the_gate_off_is_refused(root: Path, home: Path) -> None:
    init = {"sessionId": "main", "autoModeGate": False}
    async with running_editor(root, home, init_options=init) as editor:
        await editor.request("planMode/setMode", {"mode": "acceptEdits"})
        before = await editor.state()
        error = await editor.error("planMode/setMode", {"mode": "auto"})
        assert error.code == INVALID_PARAMS
        assert "auto" in error.message
        assert await editor.state() == before
        # The server keeps working and other modes still switch.
        assert (await editor.request("planMode/setMode", {"mode": "default"}))["mode"] == "default"


# -- enter (the EnterPlanMode tool) -----------------------------------------------------


async def test_enter_returns_the_tool_result_and_records_pre_plan_mode(editor: Editor) -> None:
    await editor.request("planMode/setMode", {"mode": "acceptEdits"})
    entered = await editor.request("planMode/enter", {})
    assert entered["message"] == ENTER_STANDARD
    assert entered["state"]["mode"] == "plan"
    assert entered["state"]["prePlanMode"] == "acceptEdits"
    assert entered["state"] == await editor.state()


async def test_enter_interview_phase_from_settings(root: Path, home: Path) -> None:
    init = {"sessionId": "main", "interviewPhase": True}
    async with running_editor(root, home, init_options=init) as editor:
        entered = await editor.request("planMode/enter")
        assert entered["message"] == ENTER_INTERVIEW
        assert entered["state"]["mode"] == "plan"


async def test_enter_interview_phase_from_env_overrides_settings(root: Path, home: Path) -> None:
    init = {"sessionId": "main", "interviewPhase": False}
    env = {"CLAUDE_CODE_PLAN_MODE_INTERVIEW_PHASE": "1"}
    async with running_editor(root, home, init_options=init, env=env) as editor:
        entered = await editor.request("planMode/enter")
        assert entered["message"] == ENTER_INTERVIEW


async def test_enter_with_agent_id_is_refused(editor: Editor) -> None:
    before = await editor.state()
    error = await editor.error("planMode/enter", {"agentId": "sub-1"})
    assert error.code == -32002
    assert error.message.startswith("EnterPlanMode tool cannot be used in agent contexts")
    assert await editor.state() == before


async def test_enter_with_an_extra_field_is_invalid(editor: Editor) -> None:
    before = await editor.state()
    error = await editor.error("planMode/enter", {"reason": "because"})
    assert error.code == INVALID_PARAMS
    assert "reason" in error.message
    assert await editor.state() == before


async def test_enter_while_channels_are_active_is_refused(root: Path, home: Path) -> None:
    init = {"sessionId": "main", "channelsActive": True}
    async with running_editor(root, home, init_options=init) as editor:
        before = await editor.state()
        error = await editor.error("planMode/enter", {})
        assert error.code == -32003
        assert error.message.startswith("Plan mode is disabled")
        assert await editor.state() == before
        assert before["mode"] == "default"
        # The user's own switch into plan is the same transition, refused the same way.
        error = await editor.error("planMode/setMode", {"mode": "plan"})
        assert error.code == -32003
        assert await editor.state() == before


async def test_enter_notifies_the_editor_of_the_new_state(editor: Editor) -> None:
    await editor.ready()
    count = len(editor.notes["planMode/didChangeState"])
    entered = await editor.request("planMode/enter")
    pushed = await editor.wait_for("planMode/didChangeState", count + 1)
    assert pushed == entered["state"]
    assert pushed["mode"] == "plan"


async def test_a_request_that_changes_nothing_sends_no_state_change(editor: Editor) -> None:
    await editor.ready()
    await editor.request("planMode/enter")
    await editor.settle()
    count = len(editor.notes["planMode/didChangeState"])
    await editor.state()
    await editor.request("planMode/setMode", {"mode": "plan"})
    await editor.settle()
    assert len(editor.notes["planMode/didChangeState"]) == count
    left = await editor.request("planMode/setMode", {"mode": "default"})
    assert (await editor.wait_for("planMode/didChangeState", count + 1)) == left


# -- /plan ------------------------------------------------------------------------------


async def test_slash_plan_enables_plan_mode_without_a_query(editor: Editor) -> None:
    result = await editor.request("planMode/slashCommand", {"args": ""})
    assert result["message"] == "Enabled plan mode"
    assert result["shouldQuery"] is False
    assert result["state"]["mode"] == "plan"
    assert result["state"]["prePlanMode"] == "default"


async def test_slash_plan_with_a_description_queries(editor: Editor) -> None:
    await editor.request("planMode/setMode", {"mode": "acceptEdits"})
    result = await editor.request("planMode/slashCommand", {"args": "  refactor the auth module"})
    assert result["message"] == "Enabled plan mode"
    assert result["shouldQuery"] is True
    assert result["state"]["mode"] == "plan"
    assert result["state"]["prePlanMode"] == "acceptEdits"


async def test_slash_plan_open_outside_plan_mode_only_enters(editor: Editor) -> None:
    result = await editor.request("planMode/slashCommand", {"args": "open"})
    assert result["message"] == "Enabled plan mode"
    assert result["shouldQuery"] is False
    assert result["state"]["mode"] == "plan"
    await editor.settle()
    assert editor.client.shown_documents == []


@pytest.mark.parametrize("args", ["", "open"])
async def test_slash_plan_in_plan_mode_without_a_plan(editor: Editor, args: str) -> None:
    await editor.request("planMode/enter")
    result = await editor.request("planMode/slashCommand", {"args": args})
    assert result["message"] == "Already in plan mode. No plan written yet."
    assert result["shouldQuery"] is False
    assert result["state"]["mode"] == "plan"
    assert editor.client.shown_documents == []


async def test_slash_plan_in_plan_mode_shows_the_plan(editor: Editor) -> None:
    path = await plan_with_content(editor, "# Plan\n\n1. Add the login form\n")
    result = await editor.request("planMode/slashCommand", {"args": ""})
    message = result["message"]
    assert message.startswith("Current Plan")
    assert str(path) in message
    assert "1. Add the login form" in message
    assert '"/plan open" to edit this plan in Test Editor' in message
    assert result["shouldQuery"] is False
    assert result["state"]["mode"] == "plan"


async def test_slash_plan_shows_the_unsaved_editor_buffer(editor: Editor) -> None:
    path = await plan_with_content(editor, "# Plan\n\n1. saved step\n")
    editor.open(path)
    editor.change(path, "# Plan\n\n1. saved step\n2. unsaved step\n")
    result = await editor.request("planMode/slashCommand", {"args": ""})
    assert "2. unsaved step" in result["message"]


async def test_slash_plan_open_shows_the_plan_in_the_editor(editor: Editor) -> None:
    path = await plan_with_content(editor, "# Plan\n")
    result = await editor.request("planMode/slashCommand", {"args": " open "})
    assert result["message"] == f"Opened plan in editor: {path}"
    assert result["shouldQuery"] is False
    shown = editor.client.shown_documents
    assert len(shown) == 1
    assert shown[0].uri == path.as_uri()
    assert result["state"]["mode"] == "plan"


async def test_slash_plan_open_without_show_document_support_fails(root: Path, home: Path) -> None:
    caps = capabilities(show_document=False)
    init = {"sessionId": "main"}
    async with running_editor(root, home, init_options=init, caps=caps) as editor:
        path = await plan_with_content(editor, "# Plan\n")
        result = await editor.request("planMode/slashCommand", {"args": "open"})
        assert result["message"].startswith("Failed to open plan in editor:")
        assert editor.client.shown_documents == []
        assert result["state"]["mode"] == "plan"
        # Without an editor that can open it, the plan view does not offer "/plan open".
        shown = await editor.request("planMode/slashCommand", {"args": ""})
        assert str(path) in shown["message"]
        assert "/plan open" not in shown["message"]


async def test_slash_command_with_bad_args_is_invalid(editor: Editor) -> None:
    before = await editor.state()
    error = await editor.error("planMode/slashCommand", {"args": ["open"]})
    assert error.code == INVALID_PARAMS
    assert "args" in error.message
    assert await editor.state() == before


# -- sessions ---------------------------------------------------------------------------


async def test_an_unknown_session_id_creates_an_independent_session(
    editor: Editor, root: Path
) -> None:
    main = await editor.state()
    other = await editor.state("agent-2")
    assert other["sessionId"] == "agent-2"
    assert other["mode"] == "default"
    assert other["planSlug"] != main["planSlug"]
    assert other["planFilePath"] != main["planFilePath"]

    entered = await editor.request("planMode/enter", {"sessionId": "agent-2"})
    assert entered["state"]["sessionId"] == "agent-2"
    assert entered["state"]["mode"] == "plan"
    assert (await editor.state())["mode"] == "default"
    assert (await editor.state("agent-2"))["mode"] == "plan"

    await editor.request("planMode/setMode", {"mode": "acceptEdits"})
    assert (await editor.state("agent-2"))["prePlanMode"] == "default"
    assert (await editor.state())["mode"] == "acceptEdits"


async def test_an_invalid_session_id_is_refused(editor: Editor, root: Path) -> None:
    before = await editor.state()
    for session_id in ("../x", "a/b", "", "x" * 200):
        for method, params in (
            ("planMode/getState", {}),
            ("planMode/setMode", {"mode": "plan"}),
            ("planMode/enter", {}),
            ("planMode/slashCommand", {"args": ""}),
        ):
            error = await editor.error(method, {**params, "sessionId": session_id})
            assert error.code == INVALID_PARAMS, (session_id, method, error.message)
            assert "sessionId" in error.message, (session_id, method, error.message)
    assert await editor.state() == before
    assert not (root / ".claude" / "x.json").exists()
    assert not (root.parent / "x.json").exists()
