"""Which agent a request comes from: the adapter (:mod:`planmode.agents`) core is handed
for it.

A request carrying Claude Code's params — ``transcriptPath``, ``projectDir``,
``claudeConfigDir`` (docs/protocol.md §4) — is a call of Claude Code's hook: the session
adopts the plan file Claude Code reports, and Claude Code's own rules bound what plan mode
allows. A request carrying ``opencode`` is a call of planmode's OpenCode plugin: the session
adopts the plan file OpenCode's plan agent names, and OpenCode's tools are read in plan mode's
terms. A request carrying ``gemini`` is a call of planmode's Gemini CLI hook: the session adopts
the plan the model names in Gemini's plans directory, and Gemini's tools are read in plan mode's
terms. A request carrying ``codex`` is a call of planmode's Codex hook: Codex's tools are read in
plan mode's terms, its plan comes with its exit (it writes no file while planning), its
planning Bash runs in the sandbox that nests in Codex's own, and the session follows whether
Codex plans. Any other caller (an editor, the CLI) takes plan mode as the protocol gives it.
"""

from __future__ import annotations

import os
from pathlib import Path

from planmode.agents.claude_code.adapter import ClaudeCode, ClaudeCodeCall
from planmode.agents.codex.adapter import CodexCall
from planmode.agents.gemini.adapter import GeminiCall, GeminiCli
from planmode.agents.gemini.tools import EDIT_TOOLS as GEMINI_EDIT_TOOLS
from planmode.agents.opencode.adapter import OpenCode, OpenCodeCall
from planmode.agents.opencode.adoption import SessionFacts
from planmode.core import prompts
from planmode.core.agents import AgentRules, AgentTools, PlanFileReport, PlanInExit
from planmode.core.errors import InvalidParams
from planmode.core.session import Session
from planmode.lsp.params import (
    AgentParams,
    CheckToolParams,
    ClaudeCodeParams,
    ExitParams,
    OpenCodeParams,
)
from planmode.lsp.server import PlanModeServer

AgentCall = ClaudeCodeCall | OpenCodeCall | GeminiCall | CodexCall


def agent_name(call: AgentCall | None) -> str | None:
    """The agent as the plan library names it (``planmode init``'s name), None for an editor
    or the CLI."""
    if isinstance(call, ClaudeCodeCall):
        return "claude-code"
    if isinstance(call, OpenCodeCall):
        return "opencode"
    if isinstance(call, GeminiCall):
        return "gemini"
    if isinstance(call, CodexCall):
        return "codex"
    return None


def agent_call(
    server: PlanModeServer, params: ClaudeCodeParams, cwd: str | None = None
) -> AgentCall | None:
    """The agent's call a request is, or None for a caller with no adapter. ``cwd``: where
    its shell is (checkTool's)."""
    if isinstance(params, AgentParams) and params.opencode is not None:
        return opencode_call(server, params.opencode)
    if isinstance(params, AgentParams) and params.gemini is not None:
        return gemini_call(server, params)
    if isinstance(params, AgentParams) and params.codex is not None:
        return CodexCall(params.codex.planning, cwd)
    if not (params.project_dir or params.claude_config_dir or params.transcript_path):
        return None
    service = server.service
    return service.agent(ClaudeCode).call(
        service.root, params.transcript_path, params.project_dir, params.claude_config_dir, cwd
    )


def opencode_call(server: PlanModeServer, params: OpenCodeParams) -> OpenCodeCall:
    """A call of the OpenCode plugin; its directories must be absolute (else -32602)."""
    for name, value in (
        ("directory", params.directory),
        ("worktree", params.worktree),
        ("dataDir", params.data_dir),
    ):
        if value is not None and not os.path.isabs(value):
            raise InvalidParams(f"field 'opencode.{name}': {value!r} is not an absolute path")
    facts = None
    if params.session_created is not None and params.session_slug is not None:
        facts = SessionFacts(
            created=params.session_created,
            slug=params.session_slug,
            worktree=Path(os.path.normpath(params.worktree)),
            git=params.git,
            data=Path(os.path.normpath(params.data_dir)) if params.data_dir else None,
        )
    service = server.service
    return service.agent(OpenCode).call(service.root, facts, os.path.normpath(params.directory))


def gemini_call(server: PlanModeServer, params: AgentParams) -> GeminiCall:
    """A call of the Gemini CLI hook: its plans directory, and the plan the call names there
    (a write's file, an exit's plan)."""
    assert params.gemini is not None
    candidate = None
    if isinstance(params, CheckToolParams) and params.tool in GEMINI_EDIT_TOOLS:
        candidate = params.input.get("file_path")
    elif isinstance(params, ExitParams):
        candidate = params.plan_file_path
    service = server.service
    return service.agent(GeminiCli).call(service.root, params.gemini.plans_dir, candidate)


def own_rules(call: AgentCall | None) -> AgentRules | None:
    """The agent's own permission rules that may object to plan mode's allow (Claude Code's)."""
    return call.rules if isinstance(call, ClaudeCodeCall) else None


def own_tools(call: AgentCall | None) -> AgentTools | None:
    """The agent's tools, when they are not plan mode's (OpenCode's, Gemini CLI's, Codex's)."""
    return call if isinstance(call, OpenCodeCall | GeminiCall | CodexCall) else None


def plan_file_report(call: AgentCall | None) -> PlanFileReport | None:
    """The call as a report of the agent's own plan file (Codex has none)."""
    return None if isinstance(call, CodexCall) else call


def plan_in_exit(call: AgentCall | None) -> PlanInExit | None:
    """The agent's call when its exit brings its plan (Codex's)."""
    return call if isinstance(call, CodexCall) else None


def own_sandbox(call: AgentCall | None) -> str | None:
    """The sandbox mechanism the agent's commands need (Codex's: Landlock), or None."""
    return call.sandbox if isinstance(call, CodexCall) else None


def permission_mode(
    call: AgentCall | None, params: ClaudeCodeParams, session: Session
) -> str | None:
    """The mode the agent's call brings the session to: its ``permissionMode``, or for Codex
    (whose own mode is only planning or not) plan mode, or the mode from before it."""
    if isinstance(call, CodexCall):
        return call.permission_mode(session.modes.mode, session.modes.pre_plan_mode)
    return params.permission_mode


def exit_tool(call: AgentCall | None) -> str:
    """What the agent calls ExitPlanMode, for the texts its model reads."""
    tools = own_tools(call)
    return tools.exit_tool if tools is not None else prompts.EXIT_TOOL
