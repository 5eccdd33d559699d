"""``planmode init gemini``: the hooks Gemini CLI needs, and planmode's rules in its policy.

Three things, each idempotent (a second run changes nothing):

* the project's ``<root>/.gemini/settings.json`` gets planmode's hooks (docs/gemini.md, "The
  adapter"): ``SessionStart``, ``BeforeTool`` for every tool (a day's
  ``timeout``: the user reviews a plan in the editor meanwhile), ``AfterTool`` for
  ``exit_plan_mode`` and ``enter_plan_mode``, ``SessionEnd``; each ``{"type": "command",
  "name": "planmode", "command": "<this planmode> hook gemini [--launcher PATH]"}``. Merging
  never loses anything: the user's keys and hooks stay, a planmode hook already there (the same
  event and matcher) is updated in place; a file that is not a JSON object, or whose ``hooks``
  has the wrong type, is reported and left untouched (exit 1); a file that is a symbolic link is
  written where it points.
* the user's ``~/.gemini/policies/planmode.toml`` (``$GEMINI_CLI_HOME`` for ``~``): planmode's
  rules, in the user tier of Gemini's policy (a project's own policies are not read by 0.61.0):
  plan mode may run ``<launcher> <record>`` and nothing else of the shell; an
  ``exit_plan_mode`` the hook approved (it carries ``planmode_approval``) needs no second
  question; an edit in Default mode the hook vouches for (``planmode_accept_edits``: the plan
  was approved with auto-accept edits) runs without asking. Each rule acts only on a call
  planmode's hook rewrote; the file is planmode's alone (one without its first line is not
  replaced).
* the launcher (:mod:`.shell`) in this user's data directory, outside every project.

``--no-shell-prefix`` leaves the shell rule and the launcher out: planning then has no shell,
as Gemini's plan mode itself.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Any

from planmode.agents.claude_code.init import (
    SetupError,
    hook_command,
    json_type,
    read_settings,
    render,
    write_settings,
)
from planmode.agents.gemini import shell, versions

NAME = "planmode"
POLICY_FILE = "planmode.toml"
POLICY_HEADER = "# planmode's rules for Gemini CLI, written by `planmode init gemini`"
# (event, matcher, timeout in milliseconds or None for Gemini's default)
HOOKS: tuple[tuple[str, str | None, int | None], ...] = (
    ("SessionStart", None, None),
    ("BeforeTool", "*", 86_400_000),
    ("AfterTool", f"{versions.EXIT_TOOL}|{versions.ENTER_TOOL}", None),
    ("SessionEnd", None, None),
)


def gemini_home(environ: os._Environ[str] | dict[str, str] = os.environ) -> str:
    """Gemini CLI's own directory: ``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini``."""
    home = environ.get("GEMINI_CLI_HOME") or environ.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".gemini")


def command(base: str, launcher: str | None) -> str:
    """The hook's command: ``<planmode> hook gemini``, with the launcher the policy names."""
    words = f"{base} gemini"
    return f"{words} --launcher {shlex.quote(launcher)}" if launcher else words


def is_planmode_hook(command: object) -> bool:
    """A command that runs planmode's Gemini hook (by any path, or ``python -m planmode``)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if words[:1] and os.path.basename(words[0]) == "planmode":
        return words[1:3] == ["hook", "gemini"]
    return words[1:5] == ["-m", "planmode", "hook", "gemini"]


def merge(settings: dict[str, Any], hook: str) -> dict[str, Any]:
    """``settings`` with planmode's hooks in it (a new dict; ``settings`` is not changed)."""
    import json

    merged: dict[str, Any] = json.loads(json.dumps(settings))
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SetupError(f"'hooks' is {json_type(hooks)}, not an object")
    for event, matcher, timeout in HOOKS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SetupError(f"'hooks.{event}' is {json_type(groups)}, not an array")
        entry: dict[str, Any] = {"type": "command", "name": NAME, "command": hook}
        if timeout is not None:
            entry["timeout"] = timeout
        if not _update_ours(groups, matcher, entry):
            group: dict[str, Any] = {"hooks": [entry]}
            if matcher is not None:
                group = {"matcher": matcher, **group}
            groups.append(group)
    return merged


def _update_ours(groups: list[Any], matcher: str | None, entry: dict[str, Any]) -> bool:
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


