"""Workspace edits as plain operations: their targets, and applying them to disk whole.

The LSP layer turns an LSP ``WorkspaceEdit`` into these operations. Applying to disk first
computes every resulting file in memory; only when all of it succeeds is anything written,
and a failure while writing puts back what was already written. Never half-applied.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from planmode.core.plans import write_atomic


class EditError(Exception):
    """The edit cannot be applied; nothing was changed."""


@dataclass(frozen=True)
class TextEdit:
    """A replacement; positions are (line, character) in UTF-16 code units, as in LSP."""

    start: tuple[int, int]
    end: tuple[int, int]
    new_text: str


@dataclass(frozen=True)
class ChangeText:
    path: Path
    edits: tuple[TextEdit, ...]


@dataclass(frozen=True)
class CreateFile:
    path: Path
    overwrite: bool = False
    ignore_if_exists: bool = False


@dataclass(frozen=True)
class RenameFile:
    old: Path
    new: Path
    overwrite: bool = False
    ignore_if_exists: bool = False


@dataclass(frozen=True)
class DeleteFile:
    path: Path
    recursive: bool = False
    ignore_if_not_exists: bool = False


Operation = ChangeText | CreateFile | RenameFile | DeleteFile


def targets(operations: Sequence[Operation]) -> list[Path]:
    """Every path an edit touches, both sides of a rename included, in order."""
    found: list[Path] = []
    for op in operations:
        paths = [op.old, op.new] if isinstance(op, RenameFile) else [op.path]
        found += [p for p in paths if p not in found]
    return found


def first_outside(operations: Sequence[Operation], allowed: set[Path]) -> Path | None:
    """The first target that is not one of ``allowed`` (plan mode's whole-edit rule)."""
    return next((p for p in targets(operations) if p not in allowed), None)


_LSP_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _offset(text: str, line: int, character: int) -> int:
    """Index into ``text`` of an LSP position (UTF-16 units); past-the-end clamps, as in LSP."""
    if line < 0 or character < 0:
        raise EditError(f"negative position {line}:{character}")
    # Only \n, \r\n and \r end a line in LSP; str.splitlines also splits on \f, \u2028, ...
    lines = _LSP_LINE_RE.findall(text)
    if line >= len(lines):
        return len(text)
    start = sum(len(x) for x in lines[:line])
    content = lines[line].rstrip("\r\n")
    units = 0
    for index, char in enumerate(content):
        if units >= character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(content)


def apply_text_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """Apply non-overlapping edits, all positions referring to the original ``text``."""
    spans = []
    for edit in edits:
        begin = _offset(text, *edit.start)
        end = _offset(text, *edit.end)
        if end < begin:
            raise EditError(f"edit range ends before it starts: {edit.start} > {edit.end}")
        spans.append((begin, end, edit.new_text))
    spans.sort(key=lambda s: (s[0], s[1]))
    for (_, prev_end, _), (begin, _, _) in itertools.pairwise(spans):
        if begin < prev_end:
            raise EditError("edits overlap")
    result = text
    for begin, end, new_text in reversed(spans):
        result = result[:begin] + new_text + result[end:]
    return result


Reader = Callable[[Path], str | None]


def _disk_reader(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise EditError(f"{path} is a directory") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise EditError(f"cannot read {path}: {exc}") from exc


def simulate(
    operations: Sequence[Operation], read: Reader = _disk_reader
) -> dict[Path, str | None]:
    """The final content of every touched file (None: absent), computed without writing."""
    files: dict[Path, str | None] = {}

    def current(path: Path) -> str | None:
        if path not in files:
            files[path] = read(path)
        return files[path]

    for op in operations:
        if isinstance(op, ChangeText):
            text = current(op.path)
            if text is None:
                raise EditError(f"cannot edit {op.path}: it does not exist")
            files[op.path] = apply_text_edits(text, op.edits)
        elif isinstance(op, CreateFile):
            if current(op.path) is not None and not op.overwrite:
                if op.ignore_if_exists:
                    continue
                raise EditError(f"cannot create {op.path}: it already exists")
            files[op.path] = ""
        elif isinstance(op, RenameFile):
            text = current(op.old)
            if text is None:
                raise EditError(f"cannot rename {op.old}: it does not exist")
            if current(op.new) is not None and not op.overwrite:
                if op.ignore_if_exists:
                    continue
                raise EditError(f"cannot rename to {op.new}: it already exists")
            # old first: a rename onto itself (overwrite) must not delete the file.
            files[op.old] = None
            files[op.new] = text
        else:
            if op.path.is_dir() and not os.path.islink(op.path):
                raise EditError(f"refusing to delete directory {op.path}")
            if current(op.path) is None:
                if op.ignore_if_not_exists:
                    continue
                raise EditError(f"cannot delete {op.path}: it does not exist")
            files[op.path] = None
    return files


def apply_to_disk(operations: Sequence[Operation]) -> None:
    """Apply the whole edit to disk, or nothing of it (raises :class:`EditError`)."""
    final = simulate(operations)
    originals = {path: _disk_reader(path) for path in final}
    written: list[Path] = []
    try:
        for path, text in final.items():
            if text == originals[path]:
                continue
            written.append(path)
            if text is None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            else:
                write_atomic(path, text)
    except OSError as exc:
        for path in written:
            with contextlib.suppress(OSError):
                before = originals[path]
                if before is None:
                    os.unlink(path)
                else:
                    write_atomic(path, before)
        raise EditError(f"writing {written[-1] if written else 'the edit'} failed: {exc}") from exc
