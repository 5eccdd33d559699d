"""The OS sandbox under planning Bash: what this machine offers, and how a command runs in it.

While planning, a Bash command the classifier allows runs inside a sandbox (docs/sandbox.md):
the file system is read-only except a private temporary directory, no Unix socket can be
opened (the agent endpoint, the editor, daemons), no process can serve on the network or
reach it, no process outside can be signalled, and nothing outlives the command.

Two mechanisms, in the order they are tried:

* ``bwrap+seccomp`` — bubblewrap: a read-only bind of ``/``, a fresh ``/dev``, a private
  tmpfs on ``/var/tmp`` (``TMPDIR``), new network, PID and IPC namespaces, a new session, no
  capabilities, killed with its parent; plus :mod:`planmode.sandbox.seccomp` (passed on fd 9
  from a file the server writes). Needs user namespaces, or root.
* ``landlock+seccomp`` — no privilege, no namespaces: a launcher
  (``python -I -S …/planmode/sandbox/__main__.py run -- …``) confines the command with
  Landlock (ABI ≥ 6) and the same filter (no Internet sockets either: there is no network
  namespace), and kills whatever the command left behind.

Stdlib only: the launcher runs once per command.
"""

from __future__ import annotations

# Kept import-free: the Landlock launcher imports this package once per command.
BWRAP = "bwrap+seccomp"
LANDLOCK = "landlock+seccomp"
CLASSIFIER_ONLY = "classifier only"
# PLANMODE_SANDBOX=auto (default) | bwrap | landlock | off: which mechanism the server uses.
ENV_CHOICE = "PLANMODE_SANDBOX"
SECCOMP_FD = 9