def policy(launcher: str | None) -> str:
    """planmode's rules for Gemini's policy engine (see the module)."""
    parts = [
        POLICY_HEADER,
        '# (docs/gemini.md, "The adapter"). Each rule acts only on a call planmode\'s hook',
        "# rewrote; running `planmode init gemini` again rewrites this file.",
        "",
    ]
    if launcher is not None:
        parts += [
            "# Plan mode may run a shell line only through planmode's launcher, which runs a",
            "# line planmode's hook allowed and recorded, in the OS sandbox, and nothing else.",
            "[[rule]]",
            'toolName = "run_shell_command"',
            f"commandPrefix = {_toml_string(shell.policy_prefix(launcher))}",
            'decision = "allow"',
            "priority = 900",
            'modes = ["plan"]',
            "",
        ]
    parts += [
        "# An exit the user approved in the editor: Gemini does not ask a second time.",
        "[[rule]]",
        f'toolName = "{versions.EXIT_TOOL}"',
        f'argsPattern = \'"{versions.APPROVAL_KEY}":"\'',
        'decision = "allow"',
        "priority = 900",
        'modes = ["plan"]',
        "",
        "# An edit while the plan approved in the editor auto-accepts edits.",
        "[[rule]]",
        f"toolName = {_toml_list(sorted(versions.EDIT_TOOLS))}",
        f'argsPattern = \'"{versions.ACCEPT_EDITS_KEY}":"\'',
        'decision = "allow"',
        "priority = 900",
        'modes = ["default"]',
        "",
    ]
    return "\n".join(parts)


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(_toml_string(item) for item in items) + "]"


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as stream:
            return stream.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise SetupError(f"cannot read {path}: {exc}") from exc


def check_policy_file(path: str) -> str | None:
    """The planmode policy file's text now (None: none yet); SetupError when a file of that
    name is not planmode's."""
    current = _read_text(path)
    if current is not None and not current.startswith(POLICY_HEADER):
        raise SetupError(
            f"{path} is not planmode's (its first line is not {POLICY_HEADER!r}); move it "
            "aside and run `planmode init gemini` again"
        )
    return current


def write_text(path: str, text: str) -> None:
    """Atomically, through a symbolic link (kept with the user's dotfiles, say)."""
    import tempfile

    path = os.path.realpath(path)
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".planmode.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
        except FileNotFoundError:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def launcher_path(root: str) -> str:
    """Where the launcher goes: this user's data directory, which must lie outside the project
    (the agent must not be able to change what sandboxes it)."""
    path = shell.default_path()
    project = os.path.realpath(root)
    real = os.path.realpath(path)
    if real == project or real.startswith(project.rstrip(os.sep) + os.sep):
        raise SetupError(
            f"the shell launcher would be {path}, inside the project {project}, where the "
            "agent can write; set XDG_DATA_HOME to a directory outside the project, or run "
            "`planmode init gemini --no-shell-prefix`"
        )
    try:
        return shell.policy_prefix(path)
    except ValueError as exc:
        raise SetupError(
            f"the shell launcher's path {exc}: Gemini's policy names it as the line's first "
            "word; set XDG_DATA_HOME to a plain path, or run `planmode init gemini "
            "--no-shell-prefix`"
        ) from None


def _policy_paths_warning(home: str) -> str | None:
    """Gemini reads the user's policies from ``policyPaths`` instead, when its settings name
    any: planmode's file is then not read."""
    try:
        settings = read_settings(os.path.join(home, "settings.json"))
    except SetupError:
        return None
    paths = settings.get("policyPaths")
    if isinstance(paths, list) and paths:
        return (
            f"your Gemini settings name policyPaths ({', '.join(map(str, paths))}), so Gemini "
            f"does not read {os.path.join(home, 'policies')}: copy {POLICY_FILE} there"
        )
    return None


def run(root: str, show: bool = False, hook: str | None = None, with_shell: bool = True) -> int:
    """The verb: merge and write (or print); 1 with the reason on stderr when it cannot."""
    settings_path = os.path.join(os.path.abspath(root), ".gemini", "settings.json")
    home = gemini_home()
    policy_path = os.path.join(home, "policies", POLICY_FILE)
    try:
        if not os.path.isdir(root):
            raise SetupError(f"the project directory {os.path.abspath(root)} does not exist")
        launcher = launcher_path(root) if with_shell else None
        base = hook or hook_command()
        hook_line = command(base, launcher)
        current = read_settings(settings_path)
        merged = merge(current, hook_line)
        current_policy = check_policy_file(policy_path)
        rules = policy(launcher)
    except SetupError as exc:
        sys.stderr.write(f"planmode init: {exc}; nothing was changed\n")
        return 1
    if show:
        sys.stdout.write(f"# {settings_path}\n{render(merged)}\n# {policy_path}\n{rules}")
        return 0
    try:
        if launcher is not None and shell.install(launcher):
            sys.stdout.write(
                f"wrote the shell launcher {launcher}: planning shell lines run in the sandbox\n"
            )
        if current_policy != rules:
            write_text(policy_path, rules)
            sys.stdout.write(f"wrote planmode's rules to {policy_path}\n")
        if merged != current or not os.path.exists(settings_path):
            write_settings(settings_path, merged)
            events = ", ".join(event for event, _, _ in HOOKS)
            sys.stdout.write(
                f"wrote the planmode hooks to {settings_path}: {events}, each running {hook_line}\n"
            )
        else:
            sys.stdout.write(f"{settings_path} already has the planmode hooks ({hook_line})\n")
    except OSError as exc:
        sys.stderr.write(f"planmode init: cannot write: {exc}\n")
        return 1
    warning = _policy_paths_warning(home)
    if warning is not None:
        sys.stderr.write(f"planmode init: {warning}\n")
    return 0
