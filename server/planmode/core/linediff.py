"""Line diffs whose cost stays near-linear in the size of the texts, repeated lines or not.

``difflib.SequenceMatcher`` without autojunk costs up to the product of the two lengths for each
match it looks for, and plans repeat lines (blank lines, fences, ``- [ ] Run the tests``): a
24 KB revision took seconds, a 48 KB one past the hook's timeout. With autojunk it stays fast
but treats every frequent line as junk, so a plan of repeated lines diffs as one replacement.
So the diff here is a patience diff (Bram Cohen's; git's ``--patience``), in three steps:

1. the lines equal at both ends are matched (an edit in place of a long plan touches a few
   lines: only those are diffed);
2. lines that occur exactly once in each text are matched in order — the longest increasing
   run of them (patience sorting, n log n) — and each gap between two such anchors is diffed
   the same way on its own;
3. a small gap (:data:`SMALL_GAP`) is diffed exactly by ``SequenceMatcher``; a large one with
   no such line (only repeated lines) by matching equal lines in order and, at a difference,
   going on from the best equal pair within :data:`LOOKAHEAD` lines.

Every step is linear (or n log n) in the lines it looks at, and the whole diff looks at each
line a bounded number of times (:data:`WORK_PER_LINE`): a 1 MB plan of repeated lines is
compared in well under a second (``make bench``). The result is always a valid diff — its
opcodes rebuild the new text — and, within a small gap, SequenceMatcher's; on large gaps of
repeated lines it may be a little longer than needed. The opcodes have
``SequenceMatcher.get_opcodes``'s shape.
"""

from __future__ import annotations

import difflib
import operator
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

Opcode = tuple[str, int, int, int, int]
# A run of equal lines: old[i:i+size] == new[j:j+size].
Block = tuple[int, int, int]

# Gaps of at most this many (old lines x new lines) are left to SequenceMatcher, which is
# exact and, at that size, fast.
SMALL_GAP = 2_500
# How far ahead the fallback looks for the next equal pair after a difference, and how many
# equal lines after a pair it counts to choose among them.
LOOKAHEAD = 32
RUN = 8
# Each line may be looked at this many times by the patience steps (a gap nested in a gap in a
# gap ...); past that, what is left is diffed by the linear fallback.
WORK_PER_LINE = 24


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


