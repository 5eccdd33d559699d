"""``planmode init codex``: the hooks Codex needs, merged into the project's ``.codex/hooks.json``,
and trusted in the user's Codex configuration (docs/codex.md, "Setting it up").

The hooks (docs/codex.md, "The adapter"), each running this very ``planmode`` by absolute path
(``<planmode> hook codex``, or ``<python> -m planmode hook codex`` when started that way):
``PreToolUse`` and ``PermissionRequest`` for every tool, ``Stop`` with a day's ``timeout`` (the
turn that proposed a plan waits while the user reviews it in the editor), ``UserPromptSubmit``
(the approved plan reaches the model with the prompt that implements it) and ``SessionEnd``
(3 s: Codex allows no more). Merging never loses anything: the user's keys and other hooks
stay, a planmode hook already there is updated in place, and a file that is not a JSON object
is reported and left untouched.

Codex runs a hook of a project file only once the user trusted it: their ``config.toml``
(``$CODEX_HOME``, else ``~/.codex``) keeps ``[hooks.state."<hooks file>:<event>:<group>:
<hook>"] trusted_hash``, the SHA-256 of the hook as Codex normalises it (:func:`trust`);
otherwise Codex stops at start with "Hooks need review". The user asked for exactly these
hooks, so their trust is written as Codex's own "Trust all and continue" writes it, and said
(``--no-trust`` leaves it to that dialog). Only those tables are added or updated; the rest of
the file stays byte for byte, and a file that is not TOML is left untouched. Codex loads a
project's ``.codex/`` only in a trusted project: when the user's configuration does not trust
the project yet, the message says how it gets trusted (Codex asks in a git repository).

Both files are written atomically, through a symbolic link where one is (kept with the user's
dotfiles, say); nothing is written when either cannot be merged.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tomllib
from typing import Any

from planmode.agents import setup
from planmode.agents.setup import SetupError, hook_command

# (event, timeout in seconds or None for Codex's default, status message or None)
HOOKS: tuple[tuple[str, int | None, str | None], ...] = (
    ("PreToolUse", None, None),
    ("PermissionRequest", None, None),
    ("Stop", 86400, None),
    ("UserPromptSubmit", None, None),
    ("SessionEnd", 3, None),
)
# The labels Codex keys its hook state with, per event (measured on 0.169.0).
LABELS = {
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
# A command hook's timeout as Codex fills it in before hashing, and the most it keeps
# (seconds): 600 by default, but SessionEnd 1, at most 3.
DEFAULT_TIMEOUT = 600
SESSION_END_TIMEOUT = (1, 3)


def codex_hook_command(argv0: str | None = None, python: str | None = None) -> str:
    """The shell command Codex runs: this ``planmode`` by absolute path, ``hook codex``."""
    return f"{hook_command(argv0, python)} codex"


def is_planmode_hook(command: object) -> bool:
    """A command that runs ``planmode hook codex`` (by any path, or ``-m planmode``)."""
    return setup.runs_hook(command, "codex")


def merge(hooks_file: dict[str, Any], command: str) -> dict[str, Any]:
    """``hooks_file`` (the parsed ``.codex/hooks.json``) with the planmode hooks in it (a new
    dict; the input is not changed)."""
    hooks = []
    for event, timeout, status in HOOKS:
        entry: dict[str, Any] = {"type": "command", "command": command}
        if timeout is not None:
            entry["timeout"] = timeout
        if status is not None:
            entry["statusMessage"] = status
        hooks.append((event, None, entry))  # Codex's hooks here take no matcher
    return setup.merge_hooks(hooks_file, hooks, is_planmode_hook)


def hook_hash(event: str, matcher: object, hook: dict[str, Any]) -> str:
    """The ``trusted_hash`` Codex keeps for one command hook: SHA-256 of the canonical JSON
    (sorted keys, no spaces) of ``{"event_name", "matcher"?, "hooks": [the hook with Codex's
    defaults filled in]}`` (docs/codex.md, "Hook trust")."""
    low, high = SESSION_END_TIMEOUT if event == "SessionEnd" else (DEFAULT_TIMEOUT, 1 << 31)
    timeout = hook.get("timeout", low)
    normalized: dict[str, Any] = {
        "type": "command",
        "command": hook.get("command"),
        "timeout": max(1, min(int(timeout), high)),
        "async": bool(hook.get("async", False)),
    }
    if hook.get("statusMessage"):
        normalized["statusMessage"] = hook["statusMessage"]
    identity: dict[str, Any] = {"event_name": LABELS[event], "hooks": [normalized]}
    if matcher is not None:
        identity["matcher"] = matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def trust(hooks_path: str, hooks_file: dict[str, Any]) -> dict[str, str]:
    """The ``[hooks.state]`` entries that trust each planmode hook of ``hooks_file``, keyed as
    Codex keys them: ``<hooks file>:<event label>:<group index>:<hook index>``."""
    entries: dict[str, str] = {}
    for event, groups in hooks_file.get("hooks", {}).items():
        if event not in LABELS or not isinstance(groups, list):
            continue
        for group_index, group in enumerate(groups):
            listed = group.get("hooks") if isinstance(group, dict) else None
            for hook_index, hook in enumerate(listed if isinstance(listed, list) else []):
                if isinstance(hook, dict) and is_planmode_hook(hook.get("command")):
                    key = f"{hooks_path}:{LABELS[event]}:{group_index}:{hook_index}"
                    entries[key] = hook_hash(event, group.get("matcher"), hook)
    return entries


def codex_home() -> str:
    return os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def read_config(path: str) -> tuple[str, dict[str, Any]]:
    """The user's ``config.toml``: its text and what it says ("" and {} when missing)."""
    text = setup.read_text(path)
    if text is None:
        return "", {}
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(f"{path} is not valid TOML ({exc})") from exc


