"""Line diffs that stay fast on big plans: trim what is equal at both ends, diff the middle.

An edit in place of a 5,000-line plan touches a few lines; difflib on the whole text costs
milliseconds, on the changed middle microseconds. The opcodes are those of
``difflib.SequenceMatcher`` (without autojunk), shifted back to whole-text indices.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

Opcode = tuple[str, int, int, int, int]


def _common(equal_for: Callable[[int], bool], limit: int) -> int:
    """The largest k <= limit with equal_for(k), by bisection (slices compare in C)."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if equal_for(middle):
            low = middle
        else:
            high = middle - 1
    return low


def opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """``SequenceMatcher(None, old, new, autojunk=False).get_opcodes()``, computed faster."""
    limit = min(len(old), len(new))
    head = _common(lambda k: old[:k] == new[:k], limit)
    tail = _common(
        lambda k: old[len(old) - k :] == new[len(new) - k :] if k else True, limit - head
    )
    middle = difflib.SequenceMatcher(
        None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
    ).get_opcodes()
    found: list[Opcode] = []
    if head:
        found.append(("equal", 0, head, 0, head))
    for tag, i1, i2, j1, j2 in middle:
        if i1 == i2 and j1 == j2:
            continue
        found.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        found.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    return found