class _Differ:
    def __init__(self, old: Sequence[str], new: Sequence[str]) -> None:
        self.old, self.new = old, new
        self.blocks: list[Block] = []
        self.budget = WORK_PER_LINE * (len(old) + len(new)) + 10_000

    def run(self) -> list[Block]:
        # The gaps still to diff; each yields blocks inside its own bounds, so the order in
        # which they are taken does not matter (the blocks are sorted at the end).
        gaps = [(0, len(self.old), 0, len(self.new))]
        while gaps:
            gaps += self._gap(*gaps.pop())
        self.blocks.sort()
        return self.blocks

    def _gap(self, alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int, int, int]]:
        """Match what the gap's two ends share, then split it on its unique lines; returns
        the smaller gaps left to diff."""
        old, new = self.old, self.new
        limit = min(ahi - alo, bhi - blo)
        head = _common(lambda k: old[alo : alo + k] == new[blo : blo + k], limit)
        if head:
            self.blocks.append((alo, blo, head))
            alo, blo = alo + head, blo + head
        tail = _common(
            lambda k: old[ahi - k : ahi] == new[bhi - k : bhi] if k else True, limit - head
        )
        if tail:
            self.blocks.append((ahi - tail, bhi - tail, tail))
            ahi, bhi = ahi - tail, bhi - tail
        if alo == ahi or blo == bhi:
            return []
        if (ahi - alo) * (bhi - blo) <= SMALL_GAP:
            self._small(alo, ahi, blo, bhi)
            return []
        self.budget -= (ahi - alo) + (bhi - blo)
        anchors = self._anchors(alo, ahi, blo, bhi) if self.budget > 0 else []
        if not anchors:
            self._resync(alo, ahi, blo, bhi)
            return []
        gaps = []
        i, j = alo, blo
        for ai, bj in anchors:
            self.blocks.append((ai, bj, 1))
            if i < ai or j < bj:
                gaps.append((i, ai, j, bj))
            i, j = ai + 1, bj + 1
        if i < ahi or j < bhi:
            gaps.append((i, ahi, j, bhi))
        return gaps

    def _anchors(self, alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
        """Lines found exactly once in each side, the longest run of them in the same order."""
        # Counter, set and dict(zip()) loop in C: a megabyte of short lines stays fast.
        old, new = self.old[alo:ahi], self.new[blo:bhi]
        once_old = {line for line, n in Counter(old).items() if n == 1}
        once = once_old.intersection(line for line, n in Counter(new).items() if n == 1)
        if not once:
            return []
        at_old = dict(zip(old, range(alo, ahi), strict=True))
        at_new = dict(zip(new, range(blo, bhi), strict=True))
        # (old index, new index) of the lines unique on both sides, in old order.
        return _longest_increasing(sorted((at_old[line], at_new[line]) for line in once))

    def _small(self, alo: int, ahi: int, blo: int, bhi: int) -> None:
        matcher = difflib.SequenceMatcher(
            None, self.old[alo:ahi], self.new[blo:bhi], autojunk=False
        )
        for i, j, size in matcher.get_matching_blocks():
            if size:
                self.blocks.append((alo + i, blo + j, size))

    def _resync(self, alo: int, ahi: int, blo: int, bhi: int) -> None:
        """Equal lines matched in order; at a difference, on to the best nearby equal pair:
        the one followed by the longest run of equal lines (up to :data:`RUN`), less the lines
        it skips."""
        old, new = self.old, self.new
        shared = set(old[alo:ahi]).intersection(new[blo:bhi])
        if not shared:
            return  # nothing in common: one replacement
        where: dict[str, list[int]] = {}
        for j in range(blo, bhi):
            if new[j] in shared:
                where.setdefault(new[j], []).append(j)

        def run(i: int, j: int) -> int:
            length = 0
            while length < RUN and i + length < ahi and j + length < bhi:
                if old[i + length] != new[j + length]:
                    break
                length += 1
            return length

        i, j = alo, blo
        while i < ahi and j < bhi:
            if old[i] == new[j]:
                start_i, start_j = i, j
                while i < ahi and j < bhi and old[i] == new[j]:
                    i, j = i + 1, j + 1
                self.blocks.append((start_i, start_j, i - start_i))
                continue
            best: tuple[int, int] | None = None
            score = 0
            for ahead in range(i, min(i + LOOKAHEAD, ahi)):
                # Any pair further on skips at least this many lines: it cannot score more.
                if self.budget < 0 or (best is not None and RUN - (ahead - i) <= score):
                    break
                found = where.get(old[ahead])
                if not found:
                    continue
                # The first equal line from here on, and the one on this diagonal (a line
                # replaced by another keeps the rest aligned).
                for target in (j, j + ahead - i):
                    k = bisect_left(found, target)
                    if k == len(found) or found[k] - j >= LOOKAHEAD:
                        continue
                    self.budget -= RUN
                    gain = run(ahead, found[k]) - (ahead - i) - (found[k] - j)
                    if best is None or gain > score:
                        best, score = (ahead, found[k]), gain
            if best is None:
                if self.budget < 0:
                    return  # the rest of this gap is one replacement
                i = min(i + LOOKAHEAD, ahi)  # none of these lines comes again soon: deleted
            else:
                i, j = best


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by their first item) whose second items
    increase (patience sorting)."""
    seconds = [j for _, j in pairs]
    if all(map(operator.lt, seconds, seconds[1:])):
        return pairs  # already in order: a revision that moved no line
    tops: list[int] = []  # the second item on top of each pile
    top_index: list[int] = []  # the pair on top of each pile
    previous: list[int] = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        pile = bisect_left(tops, j)
        if pile == len(tops):
            tops.append(j)
            top_index.append(n)
        else:
            tops[pile] = j
            top_index[pile] = n
        previous[n] = top_index[pile - 1] if pile else -1
    found: list[tuple[int, int]] = []
    n = top_index[-1] if top_index else -1
    while n >= 0:
        found.append(pairs[n])
        n = previous[n]
    found.reverse()
    return found


def matching_blocks(old: Sequence[str], new: Sequence[str]) -> list[Block]:
    """The runs of equal lines of the diff, in order, adjacent runs joined."""
    joined: list[Block] = []
    for i, j, size in _Differ(old, new).run():
        if joined and joined[-1][0] + joined[-1][2] == i and joined[-1][1] + joined[-1][2] == j:
            last = joined.pop()
            joined.append((last[0], last[1], last[2] + size))
        else:
            joined.append((i, j, size))
    return joined


def opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """How to turn ``old`` into ``new``, in ``SequenceMatcher.get_opcodes()``'s shape."""
    found: list[Opcode] = []
    i = j = 0
    for ai, bj, size in [*matching_blocks(old, new), (len(old), len(new), 0)]:
        if i < ai and j < bj:
            found.append(("replace", i, ai, j, bj))
        elif i < ai:
            found.append(("delete", i, ai, j, bj))
        elif j < bj:
            found.append(("insert", i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            found.append(("equal", ai, i, bj, j))
    return found


def _grouped(codes: list[Opcode], context: int) -> Iterator[list[Opcode]]:
    """The changes with ``context`` equal lines around each, as ``get_grouped_opcodes``."""
    if not codes:
        codes = [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        _, i1, i2, j1, j2 = codes[0]
        codes[0] = ("equal", max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    if codes[-1][0] == "equal":
        _, i1, i2, j1, j2 = codes[-1]
        codes[-1] = ("equal", i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    span = context + context
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        # A long stretch of equal lines ends a group and starts the next one.
        if tag == "equal" and i2 - i1 > span:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    """A unified diff's line range, as difflib writes it."""
    beginning = start + 1
    length = stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def unified_diff(
    old: Sequence[str], new: Sequence[str], fromfile: str, tofile: str, context: int = 3
) -> Iterator[str]:
    """``difflib.unified_diff`` of lines with their endings, computed with :func:`opcodes`."""
    started = False
    for group in _grouped(opcodes(old, new), context):
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for line in old[i1:i2]:
                    yield " " + line
                continue
            if tag in ("replace", "delete"):
                for line in old[i1:i2]:
                    yield "-" + line
            if tag in ("replace", "insert"):
                for line in new[j1:j2]:
                    yield "+" + line
