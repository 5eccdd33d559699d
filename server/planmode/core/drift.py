"""Drift: a write, while a session executes its approved plan, of a file the plan never names.

docs/protocol.md §12.2. The rules, all pure:

* **What is a write**: ``Write``, ``Edit``, ``MultiEdit`` (``file_path``), ``NotebookEdit``
  (``notebook_path``), and every target of a ``planMode/applyEdit`` (the caller passes them).
* **What may drift**: a path inside the workspace root. The plan file itself, the plans of
  the plans directory (its ``*.md`` files; not a file below it, as ``plansDirectory`` may name
  a folder with code below it) and everything outside the root never drift. A path is read
  as the agent spelled it (``~`` expanded, ``..`` folded, against the root); only a path that
  would drift is also read with its symlinks resolved, so a symlink into the plans directory
  or out of the workspace does not count as drift.
* **Named**: the approved plan names the file by its path relative to the root or by its file
  name (:class:`planmode.core.steps.Mentions`); a file the user allowed for this plan
  ("widen the plan") counts as named.
* **The setting** ``drift``: ``off`` (nothing recorded, nothing changes), ``warn`` (the
  default: recorded and shown, checkTool's answer unchanged), ``ask`` (recorded; checkTool
  asks, so the agent's own prompt shows), ``deny`` (recorded; checkTool denies with a message
  starting ``Not in the approved plan:`` that names the path and how to plan again).
  :func:`overrule` only ever makes an answer stricter: a deny stays a deny, an ask is never
  turned into an allow.

The rule id of a drift answer is ``drift``: plan mode vouches for its ``deny`` and ``ask``
(:attr:`planmode.core.permissions.Decision.vouched`), so an agent's hook passes them on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from planmode.core.permissions import RULE_DRIFT, Decision
from planmode.core.steps import Mentions

DriftSetting = Literal["off", "warn", "ask", "deny"]
DRIFT_SETTINGS: tuple[DriftSetting, ...] = ("off", "warn", "ask", "deny")
DEFAULT_DRIFT: DriftSetting = "warn"
APPLY_EDIT = "planMode/applyEdit"
# The tools that write a file, and the input field that names it.
WRITE_TOOLS: dict[str, str] = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
_STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


def parse_setting(raw: object) -> DriftSetting:
    """The ``drift`` setting; ValueError naming the allowed values for anything else."""
    for setting in DRIFT_SETTINGS:
        if raw == setting:
            return setting
    raise ValueError(f"drift must be one of {', '.join(DRIFT_SETTINGS)}, not {raw!r}")


def written_paths(tool: str, tool_input: Mapping[str, Any]) -> tuple[str, ...]:
    """The paths a tool call writes, as the agent spelled them; () for any other call."""
    field = WRITE_TOOLS.get(tool)
    if field is None:
        return ()
    raw = tool_input.get(field)
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
        return ()
    return (raw,)


@dataclass(frozen=True)
class DriftScope:
    """Where drift can happen: the workspace root (resolved), minus the plan's own places."""

    root: Path
    plan_file: Path
    plans_directory: Path | None = None
    # The same as strings, for a check that is made on every write.
    _root: str = field(init=False, repr=False, compare=False)
    _plan_file: str = field(init=False, repr=False, compare=False)
    _plans: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        plans = self.plans_directory
        object.__setattr__(self, "_root", str(self.root).rstrip(os.sep) + os.sep)
        object.__setattr__(self, "_plan_file", str(self.plan_file))
        object.__setattr__(self, "_plans", None if plans is None else str(plans).rstrip(os.sep))

    def relative(self, raw: str) -> str | None:
        """``raw`` as a POSIX path relative to the root (as spelled, ``..`` folded), when a
        write of it could drift; None for the plan file, the plans directory, and anything
        outside the root."""
        if raw.startswith("~"):
            raw = os.path.expanduser(raw)
        return self._inside(os.path.normpath(os.path.join(self._root, raw)))

    def _inside(self, path: str) -> str | None:
        if not path.startswith(self._root) or path == self._plan_file:
            return None
        plans = self._plans
        if plans is not None and (
            path == plans or (os.path.dirname(path) == plans and path.endswith(".md"))
        ):
            return None  # a plan: only the plans directory's own *.md, never a file below it
        relative = path[len(self._root) :]
        return relative if os.sep == "/" else relative.replace(os.sep, "/")

    def really_relative(self, raw: str) -> str | None:
        """:meth:`relative` with the path's symlinks resolved (the file a write reaches)."""
        try:
            real = os.path.realpath(os.path.join(self._root, os.path.expanduser(raw)))
        except (OSError, ValueError):
            return None
        return self._inside(real)


def drifting(
    scope: DriftScope,
    mentions: Mentions,
    allowed: frozenset[str] | set[str],
    raw: str,
    relative: str | None = None,
) -> str | None:
    """The path (relative to the root) when a write of ``raw`` is drift, else None;
    ``relative``: ``scope.relative(raw)``, when the caller has it already."""
    relative = relative or scope.relative(raw)
    if relative is None or relative in allowed or mentions.names_file(relative):
        return None
    # Would drift as spelled: the file it really reaches decides (a symlink into the plans
    # directory, or out of the workspace, is no drift).
    real = scope.really_relative(raw)
    if real is None or real in allowed or mentions.names_file(real):
        return None
    return relative


@dataclass(frozen=True)
class DriftOutcome:
    """checkTool's answer for a drifting write: ask or deny, with the reason."""

    behavior: Literal["ask", "deny"]
    message: str
    rule: str = RULE_DRIFT


def deny_message(relative: str, plan_file: Path) -> str:
    return (
        f"Not in the approved plan: {relative}. The plan being carried out ({plan_file}) never "
        f"names this file, and the drift setting denies writes outside it. To change "
        f"{relative}, enter plan mode and submit a plan that names it, or ask the user to "
        f"allow this file for this plan."
    )


def ask_message(relative: str, plan_file: Path) -> str:
    return (
        f"Not in the approved plan: {relative}. The plan being carried out ({plan_file}) never "
        f"names this file. Allow this write anyway?"
    )


def warning_message(relative: str, tool: str, plan_file: Path) -> str:
    """What the user is shown for drift under ``warn``."""
    return (
        f"Not in the approved plan: {relative} ({tool}). The plan being carried out "
        f"({plan_file}) never names this file; allow it for this plan, or plan again."
    )


def outcome(setting: DriftSetting, relative: str, plan_file: Path) -> DriftOutcome | None:
    """checkTool's answer for a drifting write under ``setting``; None: unchanged."""
    if setting == "deny":
        return DriftOutcome("deny", deny_message(relative, plan_file))
    if setting == "ask":
        return DriftOutcome("ask", ask_message(relative, plan_file))
    return None


def stricter(first: DriftOutcome | None, second: DriftOutcome | None) -> DriftOutcome | None:
    """The stricter of two outcomes (deny over ask), the first of equals."""
    if first is None:
        return second
    if second is None:
        return first
    return second if _STRICTNESS[second.behavior] > _STRICTNESS[first.behavior] else first


def overrule(decision: Decision, found: DriftOutcome | None) -> Decision:
    """``decision`` made stricter by a drift outcome: never looser."""
    if found is None or _STRICTNESS[decision.behavior] >= _STRICTNESS[found.behavior]:
        return decision
    return replace(
        decision, behavior=found.behavior, message=found.message, rule=found.rule, sandbox=None
    )
