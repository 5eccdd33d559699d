"""Plan files: where they live, which files are plans, their word slugs, and reading and
writing them safely.

docs/protocol.md §3: plans live in ``<root>/.claude/plans`` unless the ``plansDirectory``
setting names a usable directory inside the workspace (symlinks resolved); a directory that
leaves the workspace, is the workspace root, lies in ``.git`` or already holds files that are
no plans is not used (the default neither: then no plan can be written until it is fixed); a
session's slug is a coolname word slug chosen once; writes are atomic and never go through a
symlink.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from coolname import generate_slug

from planmode.core.errors import InvalidParams
from planmode.core.paths import UnsafePath, agreed_path, inside

log = logging.getLogger(__name__)

DEFAULT_PLANS_SUBDIR = Path(".claude") / "plans"
SLUG_ATTEMPTS = 10
# Agent ids end up in file names: keep them to one safe path segment.
SAFE_ID_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")
_AGENT_SUFFIX_RE = re.compile(r"^(?P<slug>.+?)-agent-(?P<agent>[A-Za-z0-9._-]+)$")
# A plan's slug: lowercase words joined by hyphens (coolname's, and an agent's own).
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def is_slug(text: str) -> bool:
    return len(text) <= 128 and SLUG_RE.match(text) is not None


class UnsafePlanFile(InvalidParams):
    """A plan file that may not be written (a symlink on its way, a refused directory)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"the plan file {path} cannot be written: {reason}")


@dataclass(frozen=True)
class PlansLocation:
    directory: Path
    # Set when the configured directory (or the default) could not be used; says why.
    warning: str | None = None
    # Set when not even the default can be used: why no plan may be written in it.
    refused: str | None = None


def plans_directory_refusal(directory: Path, root: Path) -> str | None:
    """Why ``directory`` (symlinks resolved) may not hold plan files of the workspace ``root``
    (resolved); None when it may.

    A plans directory is inside the root but not the root itself, not in ``.git``, and —
    unless it is the default ``.claude/plans``, the plans' own place — holds nothing but
    plans: a directory a setting names among other files (``src``) would have them taken for
    plans (listed, reviewed, written back).
    """
    if not inside(directory, root):
        return f"resolves to {directory}, outside the workspace {root}"
    if directory == root:
        return f"is the workspace root {root}"
    if ".git" in directory.relative_to(root).parts:
        return f"resolves to {directory}, inside a .git directory"
    if directory.exists() and not directory.is_dir():
        return f"resolves to {directory}, which is not a directory"
    if directory in (root / DEFAULT_PLANS_SUBDIR, (root / DEFAULT_PLANS_SUBDIR).resolve()):
        return None
    others = sorted(_not_plans(directory))
    if others:
        shown = ", ".join(others[:3]) + (", …" if len(others) > 3 else "")
        return f"resolves to {directory}, which holds files that are no plans ({shown})"
    return None


