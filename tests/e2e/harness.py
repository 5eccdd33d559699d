"""A scripted editor around pytest-lsp's LanguageClient, driving the real server process."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import default_converter
from pygls.protocol.json_rpc import RPCMessage
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import register_lsp_features
from pytest_lsp.protocol import LanguageClientProtocol

from planmode.core.edits import EditError, apply_to_disk, simulate, targets
from planmode.lsp.features.edits import to_operations
from planmode.lsp.server import plain
from planmode.lsp.transport.discovery import discovery_path

NOTIFICATIONS = (
    "planMode/didChangeState",
    "planMode/approvalRequested",
    "planMode/approvalResolved",
    "planMode/didChangeProgress",
)
SERVER = [sys.executable, "-m", "planmode", "lsp", "--log-level", "WARNING"]


def capabilities(
    apply_edit: bool = True, show_document: bool = True, code_action_literals: bool = True
) -> types.ClientCapabilities:
    literals = types.ClientCodeActionLiteralOptions(
        code_action_kind=types.ClientCodeActionKindOptions(
            value_set=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]
        )
    )
    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=literals if code_action_literals else None
            )
        ),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=apply_edit,
            configuration=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[
                    types.ResourceOperationKind.Create,
                    types.ResourceOperationKind.Rename,
                    types.ResourceOperationKind.Delete,
                ],
            ),
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(
                dynamic_registration=False
            ),
        ),
        window=types.WindowClientCapabilities(
            show_document=types.ShowDocumentClientCapabilities(support=show_document)
        ),
    )


class EditorProtocol(LanguageClientProtocol):
    """pytest-lsp's protocol, telling the editor after each message from the server (its
    handlers have run by then: what the editor records is up to date)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heard: Callable[[], None] = lambda: None

    def handle_message(self, message: RPCMessage) -> None:
        super().handle_message(message)
        self.heard()


