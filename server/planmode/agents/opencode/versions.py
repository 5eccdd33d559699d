"""OpenCode's versions: what was measured of each (docs/opencode.md).

* 1.18.33 (``opencode-ai`` from npm) is the version measured, end to end
  (``tests/e2e/opencode/``, ``tests/e2e/test_opencode.py``).
* What the plugin relies on, as measured there: ``tool.execute.before`` runs before OpenCode's
  permission rules and a thrown error is the model's tool result, verbatim; ``plan_exit`` can
  be held with no time limit; its question answered through OpenCode's own client
  (``POST /question/{id}/reply``); ``tool.execute.after`` replaces a tool's result; the
  ``shell`` setting runs ``<shell> -c '<command>'`` with the ``shell.env`` hook's variables;
  the terminal's auto-approve toggled by ``tui.command.execute`` ``permission.mode``.
* Its plan agent has a plan file and ``plan_exit`` only with
  ``OPENCODE_EXPERIMENTAL_PLAN_MODE=1`` (or ``OPENCODE_EXPERIMENTAL=1``) in its environment.
"""

from __future__ import annotations

# The versions the end-to-end test runs (tests/e2e/opencode/versions.txt holds the same).
MEASURED = ("1.18.33",)
# The environment variable that gives OpenCode's plan agent its plan file and plan_exit.
PLAN_MODE_FLAG = "OPENCODE_EXPERIMENTAL_PLAN_MODE"
