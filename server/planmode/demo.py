"""``planmode demo``: the whole flow end to end, in a temporary workspace.

A real LSP client (pygls) starts the server as an editor would, and this script plays both
the agent (``planMode/*`` requests) and the user (opening the plan, editing it in place,
clicking the approval lens). Each step is printed; any step that misbehaves makes the demo
exit non-zero.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from planmode.core.edits import EditError, apply_to_disk
from planmode.lsp import protocol
from planmode.lsp.features.edits import to_operations
from planmode.lsp.server import plain

PLAN = textwrap.dedent(
    """\
    # Greet by name

    ## Context
    `src/app.py` prints a fixed greeting; users want to be greeted by name.

    ## Steps
    1. Read the name from the first command-line argument in `src/app.py`.

    ## Verification
    Run `python src/app.py Ada` and see `Hello, Ada!`.
    """
)
USER_ADDITION = "2. Fall back to `world` when no name is given.\n"
NEW_APP = (
    'import sys\n\nname = sys.argv[1] if len(sys.argv) > 1 else "world"\nprint(f"Hello, {name}!")\n'
)


def editor_capabilities() -> types.ClientCapabilities:
    """What an editor like VS Code offers: applies edits, shows documents, refreshes lenses."""
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            configuration=True,
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
        ),
        window=types.WindowClientCapabilities(
            show_document=types.ShowDocumentClientCapabilities(support=True)
        ),
    )


class DemoFailed(Exception):
    pass


class Demo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = LanguageClient("planmode-demo", "1")
        self.requested: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.step_number = 0
        self.failures = 0
        self._register_editor_side()

    def _register_editor_side(self) -> None:
        client = self.client

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            # This editor saves what it is asked to apply.
            try:
                apply_to_disk(to_operations(params.edit))
            except EditError as exc:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason=str(exc))
            return types.ApplyWorkspaceEditResult(applied=True)

        @client.feature(types.WINDOW_SHOW_DOCUMENT)
        def show_document(params: types.ShowDocumentParams) -> types.ShowDocumentResult:
            self.say(f"   editor: shows {Path(params.uri.removeprefix('file://')).name}")
            return types.ShowDocumentResult(success=True)

        @client.feature(types.WINDOW_SHOW_MESSAGE)
        def show_message(params: types.ShowMessageParams) -> None:
            self.say(f"   editor message: {params.message}")

        @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def refresh(_params: Any) -> None:
            return None

        @client.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams) -> list[Any]:
            return [None for _ in params.items]

        @client.feature(protocol.APPROVAL_REQUESTED)
        def approval_requested(params: Any) -> None:
            self.requested.put_nowait(plain(params))

        # The plan's diagnostics are not part of the story: received, not shown (pygls would
        # log every unhandled one on the user's terminal).
        for method in (
            protocol.DID_CHANGE_STATE,
            protocol.APPROVAL_RESOLVED,
            protocol.DID_CHANGE_PROGRESS,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
        ):
            client.feature(method)(lambda _params: None)

    # -- output ---------------------------------------------------------------------------
    def say(self, text: str) -> None:
        print(text, flush=True)

    def step(self, title: str) -> None:
        self.step_number += 1
        self.say(f"\n{self.step_number}. {title}")

    def check(self, ok: bool, what: str) -> None:
        self.say(f"   {'✓' if ok else '✗'} {what}")
        if not ok:
            self.failures += 1
            raise DemoFailed(what)

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return plain(await self.client.protocol.send_request_async(method, params or {}))

    # -- the script -----------------------------------------------------------------------
    async def run(self) -> None:
        app = self.root / "src" / "app.py"
        app.parent.mkdir(parents=True)
        app.write_text('print("Hello, world!")\n')
        self.say(f"Workspace: {self.root}")
        await self.client.start_io(sys.executable, "-m", "planmode", "lsp", "--log-level", "ERROR")
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=editor_capabilities(),
                root_uri=self.root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name="demo")],
                initialization_options={"planMode": {"sessionId": "demo"}},
                client_info=types.ClientInfo(name="planmode demo"),
            )
        )
        self.client.initialized(types.InitializedParams())
        try:
            await self.script(app)
        finally:
            await self.client.shutdown_async(None)
            self.client.exit(None)
            await self.client.stop()

    async def script(self, app: Path) -> None:
        self.step("The agent enters plan mode (EnterPlanMode)")
        entered = await self.call(protocol.ENTER)
        state = entered["state"]
        plan_path = Path(state["planFilePath"])
        self.check(state["mode"] == "plan", f"mode is plan (was {state['prePlanMode']})")
        self.say(f"   plan file: {plan_path.relative_to(self.root)}")

        self.step("The agent asks to write src/app.py and to run rm while planning")
        write = await self.call(
            protocol.CHECK_TOOL,
            {"tool": "Write", "input": {"file_path": str(app), "content": NEW_APP}},
        )
        self.check(write["behavior"] == "deny", "Write of src/app.py is denied")
        self.say(f"   reason: {write.get('message')}")
        remove = await self.call(
            protocol.CHECK_TOOL, {"tool": "Bash", "input": {"command": "ls src && rm -rf src"}}
        )
        self.check(remove["behavior"] == "deny", "Bash `ls src && rm -rf src` is denied")
        self.say(f"   reason: {remove.get('message')}")
        look = await self.call(
            protocol.CHECK_TOOL, {"tool": "Bash", "input": {"command": "grep -rn print src"}}
        )
        self.check(look["behavior"] == "allow", "Bash `grep -rn print src` (read-only) is allowed")
        plan_write = await self.call(
            protocol.CHECK_TOOL, {"tool": "Write", "input": {"file_path": str(plan_path)}}
        )
        self.check(plan_write["behavior"] == "allow", "Write of the plan file is allowed")

        self.step("The agent sends an edit of src/app.py anyway")
        before = app.read_text()
        refused = await self.call(
            protocol.APPLY_EDIT,
            {"edit": {"changes": {app.as_uri(): [_replace_all(before, NEW_APP)]}}},
        )
        self.check(not refused["applied"], "the edit is refused")
        self.say(f"   reason: {refused.get('failureReason')}")
        self.check(app.read_text() == before, "src/app.py is unchanged on disk")

        self.step("The agent writes its plan (the one file it may write)")
        written = await self.call(
            protocol.APPLY_EDIT,
            {
                "edit": {
                    "documentChanges": [
                        {
                            "kind": "create",
                            "uri": plan_path.as_uri(),
                            "options": {"overwrite": True},
                        },
                        {
                            "textDocument": {"uri": plan_path.as_uri(), "version": None},
                            "edits": [_insert_at_start(PLAN)],
                        },
                    ]
                }
            },
        )
        self.check(written["applied"], "the plan edit is applied")
        self.check(plan_path.read_text() == PLAN, "the plan file holds the plan")

        self.step("The agent asks to exit plan mode (ExitPlanMode); the plan opens for review")
        pending = asyncio.ensure_future(self.call(protocol.EXIT, {}))
        try:
            await self.review(plan_path, pending)
        finally:
            pending.cancel()

        self.step("Back to the mode from before plan mode")
        state = await self.call(protocol.GET_STATE)
        self.check(state["mode"] == "default", "mode is default again")

        self.step("The agent implements the plan: the same edit of src/app.py now goes through")
        done = await self.call(
            protocol.APPLY_EDIT,
            {"edit": {"changes": {app.as_uri(): [_replace_all(app.read_text(), NEW_APP)]}}},
        )
        self.check(done["applied"], "the edit is applied")
        self.check(app.read_text() == NEW_APP, "src/app.py now greets by name")

    async def review(self, plan_path: Path, pending: asyncio.Future[Any]) -> None:
        """The user's side of the approval: look, edit in place, click Approve."""
        approval = await asyncio.wait_for(self.requested.get(), 10)
        self.check(not pending.done(), "exit is waiting for the user")
        self._open(plan_path, PLAN)
        lenses = await self._lenses(plan_path)
        titles = [lens.command.title for lens in lenses if lens.command]
        self.say(f"   lenses: {' | '.join(titles)}")
        self.check(titles[:1] == [protocol.LENS_APPROVE], "the Approve plan lens is shown")

        self.step("The user edits the plan in place (unsaved) before approving")
        edited = PLAN.replace("in `src/app.py`.\n", "in `src/app.py`.\n" + USER_ADDITION)
        self._change(plan_path, edited, version=2)
        lenses = await self._lenses(plan_path)
        first = lenses[0].command
        assert first is not None
        self.say(f"   lens now reads: {first.title}")
        self.check(first.title.startswith("Approve plan (edited: +"), "the lens says it was edited")

        self.step("The user clicks the Approve lens")
        answer = plain(
            await self.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=first.command, arguments=first.arguments)
            )
        )
        self.check(answer == {"ok": True}, "the approval is accepted")
        result = await asyncio.wait_for(pending, 10)
        self.check(result["outcome"] == "approved", "the agent's ExitPlanMode returns approved")
        self.check(result["planWasEdited"], "the agent is told the user edited the plan")
        self.say(textwrap.indent(result["toolResult"], "   │ ", lambda _line: True))
        self.check(plan_path.read_text() == edited, "the approved text is saved to the plan file")
        self.check(approval["approvalId"] is not None, "the approval had an id")

    def _open(self, path: Path, text: str) -> None:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=path.as_uri(), language_id="markdown", version=1, text=text
                )
            )
        )

    def _change(self, path: Path, text: str, version: int) -> None:
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=path.as_uri(), version=version
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def _lenses(self, path: Path) -> list[types.CodeLens]:
        found = await self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
        )
        return list(found or [])


def _insert_at_start(text: str) -> dict[str, Any]:
    zero = {"line": 0, "character": 0}
    return {"range": {"start": zero, "end": zero}, "newText": text}


def _replace_all(old: str, new: str) -> dict[str, Any]:
    lines = old.splitlines()
    end = {"line": len(lines), "character": 0}
    return {"range": {"start": {"line": 0, "character": 0}, "end": end}, "newText": new}


def run_demo() -> int:
    with tempfile.TemporaryDirectory(prefix="planmode-demo-") as tmp:
        demo = Demo(Path(tmp).resolve())
        try:
            asyncio.run(asyncio.wait_for(demo.run(), 60))
        except DemoFailed as exc:
            print(f"\nDemo FAILED at step {demo.step_number}: {exc}", file=sys.stderr)
            return 1
        except Exception as exc:
            print(f"\nDemo FAILED at step {demo.step_number}: {exc!r}", file=sys.stderr)
            return 1
    print(f"\nDemo passed: {demo.step_number} steps.")
    return 0
