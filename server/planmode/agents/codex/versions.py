"""Codex CLI's versions: what was measured of which (docs/codex.md), and which version writes a
session's transcript.

* 0.169.0 is the version measured, end to end (``tests/e2e/codex/``, ``tests/e2e/test_codex.py``):
  a ``PreToolUse`` deny reaches the model as ``Command blocked by PreToolUse hook: <reason>``;
  an ``allow`` with ``updatedInput.command`` runs that command instead (a plain ``allow`` or
  ``ask`` is rejected); a ``Stop`` hook's ``decision: block`` keeps the turn going with the
  reason as a ``<hook_prompt>``; a ``UserPromptSubmit`` hook's ``additionalContext`` is a
  developer message after the prompt; a hook's trust hash is the one
  :func:`planmode.agents.codex.init.hook_hash` computes.
* ``make agents-latest`` runs the same end-to-end test against npm's newest release.

Nothing here is on the hook's path: the hook behaves the same on every version, and a version
that changed one of these facts shows in that test.
"""

from __future__ import annotations

from planmode.agents.codex import transcript

MEASURED = (0, 169, 0)


def parse(raw: object) -> tuple[int, ...] | None:
    if not isinstance(raw, str):
        return None
    parts = raw.split("-", 1)[0].split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def session_version(transcript_path: str) -> tuple[int, ...] | None:
    """The version of Codex that writes the transcript (its ``session_meta``)."""
    return parse(transcript.cli_version(transcript_path))


def measured(version: tuple[int, ...] | None) -> bool:
    """Whether ``version`` is the one these facts were measured on."""
    return version == MEASURED
