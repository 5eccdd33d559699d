"""Approvals: what is pending, what the approver saw, and what the agent is told.

An approval is created by ExitPlanMode and decided by approve or reject (docs/protocol.md §5). The
approved plan is the text the plan file holds at approval time; when it differs from what the
agent submitted the agent is told so, with a diff.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from planmode.core import grants, prompts
from planmode.core.comments import Comment, render
from planmode.core.linediff import opcodes, unified_diff
from planmode.core.modes import PermissionMode

Outcome = Literal["approved", "rejected", "saved", "awaitingLeaderApproval"]


@dataclass(frozen=True)
class AllowedPrompt:
    """A semantic permission the agent asks for with its plan, e.g. Bash "run tests"."""

    tool: str
    prompt: str


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Approval:
    session_id: str
    plan_file_path: Path
    submitted_plan: str
    agent_id: str | None = None
    allowed_prompts: tuple[AllowedPrompt, ...] = ()
    # ExitPlanMode's own ``plan`` input counts as an edit (docs/protocol.md §5.1).
    plan_given: bool = False
    # What the agent calls ExitPlanMode: the texts it reads on a rejection name it.
    exit_tool: str = prompts.EXIT_TOOL
    # How an agent whose exit brings its plan submits it (core/agents.py, PlanInExit): a
    # rejection tells it to do so again, not to revise a file.
    submit_plan: str | None = None
    # The coding agent whose exit this is (claude-code, gemini, codex, opencode; None for an
    # editor or the CLI): the plan library lists it (core/library.py).
    agent: str | None = None
    approval_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    requested_at: str = field(default_factory=now_iso)

    @property
    def grants(self) -> list[grants.PromptRule]:
        """What approving grants: each allowed prompt with the exact rule it will match."""
        return [grants.rule_for(p.tool, p.prompt) for p in self.allowed_prompts]

    def grants_notice(self) -> str:
        """What approving grants besides the plan, in one sentence for a message; "" when
        nothing. A surface that offers an approval without showing this grants nothing."""
        rules = self.grants
        if not rules:
            return ""
        listed = "; ".join(rule.rule for rule in rules)
        return f"Approving also allows these commands without asking: {listed}."

    def granted(self, shown: tuple[AllowedPrompt, ...]) -> tuple[AllowedPrompt, ...]:
        """The prompts an approval grants: those it asked for that the approver was shown
        and names (docs/protocol.md §5.1); the rest are not granted."""
        named = set(shown)
        return tuple(dict.fromkeys(p for p in self.allowed_prompts if p in named))


@functools.lru_cache(maxsize=16)
def plan_digest(text: str) -> str:
    """SHA-256 (hex) of the plan text as UTF-8: what a lens carries to approve exactly it.
    Remembered for the last few texts: one request asks it of the same plan several times
    (lenses, authorship, what was shown), and a plan may be megabytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def edit_counts(before: str, after: str) -> tuple[int, int]:
    """Lines added and removed going from ``before`` to ``after``."""
    if before == after:
        return 0, 0
    added = removed = 0
    for tag, i1, i2, j1, j2 in opcodes(before.splitlines(), after.splitlines()):
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


def edits_diff(before: str, after: str, path: Path | str) -> str | None:
    """A unified diff from the submitted plan to the approved one, or None when equal."""
    if before == after:
        return None
    lines = unified_diff(
        _diff_lines(before),
        _diff_lines(after),
        fromfile=f"{path} (submitted)",
        tofile=f"{path} (approved)",
    )
    return "".join(lines)


def _diff_lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def approve_lens_title(submitted: str, current: str, unreviewed: int = 0) -> str:
    """``Approve plan``, ``Approve plan (edited: +3 −1)`` once the user changed it, and how
    many of the agent's revisions are still unreviewed (``2 changes unreviewed``)."""
    notes = []
    if submitted != current:
        added, removed = edit_counts(submitted, current)
        notes.append(f"edited: +{added} −{removed}")
    if unreviewed:
        notes.append(f"{unreviewed} change{'s' if unreviewed != 1 else ''} unreviewed")
    return "Approve plan" + (f" ({'; '.join(notes)})" if notes else "")