def _not_plans(directory: Path) -> Iterator[str]:
    """Names of the visible regular files in ``directory`` that are not ``*.md``."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        try:
            regular = entry.is_file(follow_symlinks=False)
        except OSError:
            continue
        if regular and not entry.name.startswith(".") and not is_plan_name(entry.name):
            yield entry.name


def resolve_plans_directory(root: Path, setting: str | None) -> PlansLocation:
    """Where plan files go for ``root`` given the ``plansDirectory`` setting.

    The setting is resolved against the root with ``~`` expanded and symlinks followed; a
    result that :func:`plans_directory_refusal` refuses falls back to ``<root>/.claude/plans``
    with a warning. The default gets the same checks: when it is refused too (a repository
    can ship ``.claude/plans`` as a symlink out of the workspace), the location is
    ``refused`` and no plan file in it may be written.
    """
    real_root = root.resolve()
    default = real_root / DEFAULT_PLANS_SUBDIR
    fallback = _default_location(default, real_root)
    if not setting or not setting.strip():
        return fallback
    if "\x00" in setting:
        return _escape(setting, "contains a NUL byte", fallback)
    candidate = Path(os.path.expanduser(setting.strip()))
    resolved = (real_root / candidate).resolve()
    reason = plans_directory_refusal(resolved, real_root)
    if reason is not None:
        return _escape(setting, reason, fallback)
    return PlansLocation(resolved)


def _default_location(default: Path, root: Path) -> PlansLocation:
    resolved = default.resolve()
    reason = plans_directory_refusal(resolved, root)
    if reason is None:
        return PlansLocation(resolved)
    refused = f"the plans directory {default} {reason}"
    warning = (
        f"Plan mode does not use {default}: it {reason}. No plan can be written until it is fixed."
    )
    return PlansLocation(default, warning, refused)


def _escape(setting: str, reason: str, fallback: PlansLocation) -> PlansLocation:
    warning = (
        f"plansDirectory {setting!r} {reason}; plans are kept in {fallback.directory} instead."
    )
    if fallback.warning is not None:
        warning = f"plansDirectory {setting!r} {reason}. {fallback.warning}"
    return PlansLocation(fallback.directory, warning, fallback.refused)


def generate_plan_slug(directory: Path, exists: Callable[[Path], bool] | None = None) -> str:
    """A fresh word slug whose ``<slug>.md`` is free, trying at most ten times (then the last
    one tried, taken or not: a session always gets a plan file)."""
    taken = exists or Path.exists
    slug = generate_slug(2)
    for _ in range(SLUG_ATTEMPTS - 1):
        if not taken(directory / f"{slug}.md"):
            break
        slug = generate_slug(2)
    return slug


def is_plan_name(name: str) -> bool:
    """A plan file's name: ``<name>.md``, not hidden (atomic writes and editors keep their
    temporary files under names starting with ``.``)."""
    return name.endswith(".md") and not name.startswith(".")


def find_plan_file(
    raw: object, root: Path, directory: Path | None, adopted: Iterable[Path] = ()
) -> Path | None:
    """The plan file ``raw`` names, resolved; None when it names none.

    ``raw`` (relative to ``root``, ``~`` expanded) names a plan file when both its readings
    (:func:`planmode.core.paths.agreed_path`) reach the same file, with a plan file's name,
    directly in the plans ``directory`` (resolved; None when it is refused), or an
    ``adopted`` plan file (an agent's own, docs/protocol.md §3) or a subagent's
    ``<slug>-agent-<id>.md`` next to it. A file reached through a symlink counts where it
    really is.
    """
    if isinstance(raw, os.PathLike):
        raw = os.fspath(raw)
    try:
        path = agreed_path(raw, root)
    except UnsafePath:
        return None
    if not is_plan_name(path.name):
        return None
    if directory is not None and path.parent == directory:
        return path
    for own in adopted:
        if path.parent == own.parent and (
            path == own or path.name.startswith(f"{own.stem}-agent-")
        ):
            return path
    return None


def is_plan_file(
    raw: object, root: Path, directory: Path | None, adopted: Iterable[Path] = ()
) -> bool:
    """Whether ``raw`` names a plan file of the workspace (:func:`find_plan_file`)."""
    return find_plan_file(raw, root, directory, adopted) is not None


def plan_file_name(slug: str, agent_id: str | None = None) -> str:
    if agent_id is None:
        return f"{slug}.md"
    if not SAFE_ID_RE.match(agent_id):
        raise ValueError(f"agentId {agent_id!r} is not a safe file-name segment")
    return f"{slug}-agent-{agent_id}.md"


def read_plan(path: Path) -> str | None:
    """The plan text, or None when there is none; an unreadable file is logged and read as
    none, so a broken plan never fails the request that looks at it."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        log.error("cannot read plan file %s: %s", path, exc)
        return None


def plan_write_refusal(path: Path) -> str | None:
    """Why the plan file ``path`` may not be written; None when it may. A plan file is written
    only where it is: not itself a symlink, and no symlink on the way to its directory."""
    if path.is_symlink():
        return f"{path} is a symlink"
    parent = os.path.realpath(path.parent)
    if parent != str(path.parent):
        return f"its directory {path.parent} goes through a symlink (to {parent})"
    return None


def write_plan(path: Path, text: str) -> None:
    """Write a plan file atomically; :class:`UnsafePlanFile` (nothing written) when
    :func:`plan_write_refusal` refuses it."""
    reason = plan_write_refusal(path)
    if reason is not None:
        raise UnsafePlanFile(path, reason)
    write_atomic(path, text)


def write_atomic(path: Path, text: str, mode: int | None = None) -> None:
    """Write ``text`` so that a reader sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as tmp:
            # mkstemp makes the file 0600: keep the replaced file's bits, else the umask's.
            os.fchmod(tmp.fileno(), _mode_for(path) if mode is None else mode)
            tmp.write(text)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_directory(path.parent)


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~_UMASK


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Read once at import: os.umask can only be read by setting it, which is not thread safe.
_UMASK = _current_umask()


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@dataclass(frozen=True)
class PlanFileInfo:
    path: Path
    slug: str
    agent_id: str | None
    modified: float  # the file's mtime, seconds since the epoch
    size_bytes: int

    @property
    def modified_at(self) -> str:
        """When the file last changed (:func:`utc_seconds`)."""
        return utc_seconds(self.modified)


def utc_seconds(epoch: float) -> str:
    """A time in seconds since the epoch as UTC, ISO 8601 to the second (``…Z``)."""
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def list_plan_files(directory: Path) -> Iterator[PlanFileInfo]:
    """Every ``*.md`` plan in ``directory`` (none when it does not exist)."""
    try:
        entries = list(os.scandir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        if not is_plan_name(entry.name):
            continue
        try:
            if not entry.is_file():
                continue
            stat = entry.stat()
        except OSError:
            continue
        slug, agent = _slug_and_agent(entry.name[: -len(".md")])
        yield PlanFileInfo(Path(entry.path), slug, agent, stat.st_mtime, stat.st_size)


def plan_file_info(path: Path) -> PlanFileInfo | None:
    """One plan file as :func:`list_plan_files` lists it; None when it is none (or gone)."""
    if not is_plan_name(path.name):
        return None
    try:
        stat = path.stat()
    except OSError:
        return None
    slug, agent = _slug_and_agent(path.name[: -len(".md")])
    return PlanFileInfo(path, slug, agent, stat.st_mtime, stat.st_size)


def _slug_and_agent(stem: str) -> tuple[str, str | None]:
    match = _AGENT_SUFFIX_RE.match(stem)
    return (match["slug"], match["agent"]) if match else (stem, None)


def exit_path_refusal(raw: str, plan: Path, adopted_from: str | None = None) -> str | None:
    """Why ExitPlanMode's ``planFilePath`` ``raw`` is refused for a session whose plan file is
    ``plan`` (docs/protocol.md §3); None when it names that file or, for a plan file adopted
    from an agent (``adopted_from``: what named it), a subagent's next to it. It never chooses
    the plan file: it may only agree with the one the session has."""
    given = Path(os.path.normpath(raw)) if os.path.isabs(raw) and "\x00" not in raw else None
    if given == plan:
        return None
    if (
        adopted_from is not None
        and given is not None
        and given.parent == plan.parent
        and given.name.startswith(f"{plan.stem}-agent-")
        and is_plan_name(given.name)
    ):
        return None  # a subagent's file next to the session's
    source = f"the file {adopted_from} names" if adopted_from is not None else "this session's own"
    return f"its planFilePath {raw!r} is not the session's plan file {plan} ({source})"
