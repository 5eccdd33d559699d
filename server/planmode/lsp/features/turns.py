"""The agent loop around plan mode: ``planMode/nextTurn`` and the planning agents."""

from __future__ import annotations

from planmode.core import workflow
from planmode.lsp import protocol
from planmode.lsp.features.state import publish_state, session_for
from planmode.lsp.features.teammates import keys as team_keys
from planmode.lsp.params import AgentDefinitionsParams, NextTurnParams
from planmode.lsp.results import (
    AgentDefinition,
    AgentDefinitionsResult,
    Attachment,
    LeaderResponse,
    NextTurnResult,
)
from planmode.lsp.server import PlanModeServer


def next_turn(server: PlanModeServer, params: NextTurnParams) -> NextTurnResult:
    session = session_for(server, params)
    attachments, response = server.service.next_turn(session, params.agent_id)
    if session.awaiting_request is not None:
        # Still waiting for the lead: its server may have started (again) since.
        server.run_task(team_keys.deliver(server, session))
    publish_state(server, session)
    # With the lead's answer to this teammate's plan (approved: the exit attachment follows).
    return NextTurnResult(
        attachments=[Attachment.model_validate(a) for a in attachments],
        leader_response=LeaderResponse.model_validate(response) if response else None,
    )


def agent_definitions(
    server: PlanModeServer, params: AgentDefinitionsParams
) -> AgentDefinitionsResult:
    return AgentDefinitionsResult(
        agents=[AgentDefinition.model_validate(a) for a in workflow.agent_definitions()]
    )


def register(server: PlanModeServer) -> None:
    server.request(protocol.NEXT_TURN, NextTurnParams)(next_turn)
    server.request(protocol.AGENT_DEFINITIONS, AgentDefinitionsParams)(agent_definitions)
