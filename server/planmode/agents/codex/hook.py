"""``planmode hook codex``: Codex CLI's hooks answered by the editor's plan-mode server.

Codex runs this with the hook's JSON on stdin (``.codex/hooks.json``, written by ``planmode
init codex``). Whether the session plans is not in any payload (``permission_mode`` is always
``default``): it is the turn's collaboration mode in Codex's transcript
(:mod:`.transcript`), sent along as ``planning``. Each event makes at most one request to the
server of the workspace, and prints an answer only where plan mode has one (docs/codex.md,
"The adapter"):

* ``PreToolUse`` → ``planMode/checkTool`` (``codex: {planning}``, the call as Codex names
  it, its ``cwd``). While planning, a deny by plan mode's own rules is printed with its reason
  (the model reads ``Command blocked by PreToolUse hook: <reason>``), and an allowed Bash
  line is rewritten to run in the OS sandbox the answer names (``allow`` with
  ``updatedInput``: Codex takes no plain ``allow``). A vouched ``ask`` (a drift ``ask`` after
  approval) is refused with how the user allows the file: Codex's PreToolUse takes no ``ask``.
  Anything else prints nothing: Codex's own rules decide.
* ``PermissionRequest`` (Codex would ask the user) → ``planMode/checkTool`` outside Plan mode:
  a command an approved plan's granted prompt covers is allowed; anything else is left to the
  user's answer.
* ``Stop`` of a planning turn that proposed a plan (a ``<proposed_plan>``, the transcript's
  ``Plan`` item) → ``planMode/exit`` with that plan: the turn is held while the user reviews
  it in the editor. Rejected: ``decision: block`` with the text the model reads (the feedback
  and comments; the turn goes on, still planning). Approved: the turn ends with a note on
  Codex's screen, Codex asks "Implement this plan?", and the approved text waits for the
  prompt that starts implementing (:mod:`.handoff`).
* ``UserPromptSubmit`` outside Plan mode: the approved plan waiting for this session, handed
  to the model as ``additionalContext`` (no server needed).
* ``SessionEnd`` → ``planMode/endSession``.

The server is found through the workspace's record in the user's runtime directory (the
nearest at or above the payload's ``cwd``), never through a file in the workspace. No record:
nothing is printed, as Codex without planmode. While the turn plans (or its mode cannot be
read), a server that is gone, fails or does not answer refuses the call, and a plan that
cannot be reviewed blocks the turn end once with why: Codex itself runs a call when a hook
crashes, times out or prints no JSON, so this never does any of those. Always exit 0.

Stdlib only: it runs before every tool call (``make bench``). The endpoint's client is every
agent's hook's (:mod:`planmode.agents.hookclient`): one request over the socket.
"""

from __future__ import annotations

import sys

from planmode import runtime
from planmode.agents import hookclient
from planmode.agents.codex import transcript
from planmode.agents.hookclient import (
    HookError,
    NoServer,
    ServerGone,
    dumps,
    endpoint,
    request,
)

# Not typing.TYPE_CHECKING: the typing module is not imported at run time (see above).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Codex gives a SessionEnd hook 3 s at most (docs/codex.md): the request must end before.
SESSION_END_TIMEOUT = 2.0
EVENTS = ("PreToolUse", "PermissionRequest", "Stop", "UserPromptSubmit", "SessionEnd")


def planning(event: dict[str, Any]) -> bool | None:
    """Whether Codex's turn plans (its collaboration mode), or None when it cannot be read."""
    path = event.get("transcript_path")
    turn = event.get("turn_id")
    if not isinstance(path, str) or not path:
        return None
    mode = transcript.turn_mode(path, turn if isinstance(turn, str) else None)
    return None if mode is None else mode == transcript.PLAN_MODE


def base_params(event: dict[str, Any], plans: bool | None) -> dict[str, Any]:
    """What every request carries: the session, and Codex's params (docs/protocol.md §4)."""
    codex: dict[str, Any] = {} if plans is None else {"planning": plans}
    return {"sessionId": event["session_id"], "codex": codex}


