"""``planMode/checkTool``: may the agent run this tool call now? (contract §6)."""

from __future__ import annotations

from typing import Any

from planmode.lsp import protocol
from planmode.lsp.models import CheckToolParams
from planmode.lsp.server import PlanModeServer


def check_tool(server: PlanModeServer, params: CheckToolParams) -> dict[str, Any]:
    session = server.session_for(params)
    endpoint = server.endpoint
    hide = [str(endpoint.directory)] if endpoint is not None and endpoint.directory else []
    decision = server.service.check_tool(
        session, params.tool, params.input, params.agentId, hide=hide
    )
    return decision.to_wire()


def register(server: PlanModeServer) -> None:
    server.request(protocol.CHECK_TOOL, CheckToolParams)(check_tool)
