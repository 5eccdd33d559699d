"""Code actions on a plan under review: the lenses' decisions for editors without lenses.

eglot, Helix and Neovim's ``vim.lsp.buf.code_action()`` show no code lenses, but all offer
code actions. Every decision of :func:`planmode.lsp.features.codelens.plan_decisions` becomes one:
the approval's (and a teammate request's) anywhere in the plan, a hunk's Keep and Undo where
the requested range touches the hunk. Same titles, commands, arguments and ``planSha256`` as
the lenses, so a decision added there is offered here too.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from planmode.lsp.features import library, progress
from planmode.lsp.features.codelens import Lines, plan_decisions
from planmode.lsp.server import PlanModeServer, uri_to_path

KIND = types.CodeActionKind.QuickFix


def touches(lines: Lines, requested: types.Range) -> bool:
    if lines is None:
        return True
    first, last = lines
    return requested.start.line <= last and first <= requested.end.line


def wanted(only: Sequence[str] | None) -> bool:
    """Whether the client's ``context.only`` filter lets this module's kind through."""
    return only is None or any(kind == KIND or KIND.startswith(f"{kind}.") for kind in only)


def code_actions(
    server: PlanModeServer, params: types.CodeActionParams
) -> list[types.CodeAction | types.Command]:
    path = uri_to_path(params.text_document.uri)
    if path is None or not wanted(params.context.only):
        return []
    commands = [
        lens.command
        for lens, lines in plan_decisions(server, path)
        if lens.command is not None and touches(lines, params.range)
    ]
    # After approval: marking the steps on these lines, allowing a drifting file.
    commands += progress.actions(server, path, params.range)
    # A saved plan: taking it up again.
    commands += library.actions(server, path)
    # A client without codeActionLiteralSupport takes bare commands (LSP 3.8).
    if not server.client_supports("text_document", "code_action", "code_action_literal_support"):
        return list(commands)
    return [types.CodeAction(title=c.title, kind=KIND, command=c) for c in commands]


def register(server: PlanModeServer) -> None:
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[KIND], resolve_provider=False),
    )(code_actions)
