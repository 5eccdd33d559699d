"""What core needs to know of an agent, and no more: small interfaces an agent's adapter
(:mod:`planmode.agents`) implements, so that core stays agent-neutral and never names one.

Most callers take plan mode as the protocol gives it (an editor, the CLI). Two kinds of agent
bring something of their own:

* :class:`PlanFileAgent` — an agent that names and places its own plan file (docs/protocol.md
  §3): a session adopts the file the agent reports (:class:`PlanFileReport`, one of its
  calls) and saves it with how it was learned; a saved adoption is checked again by the same
  agent when the session is loaded, as a session file lives in the workspace, which a
  repository can ship.
* :class:`AgentRules` — one call of an agent whose own permission rules may object to an allow
  plan mode vouches for (:data:`planmode.core.permissions.VOUCHED`): where the agent itself
  would deny or ask, its answer stands (docs/protocol.md §6).
* :class:`PlanInExit` — one call of an agent with no plan file of its own, whose exit brings
  its plan's text: that text is its submission, written by plan mode to the session's plan
  file; nothing else is written while planning, and the texts say how to submit a plan.
* :class:`AgentTools` — one call of an agent whose tools have names and inputs of their own:
  which of plan mode's calls (:class:`ToolCall`, the tools of docs/protocol.md §6) it makes,
  and what the model calls the tool that leaves plan mode, for the texts it reads.

The service is given the plan-file agents it knows (``PlanModeService(agents=...)``); the LSP
layer picks the adapter for a request from its params and hands the call to core.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from planmode.core.permissions import Decision


class NotAdoptable(ValueError):
    """A plan file the session may not adopt: not where its agent would write it, or where a
    repository could have pointed it; the message says why."""


@dataclass(frozen=True)
class Adoption:
    """The plan file an agent reported for a session, and how it was learned (saved with the
    session as ``planFileSource``)."""

    path: Path
    source: str


class PlanFileAgent(Protocol):
    """An agent that names and places its own plan file; one per service."""

    @property
    def name(self) -> str:
        """The agent as the user reads it in a message."""
        ...

    @property
    def named_by(self) -> str:
        """What names the file it adopts, as a refusal says it (``the file <named_by>
        names``)."""
        ...

    def learned(self, source: str) -> bool:
        """Whether an adoption saved with ``source`` was learned from this agent."""
        ...

    def recheck(self, path: Path, workspace: Path) -> None:
        """A saved adoption checked again as if just reported; :class:`NotAdoptable` when it
        fails."""
        ...


class PlanFileReport(Protocol):
    """One call of a :class:`PlanFileAgent`: what it reports of the session's plan file."""

    @property
    def agent(self) -> PlanFileAgent: ...

    def plan_file(self, session_id: str) -> Adoption | None:
        """The file the agent names for the session so far; None while it names none.
        :class:`NotAdoptable` when that file may not be adopted."""
        ...


class AgentRules(Protocol):
    """One call of an agent whose own permission rules may object to plan mode's allow."""

    @property
    def name(self) -> str: ...

    @property
    def cwd(self) -> Path | None:
        """The directory the agent's shell is in, when the call says. When it does not, where a
        Bash line runs is not known: the agent's shell stays where an earlier ``cd`` left it."""
        ...

    def objection(
        self,
        tool: str,
        tool_input: Mapping[str, Any],
        vouched: str,
        own_plan_file: bool = False,
    ) -> Decision | None:
        """The agent's own answer where its rules would deny or ask this call despite plan
        mode's allow (``vouched``: the rule that allowed it); None where that allow stands.
        ``own_plan_file``: the call writes the plan file the session adopted from the agent."""
        ...


@dataclass(frozen=True)
class ToolCall:
    """One of plan mode's tool calls (docs/protocol.md §6): ``tool`` and its ``input``."""

    tool: str
    input: Mapping[str, Any]


class AgentTools(Protocol):
    """One call of an agent whose tools are not plan mode's: one of its calls is the plan mode
    calls it makes (none: nothing to check; several: each must be allowed, as a patch of
    several files), and the model reads its own name for the tool that leaves plan mode."""

    @property
    def exit_tool(self) -> str: ...

    def plan_mode_calls(self, tool: str, tool_input: Mapping[str, Any]) -> Sequence[ToolCall]:
        """Plan mode's calls that the agent's call ``tool`` with ``tool_input`` makes."""
        ...


class PlanInExit(Protocol):
    """One call of an agent with no plan file of its own, whose exit brings its plan's text
    (a block of its final message at the turn's end, say): that text is the agent's submission,
    not an edit of the plan, and plan mode writes it to the session's plan file for review.
    The agent writes no file while the session plans — not that one either — and the texts
    the model reads tell it how to submit its plan where they would name a file to write."""

    @property
    def submit_plan(self) -> str:
        """How the model submits its plan, as an instruction the texts give it (``propose
        your plan in a <proposed_plan> block``)."""
        ...
