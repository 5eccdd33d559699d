"""``planmode hook``: Claude Code's hooks answered by the editor's plan-mode server.

Claude Code runs this once per tool call with the hook's JSON on stdin. It makes one request to
the server of the workspace and prints an answer only when plan mode has one
(docs/claude-code.md):

* ``PreToolUse`` → ``planMode/checkTool`` with the call, Claude Code's ``permissionMode`` (the
  session follows it) and where Claude Code keeps the session's plan (``transcriptPath``,
  ``projectDir``, ``claudeConfigDir``). The answer is printed only where the server says
  plan mode stands behind it (``vouched``): a deny by plan mode, with its reason; an allow of
  the plan file, a proven read-only Bash line, an Explore/Plan agent or a granted prompt of an
  approved plan. Anything else prints nothing, so Claude Code's own permission checks and
  prompts stay in charge.
* ``PermissionRequest`` for ``ExitPlanMode`` → ``planMode/exit``: the plan is reviewed in the
  editor and the hook waits for the user: ``allow`` (with ``updatedInput``, whose ``plan`` is
  the approved text when the user changed it, and a ``setMode`` update when they chose another
  mode) or ``deny`` with their feedback. While it waits, a silence of ``PLANMODE_HOOK_KEEPALIVE``
  seconds is answered by ``planMode/ping``; a server that answers that neither is dead or hung.
* ``SessionEnd`` → ``planMode/endSession``: what the session's approved plan granted ends.

A subagent's call (``agent_id``) is forwarded as that subagent's (``agentId``).

Where Claude Code runs Bash through planmode's shell prefix (``planmode init claude-code``), a
``PreToolUse`` of ``Bash`` also leaves the session's record for the prefix: whether the session
plans and, while it does, the sandbox that runs the command (no ``updatedInput`` rewrite then;
:mod:`planmode.agents.claude_code.shell_prefix`). A record that cannot be written while
planning denies the call.

The server is found the way Claude Code names the workspace (``$CLAUDE_PROJECT_DIR``, else the
payload's ``cwd``), through the workspace's record in the user's runtime directory
(:mod:`planmode.runtime`), never through a file inside the workspace, which a repository could
ship. No record: the workspace never had a server (or it stopped cleanly) and nothing is
printed, so Claude Code asks as usual. A record whose server is gone (it died), a server that
fails or stops answering, an input that cannot be read: while the session plans, the call is
denied (fail closed); otherwise nothing is printed. Every input gets an answer and exit 0.

How each answer is written back is here; the request itself is every agent's hook client's
(:mod:`planmode.agents.hookclient`), and what each Claude Code version does with an answer is
:mod:`.versions`'. Stdlib only, and only what this path needs: it runs before every tool call,
so its start-up is measured (``make bench``; no ``json``, ``re``, ``typing`` or ``socket``
module: see :mod:`planmode.agents.hookclient`).
"""

from __future__ import annotations

import os
import sys

from planmode import runtime
from planmode.agents import hookclient
from planmode.agents.claude_code import shell_prefix
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


def locate(event: dict[str, Any]) -> tuple[str, str] | None:
    """The workspace (real path) and its record: the nearest with a record at or above
    Claude Code's project directory, else the payload's ``cwd``."""
    start = os.environ.get("CLAUDE_PROJECT_DIR") or event.get("cwd")
    return runtime.find(start if isinstance(start, str) and start else ".")


def claude_code_params(event: dict[str, Any]) -> dict[str, Any]:
    """What every request carries about the Claude Code session, and the subagent calling."""
    params = {"sessionId": event["session_id"]}
    if isinstance(event.get("permission_mode"), str):
        params["permissionMode"] = event["permission_mode"]
    if isinstance(event.get("transcript_path"), str) and event["transcript_path"]:
        params["transcriptPath"] = event["transcript_path"]
    project = os.environ.get("CLAUDE_PROJECT_DIR")
    if project:
        params["projectDir"] = project
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    if config:
        params["claudeConfigDir"] = config
    agent = _agent_id(event)
    if agent is not None:
        params["agentId"] = agent
    return params


def _agent_id(event: dict[str, Any]) -> str | None:
    """The subagent the call comes from; a value that cannot name one is a failure (never
    read as the main session's call)."""
    agent = event.get("agent_id")
    if agent is None:
        return None
    if not isinstance(agent, str) or not agent:
        raise HookError(f"agent_id {agent!r} names no subagent")
    return agent


