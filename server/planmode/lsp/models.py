"""Typed params of every ``planMode/*`` request and command; a validation error is -32602."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planmode.core.approval import AllowedPrompt
from planmode.core.modes import PermissionMode
from planmode.core.service import InvalidParams


class Params(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    sessionId: str | None = None


class ClaudeCodeParams(Params):
    """What Claude Code's hook knows about the session (docs/claude-code.md): its transcript
    (the plan file's slug and path), its project root and its configuration directory."""

    transcriptPath: str | None = Field(default=None, min_length=1)
    projectDir: str | None = Field(default=None, min_length=1)
    claudeConfigDir: str | None = Field(default=None, min_length=1)
    # The agent's own permission mode: the session is brought to it first (one round trip per
    # hook call). Modes this server does not know are ignored.
    permissionMode: str | None = None


class GetStateParams(Params):
    pass


class SetModeParams(Params):
    mode: PermissionMode


class EnterParams(Params):
    # EnterPlanMode's input is a strict empty object (guide §9.2): nothing else is accepted.
    model_config = ConfigDict(extra="forbid", frozen=True)

    agentId: str | None = None


class SlashCommandParams(Params):
    args: str = ""


class AllowedPromptParams(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    tool: str = Field(pattern=r"^Bash$")
    prompt: str = Field(min_length=1, max_length=1000)

    def to_core(self) -> AllowedPrompt:
        return AllowedPrompt(self.tool, self.prompt.strip())


class ExitParams(ClaudeCodeParams):
    agentId: str | None = None
    plan: str | None = None
    # Claude Code's ExitPlanMode input: the plan file it wrote (adopted when Claude Code
    # could have written it there).
    planFilePath: str | None = Field(default=None, min_length=1)
    allowedPrompts: list[AllowedPromptParams] = Field(default_factory=list)
    # Ours (the CLI's `exit` without --wait): answer once the approval is pending and leave
    # it to be decided in the editor.
    detach: bool = False


class ApproveParams(Params):
    approvalId: str = Field(min_length=1)
    mode: PermissionMode | None = None
    planSha256: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")
    # Ours: deliver the plan's review comments as notes (docs: README "Reviewing with comments").
    includeComments: bool = False


class RejectParams(Params):
    approvalId: str = Field(min_length=1)
    feedback: str | None = None
    # Ours: send the plan's review comments, each with its anchor, with the feedback.
    includeComments: bool = False


class TeammateKeyParams(Params):
    root: str = Field(min_length=1)
    teamName: str = Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")
    agentName: str = Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")
    requestId: str = Field(min_length=1, max_length=300)
    key: str = Field(pattern=r"^[0-9a-f]{64}$")
    planSha256: str = Field(pattern=r"^[0-9a-fA-F]{64}$")


class ApplyEditParams(Params):
    edit: dict[str, Any]
    agentId: str | None = None
    label: str | None = None


class CheckToolParams(ClaudeCodeParams):
    tool: str = Field(min_length=1)
    input: dict[str, Any] = Field(default_factory=dict)
    agentId: str | None = None


class ListPlansParams(Params):
    pass


class EndSessionParams(Params):
    pass


class NextTurnParams(Params):
    agentId: str | None = None


class AgentDefinitionsParams(Params):
    pass


class HunkParams(Params):
    path: str = Field(min_length=1)
    hunkId: str = Field(min_length=1)


class ListApprovalsParams(Params):
    pass


class ListHunksParams(Params):
    path: str | None = None


class RevisionsParams(Params):
    path: str | None = None


class RevisionDiffParams(Params):
    path: str | None = None
    from_: int = Field(alias="from", ge=1)
    to: int = Field(ge=1)


class ResumeParams(Params):
    transcript: str = Field(min_length=1)
    remote: bool = False


class ForkParams(Params):
    transcript: str = Field(min_length=1)


P = TypeVar("P", bound=BaseModel)


def parse_params(model: type[P], raw: object, method: str) -> P:
    """Validate ``raw`` as ``model``; the first problem becomes a sentence naming the field."""
    # JSON-RPC by-position params with no arguments are no params (Neovim 0.7 sends `[]`).
    if raw is None or raw == []:
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidParams(f"{method}: params must be an object, got {type(raw).__name__}")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise InvalidParams(describe_validation_error(exc, method)) from exc


def describe_validation_error(exc: ValidationError, method: str) -> str:
    error = exc.errors()[0]
    location = ".".join(str(part) for part in error["loc"]) or "params"
    if error["type"] == "missing":
        return f"{method}: field '{location}' is required"
    if error["type"] == "extra_forbidden":
        return f"{method}: field '{location}' is not accepted"
    return f"{method}: field '{location}' is invalid: {error['msg']}"
