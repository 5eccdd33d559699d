"""The requests plan mode refuses: each error says why, and a refused request changed nothing.

The LSP layer maps each class to its JSON-RPC error code (lsp/server.py, docs/protocol.md).
"""

from __future__ import annotations

from pathlib import Path

from planmode.core import prompts


class PlanModeError(Exception):
    """A request that cannot be carried out; nothing was changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidParams(PlanModeError):
    pass


class NotInPlanMode(PlanModeError):
    def __init__(self) -> None:
        super().__init__(prompts.NOT_IN_PLAN_MODE)


class AgentContext(PlanModeError):
    def __init__(self) -> None:
        super().__init__("EnterPlanMode tool cannot be used in agent contexts")


class PlanModeDisabled(PlanModeError):
    def __init__(self) -> None:
        super().__init__(
            "Plan mode is disabled while channels are active: its approval could not be "
            "answered from a channel, so it could never be left."
        )


class NoPlanFile(PlanModeError):
    def __init__(self, path: Path) -> None:
        super().__init__(
            f"No plan file found at {path}. Please write your plan to this file before "
            "calling ExitPlanMode."
        )


class NoPendingApproval(PlanModeError):
    def __init__(self, detail: str) -> None:
        super().__init__(f"No pending approval {detail}")


class PlanChanged(PlanModeError):
    def __init__(self) -> None:
        super().__init__(
            "Plan changed since it was shown: review the current plan and approve it again."
        )


class NoApprovedPlan(PlanModeError):
    """The session executes no approved plan (``planMode/getProgress``: -32007)."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"No approved plan: session {session_id!r} is not executing a plan")
