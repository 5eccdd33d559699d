"""Which Claude Code runs a session, as its transcript records it, and what that version does
with a rewritten Bash line (server/planmode/agents/claude_code/versions.py)."""

from __future__ import annotations

import json
from pathlib import Path

from planmode.agents.claude_code import versions


def test_a_version_is_read_whole_from_the_last_line_that_has_one(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    lines = [
        {"type": "user", "version": "2.1.197"},
        {"type": "assistant", "version": "2.1.332-beta.1"},
        # The model's own words never decide it: a version key inside a tool input.
        {"type": "assistant", "message": {"input": {"version": "1.0.0"}}},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines) + '{"version": "9.9'
    transcript.write_text(text)  # the last line is still being written
    assert versions.transcript_version(str(transcript)) == (2, 1, 332)
    assert versions.transcript_version(str(tmp_path / "missing.jsonl")) is None
    assert versions.parse("2.1.x") is None and versions.parse(3) is None


def test_only_versions_measured_to_run_a_rewritten_line_unasked_get_one(tmp_path: Path) -> None:
    for version, rewrites in (("2.1.197", True), ("2.1.100", True), ("2.1.332", False)):
        transcript = tmp_path / f"{version}.jsonl"
        transcript.write_text(json.dumps({"type": "user", "version": version}) + "\n")
        assert versions.runs_rewritten_bash(str(transcript)) is rewrites
    assert versions.runs_rewritten_bash(None) is False
