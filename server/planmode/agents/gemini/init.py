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

from planmode.agents import setup
from planmode.agents.gemini import shell, versions
from planmode.agents.setup import SetupError, hook_command

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
    return setup.runs_hook(command, "gemini")


def merge(settings: dict[str, Any], hook: str) -> dict[str, Any]:
    """``settings`` with planmode's hooks in it (a new dict; ``settings`` is not changed)."""
    hooks = []
    for event, matcher, timeout in HOOKS:
        entry: dict[str, Any] = {"type": "command", "name": NAME, "command": hook}
        if timeout is not None:
            entry["timeout"] = timeout
        hooks.append((event, matcher, entry))
    return setup.merge_hooks(settings, hooks, is_planmode_hook)


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


def check_policy_file(path: str) -> str | None:
    """The planmode policy file's text now (None: none yet); SetupError when a file of that
    name is not planmode's."""
    current = setup.read_text(path)
    if current is not None and not current.startswith(POLICY_HEADER):
        raise SetupError(
            f"{path} is not planmode's (its first line is not {POLICY_HEADER!r}); move it "
            "aside and run `planmode init gemini` again"
        )
    return current


def launcher_path(root: str) -> str:
    """Where the launcher goes: this user's data directory, which must lie outside the project
    (the agent must not be able to change what sandboxes it)."""
    path = shell.default_path()
    if not setup.outside(path, root):
        project = os.path.realpath(root)
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
        settings = setup.read_json(os.path.join(home, "settings.json"))
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
        current = setup.read_json(settings_path)
        merged = merge(current, hook_line)
        current_policy = check_policy_file(policy_path)
        rules = policy(launcher)
    except SetupError as exc:
        sys.stderr.write(f"planmode init: {exc}; nothing was changed\n")
        return 1
    if show:
        sys.stdout.write(
            f"# {settings_path}\n{setup.render_json(merged)}\n# {policy_path}\n{rules}"
        )
        return 0
    try:
        if launcher is not None and shell.install(launcher):
            sys.stdout.write(
                f"wrote the shell launcher {launcher}: planning shell lines run in the sandbox\n"
            )
        if current_policy != rules:
            setup.write_text(policy_path, rules)
            sys.stdout.write(f"wrote planmode's rules to {policy_path}\n")
        if merged != current or not os.path.exists(settings_path):
            setup.write_json(settings_path, merged)
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
