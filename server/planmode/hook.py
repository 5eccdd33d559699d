"""``planmode hook``: Claude Code's hooks answered by the editor's plan-mode server.

Claude Code runs this once per tool call with the hook's JSON on stdin (``session_id``,
``cwd``, ``permission_mode``, ``hook_event_name``, ``tool_name``, ``tool_input``). Stdlib only:
it must start fast.

* ``PreToolUse``: the session named by ``session_id`` is brought to ``permission_mode``, then
  ``planMode/checkTool`` decides; the answer is ``hookSpecificOutput.permissionDecision`` with
  the reason.
* ``PermissionRequest`` for ``ExitPlanMode``: the plan (``tool_input.plan``) is submitted for
  approval in the editor and the hook waits for the user: ``allow`` (with
  ``updatedInput.plan`` when the user edited it, and a ``setMode`` update when they chose
  auto-accept edits) or ``deny`` with their feedback as the message.

* ``SessionEnd``: the session's granted ``allowedPrompts`` end with it.

When no editor server runs for the workspace the hook prints nothing, so Claude Code falls
back to asking in the terminal instead of blocking.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TextIO

from planmode.discovery import Connection, NoServer, RpcError, connect, find_root

KNOWN_MODES = {"default", "acceptEdits", "plan", "auto", "bypassPermissions"}


def _sync_mode(conn: Connection, session: str, mode: object) -> dict[str, Any]:
    """Bring the server's session to Claude Code's permission mode; returns the state."""
    state = conn.request("planMode/getState", {"sessionId": session})
    if isinstance(mode, str) and mode in KNOWN_MODES and state.get("mode") != mode:
        state = conn.request("planMode/setMode", {"sessionId": session, "mode": mode})
    return state


def pre_tool_use(conn: Connection, event: dict[str, Any]) -> dict[str, Any]:
    session = str(event["session_id"])
    _sync_mode(conn, session, event.get("permission_mode"))
    params: dict[str, Any] = {
        "sessionId": session,
        "tool": str(event.get("tool_name") or ""),
        "input": event.get("tool_input") if isinstance(event.get("tool_input"), dict) else {},
    }
    if isinstance(event.get("agent_id"), str):
        params["agentId"] = event["agent_id"]
    decision = conn.request("planMode/checkTool", params)
    output: dict[str, Any] = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision["behavior"],
    }
    if decision.get("message"):
        output["permissionDecisionReason"] = decision["message"]
    return {"hookSpecificOutput": output}


def permission_request(conn: Connection, event: dict[str, Any]) -> dict[str, Any] | None:
    if event.get("tool_name") != "ExitPlanMode":
        return None  # not ours: Claude Code shows its own dialog
    session = str(event["session_id"])
    state = _sync_mode(conn, session, "plan")
    raw_input = event.get("tool_input")
    tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
    params: dict[str, Any] = {"sessionId": session}
    plan = tool_input.get("plan")
    if isinstance(plan, str):
        params["plan"] = plan
    if isinstance(tool_input.get("allowedPrompts"), list):
        params["allowedPrompts"] = tool_input["allowedPrompts"]
    conn.settimeout(None)  # the user takes the time they take
    result = conn.request("planMode/exit", params)
    if result.get("outcome") != "approved":
        feedback = result.get("feedback")
        return _permission_output(
            {"behavior": "deny", "message": feedback or result.get("toolResult") or "Rejected."}
        )
    decision: dict[str, Any] = {"behavior": "allow"}
    approved = result.get("plan")
    notes = result.get("notes")
    if isinstance(notes, str) and notes:
        # The plan is the only text of an approval the model reads: notes go at its end.
        approved = f"{approved.rstrip()}\n\n{notes}\n" if isinstance(approved, str) else notes
    if isinstance(approved, str) and approved != plan:
        decision["updatedInput"] = {**tool_input, "plan": approved}
    restored = result.get("restoredMode")
    if restored and restored != state.get("prePlanMode"):
        decision["updatedPermissions"] = [
            {"type": "setMode", "mode": restored, "destination": "session"}
        ]
    return _permission_output(decision)


def _permission_output(decision: dict[str, Any]) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


def run(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    try:
        event = json.load(stdin)
    except ValueError as exc:
        sys.stderr.write(f"planmode hook: the hook input is not JSON: {exc}\n")
        return 1
    if not isinstance(event, dict) or not isinstance(event.get("session_id"), str):
        sys.stderr.write("planmode hook: the hook input has no session_id\n")
        return 1
    cwd = Path(str(event.get("cwd") or "."))
    root = find_root(cwd)
    if root is None:
        return 0  # no editor server: Claude Code asks in the terminal as usual
    name = event.get("hook_event_name")
    try:
        with connect(root) as conn:
            if name == "PreToolUse":
                output: dict[str, Any] | None = pre_tool_use(conn, event)
            elif name == "PermissionRequest":
                output = permission_request(conn, event)
            elif name == "SessionEnd":
                conn.request("planMode/endSession", {"sessionId": str(event["session_id"])})
                output = None
            else:
                output = None
    except NoServer:
        return 0
    except (RpcError, OSError, KeyError) as exc:
        sys.stderr.write(f"planmode hook: {exc}\n")
        return 0  # fail open to Claude Code's own checks, which still apply
    if output is not None:
        json.dump(output, stdout)
        stdout.write("\n")
    return 0
