"""What every agent's ``planmode init`` shares (each agent's ``init.py`` says what it writes):

* the command an agent runs: this very ``planmode`` (:func:`hook_command`), and whether a
  command already in a settings file is planmode's hook (:func:`runs_hook`);
* a settings file read as a JSON object (:func:`read_json`: a file that is not one is a
  :class:`SetupError`, and nothing is written) and planmode's hooks merged into its ``hooks``
  (:func:`merge_hooks`: the user's keys and other hooks stay, planmode's are updated in place);
* a file written atomically, through a symbolic link where it is one (kept with the user's
  dotfiles, say), keeping its mode (:func:`write_text`, :func:`write_json`);
* a script of planmode's own (a shell prefix, a launcher) installed outside every project
  (:func:`install_script`, :func:`outside`): the agent must not be able to change what
  sandboxes it.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from collections.abc import Callable, Iterable
from typing import Any


class SetupError(Exception):
    """A file cannot be merged or written where it would be; nothing was written."""


def json_type(value: object) -> str:
    """What JSON calls the type of a parsed value (the user wrote JSON, not Python)."""
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)


def hook_command(argv0: str | None = None, python: str | None = None) -> str:
    """``planmode hook``, as a shell command naming this ``planmode`` by absolute path (a
    virtualenv's ``planmode`` is seldom on the ``PATH`` an agent runs hooks with), or
    ``<python> -m planmode hook`` when it was started that way. An agent's own hook adds its
    name (``planmode hook codex``)."""
    script = argv0 if argv0 is not None else sys.argv[0]
    if os.path.basename(script).startswith("planmode") and os.access(script, os.X_OK):
        return f"{shlex.quote(os.path.abspath(script))} hook"
    return f"{shlex.quote(python or sys.executable)} -m planmode hook"


def runs_hook(command: object, *agent: str) -> bool:
    """A command that runs ``planmode hook <agent…>`` (``planmode`` by any path, or
    ``<python> -m planmode``), perhaps with options after it; ``planmode hook`` alone is Claude
    Code's, so ``planmode hook codex`` is not."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if words[:1] and os.path.basename(words[0]) == "planmode":
        rest = words[1:]
    elif words[1:3] == ["-m", "planmode"]:
        rest = words[3:]
    else:
        return False
    verb = ["hook", *agent]
    after = rest[len(verb) :]
    return rest[: len(verb)] == verb and (not after or after[0].startswith("--"))


def merge_hooks(
    settings: dict[str, Any],
    hooks: Iterable[tuple[str, str | None, dict[str, Any]]],
    ours: Callable[[object], bool],
) -> dict[str, Any]:
    """``settings`` with each ``(event, matcher, hook)`` in its ``hooks`` object (a new dict;
    ``settings`` is not changed): a hook whose command is ``ours`` already in a group of that
    event and matcher is updated in place, else a group of its own is appended."""
    merged: dict[str, Any] = json.loads(json.dumps(settings))
    found = merged.setdefault("hooks", {})
    if not isinstance(found, dict):
        raise SetupError(f"'hooks' is {json_type(found)}, not an object")
    for event, matcher, hook in hooks:
        groups = found.setdefault(event, [])
        if not isinstance(groups, list):
            raise SetupError(f"'hooks.{event}' is {json_type(groups)}, not an array")
        if not _update_ours(groups, matcher, hook, ours):
            group: dict[str, Any] = {"hooks": [hook]}
            if matcher is not None:
                group = {"matcher": matcher, **group}
            groups.append(group)
    return merged


def _update_ours(
    groups: list[Any], matcher: str | None, hook: dict[str, Any], ours: Callable[[object], bool]
) -> bool:
    """Update planmode's hook already under ``matcher``; False when there is none."""
    for group in groups:
        if not isinstance(group, dict) or group.get("matcher") != matcher:
            continue
        listed = group.get("hooks")
        if not isinstance(listed, list):
            continue
        for index, found in enumerate(listed):
            if isinstance(found, dict) and ours(found.get("command")):
                listed[index] = {**found, **hook}
                return True
    return False


def read_text(path: str) -> str | None:
    """The file's text; None when there is none."""
    try:
        with open(path, encoding="utf-8") as stream:
            return stream.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise SetupError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def read_json(path: str) -> dict[str, Any]:
    """A settings file's JSON object; ``{}`` when it is missing or blank."""
    text = read_text(path)
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SetupError(f"{path} is not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise SetupError(f"{path} holds {json_type(data)}, not a JSON object")
    return data


def render_json(settings: dict[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def write_json(path: str, settings: dict[str, Any]) -> None:
    write_text(path, render_json(settings))


def write_text(path: str, text: str, new_mode: int = 0o644) -> None:
    """Atomically: the agent never reads half a file. A file that is a symbolic link is written
    where it points and stays a link; it keeps its mode (``new_mode`` when it is new)."""
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
            os.chmod(tmp, new_mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def outside(path: str, project: str) -> bool:
    """Whether ``path`` lies outside ``project`` (both as they really are: links resolved)."""
    real = os.path.realpath(path)
    root = os.path.realpath(project)
    return real != root and not real.startswith(root.rstrip(os.sep) + os.sep)


def install_script(path: str, script: str) -> bool:
    """Write an executable ``script`` to ``path`` (0755, atomically); False when it is there
    already."""
    try:
        with open(path, encoding="utf-8") as stream:
            if stream.read() == script and os.access(path, os.X_OK):
                return False
    except OSError:
        pass
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    temp = f"{path}.{os.getpid()}.tmp"
    with open(temp, "w", encoding="utf-8") as stream:
        stream.write(script)
    os.chmod(temp, 0o755)
    os.replace(temp, path)
    return True
