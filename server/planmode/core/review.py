"""The review: the plans that wait for the user's decision — each session's pending approval,
the decision on it — and the agent's revisions of a plan the user has seen, which the user
keeps or undoes hunk by hunk (the hunks: :mod:`~planmode.core.revisions`).

For each plan path this keeps the text the user has seen (a pending or rejected plan), whether
the agent revised it since, whether its last exit was empty, the review comments sent with
its last rejection, and every revision in the plan's history (docs/protocol.md §5.1, §5.6).

The user decides only what they saw (docs/protocol.md §5.1, "Who wrote what"): a change of the
plan that the user did not make in the editor is the agent's revision, reviewed as one; a
decision without a digest approves only the text last shown to the user; only the review
comments the user wrote in the editor are theirs (:mod:`~planmode.core.provenance`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planmode.core import (
    comments,
    history,
    library,
    plans,
    prompts,
    provenance,
    revisions,
    steps,
    transcripts,
)
from planmode.core.approval import (
    AllowedPrompt,
    Approval,
    ExitResult,
    approved_exit,
    plan_digest,
    rejected_exit,
    saved_exit,
)
from planmode.core.errors import InvalidParams, NoPendingApproval, NotInPlanMode, PlanChanged
from planmode.core.history import PlanHistory
from planmode.core.modes import PermissionMode
from planmode.core.registry import LeavePlan, SessionRegistry
from planmode.core.session import Session

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Decision:
    """An approved or rejected exit: what the agent gets and what to tell the user."""

    approval: Approval
    result: ExitResult
    warnings: tuple[str, ...] = ()
    # The text written back to the plan file, when it had to be.
    written: str | None = None


class ReviewState:
    def __init__(self, registry: SessionRegistry, leave_plan: LeavePlan) -> None:
        self.registry = registry
        self.leave_plan = leave_plan
        self.history = PlanHistory(registry.state)
        # Plan path -> the text the user has seen (a pending or rejected plan): agent
        # revisions are reviewed against it hunk by hunk.
        self.seen: dict[Path, str] = {}
        # Plan paths the agent revised since the user saw them: only those are reviewed (the
        # user's own edits in the buffer are not changes to review).
        self.revised: set[Path] = set()
        # Plan paths whose last exit submitted an empty plan (an information diagnostic).
        self.empty_exits: set[Path] = set()
        # Whether the sessions saved with comments sent with a rejection were loaded (the
        # comments are their sessions', see sent_comments).
        self._sent_loaded = False
        # Who wrote which text of each plan, and what each approval last showed the user.
        self.provenance = provenance.Provenance()
        # Every decision on a plan, for the plan library (core/library.py).
        self.library = library.LibraryRecord(registry.state)

    # -- the pending approval -------------------------------------------------------------
    def begin_exit(
        self,
        session: Session,
        agent_id: str | None = None,
        plan: str | None = None,
        allowed_prompts: tuple[AllowedPrompt, ...] = (),
        write: bool = True,
        exit_tool: str = prompts.EXIT_TOOL,
        submit_plan: str | None = None,
        agent: str | None = None,
    ) -> tuple[Approval, Approval | None]:
        """Validate an ExitPlanMode call and make its approval pending.

        Returns the new approval and the one it replaced, if any (that one must be answered
        as rejected). ``plan`` is written to the plan file first unless ``write`` is false:
        the caller writes it (a plan open in the editor). ``exit_tool``: what the agent
        calls ExitPlanMode (the texts it reads name it). ``submit_plan``: the agent's exit
        brings its plan (core/agents.py, PlanInExit): ``plan`` is its submission, not an edit.
        ``agent``: the coding agent whose exit it is (the plan library lists it).
        """
        if session.modes.mode != "plan":
            raise NotInPlanMode()
        registry = self.registry
        path = registry.plan_path(session, agent_id)
        if plan is not None and write:
            plans.write_plan(path, plan)
        submitted = plan if plan is not None else (registry.read_text(path) or "")
        approval = Approval(
            session_id=session.id,
            plan_file_path=path,
            submitted_plan=submitted,
            agent_id=agent_id,
            allowed_prompts=allowed_prompts,
            plan_given=plan is not None and submit_plan is None,
            exit_tool=exit_tool,
            submit_plan=submit_plan,
            agent=agent,
        )
        replaced = session.pending
        session.pending = approval
        if replaced is not None:
            self.provenance.decided(replaced.approval_id)
        if plan is not None or self.provenance.author(path, submitted) is None:
            self.provenance.wrote(path, submitted, "agent")
        # What the approval shows (the plan opened in the editor, or named): the submission.
        self.provenance.show(approval.approval_id, submitted)
        self._keep_revision(path, submitted, "agent", "submitted for approval")
        # After a rejection the user has seen the rejected text: show what changed since.
        if path not in self.seen:
            self.seen[path] = submitted
            self.revised.discard(path)
        elif submitted != self.seen[path]:
            self.revised.add(path)
        if submitted.strip():
            self.empty_exits.discard(path)
        else:
            self.empty_exits.add(path)
        registry.record(session, transcripts.exit_call(session.slug, plan))
        registry.snapshot(session, path, submitted)
        return approval, replaced

    def find_pending(self, approval_id: str, session_id: str | None = None) -> Session:
        """The session whose pending approval is ``approval_id``."""
        if session_id is not None:
            session = self.registry.session(session_id, create=False)
            if session is None:
                raise NoPendingApproval(f"(unknown session {session_id!r})")
            candidates = [session]
        else:
            candidates = list(self.registry.sessions.values())
        for session in candidates:
            if session.pending is not None and session.pending.approval_id == approval_id:
                return session
        raise NoPendingApproval(f"with approvalId {approval_id!r}")

    def pending_for(self, path: Path) -> Session | None:
        return next(
            (
                s
                for s in self.registry.sessions.values()
                if s.pending and s.pending.plan_file_path == path
            ),
            None,
        )

    def current_plan(self, approval: Approval) -> str:
        return self.observe(approval.plan_file_path)

    def _read(self, path: Path) -> str:
        return self.registry.read_text(path) or ""

    def observe(self, path: Path) -> str:
        """The plan's text now (the open buffer, else the file). A change since that the user
        did not make in the editor is the agent's revision: the text under approval, reviewed
        hunk by hunk against what the user saw, never the user's edit."""
        text = self._read(path)
        if self.provenance.is_users(path, text):
            return text
        session = self.pending_for(path)
        if session is not None and session.pending is not None:
            if text != session.pending.submitted_plan:
                self.agent_edited(path, text, "changed outside the editor")
        elif path in self.seen and text != self.seen[path]:
            self.revised.add(path)
        return text

    def cancel(self, approval: Approval) -> bool:
        """Drop a pending approval whose request went away; the session stays in plan."""
        session = self.registry.sessions.get(approval.session_id)
        if session is None or session.pending is None:
            return False
        if session.pending.approval_id != approval.approval_id:
            return False
        session.pending = None
        self.provenance.decided(approval.approval_id)
        return True

    # -- what the user saw and wrote ----------------------------------------------------------
    def showing(self, decision_id: str, text: str) -> None:
        """The editor is shown ``text`` with the decision's lenses or code actions."""
        self.provenance.show(decision_id, text)

    def editor_opened(self, path: Path, text: str) -> None:
        self.provenance.opened(path, text)

    def editor_changed(self, path: Path, text: str, disk: str | None) -> None:
        """The plan's open buffer now holds ``text``. Typed by the user, it is theirs, and
        what its approval shows them."""
        if self.provenance.changed(path, text, disk) == "user":
            session = self.pending_for(path)
            if session is not None and session.pending is not None:
                self.provenance.show(session.pending.approval_id, text)

    def editor_saved(self, path: Path, text: str) -> None:
        """The editor saved the plan's buffer holding ``text``; what the user typed just
        before may only now be known to be theirs."""
        if self.provenance.saved(path, text):
            session = self.pending_for(path)
            if session is not None and session.pending is not None:
                self.provenance.show(session.pending.approval_id, text)

    def agent_tool(self, tool: str, tool_input: dict[str, Any]) -> None:
        """An agent's Write, Edit or MultiEdit of a plan file may run (checkTool did not deny
        it): the text it will leave there is the agent's, whoever reloads or saves it."""
        written = self.agent_write(tool, tool_input)
        if written is not None:
            self.provenance.wrote(*written, "agent")

    def agent_write(self, tool: str, tool_input: dict[str, Any]) -> tuple[Path, str] | None:
        """The plan file an agent's Write, Edit or MultiEdit writes, and the text it leaves
        there (None: not a plan file, or a call that would fail)."""
        raw = tool_input.get("file_path")
        if tool not in ("Write", "Edit", "MultiEdit") or not isinstance(raw, str) or not raw:
            return None
        path = self.registry.find_plan_file(raw)
        if path is None:
            return None
        text = _tool_result(tool, tool_input, plans.read_plan(path) or "")
        return None if text is None else (path, text)

    def expect_agent_text(self, path: Path, text: str) -> None:
        """An agent's edit is on its way to the editor: the buffer holding ``text`` will be the
        agent's, not the user's (it arrives before the editor answers)."""
        self.provenance.wrote(path, text, "agent")

    def user_wrote(self, path: Path, text: str) -> None:
        """The user's own change made by the server (an Undo): theirs, and shown to them."""
        self.provenance.wrote(path, text, "user")
        session = self.pending_for(path)
        if session is not None and session.pending is not None:
            self.provenance.show(session.pending.approval_id, text)

    # -- the user's decision --------------------------------------------------------------
    def approve(
        self,
        approval_id: str,
        session_id: str | None = None,
        mode: PermissionMode | None = None,
        plan_sha256: str | None = None,
        include_comments: bool = False,
        grant: tuple[AllowedPrompt, ...] = (),
    ) -> Decision:
        """Approve the plan as the file holds it now, and restore the session's mode.

        Review comments are never part of the approved plan; with ``include_comments`` they
        reach the agent as notes. Of the approval's allowed prompts only those in ``grant``
        (the ones the approver was shown) are granted."""
        if mode == "plan":
            raise InvalidParams("mode must be a mode to return to, not 'plan'")
        session, approval, reviewed = self._as_shown(approval_id, session_id, plan_sha256)
        notes = self._comments_to_deliver(approval, reviewed, include_comments, "approved")
        current = comments.strip_comments(reviewed)
        written = None
        if current != (plans.read_plan(approval.plan_file_path) or ""):
            plans.write_plan(approval.plan_file_path, current)
            written = current
        submitted = comments.strip_comments(approval.submitted_plan)
        if current != submitted:
            # Only the user's own text differs from the agent's here (current_plan above).
            self._keep_revision(approval.plan_file_path, current, "user", "edited at approval")
        self.forget(approval.plan_file_path)
        self.provenance.decided(approval.approval_id)
        warnings: tuple[str, ...] = ()
        restored: PermissionMode | None = None
        granted: tuple[AllowedPrompt, ...] = ()
        if approval.agent_id is None:
            # A subagent's plan is approved without taking the whole session out of plan.
            transition = self.leave_plan(session, mode)
            warnings = transition.warnings
            restored = transition.state.mode
            granted = approval.granted(grant)
            session.granted_prompts = _merge_prompts(session.granted_prompts, granted)
        session.pending = None
        session.sent_comments.pop(approval.plan_file_path, None)
        self.registry.save(session)
        self.registry.record(session, transcripts.decision(session.slug, "approved"))
        planned = steps.parse_steps(current)
        count = library.StepCount(sum(step.checked for step in planned), len(planned))
        self._decided(approval, "approved", count)
        self.registry.snapshot(session, approval.plan_file_path, current)
        result = replace(
            approved_exit(approval, current, restored, notes, submitted, granted),
            chosen_mode=mode,
        )
        return Decision(approval, result, warnings, written)

    def reject(
        self,
        approval_id: str,
        session_id: str | None = None,
        feedback: str | None = None,
        include_comments: bool = False,
    ) -> Decision:
        """Reject the pending plan with ``feedback`` and, with ``include_comments``, the
        review comments written in it; plan mode stays."""
        session = self.find_pending(approval_id, session_id)
        assert session.pending is not None
        reviewed = self.current_plan(session.pending)
        approval = session.pending
        sent = self._comments_to_deliver(approval, reviewed, include_comments, "rejected")
        session.pending = None
        self.provenance.decided(approval.approval_id)
        # The comments go to the agent and are shown on their own, re-anchored: the revision
        # is reviewed against the plan without them.
        self.seen[approval.plan_file_path] = comments.strip_comments(reviewed)
        self.revised.discard(approval.plan_file_path)
        if sent:
            session.sent_comments[approval.plan_file_path] = sent
            self.registry.save(session)
        result = rejected_exit(approval, feedback, sent)
        self.registry.record(
            session, transcripts.decision(session.slug, "rejected", result.feedback)
        )
        self._decided(approval, "rejected")
        return Decision(approval, result)

    def save_for_later(
        self, approval_id: str, session_id: str | None = None, plan_sha256: str | None = None
    ) -> Decision:
        """Save the pending plan for later (docs/protocol.md §12.3): the guards of
        :meth:`approve` (decide only what was shown), the plan kept as it is with its history,
        the agent told not to implement it; plan mode stays."""
        session, approval, reviewed = self._as_shown(approval_id, session_id, plan_sha256)
        path = approval.plan_file_path
        session.pending = None
        self.provenance.decided(approval.approval_id)
        # What the user saw is what is kept: unsaved editor contents (their review comments
        # too, notes for later) go to the file, as an approval's plan does.
        written = None
        if reviewed != (plans.read_plan(path) or ""):
            plans.write_plan(path, reviewed)
            written = reviewed
        author: history.Author = "user" if self.provenance.is_users(path, reviewed) else "agent"
        self._keep_revision(path, reviewed, author, "saved for later")
        # Taken up again, the plan is reviewed against the text the user saved.
        self.seen[path] = comments.strip_comments(reviewed)
        self.revised.discard(path)
        self.registry.record(session, transcripts.decision(session.slug, "saved"))
        self.registry.snapshot(session, path, reviewed)
        self._decided(approval, "saved")
        return Decision(approval, saved_exit(approval, reviewed), written=written)

    def _as_shown(
        self, approval_id: str, session_id: str | None, plan_sha256: str | None
    ) -> tuple[Session, Approval, str]:
        """The pending approval and the plan as the user reviewed it, for a decision that
        takes the plan (approve, save for later): only exactly what was shown is decided — the
        digest the user names, else the text the lenses, the question or the user's own typing
        last showed them (PlanChanged otherwise)."""
        session = self.find_pending(approval_id, session_id)
        assert session.pending is not None
        path = session.pending.plan_file_path
        shown = plan_sha256.lower() if plan_sha256 is not None else None
        if (shown or self.provenance.shown(approval_id)) != plan_digest(self._read(path)):
            raise PlanChanged()
        reviewed = self.observe(path)
        approval = session.pending  # a change the agent made since is in it now
        assert approval is not None
        return session, approval, reviewed

    def _decided(
        self,
        approval: Approval,
        event: library.Decided,
        count: library.StepCount | None = None,
    ) -> None:
        """The decision's line in the plan library's record; losing it must not fail the
        decision, which is made."""
        line = library.event_line(
            approval.plan_file_path,
            event,
            session_id=approval.session_id,
            agent=approval.agent,
            approval_id=approval.approval_id,
            progress=count,
        )
        try:
            self.library.append(line)
        except OSError as exc:
            log.error("the plan library cannot record %s: %s", approval.plan_file_path, exc)

    def _comments_to_deliver(
        self, approval: Approval, reviewed: str, include: bool, outcome: str
    ) -> tuple[comments.Comment, ...]:
        """The user's comments written in the plan they decided on, kept in its history."""
        if not include:
            return ()
        path = approval.plan_file_path
        found = tuple(comments.delivered(self.comment_view(path, reviewed)[0]))
        if found:
            count = f"{len(found)} comment{'s' if len(found) != 1 else ''}"
            author: history.Author = "user" if self.provenance.is_users(path, reviewed) else "agent"
            self._keep_revision(path, reviewed, author, f"{outcome} with {count}", found)
        return found

    def comment_view(
        self, path: Path, text: str | None = None
    ) -> tuple[list[comments.Comment], list[comments.Comment]]:
        """The user's comments written in the plan (outdated when the text they annotated
        changed since they were sent) and those sent with the last rejection that the plan no
        longer holds, re-anchored in its current text. Comments the user did not write in the
        editor are not theirs: see :meth:`others_comments`."""
        if text is None:
            text = self.registry.read_text(path) or ""
        mine = self.provenance.users_comments(path, comments.parse(text))
        return comments.live_and_earlier(text, self.sent_comments(path), mine)

    def sent_comments(self, path: Path) -> list[comments.Comment]:
        """The review comments sent with the plan's last rejection, until it is approved: kept
        with the session that rejected it, so that they outlive the server."""
        if not self._sent_loaded:
            self._sent_loaded = True
            for session_id in self.registry.store.with_sent_comments():
                try:
                    self.registry.session(session_id, create=False)
                except InvalidParams:
                    continue  # a file name that is no session id
        for session in self.registry.sessions.values():
            if path in session.sent_comments:
                return list(session.sent_comments[path])
        return []

    def others_comments(self, path: Path, text: str) -> list[comments.Comment]:
        """The review comments written in the plan that the user did not write: the agent's
        (or anyone's outside the editor). Never counted, sent or delivered as the user's."""
        return self.provenance.others_comments(path, comments.parse(text))

    # -- revisions and hunks --------------------------------------------------------------
    def forget(self, path: Path) -> None:
        """No plan under review at ``path`` any more: its revisions need no Keep/Undo."""
        self.seen.pop(path, None)
        self.revised.discard(path)
        self.provenance.forget(path)

    def _keep_revision(
        self,
        path: Path,
        text: str,
        author: history.Author,
        reason: str,
        review_comments: tuple[comments.Comment, ...] = (),
    ) -> None:
        try:
            self.history.record(path, text, author, reason, review_comments)
        except OSError as exc:
            log.error("cannot record a revision of %s: %s", path, exc)

    def agent_edited(self, path: Path, text: str, reason: str) -> None:
        """An agent's edit of a plan file went through: keep it, and make it the text under
        approval (so it is not mistaken for the user's edit)."""
        self.provenance.wrote(path, text, "agent")
        self._keep_revision(path, text, "agent", reason)
        if path in self.seen:
            self.revised.add(path)
        session = self.pending_for(path)
        if session is not None and session.pending is not None:
            session.pending = replace(session.pending, submitted_plan=text)

    def hunks(self, path: Path) -> list[revisions.Hunk]:
        """Unreviewed changes of a plan the user has seen (none when there is no review)."""
        return self.unreviewed(path, self.observe(path))

    def unreviewed(self, path: Path, text: str) -> list[revisions.Hunk]:
        """The unreviewed changes of ``text``, the plan as it is, to what the user saw of it,
        without reading the plan (:meth:`observe` may record a revision; what only shows the
        hunks must not, or a change would be recorded before its author is known)."""
        seen = self.seen.get(path)
        if seen is None or path not in self.revised:
            return []
        found = revisions.hunks(seen, text)
        # A review comment the user writes is not a change of the agent's to review.
        return [h for h in found if h.old_lines or not comments.is_only_comments(h.new_lines)]

    def find_hunk(self, path: Path, hunk_id: str) -> revisions.Hunk:
        hunk = next((h for h in self.hunks(path) if h.id == hunk_id), None)
        if hunk is None:
            raise PlanChanged()
        return hunk

    def keep_hunk(self, path: Path, hunk_id: str) -> None:
        hunk = self.find_hunk(path, hunk_id)
        self.seen[path] = revisions.keep(self.seen[path], self.registry.read_text(path) or "", hunk)

    def undo_hunk(self, path: Path, hunk_id: str) -> tuple[revisions.Hunk, str]:
        """The hunk to revert and the plan text once it is reverted (the caller applies it)."""
        hunk = self.find_hunk(path, hunk_id)
        return hunk, revisions.undo(self.registry.read_text(path) or "", hunk)


def _tool_result(tool: str, tool_input: dict[str, Any], text: str) -> str | None:
    """What a Write, Edit or MultiEdit leaves in a file holding ``text`` (None: it fails)."""
    if tool == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    edits = tool_input.get("edits") if tool == "MultiEdit" else [tool_input]
    if not isinstance(edits, list):
        return None
    for edit in edits:
        if not isinstance(edit, dict):
            return None
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or old not in text:
            return None
        text = (
            text.replace(old, new) if edit.get("replace_all") is True else text.replace(old, new, 1)
        )
    return text


def _merge_prompts(
    held: tuple[AllowedPrompt, ...], new: tuple[AllowedPrompt, ...]
) -> tuple[AllowedPrompt, ...]:
    # dict keeps the first of each, in order: a prompt asked for twice is granted once.
    return tuple(dict.fromkeys(held + new))
