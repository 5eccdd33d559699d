"""Settings: every source read again and applied when the editor pushes a change (and once the
client is ready, from lsp/lifecycle.py); a bad value is a warning and its default."""

from __future__ import annotations

import logging

from lsprotocol import types

from planmode.core.settings import load_settings
from planmode.lsp import protocol
from planmode.lsp.features import diagnostics
from planmode.lsp.features.state import publish_state
from planmode.lsp.server import Feature, PlanModeServer, uri_to_path

log = logging.getLogger(__name__)


class InitializationOptions(Feature):
    """The planMode section of initializationOptions as the client sent it (at initialize):
    any JSON value, one of the settings sources, validated key by key with the others
    (core/settings.py)."""

    def __init__(self) -> None:
        self.section: object = None


def plan_mode_section(options: object) -> object:
    """The ``planMode`` section of initialization options or pushed settings, else None."""
    if isinstance(options, dict):
        return options.get(protocol.SETTINGS_SECTION)
    return None


async def did_change_configuration(
    server: PlanModeServer, params: types.DidChangeConfigurationParams
) -> None:
    await reload_settings(server, pushed=plan_mode_section(params.settings))


async def reload_settings(
    server: PlanModeServer, pushed: object = None, announce_plans_directory: bool = False
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
    options = server.get_feature(InitializationOptions).section
    settings, warnings = load_settings(service.root, options, configuration)
    changed = service.update_settings(settings)
    for warning in warnings:
        server.show_message(warning)
    location_warning = service.plans_directory_warning
    if location_warning and (announce_plans_directory or location_warning != before):
        server.show_message(location_warning)
    for session in changed:
        publish_state(server, session)
    for session in list(service.sessions.values()):
        publish_state(server, session)
    # planFormat decides some diagnostics: show open plans' findings under the new settings.
    for uri in list(server.workspace.text_documents):
        diagnostics.refresh(server, uri_to_path(uri))


def register(server: PlanModeServer) -> None:
    server.add_feature(InitializationOptions())
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