def check(info: dict[str, Any], event: dict[str, Any], plans: bool | None) -> dict[str, Any]:
    """The server's decision on the call (``planMode/checkTool``)."""
    params = base_params(event, plans)
    params["tool"] = str(event.get("tool_name") or "")
    tool_input = event.get("tool_input")
    params["input"] = tool_input if isinstance(tool_input, dict) else {}
    if isinstance(event.get("cwd"), str) and event["cwd"]:
        params["cwd"] = event["cwd"]  # where the command runs (exec_command's workdir)
    decision = request(info, "planMode/checkTool", params, hookclient.timeout())
    if decision.get("behavior") not in ("allow", "deny", "ask") or not isinstance(
        decision.get("rule"), str
    ):
        raise HookError("the plan-mode server answered planMode/checkTool without a decision")
    # Whether plan mode stands behind the answer is the server's to say (docs/protocol.md §6).
    if not isinstance(decision.get("vouched"), bool):
        raise HookError(
            "the plan-mode server answered planMode/checkTool without 'vouched' (a server older "
            "than this hook: restart it)"
        )
    return decision


def pre_tool_use(
    info: dict[str, Any], event: dict[str, Any], plans: bool | None
) -> dict[str, Any] | None:
    decision = check(info, event, plans)
    if decision["vouched"] is not True:
        return None  # Codex's own rules decide
    if decision["behavior"] == "deny":
        return _deny(hookclient.text(decision, "message") or "Denied by plan mode")
    if decision["behavior"] == "ask":
        # Codex takes no "ask" from PreToolUse (it fails open) and asks nothing of an edit
        # in its default sandbox: refused, with how the user allows it (docs/codex.md).
        return _deny(hookclient.unasked(hookclient.text(decision, "message") or "", "Codex"))
    sandbox = decision.get("sandbox")
    if (
        decision["behavior"] == "allow"
        and isinstance(sandbox, dict)
        and isinstance(sandbox.get("command"), str)
    ):
        # Codex runs the rewritten line instead, its own rules judging it (docs/codex.md).
        output: dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
        output["updatedInput"] = {"command": sandbox["command"]}
        return {"hookSpecificOutput": output}
    return None  # Codex rejects a plain allow: its own rules decide


def permission_request(
    info: dict[str, Any], event: dict[str, Any], plans: bool | None
) -> dict[str, Any] | None:
    if plans is not False:
        return None  # while planning PreToolUse spoke; the user answers Codex's question
    decision = check(info, event, plans)
    if decision["vouched"] is True and decision["behavior"] == "allow":
        # Outside plan mode only an approved plan's granted prompt is vouched for.
        return {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow"},
            }
        }
    return None


def stop(info: dict[str, Any], event: dict[str, Any], root: str, plan: str) -> dict[str, Any]:
    from planmode.agents.codex import handoff

    session = event["session_id"]
    handoff.drop(session)  # a new plan: an earlier approval is not what comes next
    params = base_params(event, True)
    params["plan"] = plan
    keepalive = hookclient.keepalive()
    result = request(info, "planMode/exit", params, keepalive, keepalive)
    outcome = result.get("outcome")
    told = hookclient.text(result, "toolResult")
    if outcome not in ("approved", "rejected", "saved") or not told:
        raise HookError("the plan-mode server answered planMode/exit without an outcome")
    if outcome != "approved":  # rejected, or saved for later: the model reads why, in Plan mode
        return {"decision": "block", "reason": told}
    handoff.keep(session, root, plan, told)
    edited = " with your edits" if result.get("planWasEdited") is True else ""
    return {
        "systemMessage": (
            f"Plan mode: the plan was approved in the editor{edited}. Choose "
            "“1. Yes, implement this plan” (or 2): Codex leaves Plan mode and the model "
            "reads the approved plan with the prompt."
        )
    }


