"""What Claude Code's shell prefix adds to each Bash command (docs/claude-code.md).

The line is the one Claude Code builds (the shell snapshot sourced, the command, the read-back
of the working directory), run bare (`bash -c LINE`, as without a prefix) and through the
installed script, interleaved: outside plan mode, and while planning in each OS sandbox that
works here.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from planmode.agents.claude_code import shell_prefix
from planmode.sandbox import BWRAP, LANDLOCK
from planmode.sandbox.probe import detect

# Outside plan mode the prefix must be nearly free; while planning it may cost what the
# sandbox costs (docs/sandbox.md).
OUTSIDE_TARGET_MS = 3.0
PLANNING_TARGET_MS = 15.0
SESSION = "bench-session"


def _run(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def shell_prefix_cost(rounds: int) -> int:
    """Print the prefix's cost per command against the bare line; the number of missed
    targets."""
    misses = 0
    with tempfile.TemporaryDirectory(prefix="planmode-bench-prefix-") as tmp:
        work = Path(tmp)
        script = work / shell_prefix.NAME
        shell_prefix.install(str(script))
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(work),
            "SHELL": "/bin/bash",
            "CLAUDE_CODE_SESSION_ID": SESSION,
            "CLAUDE_CODE_EXECPATH": "/opt/claude/bin/claude.exe",
        }
        line = (
            f"source {work}/snapshot.sh 2>/dev/null || true && eval 'ls -la / | head -3' "
            f"< /dev/null && pwd -P >| {work}/claude-1a2b-cwd"
        )
        cases: list[tuple[str, list[str], float]] = [("outside plan mode", [], OUTSIDE_TARGET_MS)]
        for mechanism in (BWRAP, LANDLOCK):
            found = detect({"PLANMODE_SANDBOX": mechanism.split("+")[0]})
            wrapped = found.wrap("true")
            if wrapped is None:
                print(f"{'planning, ' + mechanism:<34}  not available here: {found.detail}")
                continue
            cases.append((f"planning, {mechanism}", wrapped.prefix, PLANNING_TARGET_MS))
        print(f"\n{'shell prefix':<34}{'prefixed':>10}{'bare':>10}{'added':>10}  target")
        for label, prefix, target in cases:
            if prefix:
                shell_prefix.write_record(SESSION, "plan", shell_prefix.SANDBOX, prefix, env)
            else:
                shell_prefix.write_record(SESSION, "default", environ=env)
            bare, ours = [], []
            for _ in range(rounds * 8):
                bare.append(_run(["/bin/bash", "-c", line], env))
                ours.append(_run([str(script), line], env))
            value, base = statistics.median(ours), statistics.median(bare)
            added = (value - base) * 1000
            ok = added <= target
            misses += not ok
            print(
                f"{label:<34}{value * 1000:>8.2f}ms{base * 1000:>8.2f}ms{added:>8.2f}ms"
                f"  ≤ {target:g} ms  {'ok' if ok else 'MISSED'}"
            )
    return misses
