"""The server's own directories in a workspace, reached without following a symlink.

docs/protocol.md §9: the server keeps its state in ``<root>/.claude/plan-mode`` and the team
mailboxes in ``<root>/.claude/teams``. A repository can ship ``.claude``, either directory, a
folder inside them or a file there (``sessions/<id>.json``) as a symlink to a place outside the
workspace. So every file is reached from the root one plain name at a time: each directory is
opened with ``O_NOFOLLOW`` relative to the one before (``openat``), and the file is opened,
created, renamed and listed relative to its directory. Nothing is read or written through a
symlink, and every file and directory used is inside the root.

A file whose way from the root holds a symlink or something that is no directory, or which
is itself a symlink or no regular file, is kept instead at the same relative place under the
user's own state directory, ``<user state dir>/workspaces/<key>/`` (platformdirs'
``user_state_dir("planmode")``, ``key`` the SHA-256 of the root's real path), which stands
for ``<root>/.claude/``. Each file's place is decided by that rule when it is used, so two
servers of one workspace (a lead's and a teammate's) agree on it. Where even that directory
cannot be used, the operation fails and its caller logs it (a session then lives in memory).
:meth:`StatePlace.refusals` says why the workspace's own is not used, for the user.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from planmode.core import jsonl

log = logging.getLogger(__name__)

STATE = "plan-mode"
TEAMS = "teams"
# The state directory's .gitignore: the server's state is not the project's (plans live
# elsewhere, under .claude/plans, and stay visible).
STATE_GITIGNORE = (
    "# Written by planmode: its sessions, transcripts, history and endpoint are not\n"
    "# the project's files. Plans live in .claude/plans and are not ignored.\n"
    "*\n"
)
# The subdirectories whose refusal the user is told about (the ones the server makes).
KNOWN_FOLDERS = {STATE: ("sessions", "transcripts", "history"), TEAMS: ()}

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class UnusableDirectory(OSError):
    """A directory on the way is a symlink, no directory, or cannot be made or opened."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path} {reason}")
        self.path = path
        self.reason = reason


class NotRegularFile(OSError):
    """The file is a symlink or no regular file: never read or written through."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path} {reason}")
        self.path = path
        self.reason = reason


def user_state_directory() -> Path:
    """``$XDG_STATE_HOME/planmode`` (else ``~/.local/state/planmode``), the user's own."""
    import platformdirs  # not on the hook's path: only the server keeps state

    return Path(platformdirs.user_state_dir("planmode"))


def workspace_key(root: Path) -> str:
    """The SHA-256 (hex) of the workspace root's real path, as the runtime record's."""
    return hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()


def _names(relative: str | Sequence[str]) -> tuple[str, ...]:
    parts = tuple(relative.split("/")) if isinstance(relative, str) else tuple(relative)
    for name in parts:
        if name in ("", ".", "..") or "/" in name or "\x00" in name:
            raise ValueError(f"{name!r} is not a plain file name")
    return parts


def _why_not_directory(directory: int, name: str) -> str:
    try:
        info = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except OSError as exc:
        return f"cannot be opened ({exc.strerror})"
    if stat.S_ISLNK(info.st_mode):
        try:
            return f"is a symlink (to {os.readlink(name, dir_fd=directory)})"
        except OSError:
            return "is a symlink"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a directory"
    return "cannot be opened"


