"""The agent's revisions, hunk by hunk: the pure core and the service's seen/revised state."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planmode.core import revisions
from planmode.core.errors import PlanChanged
from planmode.core.revisions import Hunk
from planmode.core.service import PlanModeService
from tests.unit.editor_buffers import Buffers

SEEN = "# Plan\n\n1. Read src/app.py\n2. Change the greeting\n3. Run the app\n"


def undo_all(current: str, found: list[Hunk]) -> str:
    for hunk in reversed(found):
        current = revisions.undo(current, hunk)
    return current


def keep_all(seen: str, current: str) -> str:
    # Each keep changes the seen text, so the remaining hunks are recomputed every time.
    for _ in range(1000):
        found = revisions.hunks(seen, current)
        if not found:
            return seen
        seen = revisions.keep(seen, current, found[0])
    raise AssertionError("keeping hunks did not converge")


# -- hunks ----------------------------------------------------------------------------------


def test_identical_texts_have_no_hunks() -> None:
    assert revisions.hunks(SEEN, SEEN) == []
    assert revisions.hunks("", "") == []


def test_one_replaced_line_is_one_hunk() -> None:
    current = SEEN.replace("2. Change the greeting\n", "2. Change the greeting to Hi\n")
    (hunk,) = revisions.hunks(SEEN, current)
    assert hunk.start == 3 and hunk.seen_start == 3
    assert hunk.new_lines == ("2. Change the greeting to Hi\n",)
    assert hunk.old_lines == ("2. Change the greeting\n",)
    assert hunk.counts == (1, 1)


def test_two_separate_changes_are_two_hunks_in_order() -> None:
    current = (
        "# Better plan\n\n1. Read src/app.py\n2. Change the greeting\n3. Run the app\n4. Test\n"
    )
    first, second = revisions.hunks(SEEN, current)
    assert (first.start, first.new_lines, first.old_lines) == (
        0,
        ("# Better plan\n",),
        ("# Plan\n",),
    )
    assert (second.start, second.new_lines, second.old_lines) == (5, ("4. Test\n",), ())
    assert second.seen_start == 5
    assert first.id != second.id


def test_insertion_only_and_deletion_only_hunks() -> None:
    inserted = SEEN.replace("3. Run", "2b. Keep the old one\n3. Run")
    (hunk,) = revisions.hunks(SEEN, inserted)
    assert hunk.old_lines == () and hunk.new_lines == ("2b. Keep the old one\n",)
    assert hunk.counts == (1, 0)
    deleted = SEEN.replace("2. Change the greeting\n", "")
    (hunk,) = revisions.hunks(SEEN, deleted)
    assert hunk.new_lines == () and hunk.old_lines == ("2. Change the greeting\n",)
    assert hunk.start == 3 and hunk.counts == (0, 1)


def test_last_line_without_newline_is_its_own_line() -> None:
    seen = "a\nb"
    current = "a\nb\nc"
    (hunk,) = revisions.hunks(seen, current)
    assert hunk.old_lines == ("b",)
    assert hunk.new_lines == ("b\n", "c")
    assert revisions.undo(current, hunk) == seen
    assert revisions.keep(seen, current, hunk) == current


def test_hunk_lines_are_lsp_lines() -> None:
    # Only \n, \r\n and \r end a line in LSP: a form feed or U+2028 inside a line must not
    # shift the hunk's line numbers away from the editor's.
    seen = "# Plan\x0c page\nintro\u2028same line\nold step\n"
    current = "# Plan\x0c page\nintro\u2028same line\nnew step\n"
    (hunk,) = revisions.hunks(seen, current)
    assert hunk.start == 2
    assert hunk.new_lines == ("new step\n",)
    assert revisions.undo(current, hunk) == seen


def test_crlf_lines_keep_their_endings() -> None:
    seen = "a\r\nb\r\nc\r\n"
    current = "a\r\nB\r\nc\r\n"
    (hunk,) = revisions.hunks(seen, current)
    assert hunk.old_lines == ("b\r\n",) and hunk.new_lines == ("B\r\n",)
    assert revisions.undo(current, hunk) == seen


def test_hunk_id_is_stable_and_depends_on_both_sides() -> None:
    current = SEEN.replace("1. Read", "1. Skim")
    (a,) = revisions.hunks(SEEN, current)
    (b,) = revisions.hunks(SEEN, current)
    assert a.id == b.id and len(a.id) == 16
    (other_new,) = revisions.hunks(SEEN, SEEN.replace("1. Read", "1. Study"))
    (other_old,) = revisions.hunks(SEEN.replace("1. Read", "1. Open"), current)
    assert len({a.id, other_new.id, other_old.id}) == 3
    moved = Hunk(a.start + 1, a.new_lines, a.seen_start, a.old_lines)
    assert moved.id != a.id


# -- keep and undo --------------------------------------------------------------------------


def test_undo_restores_exactly_the_old_lines() -> None:
    current = SEEN.replace("2. Change the greeting\n", "2. Change it\n2b. And more\n")
    (hunk,) = revisions.hunks(SEEN, current)
    assert revisions.undo(current, hunk) == SEEN


def test_keep_folds_the_hunk_into_the_seen_text() -> None:
    current = "# Plan v2\n" + SEEN[len("# Plan\n") :] + "4. Ship\n"
    first, _ = revisions.hunks(SEEN, current)
    kept = revisions.keep(SEEN, current, first)
    assert kept == "# Plan v2\n" + SEEN[len("# Plan\n") :]
    (left,) = revisions.hunks(kept, current)
    assert left.new_lines == ("4. Ship\n",)


def test_undo_of_a_hunk_that_no_longer_matches_raises() -> None:
    current = SEEN.replace("1. Read", "1. Skim")
    (hunk,) = revisions.hunks(SEEN, current)
    with pytest.raises(ValueError):
        revisions.undo(current.replace("1. Skim", "1. Glance"), hunk)
    with pytest.raises(ValueError):
        revisions.keep(SEEN.replace("1. Read", "1. Open"), current, hunk)


def test_summary_names_what_undo_brings_back() -> None:
    current = SEEN.replace("2. Change the greeting\n", "")
    (hunk,) = revisions.hunks(SEEN, current)
    assert revisions.summary(hunk) == "restores “2. Change the greeting”"
    two = Hunk(0, (), 0, ("first\n", "second\n"))
    assert revisions.summary(two) == "restores “first” +1 more"
    assert revisions.summary(Hunk(0, ("x\n", "y\n"), 0, ())) == "removes 2 added line(s)"
    assert revisions.summary(Hunk(0, ("x\n",), 0, ("   \n",))) == "restores “(blank line)”"
    long = revisions.summary(Hunk(0, (), 0, ("x" * 100 + "\n",)), width=10)
    assert long == "restores “xxxxxxxxx…”"


# -- properties -----------------------------------------------------------------------------

LINES = st.lists(
    st.sampled_from(["a", "b", "c", "", "# h", "  x", "é", "a\r"]).map(lambda s: s + "\n"),
    max_size=12,
)


@st.composite
def texts(draw: st.DrawFn) -> str:
    body = "".join(draw(LINES))
    tail = draw(st.sampled_from(["", "z", "a", "no newline"]))
    return body + tail


@settings(max_examples=300, deadline=None)
@given(texts(), texts())
def test_undoing_every_hunk_from_the_last_yields_seen(seen: str, current: str) -> None:
    assert undo_all(current, revisions.hunks(seen, current)) == seen


@settings(max_examples=300, deadline=None)
@given(texts(), texts())
def test_keeping_every_hunk_makes_seen_current(seen: str, current: str) -> None:
    assert keep_all(seen, current) == current
    found = revisions.hunks(seen, current)
    folded = seen
    # Keeping the hunks from last to first needs no recomputation: earlier lines stay put.
    for hunk in reversed(found):
        folded = revisions.keep(folded, current, hunk)
    assert folded == current


@settings(max_examples=200, deadline=None)
@given(texts())
def test_hunks_of_identical_texts_are_empty(text: str) -> None:
    assert revisions.hunks(text, text) == []


@settings(max_examples=200, deadline=None)
@given(texts(), texts())
def test_hunks_tile_the_current_text(seen: str, current: str) -> None:
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", current)
    for hunk in revisions.hunks(seen, current):
        assert hunk.new_lines or hunk.old_lines
        assert tuple(lines[hunk.start : hunk.start + len(hunk.new_lines)]) == hunk.new_lines


# -- the service ----------------------------------------------------------------------------


def pending(service: PlanModeService, plan: str = SEEN) -> tuple[Path, str]:
    session = service.require_session("s")
    service.enter(session)
    approval, _ = service.begin_exit(session, plan=plan)
    return approval.plan_file_path, approval.approval_id


def test_no_review_without_a_pending_or_rejected_plan(service: PlanModeService) -> None:
    session = service.require_session("s")
    service.enter(session)
    path = service.plan_path(session)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("changed\n")
    service.agent_edited(path, "changed\n", "agent edit")
    assert service.hunks(path) == []
    assert service.review.seen == {}


def test_agent_revision_during_pending_approval_is_reviewed(service: PlanModeService) -> None:
    path, _ = pending(service)
    assert service.hunks(path) == []  # nothing revised yet
    revised = SEEN.replace("# Plan\n", "# Plan v2\n") + "4. Test it\n"
    path.write_text(revised)
    service.agent_edited(path, revised, "tighten")
    first, second = service.hunks(path)
    assert first.start == 0 and second.start == 5
    session = service.pending_for(path)
    assert session is not None and session.pending is not None
    assert session.pending.submitted_plan == revised  # not mistaken for a user edit

    service.keep_hunk(path, first.id)
    assert [h.id for h in service.hunks(path)] == [second.id]
    hunk, reverted = service.undo_hunk(path, second.id)
    assert hunk == second
    assert reverted == SEEN.replace("# Plan\n", "# Plan v2\n")


def test_the_users_own_edits_are_not_changes_to_review(service: PlanModeService) -> None:
    path, _ = pending(service)
    Buffers(service).type(path, SEEN + "4. Mine\n")
    assert service.hunks(path) == []


def test_a_change_nobody_made_in_the_editor_is_the_agents_revision(
    service: PlanModeService,
) -> None:
    """The agent writes the file itself (its Write tool, allowed while planning): a revision,
    reviewed hunk by hunk, the text under approval, recorded as the agent's."""
    path, approval_id = pending(service)
    revised = SEEN + "4. Sneaked in\n"
    path.write_text(revised)
    (hunk,) = service.hunks(path)
    assert hunk.new_lines == ("4. Sneaked in\n",)
    session = service.pending_for(path)
    assert session is not None and session.pending is not None
    assert session.pending.submitted_plan == revised
    assert [(r.author, r.reason) for r in service.history.revisions(path)][-1] == (
        "agent",
        "changed outside the editor",
    )
    # The editor reloading the file does not make it the user's either.
    Buffers(service).reload(path)
    assert len(service.hunks(path)) == 1
    # Not shown to the user yet: a decision without a digest cannot approve it.
    with pytest.raises(PlanChanged):
        service.approve(approval_id, "s")
    assert session.modes.mode == "plan" and session.pending is not None
    service.showing(approval_id, revised)  # the lenses show it, with its hunk
    result = service.approve(approval_id, "s").result
    assert result.plan == revised and result.user_edits_diff is None  # no edit of the user
    assert [r.author for r in service.history.revisions(path)] == ["agent", "agent"]


