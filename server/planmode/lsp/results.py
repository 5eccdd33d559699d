"""Typed results and notifications: every payload the server sends goes through one model here.

Fields are snake_case in Python and camelCase on the wire. A field is either always sent (null
when it has no value) or, marked :data:`OMITTED`, left out when it has none: which one is part of
the contract (docs/protocol.md) and of the JSON schema the client's tests check its TypeScript
types against (``make schema``, :mod:`planmode.lsp.schema`).

Core builds plain data, its dataclasses; a payload reads one (``Model.model_validate(obj)``:
``from_attributes``), field by field, so each shape is written once, here. Where the wire says
a thing otherwise than core holds it, that is said at one place: a property of the dataclass
(``Comment.line``, a teammate's request as an Approval) or a field type below (a path is sent
as its text).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic.alias_generators import to_camel

from planmode.core.library import PlanStatus
from planmode.core.modes import PermissionMode
from planmode.core.plans import utc_seconds
from planmode.core.progress import StepSource
from planmode.core.steps import StepStatus
from planmode.lsp import protocol

T = TypeVar("T")


class _Omitted:
    """Marks a field that is left out of the wire form when it is None."""

    def __repr__(self) -> str:
        return "OMITTED"


OMITTED = _Omitted()

# A field absent from the wire when it has no value (never null there).
Omittable = Annotated[T | None, OMITTED]


def _path_text(value: object) -> object:
    return str(value) if isinstance(value, PurePath) else value


def _none_when_empty(value: object) -> object:
    return value or None


def _utc_seconds(value: object) -> object:
    return utc_seconds(value) if isinstance(value, float | int) else value


# A path core holds as a Path, sent as its text.
PathText = Annotated[str, BeforeValidator(_path_text)]
# An omittable list core holds empty when it has none: left out then, never sent as [].
NoneWhenEmpty = BeforeValidator(_none_when_empty)
# A time core holds in seconds since the epoch, sent as UTC to the second (plans.utc_seconds).
UtcSeconds = Annotated[str, BeforeValidator(_utc_seconds)]


def _omitted_fields(model: type[BaseModel]) -> list[str]:
    return [
        field.serialization_alias or field.alias or name
        for name, field in model.model_fields.items()
        if any(m is OMITTED for m in field.metadata)
    ]


def _schema_of_omittable(schema: dict[str, Any], model: type[Any]) -> None:
    """In the schema an omittable field is optional and never null; every other is required,
    default or not: it is always sent."""
    omitted = _omitted_fields(model)
    schema["required"] = [name for name in schema["properties"] if name not in omitted]
    for name in omitted:
        field = schema["properties"][name]
        field.pop("default", None)
        alternatives = field.get("anyOf")
        if alternatives is not None:
            kept = [a for a in alternatives if a.get("type") != "null"]
            field.pop("anyOf")
            field.update(kept[0] if len(kept) == 1 else {"anyOf": kept})


class Payload(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        extra="forbid",
        frozen=True,
        from_attributes=True,
        json_schema_extra=_schema_of_omittable,
    )

    # The wire names of this model's omittable fields (found once per model class).
    _omitted: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._omitted = tuple(_omitted_fields(cls))

    @model_serializer(mode="wrap")
    def _leave_out_omitted(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if self._omitted and isinstance(data, dict):
            for key in self._omitted:
                if data.get(key) is None:
                    data.pop(key, None)
        return data

    def wire(self) -> dict[str, Any]:
        """The JSON object sent."""
        data: dict[str, Any] = self.model_dump(mode="json", by_alias=True)
        return data


# -- state and approvals ------------------------------------------------------------------


class AllowedPrompt(Payload):
    tool: str
    prompt: str


class Grant(AllowedPrompt):
    """An allowed prompt with the exact rule approving grants (docs/protocol.md §5)."""

    rule: str


class Approval(Payload):
    """A pending approval (docs/protocol.md §5.1); a teammate's request to this lead is one
    too, with its request id as ``approvalId``, no session and its team."""

    approval_id: str
    session_id: str | None
    agent_id: str | None
    team_name: Omittable[str] = None
    plan_file_path: PathText
    submitted_plan: str
    allowed_prompts: list[AllowedPrompt]
    grants: Omittable[list[Grant]] = None
    requested_at: str


class SandboxState(Payload):
    """The OS sandbox planning Bash runs in (docs/sandbox.md); ``mechanism`` null: none."""

    mechanism: str | None
    status: str
    detail: str
    required: bool


class SessionState(Payload):
    """docs/protocol.md §2."""

    session_id: str
    mode: PermissionMode
    pre_plan_mode: PermissionMode | None
    plan_slug: str
    plan_file_path: PathText
    plan_exists: bool
    has_exited_plan_mode: bool
    needs_plan_mode_exit_attachment: bool
    auto_mode_active: bool
    pending_approval: Approval | None
    granted_prompts: list[AllowedPrompt]
    sandbox: SandboxState


ResolvedOutcome = Literal["approved", "rejected", "saved", "cancelled"]


class ApprovalResolved(Payload):
    """``planMode/approvalResolved``: ``restoredMode`` only when a mode was restored."""

    approval_id: str
    outcome: ResolvedOutcome
    restored_mode: Omittable[PermissionMode] = None


class EnterResult(Payload):
    message: str
    state: SessionState


class SlashCommandResult(Payload):
    message: str
    should_query: bool
    state: SessionState


class ListPlansResult(Payload):
    plans: list[LibraryPlan]


class ListApprovalsResult(Payload):
    approvals: list[Approval]


# -- exit ---------------------------------------------------------------------------------


class Comment(Payload):
    """A review comment as the agent receives it; ``line`` is 1-based."""

    text: str
    quote: str
    heading_path: list[str]
    line: int
    outdated: bool


class ExitResult(Payload):
    """docs/protocol.md §5.2."""

    chosen_mode: PermissionMode | None
    outcome: Literal["approved", "rejected", "saved", "awaitingLeaderApproval"]
    plan: str | None
    file_path: str
    is_agent: bool
    plan_was_edited: bool
    user_edits_diff: str | None
    restored_mode: PermissionMode | None
    granted_prompts: list[AllowedPrompt]
    feedback: str | None
    request_id: str | None
    remark: str | None
    comments: list[Comment]
    notes: str | None
    tool_result: str


class PendingExit(Payload):
    """``planMode/exit`` with ``detach``: answered once the approval is pending."""

    outcome: Literal["pending"] = "pending"
    approval_id: str
    file_path: str
    tool_result: str


# -- tools, edits, turns ------------------------------------------------------------------


class SandboxedCommand(Payload):
    """How to run an allowed planning Bash command inside the OS sandbox (docs/sandbox.md)."""

    mechanism: str
    argv: list[str]
    command: str
    # Runs the program and arguments appended to it in the same sandbox (an agent's own shell
    # line: Claude Code's shell prefix, docs/claude-code.md).
    prefix: list[str]
    required: bool


class CheckToolResult(Payload):
    behavior: Literal["allow", "deny", "ask"]
    rule: str
    # Plan mode stands behind the answer: an agent's hook passes it on (docs/protocol.md §6).
    vouched: bool
    message: Omittable[str] = None
    sandbox: Omittable[SandboxedCommand] = None
    mode: PermissionMode


class ApplyEditResult(Payload):
    applied: bool
    failure_reason: Omittable[str] = None


class Attachment(Payload):
    """docs/protocol.md §5.3."""

    type: Literal["plan_mode", "plan_mode_reentry", "plan_mode_exit", "plan_taken_up"]
    plan_file_path: str
    plan_exists: bool
    text: str
    reminder_type: Omittable[Literal["full", "sparse"]] = None
    is_sub_agent: Omittable[bool] = None


class LeaderResponse(Payload):
    """The lead's answer to this teammate's plan."""

    request_id: str
    approved: bool
    feedback: str | None
    permission_mode: str | None


class NextTurnResult(Payload):
    attachments: list[Attachment]
    leader_response: Omittable[LeaderResponse] = None


class AgentDefinition(Payload):
    agent_type: str
    model: str
    when_to_use: str
    prompt: str
    tools: list[str]
    disallowed_tools: list[str]
    omit_claude_md: bool
    read_only: bool


class AgentDefinitionsResult(Payload):
    agents: list[AgentDefinition]


class ResumeResult(Payload):
    restored: bool
    plan_file_path: str


class ForkResult(Payload):
    copied: bool
    plan_file_path: str


# -- revisions and hunks ------------------------------------------------------------------


class Revision(Payload):
    id: int
    author: Literal["agent", "user"]
    time: str
    reason: str
    size_bytes: int
    lines: int
    comments: Annotated[Omittable[list[Comment]], NoneWhenEmpty] = None


class RevisionTextResult(Payload):
    """One revision of a plan's history in full (``planMode/revisionText``)."""

    path: PathText
    id: int
    author: Literal["agent", "user"]
    time: str
    reason: str
    text: str


