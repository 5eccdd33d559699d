"""The tool permission table: ``decide(tool, input, context) -> Decision``.

Plan mode (docs/protocol.md §6, "Enforcement"): reading tools are allowed; file edits only of
the session's plan file (or the asking agent's own ``-agent-<id>`` file); Bash only when
:mod:`planmode.core.shell` proves the whole line read-only; Explore and Plan agents only;
ExitPlanMode asks the user. Outside plan mode the permission mode decides, settings' allow
rules and granted ``allowedPrompts`` can allow Bash, and deny rules always win. Every deny
names the rule that denied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from planmode.core import grants, shell
from planmode.core.approval import AllowedPrompt
from planmode.core.modes import PermissionMode
from planmode.core.paths import UnsafePath, inside, lexical_path, resolve_path, spelled_path
from planmode.core.rules import AGENT_TOOLS, allow_rule_allows, rule_matches

if TYPE_CHECKING:
    from planmode.sandbox.probe import Wrapped

Behavior = Literal["allow", "deny", "ask"]

# Tools that only read, search, ask the user or keep the agent's own notes, as an agent's own
# plan mode allows them (docs/claude-code.md lists the tools real sessions offer; Glob, Grep,
# LS, TodoWrite and MultiEdit are for older versions and other agents).
READ_ONLY_TOOLS = frozenset(
    {
        "Read",
        "Glob",
        "Grep",
        "LS",
        "WebFetch",
        "WebSearch",
        "AskUserQuestion",
        "TodoWrite",
        "TaskCreate",
        "TaskGet",
        "TaskList",
        "TaskUpdate",
        "TaskOutput",
        "ToolSearch",
        "Skill",
        "ListMcpResourcesTool",
        "ReadMcpResourceTool",
        "CronList",
        "LSP",
        "TodoRead",
        "Sleep",
        "ReportFindings",
        "ListAgents",
    }
)
# Tools that change something outside the plan, named so that the deny says what they do.
CHANGING_TOOLS = {
    "NotebookEdit": "NotebookEdit changes files",
    "KillShell": "KillShell stops a running process",
    "TaskStop": "TaskStop stops a running task",
    "CronCreate": "CronCreate schedules work to run later",
    "CronDelete": "CronDelete removes scheduled work",
    "ScheduleWakeup": "ScheduleWakeup schedules work to run later",
    "RemoteTrigger": "RemoteTrigger starts work elsewhere",
    "EnterWorktree": "EnterWorktree creates and switches git worktrees",
    "ExitWorktree": "ExitWorktree switches or removes git worktrees",
    "PushNotification": "PushNotification sends a notification",
    "PowerShell": "PowerShell commands cannot be proven read-only",
    "REPL": "REPL runs code",
    "Monitor": "Monitor runs a command in the background",
    "Workflow": "Workflow runs steps that may change files",
    "Config": "Config changes Claude Code's settings",
    "TeamCreate": "TeamCreate starts teammates",
    "TeamDelete": "TeamDelete removes a team",
    "Artifact": "Artifact publishes a file",
    "SendMessage": "SendMessage instructs other agents, which need not be planning",
}
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
PLANNING_AGENTS = frozenset({"Explore", "Plan"})


# Which rule decided (``Decision.rule``, the wire's ``rule``; docs/protocol.md §6): plan mode's
# own rules start with "plan."; an agent's hook speaks only for those and for grants
# (Decision.vouched).
RULE_PLAN_PREFIX = "plan."
RULE_PLAN_READ = "plan.readOnly"
RULE_PLAN_WRITE = "plan.planFile"
RULE_PLAN_BASH = "plan.bash"
RULE_PLAN_AGENT = "plan.agent"
RULE_PLAN_EXIT = "plan.exit"
RULE_PLAN_ENTER = "plan.enter"
RULE_PLAN_TOOL = "plan.tool"
RULE_PLAN_ERROR = "plan.error"  # the decision itself failed while planning: deny
RULE_SETTINGS_DENY = "settings.deny"
RULE_SETTINGS_ASK = "settings.ask"
RULE_SETTINGS_ALLOW = "settings.allow"
RULE_GRANT = "grant"
RULE_MODE = "mode"
# A write outside the approved plan being carried out, asked or denied by the drift setting
# (core/drift.py): plan mode stands behind that ask or deny too.
RULE_DRIFT = "drift"
# The allows plan mode vouches for: its own (the plan file, a proven read-only Bash line, a
# planning agent) and a granted prompt. An agent's own rules may still object to one
# (core/agents.py); an agent's hook passes on exactly these.
VOUCHED = frozenset({RULE_PLAN_WRITE, RULE_PLAN_BASH, RULE_PLAN_AGENT, RULE_GRANT})


@dataclass(frozen=True)
class Decision:
    behavior: Behavior
    message: str | None = None
    # An allowed planning Bash command: how to run it inside the OS sandbox (docs/sandbox.md).
    sandbox: Wrapped | None = None
    rule: str = RULE_MODE
    # The session's mode it was decided in (PlanModeService.check_tool says it).
    mode: PermissionMode | None = None

    @property
    def vouched(self) -> bool:
        """Plan mode stands behind this answer, so an agent's hook passes it on (the wire's
        ``vouched``, docs/protocol.md §6): a deny by one of plan mode's own rules, an allow in
        :data:`VOUCHED`, a drift's ask or deny (§12.2: the agent's own prompt, or its
        refusal). Every other answer is left to the agent's own checks and prompts."""
        if self.rule == RULE_DRIFT:
            return self.behavior != "allow"
        if self.behavior == "deny":
            return self.rule.startswith(RULE_PLAN_PREFIX)
        return self.behavior == "allow" and self.rule in VOUCHED


