"""What the editor is told of each session: which session a request names (the default one
when it names none: initialize's ``sessionId``, else one of this server's own), its state as
``planMode/didChangeState`` last sent it, and the warnings about the server's saved state,
each shown once."""

from __future__ import annotations

import uuid

from lsprotocol import types

from planmode.core.session import Session
from planmode.lsp import protocol
from planmode.lsp.params import Params
from planmode.lsp.results import SessionState
from planmode.lsp.server import Feature, PlanModeServer


class SessionStates(Feature):
    def __init__(self) -> None:
        # The session of a request without sessionId (initialize may name it).
        self.default_id: str = str(uuid.uuid4())
        self.last_sent: dict[str, SessionState] = {}
        # Warnings the user has been shown once, never again (where the state is kept).
        self.shown_warnings: set[str] = set()


def session_for(server: PlanModeServer, params: Params) -> Session:
    """The session ``params`` name; the user hears once of saved state that was lost or is
    kept elsewhere."""
    states = server.get_feature(SessionStates)
    # Only an absent sessionId means the default session; "" is invalid, not "default".
    session_id = states.default_id if params.session_id is None else params.session_id
    session = server.service.require_session(session_id)
    for lost in server.service.lost_sessions:
        server.show_message(
            f"The saved state of plan-mode session {lost} was unreadable and was moved "
            "aside; that session starts again in default mode.",
            types.MessageType.Error,
        )
    server.service.lost_sessions.clear()
    for warning in server.service.state_warnings():
        if warning not in states.shown_warnings:
            states.shown_warnings.add(warning)
            server.show_message(warning)
    return session


def publish_state(server: PlanModeServer, session: Session, force: bool = False) -> SessionState:
    """Send ``planMode/didChangeState`` when the session's state differs from the last."""
    states = server.get_feature(SessionStates)
    state = SessionState.model_validate(server.service.state(session))
    if force or states.last_sent.get(session.id) != state:
        states.last_sent[session.id] = state
        server.notify(protocol.DID_CHANGE_STATE, state)
    return state


def register(server: PlanModeServer) -> None:
    server.add_feature(SessionStates())
