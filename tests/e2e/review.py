"""The editor's side of a review, as many end-to-end tests play it: plan mode entered, an exit
waiting for the user, the agent's revision applied, the lenses on the plan (found now, or
waited for) and the Keep/Undo pairs of its hunks, the diagnostics published for it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e import harness
from tests.e2e.harness import Editor

EXIT = "planMode/exit"
REQUESTED = "planMode/approvalRequested"
KEEP, UNDO = "planMode.keepHunk", "planMode.undoHunk"


async def enter(editor: Editor, session_id: str | None = None) -> Path:
    params = {"sessionId": session_id} if session_id else {}
    entered = await editor.request("planMode/enter", params)
    assert entered["state"]["mode"] == "plan"
    return Path(entered["state"]["planFilePath"])


async def begin_exit(editor: Editor, **params: Any) -> tuple[asyncio.Task[Any], dict[str, Any]]:
    """Send planMode/exit and wait until its approval is requested."""
    seen = len(editor.notes[REQUESTED])
    task = editor.start(EXIT, params)
    approval = await editor.wait_for(REQUESTED, seen + 1)
    return task, approval


async def pending_exit(editor: Editor, plan: str) -> tuple[Path, asyncio.Task[Any]]:
    """The exit of ``plan``, waiting for the user; the plan file it is reviewed in."""
    task, approval = await begin_exit(editor, plan=plan)
    return Path(approval["planFilePath"]), task


def whole(old: str, new: str) -> dict[str, Any]:
    """A TextEdit replacing all of ``old`` with ``new``."""
    last = old.split("\n")
    return {
        "range": {
            "start": {"line": 0, "character": 0},
            "end": {"line": len(last) - 1, "character": len(last[-1])},
        },
        "newText": new,
    }


async def agent_revises(editor: Editor, path: Path, old: str, new: str, label: str) -> None:
    answer = await editor.request(
        "planMode/applyEdit",
        {"edit": {"changes": {path.as_uri(): [whole(old, new)]}}, "label": label},
    )
    assert answer == {"applied": True}


def titles(lenses: list[types.CodeLens]) -> list[str]:
    return [lens.command.title for lens in lenses if lens.command is not None]


def lens_titled(lenses: list[types.CodeLens], prefix: str) -> types.CodeLens:
    return next(lens for lens in lenses if lens.command and lens.command.title.startswith(prefix))


async def lens(editor: Editor, plan: Path, title: str) -> types.CodeLens:
    """The lens on the plan whose title contains ``title`` (waits for the review to show).

    The lenses are asked for now and again after each workspace/codeLens/refresh: the server
    sends one whenever they change."""

    async def find() -> types.CodeLens:
        while True:
            refreshes = editor.lens_refreshes
            for found in await editor.lenses(plan):
                if found.command and title in found.command.title:
                    return found
            await editor.until(lambda: editor.lens_refreshes > refreshes, 10)  # noqa: B023 (awaited here)

    return await asyncio.wait_for(find(), 10)


def hunk_pairs(lenses: list[types.CodeLens]) -> list[tuple[int, str, str, dict[str, Any]]]:
    """(line, keep title, undo title, args) per hunk, checking Keep and Undo come in pairs."""
    found = [lens for lens in lenses if lens.command and lens.command.command in (KEEP, UNDO)]
    assert len(found) % 2 == 0, found
    pairs = []
    for keep, undo in zip(found[::2], found[1::2], strict=True):
        assert keep.command is not None and undo.command is not None
        assert (keep.command.command, undo.command.command) == (KEEP, UNDO)
        assert keep.range == undo.range
        assert keep.range.start.line == keep.range.end.line
        (args,) = [harness.plain(a) for a in keep.command.arguments or []]
        (undo_args,) = [harness.plain(a) for a in undo.command.arguments or []]
        assert args == undo_args
        pairs.append((keep.range.start.line, keep.command.title, undo.command.title, args))
    return pairs


def by_code(found: list[types.Diagnostic], code: str) -> list[types.Diagnostic]:
    return [d for d in found if d.code == code]


async def diagnostics_until(
    editor: Editor,
    path: Path,
    check: Callable[[list[types.Diagnostic]], bool],
    timeout: float = 5.0,
) -> list[types.Diagnostic]:
    """Wait (bounded) until the diagnostics published for ``path`` satisfy ``check``."""

    def current() -> list[types.Diagnostic]:
        return list(editor.client.diagnostics.get(path.as_uri(), []))

    try:
        await editor.until(lambda: check(current()), timeout)
    except TimeoutError:
        raise AssertionError(f"diagnostics never matched: {current()}") from None
    return current()
