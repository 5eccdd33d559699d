"""Who wrote a plan's text, and what each pending decision last showed the user.

A plan under review holds text from two sides. The server tells them apart by where the text
came from (docs/protocol.md §5.1, "Who wrote what"):

* **the user's** is what the user typed in the editor connected to this server: a change of
  the plan's open buffer (``textDocument/didChange``) that is neither an edit the server sent
  (the agent's ``planMode/applyEdit``, a submitted plan), nor a text the agent's own Write or
  Edit was allowed to put in the file, nor the editor reloading the file. A change that leaves
  the buffer equal to the file is a reload unless the editor saves that text next (eglot and
  Neovim send the typing they held back right after writing the file, then ``didSave``);
* everything else is **not the user's**: the agent's submissions and edits, and any change of
  the file on disk that the user did not make in the editor (the agent's own Write or Edit,
  another program).

From that, per plan: the texts whose author is known, and the review comments the user added
in the editor (counted by their text: a comment the agent wrote is never the user's, even
when the user's has the same words elsewhere). And per decision (an approval id): the digest
of the text it last showed the user — set when the lenses or code actions are computed, when
the user changes the buffer, and at submission — which a decision without a digest must match.
The server keeps this for as long as it runs.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from planmode.core.approval import plan_digest
from planmode.core.comments import Comment, parse

Author = Literal["agent", "user"]

# Texts remembered per plan: enough for an editing session, bounded for a long one.
KNOWN_TEXTS = 512


def _comment_texts(text: str) -> Counter[str]:
    return Counter(comment.text for comment in parse(text))


@dataclass
class _Plan:
    # digest -> author, oldest first.
    known: OrderedDict[str, Author] = field(default_factory=OrderedDict)
    # The comments the open buffer held after the last change seen (None: not open).
    buffer_comments: Counter[str] | None = None
    # Comments (by their text) the user added in the editor and has not removed since.
    user_comments: Counter[str] = field(default_factory=Counter)
    # A change that left the buffer equal to the file, not known to be anyone's: a reload,
    # unless the editor saves it next. (digest, the comments it added)
    unsure: tuple[str, Counter[str]] | None = None


class Provenance:
    def __init__(self) -> None:
        self._plans: dict[Path, _Plan] = {}
        # decision id (an approval id) -> digest of the text it last showed the user
        self._shown: dict[str, str] = {}

    def _plan(self, path: Path) -> _Plan:
        return self._plans.setdefault(path, _Plan())

    # -- texts ----------------------------------------------------------------------------
    def wrote(self, path: Path, text: str, author: Author) -> None:
        """``author`` wrote ``text`` (or the server is about to bring it into the buffer on
        their behalf: an agent's edit, the user's Undo)."""
        known = self._plan(path).known
        key = plan_digest(text)
        known.pop(key, None)
        known[key] = author
        while len(known) > KNOWN_TEXTS:
            known.popitem(last=False)

    def author(self, path: Path, text: str) -> Author | None:
        plan = self._plans.get(path)
        return None if plan is None else plan.known.get(plan_digest(text))

    def is_users(self, path: Path, text: str) -> bool:
        return self.author(path, text) == "user"

    # -- the editor's buffer ----------------------------------------------------------------
    def opened(self, path: Path, text: str) -> None:
        """The editor opened the plan holding ``text`` (the file: nobody's edit)."""
        self._plan(path).buffer_comments = _comment_texts(text)

    def closed(self, path: Path) -> None:
        plan = self._plans.get(path)
        if plan is not None:
            plan.buffer_comments = None

    def changed(self, path: Path, text: str, disk: str | None) -> Author | None:
        """The buffer now holds ``text``: whose change was it? A text the server knows keeps
        its author; one equal to the file on disk is the editor reloading it (nobody's);
        anything else the user typed."""
        plan = self._plan(path)
        key = plan_digest(text)
        author = plan.known.get(key)
        if author is None and text != disk:
            author = "user"
            self.wrote(path, text, "user")
        before = plan.buffer_comments
        if before is None:
            before = _comment_texts(disk or "")
        after = _comment_texts(text)
        plan.unsure = (key, after - before) if author is None else None
        if author == "user":
            plan.user_comments.update(after - before)
        # Removed, by anyone: no longer the user's (the agent writing it back is the agent's).
        plan.user_comments.subtract(before - after)
        plan.user_comments = +plan.user_comments
        plan.buffer_comments = after
        return author

    def saved(self, path: Path, text: str) -> bool:
        """The editor saved its buffer holding ``text``. A change just before that left the
        buffer equal to the file was the user's, flushed at the save: True then."""
        plan = self._plans.get(path)
        if plan is None or plan.unsure is None or plan.unsure[0] != plan_digest(text):
            return False
        added = plan.unsure[1]
        plan.unsure = None
        self.wrote(path, text, "user")
        plan.user_comments.update(added)
        return True

    # -- comments ---------------------------------------------------------------------------
    def users_comments(self, path: Path, found: Iterable[Comment]) -> list[Comment]:
        """Of the comments written in the plan, in order, those the user wrote in the editor."""
        plan = self._plans.get(path)
        left = Counter() if plan is None else Counter(plan.user_comments)
        mine = []
        for comment in found:
            if left[comment.text] > 0:
                left[comment.text] -= 1
                mine.append(comment)
        return mine

    def others_comments(self, path: Path, found: Sequence[Comment]) -> list[Comment]:
        """The comments written in the plan that the user did not write (the agent's)."""
        mine = {id(c) for c in self.users_comments(path, found)}
        return [c for c in found if id(c) not in mine]

    # -- what a decision showed ---------------------------------------------------------------
    def show(self, decision_id: str, text: str) -> None:
        self._shown[decision_id] = plan_digest(text)

    def shown(self, decision_id: str) -> str | None:
        """The digest of the text the decision last showed the user, if any."""
        return self._shown.get(decision_id)

    def decided(self, decision_id: str) -> None:
        self._shown.pop(decision_id, None)

    def forget(self, path: Path) -> None:
        """No review of ``path`` any more: who wrote what in it no longer matters."""
        self._plans.pop(path, None)
