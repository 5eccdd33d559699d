"""Plan history: revisions with author, time and reason, and unified diffs between any two."""

from __future__ import annotations

import difflib
import json
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planmode.core.history import PlanHistory
from planmode.core.service import PlanModeService
from planmode.lsp import results
from tests.unit.editor_buffers import Buffers

PLAN_A = "# Plan\n\n1. Read\n2. Change\n"
PLAN_B = "# Plan\n\n1. Read\n2. Change the greeting\n3. Test\n"


@pytest.fixture
def history(root: Path) -> PlanHistory:
    return PlanHistory(root)


@pytest.fixture
def plan(root: Path) -> Path:
    return root / ".claude" / "plans" / "bold-eagle.md"


def test_empty_history(history: PlanHistory, plan: Path) -> None:
    assert history.revisions(plan) == []
    assert history.latest(plan) is None


def test_revisions_live_under_the_plan_mode_directory(
    history: PlanHistory, plan: Path, root: Path
) -> None:
    history.record(plan, PLAN_A, "agent", "submitted for approval")
    stored = history.path(plan)
    assert stored.is_file()
    assert stored.is_relative_to(root / ".claude" / "plan-mode")
    (line,) = [json.loads(raw) for raw in stored.read_text().splitlines()]
    assert line["text"] == PLAN_A and line["author"] == "agent"
    assert line["reason"] == "submitted for approval"


def test_record_numbers_revisions_with_author_time_and_reason(
    history: PlanHistory, plan: Path
) -> None:
    first = history.record(plan, PLAN_A, "agent", "submitted for approval")
    second = history.record(plan, PLAN_B, "user", "edited at approval")
    assert first is not None and second is not None
    assert (first.id, second.id) == (1, 2)
    revisions = history.revisions(plan)
    assert [(r.id, r.author, r.reason, r.text) for r in revisions] == [
        (1, "agent", "submitted for approval", PLAN_A),
        (2, "user", "edited at approval", PLAN_B),
    ]
    for revision in revisions:
        assert datetime.fromisoformat(revision.time.replace("Z", "+00:00")).tzinfo is not None
    latest = history.latest(plan)
    assert latest is not None and latest.id == 2


def test_the_same_text_twice_in_a_row_is_one_revision(history: PlanHistory, plan: Path) -> None:
    assert history.record(plan, PLAN_A, "agent", "one") is not None
    assert history.record(plan, PLAN_A, "user", "two") is None
    assert len(history.revisions(plan)) == 1
    # ... but coming back to an older text is a new revision.
    history.record(plan, PLAN_B, "agent", "three")
    back = history.record(plan, PLAN_A, "user", "undo")
    assert back is not None and back.id == 3


def test_empty_text_is_a_revision(history: PlanHistory, plan: Path) -> None:
    first = history.record(plan, "", "agent", "exit with an empty plan")
    assert first is not None and first.text == ""
    assert history.revisions(plan)[0].size_bytes == 0


def test_summary(history: PlanHistory, plan: Path) -> None:
    history.record(plan, "é\nb\n", "agent", "x")
    (revision,) = history.revisions(plan)
    summary = results.Revision.model_validate(revision).wire()
    assert summary["id"] == 1 and summary["author"] == "agent" and summary["reason"] == "x"
    assert summary["sizeBytes"] == 5  # bytes, not characters
    assert summary["lines"] == 2
    assert "text" not in summary
    assert summary["time"] == revision.time


def test_plans_have_separate_histories(history: PlanHistory, plan: Path) -> None:
    other = plan.with_name("calm-river.md")
    history.record(plan, PLAN_A, "agent", "a")
    history.record(other, PLAN_B, "agent", "b")
    assert [r.text for r in history.revisions(plan)] == [PLAN_A]
    assert [r.text for r in history.revisions(other)] == [PLAN_B]


def test_history_survives_a_new_instance(root: Path, plan: Path) -> None:
    PlanHistory(root).record(plan, PLAN_A, "agent", "a")
    again = PlanHistory(root)
    revision = again.record(plan, PLAN_B, "user", "b")
    assert revision is not None and revision.id == 2
    assert again.record(plan, PLAN_B, "agent", "same") is None


def test_malformed_lines_are_skipped(history: PlanHistory, plan: Path) -> None:
    history.record(plan, PLAN_A, "agent", "a")
    with history.path(plan).open("a") as stream:
        stream.write('{"id": "x", "text": "bad id"}\n{"id": 7}\nnot json\n')
    assert [r.text for r in history.revisions(plan)] == [PLAN_A]


