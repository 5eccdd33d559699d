"""``planmode init claude-code``: the hooks Claude Code needs, merged into its settings file.

Writes into ``<root>/.claude/settings.json`` (``--local``: ``settings.local.json``) the three
hooks of docs/claude-code.md — ``PreToolUse`` for every tool, ``PermissionRequest`` for
``ExitPlanMode`` (a day's timeout: the user reviews in the editor) and ``SessionEnd`` — each
running this very ``planmode``: its absolute path (a virtualenv's ``planmode`` is seldom on the
``PATH`` Claude Code runs hooks with), or ``<python> -m planmode`` when it was started that way.

Merging never loses anything: the user's keys and other hooks stay as they are, a planmode
hook already there is updated in place (so running it again changes nothing), and a file that
is not a JSON object is reported and left untouched. No plansDirectory is set: Claude Code
writes its own plan file without asking wherever it keeps it, and the server adopts that file.

It also installs planmode's shell prefix (:mod:`planmode.agents.claude_code.shell_prefix`) in
this user's data directory and names it as ``env.CLAUDE_CODE_SHELL_PREFIX``: Claude Code then
runs every Bash command through it, and while the session plans it runs in the OS sandbox
(``--no-shell-prefix`` leaves it out).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from typing import Any

from planmode.agents.claude_code import shell_prefix

# (event, matcher, timeout in seconds or None for Claude Code's default)
HOOKS: tuple[tuple[str, str | None, int | None], ...] = (
    ("PreToolUse", "*", None),
    ("PermissionRequest", "ExitPlanMode", 86400),
    ("SessionEnd", None, None),
)


class SetupError(Exception):
    """The settings file cannot be merged; nothing was written."""


def json_type(value: object) -> str:
    """What JSON calls the type of a parsed value (the user wrote JSON, not Python)."""
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)


def hook_command(argv0: str | None = None, python: str | None = None) -> str:
    """The shell command Claude Code runs: this ``planmode`` by absolute path."""
    script = argv0 if argv0 is not None else sys.argv[0]
    if os.path.basename(script).startswith("planmode") and os.access(script, os.X_OK):
        return f"{shlex.quote(os.path.abspath(script))} hook"
    return f"{shlex.quote(python or sys.executable)} -m planmode hook"


def is_planmode_hook(command: object) -> bool:
    """A command that runs ``planmode hook`` (by any path, or ``python -m planmode hook``)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if len(words) >= 2 and words[-1] == "hook" and os.path.basename(words[-2]) == "planmode":
        return True
    return words[-3:] == ["-m", "planmode", "hook"]


def merge(settings: dict[str, Any], command: str, prefix: str | None = None) -> dict[str, Any]:
    """``settings`` with the planmode hooks in it (a new dict; ``settings`` is not changed);
    with ``prefix``, also planmode's shell prefix in its ``env`` (docs/claude-code.md)."""
    merged: dict[str, Any] = json.loads(json.dumps(settings))
    if prefix is not None:
        _merge_prefix(merged, prefix)
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SetupError(f"'hooks' is {json_type(hooks)}, not an object")
    for event, matcher, timeout in HOOKS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SetupError(f"'hooks.{event}' is {json_type(groups)}, not an array")
        entry: dict[str, Any] = {"type": "command", "command": command}
        if timeout is not None:
            entry["timeout"] = timeout
        if not _update_ours(groups, matcher, entry):
            group: dict[str, Any] = {"hooks": [entry]}
            if matcher is not None:
                group = {"matcher": matcher, **group}
            groups.append(group)
    return merged


def _merge_prefix(settings: dict[str, Any], prefix: str) -> None:
    """``env.CLAUDE_CODE_SHELL_PREFIX``: planmode's script, which runs every Bash command of a
    planning session in the OS sandbox. Another program already there is the user's: it is
    not replaced behind their back."""
    env = settings.setdefault("env", {})
    if not isinstance(env, dict):
        raise SetupError(f"'env' is {json_type(env)}, not an object")
    current = env.get(shell_prefix.ENV_PREFIX)
    if isinstance(current, str) and current.strip():
        if os.path.basename(current.strip()) != shell_prefix.NAME:
            raise SetupError(
                f"'env.{shell_prefix.ENV_PREFIX}' already runs {current!r}; planmode sandboxes "
                f"planning Bash through its own prefix ({prefix}): remove yours, or run "
                "`planmode init claude-code --no-shell-prefix` (planning Bash then runs "
                "unsandboxed on Claude Code 2.1.198 and newer)"
            )
    elif current is not None and not isinstance(current, str):
        raise SetupError(f"'env.{shell_prefix.ENV_PREFIX}' is {json_type(current)}, not a string")
    env[shell_prefix.ENV_PREFIX] = prefix