@dataclass(frozen=True)
class ToolContext:
    mode: PermissionMode
    root: Path
    plan_file: Path
    agent_id: str | None = None
    is_teammate: bool = False
    channels_active: bool = False
    allow_rules: Sequence[str] = ()
    deny_rules: Sequence[str] = ()
    ask_rules: Sequence[str] = ()
    granted_prompts: Sequence[AllowedPrompt] = field(default_factory=tuple)
    # The plan file is the agent's own (docs/protocol.md §3): a write of it must
    # name it as the agent does — the spelled path and the resolved one both the plan file.
    plan_adopted: bool = False
    # Why the plan file may not be written now (a refused plans directory, an agent's plan
    # file that could not be adopted): every write while planning is denied, saying why.
    plan_unavailable: str | None = None
    # The directory a Bash line runs in (the caller's cwd). None: the workspace root, which
    # is what a caller that names no directory says (docs/protocol.md §6).
    cwd: Path | None = None
    # Why that directory is not known (an agent's call without cwd): a line that runs
    # git is denied while planning.
    cwd_unknown: str | None = None
    # The agent writes no plan file: its exit brings its plan (core/agents.py, PlanInExit),
    # submitted so (the instruction the texts give). Every write while planning is denied.
    submit_plan: str | None = None


def allow(rule: str = RULE_MODE) -> Decision:
    return Decision("allow", None, rule=rule)


def deny(rule: str, why: str, rule_id: str = RULE_MODE) -> Decision:
    return Decision("deny", f"Denied by {rule}: {why}", rule=rule_id)


def ask(message: str, rule: str = RULE_MODE) -> Decision:
    return Decision("ask", message, rule=rule)


# -- the plan file ------------------------------------------------------------------------
def plan_path_refusal(raw: object, context: ToolContext) -> str | None:
    """Why ``raw`` is not the plan file; None when it is.

    The plan file is written only when the path names it both ways a tool may open it: the
    kernel's way (symlinks followed, then ``..``) and the lexical way (``..`` removed from the
    text first, then symlinks followed). ``link/../x`` where ``link`` points elsewhere reaches
    two different files; such a path is refused even when one of them is the plan file. The
    plan file itself must not be a symlink. (Whether a path is *a* plan file of the workspace,
    any session's, is :func:`planmode.core.plans.is_plan_file`.)
    """
    try:
        resolved = resolve_path(raw, context.root)
        lexical = lexical_path(raw, context.root)
    except UnsafePath as exc:
        return f"no file path ({exc})"  # read as "Write of no file path (…)"
    if context.plan_unavailable is not None:
        return f"{resolved} (no plan file can be written: {context.plan_unavailable})"
    plan = context.plan_file
    if plan.is_symlink() or plan.resolve() != plan:
        return f"{resolved} (the plan file is a symlink, never written through)"
    if resolved != lexical and plan in (resolved, lexical):
        return (
            f"{raw!r}, which names {lexical} when '..' is removed from the text but {resolved} "
            "when its symlinks are followed first (a path whose two readings differ is never "
            "the plan file)"
        )
    if context.plan_adopted and resolved == plan and spelled_path(str(raw), context.root) != plan:
        return (
            f"{raw!r}, which reaches {plan} only through a symlink (the agent's own plan file "
            "is written by the path the agent itself uses for it)"
        )
    return None if resolved == plan else str(resolved)


