"""The language server: owns the plan-mode service and wires LSP messages to it.

Feature modules (``lsp/features/``: ``sessions``, ``approval``, ``codelens``, ``edits``, …; and
``lifecycle``) each register their handlers on a :class:`PlanModeServer` in ``register(server)``
(lsp/app.py). A handler is
a module-level function taking the server first, ``handler(server, params)``: standard LSP
methods through ``server.feature`` (pygls passes the server to a first parameter annotated
with the server's class), ``planMode/*`` methods and commands through :meth:`request` and
:meth:`command_request`. This module holds what they share: those two decorators, which
validate params and turn core errors into JSON-RPC errors, the service, typed notifications
and tracked background tasks. A feature's state (an exit's waiter, the buffers, the lens memo,
the state last sent of each session: ``features/state.py``) is a :class:`Feature` object its
module makes in ``register()`` and finds by type (:meth:`PlanModeServer.get_feature`), as
esbonio's are: the server keeps no feature's state.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from planmode import __version__
from planmode.lsp import protocol

# Start-up imports only what answering initialize needs (lsp/app.py): the service, its
# errors and the pydantic params models load with the features, right after that answer.
if TYPE_CHECKING:
    from planmode.core import errors
    from planmode.core.service import PlanModeService
    from planmode.lsp.params import Params
    from planmode.lsp.results import Payload

log = logging.getLogger(__name__)

P = TypeVar("P", bound="Params")
F = TypeVar("F", bound="Feature")


@dataclass(frozen=True)
class WireMethod:
    """A registered request or command: its params model and its handler, whose return
    annotation names the payload model(s) of its result (lsp/schema.py reads them)."""

    params: type[Params]
    handler: Callable[..., Any]
    command: bool

    @property
    def result(self) -> Any:
        return inspect.signature(self.handler, eval_str=True).return_annotation


def to_rpc_error(exc: errors.PlanModeError) -> JsonRpcException:
    from planmode.core import errors

    codes: dict[type[errors.PlanModeError], int] = {
        errors.InvalidParams: protocol.INVALID_PARAMS,
        errors.NotInPlanMode: protocol.NOT_IN_PLAN_MODE,
        errors.AgentContext: protocol.AGENT_CONTEXT,
        errors.PlanModeDisabled: protocol.PLAN_MODE_DISABLED,
        errors.NoPlanFile: protocol.NO_PLAN_FILE,
        errors.NoPendingApproval: protocol.NO_PENDING_APPROVAL,
        errors.PlanChanged: protocol.PLAN_CHANGED,
        errors.NoApprovedPlan: protocol.NO_APPROVED_PLAN,
    }
    code = next((c for cls, c in codes.items() if isinstance(exc, cls)), -32603)
    return JsonRpcException(message=exc.message, code=code)


class Feature:
    """A feature's state, as esbonio's feature objects hold theirs: made in its module's
    ``register()`` (:meth:`PlanModeServer.add_feature`) and found by its type
    (:meth:`PlanModeServer.get_feature`). The server tells every feature of the two events
    below; one that needs neither ignores them."""

    def service_started(self, service: PlanModeService) -> None:
        """The workspace's service has started (initialize, or a request before it)."""

    def connection_ended(self) -> None:
        """The editor has left (its TCP connection closed): end what waits on it."""


