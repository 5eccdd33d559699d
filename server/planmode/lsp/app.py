"""Builds the server with every feature registered."""

from __future__ import annotations

from planmode.lsp import (
    approval,
    codelens,
    diagnostics,
    edits,
    recovery,
    review,
    settings,
    state,
    tools,
    turns,
)
from planmode.lsp.server import PlanModeServer


def create_server() -> PlanModeServer:
    server = PlanModeServer()
    for feature in (
        settings,
        state,
        tools,
        turns,
        approval,
        codelens,
        diagnostics,
        edits,
        recovery,
        review,
    ):
        feature.register(server)
    return server