# -- git and the directory a line runs in -------------------------------------------------------
def git_elsewhere(verdict: shell.Verdict, context: ToolContext) -> str | None:
    """Why a read-only line (its ``verdict``) that runs git (anywhere in it, as the classifier
    read it) may not run where the caller runs it, said of the line: git there would open
    another repository than the workspace's, whose configuration can run programs
    (docs/read-only-bash.md, "5. git"). None when the line runs no git, or git would open the
    workspace's own."""
    if verdict.read_only and "git" not in verdict.programs:
        return None
    if context.cwd_unknown is not None:
        return (
            f"runs git where this call does not say ({context.cwd_unknown}), and there git "
            "could open another repository than the workspace's"
        )
    return shell.foreign_repository(context.root, context.cwd or context.root)


# -- allowedPrompts ---------------------------------------------------------------------------
def prompt_allows(prompt: AllowedPrompt, command: str) -> bool:
    """Whether a granted prompt covers ``command``: the exact rule of
    :func:`planmode.core.grants.rule_for`, shown to the user before it was granted."""
    return grants.prompt_allows(prompt.tool, prompt.prompt, command)


# -- the table --------------------------------------------------------------------------------
def decide(tool: str, tool_input: Mapping[str, Any], context: ToolContext) -> Decision:
    """Allow, deny or ask for one tool call. Never raises: a failure is a deny naming it."""
    try:
        return _decide(tool, tool_input, context)
    except Exception as exc:  # RecursionError, UnicodeError, a checker's bug: fail closed
        # While planning the rule is plan mode's own, so an agent's hook speaks for it.
        rule = RULE_PLAN_ERROR if context.mode == "plan" else RULE_MODE
        return deny("an internal error (fail closed)", f"{type(exc).__name__}: {exc}", rule)


def _decide(tool: str, tool_input: Mapping[str, Any], context: ToolContext) -> Decision:
    planning = _decide_in_plan(tool, tool_input, context) if context.mode == "plan" else None
    if planning is not None and planning.behavior == "deny":
        # Plan mode's own deny comes first while planning: it is the one an agent's hook
        # reports (a settings rule's deny leaves the agent's own rules to decide).
        return planning
    for rule in context.deny_rules:
        if rule_matches(rule, tool, tool_input, context.root, fail_closed=True):
            return deny(
                f"the deny rule {rule!r} in settings",
                f"{tool} is not permitted",
                RULE_SETTINGS_DENY,
            )
    if planning is not None:
        return planning
    return _decide_outside_plan(tool, tool_input, context)


