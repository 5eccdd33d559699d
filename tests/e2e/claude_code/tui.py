"""The real Claude Code CLI, interactive in a private tmux server, as a user runs it."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from tests.e2e import tmux

API_KEY = "sk-ant-api03-planmode-e2e-" + "x" * 40 + "-0123456789abcdefghij"


def cache_dir() -> Path:
    return tmux.cache_dir("claude-code")


def claude_binary(version: str) -> Path:
    return cache_dir() / version / "node_modules" / ".bin" / "claude"


def installed(version: str) -> str | None:
    """None when ``claude --version`` of the cached install answers ``version``, else why not."""
    binary = claude_binary(version)
    if not binary.exists():
        return f"{binary} is missing (make claude-code installs it)"
    return tmux.version_problem(binary, lambda out: out.startswith(version))


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


class ClaudeCode(tmux.TmuxPane):
    """One interactive ``claude`` in its own tmux server; the screen is read with capture-pane."""

    program = "claude"

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
            **tmux.inherited_env(),
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
        self._start("ccreal", env, command, project)

    def status(self) -> str:
        """The status line under the prompt (the visible pane's last lines): the mode."""
        lines = [line for line in self._tmux("capture-pane", "-p").splitlines() if line.strip()]
        return "\n".join(lines[-3:])

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
