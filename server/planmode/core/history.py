"""Plan history: every version of a plan file, with who wrote it, when and why.

Revisions of ``<plans>/<name>.md`` are JSON lines in
``<root>/.claude/plan-mode/history/<name>.jsonl`` (appended under a lock, like every JSONL file
here, never through a symlink: :mod:`planmode.core.state_dir`). A revision holds the whole
text, so any two can be diffed without replaying anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from planmode.core.approval import now_iso, plan_digest
from planmode.core.comments import Comment
from planmode.core.linediff import unified_diff
from planmode.core.state_dir import STATE, StatePlace

Author = Literal["agent", "user"]


@dataclass(frozen=True)
class Revision:
    id: int
    author: Author
    time: str
    reason: str
    text: str
    # The review comments the user decided with (a rejection's feedback, an approval's notes).
    comments: tuple[Comment, ...] = ()

    # Listed by its size rather than its text (planMode/listRevisions).
    @property
    def size_bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    @property
    def lines(self) -> int:
        return len(self.text.splitlines())


class PlanHistory:
    def __init__(self, root: Path | StatePlace) -> None:
        self.state = StatePlace.of(root, STATE)
        self.root = self.state.root
        # plan file -> (latest id, digest of its text): recording then needs no re-read of
        # a history that may hold many megabytes.
        self._latest: dict[Path, tuple[int, str]] = {}

    @staticmethod
    def _name(plan_file: Path) -> tuple[str, str]:
        return ("history", f"{plan_file.stem}.jsonl")

    def path(self, plan_file: Path) -> Path:
        """Where the plan's history is kept now."""
        return self.state.path(self._name(plan_file))

    def revisions(self, plan_file: Path) -> list[Revision]:
        found = []
        for line in self.state.read_lines(self._name(plan_file)):
            try:
                found.append(
                    Revision(
                        int(line["id"]),
                        "user" if line.get("author") == "user" else "agent",
                        str(line.get("time", "")),
                        str(line.get("reason", "")),
                        str(line["text"]),
                        tuple(Comment.from_json(c) for c in line.get("comments") or ()),
                    )
                )
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
        return found

    def latest(self, plan_file: Path) -> Revision | None:
        revisions = self.revisions(plan_file)
        return revisions[-1] if revisions else None

    def record(
        self,
        plan_file: Path,
        text: str,
        author: Author,
        reason: str,
        comments: Sequence[Comment] = (),
    ) -> Revision | None:
        """Keep ``text`` as a new revision, unless it is what the latest one already holds
        (a decision with review comments is always kept: the comments are news)."""
        latest = self._latest.get(plan_file)
        if latest is None:
            revisions = self.revisions(plan_file)
            latest = (revisions[-1].id, plan_digest(revisions[-1].text)) if revisions else (0, "")
        digest = plan_digest(text)
        if latest[0] and latest[1] == digest and not comments:
            self._latest[plan_file] = latest
            return None
        revision = Revision(latest[0] + 1, author, now_iso(), reason, text, tuple(comments))
        line: dict[str, Any] = {
            "id": revision.id,
            "author": author,
            "time": revision.time,
            "reason": reason,
            "path": str(plan_file),
            "text": text,
        }
        if comments:
            line["comments"] = [c.to_json() for c in comments]
        self.state.append_line(self._name(plan_file), line)
        self._latest[plan_file] = (revision.id, digest)
        return revision

    def diff(self, plan_file: Path, old_id: int, new_id: int) -> str:
        """The unified diff from revision ``old_id`` to ``new_id``; KeyError for unknown ids."""
        by_id = {r.id: r for r in self.revisions(plan_file)}
        old, new = by_id[old_id], by_id[new_id]
        lines = unified_diff(
            old.text.splitlines(keepends=True),
            new.text.splitlines(keepends=True),
            fromfile=f"{plan_file.name}@{old.id} ({old.author}, {old.reason})",
            tofile=f"{plan_file.name}@{new.id} ({new.author}, {new.reason})",
        )
        # A last line without a newline must not run into the next diff line (as in diff -u).
        return "".join(
            line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n"
            for line in lines
        )
