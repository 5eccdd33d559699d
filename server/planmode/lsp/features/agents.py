"""Which agent a request comes from: the adapter (:mod:`planmode.agents`) core is handed
for it.

A request carrying Claude Code's params — ``transcriptPath``, ``projectDir``,
``claudeConfigDir`` (docs/protocol.md §4) — is a call of Claude Code's hook: the session
adopts the plan file Claude Code reports, and Claude Code's own rules bound what plan mode
allows. Any other caller (an editor, the CLI) takes plan mode as the protocol gives it.
"""

from __future__ import annotations

from planmode.agents.claude_code.adapter import ClaudeCode, ClaudeCodeCall
from planmode.lsp.params import ClaudeCodeParams
from planmode.lsp.server import PlanModeServer


def agent_call(
    server: PlanModeServer, params: ClaudeCodeParams, cwd: str | None = None
) -> ClaudeCodeCall | None:
    """The agent's call a request is, or None for a caller with no adapter. ``cwd``: where
    its shell is (checkTool's)."""
    if not (params.project_dir or params.claude_config_dir or params.transcript_path):
        return None
    service = server.service
    return service.agent(ClaudeCode).call(
        service.root, params.transcript_path, params.project_dir, params.claude_config_dir, cwd
    )
