"""Codex's calls in plan mode's terms (agents/codex/tools.py), the mode a call brings the
session to (adapter.py), and the approved plan handed to the prompt that implements it
(handoff.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planmode import runtime
from planmode.agents.codex import handoff
from planmode.agents.codex.adapter import CodexCall
from planmode.agents.codex.tools import patch_paths, plan_mode_calls
from planmode.core.agents import ToolCall

RECORDED = Path(__file__).parents[1] / "e2e" / "hook_payloads" / "codex" / "0.169.0"


def test_the_recorded_calls_in_plan_modes_terms() -> None:
    calls = {}
    for path in sorted(RECORDED.glob("*_PreToolUse_*.json")):
        payload = json.loads(path.read_text())
        calls[path.name] = plan_mode_calls(payload["tool_name"], payload["tool_input"], "/w")
    assert calls["02_PreToolUse_Bash.json"] == (ToolCall("Bash", {"command": "cat src/app.py"}),)
    assert calls["04_PreToolUse_apply_patch.json"] == (
        ToolCall("Write", {"file_path": "/w/src/app.py"}),
    )
    assert calls["05_PreToolUse_apply_patch.json"] == (
        ToolCall("Write", {"file_path": "/w/plan.md"}),
    )


def test_a_patch_writes_every_file_it_names() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: a.py\n+x\n*** Delete File: /abs/b.py\n"
        "*** Update File: c.py\n*** Move to: d/e.py\n@@\n-x\n+y\n*** End Patch\n"
    )
    assert patch_paths(patch) == ["a.py", "/abs/b.py", "c.py", "d/e.py"]
    assert [
        c.input["file_path"] for c in plan_mode_calls("apply_patch", {"command": patch}, "/w")
    ] == [
        "/w/a.py",
        "/abs/b.py",
        "/w/c.py",
        "/w/d/e.py",
    ]
    # A patch whose files cannot be told stays a tool plan mode does not know (refused).
    assert plan_mode_calls("apply_patch", {"command": "nonsense"}, "/w") == (
        ToolCall("apply_patch", {"command": "nonsense"}),
    )
    assert plan_mode_calls("apply_patch", {}, "/w")[0].tool == "apply_patch"


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        ("view_image", {"path": "shot.png"}, ToolCall("Read", {"file_path": "/w/shot.png"})),
        ("list_mcp_resources", {}, ToolCall("ListMcpResourcesTool", {})),
        ("request_user_input", {"questions": []}, ToolCall("AskUserQuestion", {"questions": []})),
        ("get_goal", {}, ToolCall("TodoRead", {})),
        ("update_goal", {"goal": "g"}, ToolCall("TodoWrite", {"goal": "g"})),
        ("mcp__files__write", {"p": 1}, ToolCall("mcp__files__write", {"p": 1})),
    ],
)
def test_other_tools(tool: str, tool_input: dict[str, object], expected: ToolCall) -> None:
    assert plan_mode_calls(tool, tool_input, "/w") == (expected,)


@pytest.mark.parametrize(
    ("planning", "mode", "before", "expected"),
    [
        (True, "default", None, "plan"),
        (True, "plan", "default", "plan"),
        (False, "plan", "acceptEdits", "acceptEdits"),
        (False, "plan", None, "default"),
        (False, "acceptEdits", None, None),  # the mode the user chose on approving stays
        (None, "plan", "default", None),  # not known: the session keeps its mode
    ],
)
def test_the_session_follows_whether_codex_plans(
    planning: bool | None, mode: str, before: str | None, expected: str | None
) -> None:
    assert CodexCall(planning).permission_mode(mode, before) == expected  # type: ignore[arg-type]


@pytest.fixture
def runtime_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = tmp_path / "run"
    base.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
    return Path(runtime.ensure_directory())


def test_the_approved_plan_is_handed_to_the_sessions_next_prompt_once(runtime_dir: Path) -> None:
    handoff.keep("s1", "/w", "# P\n", "User has approved your plan. …")
    assert handoff.take("s2", "Implement the plan.") is None
    assert handoff.take("s1", "Implement the plan.") == "User has approved your plan. …"
    assert handoff.take("s1", "Implement the plan.") is None
    assert not list(runtime_dir.glob("codex-approved-*"))


def test_a_fresh_thread_gets_the_plan_codex_hands_it(runtime_dir: Path, tmp_path: Path) -> None:
    handoff.keep("old", "/w", "# P\n\n1. step\n", "approved text")
    handoff.keep("other", "/w", "# Q\n", "another")
    copy = tmp_path / "attachments" / "approved-plan.md"
    copy.parent.mkdir()
    copy.write_text("# P\n\n1. step\n")
    prompt = f"Read the approved plan at {copy} and implement it."
    assert handoff.take("new", prompt) == "approved text"
    assert handoff.take("new2", prompt) is None
    assert handoff.take("other", "anything") == "another"


def test_a_dropped_or_stale_record_is_not_handed_on(
    runtime_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handoff.keep("s1", "/w", "# P\n", "text")
    handoff.drop("s1")
    assert handoff.take("s1", "Implement the plan.") is None
    handoff.keep("s1", "/w", "# P\n", "text")
    later = handoff.time.time() + handoff.MAX_AGE + 1
    monkeypatch.setattr(handoff.time, "time", lambda: later)
    assert handoff.take("s1", "Implement the plan.") is None


def test_an_ask_plan_mode_vouches_for_is_refused_with_how_the_user_allows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from planmode.agents.codex import hook

    asked = "Not in the approved plan: notes.txt. The plan (p.md) never names this file. Allow?"
    decision = {"behavior": "ask", "rule": "drift", "vouched": True, "message": asked}
    monkeypatch.setattr(hook, "check", lambda info, event, plans: decision)
    refused = hook.pre_tool_use({}, {}, False)
    assert refused is not None
    output = refused["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"  # Codex takes no "ask" (docs/codex.md)
    reason = output["permissionDecisionReason"]
    assert reason.startswith(
        "Not in the approved plan: notes.txt. The plan (p.md) never names this file. The drift "
        "setting asks the user before such a write, and Codex cannot ask from its hook"
    ), reason
    assert "“Allow this file for this plan”" in reason and "Allow?" not in reason
    # An ask of the user's own rules is Codex's to make.
    decision.update(rule="settings.ask", vouched=False)
    assert hook.pre_tool_use({}, {}, False) is None
