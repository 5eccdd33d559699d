"""Team mailboxes: JSONL inboxes under ``<root>/.claude/teams/<team>/inboxes/`` (guide §15).

A teammate whose plan needs the lead's approval appends a ``plan_approval_request`` to the
lead's inbox (``team-lead.jsonl``) and keeps planning until a ``plan_approval_response`` for
its request id arrives in its own inbox. Appends go through :mod:`planmode.core.jsonl`:
one JSON line under an exclusive file lock, so concurrent writers never interleave.
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planmode.core.approval import now_iso
from planmode.core.jsonl import append_line as append_message
from planmode.core.jsonl import read_lines as read_messages
from planmode.core.plans import SAFE_ID_RE

log = logging.getLogger(__name__)

LEAD = "team-lead"
REQUEST = "plan_approval_request"
RESPONSE = "plan_approval_response"


def _segment(name: str, what: str) -> str:
    if not SAFE_ID_RE.match(name):
        raise ValueError(f"{what} {name!r} is not a safe file-name segment")
    return name


def inbox_path(root: Path, team: str, member: str) -> Path:
    return (
        root
        / ".claude"
        / "teams"
        / _segment(team, "teamName")
        / "inboxes"
        / f"{_segment(member, 'agentName')}.jsonl"
    )


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


def submit_plan(root: Path, team: str, agent: str, plan_path: Path, plan: str) -> str:
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
    append_message(
        inbox_path(root, team, LEAD),
        {"from": agent, "text": json.dumps(request), "timestamp": stamp},
    )
    return request_id


@dataclass(frozen=True)
class LeaderResponse:
    request_id: str
    approved: bool
    feedback: str | None = None
    permission_mode: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return {
            "requestId": self.request_id,
            "approved": self.approved,
            "feedback": self.feedback,
            "permissionMode": self.permission_mode,
        }


def find_response(root: Path, team: str, agent: str, request_id: str) -> LeaderResponse | None:
    """The lead's answer to ``request_id`` in the teammate's inbox, if it has come."""
    for message in read_messages(inbox_path(root, team, agent)):
        content = payload(message)
        if content and content.get("type") == RESPONSE and content.get("requestId") == request_id:
            feedback = content.get("feedback")
            mode = content.get("permissionMode")
            return LeaderResponse(
                request_id,
                bool(content.get("approved")),
                feedback if isinstance(feedback, str) else None,
                mode if isinstance(mode, str) else None,
            )
    return None


def answer_request(
    root: Path,
    team: str,
    agent: str,
    request_id: str,
    approved: bool,
    feedback: str | None = None,
    permission_mode: str | None = None,
) -> None:
    """The lead's decision, appended to the teammate's inbox."""
    stamp = now_iso()
    response: dict[str, Any] = {
        "type": RESPONSE,
        "requestId": request_id,
        "approved": approved,
        "timestamp": stamp,
    }
    if feedback:
        response["feedback"] = feedback
    if permission_mode:
        response["permissionMode"] = permission_mode
    append_message(
        inbox_path(root, team, agent),
        {"from": LEAD, "text": json.dumps(response), "timestamp": stamp},
    )


@dataclass(frozen=True)
class PendingRequest:
    team: str
    agent: str
    request_id: str
    plan_file_path: Path
    plan: str
    requested_at: str

    def to_wire(self) -> dict[str, Any]:
        """The request as an Approval (contract §5.1): its request id is the approvalId."""
        return {
            "approvalId": self.request_id,
            "sessionId": None,
            "agentId": self.agent,
            "teamName": self.team,
            "planFilePath": str(self.plan_file_path),
            "submittedPlan": self.plan,
            "allowedPrompts": [],
            "requestedAt": self.requested_at,
        }


def pending_requests(root: Path) -> list[PendingRequest]:
    """Plan approval requests in every team's lead inbox that have no answer yet."""
    teams_dir = root / ".claude" / "teams"
    found: list[PendingRequest] = []
    try:
        teams = sorted(p for p in teams_dir.iterdir() if p.is_dir())
    except (FileNotFoundError, NotADirectoryError):
        return found
    for team_dir in teams:
        team = team_dir.name
        if not SAFE_ID_RE.match(team):
            continue
        for message in read_messages(team_dir / "inboxes" / f"{LEAD}.jsonl"):
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
            if not SAFE_ID_RE.match(agent) or find_response(root, team, agent, request_id):
                continue
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
