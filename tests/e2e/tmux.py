"""A real agent CLI, interactive in a private tmux server, as a user runs it.

What the four agents' drivers (``tests/e2e/{claude_code,gemini,codex,opencode}/tui.py``) share:
the private server and its pane, the keys, the screen read with capture-pane, the waits for
a pattern on it, and the end. Each agent's driver adds its own environment, screens and keys.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path


def cache_dir(agent: str) -> Path:
    """Where ``tests/e2e/<agent>/install.sh`` (or the Makefile) keeps the CLI's installs."""
    base = os.environ.get("PLANMODE_E2E_CACHE") or str(Path.home() / ".cache" / "planmode-e2e")
    return Path(base) / agent


def version_problem(binary: Path, answers: Callable[[str], bool]) -> str | None:
    """None when what ``binary --version`` prints ``answers`` the version wanted, else why not."""
    try:
        out = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=60
        ).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{binary} --version failed: {exc}"
    return None if answers(out) else f"{binary} --version said {out!r}"


def inherited_env() -> dict[str, str]:
    """What the CLI's hooks need of the test's environment: ``PYTHONPATH`` (planmode is
    importable) and ``XDG_RUNTIME_DIR`` (the user's session has it: the hook finds the
    editor's server's record there)."""
    return {
        name: os.environ[name] for name in ("PYTHONPATH", "XDG_RUNTIME_DIR") if os.environ.get(name)
    }


class TmuxPane:
    """One command in its own tmux server (``tmux -L <socket>``); the screen is read with
    capture-pane. A subclass names ``program`` and ``scrollback`` (lines ``screen`` reads)."""

    program = "the CLI"
    scrollback = 200
    status_name = "status line"

    def _start(
        self,
        socket_prefix: str,
        env: Mapping[str, str],
        command: list[str],
        cwd: Path,
        width: int = 160,
        height: int = 50,
    ) -> None:
        """Run ``command`` with only ``env`` (``env -i``) in ``cwd``, in a new private server."""
        self.socket = f"{socket_prefix}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        script = " ".join(
            ["exec", "env", "-i", *(shlex.quote(f"{k}={v}") for k, v in env.items())]
            + [shlex.quote(c) for c in command]
        )
        self._tmux(
            "new-session",
            "-d",
            "-x",
            str(width),
            "-y",
            str(height),
            "-c",
            str(cwd),
            "sh",
            "-c",
            script,
        )
        self._tmux("set-option", "-g", "remain-on-exit", "on")

    def _tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    def screen(self) -> str:
        """The pane with its scrollback."""
        return self._tmux("capture-pane", "-p", "-J", "-S", f"-{self.scrollback}")

    def visible(self) -> str:
        """The visible pane only (no scroll-back): the prompt, dialogs and the status line."""
        return self._tmux("capture-pane", "-p", "-J")

    def status(self) -> str:
        raise NotImplementedError

    def wait_status(self, pattern: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while re.search(pattern, self.status()) is None:
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"the {self.status_name} never showed {pattern!r}:\n{self.status()}"
                )
            time.sleep(0.1)

    def wait_screen(
        self, pattern: str | Callable[[str], bool], timeout: float = 30.0, visible: bool = False
    ) -> str:
        check = pattern if callable(pattern) else (lambda s: re.search(pattern, s) is not None)
        deadline = time.monotonic() + timeout
        while True:
            shown = self.visible() if visible else self.screen()
            if check(shown):
                return shown
            if time.monotonic() > deadline:
                raise TimeoutError(f"the screen never showed {pattern!r}:\n{shown}")
            time.sleep(0.1)

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", *keys)

    def type(self, line: str) -> None:
        """Type ``line`` into the prompt and press Enter once the prompt shows it."""
        self._tmux("send-keys", "-l", line)
        self._wait_typed(line)
        self._tmux("send-keys", "Enter")

    def _wait_typed(self, line: str) -> None:
        self.wait_screen(lambda shown: line in shown, 10)

    def pane_pid(self) -> str:
        return self._tmux("display-message", "-p", "#{pane_pid}").strip()

    def exited(self) -> bool:
        return self._tmux("display-message", "-p", "#{pane_dead}").strip() == "1"

    def wait_exit(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.exited():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.program} did not exit")
            time.sleep(0.1)

    def close(self) -> None:
        self._tmux("kill-server")
        # tmux leaves the socket of a killed server behind.
        base = os.environ.get("TMUX_TMPDIR") or "/tmp"
        Path(base, f"tmux-{os.getuid()}", self.socket).unlink(missing_ok=True)
