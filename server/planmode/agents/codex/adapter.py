"""Codex as core sees it: one call of its hook (``planmode hook codex``), in the agent-neutral
terms of :mod:`planmode.core.agents` (docs/codex.md, "The plan and the exit").

* Its tools are not plan mode's (:mod:`.tools`): ``Bash``, ``apply_patch`` (a ``Write`` of each
  file of the patch), ``view_image``…
* It has no plan file of its own and no exit tool: its plan is the ``<proposed_plan>`` block
  of the turn that ends, which the hook brings to ``planMode/exit``. That text is the agent's
  submission, written by plan mode to the session's plan file for review, and nothing else is
  written while the session plans; the texts the model reads tell it to propose its plan
  that way.
* Its commands run inside Codex's own sandbox (bubblewrap and seccomp), where bubblewrap cannot
  make the namespaces of plan mode's: an allowed planning Bash line runs in the Landlock
  launcher instead (docs/sandbox.md).
* Whether it plans is Codex's collaboration mode (the hook reads it in the transcript and sends
  ``planning``): the session enters plan mode when it plans, and leaves it — for the mode from
  before — when it does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planmode.agents.codex import tools
from planmode.core.agents import ToolCall
from planmode.core.modes import PermissionMode

NAME = "Codex"
# How the model submits its plan, in the texts it reads (Codex's Plan-mode prompt asks for
# exactly this block, and the Stop hook reviews it).
SUBMIT = "propose your plan in a <proposed_plan> block"
# What the texts call its way out of plan mode where they name a tool.
EXIT = "<proposed_plan>"
# The mechanism that runs nested in Codex's own sandbox (docs/codex.md,
# "Sandboxing planning shell commands").
SANDBOX = "landlock"


class CodexCall:
    """One call of Codex's hook: ``planning`` (its collaboration mode, None when the hook
    could not read it) and ``cwd`` (the directory the call runs in)."""

    name = NAME
    exit_tool = EXIT
    submit_plan = SUBMIT
    sandbox = SANDBOX

    def __init__(self, planning: bool | None = None, cwd: str | None = None) -> None:
        self.planning = planning
        self.cwd = cwd

    def plan_mode_calls(self, tool: str, tool_input: Mapping[str, Any]) -> tuple[ToolCall, ...]:
        return tools.plan_mode_calls(tool, tool_input, self.cwd)

    def permission_mode(
        self, mode: PermissionMode, before_plan: PermissionMode | None
    ) -> PermissionMode | None:
        """The mode the session follows to (None: it stays where it is): plan mode while Codex
        plans; when it stopped planning, the mode from before plan mode (or the one the user
        chose on approving, which the session is in already). Codex has no other mode a hook
        could see: its permissions are its own (docs/codex.md)."""
        if self.planning is True:
            return "plan"
        if self.planning is False and mode == "plan":
            return before_plan or "default"
        return None
