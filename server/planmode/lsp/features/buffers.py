"""Server-made changes to a plan that may be open in the editor, without corrupting the buffer.

The server changes a plan's text itself when the agent submits a revision with ExitPlanMode
and when the user undoes a hunk. An edit computed against text the editor no longer holds
corrupts the buffer (the same section twice), and a file written under an unmodified buffer
makes the editor reload it. So (docs/protocol.md §5.1):

* Not open: the file is written.
* Open and unmodified (the buffer holds what the file holds): the file is written and the
  editor's own reload brings the buffer along, which leaves it unmodified (VS Code, Emacs with
  ``auto-revert``, ``:e`` in Vim and Helix). No edit is sent: a reload racing it would get it
  applied to the new text.
* Open with unsaved changes (which no editor reloads under the user): the change goes to the
  editor as an edit first, and the file follows once the editor applied it.

The edit is ``documentChanges`` with the version of the buffer the server last saw and ranges
computed against the text the server knows the buffer holds; an editor whose buffer moved on
refuses it (eglot, VS Code and lsp-mode check the version). Until the buffer holds the new
text — not reloaded yet, or the edit refused — the buffer is *out of date*: until it equals
the file again (or the user saves it), the plan is read from the file, so an old text left in
the buffer is never approved as the user's edit.

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
            self.out_of_date.discard(path)  # reloaded: unmodified, holding the file
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
    if not server.client_supports("workspace", "workspace_edit", "document_changes"):
        # Unversioned `changes` cannot be refused by a buffer that moved on: not sent.
        return False
    edit = types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=path.as_uri(), version=version
                ),
                edits=list(line_edits(old, new)),
            )
        ]
    )
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


async def change_plan(
    server: PlanModeServer, path: Path, new: str, label: str, *, required: bool = True
) -> bool:
    """Make the plan ``path`` hold ``new``, in the file and in an open buffer.

    ``required``: the file gets ``new`` even when an open buffer with unsaved changes refuses
    it (the agent's submitted plan); otherwise such a refusal changes nothing and returns
    False (the user's Undo).
    """
    buffers = server.get_feature(Buffers)
    document = buffers.document(path)
    if document is None:
        write_plan(path, new)
        return True
    held, version = document.source, document.version
    disk = disk_text(path)
    if held == new:
        if disk != new:
            write_plan(path, new)
        buffers.out_of_date.discard(path)
        return True
    if (held == disk and buffers.saved_texts.get(path) == held) or path in buffers.out_of_date:
        # Unmodified: the file only, and the editor's own reload keeps the buffer clean. Never
        # an edit: a reload racing it restarts eglot's versions at 0 (didClose + didOpen), so
        # the version could not tell the reloaded text from the old one.
        write_plan(path, new)
        buffers.out_of_date.add(path)  # until the reload arrives (Buffers.text)
        await reaches(server, path, new, RELOAD_WAIT)
        return True
    # Unsaved changes (never reloaded under the user): the edit first, then the file.
    if await send_edit(server, path, held, version, new, label):
        write_plan(path, new)
        await reaches(server, path, new, RELOAD_WAIT)
        return True
    if await reaches(server, path, new, 0):  # the buffer got there on its own
        write_plan(path, new)
        return True
    if not required:
        return False
    write_plan(path, new)
    buffers.out_of_date.add(path)
    return True


def register(server: PlanModeServer) -> None:
    server.add_feature(Buffers(server))
