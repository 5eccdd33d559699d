"""Builds the server with every feature registered."""

from __future__ import annotations

from planmode.lsp import (
    approval,
    codeactions,
    codelens,
    diagnostics,
    edits,
    recovery,
    review,
    settings,
    state,
    team_keys,
    tools,
    turns,
)
from planmode.lsp.server import PlanModeProtocol, PlanModeServer


def create_server(protocol_cls: type[PlanModeProtocol] = PlanModeProtocol) -> PlanModeServer:
    server = PlanModeServer(protocol_cls)
    for feature in (
        settings,
        state,
        team_keys,
        tools,
        turns,
        approval,
        codelens,
        codeactions,
        diagnostics,
        edits,
        recovery,
        review,
    ):
        feature.register(server)
    return server