class TakeUpPlanResult(Payload):
    """``planMode/takeUpPlan``: where the session's plan is now, and the file it came from."""

    plan_file_path: PathText
    taken_up_from: PathText
    state: SessionState


class ListRevisionsResult(Payload):
    path: str
    revisions: list[Revision]


class RevisionDiffResult(Payload):
    path: str
    # The Python name cannot be the keyword: named on the wire by both aliases.
    from_: int = Field(validation_alias="from", serialization_alias="from")
    to: int
    diff: str


class HunkInfo(Payload):
    """An unreviewed hunk of an agent's change, with its Keep and Undo lens titles and the
    text of the lines it removed (``removedLines``, an addition: the editor's ghost text)."""

    path: str
    hunk_id: str
    line: int
    added: int
    removed: int
    keep_title: str
    undo_title: str
    removed_lines: list[str]


class ListHunksResult(Payload):
    hunks: list[HunkInfo]


# -- the plan library and progress (core/library.py, core/progress.py) ----------------------


class StepCount(Payload):
    done: int
    total: int


class LibraryPlan(Payload):
    """A plan as the library lists it: a listPlans entry with its ``status`` and, executing or
    done, its ``progress``; ``agent``, ``decidedAt`` and ``firstSeen`` when known."""

    path: str
    slug: str
    modified: UtcSeconds
    size_bytes: int
    pending: bool
    status: PlanStatus
    session_id: Omittable[str] = None
    agent_id: Omittable[str] = None
    agent: Omittable[str] = None
    decided_at: Omittable[str] = None
    first_seen: Omittable[str] = None
    progress: Omittable[StepCount] = None


class Step(Payload):
    index: int
    line: int
    text: str
    status: StepStatus
    source: StepSource | None


class DriftEntry(Payload):
    path: str
    tool: str
    at: str


class Verification(Payload):
    line: int
    title: str


class Progress(Payload):
    """A session's execution of its approved plan, with ``verification`` and ``allowedPaths``
    (additions)."""

    session_id: str
    plan_file_path: PathText
    approval_id: str
    steps: list[Step]
    done: int
    total: int
    drift: list[DriftEntry]
    verification: Verification | None
    allowed_paths: list[str]


class ListProgressResult(Payload):
    """Every executing session's progress, oldest approval first."""

    progress: list[Progress]


class OkResult(Payload):
    """A decision or change was made (``ok: false`` with why, when it could not be)."""

    ok: bool = True
    failure_reason: Omittable[str] = None


# The params of each notification the server sends (server.notify checks them).
NOTIFICATIONS: dict[str, type[Payload]] = {
    protocol.DID_CHANGE_STATE: SessionState,
    protocol.APPROVAL_REQUESTED: Approval,
    protocol.APPROVAL_RESOLVED: ApprovalResolved,
    protocol.DID_CHANGE_PROGRESS: Progress,
}
