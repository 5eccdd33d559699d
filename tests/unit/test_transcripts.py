"""Transcripts, resume and fork (docs/protocol.md §4, §5.4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planmode.core import plans, transcripts
from planmode.core.errors import InvalidParams
from planmode.core.service import PlanModeService
from planmode.core.session import Session
from tests.unit.conftest import ServiceFactory
from tests.unit.editor_buffers import Buffers

SLUG = "quiet-harbor"
PLAN = "# Plan\n\n1. the plan\n"
EDITED = PLAN + "2. more\n3. edited by the user\n"


def write_transcript(root: Path, lines: list[dict[str, Any] | str], name: str = "t") -> str:
    path = root / "logs" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    )
    return str(path)


def user(text: str = "hi", **extra: Any) -> dict[str, Any]:
    return {"type": "user", "slug": SLUG, "message": {"role": "user", "content": text}, **extra}


def snapshot(content: str) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "file_snapshot",
        "slug": SLUG,
        "snapshotFiles": [{"key": "other", "content": "nope"}, {"key": "plan", "content": content}],
    }


def exit_tool_use(plan: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "slug": SLUG,
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "done planning"},
                {"type": "tool_use", "id": "t1", "name": "ExitPlanMode", "input": {"plan": plan}},
            ],
        },
    }


def plan_content(content: str) -> dict[str, Any]:
    return user("Implement the following plan", planContent=content)


def plan_reference(content: str) -> dict[str, Any]:
    return {
        "type": "attachment",
        "slug": SLUG,
        "attachment": {
            "type": "plan_file_reference",
            "planFilePath": f"/old/{SLUG}.md",
            "planContent": content,
        },
    }


LAYERS = {
    "file_snapshot": snapshot,
    "ExitPlanMode": exit_tool_use,
    "planContent": plan_content,
    "plan_file_reference": plan_reference,
}


def plan_file(service: PlanModeService, slug: str = SLUG) -> Path:
    return service.plans_directory / f"{slug}.md"


def events(service: PlanModeService, session: Session) -> list[dict[str, Any]]:
    path = transcripts.transcript_path(service.root, session.id)
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- the server's own transcript ------------------------------------------------------------
def test_server_records_modes_exits_snapshots_and_decisions(service: PlanModeService) -> None:
    session = service.require_session("s1")
    service.enter(session)
    approval, _ = service.begin_exit(session, plan=PLAN)
    service.reject(approval.approval_id, session.id, "more detail")
    approval, _ = service.begin_exit(session, plan=PLAN + "2. more\n")
    Buffers(service).type(service.plan_path(session), EDITED)  # the user edits before approving
    service.approve(approval.approval_id, session.id)
    path = service.root / ".claude" / "plan-mode" / "transcripts" / "s1.jsonl"
    assert path.is_file()
    lines = events(service, session)
    assert all(line["slug"] == session.slug for line in lines)
    assert all("timestamp" in line for line in lines)
    summary = [(line["type"], line.get("subtype")) for line in lines]
    assert summary == [
        ("system", "mode_change"),
        ("assistant", None),
        ("system", "file_snapshot"),
        ("system", "plan_decision"),
        ("assistant", None),
        ("system", "file_snapshot"),
        ("system", "mode_change"),
        ("system", "plan_decision"),
        ("system", "file_snapshot"),
    ]
    assert (lines[0]["from"], lines[0]["to"]) == ("default", "plan")
    assert lines[1]["message"]["content"][0]["input"] == {"plan": PLAN}
    assert lines[2]["snapshotFiles"][0]["key"] == "plan"
    assert lines[2]["snapshotFiles"][0]["content"] == PLAN
    assert (lines[3]["outcome"], lines[3]["feedback"]) == ("rejected", "more detail")
    assert (lines[6]["from"], lines[6]["to"]) == ("plan", "default")
    assert lines[7]["outcome"] == "approved"
    assert lines[5]["snapshotFiles"][0]["content"] == PLAN + "2. more\n"
    assert lines[8]["snapshotFiles"][0]["content"] == EDITED


def test_an_unchanged_plan_is_snapshotted_once(service: PlanModeService) -> None:
    session = service.require_session("s1")
    service.enter(session)
    approval, _ = service.begin_exit(session, plan=PLAN)
    service.approve(approval.approval_id, session.id)
    snapshots = [e for e in events(service, session) if e.get("subtype") == "file_snapshot"]
    assert [s["snapshotFiles"][0]["content"] for s in snapshots] == [PLAN]


def test_set_mode_changes_are_recorded_with_the_slug(service: PlanModeService) -> None:
    session = service.require_session("s1")
    service.set_mode(session, "acceptEdits")
    service.set_mode(session, "plan")
    service.set_mode(session, "default")
    lines = events(service, session)
    assert [(e["from"], e["to"]) for e in lines] == [
        ("default", "acceptEdits"),
        ("acceptEdits", "plan"),
        ("plan", "default"),
    ]
    assert {e["slug"] for e in lines} == {session.slug}


def test_a_session_resumes_from_the_servers_own_transcript(
    make_service: ServiceFactory,
) -> None:
    first = make_service()
    original = first.require_session("orig")
    first.enter(original)
    approval, _ = first.begin_exit(original, plan=PLAN)
    first.approve(approval.approval_id, original.id)
    plan_file(first, original.slug or "").unlink()  # the remote machine's disk is gone
    second = make_service()
    target = second.require_session("new")
    log = str(transcripts.transcript_path(second.root, "orig"))
    assert second.resume(target, log, remote=False)[0] is False
    restored, path = second.resume(target, log, remote=True)
    assert restored is True
    assert target.slug == original.slug
    assert path.read_text() == PLAN


# -- resume ---------------------------------------------------------------------------------
def test_resume_local_with_the_file_adopts_the_slug(service: PlanModeService) -> None:
    plans.write_atomic(plan_file(service), PLAN)
    session = service.require_session("s1")
    old_slug = service.plan_slug(session)
    assert old_slug != SLUG
    log = write_transcript(service.root, [user()])
    restored, path = service.resume(session, log)
    assert restored is True
    assert path == plan_file(service)
    assert session.slug == SLUG
    assert service.state(session).plan_slug == SLUG
    assert service.state(session).plan_exists is True
    # Saved: another service on the same root sees the adopted slug.
    assert PlanModeService(service.root).require_session("s1").slug == SLUG


def test_resume_local_with_the_file_missing_is_not_restored(service: PlanModeService) -> None:
    session = service.require_session("s1")
    log = write_transcript(service.root, [user(), snapshot(PLAN), exit_tool_use(PLAN)])
    restored, path = service.resume(session, log)
    assert restored is False
    assert path == plan_file(service)
    assert session.slug == SLUG
    assert not path.exists()  # no transcript recovery locally


@pytest.mark.parametrize("layer", list(LAYERS))
def test_resume_remote_recovers_each_layer_on_its_own(service: PlanModeService, layer: str) -> None:
    content = f"# recovered from {layer}\n"
    log = write_transcript(service.root, [user(), LAYERS[layer](content), user("bye")])
    session = service.require_session("s1")
    restored, path = service.resume(session, log, remote=True)
    assert restored is True
    assert path.read_text() == content
    # The recovered plan is snapshotted into the session's own transcript.
    assert events(service, session)[-1]["snapshotFiles"][0]["content"] == content


def test_resume_remote_prefers_the_file_on_disk(service: PlanModeService) -> None:
    plans.write_atomic(plan_file(service), PLAN)
    log = write_transcript(service.root, [snapshot("# old\n")])
    assert service.resume(service.require_session("s1"), log, remote=True)[0] is True
    assert plan_file(service).read_text() == PLAN


def test_resume_remote_with_nothing_to_recover(service: PlanModeService) -> None:
    log = write_transcript(service.root, [user(), user("more")])
    assert service.resume(service.require_session("s1"), log, remote=True)[0] is False
    assert not plan_file(service).exists()


def test_resume_remote_layer_priority(service: PlanModeService) -> None:
    # Written in the reverse of their priority, so line order cannot be what decides.
    order = list(LAYERS)
    for start in range(len(order)):
        present = order[start:]
        lines: list[dict[str, Any] | str] = [user()]
        lines += [LAYERS[name](f"# from {name}\n") for name in reversed(present)]
        log = write_transcript(service.root, lines, name=f"p{start}")
        plan_file(service).unlink(missing_ok=True)
        session = service.require_session(f"s{start}")
        assert service.resume(session, log, remote=True)[0] is True
        assert plan_file(service).read_text() == f"# from {present[0]}\n", present


@pytest.mark.parametrize("layer", list(LAYERS))
def test_the_latest_line_within_a_layer_wins(service: PlanModeService, layer: str) -> None:
    make = LAYERS[layer]
    log = write_transcript(service.root, [make("# first\n"), user(), make("# latest\n"), user()])
    assert service.resume(service.require_session("s1"), log, remote=True)[0] is True
    assert plan_file(service).read_text() == "# latest\n"


def test_flat_plan_file_reference_and_malformed_lines(service: PlanModeService) -> None:
    flat = {"type": "attachment", "slug": SLUG, "subtype": "plan_file_reference"}
    flat["planContent"] = "# flat\n"
    log = write_transcript(service.root, ["{not json", user(), flat, "[]"])
    assert service.resume(service.require_session("s1"), log, remote=True)[0] is True
    assert plan_file(service).read_text() == "# flat\n"


def test_layers_that_are_not_plans_are_ignored() -> None:
    lines = [
        {"type": "system", "subtype": "file_snapshot", "snapshotFiles": [{"key": "x"}]},
        {"type": "user", "message": {"content": [{"type": "tool_use", "name": "ExitPlanMode"}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Write"}]}},
        {"type": "assistant", "planContent": "# not a user line\n"},
        {"type": "attachment", "attachment": {"type": "other", "planContent": "# no\n"}},
        {"type": "assistant", "message": "text only"},
    ]
    assert transcripts.recover_plan(lines, None) is None
    assert transcripts.recover_plan(lines, "# disk\n") == transcripts.Recovered("# disk\n", "file")
    assert transcripts.recover_plan([snapshot("a")], None, use_transcript=False) is None


def test_resume_without_a_slug_is_not_restored(service: PlanModeService) -> None:
    session = service.require_session("s1")
    before = service.plan_slug(session)
    log = write_transcript(
        service.root, [{"type": "user", "message": {"content": "hi"}}, {"type": "system"}]
    )
    restored, path = service.resume(session, log, remote=True)
    assert restored is False
    assert session.slug == before
    assert path == plan_file(service, before)


def test_the_last_slug_of_the_transcript_counts() -> None:
    lines = [{"slug": "first-one"}, {"slug": ""}, {"slug": "second-one"}, {"slug": None}]
    assert transcripts.slug_of(lines) == "second-one"
    assert transcripts.slug_of([{"type": "user"}]) is None


def test_resume_missing_transcript_is_invalid_params(service: PlanModeService) -> None:
    session = service.require_session("s1")
    slug = service.plan_slug(session)
    with pytest.raises(InvalidParams, match="transcript"):
        service.resume(session, str(service.root / "nope.jsonl"))
    with pytest.raises(InvalidParams, match="transcript"):
        service.fork(session, "nope.jsonl")
    with pytest.raises(InvalidParams, match="transcript"):
        service.resume(session, str(service.root))  # a directory
    assert session.slug == slug


def test_a_relative_transcript_path_is_resolved_against_the_root(
    service: PlanModeService,
) -> None:
    write_transcript(service.root, [user()])
    session = service.require_session("s1")
    service.resume(session, "logs/t.jsonl")
    assert session.slug == SLUG


@pytest.mark.parametrize("bad", ["../../src/evil", "/tmp/evil", "a/b", "..", ".hidden"])
def test_an_unsafe_slug_in_a_transcript_is_refused(service: PlanModeService, bad: str) -> None:
    session = service.require_session("s1")
    slug = service.plan_slug(session)
    line = {**snapshot("# pwned\n"), "slug": bad}
    log = write_transcript(service.root, [line])
    with pytest.raises(InvalidParams):
        service.resume(session, log, remote=True)
    assert session.slug == slug
    assert service.plan_path(session) == plan_file(service, slug)  # still usable
    assert PlanModeService(service.root).require_session("s1").slug == slug
    with pytest.raises(InvalidParams):
        service.fork(session, log)
    assert not list(service.root.parent.rglob("evil*"))


# -- slugs are never shared -----------------------------------------------------------------
def test_a_new_session_never_picks_up_another_sessions_plan(
    service: PlanModeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code #12838: a fresh session must not land on an existing plan file."""
    first = service.require_session("a")
    service.enter(first)
    plans.write_atomic(service.plan_path(first), PLAN)
    names = iter([first.slug, first.slug, "fresh-start"])
    monkeypatch.setattr(plans, "generate_slug", lambda _words: next(names))
    second = service.require_session("b")
    service.enter(second)
    assert second.slug == "fresh-start"
    assert service.state(second).plan_exists is False
    assert service.next_turn(second)[0][0].plan_exists is False


