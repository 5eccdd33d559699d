"""The lead's side of teammate approvals: notice new plan approval requests in the inboxes.

A teammate's request lands in ``<root>/.claude/teams/<team>/inboxes/team-lead.jsonl``, written
by the teammate's own process. This watcher polls those inboxes; for each new request the
lead's editor is told (``planMode/approvalRequested``, a message, the plan shown) and its code
lenses refreshed, so the lead approves or rejects from the plan file itself.
"""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types

from planmode.core.teams import PendingRequest
from planmode.lsp import protocol
from planmode.lsp.features.approval import review_message
from planmode.lsp.results import Approval
from planmode.lsp.server import PlanModeServer

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5


def announce(server: PlanModeServer, request: PendingRequest) -> None:
    server.notify(protocol.APPROVAL_REQUESTED, Approval.model_validate(request))
    who = f"Teammate {request.agent} ({request.team})"
    server.show_message(review_message(server, request.plan_file_path, who), types.MessageType.Info)
    if server.client_supports("window", "show_document", "support"):
        server.run_task(
            server.window_show_document_async(
                types.ShowDocumentParams(uri=request.plan_file_path.as_uri(), take_focus=False)
            )
        )


async def watch(server: PlanModeServer) -> None:
    seen: set[str] = set()
    while not server.stopping:
        await asyncio.sleep(POLL_SECONDS)
        try:  # nothing but a failed open when the workspace has no team mailboxes
            current = {r.request_id: r for r in server.service.teammate_requests()}
        except OSError as exc:
            log.warning("cannot read the team inboxes: %s", exc)
            continue
        new = [r for rid, r in current.items() if rid not in seen]
        for request in new:
            announce(server, request)
        if new or seen - current.keys():
            server.refresh_code_lenses()
        seen = set(current)
