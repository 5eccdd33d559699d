"""Drift: writes of files the approved plan never names (docs/protocol.md §12.2;
planmode/core/drift.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from planmode.core import drift
from planmode.core.permissions import Decision
from planmode.core.steps import file_mentions

PLAN = """# Plan: cache

## Steps
1. Add the cache in `src/cache.py`.
2. Use it from server/app.py.
3. Mention it in the README.
"""


@pytest.fixture
def scope(root: Path) -> drift.DriftScope:
    plans = root / ".claude" / "plans"
    return drift.DriftScope(root, plans / "bold-eagle.md", plans)


MENTIONS = file_mentions([PLAN], "/nowhere")


@pytest.mark.parametrize(
    ("raw", "drifts"),
    [
        ("src/cache.py", None),  # its path
        ("lib/cache.py", None),  # its file name
        ("server/app.py", None),
        ("README", None),
        ("src/other.py", "src/other.py"),
        ("./src/../src/other.py", "src/other.py"),
        ("notes/README.md", "notes/README.md"),  # README is named, README.md is not
        (".claude/plans/bold-eagle.md", None),  # the plan file
        (".claude/plans/other-plan.md", None),  # the plans directory
        ("../outside.py", None),  # outside the root
        ("/etc/passwd", None),
        ("~/notes.py", None),
    ],
)
def test_what_drifts(scope: drift.DriftScope, raw: str, drifts: str | None) -> None:
    assert drift.drifting(scope, MENTIONS, set(), raw) == drifts


@pytest.mark.parametrize(
    ("raw", "drifts"),
    [
        ("notes/other-plan.md", None),  # a plan of the plans directory
        ("notes/api/handler.py", "notes/api/handler.py"),  # below it: no plan
        ("notes/api/guide.md", "notes/api/guide.md"),
        ("notes/run.sh", "notes/run.sh"),
    ],
)
def test_only_the_plans_of_the_plans_directory_never_drift(
    root: Path, raw: str, drifts: str | None
) -> None:
    # plansDirectory may come from a repository's .claude/settings.json: naming a folder of
    # code (notes/ holding only *.md files at its top) must not make writes below it no drift.
    plans = root / "notes"
    scope = drift.DriftScope(root, plans / "bold-eagle.md", plans)
    assert drift.drifting(scope, MENTIONS, set(), raw) == drifts


def test_an_absolute_path_inside_the_root_drifts_by_its_relative_path(
    scope: drift.DriftScope, root: Path
) -> None:
    assert drift.drifting(scope, MENTIONS, set(), str(root / "src" / "x.py")) == "src/x.py"
    assert drift.drifting(scope, MENTIONS, set(), str(root / "src" / "cache.py")) is None


def test_a_file_the_user_allowed_for_this_plan_does_not_drift(scope: drift.DriftScope) -> None:
    assert drift.drifting(scope, MENTIONS, {"src/other.py"}, "src/other.py") is None


def test_a_symlink_into_the_plans_directory_or_out_of_the_workspace_is_no_drift(
    scope: drift.DriftScope, root: Path, tmp_path: Path
) -> None:
    plans = root / ".claude" / "plans"
    plans.mkdir(parents=True)
    os.symlink(plans, root / "plans-link")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / "out-link")
    assert drift.drifting(scope, MENTIONS, set(), "plans-link/bold-eagle.md") is None
    assert drift.drifting(scope, MENTIONS, set(), "out-link/x.py") is None


def test_a_symlink_to_a_named_file_is_no_drift(scope: drift.DriftScope, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "cache.py").write_text("")
    os.symlink(root / "src" / "cache.py", root / "alias.py")
    assert drift.drifting(scope, MENTIONS, set(), "alias.py") is None


@pytest.mark.parametrize(
    ("tool", "tool_input", "paths"),
    [
        ("Write", {"file_path": "a.py", "content": "x"}, ("a.py",)),
        ("Edit", {"file_path": "/r/a.py"}, ("/r/a.py",)),
        ("MultiEdit", {"file_path": "a.py", "edits": []}, ("a.py",)),
        ("NotebookEdit", {"notebook_path": "n.ipynb"}, ("n.ipynb",)),
        ("NotebookEdit", {"file_path": "n.ipynb"}, ()),
        ("Write", {"file_path": ""}, ()),
        ("Write", {"file_path": 3}, ()),
        ("Write", {"file_path": "a\x00b"}, ()),
        ("Read", {"file_path": "a.py"}, ()),
        ("Bash", {"command": "echo > a.py"}, ()),
    ],
)
def test_written_paths(tool: str, tool_input: dict[str, Any], paths: tuple[str, ...]) -> None:
    assert drift.written_paths(tool, tool_input) == paths


def test_the_outcome_per_setting(root: Path) -> None:
    plan_file = root / ".claude" / "plans" / "bold-eagle.md"
    assert drift.outcome("off", "src/x.py", plan_file) is None
    assert drift.outcome("warn", "src/x.py", plan_file) is None
    asked = drift.outcome("ask", "src/x.py", plan_file)
    assert asked is not None and asked.behavior == "ask" and asked.rule == "drift"
    assert asked.message.startswith("Not in the approved plan: src/x.py")
    denied = drift.outcome("deny", "src/x.py", plan_file)
    assert denied is not None and denied.behavior == "deny"
    assert denied.message.startswith("Not in the approved plan: src/x.py.")
    # How to plan again, or how the user widens the plan.
    assert "enter plan mode and submit a plan that names it" in denied.message
    assert "allow this file for this plan" in denied.message
    assert str(plan_file) in denied.message


@pytest.mark.parametrize("raw", ["off", "warn", "ask", "deny"])
def test_parse_setting_accepts_the_four_values(raw: str) -> None:
    assert drift.parse_setting(raw) == raw


@pytest.mark.parametrize("raw", ["Deny", "", None, 1, "block"])
def test_parse_setting_names_the_allowed_values(raw: object) -> None:
    with pytest.raises(ValueError, match="drift must be one of off, warn, ask, deny"):
        drift.parse_setting(raw)


ASK = drift.DriftOutcome("ask", "Not in the approved plan: a")
DENY = drift.DriftOutcome("deny", "Not in the approved plan: b")


@pytest.mark.parametrize(
    ("behavior", "found", "expected"),
    [
        ("allow", None, "allow"),
        ("allow", ASK, "ask"),
        ("allow", DENY, "deny"),
        ("ask", ASK, "ask"),
        ("ask", DENY, "deny"),
        ("deny", ASK, "deny"),
        ("deny", DENY, "deny"),
    ],
)
def test_overrule_only_ever_makes_an_answer_stricter(
    behavior: str, found: drift.DriftOutcome | None, expected: str
) -> None:
    decision = Decision(behavior, "base", rule="mode")  # type: ignore[arg-type]
    result = drift.overrule(decision, found)
    assert result.behavior == expected
    if expected == behavior:
        assert result is decision
    else:
        assert found is not None and (result.message, result.rule) == (found.message, "drift")


def test_stricter_prefers_deny() -> None:
    assert drift.stricter(None, ASK) is ASK
    assert drift.stricter(ASK, None) is ASK
    assert drift.stricter(ASK, DENY) is DENY
    assert drift.stricter(DENY, ASK) is DENY
