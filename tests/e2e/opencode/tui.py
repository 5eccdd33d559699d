"""The real OpenCode CLI (opencode-ai), interactive in a private tmux server, as a user runs it.

Offline: a private ``HOME`` (and XDG directories under it) whose
``~/.config/opencode/opencode.json`` names one provider, ``@ai-sdk/openai-compatible``
(shipped inside the binary) pointed at the fake API, as the model and the small model, with
``autoupdate`` and sharing off; the environment turns off the update check, the models
catalogue fetch, sharing, LSP downloads and the default plugins. At every start OpenCode
installs ``@opencode-ai/plugin`` from npm into each of its config directories
(``~/.config/opencode`` and every ``.opencode`` of the project; with a plugin it waits for
that) unless the directory's ``node_modules`` exists and its ``package-lock.json`` already
lists every dependency of its ``package.json`` and ``@opencode-ai/plugin``:
``seed_plugin_deps`` copies the install script's cached install there. A caller points
``npm_config_registry`` at ``FakeApi.registry`` to see that nothing else is fetched
(docs/opencode.md, "Starting offline").
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import time
from pathlib import Path
from typing import Any

from tests.e2e import tmux

PROVIDER = "planmode"
MODEL = "planmode-fake"
MODEL_NAME = "planmode fake model"
# In the prompt box (its left border ┃): the primary agent, then the model's display name.
# Each answer's footer reads the same after a ▣, so the box's line is the one to read.
# "Build auto" while the TUI auto-approves permission questions.
AGENT_LINE = re.compile(r"┃\s+(Plan|Build)(?: auto)? · " + re.escape(MODEL_NAME))


def cache_dir() -> Path:
    return tmux.cache_dir("opencode")


def opencode_binary(version: str) -> Path:
    return cache_dir() / version / "node_modules" / ".bin" / "opencode"


def plugin_deps(version: str) -> Path:
    """``npm install @opencode-ai/plugin@VERSION``, by tests/e2e/opencode/install.sh."""
    return cache_dir() / version / "plugin-deps"


def installed(version: str) -> str | None:
    """None when the cached install answers ``version`` and has its plugin deps, else why not."""
    binary = opencode_binary(version)
    stamp = cache_dir() / version / ".installed"
    if not binary.exists() or not stamp.exists():
        return f"{binary} is missing (tests/e2e/opencode/install.sh {version} installs it)"
    if not (plugin_deps(version) / "node_modules" / "@opencode-ai" / "plugin").is_dir():
        return f"{plugin_deps(version)} has no @opencode-ai/plugin (install.sh {version})"
    return tmux.version_problem(binary, lambda out: out.strip() == version)


def seed_plugin_deps(directory: Path, version: str) -> None:
    """What OpenCode checks before it would run npm in a config directory: ``node_modules``
    there, and a ``package-lock.json`` naming ``@opencode-ai/plugin`` and every dependency of
    ``package.json``. The cached install's lock and manifest are copied, its ``node_modules``
    linked (a plugin importing ``@opencode-ai/plugin`` resolves it there)."""
    source = plugin_deps(version)
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(source / name, directory / name)
    link = directory / "node_modules"
    if not link.exists():
        link.symlink_to(source / "node_modules", target_is_directory=True)


def config(base_url: str, **extra: Any) -> dict[str, Any]:
    """The user's opencode.json: the fake provider as model and small model, nothing online."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": f"{PROVIDER}/{MODEL}",
        "small_model": f"{PROVIDER}/{MODEL}",
        "provider": {
            PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "planmode fake",
                "options": {"baseURL": base_url, "apiKey": "planmode-e2e-dummy-key"},
                "models": {
                    MODEL: {
                        "name": MODEL_NAME,
                        "tool_call": True,
                        "attachment": False,
                        "reasoning": False,
                        "temperature": True,
                        "limit": {"context": 200000, "output": 8192},
                    }
                },
            }
        },
        **extra,
    }


def prepare_home(home: Path, version: str, base_url: str, **extra: Any) -> Path:
    """A private HOME: the user's config (``extra`` merged in) with the plugin deps seeded.

    Returns the user's config directory (``~/.config/opencode``): global plugins go into its
    ``plugin/``."""
    directory = home / ".config" / "opencode"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "opencode.json").write_text(json.dumps(config(base_url, **extra), indent=2))
    seed_plugin_deps(directory, version)
    return directory


def environment(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """OpenCode's whole environment (``env -i``): nothing of the caller's leaks in."""
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "SHELL": "/bin/bash",
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "LANG": "C.UTF-8",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_TERMINAL_TITLE": "1",
        # Its plan agent writes a plan file and offers plan_exit only with this.
        "OPENCODE_EXPERIMENTAL_PLAN_MODE": "1",
        **(extra or {}),
    }


class OpenCode(tmux.TmuxPane):
    """One interactive ``opencode`` in its own tmux server; the screen is read with capture-pane."""

    program = "opencode"

    def __init__(
        self,
        version: str,
        project: Path,
        home: Path,
        extra_env: dict[str, str] | None = None,
        args: list[str] | None = None,
        size: tuple[int, int] = (160, 50),
    ) -> None:
        self.version = version
        self.project = project
        self.home = home
        env = environment(home, extra_env)
        command = [str(opencode_binary(version)), "--log-level", "DEBUG", *(args or [])]
        width, height = size
        self._start("ocreal", env, command, project, width, height)

    def screen(self) -> str:
        """The visible pane: OpenCode draws its whole conversation there."""
        return self.visible()

    def ready(self, timeout: float = 30.0) -> None:
        """Wait for the prompt: the agent's name and the model under the input box."""
        self.wait_screen(lambda s: AGENT_LINE.search(s) is not None, timeout)

    def agent(self) -> str | None:
        """The primary agent the prompt shows (``Plan`` or ``Build``)."""
        found = AGENT_LINE.findall(self.screen())
        return found[-1] if found else None

    def switch_agent(self, name: str, presses: int = 4) -> None:
        """Press Tab (OpenCode's agent switch) until the prompt shows ``name``."""
        for _ in range(presses):
            if self.agent() == name:
                return
            self.keys("Tab")
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline and self.agent() != name:
                time.sleep(0.1)
        if self.agent() != name:
            raise TimeoutError(f"Tab never reached {name!r}; the screen:\n{self.screen()}")

    def exit(self, timeout: float = 20.0) -> None:
        """``/exit``, as a user quits: the first Enter may only pick it in the command list."""
        self.type("/exit")
        deadline = time.monotonic() + timeout
        while not self.exited():
            if time.monotonic() > deadline:
                raise TimeoutError(f"/exit did not end opencode; the screen:\n{self.screen()}")
            time.sleep(0.5)
            if not self.exited():
                self.keys("Enter")

    def logs(self) -> str:
        """OpenCode's own log of this run (``--log-level DEBUG``), newest file."""
        files = sorted((self.home / ".local" / "share" / "opencode" / "log").glob("*.log"))
        return files[-1].read_text(errors="replace") if files else ""

    def close(self) -> None:
        # The pane's process leads its own process group; a CLI that outlives tmux's hang-up
        # (one run under strace did) is ended with its group.
        pane = self.pane_pid()
        super().close()
        if pane.isdigit():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(int(pane), signal.SIGKILL)