def test_diff_is_the_unified_diff_between_any_two(history: PlanHistory, plan: Path) -> None:
    history.record(plan, PLAN_A, "agent", "submitted for approval")
    history.record(plan, PLAN_B, "user", "edited at approval")
    diff = history.diff(plan, 1, 2)
    lines = diff.splitlines()
    assert lines[0].startswith("--- bold-eagle.md@1 (agent, submitted for approval)")
    assert lines[1].startswith("+++ bold-eagle.md@2 (user, edited at approval)")
    assert "-2. Change" in lines
    assert "+2. Change the greeting" in lines and "+3. Test" in lines
    expected = difflib.unified_diff(
        PLAN_A.splitlines(keepends=True), PLAN_B.splitlines(keepends=True)
    )
    body = [line for line in expected if not line.startswith(("---", "+++"))]
    assert diff.splitlines(keepends=True)[2:] == body
    backwards = history.diff(plan, 2, 1)
    assert "+2. Change\n" in backwards and "-3. Test\n" in backwards
    assert history.diff(plan, 2, 2) == ""


def test_diff_of_unknown_ids_is_a_key_error(history: PlanHistory, plan: Path) -> None:
    history.record(plan, PLAN_A, "agent", "a")
    with pytest.raises(KeyError):
        history.diff(plan, 1, 2)
    with pytest.raises(KeyError):
        history.diff(plan, 0, 1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([PLAN_A, PLAN_B, "", "x"]), min_size=1, max_size=8))
def test_ids_count_up_and_repeats_collapse(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str]
) -> None:
    root = tmp_path_factory.mktemp("history")
    history = PlanHistory(root)
    plan = root / "p.md"
    for text in texts:
        history.record(plan, text, "agent", "r")
    collapsed = [t for i, t in enumerate(texts) if i == 0 or texts[i - 1] != t]
    revisions = history.revisions(plan)
    assert [r.text for r in revisions] == collapsed
    assert [r.id for r in revisions] == list(range(1, len(collapsed) + 1))


# -- what the service records ---------------------------------------------------------------


def authored(service: PlanModeService, path: Path) -> list[tuple[str, str]]:
    return [(r.author, r.reason) for r in service.history.revisions(path)]


def test_exit_edit_and_user_edit_at_approval_are_recorded(service: PlanModeService) -> None:
    session = service.require_session("s")
    service.enter(session)
    approval, _ = service.begin_exit(session, plan=PLAN_A)
    path = approval.plan_file_path
    assert authored(service, path) == [("agent", "submitted for approval")]

    path.write_text(PLAN_B)
    service.agent_edited(path, PLAN_B, "add a test step")
    assert authored(service, path)[-1] == ("agent", "add a test step")

    edited = PLAN_B + "4. Commit\n"
    Buffers(service).type(path, edited)
    service.approve(approval.approval_id, "s")
    assert authored(service, path) == [
        ("agent", "submitted for approval"),
        ("agent", "add a test step"),
        ("user", "edited at approval"),
    ]
    assert service.history.revisions(path)[-1].text == edited


def test_approving_unchanged_plan_adds_no_revision(service: PlanModeService) -> None:
    session = service.require_session("s")
    service.enter(session)
    approval, _ = service.begin_exit(session, plan=PLAN_A)
    service.approve(approval.approval_id, "s")
    assert authored(service, approval.plan_file_path) == [("agent", "submitted for approval")]


def test_exit_without_plan_records_the_file(service: PlanModeService) -> None:
    session = service.require_session("s")
    service.enter(session)
    path = service.plan_path(session)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PLAN_B)
    service.begin_exit(session)
    (revision,) = service.history.revisions(path)
    assert revision.text == PLAN_B and revision.author == "agent"


def test_diff_marks_a_last_line_without_newline(history: PlanHistory, plan: Path) -> None:
    history.record(plan, "a\nb", "agent", "one")
    history.record(plan, "a\nc", "agent", "two")
    diff = history.diff(plan, 1, 2)
    assert diff.splitlines()[2:] == [
        "@@ -1,2 +1,2 @@",
        " a",
        "-b",
        "\\ No newline at end of file",
        "+c",
        "\\ No newline at end of file",
    ]
    assert diff.endswith("\n")
