"""planmode's shell for OpenCode: every planning bash call runs in the OS sandbox, under
OpenCode's own permission rules.

OpenCode runs each ``bash`` tool call as ``<its shell> -c '<command>'``, where its shell is the
``shell`` setting of its config (docs/opencode.md, "Sandboxing planning shell commands"), and
calls the plugins' ``shell.env`` hook for the call's environment first. ``planmode init
opencode`` names :data:`SCRIPT` there; planmode's plugin marks each bash call it allowed while
the session plans — the environment variable ``PLANMODE_SANDBOX`` holds the sandbox's words
(checkTool's ``sandbox.prefix``), each single-quoted — and this script runs a marked command in
the sandbox, anything else as bash runs it. OpenCode's permission rules keep seeing the model's
own command (a rewrite of the command would show them the sandbox's line instead).

The script is named ``bash``: OpenCode tells the model which shell runs its commands by the
shell's name, and reads the command as bash. It runs ``/bin/bash`` (else ``bash`` on the
``PATH``, else ``/bin/sh``).
"""

from __future__ import annotations

NAME = "bash"
MARK = "PLANMODE_SANDBOX"

SCRIPT = r"""#!/bin/sh
# planmode: OpenCode's shell (its `shell` setting), written by `planmode init opencode`;
# docs/opencode.md, "planmode's adapter".
#
# OpenCode runs every bash tool call as `<this file> -c '<command>'`. While the session plans,
# planmode's plugin marks each call it allowed (PLANMODE_SANDBOX, through OpenCode's shell.env
# hook: the sandbox's command words, each quoted), and the command runs inside planmode's OS
# sandbox. Anything else runs exactly as bash runs it.

refuse() {
  printf 'planmode: this command was not run: %s\n' "$1" >&2
  exit 126
}
shell=/bin/bash
if [ ! -x "$shell" ]; then
  self=$(cd "$(dirname "$0")" && pwd -P)/bash
  shell=/bin/sh
  IFS=:
  for dir in $PATH; do
    if [ -x "$dir/bash" ] && [ "$(cd "$dir" && pwd -P)/bash" != "$self" ]; then
      shell=$dir/bash
      break
    fi
  done
  unset IFS
fi
sandbox=${PLANMODE_SANDBOX-}
unset PLANMODE_SANDBOX
[ -n "$sandbox" ] || exec "$shell" "$@"
[ "$#" -eq 2 ] && [ "$1" = -c ] ||
  refuse "planmode's shell runs a planning command only as '-c COMMAND'"
command=$2
(eval "set -- $sandbox") 2>/dev/null || refuse "PLANMODE_SANDBOX names no sandbox"
eval "set -- $sandbox"
[ "$#" -gt 0 ] || refuse "PLANMODE_SANDBOX names no sandbox"
exec "$@" "$shell" -c "$command"
"""


def install(path: str) -> bool:
    """Write the script to ``path`` (0755, atomically); False when it is already there."""
    from planmode.agents.setup import install_script

    return install_script(path, SCRIPT)
