"""``planmode init codex``: the hooks merged into ``.codex/hooks.json``, their trust into the
user's ``config.toml``, and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from planmode.agents.codex.init import (
    codex_hook_command,
    hook_hash,
    is_planmode_hook,
    merge,
    merge_trust,
    trust,
)
from planmode.agents.setup import SetupError
from tests.e2e.codex.tui import hook_trust

COMMAND = "/opt/venv/bin/planmode hook codex"
EVENTS = ["PreToolUse", "PermissionRequest", "Stop", "UserPromptSubmit", "SessionEnd"]


def test_the_hooks_into_an_empty_file() -> None:
    merged = merge({}, COMMAND)
    hook = {"type": "command", "command": COMMAND}
    assert merged == {
        "hooks": {
            "PreToolUse": [{"hooks": [hook]}],
            "PermissionRequest": [{"hooks": [hook]}],
            "Stop": [{"hooks": [{**hook, "timeout": 86400}]}],
            "UserPromptSubmit": [{"hooks": [hook]}],
            "SessionEnd": [{"hooks": [{**hook, "timeout": 3}]}],
        }
    }


def test_merging_keeps_the_users_keys_and_hooks_and_is_idempotent() -> None:
    users: dict[str, Any] = {
        "note": "mine",
        "hooks": {
            "PreToolUse": [
                {"matcher": "^Bash$", "hooks": [{"type": "command", "command": "./lint.sh"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        },
    }
    before = json.dumps(users)
    merged = merge(users, COMMAND)
    assert json.dumps(users) == before
    assert merged["note"] == "mine"
    assert merged["hooks"]["PreToolUse"][0] == users["hooks"]["PreToolUse"][0]
    # A group without a matcher that holds the user's hook: ours comes in a group of its own.
    assert merged["hooks"]["Stop"][0] == users["hooks"]["Stop"][0]
    assert merged["hooks"]["Stop"][1]["hooks"][0]["command"] == COMMAND
    assert merge(merged, COMMAND) == merged


def test_a_planmode_hook_already_there_is_updated_in_place() -> None:
    old = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "planmode hook codex"}]}]}}
    merged = merge(old, COMMAND)
    assert merged["hooks"]["Stop"] == [
        {"hooks": [{"type": "command", "command": COMMAND, "timeout": 86400}]}
    ]


@pytest.mark.parametrize(
    ("hooks_file", "problem"),
    [
        ({"hooks": []}, "'hooks' is an array, not an object"),
        ({"hooks": {"Stop": {}}}, "'hooks.Stop' is an object, not an array"),
    ],
)
def test_hooks_files_that_cannot_hold_the_hooks(hooks_file: dict[str, Any], problem: str) -> None:
    with pytest.raises(SetupError, match=problem):
        merge(hooks_file, COMMAND)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("/x/bin/planmode hook codex", True),
        ("'/a b/planmode' hook codex", True),
        ("/usr/bin/python3 -m planmode hook codex", True),
        ("planmode hook", False),  # Claude Code's
        ("planmode hook gemini", False),
        ("my-planmode hook codex", False),
        ("'unclosed hook codex", False),
        (None, False),
    ],
)
def test_what_counts_as_a_planmode_hook(command: object, expected: bool) -> None:
    assert is_planmode_hook(command) is expected


def test_the_command_is_this_planmode_by_absolute_path(tmp_path: Path) -> None:
    script = tmp_path / "planmode"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert codex_hook_command(str(script)) == f"{script} hook codex"
    assert codex_hook_command("/nowhere/x.py", "/py") == "/py -m planmode hook codex"


def test_the_trust_hashes_are_codexs() -> None:
    """The hashes Codex 0.169.0's "Trust all and continue" wrote, as the e2e harness
    reproduces them (tests/e2e/codex/tui.py, measured: docs/codex.md)."""
    merged = merge({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}, COMMAND)
    path = "/w/.codex/hooks.json"
    ours = trust(path, merged)
    assert set(ours) == {
        f"{path}:pre_tool_use:0:0",
        f"{path}:permission_request:0:0",
        f"{path}:stop:1:0",
        f"{path}:user_prompt_submit:0:0",
        f"{path}:session_end:0:0",
    }
    harness = hook_trust(Path(path), merged["hooks"])
    assert all(harness[key] == digest for key, digest in ours.items())
    # The user's own hook is not ours to trust.
    assert f"{path}:stop:0:0" not in ours
    assert hook_hash("SessionEnd", None, {"command": "c", "timeout": 100}) == hook_hash(
        "SessionEnd", None, {"command": "c", "timeout": 3}
    )


def test_trust_goes_into_the_users_config_and_nothing_else_changes() -> None:
    text = (
        '# my config\nmodel = "gpt-5.5"\n\n[hooks.state."/w/.codex/hooks.json:stop:0:0"]\n'
        'trusted_hash = "sha256:old"\nenabled = true\n\n[tui]\nshow_tooltips = false'
    )
    entries = {
        "/w/.codex/hooks.json:stop:0:0": "sha256:new",
        "/w/.codex/hooks.json:pre_tool_use:0:0": "sha256:pre",
    }
    merged = merge_trust("config.toml", text, entries)
    parsed = tomllib.loads(merged)
    assert parsed["model"] == "gpt-5.5" and parsed["tui"] == {"show_tooltips": False}
    state = parsed["hooks"]["state"]
    assert state["/w/.codex/hooks.json:stop:0:0"] == {"trusted_hash": "sha256:new", "enabled": True}
    assert state["/w/.codex/hooks.json:pre_tool_use:0:0"] == {"trusted_hash": "sha256:pre"}
    assert merged.startswith('# my config\nmodel = "gpt-5.5"\n')
    assert merge_trust("config.toml", merged, entries) == merged


def test_a_config_whose_hook_state_is_inline_is_reported() -> None:
    text = "hooks = { state = {} }\n"
    with pytest.raises(SetupError, match="cannot take the hooks' trust"):
        merge_trust("config.toml", text, {"/w:stop:0:0": "sha256:x"})


def init(root: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    return subprocess.run(
        [sys.executable, "-m", "planmode", "init", "codex", "--root", str(root), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_init_writes_the_hooks_and_their_trust_once(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    (home / ".codex").mkdir(parents=True)
    config = home / ".codex" / "config.toml"
    config.write_text(f'model = "gpt-5.5"\n\n[projects."{root}"]\ntrust_level = "trusted"\n')
    first = init(root, home)
    assert first.returncode == 0, first.stderr
    hooks_file = root / ".codex" / "hooks.json"
    written = json.loads(hooks_file.read_text())
    assert list(written["hooks"]) == EVENTS
    command = written["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert command == f"{sys.executable} -m planmode hook codex"
    parsed = tomllib.loads(config.read_text())
    assert parsed["model"] == "gpt-5.5"
    assert parsed["hooks"]["state"] == {
        key: {"trusted_hash": digest} for key, digest in trust(str(hooks_file), written).items()
    }
    assert "trusted them" in first.stdout and "note:" not in first.stdout
    config_before, hooks_before = config.read_text(), hooks_file.read_text()
    second = init(root, home)
    assert second.returncode == 0, second.stderr
    assert "already has the planmode hooks" in second.stdout
    assert config.read_text() == config_before and hooks_file.read_text() == hooks_before


def test_init_says_when_codex_does_not_trust_the_project(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    done = init(root, home)
    assert done.returncode == 0, done.stderr
    assert f'add [projects."{root}"] trust_level = "trusted"' in done.stdout
    assert (home / ".codex" / "config.toml").exists()
    (root / ".git").mkdir()  # in a git repository Codex asks itself
    again = init(root, home)
    assert 'Codex asks at its next start ("Trust this folder?")' in again.stdout


def test_init_without_trust_leaves_it_to_codex(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    done = init(root, home, "--no-trust")
    assert done.returncode == 0, done.stderr
    assert "Hooks need review" in done.stdout
    assert not (home / ".codex" / "config.toml").exists()


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("hooks", "{not json", "is not valid JSON"),
        ("hooks", "[1]", "holds an array, not a JSON object"),
        ("config", "model = ", "is not valid TOML"),
    ],
)
def test_init_leaves_a_file_it_cannot_merge_untouched(
    tmp_path: Path, name: str, text: str, problem: str
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    (root / ".codex").mkdir(parents=True)
    (home / ".codex").mkdir(parents=True)
    hooks_file = root / ".codex" / "hooks.json"
    config = home / ".codex" / "config.toml"
    (hooks_file if name == "hooks" else config).write_text(text)
    done = init(root, home)
    assert done.returncode == 1
    assert problem in done.stderr and "nothing was changed" in done.stderr
    if name == "hooks":
        assert hooks_file.read_text() == text and not config.exists()
    else:
        assert config.read_text() == text and not hooks_file.exists()


def test_init_writes_through_symlinks(tmp_path: Path) -> None:
    root, home, dotfiles = tmp_path / "project", tmp_path / "home", tmp_path / "dotfiles"
    (root / ".codex").mkdir(parents=True)
    (home / ".codex").mkdir(parents=True)
    dotfiles.mkdir()
    (dotfiles / "hooks.json").write_text("{}")
    (dotfiles / "config.toml").write_text('model = "gpt-5.5"\n')
    (root / ".codex" / "hooks.json").symlink_to(dotfiles / "hooks.json")
    (home / ".codex" / "config.toml").symlink_to(dotfiles / "config.toml")
    done = init(root, home)
    assert done.returncode == 0, done.stderr
    assert (root / ".codex" / "hooks.json").is_symlink()
    assert (home / ".codex" / "config.toml").is_symlink()
    assert "hooks" in json.loads((dotfiles / "hooks.json").read_text())
    assert "hooks" in tomllib.loads((dotfiles / "config.toml").read_text())


def test_init_print_writes_nothing(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    done = init(root, home, "--print")
    assert done.returncode == 0, done.stderr
    assert '"Stop"' in done.stdout and "trusted_hash" in done.stdout
    assert not (root / ".codex").exists() and not (home / ".codex").exists()


def test_init_does_not_create_a_project_that_is_not_there(tmp_path: Path) -> None:
    done = init(tmp_path / "nowhere", tmp_path / "home")
    assert done.returncode == 1 and "does not exist" in done.stderr
