"""Review comments shown in the editor: diagnostics of their own on each comment.

A comment the user wrote in the plan is an Information diagnostic on its lines; one that no
longer matches the text it was sent about is marked outdated; comments sent with the last
rejection that the agent's revision no longer holds are Hints on the text they now annotate
(or, when that text changed, on the heading they were under). A comment the user did not write
in the editor (the agent's) is a Warning saying it is not theirs and is never sent as theirs.
The syntax and what reaches the agent: README "Reviewing with comments".
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from planmode.core import comments
from planmode.core.comments import Comment
from planmode.core.lines import lsp_lines
from planmode.lsp.server import PlanModeServer

SOURCE = "planmode review"
_PREVIEW = 60


def _quote(comment: Comment) -> str:
    flat = " ".join(comment.anchor.quote.split())
    if not flat:
        return "the plan as a whole"
    return f"“{flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 1] + '…'}”"


def _diagnostic(
    lines: list[str],
    first: int,
    last: int,
    message: str,
    severity: types.DiagnosticSeverity,
    code: str,
) -> types.Diagnostic:
    first = max(0, min(first, len(lines) - 1))
    last = max(first, min(last, len(lines) - 1))
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=first, character=0),
            end=types.Position(line=last, character=len(lines[last])),
        ),
        message=message,
        severity=severity,
        code=code,
        source=SOURCE,
    )


def _heading_line(text_lines: list[str], plain_to_doc: list[int], comment: Comment) -> int:
    """The document line of the innermost heading an outdated comment was under, else 0."""
    if not comment.anchor.heading_path:
        return 0
    title = comment.anchor.heading_path[-1]
    for doc in plain_to_doc:
        line = text_lines[doc].lstrip()
        if line.startswith("#") and line.lstrip("#").strip().rstrip("#").strip() == title:
            return doc
    return 0


def diagnostics(server: PlanModeServer, path: Path, text: str) -> list[types.Diagnostic]:
    live, earlier = server.service.comment_view(path, text)
    others = server.service.others_comments(path, text)
    if not live and not earlier and not others:
        return []
    lines = lsp_lines(text) or [""]
    found = [
        _diagnostic(
            lines,
            comment.start,
            comment.end - 1,
            f"Not your comment: this {comments.MARKER} was not written in the editor (the "
            "agent wrote it), so it is not sent as yours",
            types.DiagnosticSeverity.Warning,
            "review-comment-agent",
        )
        for comment in others
    ]
    for comment in live:
        if not comment.text:
            message = f"Empty review comment: write it after {comments.MARKER}"
            found.append(
                _diagnostic(
                    lines,
                    comment.start,
                    comment.end - 1,
                    message,
                    types.DiagnosticSeverity.Hint,
                    "review-comment-empty",
                )
            )
            continue
        if comment.outdated:
            message = (
                f"Outdated comment (the text it was sent about changed): {comment.text}"
                f" — now on {_quote(comment)}"
            )
            code = "review-comment-outdated"
        else:
            message = f"Comment for the agent on {_quote(comment)}: {comment.text}"
            code = "review-comment"
        found.append(
            _diagnostic(
                lines,
                comment.start,
                comment.end - 1,
                message,
                types.DiagnosticSeverity.Information,
                code,
            )
        )
    plain_to_doc = comments.document_lines(text)
    for comment in earlier:
        if comment.outdated:
            line = _heading_line(lines, plain_to_doc, comment)
            message = (
                f"Outdated comment (sent with the last rejection; the text it was on changed): "
                f"{comment.text} — was on {_quote(comment)}"
            )
            code = "review-comment-outdated"
        else:
            index = comment.anchor.line
            line = plain_to_doc[index] if 0 <= index < len(plain_to_doc) else 0
            message = f"Comment sent with the last rejection, on {_quote(comment)}: {comment.text}"
            code = "review-comment-sent"
        found.append(_diagnostic(lines, line, line, message, types.DiagnosticSeverity.Hint, code))
    return found