class Folder:
    """A directory ``base/parts…`` reached from ``base`` by plain names, none a symlink.

    ``base`` itself is trusted (the workspace root, or the user's state directory) and opened
    as it is; below it every name is opened relative to its parent without following a
    symlink. Directories that are missing are made (``mode``) when writing.
    """

    def __init__(self, base: Path, parts: Sequence[str], mode: int = 0o777) -> None:
        self.base = base
        self.parts = _names(parts)
        self.mode = mode

    @property
    def path(self) -> Path:
        return self.base.joinpath(*self.parts)

    def file(self, relative: str | Sequence[str]) -> Path:
        return self.path.joinpath(*_names(relative))

    @contextlib.contextmanager
    def directory(self, relative: Sequence[str] = (), create: bool = False) -> Iterator[int]:
        """An open descriptor of ``base/parts/relative``. FileNotFoundError when a directory
        is missing (and not ``create``); :class:`UnusableDirectory` when one is a symlink,
        no directory, or cannot be made or opened."""
        names = self.parts + _names(relative)
        if create:
            self._make_base()
        try:
            current = os.open(self.base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise UnusableDirectory(self.base, f"cannot be opened ({exc.strerror})") from exc
        try:
            for index, name in enumerate(names):
                following = self._enter(current, name, create, self.base.joinpath(*names[:index]))
                os.close(current)
                current = following
            yield current
        finally:
            os.close(current)

    def _make_base(self) -> None:
        if not os.path.isdir(self.base):
            os.makedirs(self.base, mode=self.mode, exist_ok=True)

    def _enter(self, directory: int, name: str, create: bool, parent: Path) -> int:
        try:
            return os.open(name, _DIRECTORY, dir_fd=directory)
        except FileNotFoundError:
            if not create:
                raise
        except OSError as exc:
            raise UnusableDirectory(parent / name, _why_not_directory(directory, name)) from exc
        try:
            os.mkdir(name, self.mode, dir_fd=directory)
        except FileExistsError:
            pass  # made meanwhile (another server), or a symlink planted meanwhile: opened below
        except OSError as exc:
            raise UnusableDirectory(parent / name, f"cannot be made ({exc.strerror})") from exc
        try:
            return os.open(name, _DIRECTORY, dir_fd=directory)
        except OSError as exc:
            raise UnusableDirectory(parent / name, _why_not_directory(directory, name)) from exc

    def refusal(self, relative: Sequence[str] = ()) -> UnusableDirectory | None:
        """Why ``relative`` cannot be reached now (None: it can, or it is not there yet)."""
        try:
            with self.directory(relative):
                return None
        except FileNotFoundError:
            return None
        except UnusableDirectory as exc:
            return exc

    # -- files ------------------------------------------------------------------------------
    def _open_file(self, directory: int, name: str, flags: int, where: Path) -> int:
        """``name`` opened in ``directory`` without following a symlink, a regular file."""
        # Non-blocking: a FIFO planted where a file should be must not hang the server.
        flags |= os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(name, flags, 0o600, dir_fd=directory)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise NotRegularFile(where, "is a symlink") from exc
            raise
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise NotRegularFile(where, "is not a regular file")
        return fd

    @staticmethod
    def _existing_kind(directory: int, name: str, where: Path) -> None:
        """NotRegularFile when ``name`` is there and is a symlink or no regular file."""
        try:
            info = os.stat(name, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(info.st_mode):
            raise NotRegularFile(where, "is a symlink")
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(where, "is not a regular file")

    def file_refusal(self, relative: str | Sequence[str]) -> OSError | None:
        """Why the file ``relative`` may not be used here now: a directory on its way or the
        file itself is a symlink or of another kind (None: it may, or it is not there yet)."""
        names = _names(relative)
        try:
            with self.directory(names[:-1]) as directory:
                self._existing_kind(directory, names[-1], self.file(names))
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (UnusableDirectory, NotRegularFile) as exc:
            return exc
        return None

    def read_text(self, relative: str | Sequence[str]) -> str:
        names = _names(relative)
        with self.directory(names[:-1]) as directory:
            fd = self._open_file(directory, names[-1], os.O_RDONLY, self.file(names))
        with os.fdopen(fd, "rb") as stream:
            return stream.read().decode("utf-8")

    def read_lines(self, relative: str | Sequence[str]) -> list[dict[str, Any]]:
        names = _names(relative)
        try:
            with self.directory(names[:-1]) as directory:
                fd = self._open_file(directory, names[-1], os.O_RDONLY, self.file(names))
        except (FileNotFoundError, NotADirectoryError):
            return []
        return list(jsonl.read_open(fd, self.file(names)))

    def append_line(self, relative: str | Sequence[str], message: dict[str, Any]) -> None:
        names = _names(relative)
        with self.directory(names[:-1], create=True) as directory:
            fd = self._open_file(
                directory, names[-1], os.O_RDWR | os.O_APPEND | os.O_CREAT, self.file(names)
            )
        jsonl.append_open(fd, message)

    def write_atomic(
        self,
        relative: str | Sequence[str],
        text: str,
        mode: int | None = None,
        durable: bool = True,
    ) -> None:
        """Write so that a reader sees the old file or the new one, never half of one: a
        temporary file beside it, renamed over it (both by name in the directory).
        ``durable``: on the disk before this returns (fsync'd); a file written again and again
        that a reader may find stale or unreadable after a crash (a session's progress) skips
        that."""
        names = _names(relative)
        name = names[-1]
        with self.directory(names[:-1], create=True) as directory:
            self._existing_kind(directory, name, self.file(names))
            temporary, fd = self._temporary(directory, name)
            try:
                with os.fdopen(fd, "w", encoding="utf-8", newline="") as stream:
                    os.fchmod(stream.fileno(), self._mode_for(directory, name, mode))
                    stream.write(text)
                    stream.flush()
                    if durable:
                        os.fsync(stream.fileno())
                os.rename(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=directory)
                raise
            if durable:
                with contextlib.suppress(OSError):
                    os.fsync(directory)

    @staticmethod
    def _temporary(directory: int, name: str) -> tuple[str, int]:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        while True:
            temporary = f".{name}.{secrets.token_hex(6)}.tmp"
            try:
                return temporary, os.open(temporary, flags, 0o600, dir_fd=directory)
            except FileExistsError:
                continue

    @staticmethod
    def _mode_for(directory: int, name: str, mode: int | None) -> int:
        if mode is not None:
            return mode
        try:  # keep the replaced file's bits, else the umask's
            return stat.S_IMODE(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode)
        except OSError:
            return 0o666 & ~_UMASK

    def lexists(self, relative: str | Sequence[str]) -> bool:
        """Whether there is anything named ``relative`` (a symlink too, dangling or not)."""
        names = _names(relative)
        try:
            with self.directory(names[:-1]) as directory:
                os.stat(names[-1], dir_fd=directory, follow_symlinks=False)
        except OSError:
            return False
        return True

    def entries(self, relative: str | Sequence[str] = ()) -> list[os.DirEntry[str]]:
        """The entries of a directory (none when it is missing)."""
        try:
            with self.directory(_names(relative)) as directory, os.scandir(directory) as found:
                return list(found)
        except (FileNotFoundError, NotADirectoryError):
            return []

    def rename(self, relative: str | Sequence[str], new_name: str) -> None:
        """Rename a file (or a symlink itself) within its directory."""
        names = _names(relative)
        _names(new_name)
        with self.directory(names[:-1]) as directory:
            os.rename(names[-1], new_name, src_dir_fd=directory, dst_dir_fd=directory)

    def unlink(self, relative: str | Sequence[str]) -> None:
        names = _names(relative)
        with self.directory(names[:-1]) as directory:
            os.unlink(names[-1], dir_fd=directory)


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Read once at import: os.umask can only be read by setting it, which is not thread safe.
_UMASK = _current_umask()


class StatePlace:
    """One of the server's directories of a workspace, ``<root>/.claude/<name>``, and its
    stand-in ``<user state dir>/workspaces/<key>/<name>``: each file is kept in the
    workspace when it and its way there hold no symlink, else in the stand-in."""

    def __init__(self, root: Path, name: str, fallback: Path | None = None) -> None:
        self.root = root
        self.name = name
        self.own = Folder(root, (".claude", name))
        self._fallback_base = fallback
        self._logged: set[str] = set()
        # A file was kept in the stand-in since refusals() last looked (it walks the whole
        # tree: too dear for every request).
        self.redirected = False

    @classmethod
    def of(cls, where: Path | StatePlace, name: str) -> StatePlace:
        return where if isinstance(where, StatePlace) else cls(where, name)

    @property
    def fallback(self) -> Folder:
        base = self._fallback_base or user_state_directory()
        return Folder(base, ("workspaces", workspace_key(self.root), self.name), mode=0o700)

    def user_key(self, name: str) -> bytes:
        """A secret of this user for this workspace, ``<user state dir>/workspaces/<key>/
        <name>`` (0600, 32 random bytes, made once): what signs a file of the workspace's
        state that a repository must not be able to ship (a session's progress, §9). OSError
        when it cannot be read or made."""
        folder = Folder(self.fallback.base, self.fallback.parts[:-1], mode=0o700)
        with folder.directory(create=True) as directory:
            for _attempt in range(3):
                try:
                    fd = folder._open_file(directory, name, os.O_RDONLY, folder.file(name))
                except FileNotFoundError:
                    temporary, fd = folder._temporary(directory, name)
                    try:
                        os.write(fd, secrets.token_bytes(32))
                        os.close(fd)
                        # A link never replaces: two servers making it at once agree on one.
                        with contextlib.suppress(FileExistsError):
                            os.link(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
                    finally:
                        with contextlib.suppress(OSError):
                            os.unlink(temporary, dir_fd=directory)
                    continue
                with os.fdopen(fd, "rb") as stream:
                    key = stream.read(64)
                if len(key) == 32:
                    return key
                raise NotRegularFile(folder.file(name), "is not a key of 32 bytes")
        raise OSError(f"{folder.file(name)} could not be made")

    def path(self, relative: str | Sequence[str]) -> Path:
        """Where ``relative`` is kept now."""
        names = _names(relative)
        return self._folder_for(names).file(names)

    def folder(self, relative: str | Sequence[str] = ()) -> Path:
        """Where the folder ``relative`` is kept now."""
        names = _names(relative)
        return (self.own if self.own.refusal(names) is None else self.fallback).file(names)

    def _folder_for(self, names: tuple[str, ...]) -> Folder:
        return self.own if self.own.file_refusal(names) is None else self.fallback

    def _redirect(self, names: tuple[str, ...], exc: OSError, writing: bool = False) -> Folder:
        # Logged once per reason (each save would repeat it); the user hears of it through
        # refusals().
        first = writing and str(exc) not in self._logged
        self._logged.add(str(exc))
        (log.warning if first else log.debug)(
            "%s; kept in %s instead", exc, self.fallback.file(names)
        )
        self.redirected = True
        return self.fallback

    # -- the operations: the workspace's own, else the stand-in -------------------------------
    def read_text(self, relative: str | Sequence[str]) -> str:
        names = _names(relative)
        try:
            return self.own.read_text(names)
        except (UnusableDirectory, NotRegularFile) as exc:
            return self._redirect(names, exc).read_text(names)

    def read_lines(self, relative: str | Sequence[str]) -> list[dict[str, Any]]:
        names = _names(relative)
        try:
            return self.own.read_lines(names)
        except (UnusableDirectory, NotRegularFile) as exc:
            return self._redirect(names, exc).read_lines(names)

    def append_line(self, relative: str | Sequence[str], message: dict[str, Any]) -> None:
        names = _names(relative)
        try:
            self._ensure_own()
            self.own.append_line(names, message)
        except (UnusableDirectory, NotRegularFile) as exc:
            self._redirect(names, exc, writing=True).append_line(names, message)

    def write_atomic(
        self,
        relative: str | Sequence[str],
        text: str,
        mode: int | None = None,
        durable: bool = True,
    ) -> None:
        names = _names(relative)
        try:
            self._ensure_own()
            self.own.write_atomic(names, text, mode, durable)
        except (UnusableDirectory, NotRegularFile) as exc:
            self._redirect(names, exc, writing=True).write_atomic(names, text, mode, durable)

    def entries(self, relative: str | Sequence[str] = ()) -> list[os.DirEntry[str]]:
        """The entries of a directory where it is kept now (none when it is missing)."""
        names = _names(relative)
        try:
            return self.own.entries(names)
        except UnusableDirectory as exc:
            return self._redirect(names, exc).entries(names)

    def unlink(self, relative: str | Sequence[str]) -> None:
        names = _names(relative)
        self._folder_for(names).unlink(names)

    def rename(self, relative: str | Sequence[str], new_name: str) -> None:
        names = _names(relative)
        self._folder_for(names).rename(names, new_name)

    def _ensure_own(self) -> None:
        """The state directory never exists without the ``.gitignore`` that keeps it out of
        the user's ``git status``; one that is there already is left as it is."""
        if self.name == STATE and not self.own.lexists(".gitignore"):
            self.own.write_atomic(".gitignore", STATE_GITIGNORE)

    # -- for the user ---------------------------------------------------------------------
    def refusals(self) -> list[str]:
        """Why the workspace's own directory, a folder the server makes in it, or a file
        there is not used now: one sentence each, naming the stand-in (empty: all are)."""
        self.redirected = False
        refused = self.own.refusal()
        if refused is not None:
            return [self._sentence((), refused)]
        found = []
        for folder in KNOWN_FOLDERS.get(self.name, ()):
            refused = self.own.refusal((folder,))
            if refused is not None:
                found.append(self._sentence((folder,), refused))
                continue
            for entry in self.own.entries((folder,)):
                if entry.is_symlink() or not entry.is_file(follow_symlinks=False):
                    kind = "is a symlink" if entry.is_symlink() else "is not a regular file"
                    where = (folder, entry.name)
                    found.append(self._sentence(where, NotRegularFile(self.own.file(where), kind)))
        return found

    def _sentence(self, relative: tuple[str, ...], refused: OSError) -> str:
        reason = (
            f"{refused.path} {refused.reason}"
            if isinstance(refused, (UnusableDirectory, NotRegularFile))
            else str(refused)
        )
        return (
            f"Plan mode does not use {self.own.path.joinpath(*relative)}: {reason}, and it never "
            f"reads or writes through a symlink. It keeps {self._what(relative)} in "
            f"{self.fallback.path.joinpath(*relative)} instead."
        )

    def _what(self, relative: tuple[str, ...]) -> str:
        if self.name == TEAMS:
            return "this workspace's team mailboxes"
        if len(relative) == 2:
            return "that file"
        if relative:
            return f"this workspace's {relative[0]}"
        return "this workspace's sessions, transcripts, plan history and endpoint description"
