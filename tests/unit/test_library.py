"""The plan library: statuses, the record of decisions, the listing
(docs/protocol.md §12.3; planmode/core/library.py)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from planmode.core import library, plans
from planmode.core.library import (
    LibraryEntry,
    LibraryRecord,
    PlanFacts,
    PlanRecord,
    StepCount,
    event_line,
    fold,
    list_library,
    plan_status,
)
from planmode.lsp import results

DECIDED = "2026-01-01T10:00:00.000Z"
DECIDED_EPOCH = 1767261600.0


def wire(entry: LibraryEntry) -> dict[str, Any]:
    """The entry as the library lists it."""
    return results.LibraryPlan.model_validate(entry).wire()


def record(decision: Any, progress: StepCount | None = None) -> PlanRecord:
    return PlanRecord("/ws/p.md", decision, DECIDED, "s1", "claude-code", "a1", progress)


STATUS_TABLE = [
    pytest.param(PlanFacts(), ("drafting", None), id="never-decided"),
    pytest.param(PlanFacts(pending=True), ("underReview", None), id="pending"),
    pytest.param(
        PlanFacts(pending=True, record=record("approved", StepCount(1, 2))),
        ("underReview", None),
        id="pending-wins-over-a-decision",
    ),
    pytest.param(PlanFacts(record=record(None)), ("drafting", None), id="taken-up-again"),
    pytest.param(
        PlanFacts(record=record("approved", StepCount(1, 3))),
        ("executing", StepCount(1, 3)),
        id="executing",
    ),
    pytest.param(
        PlanFacts(record=record("approved", StepCount(1, 3)), live=StepCount(2, 3)),
        ("executing", StepCount(2, 3)),
        id="live-progress-wins",
    ),
    pytest.param(
        PlanFacts(record=record("approved", StepCount(3, 3))),
        ("done", StepCount(3, 3)),
        id="done",
    ),
    pytest.param(
        PlanFacts(record=record("approved")), ("executing", StepCount(0, 0)), id="no-steps"
    ),
    pytest.param(PlanFacts(record=record("rejected")), ("rejected", None), id="rejected"),
    pytest.param(PlanFacts(record=record("saved")), ("saved", None), id="saved"),
    pytest.param(
        PlanFacts(record=record("rejected"), planning=True, modified=DECIDED_EPOCH + 60),
        ("drafting", None),
        id="revised-after-a-rejection",
    ),
    pytest.param(
        PlanFacts(record=record("rejected"), planning=True, modified=DECIDED_EPOCH + 1),
        ("rejected", None),
        id="written-back-at-the-decision-is-no-revision",
    ),
    pytest.param(
        PlanFacts(record=record("saved"), planning=False, modified=DECIDED_EPOCH + 60),
        ("saved", None),
        id="changed-while-its-session-does-not-plan",
    ),
    pytest.param(
        PlanFacts(
            record=record("approved", StepCount(3, 3)), planning=True, modified=DECIDED_EPOCH + 60
        ),
        ("drafting", None),
        id="planned-again-after-approval",
    ),
]


@pytest.mark.parametrize(("facts", "expected"), STATUS_TABLE)
def test_plan_status(facts: PlanFacts, expected: tuple[str, StepCount | None]) -> None:
    assert plan_status(facts) == expected


def line(event: str, **fields: Any) -> dict[str, Any]:
    return {"plan": "/ws/p.md", "event": event, "at": fields.pop("at", DECIDED), **fields}


def test_fold_keeps_the_last_decision_and_its_progress() -> None:
    records = fold(
        [
            line("rejected", sessionId="s1", at="2026-01-01T09:00:00.000Z"),
            line("approved", sessionId="s1", agent="claude-code", approvalId="a1", done=0, total=3),
            line("progress", approvalId="a1", done=2, total=3),
            line("progress", approvalId="old", done=3, total=3),  # another approval's
        ]
    )
    assert records["/ws/p.md"] == PlanRecord(
        "/ws/p.md",
        "approved",
        DECIDED,
        "s1",
        "claude-code",
        "a1",
        StepCount(2, 3),
        first_seen="2026-01-01T09:00:00.000Z",
    )


def test_a_plan_taken_up_again_is_undecided() -> None:
    records = fold([line("saved", sessionId="s1"), line("resumed", sessionId="s2")])
    assert (records["/ws/p.md"].decision, records["/ws/p.md"].session_id) == (None, "s2")


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        "approved",
        {"event": "approved", "at": DECIDED},
        {"plan": "/ws/p.md", "event": "merged", "at": DECIDED},
        {"plan": "/ws/p.md", "event": "approved"},
        {"plan": 3, "event": "approved", "at": DECIDED},
        {"plan": "x" * 5000, "event": "approved", "at": DECIDED},
    ],
)
def test_fold_skips_what_is_no_event(bad: object) -> None:
    assert fold([bad]) == {}


@pytest.mark.parametrize(
    "counts",
    [
        {"done": 4, "total": 3},
        {"done": -1, "total": 3},
        {"done": True, "total": 3},
        {"done": "1", "total": 3},
    ],
)
def test_fold_ignores_an_impossible_count(counts: dict[str, Any]) -> None:
    records = fold([line("approved", approvalId="a1"), line("progress", approvalId="a1", **counts)])
    assert records["/ws/p.md"].progress is None


def test_event_line_refuses_an_unknown_event() -> None:
    with pytest.raises(ValueError, match="event must be one of approved, rejected, saved"):
        event_line("/ws/p.md", "merged")


def test_the_record_is_appended_and_read_back(root: Path) -> None:
    plan = root / ".claude" / "plans" / "bold-eagle.md"
    record_file = LibraryRecord(root)
    assert record_file.records() == {}
    record_file.append(
        event_line(
            plan,
            "approved",
            session_id="s1",
            agent="claude-code",
            approval_id="a1",
            progress=StepCount(0, 2),
        )
    )
    assert record_file.progress_changed(plan, "a1", StepCount(1, 2))
    assert not record_file.progress_changed(plan, "a1", StepCount(1, 2))  # the same count
    assert not record_file.progress_changed(plan, "other", StepCount(2, 2))
    path = root / ".claude" / "plan-mode" / "library.jsonl"
    assert [json.loads(text)["event"] for text in path.read_text().splitlines()] == [
        "approved",
        "progress",
    ]
    # Another server of the workspace reads it, and sees what the first appends later.
    other = LibraryRecord(root)
    assert other.records()[str(plan)].progress == StepCount(1, 2)
    record_file.append(event_line(plan, "saved", session_id="s1"))
    assert other.records()[str(plan)].decision == "saved"


def test_a_torn_or_foreign_line_in_the_record_is_skipped(root: Path) -> None:
    folder = root / ".claude" / "plan-mode"
    folder.mkdir(parents=True)
    (folder / "library.jsonl").write_text(
        '{"plan": "/ws/a.md", "event": "saved", "at": "t"}\n[1, 2]\n{"plan": "/ws/b.md", "ev'
    )
    assert set(LibraryRecord(root).records()) == {"/ws/a.md"}


def test_the_record_is_never_read_through_a_symlink(root: Path, tmp_path: Path) -> None:
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "library.jsonl").write_text('{"plan": "/ws/a.md", "event": "saved", "at": "t"}\n')
    (root / ".claude").mkdir()
    os.symlink(planted, root / ".claude" / "plan-mode")
    assert LibraryRecord(root).records() == {}


def test_the_saved_tool_result() -> None:
    text = library.saved_tool_result("/ws/.claude/plans/bold-eagle.md")
    assert text.startswith("The user saved the plan for later")
    assert "Do not implement it now" in text
    assert "/ws/.claude/plans/bold-eagle.md" in text


def write_plans(directory: Path, names: list[str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for n, name in enumerate(names):
        path = directory / name
        path.write_text(f"# Plan {n}\n")
        os.utime(path, (1_700_000_000 + n, 1_700_000_000 + n))


def test_the_listing_joins_files_records_and_live_state(root: Path) -> None:
    directory = root / ".claude" / "plans"
    write_plans(
        directory,
        [
            "drafted.md",
            "waiting.md",
            "running.md",
            "finished.md",
            "refused.md",
            "kept.md",
            "drafted-agent-x1.md",
        ],
    )

    def at(name: str) -> str:
        return str(directory / name)

    records = fold(
        [
            {
                "plan": at("running.md"),
                "event": "approved",
                "at": DECIDED,
                "sessionId": "s3",
                "approvalId": "a3",
                "agent": "codex",
                "done": 1,
                "total": 4,
            },
            {
                "plan": at("finished.md"),
                "event": "approved",
                "at": DECIDED,
                "approvalId": "a4",
                "done": 2,
                "total": 2,
            },
            {"plan": at("refused.md"), "event": "rejected", "at": DECIDED},
            {"plan": at("kept.md"), "event": "saved", "at": DECIDED, "sessionId": "s6"},
        ]
    )
    listed = list_library(
        plans.list_plan_files(directory),
        records,
        pending=[directory / "waiting.md"],
        planning={"s1"},
        owners={"drafted": "s1"},
        live={at("running.md"): StepCount(2, 4)},
    )
    by_name = {Path(entry.path).name: entry for entry in listed}
    assert {name: entry.status for name, entry in by_name.items()} == {
        "drafted.md": "drafting",
        "waiting.md": "underReview",
        "running.md": "executing",
        "finished.md": "done",
        "refused.md": "rejected",
        "kept.md": "saved",
        "drafted-agent-x1.md": "drafting",
    }
    assert [Path(e.path).name for e in listed][:2] == ["drafted-agent-x1.md", "kept.md"]
    running = wire(by_name["running.md"])
    assert running["status"] == "executing"
    assert running["progress"] == {"done": 2, "total": 4}
    assert (running["sessionId"], running["agent"], running["decidedAt"]) == (
        "s3",
        "codex",
        DECIDED,
    )
    assert running["modified"].endswith("Z") and running["pending"] is False
    waiting = wire(by_name["waiting.md"])
    assert (waiting["status"], waiting["pending"], "progress" in waiting) == (
        "underReview",
        True,
        False,
    )
    subagent = wire(by_name["drafted-agent-x1.md"])
    assert (subagent["slug"], subagent["agentId"], subagent["sessionId"]) == ("drafted", "x1", "s1")
    assert set(wire(by_name["drafted.md"])) == {
        "path",
        "slug",
        "modified",
        "sizeBytes",
        "pending",
        "status",
        "sessionId",
    }


def test_ten_thousand_plans_are_listed_with_their_statuses(root: Path) -> None:
    """Benchmark-style: prints the time of a listing of 10,000 plans (files, record and all);
    asserts only what it lists. The speed itself is measured, not asserted (a shared machine
    is noisy)."""
    count = 10_000
    directory = root / ".claude" / "plans"
    names = [f"plan-{n:05d}.md" for n in range(count)]
    write_plans(directory, names)
    decisions = ("approved", "rejected", "saved", None)
    lines = []
    for n, name in enumerate(names):
        decision = decisions[n % 4]
        if decision is None:
            continue
        path = directory / name
        lines.append(
            event_line(
                path,
                decision,
                session_id=f"s{n}",
                approval_id=f"a{n}",
                progress=StepCount(0, 5) if decision == "approved" else None,
            )
        )
        if decision == "approved":
            lines.append(
                event_line(
                    path,
                    "progress",
                    approval_id=f"a{n}",
                    progress=StepCount(5 if n % 8 == 0 else 3, 5),
                )
            )
    record_path = root / ".claude" / "plan-mode" / "library.jsonl"
    record_path.parent.mkdir(parents=True)
    record_path.write_text("".join(json.dumps(item) + "\n" for item in lines))

    started = time.perf_counter()
    listed = list_library(
        plans.list_plan_files(directory),
        LibraryRecord(root).records(),
        pending=[directory / names[3]],
    )
    sent = [wire(entry) for entry in listed]
    elapsed = time.perf_counter() - started
    print(f"\nlisted {len(sent):,} plans with their statuses in {elapsed * 1000:.0f} ms")

    assert len(sent) == count
    counted: dict[str, int] = {}
    for entry in sent:
        counted[entry["status"]] = counted.get(entry["status"], 0) + 1
    assert counted == {
        "done": 1250,
        "executing": 1250,
        "rejected": 2500,
        "saved": 2500,
        "drafting": 2499,
        "underReview": 1,
    }
    assert sent[0]["path"].endswith(names[-1])  # newest first
    assert all(
        ("progress" in entry) == (entry["status"] in ("executing", "done")) for entry in sent
    )