class Editor:
    """What a user's editor does, plus a log of everything the server told it."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        # Set, and replaced by a fresh one, on each message from the server: waiters check
        # their condition again then (see `until`), never on a timer.
        self._heard = asyncio.Event()
        assert isinstance(client.protocol, EditorProtocol), "a client without EditorProtocol"
        client.protocol.heard = self._on_heard
        self.notes: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.applied_edits: list[dict[str, Any]] = []
        self.lens_refreshes = 0
        self.hint_refreshes = 0
        self.versions: dict[str, int] = {}
        # Open documents as the editor holds them (unsaved changes included).
        self.buffers: dict[Path, str] = {}
        # What the editor answers to workspace/applyEdit (None: apply and save to disk).
        self.refuse_edits: str | None = None
        # Run once as the next workspace/applyEdit arrives (the user typing meanwhile).
        self.before_edit: Callable[[], None] | None = None
        self.message_answer: str | None = None
        # While set and not yet set off, window/showMessageRequest stays unanswered.
        self.message_gate: asyncio.Event | None = None
        # The server's answer to initialize.
        self.server_capabilities: types.ServerCapabilities | None = None

    # requests
    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.client.protocol.send_request_async(method, params or {})
        return plain(result)

    async def error(self, method: str, params: dict[str, Any] | None = None) -> JsonRpcException:
        """The JSON-RPC error a request must fail with."""
        try:
            result = await self.request(method, params)
        except JsonRpcException as exc:
            return exc
        raise AssertionError(f"{method} succeeded unexpectedly: {result}")

    def start(self, method: str, params: dict[str, Any] | None = None) -> asyncio.Task[Any]:
        """Send a request without waiting for it (planMode/exit stays pending)."""
        return asyncio.ensure_future(self.request(method, params))

    async def state(self, session_id: str | None = None) -> dict[str, Any]:
        return await self.request(
            "planMode/getState", {"sessionId": session_id} if session_id else {}
        )

    # documents
    def open(self, path: Path, text: str | None = None) -> None:
        uri = path.as_uri()
        self.versions[uri] = 1
        self.buffers[path] = path.read_text() if text is None else text
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri,
                    language_id="markdown",
                    version=1,
                    text=path.read_text() if text is None else text,
                )
            )
        )

    def change(self, path: Path, text: str) -> None:
        """Replace the buffer's text without saving (an unsaved edit in place)."""
        uri = path.as_uri()
        self.versions[uri] = self.versions.get(uri, 1) + 1
        self.buffers[path] = text
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def save(self, path: Path) -> None:
        """The editor saved the buffer (the caller wrote the file): textDocument/didSave."""
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri())
            )
        )

    async def lenses(self, path: Path) -> list[types.CodeLens]:
        found = await self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
        )
        return list(found or [])

    async def code_actions(
        self, path: Path, line: int = 0, end_line: int | None = None, only: list[str] | None = None
    ) -> list[types.CodeAction | types.Command]:
        """What the editor lists for the cursor (or a selection) on ``line`` of ``path``."""
        found = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                range=types.Range(
                    start=types.Position(line=line, character=0),
                    end=types.Position(line=line if end_line is None else end_line, character=0),
                ),
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        )
        return list(found or [])

    async def run_lens(self, lens: types.CodeLens) -> Any:
        assert lens.command is not None
        return await self.execute(lens.command.command, list(lens.command.arguments or []))

    async def execute(self, command: str, arguments: list[Any]) -> Any:
        result = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=arguments)
        )
        return plain(result)

    # waiting
    def _on_heard(self) -> None:
        self._heard.set()
        self._heard = asyncio.Event()

    async def until(self, predicate: Any, timeout: float = 10.0) -> None:
        """Wait (bounded) until ``predicate()`` is true, e.g. a request the editor received.

        It is checked now and again after each message from the server: what it looks at must
        be something the server tells the editor (or does before it tells it something).
        """

        async def holds() -> None:
            while not predicate():
                await self._heard.wait()

        await asyncio.wait_for(holds(), timeout)

    async def wait_for(self, method: str, count: int = 1, timeout: float = 10.0) -> dict[str, Any]:
        """The ``count``-th notification ``method`` (they are recorded as they arrive)."""
        await self.until(lambda: len(self.notes[method]) >= count, timeout)
        return self.notes[method][count - 1]

    async def endpoint(self, timeout: float = 10.0) -> dict[str, Any]:
        """The agent endpoint's discovery record, once the server has opened it.

        The server opens it while handling ``initialized`` and then pushes the session's state.
        """
        path = discovery_path(self.root)
        try:
            await self.until(path.exists, timeout)
        except TimeoutError:
            raise AssertionError(f"the server never opened its agent endpoint ({path})") from None
        return dict(json.loads(path.read_text()))

    async def settle(self) -> None:
        """Let notifications sent before the last answer arrive (a round trip)."""
        await self.request("planMode/listPlans")

    def messages(self) -> list[str]:
        return [m.message for m in self.client.messages]

    def warnings(self) -> list[str]:
        """window/showMessage texts of type Warning."""
        return [m.message for m in self.client.messages if m.type == types.MessageType.Warning]

    async def ready(self, timeout: float = 10.0) -> None:
        """Wait for the server's first state push: every settings source has been read.

        Call it before the first request (a request's own state push would count instead).
        """
        await self.wait_for("planMode/didChangeState", 1, timeout)

    def reconfigure(self, configuration: dict[str, Any] | None) -> None:
        """The user edits the editor's ``planMode`` settings: workspace/didChangeConfiguration."""
        self.client.set_configuration(configuration or {}, section="planMode")
        self.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"planMode": configuration or {}})
        )

    async def state_until(
        self, check: Any, session_id: str | None = None, timeout: float = 5.0
    ) -> dict[str, Any]:
        """planMode/getState once ``check(state)`` holds: asked now and again after each
        planMode/didChangeState (the server pushes every change of a session's state)."""

        async def changed() -> dict[str, Any]:
            while True:
                pushes = len(self.notes["planMode/didChangeState"])
                state = await self.state(session_id)
                if check(state):
                    return state
                await self.wait_for("planMode/didChangeState", pushes + 1, timeout)

        return await asyncio.wait_for(changed(), timeout)

    async def message_until(self, check: Any, timeout: float = 5.0) -> str:
        """The first window/showMessage text for which ``check(text)`` holds (waits for it)."""
        await self.until(lambda: any(check(text) for text in self.messages()), timeout)
        return next(text for text in self.messages() if check(text))