class PlanModeServer(LanguageServer):
    """The framework every feature registers on. ``protocol_cls`` is how messages are read:
    lsp/transport/rpc.py's, or a transport's own subclass of it."""

    def __init__(self, protocol_cls: type[LanguageServerProtocol]) -> None:
        super().__init__("planmode", __version__, protocol_cls=protocol_cls)
        self._service: PlanModeService | None = None
        # Each feature's state, by its type.
        self._features: dict[type[Feature], Feature] = {}
        # Every planMode/* request and command with its params and result models.
        self.wire_methods: dict[str, WireMethod] = {}
        # Registers the features when start-up left them for after initialize (lsp/app.py).
        self.feature_loader: Callable[[PlanModeServer], None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # Set at shutdown: background loops end.
        self.stopping = False

    def ensure_features(self) -> None:
        """Register the features now if start-up left them for later; once."""
        loader, self.feature_loader = self.feature_loader, None
        if loader is not None:
            loader(self)

    # -- feature objects ------------------------------------------------------------------
    def add_feature(self, feature: F) -> F:
        """Keep ``feature``, found from now on by its type; a service already started is
        announced to it at once."""
        self._features[type(feature)] = feature
        if self._service is not None:
            feature.service_started(self._service)
        return feature

    def get_feature(self, kind: type[F]) -> F:
        """The ``kind`` its module's ``register()`` made."""
        found = self._features.get(kind)
        if not isinstance(found, kind):
            raise LookupError(f"no {kind.__name__}: its module's register() adds it")
        return found

    def connection_ended(self) -> None:
        """The editor has left: every feature ends what waits on it."""
        for feature in list(self._features.values()):
            feature.connection_ended()

    # -- the service ----------------------------------------------------------------------
    @property
    def service(self) -> PlanModeService:
        if self._service is None:
            # Requests before initialize still get an answer: the working directory's service.
            self.start_service(Path(os.getcwd()))
        assert self._service is not None
        return self._service

    def start_service(self, root: Path) -> PlanModeService:
        from planmode.agents.claude_code.adapter import ClaudeCode
        from planmode.agents.gemini.adapter import GeminiCli
        from planmode.agents.opencode.adapter import OpenCode
        from planmode.core.service import PlanModeService

        # The agents that name their own plan files (lsp/features/agents.py picks them).
        self._service = PlanModeService(root, agents=(ClaudeCode(), OpenCode(), GeminiCli()))
        for feature in list(self._features.values()):
            feature.service_started(self._service)
        return self._service

    # -- client capabilities --------------------------------------------------------------
    def client_supports(self, *path: str) -> bool:
        node: Any = self.client_capabilities
        for part in path:
            node = getattr(node, part, None)
            if node is None:
                return False
        return bool(node)

    # -- notifications --------------------------------------------------------------------
    def notify(self, method: str, params: Payload) -> None:
        """Send notification ``method``; its params must be the model it is declared with
        (``NOTIFICATIONS`` in lsp/results.py)."""
        from planmode.lsp.results import NOTIFICATIONS

        expected = NOTIFICATIONS.get(method)
        if type(params) is not expected:
            raise TypeError(f"{method} takes {expected}, not {type(params).__name__}")
        self.protocol.notify(method, params.wire())

    def show_message(self, text: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        log.warning("%s", text)
        self.window_show_message(types.ShowMessageParams(type=kind, message=text))

    def refresh_code_lenses(self) -> None:
        if self.client_supports("workspace", "code_lens", "refresh_support"):
            self.run_task(self.workspace_code_lens_refresh_async(None))

    # -- background tasks -----------------------------------------------------------------
    def run_task(self, awaitable: Awaitable[Any]) -> asyncio.Task[Any]:
        """Run ``awaitable`` in the background, keep a reference, log its failure."""

        async def wrapper() -> Any:
            return await awaitable

        task = asyncio.ensure_future(wrapper())
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def cancel_tasks(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    # -- requests -------------------------------------------------------------------------
    def request(
        self, method: str, model: type[P]
    ) -> Callable[[Callable[[PlanModeServer, P], Any]], Callable[[PlanModeServer, P], Any]]:
        """Register ``handler(server, params)`` for ``method``.

        Params are validated as ``model`` first; core errors become JSON-RPC errors with the
        codes of docs/protocol.md §4; the handler's payload is answered in its wire form. The
        handler is returned unchanged, so tests can call it directly.
        """
        from planmode.lsp.params import parse_params

        def register(handler: Callable[[PlanModeServer, P], Any]) -> Callable[..., Any]:
            self.wire_methods[method] = WireMethod(model, handler, command=False)

            def parsed(raw: Any) -> P:
                return parse_params(model, raw, method)

            self.feature(method)(self._answering(handler, parsed))
            return handler

        return register

    def command_request(
        self, command: str, model: type[P], handler: Callable[[PlanModeServer, P], Any]
    ) -> None:
        """Expose ``handler`` as ``workspace/executeCommand`` ``command`` with one object arg."""
        from planmode.core import errors
        from planmode.lsp.params import parse_params

        self.wire_methods[command] = WireMethod(model, handler, command=True)

        def parsed(*arguments: Any) -> P:
            if len(arguments) != 1 or arguments[0] is None:
                raise errors.InvalidParams(f"{command} takes one object argument")
            return parse_params(model, plain(arguments[0]), command)

        self.command(command)(self._answering(handler, parsed))

    def _answering(
        self, handler: Callable[[PlanModeServer, P], Any], parsed: Callable[..., P]
    ) -> Callable[..., Any]:
        """What pygls calls for ``handler``: the params ``parsed`` from the raw arguments, the
        payload answered in its wire form, core errors raised as JSON-RPC errors. A coroutine
        handler gets a coroutine, so pygls awaits it on the event loop."""
        if inspect.iscoroutinefunction(handler):

            async def run_async(*arguments: Any) -> Any:
                with rpc_errors():
                    return answer(await handler(self, parsed(*arguments)))

            return run_async

        def run(*arguments: Any) -> Any:
            with rpc_errors():
                return answer(handler(self, parsed(*arguments)))

        return run


@contextmanager
def rpc_errors() -> Iterator[None]:
    """A core error raised inside becomes the JSON-RPC error of docs/protocol.md §4."""
    from planmode.core import errors

    try:
        yield
    except errors.PlanModeError as exc:
        raise to_rpc_error(exc) from exc


def answer(result: Payload) -> dict[str, Any]:
    """A handler's payload as the JSON object answered."""
    return result.wire()


def plain(value: Any) -> Any:
    """pygls hands payloads of methods it does not know over as namedtuples: back to JSON."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def uri_to_path(uri: str) -> Path | None:
    if not uri.startswith("file:"):
        return None
    fs_path = to_fs_path(uri)
    if fs_path is None:
        return None
    try:
        return Path(fs_path).resolve()
    except (OSError, ValueError):
        return None


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
