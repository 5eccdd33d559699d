"""OpenCode (docs/opencode.md: what the real CLI does, measured), in the shape of
:mod:`planmode.agents`:

* set-up: :mod:`.init` (``planmode init opencode``: planmode's plugin and shell in the user's
  data directory, named in the project's ``opencode.json``); :mod:`.shell` (every planning
  bash call in the sandbox);
* events and answers: ``planmode.js``, the plugin that runs inside OpenCode (its
  ``tool.execute.before`` → checkTool, ``plan_exit`` → exit held for the editor's decision,
  ``dispose`` → endSession; refusals thrown, the approved plan as ``plan_exit``'s result);
  :mod:`.tools` (OpenCode's tool calls in plan mode's terms);
* plan file: its own, named and placed by OpenCode's plan agent — :mod:`.adoption`;
* its own rules: none to adapt — a plugin can only refuse a call, so OpenCode's permission
  rules always have the last word on an allowed one;
* adapter: :mod:`.adapter` (``OpenCode``, ``OpenCodeCall``);
* versions: :mod:`.versions`.

Import-free, like :mod:`planmode.agents`.
"""
