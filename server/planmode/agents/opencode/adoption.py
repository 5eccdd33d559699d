"""Where OpenCode keeps its own plan file, and which file a session may adopt from it.

OpenCode's plan agent (``OPENCODE_EXPERIMENTAL_PLAN_MODE=1``) names and places the plan file
itself (docs/opencode.md, "Plan mode: OpenCode's plan agent"; by its code ``Session.plan``):
``<dir>/<session created, ms>-<session slug>.md``, where ``<dir>`` is
``<worktree>/.opencode/plans`` in a git project and ``<data>/plans`` otherwise (``<data>`` is
OpenCode's data directory, ``$XDG_DATA_HOME/opencode``). No setting moves it, and the session's
plan never moves. The plugin reports the name's inputs — the session's creation time and slug
(its ``session.created`` event), the project's worktree and whether it is a git project, the
data directory — and a session of OpenCode *adopts* that file (docs/protocol.md §3).

What a repository could still do is ship ``.opencode/plans`` (or ``.opencode``) as a symlink
out of the workspace, or fill it with files that are no plans: a path is adopted only with no
symlink on the way, and a directory inside the workspace must be a usable plans directory there
(:func:`planmode.core.plans.plans_directory_refusal`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from planmode.core import plans
from planmode.core.agents import NotAdoptable

# How an adopted plan file was learned (saved with the session as planFileSource).
FROM_SESSION = "opencodeSession"
# <created ms>-<slug>.md: OpenCode's slug is two words (calm-island, playful-knight).
PLAN_NAME_RE = re.compile(r"^(?P<created>[0-9]{1,16})-(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)\.md$")


@dataclass(frozen=True)
class SessionFacts:
    """What names one OpenCode session's plan file, as its plugin reports it."""

    created: int
    slug: str
    worktree: Path
    git: bool
    data: Path | None = None


def plan_file(facts: SessionFacts) -> Path:
    """OpenCode's own rule: ``<worktree>/.opencode/plans`` in a git project, else
    ``<data>/plans``; the file ``<created>-<slug>.md``."""
    if not plans.is_slug(facts.slug) or facts.created < 0:
        raise NotAdoptable(f"session {facts.created}-{facts.slug!r} names no plan file")
    if facts.git:
        directory = facts.worktree / ".opencode" / "plans"
    elif facts.data is not None:
        directory = facts.data / "plans"
    else:
        raise NotAdoptable("OpenCode's data directory is not known for a project without git")
    return directory / f"{facts.created}-{facts.slug}.md"


def check_adoptable(path: Path, workspace: Path, data: Path | None = None) -> Path:
    """``path`` as an adoptable plan file of the workspace ``workspace`` (real path), or
    :class:`NotAdoptable` saying why.

    Adoptable: absolute and normalised, named ``<created>-<slug>.md``, directly in
    ``.opencode/plans`` of a directory that is the workspace, inside it or above it (the git
    worktree OpenCode runs in), or in ``<data>/plans`` (``data``: OpenCode's data directory);
    no symlink on the way; a plans directory inside the workspace must be usable there."""
    raw = str(path)
    if not path.is_absolute() or os.path.normpath(raw) != raw or "\x00" in raw:
        raise NotAdoptable(f"{raw!r} is not an absolute, normalised path")
    if PLAN_NAME_RE.match(path.name) is None:
        raise NotAdoptable(f"{raw!r} is not OpenCode's plan file name (<created>-<slug>.md)")
    directory = path.parent
    project = directory.parent.parent
    in_project = directory.name == "plans" and directory.parent.name == ".opencode"
    related = (
        project == workspace
        or workspace.is_relative_to(project)
        or (project.is_relative_to(workspace))
    )
    in_data = data is not None and directory == data / "plans"
    if not (in_project and related) and not in_data:
        where = f"{workspace}/.opencode/plans (or a git worktree's around it)"
        if data is not None:
            where += f" or {data / 'plans'}"
        raise NotAdoptable(f"{raw!r} is not where OpenCode keeps plans ({where})")
    real = os.path.realpath(raw)
    if real != raw:
        raise NotAdoptable(f"{raw!r} goes through a symlink (it resolves to {real})")
    if directory.is_relative_to(workspace):
        refusal = plans.plans_directory_refusal(directory, workspace)
        if refusal is not None:
            raise NotAdoptable(f"its plans directory {refusal}")
    return path


def data_dir(environ: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """OpenCode's data directory as this server's environment gives it (xdg-basedir's rule):
    ``$XDG_DATA_HOME/opencode``, else ``~/.local/share/opencode``."""
    base = environ.get("XDG_DATA_HOME") or ""
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(os.path.normpath(base)) / "opencode"
