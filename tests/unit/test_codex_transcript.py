"""What the Codex hook reads in Codex's transcript: the turn's mode, the plan it proposes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planmode.agents.codex import transcript

RECORDED = Path(__file__).parents[1] / "e2e" / "hook_payloads" / "codex" / "0.169.0"
TURN = "01a2325b-2775-7891-a1f2-9db32d154122"
PLAN = "# Greet by name\n\n## Summary\nRead the name from argv in src/app.py.\n"
REVISED = PLAN + "\n## Test Plan\nA test for the greeting.\n"


def line(kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": "t", "type": kind, "payload": payload}, separators=(",", ":"))


def context(turn: str, mode: str) -> str:
    # A real turn_context line is about 12 kB: the whole mode prompt is in it.
    settings = {"developer_instructions": "x" * 11000}
    return line(
        "turn_context",
        {"turn_id": turn, "collaboration_mode": {"mode": mode, "settings": settings}},
    )


def item(turn: str, kind: str, **fields: Any) -> str:
    return line(
        "event_msg",
        {"type": "item_completed", "turn_id": turn, "item": {"type": kind, **fields}},
    )


def write(path: Path, *lines: str, tail: str = "") -> str:
    path.write_text("\n".join(lines) + "\n" + tail)
    return str(path)


def test_the_recorded_session_plans_and_its_last_plan_is_the_revised_one() -> None:
    path = str(RECORDED / "transcript.jsonl")
    assert transcript.turn_mode(path, TURN) == "plan"
    assert transcript.turn_mode(path, None) == "plan"
    # The revision came after the Stop hook's answer (a HookPrompt): it is the one proposed.
    assert transcript.proposed_plan(path, TURN) == REVISED
    assert transcript.cli_version(path) == "0.169.0"


def test_the_mode_is_the_turns_own(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.jsonl",
        context("a", "plan"),
        item("a", "Plan", text="P"),
        context("b", "default"),
    )
    assert transcript.turn_mode(path, "b") == "default"
    assert transcript.turn_mode(path, None) == "default"
    # The newest context is another turn's: this turn's mode is not known.
    assert transcript.turn_mode(path, "a") is None
    assert transcript.turn_mode(str(tmp_path / "missing.jsonl"), "a") is None


def test_a_line_still_being_written_is_passed_over(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", context("a", "plan"), tail=context("b", "default")[:500])
    assert transcript.turn_mode(path, "a") == "plan"


def test_a_long_turn_is_read_back_to_its_start(tmp_path: Path) -> None:
    outputs = [line("response_item", {"type": "function_call_output", "output": "y" * 5000})] * 200
    path = write(tmp_path / "t.jsonl", context("a", "plan"), *outputs, item("a", "Plan", text="P"))
    assert transcript.turn_mode(path, "a") == "plan"
    assert transcript.proposed_plan(path, "a") == "P"


def test_a_plan_already_answered_is_not_proposed_again(tmp_path: Path) -> None:
    answered = write(
        tmp_path / "t.jsonl",
        context("a", "plan"),
        item("a", "Plan", text="P"),
        item("a", "HookPrompt", fragments=[{"text": "rejected"}]),
        item("a", "AgentMessage", content=[{"type": "Text", "text": "Which name?"}]),
    )
    assert transcript.proposed_plan(answered, "a") is None


def test_only_this_turns_plan_counts(tmp_path: Path) -> None:
    earlier = write(
        tmp_path / "t.jsonl",
        context("a", "plan"),
        item("a", "Plan", text="P"),
        context("b", "plan"),
        item("b", "AgentMessage", content=[]),
    )
    assert transcript.proposed_plan(earlier, "b") is None
    assert transcript.proposed_plan(earlier, "a") is None  # read back to b's start only


def test_text_that_only_looks_like_a_plan_item_is_not_one(tmp_path: Path) -> None:
    # The model's words quoting the transcript's shape are escaped inside a string.
    quoted = json.dumps('"type":"item_completed" "type":"Plan" "type":"turn_context"')
    path = write(
        tmp_path / "t.jsonl",
        context("a", "plan"),
        line("response_item", {"type": "message", "content": quoted}),
    )
    assert transcript.proposed_plan(path, "a") is None
    assert transcript.turn_mode(path, "a") == "plan"