def _client_factory(editor_box: list[Editor]) -> Any:
    def factory() -> LanguageClient:
        # pytest-lsp's make_test_lsp_client, with a protocol that tells the editor each message.
        client = LanguageClient(converter_factory=default_converter, protocol_cls=EditorProtocol)
        register_lsp_features(client)
        converter = client.protocol._converter

        # lsprotocol reads any code action with a "command" key as a Command, but a CodeAction
        # carries its Command object there too: only a string command makes a Command.
        def code_action(raw: Any, _: type) -> types.Command | types.CodeAction:
            kind = types.Command if isinstance(raw.get("command"), str) else types.CodeAction
            return converter.structure(raw, kind)

        converter.register_structure_hook(types.Command | types.CodeAction, code_action)
        converter.register_structure_hook(
            Union[types.Command, types.CodeAction],  # noqa: UP007 (lsprotocol's key)
            code_action,
        )

        for method in NOTIFICATIONS:

            def record(params: Any, method: str = method) -> None:
                editor_box[0].notes[method].append(plain(params))

            client.feature(method)(record)

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            editor = editor_box[0]
            editor.applied_edits.append({"label": params.label, "edit": params.edit})
            if editor.before_edit is not None:
                typing, editor.before_edit = editor.before_edit, None
                typing()
            if editor.refuse_edits is not None:
                return types.ApplyWorkspaceEditResult(
                    applied=False, failure_reason=editor.refuse_edits
                )
            # Like eglot, VS Code and lsp-mode: an edit for another version of a buffer is refused.
            for change in params.edit.document_changes or []:
                if isinstance(change, types.TextDocumentEdit):
                    uri, version = change.text_document.uri, change.text_document.version
                    held = editor.versions.get(uri)
                    if version is not None and held is not None and version != held:
                        return types.ApplyWorkspaceEditResult(
                            applied=False,
                            failure_reason=f"{uri} is at version {held}, not {version}",
                        )
            try:
                operations = to_operations(params.edit)
                touches_open = any(p in editor.buffers for p in targets(operations))
                if not touches_open:
                    apply_to_disk(operations)  # like an editor that saves what it applies
                    return types.ApplyWorkspaceEditResult(applied=True)

                def read(path: Path) -> str | None:
                    if path in editor.buffers:
                        return editor.buffers[path]
                    return path.read_text() if path.exists() else None

                final = simulate(operations, read)
            except EditError as exc:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason=str(exc))
            # Open documents change in the buffer (unsaved), as in a real editor.
            for path, text in final.items():
                if path in editor.buffers and text is not None:
                    editor.change(path, text)
                elif text is None:
                    path.unlink(missing_ok=True)
                else:
                    path.write_text(text)
            return types.ApplyWorkspaceEditResult(applied=True)

        @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def refresh(_params: Any) -> None:
            editor_box[0].lens_refreshes += 1

        @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
        def refresh_hints(_params: Any) -> None:
            editor_box[0].hint_refreshes += 1

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        async def message_request(params: types.ShowMessageRequestParams) -> Any:
            editor = editor_box[0]
            editor.client.messages.append(params)
            editor._on_heard()  # recorded after the message was heard: waiters look again
            if editor.message_gate is not None:
                await editor.message_gate.wait()  # the user reads the question first
            answer = editor.message_answer
            return types.MessageActionItem(title=answer) if answer else None

        return client

    return factory


@asynccontextmanager
async def running_editor(
    root: Path,
    home: Path,
    *,
    init_options: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
    caps: types.ClientCapabilities | None = None,
    env: dict[str, str] | None = None,
    client_name: str = "Test Editor",
) -> AsyncIterator[Editor]:
    """Start the real server on ``root``, initialize it as an editor would, shut it down after."""
    box: list[Editor] = []
    server_env = {**os.environ, "HOME": str(home), **(env or {})}
    for key in (
        "CLAUDE_CODE_PLAN_MODE_INTERVIEW_PHASE",
        "CLAUDE_CODE_PLAN_V2_AGENT_COUNT",
        "CLAUDE_CODE_PLAN_V2_EXPLORE_AGENT_COUNT",
    ):
        if key not in (env or {}):
            server_env.pop(key, None)
    config = ClientServerConfig(
        server_command=[*SERVER], server_env=server_env, client_factory=_client_factory(box)
    )
    client = await config.start()
    editor = Editor(client, root)
    box.append(editor)
    if configuration is not None:
        client.set_configuration(configuration.get("planMode", {}), section="planMode")
    initialized = await client.initialize_session(
        types.InitializeParams(
            capabilities=caps or capabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options={"planMode": init_options} if init_options else None,
            client_info=types.ClientInfo(name=client_name),
        )
    )
    editor.server_capabilities = initialized.capabilities
    try:
        yield editor
    finally:
        await client.shutdown_session()
        await client.stop()
