"""Sessions: their state and mode (getState, setMode, enter, slashCommand ``/plan``), their
plans (listPlans) and their end (endSession)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from planmode.core import prompts
from planmode.lsp import protocol
from planmode.lsp.features.approval import answer_superseded, change_mode
from planmode.lsp.features.state import publish_state, session_for
from planmode.lsp.params import (
    EndSessionParams,
    EnterParams,
    GetStateParams,
    SetModeParams,
    SlashCommandParams,
)
from planmode.lsp.results import (
    EnterResult,
    SessionState,
    SlashCommandResult,
)
from planmode.lsp.server import Feature, PlanModeServer


class Editor(Feature):
    """The editor as initialize named it (its clientInfo): ``/plan open`` says where the plan
    opens."""

    def __init__(self) -> None:
        self.name: str | None = None


def get_state(server: PlanModeServer, params: GetStateParams) -> SessionState:
    return publish_state(server, session_for(server, params))


def set_mode(server: PlanModeServer, params: SetModeParams) -> SessionState:
    session = session_for(server, params)
    change_mode(server, session, params.mode)
    return publish_state(server, session)


def enter(server: PlanModeServer, params: EnterParams) -> EnterResult:
    session = session_for(server, params)
    message = server.service.enter(session, params.agent_id)
    return EnterResult(message=message, state=publish_state(server, session))


async def slash_command(server: PlanModeServer, params: SlashCommandParams) -> SlashCommandResult:
    session = session_for(server, params)
    editor = None
    if server.client_supports("window", "show_document", "support"):
        editor = server.get_feature(Editor).name or "your editor"
    result = server.service.slash_command(session, params.args, editor)
    message = result.message
    if result.open_path is not None:
        message = await open_in_editor(server, result.open_path)
    return SlashCommandResult(
        message=message, should_query=result.should_query, state=publish_state(server, session)
    )


async def open_in_editor(server: PlanModeServer, path: Path) -> str:
    """``/plan open``: show the plan through the editor (``window/showDocument``)."""
    if not server.client_supports("window", "show_document", "support"):
        return prompts.failed_to_open_plan("the connected editor cannot show documents")
    try:
        answer = await server.window_show_document_async(
            types.ShowDocumentParams(uri=path.as_uri(), take_focus=True)
        )
    except Exception as exc:
        return prompts.failed_to_open_plan(str(exc) or type(exc).__name__)
    if not getattr(answer, "success", False):
        return prompts.failed_to_open_plan("the editor declined to open it")
    return prompts.opened_plan(str(path))


def end_session(server: PlanModeServer, params: EndSessionParams) -> SessionState:
    session = session_for(server, params)
    pending = server.service.end_session(session)
    if pending is not None:
        answer_superseded(server, pending, "The session ended before the plan was decided.")
        server.refresh_code_lenses()
    return publish_state(server, session)


def register(server: PlanModeServer) -> None:
    server.add_feature(Editor())
    server.request(protocol.GET_STATE, GetStateParams)(get_state)
    server.request(protocol.SET_MODE, SetModeParams)(set_mode)
    server.request(protocol.ENTER, EnterParams)(enter)
    server.request(protocol.SLASH_COMMAND, SlashCommandParams)(slash_command)
    server.request(protocol.END_SESSION, EndSessionParams)(end_session)
