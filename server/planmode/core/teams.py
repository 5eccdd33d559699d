"""Team mailboxes: JSONL inboxes under ``<root>/.claude/teams/<team>/inboxes/``.

A teammate whose plan needs the lead's approval appends a ``plan_approval_request`` to the
lead's inbox (``team-lead.jsonl``) and keeps planning until a ``plan_approval_response`` for
its request id arrives in its own inbox. Appends go through :mod:`planmode.core.jsonl`:
one JSON line under an exclusive file lock, so concurrent writers never interleave. Inboxes
are reached without following a symlink; one that cannot be is kept in the user's state
directory instead, where every server of the workspace looks for it
(:mod:`planmode.core.state_dir`).

Inboxes are files anyone can append to, so an answer counts only when it is authenticated
(docs/protocol.md §5.1, *Teammates*): the teammate's server makes a random 32-byte key per request,
keeps it in memory and hands it only to the lead's server, over the lead's agent endpoint; the
lead's answer carries ``auth``, an HMAC-SHA256 with that key over the request id, the
decision, the mode and the feedback (:func:`answer_mac`). An answer line without a valid
``auth``, or with a mode other than :data:`ANSWER_MODES`, is ignored. The lead answers only
requests whose key it holds and whose plan is the one the key was given for; a second request
line with an id already seen is ignored (the first stays).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planmode.core.approval import AllowedPrompt, now_iso, plan_digest
from planmode.core.plans import SAFE_ID_RE
from planmode.core.state_dir import TEAMS, StatePlace

log = logging.getLogger(__name__)

LEAD = "team-lead"
REQUEST = "plan_approval_request"
RESPONSE = "plan_approval_response"
# What the lead's lenses offer a teammate's plan: approve (the teammate's default exit) or
# approve into acceptEdits. Never bypassPermissions, auto or plan.
ANSWER_MODES = frozenset({"default", "acceptEdits"})
KEY_BYTES = 32


def _segment(name: str, what: str) -> str:
    if not SAFE_ID_RE.match(name):
        raise ValueError(f"{what} {name!r} is not a safe file-name segment")
    return name


def _inbox(team: str, member: str) -> tuple[str, str, str]:
    return (_segment(team, "teamName"), "inboxes", f"{_segment(member, 'agentName')}.jsonl")


def mailboxes(root: Path | StatePlace) -> StatePlace:
    """The team mailboxes of the workspace ``root`` (``<root>/.claude/teams``)."""
    return StatePlace.of(root, TEAMS)


def inbox_path(root: Path | StatePlace, team: str, member: str) -> Path:
    """Where ``member``'s inbox in ``team`` is kept now."""
    return mailboxes(root).path(_inbox(team, member))


def payload(message: dict[str, Any]) -> dict[str, Any] | None:
    """The structured content of a mailbox message (its ``text`` holds JSON)."""
    text = message.get("text")
    if isinstance(text, str):
        try:
            decoded = json.loads(text)
        except ValueError:
            return None
        return decoded if isinstance(decoded, dict) else None
    return message if "type" in message else None


def new_request_id(agent_name: str, team_name: str) -> str:
    return f"plan_approval-{agent_name}@{team_name}-{secrets.token_hex(4)}"


def submit_plan(root: Path | StatePlace, team: str, agent: str, plan_path: Path, plan: str) -> str:
    """Append a plan_approval_request to the lead's inbox; returns its request id."""
    request_id = new_request_id(agent, team)
    stamp = now_iso()
    request = {
        "type": REQUEST,
        "from": agent,
        "timestamp": stamp,
        "planFilePath": str(plan_path),
        "planContent": plan,
        "requestId": request_id,
    }
    mailboxes(root).append_line(
        _inbox(team, LEAD), {"from": agent, "text": json.dumps(request), "timestamp": stamp}
    )
    return request_id


@dataclass(frozen=True)
class LeaderResponse:
    request_id: str
    approved: bool
    feedback: str | None = None
    permission_mode: str | None = None


def new_request_key() -> bytes:
    return secrets.token_bytes(KEY_BYTES)


def answer_mac(
    key: bytes, request_id: str, approved: bool, permission_mode: str | None, feedback: str | None
) -> str:
    """HMAC-SHA256 (hex) with the request's key over the answer, as compact JSON
    ``[requestId, approved, permissionMode, feedback]`` (UTF-8)."""
    message = json.dumps(
        [request_id, approved, permission_mode, feedback], separators=(",", ":"), ensure_ascii=False
    )
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).hexdigest()


def _verified(content: dict[str, Any], request_id: str, key: bytes) -> LeaderResponse | None:
    approved = content.get("approved")
    feedback = content.get("feedback")
    mode = content.get("permissionMode")
    auth = content.get("auth")
    if not isinstance(approved, bool) or not isinstance(auth, str):
        return None
    if feedback is not None and not isinstance(feedback, str):
        return None
    if mode is not None and mode not in ANSWER_MODES:
        return None
    expected = answer_mac(key, request_id, approved, mode, feedback)
    if not hmac.compare_digest(auth.encode("ascii", "replace"), expected.encode("ascii")):
        return None
    return LeaderResponse(request_id, approved, feedback, mode)


