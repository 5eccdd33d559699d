"""planMode/nextTurn and planMode/agentDefinitions through the real server
(docs/protocol.md §5.3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.harness import Editor, running_editor

PLAN = "# Plan\n\n1. Change the greeting\n"
CONSTRAINT = "Plan mode is active. The user indicated that they do not want you to execute yet"
PLAN_MODE_KEYS = {"type", "reminderType", "isSubAgent", "planFilePath", "planExists", "text"}
OTHER_KEYS = {"type", "planFilePath", "planExists", "text"}


async def turn(editor: Editor, **params: Any) -> list[dict[str, Any]]:
    result = await editor.request("planMode/nextTurn", params)
    assert set(result) == {"attachments"}
    return result["attachments"]


def kinds(attachments: list[dict[str, Any]]) -> list[str]:
    return [a["type"] for a in attachments]


async def approve_exit(editor: Editor) -> None:
    seen = len(editor.notes["planMode/approvalRequested"])
    task = editor.start("planMode/exit", {})
    approval = await editor.wait_for("planMode/approvalRequested", seen + 1)
    await editor.request("planMode/approve", {"approvalId": approval["approvalId"]})
    assert (await task)["outcome"] == "approved"


async def test_attachments_over_a_conversation(editor: Editor) -> None:
    # Not in plan mode: nothing, however many turns.
    for _ in range(3):
        assert await turn(editor) == []

    entered = await editor.request("planMode/enter")
    plan_path = Path(entered["state"]["planFilePath"])

    # 26 turns: plan_mode on 1, 6, 11, 16, 21, 26; the 1st and 6th attachments full.
    got: dict[int, dict[str, Any]] = {}
    for n in range(1, 27):
        if n == 8:
            plan_path.parent.mkdir(parents=True, exist_ok=True)
            plan_path.write_text(PLAN)
        attachments = await turn(editor)
        if n % 5 == 1:
            assert kinds(attachments) == ["plan_mode"], n
            got[n] = attachments[0]
        else:
            assert attachments == [], n
    assert sorted(got) == [1, 6, 11, 16, 21, 26]
    for n, attachment in got.items():
        assert set(attachment) == PLAN_MODE_KEYS
        assert attachment["planFilePath"] == str(plan_path)
        assert attachment["isSubAgent"] is False
        assert attachment["planExists"] is (n > 8)
        assert attachment["reminderType"] == ("full" if n in (1, 26) else "sparse")
        if attachment["reminderType"] == "full":
            assert attachment["text"].startswith(CONSTRAINT)
            assert "### Phase 1" in attachment["text"]
        else:
            assert len(attachment["text"]) < 400
            assert str(plan_path) in attachment["text"]
    assert "No plan file exists yet" in got[1]["text"]
    assert f"A plan file already exists at {plan_path}" in got[26]["text"]

    # A subagent: its own file, its own count; the main count is untouched.
    sub = await turn(editor, agentId="explorer1")
    assert kinds(sub) == ["plan_mode"]
    assert sub[0]["isSubAgent"] is True
    assert sub[0]["reminderType"] == "full"
    assert sub[0]["planFilePath"] == str(
        plan_path.with_name(f"{plan_path.stem}-agent-explorer1.md")
    )
    assert sub[0]["planExists"] is False
    assert await turn(editor, agentId="explorer1") == []
    error = await editor.error("planMode/nextTurn", {"agentId": "../x"})
    assert error.code == -32602

    # Exit: exactly one plan_mode_exit, and the flag is cleared (also in the pushed state).
    await approve_exit(editor)
    assert (await editor.state())["needsPlanModeExitAttachment"] is True
    assert await turn(editor, agentId="explorer1") == []  # a subagent does not take it
    exit_ = await turn(editor)
    assert exit_ == [
        {
            "type": "plan_mode_exit",
            "planFilePath": str(plan_path),
            "planExists": True,
            "text": "## Exited Plan Mode\n\nYou have exited plan mode. You can now make edits, "
            f"run tools, and take actions.\nThe plan file is located at {plan_path} if you need "
            "to reference it.",
        }
    ]
    await editor.settle()
    assert editor.notes["planMode/didChangeState"][-1]["needsPlanModeExitAttachment"] is False
    assert await turn(editor) == []

    # Re-entry with the plan on disk: plan_mode_reentry first, then a full plan_mode.
    await editor.request("planMode/enter")
    again = await turn(editor)
    assert kinds(again) == ["plan_mode_reentry", "plan_mode"]
    assert set(again[0]) == OTHER_KEYS
    assert again[0]["text"].startswith("## Re-entering Plan Mode")
    assert str(plan_path) in again[0]["text"]
    assert again[1]["reminderType"] == "full"

    # Re-entry without a plan file: no reentry.
    await editor.request("planMode/setMode", {"mode": "default"})
    assert kinds(await turn(editor)) == ["plan_mode_exit"]
    plan_path.unlink()
    await editor.request("planMode/enter")
    assert kinds(await turn(editor)) == ["plan_mode"]


async def test_agent_definitions(editor: Editor) -> None:
    result = await editor.request("planMode/agentDefinitions")
    agents = {a["agentType"]: a for a in result["agents"]}
    assert set(agents) == {"Explore", "Plan"}
    for agent in agents.values():
        assert agent["readOnly"] is True
        assert {"Agent", "ExitPlanMode", "Edit", "Write", "NotebookEdit"} <= set(
            agent["disallowedTools"]
        )
        assert "Write" not in agent["tools"]


async def test_settings_and_env_shape_the_full_text(root: Path, home: Path) -> None:
    env = {
        "CLAUDE_CODE_PLAN_V2_EXPLORE_AGENT_COUNT": "8",
        "CLAUDE_CODE_PLAN_V2_AGENT_COUNT": "11",  # outside 1-10: ignored
    }
    options = {"exploreAgentCount": 5, "planAgentCount": 2, "planFormat": "cap"}
    async with running_editor(root, home, init_options=options, env=env) as editor:
        await editor.request("planMode/enter")
        text = (await turn(editor))[0]["text"]
        assert "up to 8 Explore agents" in text
        assert "up to 2 IN PARALLEL" in text
        assert "40 lines" in text

    interview = {"CLAUDE_CODE_PLAN_MODE_INTERVIEW_PHASE": "1"}
    async with running_editor(root, home, env=interview) as editor:
        await editor.request("planMode/enter")
        text = (await turn(editor))[0]["text"]
        assert text.startswith(CONSTRAINT)
        assert "### Phase 1" not in text
        assert "Start by quickly scanning a few key files" in text
        assert "40 lines" not in text
