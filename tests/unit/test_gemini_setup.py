"""``planmode init gemini``: the hooks merged into the project's Gemini settings, planmode's
rules in the user's policy file, the launcher; and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planmode.agents.gemini import shell
from planmode.agents.gemini.init import (
    HOOKS,
    POLICY_HEADER,
    SetupError,
    command,
    is_planmode_hook,
    merge,
    policy,
)

BASE = "/opt/venv/bin/planmode hook"
LAUNCHER = "/home/u/.local/share/planmode/planmode-gemini-shell"
HOOK = command(BASE, LAUNCHER)


def ours(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [
        hook
        for group in settings["hooks"][event]
        for hook in group["hooks"]
        if is_planmode_hook(hook["command"])
    ]


def test_the_hooks_into_an_empty_file() -> None:
    merged = merge({}, HOOK)
    entry = {"type": "command", "name": "planmode", "command": HOOK}
    assert merged == {
        "hooks": {
            "SessionStart": [{"hooks": [entry]}],
            "BeforeTool": [{"matcher": "*", "hooks": [{**entry, "timeout": 86_400_000}]}],
            "AfterTool": [{"matcher": "exit_plan_mode|enter_plan_mode", "hooks": [entry]}],
            "SessionEnd": [{"hooks": [entry]}],
        }
    }
    assert f"{BASE} gemini --launcher {LAUNCHER}" == HOOK


def test_merging_keeps_the_users_keys_and_hooks_and_is_idempotent() -> None:
    users: dict[str, Any] = {
        "ui": {"hideTips": True},
        "general": {"plan": {"directory": "docs/plans"}},
        "hooks": {
            "BeforeTool": [
                {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "audit-log"}]},
            ],
            "AfterAgent": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        },
    }
    before = json.dumps(users)
    merged = merge(users, HOOK)
    assert json.dumps(users) == before  # the input is not changed
    assert merged["ui"] == users["ui"] and merged["general"] == users["general"]
    assert merged["hooks"]["AfterAgent"] == users["hooks"]["AfterAgent"]
    before_tool = merged["hooks"]["BeforeTool"]
    assert before_tool[0] == users["hooks"]["BeforeTool"][0]
    assert {"type": "command", "command": "audit-log"} in before_tool[1]["hooks"]
    assert all(len(ours(merged, event)) == 1 for event, _, _ in HOOKS)
    assert merge(merged, HOOK) == merged


def test_a_planmode_hook_already_there_is_updated_in_place() -> None:
    old = {"type": "command", "name": "planmode", "command": "planmode hook gemini", "x": 1}
    settings = {"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [old]}]}}
    merged = merge(settings, HOOK)
    [group] = merged["hooks"]["BeforeTool"]
    assert group["hooks"] == [{**old, "command": HOOK, "timeout": 86_400_000}]


@pytest.mark.parametrize(
    ("line", "is_ours"),
    [
        ("/venv/bin/planmode hook gemini", True),
        ("/venv/bin/planmode hook gemini --launcher /x/planmode-gemini-shell", True),
        ("/usr/bin/python3 -m planmode hook gemini", True),
        ("planmode hook", False),  # Claude Code's
        ("/venv/bin/planmode hook codex", False),
        ("echo planmode hook gemini", False),
        ("'unterminated", False),
        (None, False),
    ],
)
def test_which_commands_are_planmodes_gemini_hook(line: object, is_ours: bool) -> None:
    assert is_planmode_hook(line) is is_ours


@pytest.mark.parametrize(
    "settings",
    [{"hooks": []}, {"hooks": {"BeforeTool": {}}}, {"hooks": "planmode"}],
)
def test_hooks_of_the_wrong_type_are_refused(settings: dict[str, Any]) -> None:
    with pytest.raises(SetupError):
        merge(settings, HOOK)


def test_the_policy_acts_only_on_calls_the_hook_rewrote() -> None:
    rules = policy(LAUNCHER)
    assert rules.startswith(POLICY_HEADER)
    assert f'commandPrefix = "{LAUNCHER}"' in rules
    assert 'argsPattern = \'"planmode_approval":"\'' in rules
    assert 'argsPattern = \'"planmode_accept_edits":"\'' in rules
    assert rules.count("[[rule]]") == 3
    assert "run_shell_command" not in policy(None)
    assert policy(None).count("[[rule]]") == 2


def test_the_launcher_must_be_a_plain_absolute_path() -> None:
    assert shell.policy_prefix(LAUNCHER) == LAUNCHER
    for bad in ("planmode-gemini-shell", "/home/my user/x", "/x/$(id)", "/x/a;b"):
        with pytest.raises(ValueError):
            shell.policy_prefix(bad)


def init(root: Path, home: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "planmode", "init", "gemini", "--root", str(root), *extra],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "GEMINI_CLI_HOME": "",
        },
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_init_writes_hooks_policy_and_launcher_and_a_second_run_changes_nothing(
    project: Path, fake_home: Path
) -> None:
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"ui": {"hideTips": True}}))
    done = init(project, fake_home)
    assert done.returncode == 0, done.stderr
    written = json.loads(settings.read_text())
    assert written["ui"] == {"hideTips": True}
    launcher = fake_home / ".local" / "share" / "planmode" / "planmode-gemini-shell"
    assert launcher.read_text() == shell.SCRIPT and os.access(launcher, os.X_OK)
    rules = fake_home / ".gemini" / "policies" / "planmode.toml"
    assert rules.read_text() == policy(str(launcher))
    [hook] = ours(written, "BeforeTool")
    assert hook["command"].endswith(f"hook gemini --launcher {launcher}")
    stamps = [p.stat().st_mtime_ns for p in (settings, rules, launcher)]
    again = init(project, fake_home)
    assert again.returncode == 0, again.stderr
    assert "already has the planmode hooks" in again.stdout
    assert [p.stat().st_mtime_ns for p in (settings, rules, launcher)] == stamps


def test_init_writes_through_a_symlinked_settings_file(project: Path, fake_home: Path) -> None:
    dotfiles = fake_home / "dotfiles" / "gemini-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(json.dumps({"model": {"name": "gemini-2.5-pro"}}))
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").symlink_to(dotfiles)
    done = init(project, fake_home)
    assert done.returncode == 0, done.stderr
    assert (project / ".gemini" / "settings.json").is_symlink()
    written = json.loads(dotfiles.read_text())
    assert written["model"] == {"name": "gemini-2.5-pro"} and "BeforeTool" in written["hooks"]


@pytest.mark.parametrize("text", ["{", "[1, 2]", "// a comment\n{}", '{"hooks": []}'])
def test_an_invalid_settings_file_is_left_untouched(
    project: Path, fake_home: Path, text: str
) -> None:
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text)
    done = init(project, fake_home)
    assert done.returncode == 1
    assert "nothing was changed" in done.stderr, done.stderr
    assert settings.read_text() == text
    assert not (fake_home / ".gemini" / "policies" / "planmode.toml").exists()
    assert not (fake_home / ".local" / "share" / "planmode").exists()


def test_a_policy_file_of_that_name_that_is_not_planmodes_is_kept(
    project: Path, fake_home: Path
) -> None:
    rules = fake_home / ".gemini" / "policies" / "planmode.toml"
    rules.parent.mkdir(parents=True)
    rules.write_text('[[rule]]\ntoolName = "*"\ndecision = "allow"\n')
    done = init(project, fake_home)
    assert done.returncode == 1 and "is not planmode's" in done.stderr, done.stderr
    assert rules.read_text().startswith("[[rule]]")
    assert not (project / ".gemini").exists()


def test_without_the_shell_no_launcher_and_no_shell_rule(project: Path, fake_home: Path) -> None:
    done = init(project, fake_home, "--no-shell-prefix")
    assert done.returncode == 0, done.stderr
    written = json.loads((project / ".gemini" / "settings.json").read_text())
    [hook] = ours(written, "BeforeTool")
    assert "--launcher" not in hook["command"]
    rules = (fake_home / ".gemini" / "policies" / "planmode.toml").read_text()
    assert "run_shell_command" not in rules
    assert not (fake_home / ".local" / "share" / "planmode").exists()


def test_print_writes_nothing(project: Path, fake_home: Path) -> None:
    done = init(project, fake_home, "--print")
    assert done.returncode == 0, done.stderr
    assert '"BeforeTool"' in done.stdout and POLICY_HEADER in done.stdout
    assert not (project / ".gemini").exists()
    assert not (fake_home / ".gemini").exists()


def test_a_missing_project_or_local_is_refused(tmp_path: Path, fake_home: Path) -> None:
    missing = init(tmp_path / "nowhere", fake_home)
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    local = init(tmp_path, fake_home, "--local")
    assert local.returncode == 1 and "Gemini CLI has no local file" in local.stderr


def test_policy_paths_in_the_users_settings_are_warned_about(
    project: Path, fake_home: Path
) -> None:
    (fake_home / ".gemini").mkdir()
    (fake_home / ".gemini" / "settings.json").write_text(json.dumps({"policyPaths": ["/p"]}))
    done = init(project, fake_home)
    assert done.returncode == 0
    assert "policyPaths" in done.stderr and "planmode.toml" in done.stderr