def user_prompt_submit(event: dict[str, Any], plans: bool | None) -> dict[str, Any] | None:
    if plans is not False:
        return None  # still planning: the approved plan waits for Default mode
    from planmode.agents.codex import handoff

    text = handoff.take(event["session_id"], event.get("prompt"))
    if text is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}


def session_end(info: dict[str, Any], event: dict[str, Any]) -> None:
    timeout = min(hookclient.timeout(), SESSION_END_TIMEOUT)
    request(info, "planMode/endSession", {"sessionId": event["session_id"]}, timeout)


def _deny(reason: str) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def _fail_closed(event: dict[str, Any], plans: bool | None, reason: str) -> dict[str, Any] | None:
    """While the turn plans (or its mode is unknown), a call plan mode could not check is
    refused, and a plan it could not put under review holds the turn once, saying why."""
    if plans is False:
        return None
    name = event.get("hook_event_name")
    if name == "PreToolUse":
        return _deny(reason)
    if name == "Stop":
        return {
            "decision": "block",
            "reason": (
                f"Plan mode could not put your plan under review in the editor. {reason} "
                "Tell the user; do not implement the plan."
            ),
        }
    return None


def answer(event: dict[str, Any]) -> dict[str, Any] | None:
    """The hook's output for one event (None: print nothing)."""
    name = event.get("hook_event_name")
    if name not in EVENTS:
        return None
    plans = planning(event)
    root = "the workspace"
    try:
        if name == "UserPromptSubmit":
            return user_prompt_submit(event, plans)
        plan = None
        if name == "Stop":
            turn = event.get("turn_id")
            if plans is not True or not isinstance(turn, str):
                return None  # a turn that does not plan: no review
            plan = transcript.proposed_plan(str(event["transcript_path"]), turn)
            if plan is None:
                return None  # it proposed no plan since the last answer: the turn ends
        cwd = event.get("cwd")
        found = runtime.find(cwd if isinstance(cwd, str) and cwd else ".")
        if found is None:
            return None  # no editor server here: Codex as it is without planmode
        root, record = found
        info = endpoint(record)
        if name == "PreToolUse":
            return pre_tool_use(info, event, plans)
        if name == "PermissionRequest":
            return permission_request(info, event, plans)
        if plan is not None:
            return stop(info, event, root, plan)
        if name == "SessionEnd":
            from planmode.agents.codex import handoff

            handoff.drop(event["session_id"])
            session_end(info, event)
        return None
    except NoServer:  # it stopped, as servers do when the editor closes
        return None
    except ServerGone as gone:
        sys.stderr.write(f"planmode hook codex: {gone}\n")
        return _fail_closed(event, plans, hookclient.gone(root, gone.pid))
    except Exception as exc:  # every failure is decided: none is a crash (Codex fails open)
        sys.stderr.write(f"planmode hook codex: {hookclient.why(exc)}\n")
        return _fail_closed(
            event,
            plans,
            f"Denied by plan mode (the plan-mode server failed): {hookclient.why(exc)}",
        )


def run() -> int:
    """Read one hook event, print the answer (if any); always exit 0."""
    raw = b""
    try:
        raw = sys.stdin.buffer.read()
        event = hookclient.event(raw)
    except Exception as exc:  # bad JSON, deep nesting, huge input: decided all the same
        sys.stderr.write(
            f"planmode hook codex: the hook input cannot be read: {hookclient.why(exc)}\n"
        )
        # Codex's mode cannot be told without a transcript: a tool call is refused.
        output = _fail_closed(
            {"hook_event_name": "PreToolUse"} if b"PreToolUse" in raw else {},
            None,
            f"Denied by plan mode (the hook input cannot be read): {hookclient.why(exc)}",
        )
    else:
        output = answer(event)
    if output is not None:
        sys.stdout.write(dumps(output) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(run())
