"""Comparing an agent's revision with the plan the user saw (docs/protocol.md §5.1):
the hunks of a 1 MB plan of many repeated lines, against reading the same file, in one run.

Every lens, code action and decision of a plan under review diffs the revision against the
seen text, on the server's one thread: it must stay well under a second for any plan up to
1 MB (core/linediff.py), whatever lines repeat.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

from planmode.core.revisions import hunks

# Well under a second for a 1 MB plan: the hook waits 20 s for everything, on a shared machine.
TARGET_MS = 500.0
SIZE = 1_000_000
# The lines a long plan repeats: blank lines, fences, the same check after every step.
BOILERPLATE = [
    "",
    "```bash",
    "pytest -q",
    "```",
    "- [ ] Run the tests",
    "- [ ] Check the output",
    "Nothing else changes in this step.",
]


def plan(size: int, chooser: random.Random, headed: bool = True) -> list[str]:
    """About ``size`` bytes: steps of a few repeated lines, each under its own heading
    (``headed``), or nothing but repeated lines."""
    lines: list[str] = ["# Plan", ""]
    total = 0
    step = 0
    while total < size:
        step += 1
        block = [f"## Step {step}: change module_{step % 97}.py", ""] if headed else []
        block += chooser.sample(BOILERPLATE, k=5)
        lines += block
        total += sum(len(line) + 1 for line in block)
    return [line + "\n" for line in lines]


def revise(seen: list[str], chooser: random.Random) -> list[str]:
    """The agent's revision: a line in about every thirty replaced, inserted or deleted,
    mostly with lines the plan already repeats."""
    revised = list(seen)
    for _ in range(len(seen) // 30):
        at = chooser.randrange(len(revised))
        line = chooser.choice(BOILERPLATE) + "\n"
        action = chooser.randrange(3)
        if action == 0:
            revised[at] = line
        elif action == 1:
            revised.insert(at, line)
        else:
            del revised[at]
    return revised


def plan_diff_cost(rounds: int) -> int:
    """Print the median time of the hunks of a 1 MB revision and of reading the file, and
    their ratio; the number of missed targets."""
    print(f"\n{'revision diff (1 MB plan)':<36}{'hunks':>10}{'read file':>11}{'ratio':>8}  target")
    misses = 0
    for headed, name in ((True, "steps of repeated lines"), (False, "only repeated lines")):
        chooser = random.Random(20)
        seen = "".join(plan(SIZE, chooser, headed))
        revised = "".join(revise(seen.splitlines(keepends=True), chooser))
        with tempfile.TemporaryDirectory(prefix="planmode-bench-diff-") as tmp:
            path = Path(tmp) / "plan.md"
            path.write_text(revised, encoding="utf-8")
            reads, diffs = [], []
            found = 0
            for _ in range(rounds):
                start = time.perf_counter()
                path.read_text(encoding="utf-8")
                reads.append(time.perf_counter() - start)
                start = time.perf_counter()
                found = len(hunks(seen, revised))
                diffs.append(time.perf_counter() - start)
        read, diff = statistics.median(reads), statistics.median(diffs)
        ok = diff * 1000 <= TARGET_MS
        misses += not ok
        print(
            f"{f'{name}, {found} hunks':<36}{diff * 1000:>8.1f}ms{read * 1000:>9.2f}ms"
            f"{diff / read:>7.0f}×  ≤ {TARGET_MS:.0f}ms  {'ok' if ok else 'MISSED'}"
        )
    return misses
