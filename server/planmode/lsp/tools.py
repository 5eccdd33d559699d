"""``planMode/checkTool``: may the agent run this tool call now? (docs/protocol.md §6)."""

from __future__ import annotations

import asyncio

from planmode.core.permissions import EDIT_TOOLS
from planmode.lsp import protocol
from planmode.lsp.approval import follow_claude_code
from planmode.lsp.models import CheckToolParams
from planmode.lsp.payloads import CheckToolResult
from planmode.lsp.server import PlanModeServer

# Claude Code writes its transcript asynchronously: the first tool call of a session may come
# before the lines that name the plan file. A write while planning waits this long for them.
TRANSCRIPT_WAIT = 1.0
TRANSCRIPT_POLL = 0.05


async def check_tool(server: PlanModeServer, params: CheckToolParams) -> CheckToolResult:
    session = server.session_for(params)
    follow_claude_code(server, session, params)
    if (
        params.tool in EDIT_TOOLS
        and params.transcript_path
        and session.modes.mode == "plan"
        and session.plan_file is None
    ):
        for _ in range(int(TRANSCRIPT_WAIT / TRANSCRIPT_POLL)):
            await asyncio.sleep(TRANSCRIPT_POLL)
            follow_claude_code(server, session, params)
            if session.plan_file is not None:
                break
    endpoint = server.endpoint
    hide = [str(endpoint.directory)] if endpoint is not None and endpoint.directory else []
    decision = server.service.check_tool(
        session, params.tool, params.input, params.agent_id, hide=hide
    )
    return CheckToolResult.from_core({**decision.to_wire(), "mode": session.modes.mode})


def register(server: PlanModeServer) -> None:
    server.request(protocol.CHECK_TOOL, CheckToolParams)(check_tool)
