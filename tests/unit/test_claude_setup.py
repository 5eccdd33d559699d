"""``planmode init claude-code``: merging the hooks into Claude Code's settings, and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planmode.agents.claude_code import shell_prefix
from planmode.agents.claude_code.init import is_planmode_hook, merge
from planmode.agents.setup import SetupError, hook_command

COMMAND = "/opt/venv/bin/planmode hook"


def ours(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [
        hook
        for group in settings["hooks"][event]
        for hook in group["hooks"]
        if is_planmode_hook(hook["command"])
    ]


def test_the_three_hooks_into_an_empty_file() -> None:
    merged = merge({}, COMMAND)
    assert merged == {
        "hooks": {
            "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": COMMAND}]}],
            "PermissionRequest": [
                {
                    "matcher": "ExitPlanMode",
                    "hooks": [{"type": "command", "command": COMMAND, "timeout": 86400}],
                }
            ],
            "SessionEnd": [{"hooks": [{"type": "command", "command": COMMAND}]}],
        }
    }


def test_merging_keeps_the_users_keys_and_hooks_and_is_idempotent() -> None:
    users = {
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test:*)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "audit-log"}]},
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        },
    }
    before = json.dumps(users)
    merged = merge(users, COMMAND)
    assert json.dumps(users) == before  # the input is not changed
    assert merged["model"] == "opus"
    assert merged["permissions"] == users["permissions"]
    assert merged["hooks"]["Stop"] == users["hooks"]["Stop"]
    pre = merged["hooks"]["PreToolUse"]
    assert pre[0] == users["hooks"]["PreToolUse"][0]  # type: ignore[index]
    assert {"type": "command", "command": "audit-log"} in pre[1]["hooks"]
    assert len(ours(merged, "PreToolUse")) == 1
    assert merge(merged, COMMAND) == merged


def test_a_planmode_hook_already_there_is_updated_in_place() -> None:
    old = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "*", "hooks": [{"type": "command", "command": "planmode hook"}]}
            ],
            "PermissionRequest": [
                {
                    "matcher": "ExitPlanMode",
                    "hooks": [
                        {"type": "command", "command": "python3 -m planmode hook", "timeout": 60}
                    ],
                }
            ],
        }
    }
    merged = merge(old, COMMAND)
    assert merged["hooks"]["PreToolUse"] == [
        {"matcher": "*", "hooks": [{"type": "command", "command": COMMAND}]}
    ]
    permission = merged["hooks"]["PermissionRequest"][0]["hooks"]
    assert permission == [{"type": "command", "command": COMMAND, "timeout": 86400}]
    assert len(merged["hooks"]["SessionEnd"]) == 1


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        ({"hooks": []}, "'hooks' is an array, not an object"),
        ({"hooks": "x"}, "'hooks' is a string, not an object"),
        ({"hooks": {"PreToolUse": {"matcher": "*"}}}, "'hooks.PreToolUse' is an object, not an"),
        ({"hooks": {"SessionEnd": None}}, "'hooks.SessionEnd' is null, not an array"),
    ],
)
def test_settings_that_cannot_hold_the_hooks(settings: dict[str, Any], problem: str) -> None:
    with pytest.raises(SetupError, match=problem):
        merge(settings, COMMAND)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("planmode hook", True),
        ("/home/u/.venv/bin/planmode hook", True),
        ("'/path with space/planmode' hook", True),
        ("/usr/bin/python3 -m planmode hook", True),
        ("planmode state", False),
        ("my-planmode-wrapper hook", False),
        ("echo 'unbalanced", False),
        (None, False),
    ],
)
def test_what_counts_as_a_planmode_hook(command: object, expected: bool) -> None:
    assert is_planmode_hook(command) is expected


def test_the_command_is_this_planmode_by_absolute_path(tmp_path: Path) -> None:
    script = tmp_path / "bin dir" / "planmode"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert hook_command(str(script)) == f"'{script}' hook"
    assert hook_command("/x/planmode/__main__.py", "/usr/bin/python3") == (
        "/usr/bin/python3 -m planmode hook"
    )
    assert is_planmode_hook(hook_command(str(script)))


# -- the CLI ----------------------------------------------------------------------------------
def init(root: Path, *args: str, data: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``planmode init claude-code`` with the user's data directory (where the shell prefix
    goes) beside the project, not in it."""
    data = data if data is not None else root.parent / f"{root.name}.data"
    return subprocess.run(
        [sys.executable, "-m", "planmode", "init", "claude-code", "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XDG_DATA_HOME": str(data)},
    )


def test_init_writes_the_settings_file_once(tmp_path: Path) -> None:
    written = init(tmp_path)
    assert written.returncode == 0, written.stderr
    path = tmp_path / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    command = f"{sys.executable} -m planmode hook"
    assert ours(settings, "PreToolUse") == [{"type": "command", "command": command}]
    assert str(path) in written.stdout and command in written.stdout
    before = path.stat().st_mtime_ns
    again = init(tmp_path)
    assert again.returncode == 0
    assert "already has the planmode hooks" in again.stdout
    assert path.stat().st_mtime_ns == before


