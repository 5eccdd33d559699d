"""Settings' permission rules: whether ``Tool(content)`` covers one tool call.

The forms (the ``permissions`` setting, docs/protocol.md §7): ``Bash(prefix:*)`` (a word
prefix), ``Bash(cmd)`` (an exact command, ``*`` a wildcard), a path pattern for the file tools
(``Edit(src/**)``, relative to the workspace; ``//abs`` and ``~/`` absolute),
``WebFetch(domain:host)``, an agent type for Agent/Task, and the bare tool name (every call).
A Bash line is split into its simple commands (:mod:`planmode.core.shell`); deny and ask rules
fail closed on a line whose commands cannot all be known, allow rules never match one, and an
allow rule lets a line through only when it covers every command in it.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planmode.core import shell
from planmode.core.modes import parse_rule
from planmode.core.paths import UnsafePath, inside, resolve_path

# The tool that starts a subagent, under both its names: a rule for either covers both.
AGENT_TOOLS = frozenset({"Agent", "Task"})
# Tools whose rule content is a path pattern (`Edit(src/**)`).
PATH_TOOLS = frozenset({"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep"})


def _bash_rule_matches(content: str, command: str) -> bool:
    """A Bash rule's content: ``prefix:*`` (word prefix) or an exact command."""
    command = " ".join(command.split())
    if content.endswith(":*"):
        prefix = " ".join(content[:-2].split())
        return command == prefix or command.startswith(prefix + " ")
    if "*" in content:
        return fnmatch.fnmatchcase(command, " ".join(content.split()))
    return command == " ".join(content.split())


def _path_rule_matches(content: str, raw: object, root: Path) -> bool:
    try:
        target = resolve_path(raw, root)
    except UnsafePath:
        return False
    pattern = content.removeprefix("./")
    if pattern.startswith("//"):
        candidates = [str(target)]
        pattern = pattern[1:]
    elif pattern.startswith("~/"):
        candidates = [str(target)]
        pattern = os.path.expanduser(pattern)
    else:
        if not inside(target, root):
            return False
        candidates = [target.relative_to(root).as_posix()]
    return any(_glob_match(pattern, c) for c in candidates)


def _glob_match(pattern: str, path: str) -> bool:
    regex = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            regex += ".*"
            i += 2
        elif pattern[i] == "*":
            regex += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            regex += "[^/]"
            i += 1
        else:
            regex += re.escape(pattern[i])
            i += 1
    return re.fullmatch(regex, path) is not None or re.fullmatch(regex + "/.*", path) is not None


def path_rule_covers(content: str, path: str, project: Path, cwd: Path | None = None) -> bool:
    """Whether a deny or ask rule's path pattern may cover the absolute ``path``, read every
    way the agent could read either (fail closed; docs/claude-code.md, "The user's own
    rules"): the path as spelled, with its symlinks followed, and with ``..`` folded first;
    the pattern ``//abs`` and ``~/…`` absolute, ``/x`` both absolute and relative to the
    project, ``x`` and ``./x`` relative to the project and to the working directory, and a
    pattern without a slash (gitignore's rule) at any depth under them."""
    if (
        content.strip("/.*") == ""
        or any(c in content for c in "[]{}!\\")
        or (content.startswith("~") and content != "~" and not content.startswith("~/"))
    ):
        return True  # every path, or a syntax this matcher does not read (~user, [a]): covered
    spelled = os.path.normpath(path)
    readings = {spelled, os.path.realpath(path), os.path.realpath(spelled)}
    pattern = content.removeprefix("./").rstrip("/")
    absolute: list[str] = []
    relative: list[str] = []
    if pattern.startswith("//"):
        absolute.append(pattern[1:])
    elif pattern == "~" or pattern.startswith("~/"):
        absolute.append(os.path.expanduser(pattern))
    elif pattern.startswith("/"):
        absolute.append(pattern)
        relative.append(pattern.lstrip("/"))
    else:
        relative.append(pattern)
        if "/" not in pattern:
            relative.append("**/" + pattern)
    bases = {str(project), os.path.realpath(project)}
    if cwd is not None:
        bases |= {str(cwd), os.path.realpath(cwd)}
    for reading in readings:
        if any(_glob_match(p, reading) for p in absolute):
            return True
        for base in bases:
            if inside(Path(reading), Path(base)):
                rest = Path(reading).relative_to(base).as_posix()
                if any(_glob_match(p, rest) for p in relative):
                    return True
    return False


def rule_matches(
    rule: str,
    tool: str,
    tool_input: Mapping[str, Any],
    root: Path,
    fail_closed: bool = False,
) -> bool:
    """Whether ``rule`` covers this call. With ``fail_closed`` (deny and ask rules) a Bash line
    whose commands cannot all be known — unparsable, a computed program or shell code — counts
    as covered."""
    parsed = parse_rule(rule)
    if parsed is None:
        return False
    rule_tool, content = parsed
    if rule_tool != tool and not (rule_tool in AGENT_TOOLS and tool in AGENT_TOOLS):
        return False
    if content is None or content in {"", "*"}:
        return True
    if tool == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str):
            return False
        forms = shell.rule_forms(command)
        if forms is None:
            # Not every command the line runs is known (docs/read-only-bash.md, "Permission
            # rules"): deny and ask rules cover it, allow rules do not.
            return fail_closed
        parts = list(shell.simple_commands(command)) or [command]
        return any(_bash_rule_matches(content, part) for part in parts + forms)
    if tool in PATH_TOOLS:
        raw = tool_input.get("file_path", tool_input.get("path", tool_input.get("notebook_path")))
        return _path_rule_matches(content, raw, root)
    if tool == "WebFetch" and content.startswith("domain:"):
        url = tool_input.get("url")
        host = re.sub(r"^[a-z]+://", "", url).split("/", 1)[0] if isinstance(url, str) else ""
        domain = content.removeprefix("domain:")
        return host == domain or host.endswith("." + domain)
    return tool_input.get("subagent_type") == content if tool in AGENT_TOOLS else False


def allow_rule_allows(rule: str, tool: str, tool_input: Mapping[str, Any], root: Path) -> bool:
    """An allow rule lets a Bash line through only when every part of it matches."""
    if not rule_matches(rule, tool, tool_input, root):
        return False
    if tool != "Bash":
        return True
    command = str(tool_input.get("command", ""))
    parsed = parse_rule(rule)
    content = parsed[1] if parsed else None
    if content in {None, "", "*"}:
        return True
    assert content is not None
    parts = list(shell.simple_commands(command))
    single = shell.is_single_simple_command(command)
    return single and all(_bash_rule_matches(content, p) for p in parts)
