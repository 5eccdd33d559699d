"""``planmode init opencode``: planmode's plugin and shell, named in the project's OpenCode
config.

Installs into this user's data directory (``~/.local/share/planmode/opencode/``, outside
every project):

* ``planmode.js`` — the plugin (docs/opencode.md, "planmode's adapter"): node's built-in
  modules only, so it needs no npm package of its own;
* ``shell/bash`` — the shell that runs the plugin's planning bash calls in the OS sandbox
  (:mod:`.shell`).

and merges into ``<root>/opencode.json`` (the project's config file, not a config directory):
``plugin`` gets the plugin's ``file://`` URL, ``shell`` the shell's path, ``$schema`` OpenCode's
when the file is new. Merging never loses anything: the user's keys and plugins stay, a planmode
plugin already listed is updated in place (so running it again changes nothing), a file that is
not a JSON object — or whose ``plugin`` or ``shell`` has the wrong type — is reported and left
untouched, a ``shell`` of the user's own is not replaced (``--no-shell-prefix`` leaves planmode's
out: planning bash is then rewritten into the sandbox, docs/opencode.md). A config file that is
a symbolic link is written where it points; ``opencode.jsonc`` (comments) is not rewritten.

Nothing is written into a config directory (``.opencode/``, ``~/.config/opencode``): OpenCode
installs ``@opencode-ai/plugin`` from npm into each of those at start and, once any plugin is
configured, waits for that before loading plugins (docs/opencode.md, "Starting offline") —
planmode adds no directory to that list and its plugin imports no package.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from planmode.agents import setup
from planmode.agents.opencode import shell
from planmode.agents.setup import SetupError, json_type

SCHEMA = "https://opencode.ai/config.json"
PLUGIN = "planmode.js"
# What marks a plugin entry as planmode's (its file, by any path or URL).
OURS = f"/planmode/opencode/{PLUGIN}"


def install_directory() -> Path:
    """Where the plugin and the shell go: this user's data directory."""
    import platformdirs

    return Path(platformdirs.user_data_dir("planmode")) / "opencode"


def plugin_source() -> str:
    """The plugin's text, as the package ships it."""
    return (Path(__file__).with_name(PLUGIN)).read_text(encoding="utf-8")


def is_ours(spec: object) -> bool:
    return isinstance(spec, str) and spec.endswith(OURS)


def merge(config: dict[str, Any], plugin: str, shell_path: str | None) -> dict[str, Any]:
    """``config`` with planmode's plugin (``plugin``, a ``file://`` URL) and, with
    ``shell_path``, planmode's shell in it (a new dict; ``config`` is not changed)."""
    merged: dict[str, Any] = json.loads(json.dumps(config))
    if not merged:
        merged["$schema"] = SCHEMA
    plugins = merged.setdefault("plugin", [])
    if not isinstance(plugins, list):
        raise SetupError(f"'plugin' is {json_type(plugins)}, not an array")
    listed = [index for index, spec in enumerate(plugins) if is_ours(spec)]
    if listed:
        plugins[listed[0]] = plugin
        for index in reversed(listed[1:]):
            del plugins[index]
    else:
        plugins.append(plugin)
    if shell_path is not None:
        current = merged.get("shell")
        if current is not None and not isinstance(current, str):
            raise SetupError(f"'shell' is {json_type(current)}, not a string")
        theirs = isinstance(current, str) and current.strip() and current != shell_path
        if theirs and not str(current).endswith(f"/planmode/opencode/shell/{shell.NAME}"):
            raise SetupError(
                f"'shell' already names {current!r}; planmode runs planning bash in the OS "
                f"sandbox through its own shell ({shell_path}): remove yours, or run "
                "`planmode init opencode --no-shell-prefix` (planning bash is then rewritten "
                "into the sandbox, and OpenCode's permission rules see that line)"
            )
        merged["shell"] = shell_path
    return merged


def config_path(root: str) -> str:
    return os.path.join(root, "opencode.json")


def run(root: str, show: bool = False, with_shell: bool = True) -> int:
    """The verb: install the plugin and the shell, merge and write (or print); 1 with the
    reason on stderr when it cannot."""
    project = os.path.abspath(root)
    path = config_path(project)
    target = install_directory()
    plugin_file = target / PLUGIN
    shell_file = target / "shell" / shell.NAME
    try:
        if not os.path.isdir(project):
            raise SetupError(f"the project directory {project} does not exist")
        jsonc = os.path.join(project, "opencode.jsonc")
        if os.path.exists(jsonc) and not os.path.exists(path):
            raise SetupError(
                f"{jsonc} has comments, which planmode does not rewrite; add to it "
                f'"plugin": ["{plugin_file.as_uri()}"]'
                + (f' and "shell": "{shell_file}"' if with_shell else "")
            )
        if not setup.outside(str(target), project):
            raise SetupError(
                f"planmode's plugin would be in {target}, inside the project, where the agent "
                "can change it; set XDG_DATA_HOME to a directory outside the project"
            )
        current = setup.read_json(path)
        merged = merge(current, plugin_file.as_uri(), str(shell_file) if with_shell else None)
    except SetupError as exc:
        sys.stderr.write(f"planmode init: {exc}; nothing was changed\n")
        return 1
    if show:
        sys.stdout.write(setup.render_json(merged))
        return 0
    try:
        wrote = _install(plugin_file, plugin_source())
        if with_shell and shell.install(str(shell_file)):
            wrote.append(str(shell_file))
    except OSError as exc:
        sys.stderr.write(f"planmode init: cannot write {target}: {exc}; nothing was changed\n")
        return 1
    for written in wrote:
        sys.stdout.write(f"wrote {written}\n")
    if merged == current and os.path.exists(path):
        sys.stdout.write(f"{path} already names planmode's plugin ({plugin_file})\n")
    else:
        try:
            setup.write_json(path, merged)
        except OSError as exc:
            sys.stderr.write(f"planmode init: cannot write {path}: {exc}; it was not changed\n")
            return 1
        what = f" and its shell {shell_file}" if with_shell else ""
        sys.stdout.write(f"wrote planmode's plugin {plugin_file}{what} into {path}\n")
    sys.stdout.write(
        "start OpenCode with OPENCODE_EXPERIMENTAL_PLAN_MODE=1 (its plan agent then writes a "
        "plan file and calls plan_exit, which the editor reviews), e.g. "
        "`OPENCODE_EXPERIMENTAL_PLAN_MODE=1 opencode --agent plan`\n"
    )
    return 0


def _install(path: Path, text: str) -> list[str]:
    """Write ``text`` to ``path`` atomically unless it is there; the paths written."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return []
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.chmod(temp, 0o644)
    os.replace(temp, path)
    return [str(path)]
