"""The real Codex CLI (@openai/codex), interactive in a private tmux server, as a user runs it.

Everything it needs to start offline, straight into its prompt, is written into a private
``HOME`` (docs/codex.md, "Starting it offline"):

* ``$CODEX_HOME/config.toml``: the fake Responses API as a custom model provider, a model from
  Codex's built-in list (``gpt-5.5``: with another name Codex offers no ``apply_patch``), no
  update check, analytics and feedback off, the model-migration notice already seen, no
  plugins (their sync clones from GitHub at start-up), the project trusted (or its
  ``.codex/hooks.json`` is not loaded) and each hook trusted by its hash (or Codex asks the
  user to review it first);
* ``TMPDIR`` outside ``CODEX_HOME``: Codex refuses to create its helper aliases
  (``codex-linux-sandbox``, ``apply_patch``) under the temporary directory, and then every
  sandboxed command fails with ``bwrap: execvp codex-linux-sandbox: No such file or directory``;
* ``HTTPS_PROXY`` pointing at the fake API, which refuses and logs every tunnel: what Codex
  still fetches on its own (the start-up announcement) never leaves the machine, and a test
  sees it in the fake API's log;
* ``--no-daemon``: otherwise Codex copies its 400 MB binary into ``CODEX_HOME`` and starts a
  background app server that outlives the terminal.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.e2e import tmux
from tests.e2e.codex.fake_api import MODEL

API_KEY_ENV = "PLANMODE_FAKE_OPENAI_API_KEY"
API_KEY = "sk-planmode-e2e-" + "x" * 32
PROVIDER = "planmode-fake"

# Hook events and the labels Codex uses for them in its hook-state keys (`[hooks.state]`).
HOOK_EVENTS = {
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "user_prompt_submit",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "stop",
}
# A command hook's timeout when it names none (seconds), as Codex fills it in before hashing,
# and the most it allows: a SessionEnd hook gets 1 s, at most 3 (measured on 0.169.0).
DEFAULT_HOOK_TIMEOUT = {"SessionEnd": 1}
MAX_HOOK_TIMEOUT = {"SessionEnd": 3}


def versions() -> list[str]:
    return (Path(__file__).parent / "versions.txt").read_text().split()


def cache_dir() -> Path:
    return tmux.cache_dir("codex")


def codex_binary(version: str) -> Path:
    return cache_dir() / version / "node_modules" / ".bin" / "codex"


def installed(version: str) -> str | None:
    """None when ``codex --version`` of the cached install answers ``version``, else why not."""
    binary = codex_binary(version)
    if not binary.exists():
        return f"{binary} is missing (tests/e2e/codex/install.sh {version} installs it)"
    return tmux.version_problem(binary, lambda out: out.split()[-1:] == [version])


def hook_trust(hooks_file: Path, hooks: Mapping[str, list[dict[str, Any]]]) -> dict[str, str]:
    """The ``[hooks.state]`` entries that trust each command hook of ``hooks_file``.

    Codex runs a hook of a user or project file only once the user trusted it, by the hash
    Codex keeps in the user's config.toml under ``"<file>:<event label>:<group>:<hook>"``: the
    SHA-256 of the canonical JSON (sorted keys, no spaces) of ``{"event_name": label,
    "matcher"?: …, "hooks": [{"type": "command", "command": …, "timeout": …, "async": …,
    "statusMessage"?: …}]}`` — what its "Trust all and continue" writes (docs/codex.md).
    """
    trusted: dict[str, str] = {}
    for event, groups in hooks.items():
        label = HOOK_EVENTS[event]
        for group_index, group in enumerate(groups):
            for hook_index, hook in enumerate(group["hooks"]):
                timeout = hook.get("timeout", DEFAULT_HOOK_TIMEOUT.get(event, 600))
                normalized: dict[str, Any] = {
                    "type": "command",
                    "command": hook["command"],
                    "timeout": max(1, min(int(timeout), MAX_HOOK_TIMEOUT.get(event, 1 << 31))),
                    "async": bool(hook.get("async", False)),
                }
                if hook.get("statusMessage"):
                    normalized["statusMessage"] = hook["statusMessage"]
                identity: dict[str, Any] = {"event_name": label, "hooks": [normalized]}
                if group.get("matcher") is not None:
                    identity["matcher"] = group["matcher"]
                canonical = json.dumps(
                    identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False
                )
                digest = hashlib.sha256(canonical.encode()).hexdigest()
                trusted[f"{hooks_file}:{label}:{group_index}:{hook_index}"] = f"sha256:{digest}"
    return trusted


def write_project_hooks(project: Path, hooks: Mapping[str, list[dict[str, Any]]]) -> Path:
    """``<project>/.codex/hooks.json`` (Claude Code's shape: event → matcher groups)."""
    hooks_file = project / ".codex" / "hooks.json"
    hooks_file.parent.mkdir(parents=True, exist_ok=True)
    hooks_file.write_text(json.dumps({"hooks": hooks}, indent=2))
    return hooks_file


def _toml(value: str) -> str:
    return json.dumps(value)


def write_config(
    codex_home: Path,
    project: Path,
    base_url: str,
    *,
    model: str = MODEL,
    trusted_hooks: Mapping[str, str] | None = None,
    extra: str = "",
) -> Path:
    """The user's ``config.toml``: offline, straight into the prompt, the project trusted."""
    codex_home.mkdir(parents=True, exist_ok=True)
    lines = [
        f"model = {_toml(model)}",
        f"model_provider = {_toml(PROVIDER)}",
        "check_for_update_on_startup = false",
        "",
        f"[model_providers.{PROVIDER}]",
        'name = "planmode fake Responses API"',
        f"base_url = {_toml(base_url)}",
        f"env_key = {_toml(API_KEY_ENV)}",
        'wire_api = "responses"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[feedback]",
        "enabled = false",
        "",
        # Plugins sync a curated repository from GitHub (git, then the GitHub API, then
        # chatgpt.com) at every start.
        "[features]",
        "plugins = false",
        "",
        # Seen: otherwise "Meet GPT-6 Sol … Try new model / Use existing model" at start-up.
        "[notice.model_migrations]",
        f"{_toml(model)} = " + _toml("gpt-6-sol"),
        "",
        "[tui]",
        "show_tooltips = false",
        "",
        f"[projects.{_toml(str(project))}]",
        'trust_level = "trusted"',
        "",
    ]
    for key, digest in (trusted_hooks or {}).items():
        lines += [f"[hooks.state.{_toml(key)}]", f"trusted_hash = {_toml(digest)}", ""]
    config = codex_home / "config.toml"
    config.write_text("\n".join(lines) + extra)
    return config


class Codex(tmux.TmuxPane):
    """One interactive ``codex`` in its own tmux server; the screen is read with capture-pane.

    ``home`` is the user's private HOME (``CODEX_HOME`` is ``home/.codex``), ``work`` a
    directory for its ``TMPDIR``, which must not contain ``home``.
    """

    program = "codex"
    # Inline mode writes the conversation into the scrollback.
    scrollback = 400
    status_name = "footer"

    def __init__(
        self,
        version: str,
        project: Path,
        home: Path,
        base_url: str,
        work: Path,
        *,
        model: str = MODEL,
        hooks: Mapping[str, list[dict[str, Any]]] | None = None,
        extra_config: str = "",
        extra_env: Mapping[str, str] | None = None,
        args: list[str] | None = None,
        configured: bool = False,
    ) -> None:
        """``configured``: ``CODEX_HOME/config.toml`` and the project's hooks are written
        already (the user's own, and what ``planmode init codex`` merged into them)."""
        self.version = version
        self.model = model
        self.project = project
        self.home = home
        self.codex_home = home / ".codex"
        tmpdir = work / f"codex-tmp-{uuid.uuid4().hex[:6]}"
        tmpdir.mkdir(parents=True)
        if self.codex_home.resolve().is_relative_to(tmpdir.resolve()):
            raise ValueError("CODEX_HOME must not be under TMPDIR (Codex refuses its helpers)")
        trusted: dict[str, str] = {}
        if hooks:
            trusted = hook_trust(write_project_hooks(project, hooks), hooks)
        self.config = self.codex_home / "config.toml"
        if not configured:
            write_config(
                self.codex_home,
                project,
                base_url,
                model=model,
                trusted_hooks=trusted,
                extra=extra_config,
            )
        proxy = base_url.removesuffix("/v1")
        env = {
            "HOME": str(home),
            "CODEX_HOME": str(self.codex_home),
            "TMPDIR": str(tmpdir),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            API_KEY_ENV: API_KEY,
            # The only network Codex may use is the fake API; anything else it tries goes
            # to the fake API's proxy side, which refuses it (and logs it).
            "HTTPS_PROXY": proxy,
            "HTTP_PROXY": proxy,
            "NO_PROXY": "127.0.0.1,localhost",
            **tmux.inherited_env(),
            **(extra_env or {}),
        }
        command = [str(codex_binary(version)), "--no-alt-screen", "--no-daemon", *(args or [])]
        self._start("codexreal", env, command, project)

    def status(self) -> str:
        """The footer under the prompt (the visible pane's last lines): model and mode."""
        lines = [line for line in self.visible().splitlines() if line.strip()]
        return "\n".join(lines[-3:])

    def _wait_typed(self, line: str) -> None:
        """The composer shows the line after its prompt."""
        self.wait_screen(lambda shown: f"› {line}" in shown, 10, visible=True)

    def ready(self, timeout: float = 30.0) -> None:
        """Wait for the prompt's footer (the model's name): Codex is up and waiting."""
        self.wait_status(f"(?i){re.escape(self.model)} ", timeout)

    def plan_mode(self, timeout: float = 10.0) -> None:
        """Enter Codex's Plan mode with its ``/plan`` command (shift+tab cycles there too)."""
        self._tmux("send-keys", "-l", "/plan")
        self.wait_screen(r"/plan\s+switch to Plan mode", timeout, visible=True)
        self._tmux("send-keys", "Enter")
        self.wait_status(r"Plan mode", timeout)

    def transcript_path(self) -> Path | None:
        found = sorted((self.codex_home / "sessions").glob("*/*/*/rollout-*.jsonl"))
        return found[-1] if found else None

    def transcript(self) -> list[dict[str, Any]]:
        path = self.transcript_path()
        if path is None:
            return []
        lines = []
        for line in path.read_text().splitlines():
            try:
                lines.append(json.loads(line))
            except ValueError:
                continue  # a line still being written
        return lines
