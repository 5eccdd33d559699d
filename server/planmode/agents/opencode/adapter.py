"""OpenCode as core sees it: the agent-neutral interfaces of :mod:`planmode.core.agents`, made
from what planmode's OpenCode plugin sends (docs/protocol.md §4, "OpenCode params").

:class:`OpenCode` is the plan-file agent the service keeps (one per workspace): its plan
agent names its own plan file, and a saved adoption is re-checked. :class:`OpenCodeCall` is
one call of the plugin: the plan file the session's facts name (:mod:`.adoption`), and
OpenCode's tools in plan mode's terms (:mod:`.tools`). OpenCode's own permission rules need no
adapter: the plugin can only refuse a call, never allow one past them (docs/opencode.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planmode.agents.opencode import adoption, tools
from planmode.core.agents import Adoption, ToolCall


class OpenCode:
    """OpenCode, whose plan agent writes its plan to a file it names itself."""

    name = "OpenCode"
    named_by = "OpenCode's session (its creation time and slug)"
    exit_tool = tools.EXIT_TOOL

    def learned(self, source: str) -> bool:
        return source == adoption.FROM_SESSION

    def recheck(self, path: Path, workspace: Path) -> None:
        """As if learned again, with this server's idea of OpenCode's data directory."""
        adoption.check_adoptable(path, workspace, adoption.data_dir())

    def call(
        self,
        workspace: Path,
        facts: adoption.SessionFacts | None = None,
        directory: str | None = None,
    ) -> OpenCodeCall:
        """One call of the plugin: what names the session's plan file (``facts``, None while
        the plugin does not know them) and OpenCode's instance ``directory``."""
        return OpenCodeCall(self, workspace, facts, directory)


class OpenCodeCall:
    """One call of planmode's OpenCode plugin, as a :class:`~planmode.core.agents.PlanFileReport`
    and :class:`~planmode.core.agents.AgentTools`."""

    def __init__(
        self,
        agent: OpenCode,
        workspace: Path,
        facts: adoption.SessionFacts | None,
        directory: str | None,
    ) -> None:
        self.agent = agent
        self.workspace = workspace
        self.facts = facts
        self.directory = directory

    @property
    def exit_tool(self) -> str:
        return self.agent.exit_tool

    def plan_file(self, session_id: str) -> Adoption | None:
        """The plan file the session's facts name (OpenCode's rule), checked."""
        if self.facts is None:
            return None
        path = adoption.plan_file(self.facts)
        checked = adoption.check_adoptable(path, self.workspace, self.facts.data)
        return Adoption(checked, adoption.FROM_SESSION)

    def plan_mode_calls(self, tool: str, tool_input: Mapping[str, Any]) -> tuple[ToolCall, ...]:
        return tools.plan_mode_calls(tool, tool_input, self.directory)
