"""Claude Code's own plan file: where Claude Code writes it, and learning it from a session.

Claude Code names and places its plan file itself (docs/claude-code.md): ``<dir>/<slug>.md``
(a subagent's ``<slug>-agent-<id>.md``), where ``<dir>`` is its ``plansDirectory`` setting
resolved against the project root — lexically, and only when the result is the root or inside
it — else ``<config dir>/plans`` (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``). The slug is
recorded in the session's transcript (``slug`` on its lines), and so is the plan file itself
(the ``plan_mode`` attachment's ``planFilePath``). A session of Claude Code *adopts* that file:
it is the session's plan for enforcement, review, write-back and history.

An adopted path never goes where Claude Code itself would not write: an absolute, normalised
``.md`` path whose name is a plain slug, either inside the project root or directly in the
config directory's ``plans``, with no symlink on the way (see :func:`check_adoptable`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planmode.core.plans import SAFE_ID_RE

# Claude Code's settings files that may set plansDirectory, highest precedence first
# (managed policy, then the project's local and shared files, then the user's).
MANAGED_SETTINGS = Path("/etc/claude-code/managed-settings.json")
# Only the start of a transcript line is searched for these before it is parsed.
_MARKERS = (b'"slug"', b'"planFilePath"')


class NotAdoptable(ValueError):
    """A path Claude Code would not write its plan to; the message says why."""


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
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        value = data.get("plansDirectory") if isinstance(data, dict) else None
        if isinstance(value, str) and value:
            return value
    return None


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


def check_adoptable(raw: object, project: Path, config: Path) -> Path:
    """``raw`` as an adoptable plan file, or :class:`NotAdoptable` saying why."""
    if not isinstance(raw, str) or not raw or "\x00" in raw:
        raise NotAdoptable(f"{raw!r} is not a file path")
    if not os.path.isabs(raw) or os.path.normpath(raw) != raw:
        raise NotAdoptable(f"{raw!r} is not an absolute, normalised path")
    path = Path(raw)
    if path.suffix != ".md" or not SAFE_ID_RE.match(path.stem):
        raise NotAdoptable(f"{raw!r} is not a plan file name (<slug>.md)")
    parent = str(path.parent)
    config_plans = str(config / "plans")
    if not (_inside(parent, str(project)) or parent == config_plans):
        raise NotAdoptable(
            f"{raw!r} is neither inside the project {project} nor directly in {config_plans}"
        )
    real = os.path.realpath(raw)
    if real != raw:
        raise NotAdoptable(f"{raw!r} goes through a symlink (it resolves to {real})")
    return path


@dataclass
class TranscriptFacts:
    """What a Claude Code transcript says about the session's plan so far."""

    slug: str | None = None
    plan_file: str | None = None
    # Bytes of the transcript already read (whole lines only).
    offset: int = 0


def read_transcript(path: Path, facts: TranscriptFacts) -> TranscriptFacts:
    """``facts`` updated with the transcript's lines after ``facts.offset``.

    Only whole lines are read, so a line being written is read next time. The conversation's
    own lines count: a subagent's plan_mode attachment (``isSubAgent``) names its own file.
    """
    try:
        with open(path, "rb") as stream:
            stream.seek(facts.offset)
            chunk = stream.read()
    except OSError:
        return facts
    end = chunk.rfind(b"\n")
    if end < 0:
        return facts
    slug, plan_file = facts.slug, facts.plan_file
    for line in chunk[: end + 1].splitlines():
        if not any(marker in line for marker in _MARKERS):
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        if isinstance(entry.get("slug"), str) and entry["slug"]:
            slug = entry["slug"]
        found = _attachment_plan_file(entry.get("attachment"))
        if found is not None:
            plan_file = found
    return TranscriptFacts(slug, plan_file, facts.offset + end + 1)


def _attachment_plan_file(attachment: Any) -> str | None:
    if not isinstance(attachment, dict):
        return None
    if attachment.get("type") not in {"plan_mode", "plan_mode_reentry", "plan_file_reference"}:
        return None
    if attachment.get("isSubAgent"):
        return None
    found = attachment.get("planFilePath")
    return found if isinstance(found, str) else None


def adopted_plan_file(
    facts: TranscriptFacts, project: Path, config: Path, setting: str | None
) -> Path | None:
    """The plan file the transcript points at: its plan_mode attachment's path, else its slug
    in Claude Code's plans directory; None while it names none. Raises
    :class:`NotAdoptable` for a path that may not be adopted."""
    if facts.plan_file is not None:
        path = check_adoptable(facts.plan_file, project, config)
        if facts.slug is not None and path.stem != facts.slug:
            raise NotAdoptable(f"{path} does not carry the transcript's slug {facts.slug!r}")
        return path
    if facts.slug is None:
        return None
    directory = plans_directory(project, setting, config)
    return check_adoptable(str(directory / f"{facts.slug}.md"), project, config)
