"""Claude Code's own permission rules and prompts, which plan mode's allow never loosens.

Measured on Claude Code 2.1.197 and 2.1.332 (docs/claude-code.md, "The user's own rules"): a
``PreToolUse`` hook's ``allow`` does not get past a deny or ask rule of Claude Code's settings
(Claude Code still denies or asks), but it does skip the prompt Claude Code shows before a
read outside its working directories — by the Read tool or by a Bash line naming such a path.

So a *vouched* allow (:data:`planmode.core.permissions.VOUCHED`: the plan file, a proven
read-only Bash line, a planning agent, a granted prompt — the allows the Claude Code hook
passes on) of a call from Claude Code stands only where Claude Code itself would neither deny
nor ask on those grounds. Where it would, the answer is Claude Code's: ``deny``
(:data:`RULE_DENY`) or ``ask`` (:data:`RULE_ASK`, :data:`RULE_OUTSIDE`), on which the hook
says nothing, so Claude Code's own rules and prompts decide. :class:`Caller` is core's
:class:`~planmode.core.agents.AgentRules` for such a call.

Claude Code's settings are read at every check (a few small files the user may change at any
time), highest precedence first: managed (``managed-settings.json`` and
``managed-settings.d/*.json`` in ``/etc/claude-code``), the project's
``.claude/settings.local.json`` and ``.claude/settings.json``, the user's
``<config dir>/settings.json``. Rules add up across files. Where unsure it fails closed: a
settings file that cannot be read, a rule that cannot be parsed, a word of a Bash line that
bash computes or a directory the line moves to without naming it covers the call.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from planmode.agents.claude_code import adoption
from planmode.core.modes import parse_rule
from planmode.core.paths import inside
from planmode.core.permissions import RULE_GRANT, Decision, ask, deny
from planmode.core.rules import AGENT_TOOLS, path_rule_covers, rule_matches
from planmode.core.shell.paths import operands

RULE_DENY = "claudeCode.deny"
RULE_ASK = "claudeCode.ask"
RULE_OUTSIDE = "claudeCode.workingDirectories"

# Claude Code applies a rule of one of these tools to all of them.
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS"})
# Beyond these a Bash line's paths are not followed further: it covers the call.
MAX_DIRECTORIES = 16
MAX_MATCHES = 1000


def managed_directory() -> Path:
    """Where Claude Code reads managed (policy) settings on this system."""
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode")
    return adoption.MANAGED_SETTINGS.parent


@dataclass(frozen=True)
class Caller:
    """A call from Claude Code's hook, as core's :class:`~planmode.core.agents.AgentRules`:
    its project directory, its configuration directory, the directory its shell is in (the
    hook payload's ``cwd``), and where managed settings live."""

    name: ClassVar[str] = "Claude Code"

    project: Path
    config: Path
    cwd: Path | None = None
    managed: Path = field(default_factory=managed_directory)

    @classmethod
    def from_hook(
        cls, root: Path, project: str | None, config: str | None, cwd: str | None
    ) -> Caller:
        """From checkTool's params: ``projectDir`` (else the workspace root),
        ``claudeConfigDir`` (else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``), ``cwd``."""
        where = Path(os.path.normpath(project)) if project and os.path.isabs(project) else root
        shell = Path(os.path.normpath(cwd)) if cwd and os.path.isabs(cwd) else None
        return cls(where, adoption.config_dir(config), shell)

    def objection(
        self,
        tool: str,
        tool_input: Mapping[str, Any],
        vouched: str,
        own_plan_file: bool = False,
    ) -> Decision | None:
        """Claude Code's own answer where it would deny or ask (:func:`objection`)."""
        return objection(tool, tool_input, vouched, self, own_plan_file)

    def settings_files(self) -> list[Path]:
        """Claude Code's settings files, highest precedence first."""
        drop_ins = self.managed / "managed-settings.d"
        try:
            names = sorted(
                n for n in os.listdir(drop_ins) if n.endswith(".json") and not n.startswith(".")
            )
        except OSError:
            names = []
        return [
            self.managed / "managed-settings.json",
            *(drop_ins / name for name in names),
            self.project / ".claude" / "settings.local.json",
            self.project / ".claude" / "settings.json",
            self.config / "settings.json",
        ]


@dataclass(frozen=True)
class Rule:
    text: object  # as written: a rule that is not a string covers every call
    source: Path


@dataclass(frozen=True)
class Settings:
    """The permission rules of Claude Code's settings files, added up."""

    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    # permissions.additionalDirectories: working directories besides the project.
    directories: tuple[Path, ...] = ()
    # Files whose rules are unknown, with why.
    unreadable: tuple[str, ...] = ()


def read_settings(files: list[Path]) -> Settings:
    """The rules of ``files``. A file that is missing has none; one that cannot be read or
    whose ``permissions`` are not what Claude Code reads is unreadable."""
    deny_rules: list[Rule] = []
    ask_rules: list[Rule] = []
    directories: list[Path] = []
    unreadable: list[str] = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text) if text.strip() else {}
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            unreadable.append(f"{path} ({exc})")
            continue
        permissions = data.get("permissions") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(permissions, dict | None):
            unreadable.append(f"{path} (its permissions are not an object)")
            continue
        for kind, into in (("deny", deny_rules), ("ask", ask_rules)):
            listed = (permissions or {}).get(kind, [])
            if not isinstance(listed, list):
                unreadable.append(f"{path} (permissions.{kind} is not a list)")
                continue
            into.extend(Rule(text, path) for text in listed)
        extra = (permissions or {}).get("additionalDirectories", [])
        # Only absolute ones: a directory this cannot place is not a working directory.
        for raw in extra if isinstance(extra, list) else []:
            if isinstance(raw, str) and os.path.isabs(os.path.expanduser(raw)):
                directories.append(Path(os.path.normpath(os.path.expanduser(raw))))
    return Settings(tuple(deny_rules), tuple(ask_rules), tuple(directories), tuple(unreadable))