def pre_tool_use(
    info: dict[str, Any], event: dict[str, Any], records: bool = False
) -> dict[str, Any] | None:
    """``records``: Claude Code runs this Bash call through planmode's shell prefix, which
    reads the session's record (:mod:`planmode.agents.claude_code.shell_prefix`)."""
    params = claude_code_params(event)
    params["tool"] = str(event.get("tool_name") or "")
    tool_input = event.get("tool_input")
    params["input"] = tool_input if isinstance(tool_input, dict) else {}
    if isinstance(event.get("cwd"), str) and event["cwd"]:
        params["cwd"] = event["cwd"]  # where Claude Code's shell is: Bash's relative paths
    decision = request(info, "planMode/checkTool", params, hookclient.timeout())
    behavior = decision.get("behavior")
    if behavior not in ("allow", "deny", "ask") or not isinstance(decision.get("rule"), str):
        raise HookError("the plan-mode server answered planMode/checkTool without a decision")
    # Whether plan mode stands behind the answer is the server's to say (docs/protocol.md §6).
    # A server without `vouched` is older than this hook: while planning the call is denied.
    speaks = decision.get("vouched")
    if not isinstance(speaks, bool):
        raise HookError(
            "the plan-mode server answered planMode/checkTool without 'vouched' (a server older "
            "than this hook: restart it)"
        )
    message = hookclient.text(decision, "message")
    sandbox = decision.get("sandbox")
    if records:
        _record_decision(event, decision)
    if not speaks:
        return None
    output: dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": behavior}
    if message:
        output["permissionDecisionReason"] = message
    if (
        not records
        and behavior == "allow"
        and isinstance(sandbox, dict)
        and isinstance(sandbox.get("command"), str)
    ):
        # Only here: most calls never ask which version runs the session.
        from planmode.agents.claude_code import versions

        if sandbox.get("required") is True or versions.runs_rewritten_bash(
            event.get("transcript_path")
        ):
            # No shell prefix: Claude Code runs the sandboxed line instead (docs/sandbox.md).
            output["updatedInput"] = {**params["input"], "command": sandbox["command"]}
    return {"hookSpecificOutput": output}


def _record_before(event: dict[str, Any]) -> None:
    """Before asking the server: outside plan mode the record says so at once; a session that
    just entered plan mode gets a record that runs nothing until the answer is known."""
    mode = str(event.get("permission_mode") or "")
    if mode != "plan":
        shell_prefix.write_record(event["session_id"], mode)
        return
    found = shell_prefix.read_record(event["session_id"])
    if found is None or found[0] != "plan":
        shell_prefix.write_record(event["session_id"], "plan", shell_prefix.PENDING)


def _record_decision(event: dict[str, Any], decision: dict[str, Any]) -> None:
    """After the answer: while the session plans (Claude Code's mode or the server's), how the
    script runs the command — in the sandbox the answer names (an ask keeps it: the user may
    say yes), or, where no sandbox works here, as the classifier allowed it. A denied call
    does not run."""
    mode = str(event.get("permission_mode") or "")
    planning = mode == "plan" or decision.get("mode") == "plan"
    if not planning:
        shell_prefix.write_record(event["session_id"], mode)
        return
    if decision.get("behavior") == "deny":
        return
    sandbox = decision.get("sandbox")
    prefix = sandbox.get("prefix") if isinstance(sandbox, dict) else None
    if isinstance(prefix, list) and prefix and all(isinstance(word, str) for word in prefix):
        shell_prefix.write_record(event["session_id"], "plan", shell_prefix.SANDBOX, prefix)
    elif sandbox is None:
        # A planning Bash answer that is not a deny names its sandbox wherever one works.
        shell_prefix.write_record(event["session_id"], "plan", shell_prefix.CLASSIFIER)


def _record_no_server(event: dict[str, Any]) -> None:
    """No plan-mode server for the workspace: planmode has no opinion, in the script as here."""
    mode = str(event.get("permission_mode") or "")
    shell_prefix.write_record(event["session_id"], mode, shell_prefix.NO_SERVER)


def permission_request(info: dict[str, Any], event: dict[str, Any]) -> dict[str, Any] | None:
    raw_input = event.get("tool_input")
    tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
    params = claude_code_params(event)
    plan = tool_input.get("plan")
    if isinstance(plan, str):
        params["plan"] = plan
    if isinstance(tool_input.get("planFilePath"), str):
        params["planFilePath"] = tool_input["planFilePath"]
    if isinstance(tool_input.get("allowedPrompts"), list):
        params["allowedPrompts"] = tool_input["allowedPrompts"]
    # The user takes their time; a server that dies or hangs meanwhile is noticed.
    keepalive = hookclient.keepalive()
    result = request(info, "planMode/exit", params, keepalive, keepalive)
    outcome = result.get("outcome")
    if outcome not in ("approved", "rejected", "saved", "awaitingLeaderApproval"):
        raise HookError("the plan-mode server answered planMode/exit without an outcome")
    if outcome == "saved":
        # Saved for later: the plan waits in the library and the model is told to stop
        # (docs/claude-code.md, "Save for later").
        message = hookclient.text(result, "toolResult") or "The user saved the plan for later."
        return _permission_output({"behavior": "deny", "message": message})
    if outcome != "approved":
        message = (
            hookclient.text(result, "feedback")
            or hookclient.text(result, "toolResult")
            or "Rejected."
        )
        return _permission_output({"behavior": "deny", "message": message})
    # Always updatedInput: from 2.1.199 Claude Code ignores an allow without it. With "plan"
    # Claude Code takes that text (writes it to its file) and calls it "edited by user"; without
    # it, it reads its own file and does not (docs/claude-code.md) — so "plan" only when the
    # approved text is not what Claude Code submitted.
    approved = hookclient.text(result, "plan")
    notes = hookclient.text(result, "notes")
    if notes:
        # The plan is the only text of an approval the model reads: notes go at its end.
        approved = f"{approved.rstrip()}\n\n{notes}\n" if approved is not None else notes
    updated = {key: value for key, value in tool_input.items() if key != "plan"}
    if approved is not None and approved != plan:
        updated["plan"] = approved
    decision: dict[str, Any] = {"behavior": "allow", "updatedInput": updated}
    chosen = hookclient.text(result, "chosenMode")
    if chosen is not None and "agentId" not in params:
        # A mode is the whole session's: a subagent's approved plan leaves it alone.
        decision["updatedPermissions"] = [
            {"type": "setMode", "mode": chosen, "destination": "session"}
        ]
    return _permission_output(decision)


