"""The agent's revisions of a plan the user saw: hunks between that text and the plan now.

Once the user has seen a plan (its approval is pending, or it was rejected), an agent's
revision is shown hunk by hunk. Each :class:`Hunk` says which lines of the current text
replace which lines of the seen text. Keeping a hunk folds it into the seen text; undoing it
puts the seen lines back into the plan (the caller applies that as an editor edit).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from planmode.core.linediff import opcodes
from planmode.core.lines import lsp_lines


@dataclass(frozen=True)
class Hunk:
    # Lines [start, start + len(new_lines)) of the current text replace old_lines of the seen
    # text, which began at seen_start there.
    start: int
    new_lines: tuple[str, ...]
    seen_start: int
    old_lines: tuple[str, ...]

    @property
    def id(self) -> str:
        """Stable for the same change at the same place; changes when either side changes."""
        digest = hashlib.sha256()
        for part in (
            str(self.start),
            str(self.seen_start),
            *self.old_lines,
            "\x00",
            *self.new_lines,
        ):
            digest.update(part.encode("utf-8") + b"\x01")
        return digest.hexdigest()[:16]

    @property
    def counts(self) -> tuple[int, int]:
        return len(self.new_lines), len(self.old_lines)


def hunks(seen: str, current: str) -> list[Hunk]:
    """The changes from ``seen`` to ``current``, one per contiguous block of changed lines."""
    if seen == current:
        return []
    old, new = lsp_lines(seen, keepends=True), lsp_lines(current, keepends=True)
    return [
        Hunk(j1, tuple(new[j1:j2]), i1, tuple(old[i1:i2]))
        for tag, i1, i2, j1, j2 in opcodes(old, new)
        if tag != "equal"
    ]


def keep(seen: str, current: str, hunk: Hunk) -> str:
    """The seen text with ``hunk`` accepted: its new lines take the old ones' place."""
    old = lsp_lines(seen, keepends=True)
    if tuple(old[hunk.seen_start : hunk.seen_start + len(hunk.old_lines)]) != hunk.old_lines:
        raise ValueError("the hunk no longer matches what was seen")
    return "".join(
        old[: hunk.seen_start] + list(hunk.new_lines) + old[hunk.seen_start + len(hunk.old_lines) :]
    )


def undo(current: str, hunk: Hunk) -> str:
    """The current text with ``hunk`` reverted to the seen lines."""
    new = lsp_lines(current, keepends=True)
    if tuple(new[hunk.start : hunk.start + len(hunk.new_lines)]) != hunk.new_lines:
        raise ValueError("the hunk no longer matches the plan")
    return "".join(
        new[: hunk.start] + list(hunk.old_lines) + new[hunk.start + len(hunk.new_lines) :]
    )


def summary(hunk: Hunk, width: int = 48) -> str:
    """What an Undo would bring back, short enough for a lens title."""
    if not hunk.old_lines:
        return f"removes {len(hunk.new_lines)} added line(s)"
    first = hunk.old_lines[0].strip() or "(blank line)"
    if len(first) > width:
        first = first[: width - 1] + "…"
    more = f" +{len(hunk.old_lines) - 1} more" if len(hunk.old_lines) > 1 else ""
    return f"restores “{first}”{more}"
