"""The decision: whether a command line only reads, with the reason when it may not."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from planmode.core.shell.syntax import Line, Refused, read_line
from planmode.core.shell.walk import Walk

# The cache holds at most 1024 lines of up to this many characters; longer ones are decided
# every time.
_CACHED_LENGTH = 4096


class Verdict(NamedTuple):
    """Whether a command line only reads."""

    read_only: bool
    # Why not, naming the part of the command that failed; empty when read-only.
    reason: str = ""
    # The programs a read-only line runs (by base name, nested ones included), as the walk
    # that allowed it read them.
    programs: frozenset[str] = frozenset()


READ_ONLY = Verdict(True)


def check(command: str) -> Verdict:
    """Whether ``command`` only reads. Anything not proven read-only is not; never raises."""
    if not isinstance(command, str) or len(command) > _CACHED_LENGTH:
        return _decide(command)
    return _decide_cached(command)


@lru_cache(maxsize=1024)
def _decide_cached(command: str) -> Verdict:
    return _decide(command)


def _decide(command: object) -> Verdict:
    def walk(line: Line) -> Verdict:
        reading = Walk(line.source, line.text)
        problem = reading.problem(line.root)
        if problem:
            return Verdict(False, problem)
        return Verdict(True, "", frozenset(reading.programs))

    found = read_line(command, walk)
    return Verdict(False, found.reason) if isinstance(found, Refused) else found
