"""Turn counting for the plan-mode attachments (docs/protocol.md §5.3).

One call of :func:`next_turn` is one human turn. In plan mode a ``plan_mode`` attachment comes
on the first turn and then whenever five turns have passed since the previous one (turns 1,
6, 11, …); every fifth of them since the last exit (the 1st, 6th, 11th …) is ``full``, the
rest ``sparse``. A re-entry with an existing plan puts one ``plan_mode_reentry`` first; after
leaving plan mode the next turn gets one ``plan_mode_exit``. Subagents count on their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from planmode.core import workflow
from planmode.core.modes import ModeState

TURNS_BETWEEN_ATTACHMENTS = 5
FULL_REMINDER_EVERY_N_ATTACHMENTS = 5


@dataclass(frozen=True)
class TurnCounter:
    """One conversation's (or one subagent's) count; kept with the session."""

    # Turns since the last plan_mode attachment; None: none yet since entering plan mode.
    turns_since_attachment: int | None = None
    attachments_since_exit: int = 0


@dataclass(frozen=True)
class Attachment:
    type: str
    plan_file_path: str
    plan_exists: bool
    text: str
    reminder_type: str | None = None
    is_sub_agent: bool | None = None


@dataclass(frozen=True)
class TurnResult:
    attachments: tuple[Attachment, ...]
    modes: ModeState
    counter: TurnCounter


def on_plan_entered(counter: TurnCounter) -> TurnCounter:
    """A new stint in plan mode: its first turn gets an attachment."""
    return replace(counter, turns_since_attachment=None)


def next_turn(
    modes: ModeState,
    counter: TurnCounter,
    plan_path: str,
    read_plan: Callable[[], str | None],
    options: workflow.WorkflowOptions,
    is_sub_agent: bool = False,
) -> TurnResult:
    """The attachments for one human turn, and the updated flags and counter."""
    attachments: list[Attachment] = []
    if modes.needs_plan_mode_exit_attachment:
        modes = replace(modes, needs_plan_mode_exit_attachment=False)
        if modes.mode != "plan":
            exists = read_plan() is not None
            attachments.append(
                Attachment(
                    "plan_mode_exit", plan_path, exists, workflow.exit_text(plan_path, exists)
                )
            )
    if modes.mode != "plan":
        return TurnResult(tuple(attachments), modes, counter)

    since = counter.turns_since_attachment
    if since is not None and since + 1 < TURNS_BETWEEN_ATTACHMENTS:
        return TurnResult(
            tuple(attachments), modes, replace(counter, turns_since_attachment=since + 1)
        )

    existing = read_plan()
    exists = existing is not None
    if modes.has_exited_plan_mode and exists:
        attachments.append(
            Attachment("plan_mode_reentry", plan_path, True, workflow.reentry_text(plan_path))
        )
        modes = replace(modes, has_exited_plan_mode=False)
    count = counter.attachments_since_exit + 1
    full = count % FULL_REMINDER_EVERY_N_ATTACHMENTS == 1
    if is_sub_agent:
        text = workflow.subagent_instructions(plan_path, exists)
    elif full:
        text = workflow.full_instructions(plan_path, exists, options)
    else:
        text = workflow.sparse_instructions(plan_path, exists)
    attachments.append(
        Attachment(
            "plan_mode",
            plan_path,
            exists,
            text,
            reminder_type="full" if full else "sparse",
            is_sub_agent=is_sub_agent,
        )
    )
    return TurnResult(
        tuple(attachments),
        modes,
        TurnCounter(turns_since_attachment=0, attachments_since_exit=count),
    )
