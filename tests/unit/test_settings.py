"""Settings: per-key validation, precedence of sources, rules adding up, env overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planmode.core.settings import (
    Settings,
    apply_env,
    load_settings,
    parse_layer,
    read_settings_file,
    settings_files,
)


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_defaults() -> None:
    settings = Settings()
    assert settings.plansDirectory is None
    assert settings.autoModeGate is True
    assert settings.useAutoModeDuringPlan is False
    assert settings.interviewPhase is False
    assert settings.planFormat is None
    assert (settings.planAgentCount, settings.exploreAgentCount) == (1, 3)
    assert settings.channelsActive is False
    assert settings.teammate is None


# -- one layer --------------------------------------------------------------------------------
def test_a_bad_value_warns_and_the_other_keys_still_apply() -> None:
    layer = parse_layer(
        {"planAgentCount": 42, "interviewPhase": True, "planFormat": "cut", "unknown": 1},
        "initializationOptions.planMode",
    )
    assert layer.values == {"interviewPhase": True, "planFormat": "cut"}
    assert len(layer.warnings) == 1
    warning = layer.warnings[0]
    assert "planAgentCount" in warning
    assert "initializationOptions.planMode" in warning
    assert "default" in warning


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("autoModeGate", "sometimes"),
        ("planFormat", "shorten"),
        ("planAgentCount", 0),
        ("exploreAgentCount", 11),
        ("teammate", {"agentName": ""}),
        ("permissions", {"allow": "Bash(ls)"}),
        ("plansDirectory", 7),
    ],
)
def test_each_invalid_key_produces_one_warning_naming_it(key: str, value: object) -> None:
    layer = parse_layer({key: value}, "src")
    assert layer.values == {}
    assert len(layer.warnings) == 1
    assert f"'{key}'" in layer.warnings[0]


def test_a_layer_that_is_not_an_object_is_ignored_with_a_warning() -> None:
    layer = parse_layer(["plansDirectory"], "workspace configuration 'planMode'")
    assert layer.values == {}
    assert layer.warnings and "must be an object" in layer.warnings[0]


def test_no_layer_no_warning() -> None:
    layer = parse_layer(None, "src")
    assert (layer.values, layer.warnings) == ({}, [])


def test_settings_file_with_broken_json_warns(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    layer = read_settings_file(path)
    assert layer.values == {}
    assert layer.warnings and str(path) in layer.warnings[0]


def test_missing_settings_file_is_silent(tmp_path: Path) -> None:
    layer = read_settings_file(tmp_path / "absent.json")
    assert (layer.values, layer.warnings) == ({}, [])


def test_settings_file_only_contributes_claude_code_keys(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    write_json(path, {"plansDirectory": "p", "autoModeGate": False, "channelsActive": True})
    assert read_settings_file(path).values == {"plansDirectory": "p"}


def test_settings_files_in_order(tmp_path: Path) -> None:
    root, home = tmp_path / "r", tmp_path / "h"
    assert settings_files(root, home) == [
        root / ".claude" / "settings.local.json",
        root / ".claude" / "settings.json",
        home / ".claude" / "settings.json",
    ]


# -- all sources ------------------------------------------------------------------------------
@pytest.fixture
def sources(root: Path, fake_home: Path) -> dict[str, Path]:
    return {
        "local": root / ".claude" / "settings.local.json",
        "project": root / ".claude" / "settings.json",
        "user": fake_home / ".claude" / "settings.json",
    }


@pytest.mark.parametrize(
    ("present", "winner"),
    [
        ({"init", "config", "local", "project", "user"}, "init"),
        ({"config", "local", "project", "user"}, "config"),
        ({"local", "project", "user"}, "local"),
        ({"project", "user"}, "project"),
        ({"user"}, "user"),
    ],
)
def test_precedence_of_sources(
    root: Path, fake_home: Path, sources: dict[str, Path], present: set[str], winner: str
) -> None:
    for name, path in sources.items():
        if name in present:
            write_json(path, {"plansDirectory": f"from-{name}"})
    init = {"plansDirectory": "from-init"} if "init" in present else None
    config = {"plansDirectory": "from-config"} if "config" in present else None
    settings, warnings = load_settings(root, init, config, env={}, home=fake_home)
    assert settings.plansDirectory == f"from-{winner}"
    assert warnings == []


def test_the_user_settings_file_comes_from_home(root: Path, sources: dict[str, Path]) -> None:
    # No explicit ``home``: ``~`` must be the (fake) HOME, never the real one.
    write_json(sources["user"], {"plansDirectory": "from-user"})
    settings, _ = load_settings(root, env={})
    assert settings.plansDirectory == "from-user"


def test_a_higher_layer_overrides_key_by_key(root: Path, fake_home: Path) -> None:
    settings, warnings = load_settings(
        root,
        {"interviewPhase": True},
        {"interviewPhase": False, "planAgentCount": 4, "useAutoModeDuringPlan": True},
        env={},
        home=fake_home,
    )
    assert settings.interviewPhase is True
    assert settings.planAgentCount == 4
    assert settings.useAutoModeDuringPlan is True
    assert warnings == []


def test_a_bad_value_in_a_higher_layer_does_not_hide_a_lower_one(
    root: Path, fake_home: Path
) -> None:
    settings, warnings = load_settings(
        root, {"planAgentCount": "many"}, {"planAgentCount": 5}, env={}, home=fake_home
    )
    assert settings.planAgentCount == 5
    assert len(warnings) == 1 and "planAgentCount" in warnings[0]


def test_bad_values_everywhere_give_defaults_and_one_warning_each(
    root: Path, fake_home: Path, sources: dict[str, Path]
) -> None:
    write_json(sources["project"], {"plansDirectory": ["not", "a", "string"]})
    settings, warnings = load_settings(
        root,
        {"autoModeGate": "maybe", "channelsActive": True},
        "not an object",
        env={},
        home=fake_home,
    )
    assert settings.autoModeGate is True
    assert settings.plansDirectory is None
    assert settings.channelsActive is True
    assert len(warnings) == 3


def test_permission_rules_add_up_across_sources(
    root: Path, fake_home: Path, sources: dict[str, Path]
) -> None:
    write_json(sources["user"], {"permissions": {"allow": ["Read", "Bash(ls:*)"]}})
    write_json(sources["project"], {"permissions": {"allow": ["Bash(ls:*)", "Bash(npm test)"]}})
    write_json(sources["local"], {"permissions": {"deny": ["Bash(rm:*)"], "ask": ["WebFetch"]}})
    settings, warnings = load_settings(
        root, {"permissions": {"allow": ["Edit(src/**)"]}}, None, env={}, home=fake_home
    )
    assert warnings == []
    assert sorted(settings.permissions.allow) == sorted(
        ["Read", "Bash(ls:*)", "Bash(npm test)", "Edit(src/**)"]
    )
    assert settings.permissions.deny == ["Bash(rm:*)"]
    assert settings.permissions.ask == ["WebFetch"]


def test_teammate_setting_is_typed(root: Path, fake_home: Path) -> None:
    teammate = {"agentName": "alice", "teamName": "core", "planModeRequired": True}
    settings, warnings = load_settings(root, {"teammate": teammate}, env={}, home=fake_home)
    assert warnings == []
    assert settings.teammate is not None
    assert settings.teammate.agentName == "alice"
    assert settings.teammate.planModeRequired is True


# -- environment ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [("1", 1), ("10", 10), ("4", 4), (" 7 ", 7), ("0", 2), ("11", 2), ("-3", 2), ("x", 2)],
)
def test_plan_agent_count_env_only_takes_1_to_10(value: str, expected: int) -> None:
    base = Settings(planAgentCount=2)
    updated = apply_env(base, {"CLAUDE_CODE_PLAN_V2_AGENT_COUNT": value})
    assert updated.planAgentCount == expected


@pytest.mark.parametrize(("value", "expected"), [("5", 5), ("0", 3), ("12", 3)])
def test_explore_agent_count_env(value: str, expected: int) -> None:
    updated = apply_env(Settings(), {"CLAUDE_CODE_PLAN_V2_EXPLORE_AGENT_COUNT": value})
    assert updated.exploreAgentCount == expected


@pytest.mark.parametrize(
    ("value", "base", "expected"),
    [
        ("1", False, True),
        ("true", False, True),
        ("YES", False, True),
        ("0", True, False),
        ("false", True, False),
        ("banana", True, True),
        ("banana", False, False),
    ],
)
def test_interview_phase_env_overrides_the_setting(value: str, base: bool, expected: bool) -> None:
    updated = apply_env(
        Settings(interviewPhase=base), {"CLAUDE_CODE_PLAN_MODE_INTERVIEW_PHASE": value}
    )
    assert updated.interviewPhase is expected


def test_env_beats_every_settings_layer(root: Path, fake_home: Path) -> None:
    settings, _ = load_settings(
        root,
        {"interviewPhase": False, "planAgentCount": 2},
        env={"CLAUDE_CODE_PLAN_MODE_INTERVIEW_PHASE": "1", "CLAUDE_CODE_PLAN_V2_AGENT_COUNT": "9"},
        home=fake_home,
    )
    assert settings.interviewPhase is True
    assert settings.planAgentCount == 9


def test_load_settings_reads_the_process_environment_by_default(
    root: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_PLAN_V2_AGENT_COUNT", "6")
    settings, _ = load_settings(root, home=fake_home)
    assert settings.planAgentCount == 6
