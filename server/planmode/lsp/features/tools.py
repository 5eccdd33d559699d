"""``planMode/checkTool``: may the agent run this tool call now? (docs/protocol.md §6)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from planmode.agents.claude_code.adapter import ClaudeCodeCall
from planmode.core.errors import PlanModeError
from planmode.core.permissions import EDIT_TOOLS
from planmode.core.session import Session
from planmode.lsp import protocol
from planmode.lsp.features import revisionmarks
from planmode.lsp.features.agents import (
    agent_call,
    own_rules,
    own_sandbox,
    own_tools,
    plan_in_exit,
)
from planmode.lsp.features.approval import follow_agent
from planmode.lsp.features.buffers import Buffers, follow_write
from planmode.lsp.features.state import session_for
from planmode.lsp.params import CheckToolParams
from planmode.lsp.results import CheckToolResult
from planmode.lsp.server import Feature, PlanModeServer
from planmode.lsp.transport.endpoint import Endpoint

log = logging.getLogger(__name__)

# An agent may report its plan file late: Claude Code writes its transcript asynchronously, so
# the first tool call of a session may come before the lines that name the plan file. A write
# while planning waits this long for them, once per session: a transcript that names none by
# then (missing, or no slug) will not on the next call either, and every write waiting again
# would cost each one the wait.
TRANSCRIPT_WAIT = 1.0
TRANSCRIPT_POLL = 0.05


class TranscriptWaits(Feature):
    """Session id -> its one wait for the agent's transcript to name the plan file: shared by
    concurrent calls, never repeated."""

    def __init__(self) -> None:
        self.waits: dict[str, asyncio.Future[None]] = {}


async def check_tool(server: PlanModeServer, params: CheckToolParams) -> CheckToolResult:
    session = session_for(server, params)
    call = agent_call(server, params, params.cwd)
    follow_agent(server, session, params, call)
    if (
        params.tool in EDIT_TOOLS
        and isinstance(call, ClaudeCodeCall)
        and call.transcript is not None
        and session.modes.mode == "plan"
        and session.plan_file is None
    ):
        waits = server.get_feature(TranscriptWaits).waits
        wait = waits.get(session.id)
        if wait is None:
            wait = server.run_task(wait_for_plan_file(server, session, params, call))
            waits[session.id] = wait
        # Shielded: a caller that goes away does not end the wait the others share.
        await asyncio.shield(wait)
    directory = server.get_feature(Endpoint).directory
    hide = [str(directory)] if directory else []
    decision = server.service.check_tool(
        session,
        params.tool,
        params.input,
        params.agent_id,
        hide,
        own_rules(call),
        params.cwd,
        own_tools(call),
        plan_in_exit(call),
        own_sandbox(call),
    )
    if decision.behavior != "deny":
        follow_plan_write(server, params)
    return CheckToolResult.model_validate(decision)


def follow_plan_write(server: PlanModeServer, params: CheckToolParams) -> None:
    """The agent's own Write or Edit of a plan open in the editor may run: the buffer follows
    the file once it is written (lsp/features/buffers.py), in an editor that reloads nothing
    too."""
    written = server.service.review.agent_write(params.tool, params.input)
    if written is not None and server.get_feature(Buffers).document(written[0]) is not None:
        server.run_task(follow(server, *written))


async def follow(server: PlanModeServer, path: Path, text: str) -> None:
    if await follow_write(server, path, text):
        # A revision of a plan under review, recorded as the agent's, and marked at once.
        server.service.observe(path)
        revisionmarks.refresh(server, path)


async def wait_for_plan_file(
    server: PlanModeServer, session: Session, params: CheckToolParams, call: ClaudeCodeCall
) -> None:
    """Learn the agent's plan file as it reports it (Claude Code's transcript, as the lines
    arrive), for at most :data:`TRANSCRIPT_WAIT`; what is known then decides, now and for the
    session's later calls."""
    for _ in range(int(TRANSCRIPT_WAIT / TRANSCRIPT_POLL)):
        await asyncio.sleep(TRANSCRIPT_POLL)
        try:
            follow_agent(server, session, params, call)
        except PlanModeError as exc:  # shared by later calls: it must end, not raise
            log.warning("session %s: %s", session.id, exc.message)
            return
        if session.plan_file is not None:
            return
    log.warning(
        "session %s: Claude Code's transcript %s named no plan file within %.1f s; deciding "
        "without it from now on",
        session.id,
        call.transcript,
        TRANSCRIPT_WAIT,
    )


def register(server: PlanModeServer) -> None:
    server.add_feature(TranscriptWaits())
    server.request(protocol.CHECK_TOOL, CheckToolParams)(check_tool)