def trusted(config: dict[str, Any], key: str) -> object:
    hooks = config.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    entry = state.get(key) if isinstance(state, dict) else None
    return entry.get("trusted_hash") if isinstance(entry, dict) else None


def merge_trust(path: str, text: str, entries: dict[str, str]) -> str:
    """``text`` (the user's ``config.toml``) with each entry's ``trusted_hash`` set: an
    existing table of that key gets its line replaced (or added), a missing one is appended;
    nothing else changes. The result is parsed again: a file whose ``hooks.state`` cannot take
    the tables (an inline table, say) is reported, not written."""
    config = tomllib.loads(text) if text else {}
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    for key, digest in entries.items():
        if trusted(config, key) == digest:
            continue
        value = f"trusted_hash = {json.dumps(digest)}\n"
        at = _table_line(lines, key)
        if at is None:
            if lines and lines[-1].strip():
                lines.append("\n")
            lines += [f"[hooks.state.{json.dumps(key)}]\n", value]
            continue
        end = next(
            (i for i in range(at + 1, len(lines)) if lines[i].lstrip().startswith("[")),
            len(lines),
        )
        found = next(
            (i for i in range(at + 1, end) if lines[i].split("=")[0].strip() == "trusted_hash"),
            None,
        )
        if found is None:
            lines.insert(at + 1, value)
        else:
            lines[found] = value
    merged = "".join(lines)
    try:
        check = tomllib.loads(merged)
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(f"{path} cannot take the hooks' trust ({exc})") from exc
    wrong = [key for key, digest in entries.items() if trusted(check, key) != digest]
    if wrong:
        raise SetupError(f"{path} cannot take the hooks' trust (hooks.state: {wrong[0]!r})")
    return merged


def _table_line(lines: list[str], key: str) -> int | None:
    """The line of the ``[hooks.state."<key>"]`` table header, however it is quoted."""
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.startswith("[hooks") or stripped.startswith("[["):
            continue
        try:
            header = tomllib.loads(stripped)
        except tomllib.TOMLDecodeError:
            continue
        state = header.get("hooks", {}).get("state", {})
        if isinstance(state, dict) and list(state) == [key] and state[key] == {}:
            return index
    return None


def project_trusted(config: dict[str, Any], root: str) -> bool:
    projects = config.get("projects")
    entry = projects.get(root) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("trust_level") == "trusted"


def run(root: str, show: bool = False, command: str | None = None, with_trust: bool = True) -> int:
    """The verb: merge and write (or print) the hooks and their trust; 1 with the reason on
    stderr when it cannot, and then nothing is written."""
    hook = command or codex_hook_command()
    try:
        if not os.path.isdir(root):
            # A mistyped --root must not become a new directory tree holding only hooks.
            raise SetupError(f"the project directory {os.path.abspath(root)} does not exist")
        project = os.path.realpath(root)
        hooks_path = os.path.join(project, ".codex", "hooks.json")
        current = setup.read_json(hooks_path)
        merged = merge(current, hook)
        config_path = os.path.join(codex_home(), "config.toml")
        text, config = read_config(config_path)
        missing = {
            key: digest
            for key, digest in trust(hooks_path, merged).items()
            if trusted(config, key) != digest
        }
        new_text = merge_trust(config_path, text, missing) if missing and with_trust else text
    except SetupError as exc:
        sys.stderr.write(f"planmode init: {exc}; nothing was changed\n")
        return 1
    if show:
        sys.stdout.write(setup.render_json(merged))
        for key, digest in missing.items() if with_trust else ():
            sys.stdout.write(
                f"# {config_path}\n[hooks.state.{json.dumps(key)}]\n"
                f"trusted_hash = {json.dumps(digest)}\n"
            )
        return 0
    changed = merged != current or not os.path.exists(hooks_path)
    try:
        if changed:
            setup.write_json(hooks_path, merged)
        if new_text != text:
            setup.write_text(config_path, new_text, new_mode=0o600)
    except OSError as exc:
        sys.stderr.write(f"planmode init: cannot write: {exc}\n")
        return 1
    events = ", ".join(event for event, _, _ in HOOKS)
    if changed:
        sys.stdout.write(
            f"wrote the planmode hooks to {hooks_path}: {events}, each running {hook}\n"
        )
    else:
        sys.stdout.write(f"{hooks_path} already has the planmode hooks ({hook})\n")
    if new_text != text:
        sys.stdout.write(
            f"trusted them in {config_path} (hooks.state), as Codex's 'Trust all and continue' "
            "would\n"
        )
    elif missing:
        sys.stdout.write(
            "not trusted: at its next start Codex shows 'Hooks need review'; choose "
            "'Trust all and continue' there\n"
        )
    if not project_trusted(config, project):
        sys.stdout.write(
            f"note: Codex loads {hooks_path} only in a trusted project, and {config_path} does "
            f"not trust {project} yet: "
            + (
                'Codex asks at its next start ("Trust this folder?"): trust it there\n'
                if in_git_repository(project)
                else f'add [projects.{json.dumps(project)}] trust_level = "trusted" to it '
                "(Codex asks only in a git repository)\n"
            )
        )
    return 0


def in_git_repository(path: str) -> bool:
    """Whether ``path`` is in a git working tree (its own ``.git`` or one above it)."""
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