def test_two_new_sessions_get_different_slugs_before_any_plan_is_written(
    service: PlanModeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = iter(["same-name", "same-name", "other-name"])
    monkeypatch.setattr(plans, "generate_slug", lambda _words: next(names))
    a = service.plan_slug(service.require_session("a"))
    b = service.plan_slug(service.require_session("b"))
    assert (a, b) == ("same-name", "other-name")


# -- fork -----------------------------------------------------------------------------------
def test_fork_copies_the_plan_to_a_new_slug(service: PlanModeService) -> None:
    original = plan_file(service)
    plans.write_atomic(original, PLAN)
    log = write_transcript(service.root, [user(), snapshot("# older snapshot\n")])
    session = service.require_session("forked")
    copied, path = service.fork(session, log)
    assert copied is True
    assert session.slug != SLUG
    assert path == plan_file(service, session.slug or "")
    assert path.read_text() == PLAN  # the file on disk comes first
    assert original.read_text() == PLAN
    # Independent from then on.
    service.enter(session)
    service.begin_exit(session, plan="# forked plan\n")
    assert original.read_text() == PLAN
    plans.write_atomic(original, "# original moves on\n")
    assert path.read_text() == "# forked plan\n"


def test_fork_of_a_session_holding_the_original_slug_moves_it(service: PlanModeService) -> None:
    session = service.require_session("s1")
    log = write_transcript(service.root, [user()])
    service.resume(session, log)
    assert session.slug == SLUG
    copied, path = service.fork(session, log)
    assert copied is False  # no plan anywhere
    assert session.slug != SLUG
    assert path.stem == session.slug


def test_fork_recovers_from_the_transcript_when_the_file_is_gone(
    service: PlanModeService,
) -> None:
    log = write_transcript(service.root, [user(), exit_tool_use("# from the tool call\n")])
    session = service.require_session("forked")
    copied, path = service.fork(session, log)
    assert copied is True
    assert path.read_text() == "# from the tool call\n"
    assert not plan_file(service).exists()


def test_fork_without_a_slug_copies_nothing(service: PlanModeService) -> None:
    log = write_transcript(service.root, [{"type": "user"}])
    session = service.require_session("forked")
    copied, path = service.fork(session, log)
    assert copied is False
    assert not path.exists()


# -- re-entry after resume ------------------------------------------------------------------
def test_reentry_after_resuming_a_conversation_that_left_plan_mode(
    service: PlanModeService,
) -> None:
    plans.write_atomic(plan_file(service), PLAN)
    lines: list[dict[str, Any] | str] = [
        transcripts.mode_change(SLUG, "default", "plan"),
        transcripts.exit_call(SLUG, PLAN),
        transcripts.mode_change(SLUG, "plan", "default"),
    ]
    log = write_transcript(service.root, lines)
    session = service.require_session("s1")
    assert service.resume(session, log)[0] is True
    assert service.state(session).has_exited_plan_mode is True
    service.enter(session)
    found, _ = service.next_turn(session)
    assert [a.type for a in found] == ["plan_mode_reentry", "plan_mode"]
    assert found[0].plan_file_path == str(plan_file(service))


def test_no_reentry_after_resuming_a_conversation_that_never_left(
    service: PlanModeService,
) -> None:
    plans.write_atomic(plan_file(service), PLAN)
    log = write_transcript(service.root, [transcripts.mode_change(SLUG, "default", "plan")])
    session = service.require_session("s1")
    service.resume(session, log)
    service.enter(session)
    assert [a.type for a in service.next_turn(session)[0]] == ["plan_mode"]
