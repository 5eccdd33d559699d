"""Gemini CLI (docs/gemini.md: what the real CLI does, measured, and the adapter's design), in
the shape of :mod:`planmode.agents`:

* set-up: :mod:`.init` (``planmode init gemini``: its hooks in the project's
  ``.gemini/settings.json``, planmode's rules in the user's ``~/.gemini/policies/`` and the
  shell launcher); :mod:`.shell` (planning shell lines in the sandbox, through the launcher);
* events and answers: :mod:`.hook` (``planmode hook gemini``: ``BeforeTool`` → checkTool, of
  ``exit_plan_mode`` → exit, ``AfterTool`` → what the model reads of an approval,
  ``SessionStart``/``SessionEnd``), over Claude Code's client of the agent
  endpoint; :mod:`.notes` (what the hook keeps per session between calls), :mod:`.modes`
  (Gemini's approval modes and the one it started in), :mod:`.transcript` (the modes its
  transcript records);
* plan file: its own, in Gemini's plans directory, named by the model — :mod:`.adoption`;
* its tools in plan mode's terms: :mod:`.tools`;
* adapter: :mod:`.adapter` (``GeminiCli``, ``GeminiCall``);
* versions: :mod:`.versions`.

Gemini CLI has no permission rules a hook's allow could get past (it ignores a hook's allow:
its own policy always decides), so there is no ``rules.py``.

Import-free, like :mod:`planmode.agents`.
"""
