"""``planMode/checkTool`` for a session: the permission table (:mod:`planmode.core.permissions`)
with the session's mode, plan file and grants, and the OS sandbox an allowed planning Bash
command runs in (docs/protocol.md §6, docs/sandbox.md).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from planmode.core import permissions, shell
from planmode.core.agents import AgentRules, ToolCall
from planmode.core.registry import SessionRegistry
from planmode.core.session import Session
from planmode.sandbox import BWRAP, ENV_CHOICE, LANDLOCK
from planmode.sandbox import probe as sandbox_probe

# PLANMODE_SANDBOX's words for the mechanisms (docs/sandbox.md).
_MECHANISMS = {"landlock": LANDLOCK, "bwrap": BWRAP}


def check_tool(
    registry: SessionRegistry,
    session: Session,
    tool: str,
    tool_input: dict[str, Any],
    agent_id: str | None = None,
    hide: Sequence[str] = (),
    caller: AgentRules | None = None,
    cwd: str | None = None,
    *,
    submit_plan: str | None = None,
    prefer: str | None = None,
) -> permissions.Decision:
    """The decision on one tool call of ``session`` (or of its subagent ``agent_id``). An
    allowed Bash command while planning also says how to run it in the OS sandbox (``hide``:
    directories the sandbox covers, the agent endpoint's). A call of an agent with rules of its
    own (``caller``, :class:`~planmode.core.agents.AgentRules`) that plan mode would vouch for
    gets the agent's own answer instead where its rules or prompts would deny or ask.
    ``cwd``: the directory a Bash line runs in (:func:`shell_directory`). ``submit_plan``: the
    agent's exit brings its plan (:class:`~planmode.core.agents.PlanInExit`), so it writes
    nothing while planning. ``prefer``: the sandbox mechanism the agent's commands need
    (:func:`sandbox`)."""
    settings = registry.settings
    where, unknown = shell_directory(cwd, caller)
    rules = settings.permissions
    context = permissions.ToolContext(
        mode=session.modes.mode,
        root=registry.root,
        plan_file=registry.plan_path(session, agent_id),
        agent_id=agent_id,
        is_teammate=settings.teammate is not None,
        channels_active=settings.channelsActive,
        allow_rules=session.modes.allow_rules,
        deny_rules=tuple(rules.deny),
        ask_rules=tuple(rules.ask),
        granted_prompts=session.granted_prompts,
        plan_adopted=session.plan_file is not None,
        # Only a write asks it (it reads the disk): not worked out for every Bash line.
        plan_unavailable=(
            registry.plan_file_refusal(session, agent_id)
            if tool in permissions.EDIT_TOOLS
            else None
        ),
        cwd=where,
        cwd_unknown=unknown,
        submit_plan=submit_plan,
    )
    decision = permissions.decide(tool, tool_input, context)
    if tool == "Bash" and context.mode == "plan" and decision.behavior == "allow":
        decision = _sandboxed(registry, decision, str(tool_input.get("command")), hide, prefer)
    if caller is not None and decision.behavior == "allow" and decision.rule in permissions.VOUCHED:
        own_plan = decision.rule == permissions.RULE_PLAN_WRITE and context.plan_adopted
        objection = caller.objection(tool, tool_input, decision.rule, own_plan)
        if objection is not None:
            # Should the user allow it when the agent asks, it still runs in the sandbox.
            kept = decision.sandbox if objection.behavior == "ask" else None
            return replace(objection, sandbox=kept)
    return decision


def check_calls(
    registry: SessionRegistry,
    session: Session,
    calls: Sequence[ToolCall],
    agent_id: str | None = None,
    hide: Sequence[str] = (),
    caller: AgentRules | None = None,
    cwd: str | None = None,
    *,
    submit_plan: str | None = None,
    prefer: str | None = None,
) -> permissions.Decision:
    """The decision on one call of an agent that makes several of plan mode's ``calls``
    (:class:`~planmode.core.agents.AgentTools`): each decided as :func:`check_tool` does; the
    first refused one refuses it, else the first asked about asks, else it is allowed (a call
    that makes none is plan mode's to read, not to stop)."""
    decisions = [
        check_tool(
            registry,
            session,
            c.tool,
            dict(c.input),
            agent_id,
            hide,
            caller,
            cwd,
            submit_plan=submit_plan,
            prefer=prefer,
        )
        for c in calls
    ]
    for behavior in ("deny", "ask"):
        found = next((d for d in decisions if d.behavior == behavior), None)
        if found is not None:
            return found
    if decisions:
        return decisions[0]
    return permissions.allow(
        permissions.RULE_PLAN_READ if session.modes.mode == "plan" else permissions.RULE_MODE
    )


def shell_directory(cwd: str | None, caller: AgentRules | None) -> tuple[Path | None, str | None]:
    """Where a Bash line runs, or why that is not known (docs/protocol.md §6): the caller's
    ``cwd`` (else the agent's, as its call says) when it is an absolute path; without one, the
    workspace root (None) for a caller that names no directory (the CLI, an editor), but not
    known for an agent with its own shell (``caller``), which keeps the directory an earlier
    ``cd`` left it in."""
    if cwd is None and caller is not None and caller.cwd is not None:
        cwd = str(caller.cwd)
    if cwd is not None:
        if os.path.isabs(cwd):
            return Path(cwd), None
        return None, f"cwd {cwd!r} is not an absolute path"
    if caller is not None:
        return None, f"a call from {caller.name} without cwd"
    return None, None


def sandbox(prefer: str | None = None) -> sandbox_probe.Availability:
    """The OS sandbox planning Bash runs in (found once per process; docs/sandbox.md).
    ``prefer``: the mechanism an agent's commands need (``landlock`` where the agent runs them
    inside a sandbox of its own, in which bubblewrap cannot make its namespaces) — that one or
    none, unless ``PLANMODE_SANDBOX`` chose for the whole server."""
    found = sandbox_probe.detect_once()
    chosen = (os.environ.get(ENV_CHOICE) or "auto").strip().lower()
    if prefer is None or chosen != "auto" or found.mechanism == _MECHANISMS.get(prefer):
        return found
    return sandbox_probe.detect_once({**os.environ, ENV_CHOICE: prefer})


def _sandboxed(
    registry: SessionRegistry,
    decision: permissions.Decision,
    command: str,
    hide: Sequence[str],
    prefer: str | None = None,
) -> permissions.Decision:
    """An allowed planning Bash command carries how to run it in the sandbox; without
    one, ``requireSandbox`` turns the allow into a deny."""
    available = sandbox(prefer)
    required = registry.settings.requireSandbox
    # git opens only the workspace's own repository, with the settings that run programs
    # neutralised (a committed bare or vendored repository's config never runs).
    wrapped = available.wrap(command, hide, shell.git_environment_for(registry.root))
    if wrapped is not None:
        return replace(decision, sandbox=replace(wrapped, required=required))
    if required:
        return permissions.deny(
            "requireSandbox",
            f"no OS sandbox works here ({available.detail}), so Bash is denied while planning",
            permissions.RULE_PLAN_BASH,
        )
    return decision
