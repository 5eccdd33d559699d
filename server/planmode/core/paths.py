"""How a path that an agent or an editor names is read.

A path can be opened two ways: the kernel's (symlinks followed as they are met, so ``link/..``
is the directory holding ``link``'s *target*) and the lexical way of a tool that normalises the
text first (``link/..`` is the directory holding ``link``). Plan mode trusts a path only when
both readings reach the same file (docs/protocol.md §6, "Enforcement").
"""

from __future__ import annotations

import os
from pathlib import Path


class UnsafePath(ValueError):
    pass


def resolve_path(raw: object, root: Path) -> Path:
    """Resolve a tool's file path the way the file system will: relative to the root, ``~``
    expanded, ``..`` and symlinks followed. Raises :class:`UnsafePath` for what is not a file
    path (not a string, empty, NUL bytes, a trailing slash)."""
    if not isinstance(raw, str) or not raw.strip():
        raise UnsafePath("file_path must be a non-empty string")
    if "\x00" in raw:
        raise UnsafePath("file_path contains a NUL byte")
    if raw.endswith(("/", os.sep)) or raw.endswith("/."):
        raise UnsafePath(f"{raw!r} names a directory, not a file")
    expanded = Path(os.path.expanduser(raw))
    try:
        return (root / expanded).resolve()
    except (OSError, RuntimeError) as exc:  # symlink loops
        raise UnsafePath(f"{raw!r} cannot be resolved: {exc}") from exc


def lexical_path(raw: object, root: Path) -> Path:
    """The path as a tool that normalises text first would open it: relative to the root,
    ``~`` expanded, ``..`` removed *lexically* (``link/..`` is the directory holding ``link``,
    wherever ``link`` points), then symlinks followed. Raises :class:`UnsafePath` like
    :func:`resolve_path`."""
    resolve_path(raw, root)  # the same refusals
    assert isinstance(raw, str)
    normalised = os.path.normpath(root / os.path.expanduser(raw))
    try:
        return Path(normalised).resolve()
    except (OSError, RuntimeError) as exc:
        raise UnsafePath(f"{raw!r} cannot be resolved: {exc}") from exc


def agreed_path(raw: object, root: Path) -> Path:
    """The file ``raw`` names when its kernel and lexical readings reach the same one.
    Raises :class:`UnsafePath` when they do not, or when ``raw`` is no file path."""
    resolved = resolve_path(raw, root)
    lexical = lexical_path(raw, root)
    if resolved != lexical:
        raise UnsafePath(
            f"{raw!r} names {lexical} when '..' is removed from the text but {resolved} when "
            "its symlinks are followed first"
        )
    return resolved


def spelled_path(raw: str, root: Path) -> Path:
    """``raw`` against the root with ``~`` expanded and ``..`` folded, symlinks not followed."""
    return Path(os.path.normpath(os.path.join(root, os.path.expanduser(raw))))


def inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)
