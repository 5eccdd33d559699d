"""``planMode/resume`` and ``planMode/fork``: a session takes up a transcript's plan."""

from __future__ import annotations

from typing import Any

from planmode.lsp import protocol
from planmode.lsp.models import ForkParams, ResumeParams
from planmode.lsp.server import PlanModeServer


def resume(server: PlanModeServer, params: ResumeParams) -> dict[str, Any]:
    session = server.session_for(params)
    restored, path = server.service.resume(session, params.transcript, params.remote)
    server.publish_state(session)
    return {"restored": restored, "planFilePath": str(path)}


def fork(server: PlanModeServer, params: ForkParams) -> dict[str, Any]:
    session = server.session_for(params)
    copied, path = server.service.fork(session, params.transcript)
    server.publish_state(session)
    return {"copied": copied, "planFilePath": str(path)}


def register(server: PlanModeServer) -> None:
    server.request(protocol.RESUME, ResumeParams)(resume)
    server.request(protocol.FORK, ForkParams)(fork)
