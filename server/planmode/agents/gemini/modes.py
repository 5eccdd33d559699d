"""Gemini CLI's approval modes, and the one a session starts in.

No hook payload carries Gemini's approval mode (docs/gemini.md, "Hook events and payloads").
What a hook can learn of it, and where this adapter learns it:

* the mode it **started in** (here, at ``SessionStart``): the ``--approval-mode`` (or
  ``--yolo``) of Gemini's own command line — the hook's parent process, read from ``/proc`` —
  else the ``general.defaultApprovalMode`` of its settings files, read as Gemini reads them
  (its ``loadCliConfig``: a ``yolo`` there is ignored, ``plan`` needs ``general.plan.enabled``);
* each change a hook sees: ``exit_plan_mode`` (the session plans), the results of
  ``exit_plan_mode`` and ``enter_plan_mode``, and the line Gemini adds to its transcript when
  the user leaves plan mode with Shift+Tab (:mod:`.transcript`), in :mod:`.hook`.

Entering plan mode with Shift+Tab or ``/plan`` shows nowhere until the model calls
``exit_plan_mode``; docs/gemini.md says what that costs.

Stdlib ``os`` only, and the hook's own JSON codec: the hook imports this at ``SessionStart``.
"""

from __future__ import annotations

import os

# Gemini's approval modes (its ApprovalMode and the command line's spellings) as the
# protocol's PermissionMode.
PERMISSION_MODES = {
    "plan": "plan",
    "default": "default",
    "autoEdit": "acceptEdits",
    "auto_edit": "acceptEdits",
    "yolo": "bypassPermissions",
}
# A shell runs the hook (`bash -c <command>`, which may exec it): Gemini is the nearest
# ancestor that is not one.
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish"})


def _stat_parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stream:
            stat = stream.read()
    except OSError:
        return None
    fields = stat.rsplit(b")", 1)[-1].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


def _argv(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as stream:
            raw = stream.read()
    except OSError:
        return None
    return [word.decode("utf-8", "replace") for word in raw.split(b"\0") if word]


def gemini_argv(start: int | None = None) -> list[str] | None:
    """The command line of the Gemini CLI process that runs this hook: the nearest ancestor
    that is no shell, when its command line runs Gemini CLI; None where that cannot be read
    (no ``/proc``) or it is not Gemini."""
    pid = os.getppid() if start is None else start
    for _ in range(4):
        argv = _argv(pid)
        if not argv:
            return None
        if os.path.basename(argv[0]) not in SHELLS:
            runs_gemini = any("gemini" in os.path.basename(word) for word in argv[:3])
            return argv if runs_gemini else None
        parent = _stat_parent(pid)
        if parent is None or parent <= 1:
            return None
        pid = parent
    return None


def mode_from_argv(argv: list[str]) -> str | None:
    """The approval mode Gemini's command line asks for (its own spelling), None when it asks
    for none: ``--approval-mode X`` (or ``=X``, ``--approvalMode``), ``--yolo``/``-y``."""
    found = None
    words = iter(argv)
    for word in words:
        if word == "--":
            break
        if word in ("--approval-mode", "--approvalMode"):
            found = next(words, None)
        elif word.startswith(("--approval-mode=", "--approvalMode=")):
            found = word.split("=", 1)[1]
        elif word in ("--yolo", "-y") and found is None:
            found = "yolo"
    return found


def settings_files(project: str, environ: os._Environ[str] | dict[str, str]) -> list[str]:
    """Gemini's settings files, highest precedence first: the system's, the workspace's, the
    user's (under ``$GEMINI_CLI_HOME``, else ``$HOME``), the system defaults."""
    home = environ.get("GEMINI_CLI_HOME") or environ.get("HOME") or os.path.expanduser("~")
    return [
        environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json",
        os.path.join(project, ".gemini", "settings.json"),
        os.path.join(home, ".gemini", "settings.json"),
        environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or "/etc/gemini-cli/system-defaults.json",
    ]


class Unreadable(Exception):
    """A settings file that exists but cannot be read as JSON (Gemini allows comments)."""


def _general(path: str) -> dict[str, object]:
    from planmode.agents.hookclient import loads

    try:
        with open(path, "rb") as stream:
            raw = stream.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise Unreadable(path) from exc
    if not raw.strip():
        return {}
    try:
        data = loads(raw)
    except (ValueError, RecursionError) as exc:
        raise Unreadable(path) from exc
    general = data.get("general") if isinstance(data, dict) else None
    return general if isinstance(general, dict) else {}


def mode_from_settings(
    argv_mode: str | None,
    project: str,
    environ: os._Environ[str] | dict[str, str] = os.environ,
) -> str | None:
    """The mode Gemini starts in (its own spelling): the command line's ``argv_mode``, else
    ``general.defaultApprovalMode`` of the first settings file that sets one (a ``yolo`` there
    is ignored), else "default"; ``plan`` only while ``general.plan.enabled`` is not false.
    None when a settings file cannot be read and the command line names no mode."""
    try:
        generals = [_general(path) for path in settings_files(project, environ)]
    except Unreadable:
        if argv_mode is None:
            return None
        generals = []
    value: object = argv_mode
    if value is None:
        setting = (g["defaultApprovalMode"] for g in generals if "defaultApprovalMode" in g)
        value = next(setting, None)
        value = None if value == "yolo" else value
    if value == "plan":
        plan = next((g["plan"] for g in generals if isinstance(g.get("plan"), dict)), {})
        return "default" if isinstance(plan, dict) and plan.get("enabled") is False else "plan"
    if value is None:
        return "default"
    return value if isinstance(value, str) and value in PERMISSION_MODES else None


def starting_mode(
    project: str, environ: os._Environ[str] | dict[str, str] = os.environ
) -> str | None:
    """The protocol's mode the Gemini session running this hook started in; None when it
    cannot be told (no ``/proc``, an unreadable settings file, an unknown mode)."""
    argv = gemini_argv()
    if argv is None:
        return None
    mode = mode_from_settings(mode_from_argv(argv), project, environ)
    return PERMISSION_MODES.get(mode) if mode is not None else None
