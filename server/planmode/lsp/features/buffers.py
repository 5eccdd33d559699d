"""Server-made changes to a plan that may be open in the editor, without corrupting the buffer.

The server changes a plan's text itself when the agent submits a revision with ExitPlanMode
and when the user undoes a hunk. An edit computed against text the editor no longer holds
corrupts the buffer (the same section twice), and most editors never reload a file under an
open buffer (eglot without ``auto-revert``, Neovim and Helix until ``:e``). So
(docs/protocol.md §5.1):

* Not open: the file is written.
* Open in an editor that reloads an unmodified buffer itself when its file changes (VS Code
  and its builds, told by the ``clientInfo`` name they send) and unmodified there: the file is
  written and the editor's reload brings the buffer along, unmodified. No edit: the buffer
  would get the change twice, and VS Code would keep it modified over a file it calls newer.
* Open anywhere else, modified or not: the change goes to the editor as an edit first, and the
  file follows once the editor applied it, so the buffer holds the file's bytes without a
  reload. A buffer with unsaved changes gets the agent's text on top (its own undo brings the
  user's text back).

The edit is ``documentChanges`` with the version of the buffer the server last saw and ranges
computed against the text the server knows the buffer holds; an editor whose buffer moved on
refuses it (eglot, VS Code and lsp-mode check the version), and the edit is tried again
against the buffer's new text. Until the buffer holds the new text — not reloaded yet, or the
edit refused — the buffer is *out of date*: until it equals the file again (or the user saves
it), the plan is read from the file, so an old text left in the buffer is never approved as
the user's edit.

What the buffers hold is :class:`Buffers`, the feature's object: which are out of date, and
what each held when it was last opened, saved or reloaded. Through it the service reads a
plan as the editor holds it.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types
from pygls.workspace import TextDocument

from planmode.core.linediff import opcodes
from planmode.core.lines import lsp_lines
from planmode.core.plans import write_plan
from planmode.core.service import PlanModeService
from planmode.lsp.server import Feature, PlanModeServer, uri_to_path

log = logging.getLogger(__name__)

# How long an unmodified buffer is given to reload a file the server wrote, in seconds.
RELOAD_WAIT = 1.0
# How long the agent's allowed write of an open plan is waited for, in seconds: it runs right
# after checkTool, or once the user allowed it in the agent's own prompt.
FOLLOW_WAIT = 60.0
# How often an edit refused because the buffer moved on is tried again against its new text.
EDIT_ATTEMPTS = 3

# The ``clientInfo.name`` of editors that reload an unmodified buffer when its file changes:
# VS Code's builds (vscode-languageclient sends ``vscode.env.appName``).
RELOADING_EDITORS = frozenset(
    {
        "Visual Studio Code",
        "Visual Studio Code - Insiders",
        "code-server",
        "Code - OSS",
        "VSCodium",
    }
)


class Buffers(Feature):
    """The editor's open buffers as this module keeps track of them (see the module)."""

    def __init__(self, server: PlanModeServer) -> None:
        self.server = server
        # Open plans whose buffer did not take the server's last change.
        self.out_of_date: set[Path] = set()
        # What each open buffer held when the editor last opened, saved or reloaded it: a
        # buffer holding that text is unmodified in the editor.
        self.saved_texts: dict[Path, str] = {}
        self._uri_paths: dict[str, Path | None] = {}
        # The text the server's last edit left in each buffer (lsp/features/approval.py tells
        # a buffer only the server modified from one the user typed in).
        self.edited: dict[Path, str] = {}
        # Plans an edit of the server's is on its way to: a buffer coming to equal the file
        # meanwhile is that edit (the editor marks it modified), not a reload.
        self.editing: set[Path] = set()
        # Whether the editor reloads an unmodified buffer itself (set at initialize).
        self.editor_reloads = False

    def client_named(self, name: str | None) -> None:
        """The editor named itself ``name`` at initialize (its ``clientInfo``)."""
        self.editor_reloads = name in RELOADING_EDITORS

    def service_started(self, service: PlanModeService) -> None:
        # An open plan is read as the editor holds it (core/registry.py).
        service.open_document_text = self.text

    def document(self, path: Path) -> TextDocument | None:
        """The editor's open document of ``path``, or None."""
        try:
            # pygls leaves the property unannotated.
            documents: dict[str, TextDocument] = self.server.workspace.text_documents
        except RuntimeError:
            return None
        for uri, document in documents.items():
            if uri not in self._uri_paths:
                self._uri_paths[uri] = uri_to_path(uri)
            if self._uri_paths[uri] == path:
                return document
        return None

    def text(self, path: Path) -> str | None:
        """The text of ``path`` as the editor holds it, unsaved edits included.

        None for a buffer that did not take a change the server made: the file is the plan
        until the buffer equals it again or is saved.
        """
        document = self.document(path)
        if document is None:
            return None
        if path in self.out_of_date:
            if document.source != disk_text(path):
                return None
            self.out_of_date.discard(path)
            if path not in self.editing:  # reloaded: unmodified, holding the file
                self.saved_texts[path] = document.source
        return document.source


