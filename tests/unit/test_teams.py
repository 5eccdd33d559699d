"""Team mailboxes (JSONL under flock) and the teammate approval flow (guide §10.7, §15)."""

from __future__ import annotations

import json
import multiprocessing
import threading
from pathlib import Path

import pytest

from planmode.core import jsonl, plans, teams
from planmode.core.service import (
    InvalidParams,
    NoPendingApproval,
    NoPlanFile,
    PlanChanged,
    PlanModeService,
)
from planmode.core.session import Session
from tests.unit.conftest import ServiceFactory

PLAN = "# Teammate plan\n\n1. build\n"
TEAMMATE = {"agentName": "builder", "teamName": "alpha", "planModeRequired": True}
BIG = "x" * 70_000  # far beyond PIPE_BUF: a write this size could interleave without the lock


def _append_many(path: str, writer: str, count: int) -> None:
    for i in range(count):
        jsonl.append_line(Path(path), {"writer": writer, "i": i, "pad": BIG})


def check_intact(path: Path, expected: set[tuple[str, int]]) -> None:
    raw = path.read_bytes().split(b"\n")
    assert raw[-1] == b""
    lines = raw[:-1]
    assert len(lines) == len(expected)
    seen = set()
    for line in lines:
        message = json.loads(line)  # every line whole
        assert message["pad"] == BIG
        seen.add((message["writer"], message["i"]))
    assert seen == expected
    assert len(list(jsonl.read_lines(path))) == len(expected)


