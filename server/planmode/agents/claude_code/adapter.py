"""Claude Code as core sees it: the agent-neutral interfaces of :mod:`planmode.core.agents`,
made from what Claude Code's hook sends (docs/protocol.md §4, "Claude Code params").

:class:`ClaudeCode` is the plan-file agent the service keeps (one per workspace): it names
its own plan file, and re-checks a saved adoption. :class:`ClaudeCodeCall` is one call from
the hook: the plan file its transcript names so far, and, as :attr:`ClaudeCodeCall.rules`,
Claude Code's own permission rules (:mod:`.rules`).
"""

from __future__ import annotations

from pathlib import Path

from planmode.agents.claude_code import adoption
from planmode.agents.claude_code.rules import Caller
from planmode.agents.claude_code.transcript import TranscriptFacts, read_transcript
from planmode.core.agents import Adoption
from planmode.core.errors import InvalidParams


class ClaudeCode:
    """Claude Code, which writes its plan to a file it names itself (docs/claude-code.md)."""

    name = "Claude Code"
    named_by = "Claude Code's transcript"

    def __init__(self) -> None:
        # Session id -> what its transcript said so far (read on from there).
        self.transcripts: dict[str, TranscriptFacts] = {}

    def learned(self, source: str) -> bool:
        return source in (adoption.FROM_ATTACHMENT, adoption.FROM_SLUG)

    def recheck(self, path: Path, workspace: Path) -> None:
        """As if learned again, with this server's Claude Code configuration directory."""
        adoption.check_adoptable(str(path), adoption.where(workspace))

    def call(
        self,
        workspace: Path,
        transcript: str | None = None,
        project: str | None = None,
        config: str | None = None,
        cwd: str | None = None,
    ) -> ClaudeCodeCall:
        """One call of the hook: its ``transcriptPath`` (absolute, ``.jsonl``, else
        :class:`InvalidParams`), ``projectDir``, ``claudeConfigDir`` and ``cwd``."""
        path = None
        if transcript is not None:
            path = Path(transcript)
            if not path.is_absolute() or path.suffix != ".jsonl":
                raise InvalidParams(f"field 'transcriptPath': {transcript!r} is no transcript")
        rules = Caller.from_hook(workspace, project, config, cwd)
        return ClaudeCodeCall(self, workspace, path, project, config, rules)


class ClaudeCodeCall:
    """One call of Claude Code's hook, as a :class:`~planmode.core.agents.PlanFileReport`."""

    def __init__(
        self,
        agent: ClaudeCode,
        workspace: Path,
        transcript: Path | None,
        project: str | None,
        config: str | None,
        rules: Caller,
    ) -> None:
        self.agent = agent
        self.workspace = workspace
        self.transcript = transcript
        self.project = project
        self.config = config
        self.rules = rules

    def plan_file(self, session_id: str) -> Adoption | None:
        """The plan file the session's transcript names so far (its lines read once each)."""
        if self.transcript is None:
            return None
        known = self.agent.transcripts.get(session_id, TranscriptFacts())
        facts = read_transcript(self.transcript, known)
        self.agent.transcripts[session_id] = facts
        where = adoption.where(self.workspace, self.project, self.config)
        return adoption.adopted_plan_file(facts, where)