def test_stale_hunk_ids_change_nothing(service: PlanModeService) -> None:
    path, _ = pending(service)
    revised = SEEN.replace("1. Read", "1. Skim")
    path.write_text(revised)
    service.agent_edited(path, revised, "skim")
    (hunk,) = service.hunks(path)
    seen_before = dict(service.review.seen)
    with pytest.raises(PlanChanged):
        service.keep_hunk(path, "0" * 16)
    with pytest.raises(PlanChanged):
        service.undo_hunk(path, "not-a-hunk")
    assert service.review.seen == seen_before
    path.write_text(revised.replace("1. Skim", "1. Glance"))
    with pytest.raises(PlanChanged):
        service.keep_hunk(path, hunk.id)
    assert service.review.seen == seen_before


def test_rejected_text_is_the_baseline_of_the_next_exit(service: PlanModeService) -> None:
    path, approval_id = pending(service)
    service.reject(approval_id, "s", "shorter")
    assert service.review.seen[path] == SEEN
    assert service.hunks(path) == []  # nothing changed since the rejection
    session = service.require_session("s")
    new_plan = SEEN.replace("3. Run the app\n", "")
    service.begin_exit(session, plan=new_plan)
    (hunk,) = service.hunks(path)
    assert hunk.old_lines == ("3. Run the app\n",) and hunk.new_lines == ()


def test_approval_ends_the_review(service: PlanModeService) -> None:
    path, approval_id = pending(service)
    revised = SEEN + "4. More\n"
    path.write_text(revised)
    service.agent_edited(path, revised, "more")
    assert len(service.hunks(path)) == 1
    service.showing(approval_id, revised)  # shown with its lenses, hunk unreviewed
    decision = service.approve(approval_id, "s")
    assert decision.result.plan == revised  # the plan as it stands, unreviewed or not
    assert service.hunks(path) == []
    assert path not in service.review.seen
