"""Settings: the typed model, its sources in order of precedence, and the env overrides.

Sources, highest first (docs/protocol.md §7): the editor's ``initializationOptions.planMode``, its
``workspace/configuration`` section ``planMode``, then the settings files of ``.claude``
(:func:`settings_files`: ``<root>/.claude/settings.local.json``, ``<root>/.claude/settings.json``
and ``~/.claude/settings.json``; from those only :data:`FILE_KEYS` are taken). Each key is
validated on its own: a bad value is reported and the default used; it never fails the rest.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

PlanFormat = Literal["trim", "cut", "cap"]


class Teammate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    agentName: str = Field(min_length=1)
    teamName: str = Field(min_length=1)
    planModeRequired: bool = False


class PermissionRules(BaseModel):
    model_config = ConfigDict(extra="ignore")

    allow: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)


class Settings(BaseModel):
    """Everything the server can be configured with, and the defaults."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    plansDirectory: str | None = None
    autoModeGate: bool = True
    useAutoModeDuringPlan: bool = False
    interviewPhase: bool = False
    planFormat: PlanFormat | None = None
    planAgentCount: int = Field(default=1, ge=1, le=10)
    exploreAgentCount: int = Field(default=3, ge=1, le=10)
    channelsActive: bool = False
    teammate: Teammate | None = None
    permissions: PermissionRules = Field(default_factory=PermissionRules)
    # Deny Bash while planning where no OS sandbox works (docs/sandbox.md).
    requireSandbox: bool = False
    # A write outside the approved plan while executing it (docs/protocol.md §12.2).
    drift: Literal["off", "warn", "ask", "deny"] = "warn"


# The keys of the .claude settings files that mean something here (the other keys there are
# the agent's own).
FILE_KEYS = ("plansDirectory", "permissions")


@dataclass
class SettingsLayer:
    """One source's valid values, and what was wrong with the rest."""

    source: str
    values: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def parse_layer(raw: object, source: str, keys: tuple[str, ...] | None = None) -> SettingsLayer:
    """Validate each known key of ``raw`` on its own; unknown keys are ignored."""
    layer = SettingsLayer(source)
    if raw is None:
        return layer
    if not isinstance(raw, Mapping):
        layer.warnings.append(
            f"Plan mode settings from {source} must be an object, got {type(raw).__name__}; "
            "ignoring them."
        )
        return layer
    for name in keys or tuple(Settings.model_fields):
        if name not in raw:
            continue
        value = raw[name]
        try:
            Settings.model_validate({name: value})
        except ValidationError as exc:
            reason = exc.errors()[0]["msg"]
            layer.warnings.append(
                f"Plan mode setting '{name}' from {source} is invalid ({reason}); "
                "using the default."
            )
            continue
        layer.values[name] = value
    return layer


def read_settings_file(path: Path) -> SettingsLayer:
    """A ``.claude`` settings file as a layer (missing file: empty, no warning)."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return SettingsLayer(source)
    except OSError as exc:
        return SettingsLayer(source, warnings=[f"Cannot read {source}: {exc}; ignoring it."])
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        return SettingsLayer(source, warnings=[f"{source} is not valid JSON ({exc}); ignoring it."])
    return parse_layer(raw, source, FILE_KEYS)


def settings_files(root: Path, home: Path | None = None) -> list[Path]:
    """The ``.claude`` settings files, highest precedence first."""
    user_home = home if home is not None else Path(os.path.expanduser("~"))
    return [
        root / ".claude" / "settings.local.json",
        root / ".claude" / "settings.json",
        user_home / ".claude" / "settings.json",
    ]


def merge_layers(layers: list[SettingsLayer]) -> Settings:
    """Merge layers given highest precedence first into one validated :class:`Settings`."""
    merged: dict[str, Any] = {}
    rules: dict[str, list[str]] = {"allow": [], "deny": [], "ask": []}
    for layer in reversed(layers):
        merged.update(layer.values)
        # Permission rules add up across sources instead of replacing (docs/protocol.md §7).
        for kind, listed in (layer.values.get("permissions") or {}).items():
            if kind in rules:
                rules[kind].extend(r for r in listed if r not in rules[kind])
    merged["permissions"] = rules
    return Settings.model_validate(merged)


def _env_flag(value: str | None) -> bool | None:
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off", ""}:
        return False
    return None


def _env_count(value: str | None) -> int | None:
    try:
        count = int(value) if value is not None else None
    except ValueError:
        return None
    return count if count is not None and 1 <= count <= 10 else None


def apply_env(settings: Settings, env: Mapping[str, str]) -> Settings:
    """The environment's overrides of the interview phase and the planning agents' counts
    (docs/protocol.md §7; counts outside 1–10 are ignored)."""
    updates: dict[str, Any] = {}
    interview = _env_flag(env.get("CLAUDE_CODE_PLAN_MODE_INTERVIEW_PHASE"))
    if interview is not None:
        updates["interviewPhase"] = interview
    plan_agents = _env_count(env.get("CLAUDE_CODE_PLAN_V2_AGENT_COUNT"))
    if plan_agents is not None:
        updates["planAgentCount"] = plan_agents
    explore_agents = _env_count(env.get("CLAUDE_CODE_PLAN_V2_EXPLORE_AGENT_COUNT"))
    if explore_agents is not None:
        updates["exploreAgentCount"] = explore_agents
    return settings.model_copy(update=updates) if updates else settings


def load_settings(
    root: Path,
    init_options: object = None,
    configuration: object = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> tuple[Settings, list[str]]:
    """All sources merged, with the warnings to show the user."""
    layers = [
        parse_layer(init_options, "initializationOptions.planMode"),
        parse_layer(configuration, "workspace configuration 'planMode'"),
        *(read_settings_file(path) for path in settings_files(root, home)),
    ]
    settings = apply_env(merge_layers(layers), os.environ if env is None else env)
    warnings = [warning for layer in layers for warning in layer.warnings]
    return settings, warnings