def _decide_in_plan(tool: str, tool_input: Mapping[str, Any], context: ToolContext) -> Decision:
    if tool in READ_ONLY_TOOLS:
        return allow(RULE_PLAN_READ)
    if tool in EDIT_TOOLS and context.submit_plan is not None:
        return deny(
            "plan mode (nothing is written while planning)",
            f"{_target(tool_input.get('file_path'), context.root)} may not be written — "
            f"{context.submit_plan} instead: plan mode puts it under review in the editor",
            RULE_PLAN_WRITE,
        )
    if tool in EDIT_TOOLS:
        raw = tool_input.get("file_path")
        where = plan_path_refusal(raw, context)
        if where is None:
            return allow(RULE_PLAN_WRITE)
        return deny(
            "plan mode (only the plan file may be written)",
            f"{tool} of {where} — while planning, write only {context.plan_file}",
            RULE_PLAN_WRITE,
        )
    if tool == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str):
            return deny(
                "plan mode (read-only Bash)", "input.command must be a string", RULE_PLAN_BASH
            )
        verdict = shell.check(command)
        if not verdict.read_only:
            return deny(
                "plan mode (read-only Bash)", f"{verdict.reason} in {command!r}", RULE_PLAN_BASH
            )
        elsewhere = git_elsewhere(verdict, context)
        if elsewhere is not None:
            return deny("plan mode (read-only Bash)", f"{command!r} {elsewhere}", RULE_PLAN_BASH)
        return allow(RULE_PLAN_BASH)
    if tool in AGENT_TOOLS:
        kind = tool_input.get("subagent_type")
        if kind in PLANNING_AGENTS:
            return allow(RULE_PLAN_AGENT)
        return deny(
            "plan mode (only Explore and Plan agents)",
            f"subagent_type {kind!r} may change files",
            RULE_PLAN_AGENT,
        )
    if tool == "ExitPlanMode":
        return (
            allow(RULE_PLAN_EXIT) if context.is_teammate else ask("Exit plan mode?", RULE_PLAN_EXIT)
        )
    if tool == "EnterPlanMode":
        if context.agent_id is not None:
            return deny(
                "agent context",
                "EnterPlanMode tool cannot be used in agent contexts",
                RULE_PLAN_ENTER,
            )
        return allow(RULE_PLAN_ENTER)
    if tool in CHANGING_TOOLS:
        return deny(
            "plan mode (tool not allowed while planning)", CHANGING_TOOLS[tool], RULE_PLAN_TOOL
        )
    if tool.startswith("mcp__"):
        return deny(
            "plan mode (no MCP tools while planning)",
            f"{tool} is an MCP tool; plan mode cannot know that it only reads",
            RULE_PLAN_TOOL,
        )
    return deny(
        "plan mode (tool not allowed while planning)",
        f"{tool} is not a known planning tool",
        RULE_PLAN_TOOL,
    )


def _target(raw: object, root: Path) -> str:
    """A write's file as a refusal names it: resolved against the root, else why not."""
    try:
        return str(resolve_path(raw, root))
    except UnsafePath as exc:
        return f"no file path ({exc})"


def _decide_outside_plan(
    tool: str, tool_input: Mapping[str, Any], context: ToolContext
) -> Decision:
    if tool == "ExitPlanMode":
        if context.is_teammate:
            return allow()
        return deny(
            "ExitPlanMode outside plan mode",
            "You are not in plan mode. This tool is only for exiting plan mode after writing a "
            "plan. If your plan was already approved, continue with implementation.",
        )
    if tool == "EnterPlanMode":
        if context.agent_id is not None:
            return deny("agent context", "EnterPlanMode tool cannot be used in agent contexts")
        if context.channels_active:
            return deny("channelsActive", "Plan mode is disabled while channels are active")
        return allow()
    if context.mode == "bypassPermissions":
        return allow()
    if tool in READ_ONLY_TOOLS:
        return allow()
    for rule in context.ask_rules:
        if rule_matches(rule, tool, tool_input, context.root, fail_closed=True):
            return ask(f"The ask rule {rule!r} in settings asks for {tool}.", RULE_SETTINGS_ASK)
    if any(allow_rule_allows(rule, tool, tool_input, context.root) for rule in context.allow_rules):
        return allow(RULE_SETTINGS_ALLOW)
    if tool == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str):
            return deny("Bash input", "input.command must be a string")
        if shell.check(command).read_only:
            return allow()
        if any(prompt_allows(p, command) for p in context.granted_prompts):
            return allow(RULE_GRANT)
        return ask(f"Run {command!r}?")
    if tool in EDIT_TOOLS and context.mode in {"acceptEdits", "auto"}:
        raw = tool_input.get("file_path")
        try:
            target = resolve_path(raw, context.root)
            lexical = lexical_path(raw, context.root)
        except UnsafePath as exc:
            return deny("file path check", str(exc))
        # Both readings of the path inside, as for the plan file (plan_path_refusal).
        if inside(target, context.root) and inside(lexical, context.root):
            return allow()
        where = target if lexical == target else f"{target} (or {lexical}, read lexically)"
        return ask(f"{tool} of {where}, outside the workspace?")
    return ask(f"Allow {tool}?")