def _update_ours(groups: list[Any], matcher: str | None, entry: dict[str, Any]) -> bool:
    """Update a planmode hook already under ``matcher``; False when there is none."""
    for group in groups:
        if not isinstance(group, dict) or group.get("matcher") != matcher:
            continue
        listed = group.get("hooks")
        if not isinstance(listed, list):
            continue
        for index, hook in enumerate(listed):
            if isinstance(hook, dict) and is_planmode_hook(hook.get("command")):
                listed[index] = {**hook, **entry}
                return True
    return False


def settings_path(root: str, local: bool) -> str:
    name = "settings.local.json" if local else "settings.json"
    return os.path.join(root, ".claude", name)


def read_settings(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise SetupError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SetupError(f"{path} is not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise SetupError(f"{path} holds {json_type(data)}, not a JSON object")
    return data


def write_settings(path: str, settings: dict[str, Any]) -> None:
    """Atomically: Claude Code never reads half a file. A settings file that is a symbolic
    link (kept with the user's dotfiles, say) is written where it points and stays a link."""
    path = os.path.realpath(path)
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".settings.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(render(settings))
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
        except FileNotFoundError:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def render(settings: dict[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def prefix_path(root: str) -> str:
    """Where the shell prefix goes: this user's data directory, which must lie outside the
    project (Claude Code drops a prefix the session could write, and the agent must not be
    able to change what sandboxes it)."""
    path = shell_prefix.default_path()
    project = os.path.realpath(root)
    real = os.path.realpath(path)
    if real == project or real.startswith(project.rstrip(os.sep) + os.sep):
        raise SetupError(
            f"the shell prefix would be {path}, inside the project {project}, where the agent "
            "can write and Claude Code does not accept it; set XDG_DATA_HOME to a directory "
            "outside the project, or run `planmode init claude-code --no-shell-prefix`"
        )
    return path


def run(
    root: str,
    local: bool = False,
    show: bool = False,
    command: str | None = None,
    with_prefix: bool = True,
) -> int:
    """The verb: install the shell prefix, merge and write (or print); 1 with the reason on
    stderr when it cannot."""
    path = settings_path(os.path.abspath(root), local)
    hook = command or hook_command()
    try:
        if not os.path.isdir(root):
            # A mistyped --root must not become a new directory tree holding only settings.
            raise SetupError(f"the project directory {os.path.abspath(root)} does not exist")
        prefix = prefix_path(root) if with_prefix else None
        current = read_settings(path)
        merged = merge(current, hook, prefix)
    except SetupError as exc:
        sys.stderr.write(f"planmode init: {exc}; nothing was changed\n")
        return 1
    if show:
        sys.stdout.write(render(merged))
        return 0
    try:
        installed = prefix is not None and shell_prefix.install(prefix)
    except OSError as exc:
        sys.stderr.write(f"planmode init: cannot write {prefix}: {exc}; nothing was changed\n")
        return 1
    if installed:
        sys.stdout.write(f"wrote the shell prefix {prefix}: planning Bash runs in the sandbox\n")
    if merged == current and os.path.exists(path):
        sys.stdout.write(f"{path} already has the planmode hooks ({hook})\n")
        return 0
    try:
        write_settings(path, merged)
    except OSError as exc:
        sys.stderr.write(f"planmode init: cannot write {path}: {exc}; it was not changed\n")
        return 1
    what = f" and env.{shell_prefix.ENV_PREFIX} ({prefix})" if prefix else ""
    sys.stdout.write(
        f"wrote the planmode hooks to {path}: PreToolUse, PermissionRequest (ExitPlanMode), "
        f"SessionEnd, each running {hook}{what}\n"
    )
    return 0
