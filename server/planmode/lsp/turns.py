"""The agent loop around plan mode: ``planMode/nextTurn`` and the planning agents."""

from __future__ import annotations

from typing import Any

from planmode.core import workflow
from planmode.lsp import protocol, team_keys
from planmode.lsp.models import AgentDefinitionsParams, NextTurnParams
from planmode.lsp.server import PlanModeServer


def next_turn(server: PlanModeServer, params: NextTurnParams) -> dict[str, Any]:
    session = server.session_for(params)
    attachments, response = server.service.next_turn(session, params.agent_id)
    if session.awaiting_request is not None:
        # Still waiting for the lead: its server may have started (again) since.
        server.run_task(team_keys.deliver(server, session))
    server.publish_state(session)
    result: dict[str, Any] = {"attachments": [a.to_wire() for a in attachments]}
    if response is not None:
        # The lead's answer to this teammate's plan (approved: the exit attachment follows).
        result["leaderResponse"] = response.to_wire()
    return result


def agent_definitions(server: PlanModeServer, params: AgentDefinitionsParams) -> dict[str, Any]:
    return {"agents": workflow.agent_definitions()}


def register(server: PlanModeServer) -> None:
    server.request(protocol.NEXT_TURN, NextTurnParams)(next_turn)
    server.request(protocol.AGENT_DEFINITIONS, AgentDefinitionsParams)(agent_definitions)
