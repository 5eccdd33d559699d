"""Typed params of every ``planMode/*`` request and command; a validation error is -32602.

Fields are snake_case in Python and camelCase on the wire (``alias_generator=to_camel``). The
wire accepts only the camelCase names: a snake_case key is an unknown key, as it always was (the
server builds params from Python names with :meth:`WireParams.build`). Results
and notifications are in :mod:`planmode.lsp.results`.
"""

from __future__ import annotations

from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from planmode.core.approval import AllowedPrompt
from planmode.core.errors import InvalidParams
from planmode.core.modes import PermissionMode
from planmode.core.plans import SAFE_ID_RE


class WireParams(BaseModel):
    """Validated by the wire's names only, and dumped by them (``model_dump()`` is the wire
    form); keys the model does not know are ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=False,
        serialize_by_alias=True,
        frozen=True,
        extra="ignore",
        # build() takes core's dataclasses too (an approval's allowed prompts).
        from_attributes=True,
    )

    @classmethod
    def build(cls, **fields: Any) -> Self:
        """Params the server sends (a lens's argument, a request to another server), from
        Python names; ValidationError when a value is not what the receiver accepts."""
        return cls.model_validate(fields, by_name=True)

    def wire(self) -> dict[str, Any]:
        """The JSON object sent: only the fields that differ from their default (the receiver
        assumes the default for an absent field), so no field is sent as null."""
        data: dict[str, Any] = self.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        return data


class Params(WireParams):
    session_id: str | None = None


class ClaudeCodeParams(Params):
    """What Claude Code's hook knows about the session (docs/claude-code.md): its transcript
    (the plan file's slug and path), its project root and its configuration directory."""

    transcript_path: str | None = Field(default=None, min_length=1)
    project_dir: str | None = Field(default=None, min_length=1)
    claude_config_dir: str | None = Field(default=None, min_length=1)
    # The agent's own permission mode: the session is brought to it first (one round trip per
    # hook call). Modes this server does not know are ignored.
    permission_mode: str | None = None


class OpenCodeParams(WireParams):
    """What planmode's OpenCode plugin knows of the session (docs/opencode.md): OpenCode's
    instance directory (relative file paths are read against it), the project's worktree and
    whether it is a git project, the session's creation time and slug, and OpenCode's data
    directory — what names its plan agent's plan file."""

    directory: str = Field(min_length=1)
    worktree: str = Field(min_length=1)
    git: bool = False
    session_created: int | None = Field(default=None, ge=0)
    session_slug: str | None = Field(default=None, min_length=1, max_length=128)
    data_dir: str | None = Field(default=None, min_length=1)


class GeminiParams(WireParams):
    """What planmode's Gemini CLI hook knows of the session (docs/gemini.md): Gemini's plans
    directory for it (``$GEMINI_PLANS_DIR``), where the model names its plan."""

    plans_dir: str = Field(min_length=1)


class CodexParams(WireParams):
    """What planmode's Codex hook knows of the turn (docs/codex.md): whether Codex plans — its
    collaboration mode, which no hook payload says (the hook reads it in Codex's transcript);
    absent when the hook could not tell."""

    planning: bool | None = None


class AgentParams(ClaudeCodeParams):
    """What an agent's own hook or plugin sends along with a call: Claude Code's params, or
    OpenCode's (``opencode``), or Gemini CLI's (``gemini``), or Codex's (``codex``)."""

    opencode: OpenCodeParams | None = None
    gemini: GeminiParams | None = None
    codex: CodexParams | None = None


class GetStateParams(Params):
    pass


class SetModeParams(Params):
    mode: PermissionMode


class EnterParams(Params):
    # EnterPlanMode takes no input but agentId (docs/protocol.md §4): any other key is refused.
    model_config = ConfigDict(extra="forbid")

    agent_id: str | None = None


class SlashCommandParams(Params):
    args: str = ""


class AllowedPromptParams(WireParams):
    tool: str = Field(pattern=r"^Bash$")
    prompt: str = Field(min_length=1, max_length=1000)

    def to_core(self) -> AllowedPrompt:
        return AllowedPrompt(self.tool, self.prompt.strip())


class ExitParams(AgentParams):
    agent_id: str | None = None
    plan: str | None = None
    # Claude Code's ExitPlanMode input: the plan file it wrote (adopted when Claude Code
    # could have written it there).
    plan_file_path: str | None = Field(default=None, min_length=1)
    allowed_prompts: list[AllowedPromptParams] = Field(default_factory=list)
    # Ours (the CLI's `exit` without --wait): answer once the approval is pending and leave
    # it to be decided in the editor.
    detach: bool = False


class ApproveParams(Params):
    approval_id: str = Field(min_length=1)
    mode: PermissionMode | None = None
    plan_sha256: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")
    # Ours: deliver the plan's review comments as notes (docs: README "Reviewing with comments").
    include_comments: bool = False
    # Ours: the approval's allowedPrompts the approver was shown and grants; only those are
    # granted, so a surface that does not show them grants nothing (docs/protocol.md §5.1).
    allowed_prompts: list[AllowedPromptParams] = Field(default_factory=list)


class RejectParams(Params):
    approval_id: str = Field(min_length=1)
    feedback: str | None = None
    # Ours: send the plan's review comments, each with its anchor, with the feedback.
    include_comments: bool = False


class SaveForLaterParams(Params):
    """docs/protocol.md §12.3: the guards of approve (``planSha256``: what the user saw)."""

    approval_id: str = Field(min_length=1)
    plan_sha256: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")


class TakeUpPlanParams(Params):
    path: str = Field(min_length=1)


class TeammateKeyParams(Params):
    root: str = Field(min_length=1)
    # The names a teammate's server accepts in its settings (they name its inbox).
    team_name: str = Field(pattern=SAFE_ID_RE.pattern)
    agent_name: str = Field(pattern=SAFE_ID_RE.pattern)
    request_id: str = Field(min_length=1, max_length=300)
    key: str = Field(pattern=r"^[0-9a-f]{64}$")
    plan_sha256: str = Field(pattern=r"^[0-9a-fA-F]{64}$")


class ApplyEditParams(Params):
    edit: dict[str, Any]
    agent_id: str | None = None
    label: str | None = None


class CheckToolParams(AgentParams):
    tool: str = Field(min_length=1)
    input: dict[str, Any] = Field(default_factory=dict)
    agent_id: str | None = None
    # Claude Code's shell directory (the hook payload's cwd): a Bash line's relative paths
    # are read from there.
    cwd: str | None = Field(default=None, min_length=1)


class ListPlansParams(Params):
    pass


class EndSessionParams(Params):
    pass


class PingParams(Params):
    pass


class NextTurnParams(Params):
    agent_id: str | None = None


class AgentDefinitionsParams(Params):
    pass


class HunkParams(Params):
    path: str = Field(min_length=1)
    hunk_id: str = Field(min_length=1)


class ListApprovalsParams(Params):
    pass


class ListHunksParams(Params):
    path: str | None = None


class RevisionsParams(Params):
    path: str | None = None


class RevisionTextParams(Params):
    path: str | None = None
    # Strict: true, "2" or 2.0 is no revision id (lax pydantic reads true as revision 1).
    id: int = Field(ge=1, strict=True)


class RevisionDiffParams(Params):
    path: str | None = None
    from_: int = Field(alias="from", ge=1)
    to: int = Field(ge=1)


class GetProgressParams(Params):
    pass


class ListProgressParams(Params):
    pass


class SetStepStatusParams(Params):
    # Checked by core (core/progress.py): an unknown index or status is -32602 naming it.
    index: Any
    status: Any
    # The approval whose steps the user saw (our code actions send it): a mark chosen for an
    # earlier plan is -32602, not a mark of the new plan's step of that index.
    approval_id: str | None = Field(default=None, min_length=1, max_length=128)


class AllowFileParams(Params):
    path: str = Field(min_length=1, max_length=4096)
    approval_id: str | None = Field(default=None, min_length=1, max_length=128)


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