# -- jsonl ----------------------------------------------------------------------------------
def test_concurrent_appends_from_threads(tmp_path: Path) -> None:
    path = tmp_path / "inboxes" / "team-lead.jsonl"
    workers = [
        threading.Thread(target=_append_many, args=(str(path), f"t{n}", 15)) for n in range(12)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    check_intact(path, {(f"t{n}", i) for n in range(12) for i in range(15)})


def test_concurrent_appends_from_processes(tmp_path: Path) -> None:
    path = tmp_path / "inboxes" / "team-lead.jsonl"
    context = multiprocessing.get_context("spawn")
    processes = [
        context.Process(target=_append_many, args=(str(path), f"p{n}", 20)) for n in range(6)
    ]
    for process in processes:
        process.start()
    # And threads of this process at the same time.
    threads = [
        threading.Thread(target=_append_many, args=(str(path), f"t{n}", 20)) for n in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for process in processes:
        process.join(60)
        assert process.exitcode == 0
    expected = {(f"p{n}", i) for n in range(6) for i in range(20)}
    expected |= {(f"t{n}", i) for n in range(4) for i in range(20)}
    check_intact(path, expected)


def test_reader_skips_torn_and_malformed_lines(tmp_path: Path) -> None:
    path = tmp_path / "inbox.jsonl"
    path.write_text(
        '{"n": 1}\n'
        "not json at all\n"
        "[1, 2, 3]\n"  # valid JSON, but no object
        "\n"
        '{"n": 2}\n'
        '{"n": 3, "text": "tor'  # a torn last line, no newline
    )
    assert list(jsonl.read_lines(path)) == [{"n": 1}, {"n": 2}]


def test_append_after_a_torn_line_keeps_the_new_message(tmp_path: Path) -> None:
    path = tmp_path / "inbox.jsonl"
    path.write_text('{"n": 1}\n{"n": 2, "te')  # a writer died mid-line
    jsonl.append_line(path, {"n": 3})
    assert list(jsonl.read_lines(path)) == [{"n": 1}, {"n": 3}]


def test_missing_inbox_reads_empty(tmp_path: Path) -> None:
    assert list(jsonl.read_lines(tmp_path / "nope.jsonl")) == []


def test_append_keeps_unicode_and_creates_private_file(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b.jsonl"
    jsonl.append_line(path, {"text": "plan — ünïcode ✓"})
    assert list(jsonl.read_lines(path)) == [{"text": "plan — ünïcode ✓"}]
    assert path.stat().st_mode & 0o077 == 0


# -- mailboxes ------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["", "..", ".", "../x", "a/b", "/abs", ".hidden", "a\x00b", "é"])
def test_unsafe_team_and_agent_names_are_rejected(root: Path, bad: str) -> None:
    with pytest.raises(ValueError):
        teams.inbox_path(root, bad, "builder")
    with pytest.raises(ValueError):
        teams.inbox_path(root, "alpha", bad)
    with pytest.raises(ValueError):
        teams.submit_plan(root, bad, "builder", root / "p.md", PLAN)
    with pytest.raises(ValueError):
        teams.answer_request(root, "alpha", bad, "rid", True)
    assert not (root / ".claude").exists()


def test_inbox_path_layout(root: Path) -> None:
    assert teams.inbox_path(root, "alpha", "team-lead") == (
        root / ".claude" / "teams" / "alpha" / "inboxes" / "team-lead.jsonl"
    )


def test_submit_and_answer_round_trip(root: Path) -> None:
    plan_path = root / ".claude" / "plans" / "x.md"
    rid = teams.submit_plan(root, "alpha", "builder", plan_path, PLAN)
    assert rid.startswith("plan_approval-builder@alpha-")
    [message] = list(jsonl.read_lines(teams.inbox_path(root, "alpha", teams.LEAD)))
    assert message["from"] == "builder"
    content = teams.payload(message)
    assert content is not None
    assert content["type"] == "plan_approval_request"
    assert content["planContent"] == PLAN
    assert content["planFilePath"] == str(plan_path)
    assert teams.find_response(root, "alpha", "builder", rid) is None
    teams.answer_request(root, "alpha", "builder", rid, True, "ship it", "acceptEdits")
    response = teams.find_response(root, "alpha", "builder", rid)
    assert response == teams.LeaderResponse(rid, True, "ship it", "acceptEdits")
    assert response.to_wire() == {
        "requestId": rid,
        "approved": True,
        "feedback": "ship it",
        "permissionMode": "acceptEdits",
    }


def test_pending_requests_excludes_answered_ones(root: Path) -> None:
    p = root / "p.md"
    first = teams.submit_plan(root, "alpha", "builder", p, "one")
    second = teams.submit_plan(root, "alpha", "tester", p, "two")
    third = teams.submit_plan(root, "beta", "builder", p, "three")
    assert {r.request_id for r in teams.pending_requests(root)} == {first, second, third}
    teams.answer_request(root, "alpha", "builder", first, False, "no")
    # An answer to another agent / another team does not count.
    teams.answer_request(root, "beta", "tester", third, True)
    pending = {r.request_id: r for r in teams.pending_requests(root)}
    assert set(pending) == {second, third}
    assert pending[second].plan == "two"
    assert pending[second].team == "alpha"
    assert pending[second].agent == "tester"
    teams.answer_request(root, "beta", "builder", third, True)
    assert [r.request_id for r in teams.pending_requests(root)] == [second]


def test_pending_requests_skips_garbage(root: Path) -> None:
    lead = teams.inbox_path(root, "alpha", teams.LEAD)
    lead.parent.mkdir(parents=True)
    good = teams.submit_plan(root, "alpha", "builder", root / "p.md", PLAN)
    bad_from = {"type": "plan_approval_request", "from": "../evil", "requestId": "r1"}
    bad_from["planFilePath"] = "/p.md"
    with lead.open("a") as stream:
        stream.write("garbage\n")
        stream.write(json.dumps({"from": "x", "text": "not json"}) + "\n")
        stream.write(json.dumps({"from": "x", "text": json.dumps(bad_from)}) + "\n")
        stream.write(json.dumps({"from": "x", "text": json.dumps({"type": "idle"})}) + "\n")
    (root / ".claude" / "teams" / ".sneaky" / "inboxes").mkdir(parents=True)
    assert [r.request_id for r in teams.pending_requests(root)] == [good]


def test_pending_requests_without_teams_dir(root: Path) -> None:
    assert teams.pending_requests(root) == []


# -- the service: a required teammate -------------------------------------------------------
def teammate_service(make_service: ServiceFactory, **overrides: object) -> PlanModeService:
    return make_service(teammate={**TEAMMATE, **overrides})


def submitted(service: PlanModeService) -> tuple[Session, str]:
    session = service.require_session("mate")
    service.enter(session)
    plans.write_atomic(service.plan_path(session), PLAN)
    result = service.exit_as_teammate(session)
    assert result is not None
    assert result.outcome == "awaitingLeaderApproval"
    assert result.request_id is not None
    return session, result.request_id


def test_required_teammate_never_exits_before_the_lead_answers(
    make_service: ServiceFactory,
) -> None:
    service = teammate_service(make_service)
    session, rid = submitted(service)
    assert session.modes.mode == "plan"
    for _ in range(12):
        found, response = service.next_turn(session)
        assert response is None
        assert "plan_mode_exit" not in [a.type for a in found]
        assert session.modes.mode == "plan"
    # An answer to some other request changes nothing.
    teams.answer_request(service.root, "alpha", "builder", "plan_approval-other", True)
    assert service.next_turn(session)[1] is None
    assert session.modes.mode == "plan"
    # The lead approves: the next turn applies it.
    service.answer_teammate(rid, True)
    found, response = service.next_turn(session)
    assert response is not None and response.approved
    assert session.modes.mode == "default"
    assert [a.type for a in found] == ["plan_mode_exit"]
    assert session.awaiting_request is None
    assert service.next_turn(session) == ((), None)


def test_waiting_survives_a_restart(make_service: ServiceFactory) -> None:
    service = teammate_service(make_service)
    _session, rid = submitted(service)
    again = teammate_service(make_service)
    session = again.require_session("mate")
    assert session.awaiting_request == rid
    assert again.next_turn(session)[1] is None
    again.answer_teammate(rid, True)
    assert again.next_turn(session)[1] is not None
    assert session.modes.mode == "default"


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions", "default"])
def test_approve_with_permission_mode_applies_that_mode(
    make_service: ServiceFactory, mode: str
) -> None:
    service = teammate_service(make_service)
    session, rid = submitted(service)
    service.answer_teammate(rid, True, mode=mode)  # type: ignore[arg-type]
    _found, response = service.next_turn(session)
    assert response is not None and response.permission_mode == mode
    assert session.modes.mode == mode
    assert service.state(session)["prePlanMode"] is None


def test_approve_without_mode_restores_pre_plan_mode(make_service: ServiceFactory) -> None:
    service = teammate_service(make_service)
    session = service.require_session("mate")
    service.set_mode(session, "acceptEdits")
    service.enter(session)
    plans.write_atomic(service.plan_path(session), PLAN)
    result = service.exit_as_teammate(session)
    assert result is not None and result.request_id
    service.answer_teammate(result.request_id, True)
    service.next_turn(session)
    assert session.modes.mode == "acceptEdits"


def test_reject_keeps_plan_mode_with_feedback(make_service: ServiceFactory) -> None:
    service = teammate_service(make_service)
    session, rid = submitted(service)
    service.answer_teammate(rid, False, feedback="add tests")
    _found, response = service.next_turn(session)
    assert response == teams.LeaderResponse(rid, False, "add tests", None)
    assert session.modes.mode == "plan"
    assert session.awaiting_request is None
    with pytest.raises(NoPendingApproval):
        service.answer_teammate(rid, True)


def test_answer_unknown_request(make_service: ServiceFactory) -> None:
    service = teammate_service(make_service)
    with pytest.raises(NoPendingApproval):
        service.answer_teammate("plan_approval-nobody", True)


def test_answer_checks_the_digest_and_approves_the_current_file(
    make_service: ServiceFactory,
) -> None:
    from planmode.core.approval import plan_digest

    service = teammate_service(make_service)
    session, rid = submitted(service)
    path = service.plan_path(session)
    with pytest.raises(PlanChanged):
        service.answer_teammate(rid, True, plan_sha256=plan_digest("something else"))
    assert teams.find_response(service.root, "alpha", "builder", rid) is None
    service.answer_teammate(rid, True, plan_sha256=plan_digest(PLAN))
    assert path.read_text() == PLAN


def test_required_teammate_without_plan_is_refused(make_service: ServiceFactory) -> None:
    service = teammate_service(make_service)
    session = service.require_session("mate")
    service.enter(session)
    with pytest.raises(NoPlanFile):
        service.exit_as_teammate(session)
    assert session.modes.mode == "plan"
    assert teams.pending_requests(service.root) == []


def test_unsafe_teammate_names_are_invalid_params(make_service: ServiceFactory) -> None:
    service = teammate_service(make_service, teamName="../escape")
    session = service.require_session("mate")
    service.enter(session)
    plans.write_atomic(service.plan_path(session), PLAN)
    with pytest.raises(InvalidParams):
        service.exit_as_teammate(session)
    assert session.awaiting_request is None
    assert session.modes.mode == "plan"
    assert not (service.root / ".claude" / "escape").exists()


def test_voluntary_teammate_exits_at_once(make_service: ServiceFactory) -> None:
    service = teammate_service(make_service, planModeRequired=False)
    session = service.require_session("mate")
    service.enter(session)
    result = service.exit_as_teammate(session, plan=PLAN)
    assert result is not None and result.outcome == "approved"
    assert session.modes.mode == "default"
    assert teams.pending_requests(service.root) == []


def test_no_teammate_setting_means_no_teammate(service: PlanModeService) -> None:
    session = service.require_session("s")
    service.enter(session)
    assert service.exit_as_teammate(session) is None
    assert service.take_leader_response(session) is None


def test_a_fifo_or_a_stuck_lock_never_hangs_a_reader(tmp_path: Path) -> None:
    import fcntl
    import os

    from planmode.core.jsonl import append_line, read_lines

    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert list(read_lines(fifo)) == []  # returns at once instead of blocking on open
    locked = tmp_path / "locked.jsonl"
    append_line(locked, {"n": 1})
    holder = os.open(locked, os.O_RDWR)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)  # another process stuck holding the lock
        assert list(read_lines(locked)) == [{"n": 1}]
    finally:
        os.close(holder)
