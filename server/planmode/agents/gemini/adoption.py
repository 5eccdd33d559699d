"""Where Gemini CLI keeps its plan, and which file a session may adopt from it.

Gemini's plan mode writes the plan into its **plans directory** — by default
``~/.gemini/tmp/<project>/<session id>/plans/``, outside the project — under a name the model
chooses (``[\\w-]+.md``, its policy's rule), and ``exit_plan_mode {plan_filename}`` names it
(docs/gemini.md, "Where the plan lives"). Gemini itself reports the directory: its hooks get
``$GEMINI_PLANS_DIR``, which the hook sends as ``gemini.plansDir``. A session *adopts*
(docs/protocol.md §3) the first plan the model writes there while planning — or the one its
``exit_plan_mode`` names, if it wrote none — and keeps it: from then on only that file may be
written while planning, and an exit must name it.

A project can move the directory: ``general.plan.directory`` in its own ``.gemini/settings.json``
(a cloned repository's) puts it anywhere inside the project — ``.`` made a plan write overwrite
the project's README.md (docs/gemini.md). So a plans directory is adopted only where no
repository can have pointed it at files that are not plans:

* outside the workspace: Gemini's own, under a ``.gemini/tmp/`` of the user's (a setting that
  points outside the project falls back there);
* inside it: a usable plans directory of the workspace
  (:func:`planmode.core.plans.plans_directory_refusal`: not the root, not in ``.git``, nothing
  but plans in it);

and the file is ``<that directory>/<name>.md`` with a name Gemini's own policy lets plan mode
write, absolute and normalised, with no symlink on the way. Otherwise nothing is adopted: the
user is told why, and every write while planning is refused with that reason, until the setting
is fixed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from planmode.core import plans
from planmode.core.agents import NotAdoptable

# How an adopted plan file was learned (saved with the session as planFileSource).
FROM_PLANS_DIR = "geminiPlansDir"
# The names Gemini's plan mode lets the model write (its policies/plan.toml).
PLAN_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,128}\.md$")


def _inside(path: Path, directory: Path) -> bool:
    return path == directory or path.is_relative_to(directory)


def check_plans_directory(raw: object, workspace: Path) -> Path:
    """Gemini's plans directory ``raw`` when plan files may be adopted from it; else
    :class:`NotAdoptable` saying why."""
    if not isinstance(raw, str) or not raw or "\x00" in raw:
        raise NotAdoptable(f"{raw!r} names no plans directory")
    if not os.path.isabs(raw) or os.path.normpath(raw) != raw:
        raise NotAdoptable(f"its plans directory {raw!r} is not an absolute, normalised path")
    directory = Path(raw)
    real = os.path.realpath(raw)
    if real != raw:
        raise NotAdoptable(f"its plans directory {raw} goes through a symlink (to {real})")
    if _inside(directory, workspace):
        refusal = plans.plans_directory_refusal(directory, workspace)
        if refusal is not None:
            raise NotAdoptable(
                f"its plans directory (the project's general.plan.directory) {refusal}"
            )
        return directory
    parts = directory.parts
    at = next((i for i in range(len(parts) - 1) if parts[i : i + 2] == (".gemini", "tmp")), None)
    if at is None:
        raise NotAdoptable(
            f"its plans directory {raw} is neither Gemini CLI's own (under ~/.gemini/tmp) nor "
            "inside the workspace"
        )
    return directory


def check_adoptable(raw: object, plans_dir: Path) -> Path:
    """``raw`` as the adoptable plan file in the (checked) ``plans_dir``; else
    :class:`NotAdoptable`."""
    if not isinstance(raw, str) or not raw or "\x00" in raw:
        raise NotAdoptable(f"{raw!r} is not a file path")
    if not os.path.isabs(raw) or os.path.normpath(raw) != raw:
        raise NotAdoptable(f"{raw!r} is not an absolute, normalised path")
    path = Path(raw)
    if path.parent != plans_dir:
        raise NotAdoptable(f"{raw} is not directly in Gemini CLI's plans directory {plans_dir}")
    if PLAN_NAME_RE.match(path.name) is None:
        raise NotAdoptable(f"{path.name!r} is not a plan's name (letters, digits, _ and -, .md)")
    if os.path.lexists(raw) and os.path.realpath(raw) != raw:
        raise NotAdoptable(f"{raw} is a symlink (to {os.path.realpath(raw)})")
    return path


def is_candidate(raw: object, plans_dir: str) -> bool:
    """Whether ``raw`` is a file in ``plans_dir`` the model could mean as its plan (what a
    session adopts; the checks come after)."""
    return isinstance(raw, str) and os.path.dirname(raw) == plans_dir and raw.endswith(".md")


def recheck(path: Path, workspace: Path) -> None:
    """A saved adoption checked again as if just reported; :class:`NotAdoptable` when it
    fails."""
    check_adoptable(str(path), check_plans_directory(str(path.parent), workspace))
