"""The real Claude Code CLI, interactive in a private tmux server, as a user runs it."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

API_KEY = "sk-ant-api03-planmode-e2e-" + "x" * 40 + "-0123456789abcdefghij"


def cache_dir() -> Path:
    base = os.environ.get("PLANMODE_E2E_CACHE") or str(Path.home() / ".cache" / "planmode-e2e")
    return Path(base) / "claude-code"


def claude_binary(version: str) -> Path:
    return cache_dir() / version / "node_modules" / ".bin" / "claude"


def installed(version: str) -> str | None:
    """None when ``claude --version`` of the cached install answers ``version``, else why not."""
    binary = claude_binary(version)
    if not binary.exists():
        return f"{binary} is missing (make claude-code installs it)"
    try:
        out = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=60
        ).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{binary} --version failed: {exc}"
    return None if out.startswith(version) else f"{binary} --version said {out!r}"


def prepare_home(home: Path, project: Path) -> None:
    """A private ~/.claude.json: onboarded, the dummy key approved, the project trusted."""
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    config = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": "2.1.332",
        "numStartups": 5,
        "firstStartTime": "2026-01-01T00:00:00.000Z",
        "userID": "0" * 64,
        "autoUpdates": False,
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "bypassPermissionsModeAccepted": True,
        "hasShownOpusPlanWelcome": {},
        "tipsHistory": {},
        # Newer versions offer their fullscreen renderer once at start-up.
        "fullscreenUpsellSeenCount": 99,
        "projects": {
            str(project): {
                "allowedTools": [],
                "hasTrustDialogAccepted": True,
                "hasCompletedProjectOnboarding": True,
                "projectOnboardingSeenCount": 5,
                "hasClaudeMdExternalIncludesApproved": False,
            }
        },
    }
    (home / ".claude.json").write_text(json.dumps(config, indent=2))


class ClaudeCode:
    """One interactive ``claude`` in its own tmux server; the screen is read with capture-pane."""

    def __init__(
        self,
        version: str,
        project: Path,
        home: Path,
        base_url: str,
        work: Path,
        extra_env: dict[str, str] | None = None,
        args: list[str] | None = None,
    ) -> None:
        self.version = version
        self.project = project
        self.home = home
        self.session_id = str(uuid.uuid4())
        self.debug_file = work / f"claude-debug-{version}.log"
        self.socket = f"ccreal-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        env = {
            "HOME": str(home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": API_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_BUG_COMMAND": "1",
            "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL": "1",
            # Otherwise it clones Anthropic's plugin marketplace from GitHub at start-up.
            "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
            **({"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}),
            # The user's session has it: the hook finds the editor's server's record there.
            **(
                {"XDG_RUNTIME_DIR": os.environ["XDG_RUNTIME_DIR"]}
                if os.environ.get("XDG_RUNTIME_DIR")
                else {}
            ),
            **(extra_env or {}),
        }
        command = [
            str(claude_binary(version)),
            "--permission-mode",
            "plan",
            "--session-id",
            self.session_id,
            "--debug-file",
            str(self.debug_file),
            *(args or []),
        ]
        script = " ".join(
            ["exec", "env", "-i", *(shlex.quote(f"{k}={v}") for k, v in env.items())]
            + [shlex.quote(c) for c in command]
        )
        self._tmux(
            "new-session", "-d", "-x", "160", "-y", "50", "-c", str(project), "sh", "-c", script
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
        return self._tmux("capture-pane", "-p", "-J", "-S", "-200")

    def status(self) -> str:
        """The status line under the prompt (the visible pane's last lines): the mode."""
        lines = [line for line in self._tmux("capture-pane", "-p").splitlines() if line.strip()]
        return "\n".join(lines[-3:])

    def wait_status(self, pattern: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while re.search(pattern, self.status()) is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the status line never showed {pattern!r}:\n{self.status()}")
            time.sleep(0.1)

    def wait_screen(self, pattern: str | Callable[[str], bool], timeout: float = 30.0) -> str:
        check = pattern if callable(pattern) else (lambda s: re.search(pattern, s) is not None)
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if check(shown):
                return shown
            if time.monotonic() > deadline:
                raise TimeoutError(f"the screen never showed {pattern!r}")
            time.sleep(0.1)

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", *keys)

    def type(self, line: str) -> None:
        """Type ``line`` into the prompt and press Enter once the prompt shows it."""
        self._tmux("send-keys", "-l", line)
        self.wait_screen(lambda shown: line in shown, 10)
        self._tmux("send-keys", "Enter")

    def cycle_mode(self, shown: str, presses: int = 4) -> None:
        """Press shift+tab (Claude Code's mode switch) until the status line shows ``shown``."""
        for _ in range(presses):
            self.keys("BTab")
            try:
                self.wait_status(shown, 3)
                return
            except TimeoutError:
                continue
        raise TimeoutError(f"shift+tab never reached {shown!r}; the screen:\n{self.screen()}")

    def debug_log(self) -> str:
        try:
            return self.debug_file.read_text(errors="replace")
        except OSError:
            return ""

    def transcript(self) -> list[dict[str, Any]]:
        for path in (self.home / ".claude" / "projects").glob(f"*/{self.session_id}.jsonl"):
            return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return []

    def exited(self) -> bool:
        return self._tmux("display-message", "-p", "#{pane_dead}").strip() == "1"

    def wait_exit(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.exited():
            if time.monotonic() > deadline:
                raise TimeoutError("claude did not exit")
            time.sleep(0.1)

    def close(self) -> None:
        self._tmux("kill-server")
        # tmux leaves the socket of a killed server behind.
        base = os.environ.get("TMUX_TMPDIR") or "/tmp"
        Path(base, f"tmux-{os.getuid()}", self.socket).unlink(missing_ok=True)