def session_end(info: dict[str, Any], event: dict[str, Any]) -> None:
    if _agent_id(event) is not None:
        return  # a subagent's end is not the conversation's: its grants stay
    timeout = hookclient.timeout()
    request(info, "planMode/endSession", {"sessionId": event["session_id"]}, timeout)


def _permission_output(decision: dict[str, Any]) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


def _fail_closed(event: dict[str, Any], reason: str) -> dict[str, Any] | None:
    """While the session plans, a call plan mode could not check is denied with ``reason``;
    otherwise nothing is said."""
    if event.get("permission_mode") != "plan":
        return None
    name = event.get("hook_event_name")
    if name == "PermissionRequest":
        if event.get("tool_name") != "ExitPlanMode":
            return None
        return _permission_output({"behavior": "deny", "message": reason})
    if name not in (None, "PreToolUse"):
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def answer(event: dict[str, Any]) -> dict[str, Any] | None:
    """The hook's output for one event (None: print nothing)."""
    name = event.get("hook_event_name")
    if name == "PermissionRequest" and event.get("tool_name") != "ExitPlanMode":
        return None  # not ours: Claude Code shows its own dialog
    if name not in ("PreToolUse", "PermissionRequest", "SessionEnd"):
        return None
    root = "the workspace"
    # Claude Code runs this Bash call through planmode's shell prefix: the session's record
    # tells the prefix whether to sandbox it (docs/claude-code.md).
    records = name == "PreToolUse" and event.get("tool_name") == "Bash" and shell_prefix.is_ours()
    try:
        if records:
            _record_before(event)
        if name == "SessionEnd":
            shell_prefix.remove_record(event["session_id"])
        found = locate(event)
        if found is None:
            if records:
                _record_no_server(event)
            return None  # no editor server here ever: Claude Code asks in the terminal
        root, record = found
        info = endpoint(record)
        if name == "PreToolUse":
            return pre_tool_use(info, event, records)
        if name == "PermissionRequest":
            return permission_request(info, event)
        session_end(info, event)
        return None
    except NoServer:  # it stopped, as servers do when the editor closes
        if records:
            try:
                _record_no_server(event)
            except shell_prefix.RecordError as exc:
                return _fail_closed(event, f"Denied by plan mode: {exc}")
        return None
    except ServerGone as gone:
        sys.stderr.write(f"planmode hook: {gone}\n")
        return _fail_closed(event, hookclient.gone(root, gone.pid))
    except Exception as exc:  # every failure is decided: none is a crash
        sys.stderr.write(f"planmode hook: {hookclient.why(exc)}\n")
        return _fail_closed(
            event, f"Denied by plan mode (the plan-mode server failed): {hookclient.why(exc)}"
        )


def _envelope(raw: bytes) -> dict[str, Any]:
    """What an input that could not be parsed says of itself, read as text: its
    ``hook_event_name`` and ``tool_name`` (the first, as Claude Code writes them before the
    tool's input) and ``permission_mode`` — ``plan`` when any says so (fail closed)."""
    import re

    text = raw.decode("utf-8", "replace")
    found: dict[str, Any] = {}
    for key in ("hook_event_name", "tool_name", "permission_mode"):
        values = re.findall(rf'"{key}"\s*:\s*"([^"\\]*)"', text)
        if values:
            found[key] = "plan" if "plan" in values and key == "permission_mode" else values[0]
    return found


def run() -> int:
    """Read one hook event, print the answer (if any); always exit 0."""
    raw = b""
    try:
        raw = sys.stdin.buffer.read()
        event = hookclient.event(raw)
    except Exception as exc:  # bad JSON, deep nesting, huge input: decided all the same
        sys.stderr.write(f"planmode hook: the hook input cannot be read: {hookclient.why(exc)}\n")
        output = _fail_closed(
            _envelope(raw),
            f"Denied by plan mode (the hook input cannot be read): {hookclient.why(exc)}",
        )
    else:
        output = answer(event)
    if output is not None:
        sys.stdout.write(dumps(output) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(run())