def find_response(
    root: Path | StatePlace, team: str, agent: str, request_id: str, key: bytes
) -> LeaderResponse | None:
    """The lead's answer to ``request_id`` in the teammate's inbox: the first line for it
    that ``key`` authenticates. Any other line for it is ignored (and logged)."""
    for message in mailboxes(root).read_lines(_inbox(team, agent)):
        content = payload(message)
        if content and content.get("type") == RESPONSE and content.get("requestId") == request_id:
            response = _verified(content, request_id, key)
            if response is not None:
                return response
            log.debug(
                "ignored an answer to %s in %s's inbox that the lead's key does not "
                "authenticate (or with a mode other than %s)",
                request_id,
                agent,
                "/".join(sorted(ANSWER_MODES)),
            )
    return None


def answer_request(
    root: Path | StatePlace,
    team: str,
    agent: str,
    request_id: str,
    approved: bool,
    key: bytes,
    feedback: str | None = None,
    permission_mode: str | None = None,
) -> None:
    """The lead's decision, authenticated with the request's key, appended to the teammate's
    inbox. Raises ValueError for a mode the lead's lenses do not offer."""
    if permission_mode is not None and permission_mode not in ANSWER_MODES:
        raise ValueError(
            f"a teammate's plan is approved into default or acceptEdits only, "
            f"not {permission_mode!r}"
        )
    inbox = _inbox(team, agent)
    stamp = now_iso()
    feedback = feedback or None
    response: dict[str, Any] = {
        "type": RESPONSE,
        "requestId": request_id,
        "approved": approved,
        "timestamp": stamp,
        "auth": answer_mac(key, request_id, approved, permission_mode, feedback),
    }
    if feedback:
        response["feedback"] = feedback
    if permission_mode:
        response["permissionMode"] = permission_mode
    mailboxes(root).append_line(
        inbox, {"from": LEAD, "text": json.dumps(response), "timestamp": stamp}
    )


@dataclass(frozen=True)
class RequestKey:
    """What the teammate's server told the lead's about one request: the answer key, and
    which plan, teammate and team it is for."""

    key: bytes
    plan_sha256: str
    team: str
    agent: str


@dataclass(frozen=True)
class PendingRequest:
    team: str
    agent: str
    request_id: str
    plan_file_path: Path
    plan: str
    requested_at: str

    # The request as an Approval (docs/protocol.md §5.1): its request id is the approvalId, it
    # belongs to no session of this server, and asks for no prompts.
    @property
    def approval_id(self) -> str:
        return self.request_id

    @property
    def session_id(self) -> None:
        return None

    @property
    def agent_id(self) -> str:
        return self.agent

    @property
    def team_name(self) -> str:
        return self.team

    @property
    def submitted_plan(self) -> str:
        return self.plan

    @property
    def allowed_prompts(self) -> tuple[AllowedPrompt, ...]:
        return ()


def all_requests(root: Path | StatePlace) -> list[PendingRequest]:
    """Every well-formed request in every team's lead inbox, answered or not. A request id
    seen before is ignored: the first request with an id stays."""
    place = mailboxes(root)
    found: list[PendingRequest] = []
    seen: set[str] = set()
    # A team folder that is a symlink is listed too: its inboxes are kept in the stand-in.
    teams = sorted(e.name for e in place.entries() if SAFE_ID_RE.match(e.name))
    for team in teams:
        for message in place.read_lines(_inbox(team, LEAD)):
            content = payload(message)
            if not content or content.get("type") != REQUEST:
                continue
            agent = content.get("from") or message.get("from")
            request_id = content.get("requestId")
            path = content.get("planFilePath")
            if not (
                isinstance(agent, str) and isinstance(request_id, str) and isinstance(path, str)
            ):
                continue
            if not SAFE_ID_RE.match(agent):
                continue
            if request_id in seen:
                log.debug("ignored a second request with id %s (the first stays)", request_id)
                continue
            seen.add(request_id)
            found.append(
                PendingRequest(
                    team,
                    agent,
                    request_id,
                    Path(path),
                    str(content.get("planContent") or ""),
                    str(content.get("timestamp") or ""),
                )
            )
    return found


def pending_requests(
    root: Path | StatePlace, keys: Mapping[str, RequestKey]
) -> list[PendingRequest]:
    """The requests the lead can answer: the teammate's server gave their key (for this plan,
    teammate and team) and no answer authenticated by it has come yet."""
    pending = []
    place = mailboxes(root)
    for request in all_requests(place):
        held = keys.get(request.request_id)
        if held is None or (held.team, held.agent) != (request.team, request.agent):
            continue
        if not hmac.compare_digest(held.plan_sha256, plan_digest(request.plan)):
            log.debug("request %s does not hold the plan its key was given for", request)
            continue
        if find_response(place, request.team, request.agent, request.request_id, held.key):
            continue
        pending.append(request)
    return pending
