"""Claude Code (docs/claude-code.md: what the real CLI does, measured), in the shape of
:mod:`planmode.agents`:

* set-up: :mod:`.init` (``planmode init claude-code``: its hooks and its shell prefix in
  ``.claude/settings.json``); :mod:`.shell_prefix` (every planning Bash command in the sandbox);
* events and answers: :mod:`.hook` (``planmode hook``: ``PreToolUse`` → checkTool,
  ``PermissionRequest`` of ExitPlanMode → exit, ``SessionEnd`` → endSession; its answers as
  Claude Code reads them), over :mod:`planmode.agents.hookclient` (one request to the agent
  endpoint, every agent's hook's);
* plan file: its own, named and placed by Claude Code — :mod:`.adoption` (where, and what may
  be adopted), :mod:`.transcript` (what its transcript says of it);
* its own rules: :mod:`.rules` (its settings' deny and ask rules, its working directories);
* adapter: :mod:`.adapter` (``ClaudeCode``, ``ClaudeCodeCall``);
* versions: :mod:`.versions`.

Import-free, like :mod:`planmode.agents`.
"""
