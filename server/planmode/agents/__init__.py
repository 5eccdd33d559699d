"""One package per agent: everything that agent's own contract needs, so that core stays
agent-neutral (it knows an agent only through :mod:`planmode.core.agents`).

The shape every agent follows — ``claude_code/``, ``gemini/``, ``codex/``, ``opencode/`` — with
one module per question, each saying in its docstring how the agent does it:

* **Set-up** (``init.py``): ``planmode init <agent>`` writes what the agent needs to reach plan
  mode (its hooks, a plugin, a settings file), merging into the user's own and never losing it.
* **Events** (``hook.py``, whatever runs inside the agent): how the agent's events map to
  ``planMode/checkTool`` (before each tool call), ``planMode/exit`` (its ExitPlanMode) and
  ``planMode/endSession`` (the conversation ends), and which of its params go along; it finds
  the server through the user's runtime directory (:mod:`planmode.runtime`), never through a
  file in the workspace. Where it runs on every tool call its start-up counts: stdlib only.
* **Answers** (the same module): how plan mode's answers are written back in the agent's own
  terms — what it prints, what it leaves unsaid so the agent's own prompts decide, and how it
  fails closed while the session plans.
* **Plan file** (``adoption.py``): where the agent's plan file lives — plan mode's own
  ``<plans directory>/<slug>.md``, or one the agent names and places itself, which a session
  adopts through :class:`planmode.core.agents.PlanFileAgent` (learned from what the agent
  reports, re-checked when loaded).
* **Its own rules** (``rules.py``, where it has them): permission rules of the agent's that
  may object to an allow plan mode vouches for (:class:`planmode.core.agents.AgentRules`).
* **Adapter** (``adapter.py``): the objects core is handed — made by the LSP layer from a
  request that carries the agent's params (lsp/features/agents.py picks it).
* **Versions** (``versions.py``): what was measured of which version, and which version runs.

What the agents share is agent-neutral and lives here, beside them: :mod:`.hookclient` (every
hook's client of the server's agent endpoint, stdlib only) and :mod:`.setup` (what every
``init`` does with a settings file, a hook command and an installed script).

This package and each agent's ``__init__.py`` import nothing: a hook that runs before every
tool call loads only the modules it uses.
"""