def disk_text(path: Path) -> str | None:
    """The file's text exactly (no newline translation), or None."""
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _utf16_len(text: str) -> int:
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


def line_edits(old: str, new: str) -> list[types.TextEdit]:
    """Line-granular edits turning ``old`` into ``new`` (only the changed lines are touched)."""
    before, after = lsp_lines(old, keepends=True), lsp_lines(new, keepends=True)

    def position(index: int) -> types.Position:
        """Where line ``index`` of ``old`` starts (the end of the text past its last line)."""
        if index < len(before) or not before or before[-1].endswith(("\n", "\r")):
            return types.Position(line=index, character=0)
        return types.Position(line=index - 1, character=_utf16_len(before[-1]))

    def edit(i1: int, i2: int, j1: int, j2: int) -> types.TextEdit:
        return types.TextEdit(
            range=types.Range(start=position(i1), end=position(i2)),
            new_text="".join(after[j1:j2]),
        )

    return [
        edit(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in opcodes(before, after) if tag != "equal"
    ]


def opened(server: PlanModeServer, path: Path, text: str) -> None:
    """The editor opened ``path`` holding ``text``: what an unmodified buffer holds."""
    server.get_feature(Buffers).saved_texts[path] = text
    if server.service.is_plan_file(path):
        server.service.editor_opened(path, text)


def changed(server: PlanModeServer, path: Path) -> None:
    """The editor's buffer of ``path`` changed: who changed it is told apart in core
    (core/provenance.py): an edit the server sent, a reload of the file, or the user."""
    document = server.get_feature(Buffers).document(path)
    if document is not None and server.service.is_plan_file(path):
        server.service.editor_changed(path, document.source, disk_text(path))


def saved(server: PlanModeServer, path: Path) -> None:
    """The editor saved its buffer of ``path``: what it holds is the plan again, and typing
    it sent just before may be the user's (core/provenance.py)."""
    buffers = server.get_feature(Buffers)
    buffers.out_of_date.discard(path)
    document = buffers.document(path)
    if document is not None:
        buffers.saved_texts[path] = document.source
        if server.service.is_plan_file(path):
            server.service.editor_saved(path, document.source)


async def reaches(server: PlanModeServer, path: Path, text: str, timeout: float) -> bool:
    """Wait (bounded) until the editor's buffer of ``path`` holds ``text``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    buffers = server.get_feature(Buffers)
    while True:
        document = buffers.document(path)
        if document is None or document.source == text:
            return True
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.02)


async def send_edit(
    server: PlanModeServer, path: Path, old: str, version: int | None, new: str, label: str
) -> bool:
    """Ask the editor to turn its buffer (``old`` at ``version``) into ``new``."""
    if not server.client_supports("workspace", "apply_edit"):
        return False
    text_edits = line_edits(old, new)
    if server.client_supports("workspace", "workspace_edit", "document_changes"):
        edit = types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=path.as_uri(), version=version
                    ),
                    edits=list(text_edits),
                )
            ]
        )
    else:
        # Neovim 0.7 applies edits but does not claim documentChanges: unversioned, computed
        # against the text it held a moment ago (edit_buffer checks what it holds after).
        edit = types.WorkspaceEdit(changes={path.as_uri(): list(text_edits)})
    try:
        answer = await server.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label=label)
        )
    except Exception as exc:  # eglot answers a refused edit with an error
        log.info("the editor did not apply the change to %s: %s", path, exc)
        return False
    if not answer.applied:
        log.info("the editor did not apply the change to %s: %s", path, answer.failure_reason)
    return bool(answer.applied)


async def edit_buffer(server: PlanModeServer, path: Path, new: str, label: str) -> bool:
    """Bring the open buffer of ``path`` to ``new`` with an edit against what it holds; an
    edit refused because the buffer moved on meanwhile (the user typing) is computed again
    against its new text, up to :data:`EDIT_ATTEMPTS` times."""
    buffers = server.get_feature(Buffers)
    for _attempt in range(EDIT_ATTEMPTS):
        document = buffers.document(path)
        if document is None or document.source == new:
            return True  # closed (the file is all there is) or already there
        version = document.version
        if await send_edit(server, path, document.source, version, new, label):
            return True
        moved = buffers.document(path)
        if moved is None or moved.source == new:
            return True
        if moved.version == version:
            return False  # refused for another reason: the user said no, or cannot apply it
        log.info(
            "the buffer of %s moved on (version %s, now %s): again", path, version, moved.version
        )
    log.warning("the buffer of %s kept moving: it is left out of date", path)
    return False


async def change_plan(
    server: PlanModeServer, path: Path, new: str, label: str, *, required: bool = True
) -> bool:
    """Make the plan ``path`` hold ``new``, in the file and in an open buffer (the module
    says how).

    ``required``: the file gets ``new`` even when the buffer refuses it (the agent's submitted
    plan: the buffer is then out of date); otherwise such a refusal changes nothing and
    returns False (the user's Undo).
    """
    buffers = server.get_feature(Buffers)
    document = buffers.document(path)
    if document is None:
        write_plan(path, new)
        return True
    held = document.source
    disk = disk_text(path)
    if held == new:
        if disk != new:
            write_plan(path, new)
        buffers.out_of_date.discard(path)
        return True
    if buffers.saved_texts.get(path) == held or path in buffers.out_of_date:
        # Unmodified (the file may have changed under it: the agent's own write): the file
        # first, and an editor that reloads it (VS Code, Emacs with auto-revert) keeps the
        # buffer clean. No edit while it may reload: a reload racing the edit could take it
        # for the new text (eglot restarts its versions at 0).
        if disk != new:
            write_plan(path, new)
        buffers.out_of_date.add(path)  # until the buffer holds it (Buffers.text)
        if await reaches(server, path, new, RELOAD_WAIT) or buffers.editor_reloads:
            return True
        # Not reloaded (eglot without auto-revert, Neovim, Helix): the edit brings it.
        await bring(server, path, new, label)
        return True
    # Unsaved changes (which no editor reloads): the edit first, then the file.
    if await bring(server, path, new, label):
        if disk != new:
            write_plan(path, new)
        return True
    if not required:
        return False
    write_plan(path, new)
    buffers.out_of_date.add(path)
    return True


async def bring(server: PlanModeServer, path: Path, new: str, label: str) -> bool:
    """Bring the open buffer of ``path`` to ``new`` with an edit: whether it holds it now."""
    buffers = server.get_feature(Buffers)
    buffers.editing.add(path)
    try:
        # eglot tells of the change it applied a moment after its answer (didChange); Neovim
        # answers "applied" to an edit it dropped as older than its buffer.
        held = await edit_buffer(server, path, new, label) and await reaches(
            server, path, new, RELOAD_WAIT
        )
    finally:
        buffers.editing.discard(path)
    if not held:
        log.info("the buffer of %s did not take the change", path)
        return False
    buffers.edited[path] = new
    buffers.out_of_date.discard(path)
    return True


async def follow_write(server: PlanModeServer, path: Path, text: str) -> bool:
    """The agent's own write of the plan ``path`` may run (checkTool allowed it): once the
    file holds ``text``, bring an unmodified open buffer along, as a change the server makes
    (:func:`change_plan`). A buffer with the user's unsaved typing is left to them: their text
    stays the plan until they save it, and the agent's submission comes as an edit. Whether the
    file was written."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + FOLLOW_WAIT
    while disk_text(path) != text:
        if loop.time() >= deadline or server.stopping:
            return False  # not written (refused in the agent's own prompt, or failed)
        await asyncio.sleep(0.05)
    buffers = server.get_feature(Buffers)
    document = buffers.document(path)
    if document is None or document.source == text:
        return True
    if buffers.saved_texts.get(path) != document.source and path not in buffers.out_of_date:
        return True
    await change_plan(server, path, text, "The agent's edit of the plan")
    return True


def register(server: PlanModeServer) -> None:
    server.add_feature(Buffers(server))