@dataclass(frozen=True)
class ExitResult:
    outcome: Outcome
    file_path: str
    tool_result: str
    plan: str | None = None
    is_agent: bool = False
    plan_was_edited: bool = False
    user_edits_diff: str | None = None
    restored_mode: PermissionMode | None = None
    granted_prompts: tuple[AllowedPrompt, ...] = ()
    feedback: str | None = None
    request_id: str | None = None
    # The user's review comments (docs: README "Reviewing with comments"): on a rejection the
    # feedback, on an approval notes; ``remark`` is the overall feedback typed at rejection.
    comments: tuple[Comment, ...] = ()
    remark: str | None = None
    # An approval's comments as the agent reads them (a heading and the list): the end of
    # ``toolResult``, and what a hook adds to the plan it hands back.
    notes: str | None = None
    # The mode the approver chose (None: back to the mode from before plan mode).
    chosen_mode: PermissionMode | None = None


def comments_text(comments: tuple[Comment, ...]) -> str | None:
    """The comments as the agent reads them, introduced; None when there are none."""
    if not comments:
        return None
    return f"{prompts.COMMENTS_INTRO}\n{render(comments)}"


def approved_exit(
    approval: Approval,
    approved_plan: str | None,
    restored_mode: PermissionMode | None,
    notes: tuple[Comment, ...] = (),
    submitted_plan: str | None = None,
    granted: tuple[AllowedPrompt, ...] = (),
) -> ExitResult:
    """The agent's result when ``approved_plan`` (the file at approval time, without review
    comments) is approved; ``notes`` are the comments the user approved it with,
    ``submitted_plan`` the submission without comments (default: as submitted) and
    ``granted`` the allowed prompts the approval granted."""
    current = approved_plan or ""
    submitted = approval.submitted_plan if submitted_plan is None else submitted_plan
    user_edited = current != submitted
    edited = approval.plan_given or user_edited
    path = str(approval.plan_file_path)
    plan = approved_plan if approved_plan is not None and approved_plan.strip() else None
    tool_result = prompts.exit_tool_result(plan, path, approval.agent_id is not None, edited)
    listed = comments_text(notes)
    noted = None if listed is None else f"{prompts.NOTES_HEADING}\n{listed}"
    if noted is not None:
        tool_result += f"\n\n{noted}"
    return ExitResult(
        outcome="approved",
        file_path=path,
        plan=plan,
        is_agent=approval.agent_id is not None,
        plan_was_edited=edited,
        user_edits_diff=edits_diff(submitted, current, path),
        restored_mode=restored_mode,
        granted_prompts=granted,
        tool_result=tool_result,
        comments=notes,
        notes=noted,
    )


def rejected_exit_feedback(feedback: str | None, comments: tuple[Comment, ...]) -> str | None:
    """The feedback text the agent reads: the remark, then the comments with their anchors."""
    if not comments:
        return feedback
    remark = feedback.strip() if feedback and feedback.strip() else None
    return "\n\n".join(part for part in (remark, comments_text(comments)) if part)


def rejected_exit(
    approval: Approval, feedback: str | None, comments: tuple[Comment, ...] = ()
) -> ExitResult:
    """The agent's result of a rejection: ``feedback`` (the overall remark) and the
    ``comments``, rendered together into the ``feedback`` text the agent reads."""
    path = str(approval.plan_file_path)
    text = rejected_exit_feedback(feedback, comments)
    return ExitResult(
        outcome="rejected",
        file_path=path,
        plan=approval.submitted_plan or None,
        is_agent=approval.agent_id is not None,
        feedback=text,
        tool_result=prompts.rejected_result(
            path, feedback, comments_text(comments), approval.exit_tool, approval.submit_plan
        ),
        comments=comments,
        remark=feedback,
    )


def saved_exit(approval: Approval, saved_plan: str) -> ExitResult:
    """The agent's result when the user saves ``saved_plan`` for later (docs/protocol.md
    §12.3): plan mode stays, and the agent is told not to implement it now."""
    path = str(approval.plan_file_path)
    return ExitResult(
        outcome="saved",
        file_path=path,
        plan=saved_plan or None,
        is_agent=approval.agent_id is not None,
        tool_result=prompts.saved_result(path, approval.exit_tool, approval.submit_plan),
    )
