"""Where Claude Code keeps its own plan file, and which file a session may adopt from it.

Claude Code names and places its plan file itself (docs/claude-code.md): ``<dir>/<slug>.md``
(a subagent's ``<slug>-agent-<id>.md``), where ``<dir>`` is its ``plansDirectory`` setting
resolved against the project root — lexically, and only when the result is the root or inside
it — else ``<config dir>/plans`` (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``). The slug is
recorded in the session's transcript (``slug`` on its lines), and so is the plan file itself
(the ``plan_mode`` attachment's ``planFilePath``; :mod:`.transcript` reads them). A session of
Claude Code *adopts* that file (docs/protocol.md §3): it is the session's plan for
enforcement, review, write-back and history.

Only the transcript names the file; ExitPlanMode's ``planFilePath`` never does (the model can
put anything there). And an adopted path never goes where Claude Code itself would not write,
nor where a cloned repository could point it (see :func:`check_adoptable`): ``<the
transcript's slug>.md``, directly in ``<config>/plans`` or in a ``plansDirectory`` of Claude
Code's settings files that is a usable plans directory of the workspace
(:func:`planmode.core.plans.plans_directory_refusal`), with no symlink on the way.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from planmode.agents.claude_code.transcript import TranscriptFacts
from planmode.core import plans
from planmode.core.agents import Adoption, NotAdoptable

# Claude Code's settings files that may set plansDirectory, highest precedence first
# (managed policy, then the project's local and shared files, then the user's).
MANAGED_SETTINGS = Path("/etc/claude-code/managed-settings.json")
# How an adopted plan file was learned (saved with the session as planFileSource).
FROM_ATTACHMENT = "transcriptAttachment"
FROM_SLUG = "transcriptSlug"


def config_dir(value: str | None = None, env: dict[str, str] | None = None) -> Path:
    """Claude Code's configuration directory: ``value``, else ``$CLAUDE_CONFIG_DIR``, else
    ``~/.claude``."""
    environ = os.environ if env is None else env
    raw = value or environ.get("CLAUDE_CONFIG_DIR") or os.path.join("~", ".claude")
    return Path(os.path.abspath(os.path.expanduser(raw)))


def settings_files(project: Path, config: Path) -> list[Path]:
    return [
        MANAGED_SETTINGS,
        project / ".claude" / "settings.local.json",
        project / ".claude" / "settings.json",
        config / "settings.json",
    ]


def plans_directory_setting(files: Iterable[Path]) -> str | None:
    """The first ``plansDirectory`` string found in ``files`` (highest precedence first);
    unreadable or malformed files are skipped, as Claude Code skips them."""
    return next(iter(plans_directory_settings(files)), None)


def plans_directory_settings(files: Iterable[Path]) -> list[str]:
    """Every ``plansDirectory`` string found in ``files``, highest precedence first."""
    found = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        value = data.get("plansDirectory") if isinstance(data, dict) else None
        if isinstance(value, str) and value:
            found.append(value)
    return found


def plans_directory(project: Path, setting: str | None, config: Path) -> Path:
    """Where Claude Code keeps plans: ``setting`` resolved lexically against ``project`` when
    that stays inside it (or is it), else ``<config>/plans``."""
    default = config / "plans"
    if not setting or "\x00" in setting:
        return default
    resolved = os.path.normpath(os.path.join(project, setting))
    inside = resolved == str(project) or resolved.startswith(str(project).rstrip(os.sep) + os.sep)
    return Path(resolved) if inside else default


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class Where:
    """Where Claude Code may keep this session's plan: its project root, its configuration
    directory, the workspace the server serves, and the ``plansDirectory`` values of its
    settings files (highest precedence first)."""

    project: Path
    config: Path
    workspace: Path
    settings: tuple[str, ...] = ()

    def directories(self) -> list[Path]:
        """The plans directories Claude Code could use: each setting by its rule, and
        ``<config>/plans``."""
        found = [plans_directory(self.project, value, self.config) for value in self.settings]
        return [*dict.fromkeys([*found, self.config / "plans"])]


def where(workspace: Path, project: str | None = None, config: str | None = None) -> Where:
    """Where one of Claude Code's sessions may keep its plan: its project root (``project``
    when that is the workspace or inside it, else the workspace root), its configuration
    directory (``config``, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``), and the
    ``plansDirectory`` values of its settings files."""
    project_dir = _project_dir(workspace, project)
    config_path = config_dir(config)
    settings = plans_directory_settings(settings_files(project_dir, config_path))
    return Where(project_dir, config_path, workspace, tuple(settings))


def _project_dir(workspace: Path, raw: str | None) -> Path:
    """Claude Code's project root: the given directory when it is this workspace or inside
    it, else the workspace root."""
    if raw and os.path.isabs(raw):
        candidate = Path(os.path.normpath(raw))
        real = Path(os.path.realpath(candidate))
        if real == workspace or real.is_relative_to(workspace):
            return candidate
    return workspace


def check_adoptable(raw: object, where: Where) -> Path:
    """``raw`` as an adoptable plan file, or :class:`NotAdoptable` saying why.

    Adoptable: an absolute, normalised path ``<dir>/<slug>.md`` with a slug-shaped name, no
    symlink on the way, where ``<dir>`` is one of Claude Code's plans directories
    (:meth:`Where.directories`); one inside the workspace or the project must also be a
    usable plans directory there (not the root, not in ``.git``, nothing but plans in it).
    """
    if not isinstance(raw, str) or not raw or "\x00" in raw:
        raise NotAdoptable(f"{raw!r} is not a file path")
    if not os.path.isabs(raw) or os.path.normpath(raw) != raw:
        raise NotAdoptable(f"{raw!r} is not an absolute, normalised path")
    path = Path(raw)
    if path.suffix != ".md" or not plans.is_slug(path.stem):
        raise NotAdoptable(f"{raw!r} is not a plan file name (<slug>.md)")
    directories = where.directories()
    if path.parent not in directories:
        shown = ", ".join(str(d) for d in directories)
        raise NotAdoptable(
            f"{raw!r} is not in a plans directory Claude Code uses ({shown}: its "
            "plansDirectory settings and its default)"
        )
    real = os.path.realpath(raw)
    if real != raw:
        raise NotAdoptable(f"{raw!r} goes through a symlink (it resolves to {real})")
    for root in (where.workspace, where.project):
        if _inside(str(path.parent), str(root)):
            if path.parent == root:
                raise NotAdoptable(f"its plans directory {path.parent} is the project root")
            refusal = plans.plans_directory_refusal(path.parent, where.workspace)
            if refusal is not None:
                raise NotAdoptable(f"its plans directory {refusal}")
    return path


def adopted_plan_file(facts: TranscriptFacts, where: Where) -> Adoption | None:
    """The plan file the transcript points at, and how it was learned: its plan_mode
    attachment's path, else its slug in Claude Code's plans directory; None while it names
    none (no slug yet). Raises :class:`NotAdoptable` for a path that may not be adopted."""
    if facts.slug is None:
        return None
    if not plans.is_slug(facts.slug):
        raise NotAdoptable(f"the transcript's slug {facts.slug!r} is not a plan slug")
    if facts.plan_file is not None:
        path = check_adoptable(facts.plan_file, where)
        if path.stem != facts.slug:
            raise NotAdoptable(f"{path} does not carry the transcript's slug {facts.slug!r}")
        return Adoption(path, FROM_ATTACHMENT)
    setting = where.settings[0] if where.settings else None
    directory = plans_directory(where.project, setting, where.config)
    return Adoption(check_adoptable(str(directory / f"{facts.slug}.md"), where), FROM_SLUG)
