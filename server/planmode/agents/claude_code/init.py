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

import os
import sys
from typing import Any

from planmode.agents import setup
from planmode.agents.claude_code import shell_prefix
from planmode.agents.setup import SetupError, hook_command, json_type

# (event, matcher, timeout in seconds or None for Claude Code's default)
HOOKS: tuple[tuple[str, str | None, int | None], ...] = (
    ("PreToolUse", "*", None),
    ("PermissionRequest", "ExitPlanMode", 86400),
    ("SessionEnd", None, None),
)


def is_planmode_hook(command: object) -> bool:
    """A command that runs ``planmode hook`` (by any path, or ``python -m planmode hook``)."""
    return setup.runs_hook(command)


def merge(settings: dict[str, Any], command: str, prefix: str | None = None) -> dict[str, Any]:
    """``settings`` with the planmode hooks in it (a new dict; ``settings`` is not changed);
    with ``prefix``, also planmode's shell prefix in its ``env`` (docs/claude-code.md)."""
    hooks = []
    for event, matcher, timeout in HOOKS:
        entry: dict[str, Any] = {"type": "command", "command": command}
        if timeout is not None:
            entry["timeout"] = timeout
        hooks.append((event, matcher, entry))
    merged = setup.merge_hooks(settings, hooks, is_planmode_hook)
    if prefix is not None:
        _merge_prefix(merged, prefix)
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


def settings_path(root: str, local: bool) -> str:
    name = "settings.local.json" if local else "settings.json"
    return os.path.join(root, ".claude", name)


def prefix_path(root: str) -> str:
    """Where the shell prefix goes: this user's data directory, which must lie outside the
    project (Claude Code drops a prefix the session could write, and the agent must not be
    able to change what sandboxes it)."""
    path = shell_prefix.default_path()
    if not setup.outside(path, root):
        project = os.path.realpath(root)
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
        current = setup.read_json(path)
        merged = merge(current, hook, prefix)
    except SetupError as exc:
        sys.stderr.write(f"planmode init: {exc}; nothing was changed\n")
        return 1
    if show:
        sys.stdout.write(setup.render_json(merged))
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
        setup.write_json(path, merged)
    except OSError as exc:
        sys.stderr.write(f"planmode init: cannot write {path}: {exc}; it was not changed\n")
        return 1
    what = f" and env.{shell_prefix.ENV_PREFIX} ({prefix})" if prefix else ""
    sys.stdout.write(
        f"wrote the planmode hooks to {path}: PreToolUse, PermissionRequest (ExitPlanMode), "
        f"SessionEnd, each running {hook}{what}\n"
    )
    return 0
