"""Codex CLI (docs/codex.md: what the real CLI does, measured, and the adapter's design), in
the shape of :mod:`planmode.agents`:

* set-up: :mod:`.init` (``planmode init codex``: its hooks in the project's
  ``.codex/hooks.json``, trusted in the user's ``config.toml``);
* events and answers: :mod:`.hook` (``planmode hook codex``: ``PreToolUse`` → checkTool,
  ``Stop`` of a turn that proposed a plan → exit, ``UserPromptSubmit`` → the approved plan,
  ``PermissionRequest`` → a granted prompt, ``SessionEnd`` → endSession), over Claude Code's
  hook client (one request to the agent endpoint), with :mod:`.transcript` (whether the turn
  plans, the plan it proposed) and :mod:`.handoff` (the approved plan kept for the prompt that
  implements it);
* plan file: none of its own — its plan is the ``<proposed_plan>`` its exit brings, written by
  plan mode to the session's plan file;
* its tools in plan mode's terms: :mod:`.tools`;
* adapter: :mod:`.adapter` (``CodexCall``);
* versions: :mod:`.versions`.

Import-free, like :mod:`planmode.agents`.
"""
