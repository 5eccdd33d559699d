"""Lifecycle and settings: the workspace root, the default session, every settings source,
the agent endpoint and the team watcher at start-up, and their end at shutdown."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from lsprotocol import types

from planmode.core.service import PlanModeError
from planmode.core.settings import load_settings
from planmode.lsp import diagnostics, protocol, team_watch
from planmode.lsp.endpoint import start_endpoint
from planmode.lsp.models import Params
from planmode.lsp.server import PlanModeServer, uri_to_path

log = logging.getLogger(__name__)


def workspace_root(params: types.InitializeParams) -> Path:
    """The first workspace folder, else ``rootUri``, else ``rootPath``, else the cwd."""
    for folder in params.workspace_folders or []:
        path = uri_to_path(folder.uri)
        if path is not None:
            return path
    if params.root_uri:
        path = uri_to_path(params.root_uri)
        if path is not None:
            return path
    if params.root_path:
        return Path(params.root_path).resolve()
    return Path(os.getcwd()).resolve()


def _plan_mode_section(options: Any) -> Any:
    if isinstance(options, dict):
        return options.get(protocol.SETTINGS_SECTION)
    return None


def register(server: PlanModeServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        service = server.start_service(workspace_root(params))
        init_options = _plan_mode_section(params.initialization_options)
        server.init_options = init_options
        server.client_name = params.client_info.name if params.client_info else None
        session_id = init_options.get("sessionId") if isinstance(init_options, dict) else None
        if isinstance(session_id, str) and session_id:
            server.default_session_id = session_id
        # Warnings are shown once the client is ready, by the full re-read in `initialized`.
        settings, _warnings = load_settings(service.root, init_options)
        service.update_settings(settings)

    @server.feature(types.INITIALIZED)
    async def initialized(_params: types.InitializedParams) -> None:
        await reload_settings(server, announce_plans_directory=True)
        await start_endpoint(server)
        server.run_task(team_watch.watch(server))
        try:
            session = server.session_for(Params())
        except PlanModeError as exc:  # a bad sessionId in initializationOptions
            server.show_message(f"initializationOptions.planMode.sessionId: {exc}")
            return
        server.publish_state(session, force=True)

    @server.feature(types.SHUTDOWN)
    def shutdown(_params: None) -> None:
        server.stopping = True
        if server.endpoint is not None:
            server.endpoint.stop()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        pushed = _plan_mode_section(params.settings)
        await reload_settings(server, pushed=pushed)


async def reload_settings(
    server: PlanModeServer, pushed: Any = None, announce_plans_directory: bool = False
) -> None:
    """Read every source again and apply the result; bad values are warned about."""
    configuration = pushed
    if server.client_supports("workspace", "configuration"):
        try:
            answer = await server.workspace_configuration_async(
                types.ConfigurationParams(
                    items=[
                        types.ConfigurationItem(
                            scope_uri=server.service.root.as_uri(),
                            section=protocol.SETTINGS_SECTION,
                        )
                    ]
                )
            )
            configuration = answer[0] if answer else None
        except Exception as exc:
            log.warning("workspace/configuration failed: %s", exc)
    service = server.service
    before = service.plans_directory_warning
    settings, warnings = load_settings(service.root, server.init_options, configuration)
    changed = service.update_settings(settings)
    for warning in warnings:
        server.show_message(warning)
    location_warning = service.plans_directory_warning
    if location_warning and (announce_plans_directory or location_warning != before):
        server.show_message(location_warning)
    for session in changed:
        server.publish_state(session)
    for session in list(service.sessions.values()):
        server.publish_state(session)
    # planFormat decides some diagnostics: show open plans' findings under the new settings.
    for uri in list(server.workspace.text_documents):
        diagnostics.refresh(server, uri_to_path(uri))