@dataclass(frozen=True)
class Touched:
    """The files a call may read or write, as absolute paths (not normalised: the kernel's
    reading follows symlinks before ``..``), and why that is not known, if it is not."""

    paths: tuple[str, ...] = ()
    unknown: str | None = None


def objection(
    tool: str,
    tool_input: Mapping[str, Any],
    vouched: str,
    caller: Caller,
    own_plan_file: bool = False,
) -> Decision | None:
    """Claude Code's own answer where it would deny or ask for this call despite a hook's
    allow; None where plan mode's allow (``vouched``, one of
    :data:`planmode.core.permissions.VOUCHED`) stands. ``own_plan_file``: the call writes
    Claude Code's own plan file, which it writes without asking wherever it is."""
    settings = read_settings(caller.settings_files())
    if settings.unreadable:
        return ask(
            f"Claude Code's settings {'; '.join(settings.unreadable)} cannot be read, so its "
            "permission rules are unknown: Claude Code decides.",
            RULE_ASK,
        )
    cwd = caller.cwd or caller.project
    touched = touched_paths(tool, tool_input, cwd)
    for rule in settings.deny:
        if covers(rule.text, tool, tool_input, touched, caller, vouched):
            return deny(
                f"Claude Code's deny rule {rule.text!r} in {rule.source}",
                f"{tool} is not permitted (Claude Code denies it itself)",
                RULE_DENY,
            )
    for rule in settings.ask:
        if covers(rule.text, tool, tool_input, touched, caller, vouched):
            return ask(
                f"Claude Code's ask rule {rule.text!r} in {rule.source} covers this {tool} "
                "call: Claude Code asks the user.",
                RULE_ASK,
            )
    if own_plan_file:
        return None
    working = [caller.project, *settings.directories]
    shown = ", ".join(str(d) for d in working)
    if touched.unknown is not None:
        return ask(
            f"{touched.unknown}, so it may name a file outside Claude Code's working "
            f"directories ({shown}): Claude Code decides.",
            RULE_OUTSIDE,
        )
    for path in touched.paths:
        if not in_working_directories(path, working):
            return ask(
                f"{tool} names {os.path.normpath(path)}, outside Claude Code's working "
                f"directories ({shown}): Claude Code asks the user before it reads there.",
                RULE_OUTSIDE,
            )
    return None


def covers(
    text: object,
    tool: str,
    tool_input: Mapping[str, Any],
    touched: Touched,
    caller: Caller,
    vouched: str,
) -> bool:
    """Whether Claude Code's rule ``text`` may cover this call (fail closed)."""
    parsed = parse_rule(text) if isinstance(text, str) else None
    if parsed is None:
        return True  # a rule that cannot be read could say anything
    rule_tool, content = parsed
    everything = content is None or content.strip() in {"", "*"}
    if tool == "Bash" and rule_tool == "Bash":
        assert isinstance(text, str)
        return everything or rule_matches(text, tool, tool_input, caller.project, fail_closed=True)
    if tool in AGENT_TOOLS and rule_tool in AGENT_TOOLS:
        assert isinstance(text, str)
        return everything or rule_matches(text, tool, tool_input, caller.project, fail_closed=True)
    # Path rules: the file tools' own, and Read's (and, for a granted command that may write,
    # Edit's) over the files a Bash line names.
    if tool in EDIT_TOOLS:
        family = EDIT_TOOLS
    elif tool == "Bash":
        family = READ_TOOLS | (EDIT_TOOLS if vouched == RULE_GRANT else frozenset())
    else:
        family = frozenset({tool})
    if rule_tool not in family:
        return False
    if everything or touched.unknown is not None:
        return True
    assert content is not None
    cwd = caller.cwd or caller.project
    return any(path_rule_covers(content, p, caller.project, cwd) for p in touched.paths)