def test_init_local_and_print(tmp_path: Path) -> None:
    shown = init(tmp_path, "--local", "--print")
    assert shown.returncode == 0, shown.stderr
    assert "PermissionRequest" in json.loads(shown.stdout)["hooks"]
    assert not (tmp_path / ".claude").exists()
    assert init(tmp_path, "--local").returncode == 0
    assert (tmp_path / ".claude" / "settings.local.json").is_file()
    assert not (tmp_path / ".claude" / "settings.json").exists()


@pytest.mark.parametrize("text", ['{"hooks": {', "[1, 2]", '{"hooks": []}', "NaN", "\udcff{}"])
def test_init_leaves_a_file_it_cannot_merge_untouched(tmp_path: Path, text: str) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(text.encode("utf-8", "surrogateescape"))  # \udcff: a lone byte 0xff
    os.utime(path, (1, 1))
    failed = init(tmp_path)
    assert failed.returncode == 1
    assert failed.stderr.startswith("planmode init: ")
    assert str(path) in failed.stderr or "'hooks' is an array" in failed.stderr
    assert "nothing was changed" in failed.stderr
    assert path.read_bytes() == text.encode("utf-8", "surrogateescape")
    assert path.stat().st_mtime == 1
    assert failed.stdout == ""


def test_init_names_what_it_cannot_read(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(b"\xff\xfe{}")  # UTF-16's byte-order mark, say: not a traceback
    failed = init(tmp_path)
    assert failed.returncode == 1
    assert failed.stderr == (
        f"planmode init: {path} is not UTF-8 text (invalid start byte at byte 0); "
        "nothing was changed\n"
    )
    assert path.read_bytes() == b"\xff\xfe{}"
    holds = tmp_path / "number"
    (holds / ".claude").mkdir(parents=True)
    (holds / ".claude" / "settings.json").write_text("3")
    assert "holds a number, not a JSON object" in init(holds).stderr


def test_init_does_not_create_a_project_that_is_not_there(tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "project"
    for args in ((), ("--print",), ("--local",)):
        failed = init(missing, *args)
        assert failed.returncode == 1
        assert failed.stderr == (
            f"planmode init: the project directory {missing} does not exist; nothing was changed\n"
        )
        assert failed.stdout == ""
    assert not (tmp_path / "typo").exists()


def test_init_writes_through_a_symlinked_settings_file(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "settings.json").write_text('{"model": "opus"}\n')
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    link = project / ".claude" / "settings.json"
    link.symlink_to(dotfiles / "settings.json")
    written = init(project)
    assert written.returncode == 0, written.stderr
    # Before: the link was replaced by a regular file and the user's file left behind.
    assert link.is_symlink()
    settings = json.loads((dotfiles / "settings.json").read_text())
    assert settings["model"] == "opus"
    assert ours(settings, "PreToolUse")
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["settings.json"]


# -- the shell prefix (docs/claude-code.md, "Sandboxing planning Bash") ------------------------
def test_init_installs_the_shell_prefix_and_names_it(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    data = tmp_path / "data"
    written = init(project, data=data)
    assert written.returncode == 0, written.stderr
    script = data / "planmode" / shell_prefix.NAME
    assert script.read_text() == shell_prefix.SCRIPT
    assert os.access(script, os.X_OK)
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["env"] == {"CLAUDE_CODE_SHELL_PREFIX": str(script)}
    assert str(script) in written.stdout
    again = init(project, data=data)
    assert again.returncode == 0 and "already has the planmode hooks" in again.stdout
    assert str(script) not in again.stdout  # the script was already there: not rewritten


def test_init_keeps_the_users_env_and_refuses_to_replace_their_prefix(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    path = project / ".claude" / "settings.json"
    path.write_text(json.dumps({"env": {"FOO": "1"}}))
    assert init(project, data=tmp_path / "data").returncode == 0
    env = json.loads(path.read_text())["env"]
    assert env["FOO"] == "1" and env["CLAUDE_CODE_SHELL_PREFIX"].endswith(shell_prefix.NAME)

    theirs = {"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/local/bin/audit-shell"}}
    path.write_text(json.dumps(theirs))
    refused = init(project, data=tmp_path / "data")
    assert refused.returncode == 1
    assert "already runs '/usr/local/bin/audit-shell'" in refused.stderr
    assert "--no-shell-prefix" in refused.stderr and "nothing was changed" in refused.stderr
    assert json.loads(path.read_text()) == theirs
    without = init(project, "--no-shell-prefix", data=tmp_path / "data")
    assert without.returncode == 0, without.stderr
    assert json.loads(path.read_text())["env"] == theirs["env"]


def test_init_refuses_a_shell_prefix_inside_the_project(tmp_path: Path) -> None:
    """Claude Code drops a prefix the session could write, and the agent could rewrite it."""
    refused = init(tmp_path, data=tmp_path / "home" / ".local" / "share")
    assert refused.returncode == 1
    assert "inside the project" in refused.stderr and "XDG_DATA_HOME" in refused.stderr
    assert not (tmp_path / ".claude").exists()
    assert not (tmp_path / "home" / ".local").exists()


@pytest.mark.parametrize("env", [[], "audit", {"CLAUDE_CODE_SHELL_PREFIX": 3}])
def test_a_bad_env_is_reported(env: object) -> None:
    with pytest.raises(SetupError):
        merge({"env": env}, COMMAND, "/data/planmode/planmode-shell-prefix")
