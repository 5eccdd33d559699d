"""``planmode init opencode``: planmode's plugin and shell in the user's data directory, named
in the project's opencode.json; and the shell itself (agents/opencode/shell.py), run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planmode.agents.opencode import shell
from planmode.agents.opencode.init import SCHEMA, merge
from planmode.agents.setup import SetupError

PLUGIN = "file:///home/u/.local/share/planmode/opencode/planmode.js"
SHELL = "/home/u/.local/share/planmode/opencode/shell/bash"


def test_planmode_into_an_empty_config() -> None:
    assert merge({}, PLUGIN, SHELL) == {"$schema": SCHEMA, "plugin": [PLUGIN], "shell": SHELL}


def test_merging_keeps_the_users_keys_and_plugins_and_is_idempotent() -> None:
    users: dict[str, Any] = {
        "model": "anthropic/claude",
        "plugin": ["opencode-wakatime", "file:///x/mine.js"],
        "permission": {"bash": {"git push*": "ask"}},
    }
    before = json.dumps(users)
    merged = merge(users, PLUGIN, SHELL)
    assert json.dumps(users) == before  # the input is not changed
    assert merged == {**users, "plugin": [*users["plugin"], PLUGIN], "shell": SHELL}
    assert merge(merged, PLUGIN, SHELL) == merged


def test_a_planmode_plugin_already_listed_is_updated_in_place() -> None:
    old = "file:///old/home/.local/share/planmode/opencode/planmode.js"
    config = {"plugin": ["a", old, "b", old]}
    assert merge(config, PLUGIN, None)["plugin"] == ["a", PLUGIN, "b"]
    # Another install of planmode's shell is planmode's too.
    moved = {"shell": "/old/home/.local/share/planmode/opencode/shell/bash"}
    assert merge(moved, PLUGIN, SHELL)["shell"] == SHELL


def test_the_users_own_shell_is_not_replaced() -> None:
    with pytest.raises(SetupError, match=r"'shell' already names '/bin/zsh'.*--no-shell-prefix"):
        merge({"shell": "/bin/zsh"}, PLUGIN, SHELL)
    assert merge({"shell": "/bin/zsh"}, PLUGIN, None)["shell"] == "/bin/zsh"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"plugin": "planmode"}, "'plugin' is a string, not an array"),
        ({"shell": ["bash"]}, "'shell' is an array, not a string"),
    ],
)
def test_keys_of_the_wrong_type_are_reported(config: dict[str, Any], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        merge(config, PLUGIN, SHELL)


# -- the command --------------------------------------------------------------------------------
def init(root: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    return subprocess.run(
        [sys.executable, "-m", "planmode", "init", "opencode", "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_init_writes_the_plugin_the_shell_and_the_config_once(
    project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (project / "opencode.json").write_text(json.dumps({"model": "x/y"}))
    first = init(project, home)
    assert first.returncode == 0, first.stderr
    assert "OPENCODE_EXPERIMENTAL_PLAN_MODE=1" in first.stdout
    config = json.loads((project / "opencode.json").read_text())
    plugin = home / "data" / "planmode" / "opencode" / "planmode.js"
    own_shell = home / "data" / "planmode" / "opencode" / "shell" / "bash"
    assert config == {"model": "x/y", "plugin": [plugin.as_uri()], "shell": str(own_shell)}
    assert plugin.read_text().startswith("// planmode's OpenCode plugin")
    assert own_shell.read_text() == shell.SCRIPT and os.access(own_shell, os.X_OK)
    # No config directory of OpenCode's is made: nothing for it to install npm packages into.
    assert sorted(p.name for p in project.iterdir()) == ["opencode.json"]
    second = init(project, home)
    assert second.returncode == 0, second.stderr
    assert "already names planmode's plugin" in second.stdout
    assert json.loads((project / "opencode.json").read_text()) == config


def test_an_invalid_config_is_left_untouched(project: Path, tmp_path: Path) -> None:
    (project / "opencode.json").write_text("{ not json")
    done = init(project, tmp_path / "home")
    assert done.returncode == 1
    assert "is not valid JSON" in done.stderr and "nothing was changed" in done.stderr
    assert (project / "opencode.json").read_text() == "{ not json"
    assert not (tmp_path / "home" / "data").exists()


def test_a_symlinked_config_is_written_where_it_points(project: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "opencode.json").write_text("{}")
    (project / "opencode.json").symlink_to(dotfiles / "opencode.json")
    done = init(project, tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert (project / "opencode.json").is_symlink()
    assert "plugin" in json.loads((dotfiles / "opencode.json").read_text())


def test_a_jsonc_config_is_not_rewritten(project: Path, tmp_path: Path) -> None:
    (project / "opencode.jsonc").write_text('{ // mine\n "model": "x/y" }\n')
    done = init(project, tmp_path / "home")
    assert done.returncode == 1
    assert "has comments" in done.stderr and '"plugin": ["file://' in done.stderr
    assert not (project / "opencode.json").exists()


def test_print_writes_nothing_and_local_is_claude_code_s(project: Path, tmp_path: Path) -> None:
    shown = init(project, tmp_path / "home", "--print", "--no-shell-prefix")
    assert shown.returncode == 0, shown.stderr
    assert "shell" not in json.loads(shown.stdout)
    assert not (project / "opencode.json").exists() and not (tmp_path / "home" / "data").exists()
    local = init(project, tmp_path / "home", "--local")
    assert local.returncode == 1 and "--local is Claude Code's" in local.stderr


def test_a_data_directory_inside_the_project_is_refused(project: Path) -> None:
    done = init(project, project / "home")
    assert done.returncode == 1 and "inside the project" in done.stderr


# -- planmode's shell -------------------------------------------------------------------------
@pytest.fixture
def own_shell(tmp_path: Path) -> Path:
    path = tmp_path / "planmode" / "opencode" / "shell" / "bash"
    assert shell.install(str(path))
    assert not shell.install(str(path))  # already there
    return path


def shell_run(
    own_shell: Path, *args: str, mark: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    if mark is not None:
        env[shell.MARK] = mark
    return subprocess.run([str(own_shell), *args], capture_output=True, text=True, env=env)


def test_an_unmarked_command_runs_as_bash_runs_it(own_shell: Path) -> None:
    done = shell_run(own_shell, "-c", 'echo "$BASH_VERSION" | cut -c1; exit 3')
    assert done.returncode == 3 and done.stdout.strip().isdigit()
    # OpenCode's own calls of a shell named bash (a `!` command: -l -c SCRIPT opencode DIR).
    done = shell_run(own_shell, "-l", "-c", 'echo "$1"', "opencode", "/dir")
    assert done.stdout == "/dir\n"
    assert shell_run(own_shell, "-c", "echo x", mark="").stdout == "x\n"


def test_a_marked_command_runs_after_the_sandbox_s_words(own_shell: Path) -> None:
    # env stands in for the sandbox: its words, then bash -c and the command.
    done = shell_run(
        own_shell, "-c", 'echo "$INSIDE ${PLANMODE_SANDBOX-unset}"', mark="'env' 'INSIDE=it'\\''s'"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "it's unset\n"


@pytest.mark.parametrize(
    ("args", "mark"), [(("-l", "-c", "echo"), "'env'"), (("-c", "echo"), "'unclosed")]
)
def test_a_marked_command_that_cannot_be_sandboxed_is_not_run(
    own_shell: Path, args: tuple[str, ...], mark: str
) -> None:
    done = shell_run(own_shell, *args, mark=mark)
    assert done.returncode == 126, done
    assert done.stderr.startswith("planmode: this command was not run"), done.stderr
