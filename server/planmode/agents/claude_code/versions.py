"""Claude Code's versions: what was measured of each (docs/claude-code.md), and which version
runs a session (its transcript says).

* 2.1.197 and 2.1.332 are the versions measured, end to end (``tests/e2e/claude_code/``).
* A hook's ``allow`` whose ``updatedInput`` rewrites a Bash line (to run it in the sandbox
  launcher) runs unasked up to :data:`SANDBOX_REWRITE_UP_TO`; 2.1.332 asks in the terminal for
  any line its own check cannot prove read-only (docs/claude-code.md, "Hook answers and what
  the model sees").
* From 2.1.199 an ``allow`` of ``ExitPlanMode`` without ``updatedInput`` is ignored: the hook
  always sends one.

The hook imports this before every tool call: stdlib ``os`` only, and the hook's own JSON
codec (:mod:`.client`).
"""

from __future__ import annotations

import os

from planmode.agents.hookclient import loads

# The newest Claude Code measured to run a hook-rewritten Bash line without asking.
SANDBOX_REWRITE_UP_TO = (2, 1, 197)


def runs_rewritten_bash(transcript: object) -> bool:
    """Whether this Claude Code runs a Bash line rewritten by the hook without asking: 2.1.197
    does; 2.1.332 asks in the terminal for any command its own check cannot prove read-only,
    whatever the hook answers (docs/claude-code.md). Its version is on the transcript's lines;
    unknown or newer than measured: no rewrite (the read-only proof still decides) — unless
    the user set ``requireSandbox`` (the sandbox's ``required``): then every Claude Code gets
    the sandboxed line, and a newer one asks in the terminal rather than run it unsandboxed."""
    version = transcript_version(transcript) if isinstance(transcript, str) else None
    return version is not None and version <= SANDBOX_REWRITE_UP_TO


def transcript_version(path: str) -> tuple[int, ...] | None:
    """Claude Code's version as its transcript's last line that has one records it: the
    top-level ``version`` of the line's object. Only whole lines of the tail are read, as
    JSON: text inside a line (a tool input, the model's words) never counts."""
    for window in (1 << 16, 1 << 20):  # a line longer than 64 KiB: look further back
        try:
            with open(path, "rb") as stream:
                start = max(0, stream.seek(0, os.SEEK_END) - window)
                stream.seek(start)
                lines = stream.read().split(b"\n")
        except OSError:
            return None
        if start > 0:
            lines = lines[1:]  # begins mid-line
        for line in reversed(lines):
            if not line.strip():
                continue
            try:
                entry = loads(line)
            except (ValueError, RecursionError):
                continue  # a line still being written, or none of Claude Code's
            if isinstance(entry, dict) and "version" in entry:
                return parse(entry["version"])
        if start == 0:
            return None
    return None


def parse(raw: object) -> tuple[int, ...] | None:
    if not isinstance(raw, str):
        return None
    parts = raw.split("-", 1)[0].split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None
