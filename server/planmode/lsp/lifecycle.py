"""The server's lifecycle: ``initialize`` (the workspace root, the default session, the
initialization options, the workspace's record: starting), ``initialized`` (every settings
source, the agent endpoint, the team watcher, the first state) and ``shutdown`` (background
loops end, the endpoint closes)."""

from __future__ import annotations

from lsprotocol import types

from planmode.core.errors import PlanModeError
from planmode.core.settings import load_settings
from planmode.lsp.features.buffers import Buffers
from planmode.lsp.features.sessions import Editor
from planmode.lsp.features.settings import (
    InitializationOptions,
    plan_mode_section,
    reload_settings,
)
from planmode.lsp.features.state import SessionStates, publish_state, session_for
from planmode.lsp.features.teammates import watch as team_watch
from planmode.lsp.params import Params
from planmode.lsp.server import PlanModeServer, workspace_root
from planmode.lsp.transport.endpoint import Endpoint


def initialize(server: PlanModeServer, params: types.InitializeParams) -> None:
    service = server.start_service(workspace_root(params))
    # From now on a Claude Code hook of this workspace waits for the endpoint
    # (lsp/transport/endpoint.py).
    server.get_feature(Endpoint).announce()
    init_options = plan_mode_section(params.initialization_options)
    server.get_feature(InitializationOptions).section = init_options
    server.get_feature(Editor).name = params.client_info.name if params.client_info else None
    server.get_feature(Buffers).client_named(server.get_feature(Editor).name)
    session_id = init_options.get("sessionId") if isinstance(init_options, dict) else None
    if isinstance(session_id, str) and session_id:
        server.get_feature(SessionStates).default_id = session_id
    # Warnings are shown once the client is ready, by the full re-read in `initialized`.
    settings, _warnings = load_settings(service.root, init_options)
    service.update_settings(settings)


async def initialized(server: PlanModeServer, _params: types.InitializedParams) -> None:
    await reload_settings(server, announce_plans_directory=True)
    await server.get_feature(Endpoint).start()
    server.run_task(team_watch.watch(server))
    try:
        session = session_for(server, Params())
    except PlanModeError as exc:  # a bad sessionId in initializationOptions
        server.show_message(f"initializationOptions.planMode.sessionId: {exc}")
        return
    publish_state(server, session, force=True)


def shutdown(server: PlanModeServer, _params: None) -> None:
    from planmode.lsp.features.progress import ProgressFeature

    server.stopping = True
    server.get_feature(Endpoint).stop()
    server.get_feature(ProgressFeature).settle()  # the progress files, saved now


def register(server: PlanModeServer) -> None:
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.SHUTDOWN)(shutdown)
