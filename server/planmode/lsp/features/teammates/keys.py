"""Teammate answer keys between servers (docs/protocol.md §5.1, "Teammates: authenticated answers").

Teammate side: once a plan approval request is in the lead's inbox, its key goes to every lead
server of the same workspace — found through the ``server.json`` each server writes in its
own 0700 endpoint directory — with ``planMode/teammateKey`` over that server's agent endpoint
(a Unix socket only this user can reach). It is sent again on each of the teammate's turns
while the answer is awaited, so a lead server started (or restarted) later gets it too.

Lead side: ``planMode/teammateKey`` stores the key (the first one for a request id stays);
only requests with a key are shown and can be answered, and the answer is authenticated with
it (:mod:`planmode.core.teams`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from planmode.core.errors import InvalidParams
from planmode.core.session import Session
from planmode.lsp import protocol
from planmode.lsp.params import TeammateKeyParams, describe_validation_error
from planmode.lsp.results import OkResult
from planmode.lsp.server import PlanModeServer
from planmode.lsp.transport.discovery import Connection, NoServer, RpcError
from planmode.lsp.transport.endpoint import SERVER_INFO, Endpoint, runtime_base

log = logging.getLogger(__name__)

PUSH_TIMEOUT = 2.0


def lead_sockets(root: Path, own: Path | None) -> list[Path]:
    """Agent sockets of the other servers of ``root`` run by this user (leads and teammates
    alike: a teammate's server refuses a key)."""
    found = []
    for directory in sorted(runtime_base().glob("pm-*")):
        try:
            info = directory.lstat()
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
                continue
            described = json.loads((directory / SERVER_INFO).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        sock = directory / "agent.sock"
        if isinstance(described, dict) and described.get("root") == str(root) and sock != own:
            found.append(sock)
    return found


def _push(sock: Path, params: dict[str, Any]) -> bool:
    try:
        with Connection(str(sock), timeout=PUSH_TIMEOUT) as connection:
            connection.request(protocol.TEAMMATE_KEY, params)
        return True
    except RpcError as exc:
        log.debug("%s did not take the key: %s", sock, exc.message)
    except (NoServer, OSError, ValueError) as exc:
        log.debug("cannot reach %s: %s", sock, exc)
    return False


async def deliver(server: PlanModeServer, session: Session) -> bool:
    """Hand the key of the request ``session`` awaits an answer to to the lead's servers;
    True when at least one took it."""
    held = server.service.own_request_key(session)
    teammate = server.service.settings.teammate
    if held is None or teammate is None:
        return False
    request_id, key, digest = held
    try:
        params = TeammateKeyParams.build(
            root=str(server.service.root),
            team_name=teammate.teamName,
            agent_name=teammate.agentName,
            request_id=request_id,
            key=key.hex(),
            plan_sha256=digest,
        ).wire()
    except ValidationError as exc:
        # What every lead's server would refuse (a team or agent name it does not accept, say)
        # is not sent: the same outcome, the request is not shown to the lead, said once here.
        log.warning(
            "the key of %s is not sent to the lead's servers: %s",
            request_id,
            describe_validation_error(exc, protocol.TEAMMATE_KEY),
        )
        return False
    own = server.get_feature(Endpoint).socket_path
    sockets = lead_sockets(server.service.root, own)
    taken = await asyncio.to_thread(lambda: [_push(sock, params) for sock in sockets])
    if not any(taken):
        log.warning(
            "no lead's plan-mode server for %s took the key of %s yet; it is sent again on "
            "the next turn",
            server.service.root,
            request_id,
        )
    return any(taken)


def teammate_key(server: PlanModeServer, params: TeammateKeyParams) -> OkResult:
    service = server.service
    if Path(params.root) != service.root:
        raise InvalidParams(f"root: this server serves {service.root}, not {params.root}")
    service.receive_request_key(
        params.request_id,
        bytes.fromhex(params.key),
        params.plan_sha256,
        params.team_name,
        params.agent_name,
    )
    return OkResult()


def register(server: PlanModeServer) -> None:
    server.request(protocol.TEAMMATE_KEY, TeammateKeyParams)(teammate_key)
