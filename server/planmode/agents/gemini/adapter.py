"""Gemini CLI as core sees it: the agent-neutral interfaces of :mod:`planmode.core.agents`,
made from what planmode's Gemini hook sends (docs/protocol.md §4, "Gemini CLI params").

:class:`GeminiCli` is the plan-file agent the service keeps (one per workspace): the model
names its plan in Gemini's plans directory, and a saved adoption is re-checked.
:class:`GeminiCall` is one call of the hook: the plan file it reports (:mod:`.adoption`) and
Gemini's tools in plan mode's terms (:mod:`.tools`). Gemini's own policy needs no adapter of
its rules: it ignores a hook's allow, so plan mode can only refuse a call past it, never allow
one (docs/gemini.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planmode.agents.gemini import adoption, tools
from planmode.core.agents import Adoption, ToolCall


class GeminiCli:
    """Gemini CLI, whose plan mode writes the plan to a file the model names."""

    name = "Gemini CLI"
    named_by = "Gemini CLI's plans directory and the model's first plan in it"
    exit_tool = tools.EXIT_TOOL

    def learned(self, source: str) -> bool:
        return source == adoption.FROM_PLANS_DIR

    def recheck(self, path: Path, workspace: Path) -> None:
        adoption.recheck(path, workspace)

    def call(self, workspace: Path, plans_dir: str, candidate: object = None) -> GeminiCall:
        """One call of the hook: Gemini's plans directory (``$GEMINI_PLANS_DIR``) and the file
        the call names there (``candidate``: a write's path, an exit's plan), if any."""
        return GeminiCall(self, workspace, plans_dir, candidate)


class GeminiCall:
    """One call of planmode's Gemini hook, as a :class:`~planmode.core.agents.PlanFileReport`
    and :class:`~planmode.core.agents.AgentTools`."""

    def __init__(
        self, agent: GeminiCli, workspace: Path, plans_dir: str, candidate: object
    ) -> None:
        self.agent = agent
        self.workspace = workspace
        self.plans_dir = plans_dir
        self.candidate = candidate

    @property
    def exit_tool(self) -> str:
        return self.agent.exit_tool

    def plan_file(self, session_id: str) -> Adoption | None:
        """The plan this call names in Gemini's plans directory, checked; None when it names
        none (a read, a shell line). :class:`~planmode.core.agents.NotAdoptable` when the
        directory or the file may not be adopted."""
        directory = adoption.check_plans_directory(self.plans_dir, self.workspace)
        if not adoption.is_candidate(self.candidate, self.plans_dir):
            return None
        path = adoption.check_adoptable(self.candidate, directory)
        return Adoption(path, adoption.FROM_PLANS_DIR)

    def plan_mode_calls(self, tool: str, tool_input: Mapping[str, Any]) -> tuple[ToolCall, ...]:
        return tools.plan_mode_calls(tool, tool_input)
