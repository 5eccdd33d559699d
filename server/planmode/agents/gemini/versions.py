"""Gemini CLI's versions: what was measured of which, and the texts of its own the adapter
reads (docs/gemini.md).

* 0.61.0 is the version measured, end to end (``tests/e2e/test_gemini.py``, ``make gemini``;
  ``make gemini-latest`` runs npm's newest).
* A hook's ``tool_input`` replaces the call's arguments and Gemini's policy judges the new
  ones; extra keys pass its argument check (exit_plan_mode, write_file, replace): that is how
  planmode's rules in the user's policy file recognise a call the hook vouched for
  (:data:`APPROVAL_KEY`, :data:`ACCEPT_EDITS_KEY`).
* An approved exit resumes in Default mode when a policy allowed it (no dialog): "Plan
  approved. Switching to <mode>." opens its result; leaving plan mode with Shift+Tab while the
  model is idle adds "User has manually exited Plan Mode. Switching to <mode>." to the
  conversation and its transcript; ``enter_plan_mode`` answers "Switching to Plan mode.".

The hook imports this before every tool call: no imports at all.
"""

from __future__ import annotations

MEASURED = ("0.61.0",)

# Gemini's own tools that the hook treats apart (tools.py maps all of them to plan mode's).
EXIT_TOOL = "exit_plan_mode"
ENTER_TOOL = "enter_plan_mode"
SHELL_TOOL = "run_shell_command"
EDIT_TOOLS = frozenset({"write_file", "replace"})

# Keys the hook adds to a call's arguments; planmode's policy file allows the call by them.
# exit_plan_mode: its value is what the model reads of the approval (AfterTool adds it).
APPROVAL_KEY = "planmode_approval"
# write_file and replace in Default mode, while the approved plan auto-accepts edits.
ACCEPT_EDITS_KEY = "planmode_accept_edits"

# What Gemini CLI says when its approval mode changes, and the mode (the protocol's) each
# description stands for (its getApprovalModeDescription).
MODE_DESCRIPTIONS = {
    "Default mode": "default",
    "Auto-Edit mode": "acceptEdits",
    "YOLO mode": "bypassPermissions",
    "Plan mode": "plan",
}
MANUAL_EXIT = "User has manually exited Plan Mode. Switching to "
APPROVED = "Plan approved. Switching to "
ENTERED = "Switching to Plan mode."
# Esc: the turn is cancelled at once (an info line in the transcript), a hook still running is
# not — Gemini queues new prompts until it ends.
CANCELLED = "Request cancelled."


def described_mode(text: str, prefix: str) -> str | None:
    """The mode ``text`` switches to, when it starts with ``prefix`` (``APPROVED``,
    ``MANUAL_EXIT``) and then names one of Gemini's modes; None otherwise."""
    if not text.startswith(prefix):
        return None
    rest = text[len(prefix) :]
    return next((mode for name, mode in MODE_DESCRIPTIONS.items() if rest.startswith(name)), None)