def in_working_directories(path: str, working: list[Path]) -> bool:
    """Every reading of ``path`` — as spelled, its symlinks followed, ``..`` folded first —
    is inside one of the working directories (each as spelled or with its symlinks
    followed)."""
    spelled = os.path.normpath(path)
    readings = {spelled, os.path.realpath(path), os.path.realpath(spelled)}
    forms = {Path(os.path.normpath(d)) for d in working} | {
        Path(os.path.realpath(d)) for d in working
    }
    return all(any(inside(Path(r), f) for f in forms) for r in readings)


def touched_paths(tool: str, tool_input: Mapping[str, Any], cwd: Path) -> Touched:
    """The files a call names: a file tool's path, every word of a Bash line that could be
    one (:mod:`planmode.core.shell.paths`), resolved against the shell's directory and every
    directory the line names; an agent names none."""
    if tool in EDIT_TOOLS:
        raw = tool_input.get("file_path", tool_input.get("notebook_path"))
        if not isinstance(raw, str) or not raw or "\x00" in raw:
            return Touched(unknown=f"{tool}'s file path {raw!r} is not a path")
        return Touched((os.path.join(cwd, os.path.expanduser(raw)),))
    if tool != "Bash":
        return Touched()
    command = tool_input.get("command")
    found = operands(command) if isinstance(command, str) else None
    if found is None:
        return Touched(unknown="the Bash line cannot be read")
    if found.unnamed_directory:
        return Touched(
            unknown="the Bash line moves to a directory it does not name (cd, cd -, popd)"
        )
    names: list[str] = []
    patterns: list[str] = []
    for operand in found.words:
        if operand.value is not None:
            names += _candidates(operand.value)
            continue
        pattern = _glob_pattern(operand.text)
        if pattern is None:
            return Touched(unknown=f"bash computes the word {operand.text!r} of the Bash line")
        patterns.append(pattern)
        names.append(pattern)  # no match: bash passes it as written
    bases = _directories(names, str(cwd))
    if bases is None:
        return Touched(unknown="the Bash line names too many directories to follow")
    paths = [os.path.join(base, name) for base in bases for name in names]
    for pattern in patterns:
        for base in bases:
            matches = glob.glob(pattern, root_dir=base, include_hidden=True)
            if len(matches) > MAX_MATCHES:
                return Touched(unknown=f"the pattern {pattern!r} of the Bash line matches too much")
            paths += [os.path.join(base, m) for m in matches]
    return Touched(tuple(paths))


def _candidates(value: str) -> list[str]:
    """The paths one word may name: itself, an option's value (``--file=/x``, ``-C/x``,
    ``-I../x``), a ``name=value`` word's value; each also as Claude Code may read a leading
    ``~``."""
    found = [value] if value else []
    if value.startswith("-"):
        match = re.match(r"-+[^=/.~]*", value)
        rest = value[match.end() :] if match else ""
        found.append(rest.removeprefix("="))
    elif "=" in value:
        found.append(value.split("=", 1)[1])
    found += [os.path.expanduser(f) for f in found if f.startswith("~")]
    return [f for f in found if f]


def _glob_pattern(text: str) -> str | None:
    """The word as a pattern when bash only globs it (no expansion, quoting or braces) and no
    part of it can reach ``..`` (``.*``) or descend unseen (``**``); None otherwise."""
    if any(c in text for c in "$`'\"\\{}()~") or "**" in text:
        return None
    for part in text.split("/"):
        if part.startswith(".") and any(c in part for c in "*?["):
            return None
    return text


def _directories(names: list[str], cwd: str) -> list[str] | None:
    """The shell's directory and every existing directory ``names`` reach from it or from
    one another (where a ``cd``, ``git -C`` or ``find`` may take the line), with symlinks
    followed; None past :data:`MAX_DIRECTORIES`."""
    bases = [cwd]
    grown = True
    while grown:
        grown = False
        for name in names:
            for base in list(bases):
                path = os.path.join(base, name)
                if not os.path.isdir(path):
                    continue
                real = os.path.realpath(path)
                if real not in bases:
                    bases.append(real)
                    grown = True
                    if len(bases) > MAX_DIRECTORIES:
                        return None
    return bases
