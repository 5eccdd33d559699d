"""Builds the server: every feature registered at once, or — what ``planmode lsp`` runs — after
the ``initialize`` answer.

Start-up pays for what answering ``initialize`` needs and nothing more: pygls, lsprotocol and
this package's light modules. The capabilities that answer declares come from
:data:`STARTUP_FEATURES` and the ``COMMAND_*`` names of :mod:`planmode.lsp.protocol`;
``tests/unit/test_startup.py`` checks that they are what the registered features declare. The
features themselves (pydantic models, tree-sitter, the permission tables, the service) are
registered right after the answer is sent, and in any case before any other message is handled,
and the ``initialize`` params are handed to the real ``initialize`` handler then (so that
handler stays synchronous).
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import logging
from typing import Any

from lsprotocol import types

from planmode import runtime
from planmode.lsp import protocol
from planmode.lsp.server import PlanModeServer, workspace_root
from planmode.lsp.transport.rpc import PlanModeProtocol

log = logging.getLogger(__name__)

# Each registers its handlers in register(server) (lsp/server.py), in this order.
FEATURE_MODULES = (
    "lifecycle",
    "transport.endpoint",
    "features.state",
    "features.buffers",
    "features.settings",
    "features.sessions",
    "features.teammates.keys",
    "features.tools",
    "features.turns",
    "features.approval",
    "features.codelens",
    "features.codeactions",
    "features.diagnostics",
    "features.edits",
    "features.resume",
    "features.revisions",
    "features.inlayhints",
    "features.progress",
    "features.revisionmarks",
    "features.library",
)

# Every standard LSP method the features register, with its registration options (None: no
# options). pygls builds the server capabilities from these names and options.
STARTUP_FEATURES: dict[str, Any] = {
    types.INITIALIZE: None,
    types.INITIALIZED: None,
    types.SHUTDOWN: None,
    types.WORKSPACE_DID_CHANGE_CONFIGURATION: None,
    types.TEXT_DOCUMENT_CODE_LENS: None,
    types.TEXT_DOCUMENT_CODE_ACTION: types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False
    ),
    types.TEXT_DOCUMENT_DID_OPEN: None,
    types.TEXT_DOCUMENT_DID_CHANGE: None,
    types.TEXT_DOCUMENT_DID_SAVE: None,
    types.TEXT_DOCUMENT_INLAY_HINT: types.InlayHintOptions(resolve_provider=False),
    types.WORKSPACE_SYMBOL: None,
}


def startup_commands() -> list[str]:
    """The ``workspace/executeCommand`` commands: every ``COMMAND_*`` wire name."""
    return [value for name, value in vars(protocol).items() if name.startswith("COMMAND_")]


def register_features(server: PlanModeServer) -> None:
    for name in FEATURE_MODULES:
        importlib.import_module(f"planmode.lsp.{name}").register(server)


def create_server(protocol_cls: type[PlanModeProtocol] = PlanModeProtocol) -> PlanModeServer:
    """A server with every feature registered now."""
    server = PlanModeServer(protocol_cls)
    register_features(server)
    return server


def _not_registered_yet(name: str) -> Any:
    def placeholder(*_args: Any) -> Any:
        # ensure_features() replaces every placeholder before a message other than
        # initialize is handled; reaching this is a bug, not a state to recover from.
        raise RuntimeError(f"{name} was called before the features were registered")

    return placeholder


def initialize_first(server: PlanModeServer, params: types.InitializeParams) -> None:
    """``initialize`` before the features are registered: records that the workspace's server
    is starting; the loader keeps the params for the real one."""
    # Before the answer: a hook of this workspace called as soon as initialize is answered
    # waits for the endpoint rather than find no server (docs/protocol.md §9, §10).
    try:
        runtime.write_record(str(workspace_root(params)), "starting")
    except OSError as exc:
        log.error("no record of this server for planmode hook: %s", exc)
    server.feature_loader = functools.partial(load_features, params=params)
    # After the answer is written: the event loop runs this before it reads on, and
    # handle_message calls ensure_features() anyway for the next message.
    asyncio.get_running_loop().call_soon(server.ensure_features)


def load_features(server: PlanModeServer, params: types.InitializeParams | None = None) -> None:
    """Replace the placeholders with the features, then run the real ``initialize`` with
    ``params``, those of an initialize answered before."""
    manager = server.protocol.fm
    for name in STARTUP_FEATURES:
        manager.features.pop(name, None)
        manager.feature_options.pop(name, None)
    for command in startup_commands():
        manager.commands.pop(command, None)
    register_features(server)
    real_initialize = manager.features.get(types.INITIALIZE)
    if params is not None and real_initialize is not None:
        try:
            real_initialize(params)
        except Exception:
            # As pygls does for a failing handler: logged, and the server goes on (its
            # service then falls back to the working directory, see PlanModeServer).
            log.exception("initialize failed")


def create_lazy_server(
    protocol_cls: type[PlanModeProtocol] = PlanModeProtocol,
) -> PlanModeServer:
    """A server that answers ``initialize`` first and registers its features right after."""
    server = PlanModeServer(protocol_cls)
    manager = server.protocol.fm
    for name, options in STARTUP_FEATURES.items():
        if name != types.INITIALIZE:
            manager.features[name] = _not_registered_yet(name)
        if options is not None:
            manager.feature_options[name] = options
    for command in startup_commands():
        manager.commands[command] = _not_registered_yet(command)
    server.feature(types.INITIALIZE)(initialize_first)
    server.feature_loader = load_features
    return server
