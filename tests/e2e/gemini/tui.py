"""The real Gemini CLI, interactive in a private tmux server, as a user runs it.

Offline: a private ``HOME`` whose ``~/.gemini/settings.json`` selects the API key (the dummy
one the fake API checks), turns off auto-update and its notification, usage statistics,
telemetry and the IDE integration and its nudge, and whose ``~/.gemini/trustedFolders.json``
trusts the project; ``GOOGLE_GEMINI_BASE_URL`` points at the fake API. Then ``gemini
--approval-mode plan`` starts straight into its prompt and sends nothing but the model's
requests (docs/gemini.md).
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from tests.e2e import tmux
from tests.e2e.gemini.fake_api import API_KEY

VERSION = "0.61.0"


def cache_dir() -> Path:
    return tmux.cache_dir("gemini")


def gemini_binary(version: str = VERSION) -> Path:
    return cache_dir() / version / "node_modules" / ".bin" / "gemini"


def installed(version: str = VERSION) -> str | None:
    """None when the cached install of ``version`` is there and answers it, else why not."""
    binary = gemini_binary(version)
    if not binary.exists():
        return f"{binary} is missing (tests/e2e/gemini/install.sh {version} installs it)"
    if not (cache_dir() / version / ".installed").exists():
        return f"{cache_dir() / version} was not fully installed (no .installed stamp)"
    return None


# The user's settings a new user would have after the first start's dialogs, minus everything
# that reaches the network on its own (docs/gemini.md, "Starting it offline").
USER_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "ide": {"enabled": False, "hasSeenNudge": True},
}


# Every hook event Gemini CLI 0.61.0 knows (its HookEventName).
EVENTS = (
    "SessionStart",
    "BeforeAgent",
    "BeforeModel",
    "BeforeToolSelection",
    "AfterModel",
    "BeforeTool",
    "AfterTool",
    "Notification",
    "AfterAgent",
    "PreCompress",
    "SessionEnd",
)
TOOL_EVENTS = ("BeforeTool", "AfterTool")


def hooks(
    command: str,
    events: tuple[str, ...] = EVENTS,
    name: str = "log",
    timeout_ms: int | None = None,
) -> dict[str, Any]:
    """The ``hooks`` setting that runs ``command`` on each of ``events`` (every tool for the
    tool events). ``timeout_ms``: the hook's timeout (Gemini CLI's default is 60 000)."""
    hook: dict[str, Any] = {"type": "command", "name": name, "command": command}
    if timeout_ms is not None:
        hook["timeout"] = timeout_ms
    return {
        event: [{"matcher": "*", "hooks": [hook]} if event in TOOL_EVENTS else {"hooks": [hook]}]
        for event in events
    }


def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``extra`` over ``base``, objects merged key by key."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def prepare_home(
    home: Path,
    project: Path,
    settings: dict[str, Any] | None = None,
    policies: dict[str, str] | None = None,
) -> Path:
    """A private ``~/.gemini``: the user's settings (``settings`` merged over the offline
    ones), the project trusted, and ``policies`` as ``~/.gemini/policies/<name>.toml``.
    Returns the ``.gemini`` directory."""
    gemini = home / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text(
        json.dumps(merge(USER_SETTINGS, settings or {}), indent=2)
    )
    (gemini / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    for name, text in (policies or {}).items():
        (gemini / "policies").mkdir(exist_ok=True)
        (gemini / "policies" / f"{name}.toml").write_text(text)
    return gemini


def trust_project_hooks(home: Path, project: Path) -> None:
    """Mark the project's hooks (its ``.gemini/settings.json``) as seen, as Gemini CLI does
    after the first start that warned about them: no warning banner then."""
    settings = json.loads((project / ".gemini" / "settings.json").read_text())
    keys = [
        f"{hook.get('name') or ''}:{hook.get('command') or ''}"
        for definitions in (settings.get("hooks") or {}).values()
        for definition in definitions
        for hook in definition.get("hooks") or []
    ]
    (home / ".gemini" / "trusted_hooks.json").write_text(json.dumps({str(project): keys}))


class GeminiCli(tmux.TmuxPane):
    """One interactive ``gemini`` in its own tmux server; the screen is read with capture-pane."""

    program = "gemini"

    def __init__(
        self,
        project: Path,
        home: Path,
        base_url: str,
        version: str = VERSION,
        extra_env: dict[str, str] | None = None,
        args: list[str] | None = None,
        approval_mode: str | None = "plan",
        width: int = 160,
        height: int = 50,
        wrapper: list[str] | None = None,
    ) -> None:
        self.version = version
        self.project = project
        self.home = home
        env = {
            "HOME": str(home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "LANG": "C.UTF-8",
            "GOOGLE_GEMINI_BASE_URL": base_url,
            "GEMINI_API_KEY": API_KEY,
            # No relaunch of node with a larger heap: one process to watch and to end.
            "GEMINI_CLI_NO_RELAUNCH": "true",
            "NO_UPDATE_NOTIFIER": "1",
            **tmux.inherited_env(),
            **(extra_env or {}),
        }
        command = [
            *(wrapper or []),  # e.g. strace, to see what it connects to
            str(gemini_binary(version)),
            *(["--approval-mode", approval_mode] if approval_mode else []),
            *(args or []),
        ]
        self._start("gemreal", env, command, project, width, height)

    def wait_ready(self, timeout: float = 60.0) -> str:
        """Wait for the input prompt (``Type your message``)."""
        return self.wait_screen(r"Type your message", timeout, visible=True)

    def _wait_typed(self, line: str) -> None:
        self.wait_screen(lambda shown: line in shown, 10, visible=True)
        time.sleep(0.2)  # the input box settles before Enter submits it

    def close(self) -> None:
        # The pane's process leads its own process group; a wrapped CLI (strace) can outlive
        # the hang-up of kill-server, so the group is ended too.
        pane = self.pane_pid()
        super().close()
        for signal_number in (signal.SIGTERM, signal.SIGKILL):
            try:
                if not pane.isdigit() or os.getpgid(int(pane)) != int(pane):
                    break  # gone, or no longer the group this pane started
                os.killpg(int(pane), signal_number)
            except (ProcessLookupError, PermissionError):
                break
            time.sleep(0.2)
