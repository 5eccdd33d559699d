"""``planMode/resume`` and ``planMode/fork``: a session takes up a transcript's plan."""

from __future__ import annotations

from planmode.lsp import protocol
from planmode.lsp.features.state import publish_state, session_for
from planmode.lsp.params import ForkParams, ResumeParams
from planmode.lsp.results import ForkResult, ResumeResult
from planmode.lsp.server import PlanModeServer


def resume(server: PlanModeServer, params: ResumeParams) -> ResumeResult:
    session = session_for(server, params)
    restored, path = server.service.resume(session, params.transcript, params.remote)
    publish_state(server, session)
    return ResumeResult(restored=restored, plan_file_path=str(path))


def fork(server: PlanModeServer, params: ForkParams) -> ForkResult:
    session = session_for(server, params)
    copied, path = server.service.fork(session, params.transcript)
    publish_state(server, session)
    return ForkResult(copied=copied, plan_file_path=str(path))


def register(server: PlanModeServer) -> None:
    server.request(protocol.RESUME, ResumeParams)(resume)
    server.request(protocol.FORK, ForkParams)(fork)
