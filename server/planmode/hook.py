"""``planmode hook``: Claude Code's hooks answered by the editor's plan-mode server.

Claude Code runs this once per tool call with the hook's JSON on stdin. It makes exactly one
request to the server of the workspace (found from the payload's ``cwd``) and prints an answer
only when plan mode has one (docs/claude-code.md):

* ``PreToolUse`` → ``planMode/checkTool`` with the call, Claude Code's ``permissionMode`` (the
  session follows it) and where Claude Code keeps the session's plan (``transcriptPath``,
  ``projectDir``, ``claudeConfigDir``). A deny by plan mode is printed with its reason; an
  allow only where plan mode vouches for the call (the plan file, a proven read-only Bash line,
  an Explore/Plan agent) or a granted prompt of an approved plan applies. Anything else prints
  nothing, so Claude Code's own permission checks and prompts stay in charge.
* ``PermissionRequest`` for ``ExitPlanMode`` → ``planMode/exit``: the plan is reviewed in the
  editor and the hook waits for the user: ``allow`` (with ``updatedInput``, whose ``plan`` is
  the approved text when the user changed it, and a ``setMode`` update when they chose another
  mode) or ``deny`` with their feedback.
* ``SessionEnd`` → ``planMode/endSession``: what the session's approved plan granted ends.

No server for the workspace: nothing is printed (Claude Code asks as usual). A server that
fails or does not answer while the session plans: the call is denied (fail closed).

Stdlib only, and only what this path needs: it runs before every tool call, so its start-up
is measured (``make bench``): no ``json`` module (its import pulls in ``re`` and ``enum`` and
costs as much again as Python's own start-up) but the C codec under it, and no ``socket``
module but ``_socket``.
"""

from __future__ import annotations

import os
import sys

# Not typing.TYPE_CHECKING: the typing module is not imported at run time (see above).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket
    from typing import Any

try:
    import _json
except ImportError:  # another Python: the json module does the same, slower to import
    _json = None  # type: ignore[assignment]

DISCOVERY = os.path.join(".claude", "plan-mode", "endpoint.json")
# A PreToolUse answer is quick; a server that takes longer (seconds, PLANMODE_HOOK_TIMEOUT)
# is treated as failed.
TIMEOUT = 20.0
# Allows the hook passes on: the decision is plan mode's own, or an approved plan's grant.
VOUCHED = frozenset({"plan.planFile", "plan.bash", "plan.agent", "grant"})
# The newest Claude Code measured to run a hook-rewritten Bash line without asking.
SANDBOX_REWRITE_UP_TO = (2, 1, 197)


class _ScanContext:
    """What ``_json.make_scanner`` reads from its context (json.decoder.JSONDecoder's)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {
        "NaN": float("nan"),
        "Infinity": float("inf"),
        "-Infinity": float("-inf"),
    }.__getitem__


def loads(data: bytes | str) -> Any:
    """``json.loads``, through the C scanner json itself uses."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    if _json is None:
        import json

        return json.loads(text)
    text = text.strip(" \t\n\r")
    try:
        value, end = _json.make_scanner(_ScanContext())(text, 0)  # type: ignore[arg-type]
    except StopIteration as stop:
        raise ValueError(f"not JSON at character {stop.value}") from None
    if end != len(text):
        raise ValueError(f"extra data at character {end}")
    return value


def _unencodable(value: object) -> object:
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: object) -> str:
    """``json.dumps`` (compact), through the C encoder json itself uses."""
    if _json is None:
        import json

        return json.dumps(value, separators=(",", ":"))
    encoder = _json.make_encoder(
        {}, _unencodable, _json.encode_basestring_ascii, None, ":", ",", False, False, True
    )
    return "".join(encoder(value, 0))


class HookError(Exception):
    """The server could not be asked or did not answer properly."""


class NoServer(Exception):
    """No live server for the workspace."""


def find_root(start: str) -> str | None:
    """The nearest directory at or above ``start`` with a server's discovery file."""
    current = os.path.realpath(start)
    while True:
        if os.path.isfile(os.path.join(current, DISCOVERY)):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def request(
    root: str, method: str, params: dict[str, Any], timeout: float | None
) -> dict[str, Any]:
    """One JSON-RPC request to the server's agent endpoint; its result."""
    try:
        with open(os.path.join(root, DISCOVERY), "rb") as stream:
            info = loads(stream.read())
        pid = info["pid"]
        address = info["socket"]
        os.kill(pid, 0)
    except (OSError, ValueError, KeyError, TypeError):
        raise NoServer from None
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        try:
            sock.connect(address)
        except OSError:
            raise NoServer from None
        body = dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        data = body.encode()
        sock.sendall(b"Content-Length: %d\r\n\r\n%b" % (len(data), data))
        return _answer(sock)
    except OSError as exc:  # includes the timeout
        raise HookError(f"the plan-mode server did not answer {method}: {exc}") from exc
    finally:
        sock.close()


def _answer(sock: _socket.socket) -> dict[str, Any]:
    buffer = b""
    while True:
        while b"\r\n\r\n" not in buffer:
            buffer += _recv(sock)
        header, _, buffer = buffer.partition(b"\r\n\r\n")
        length = None
        for line in header.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length is None:
            raise HookError("the plan-mode server sent a message without Content-Length")
        while len(buffer) < length:
            buffer += _recv(sock)
        message = loads(buffer[:length])
        buffer = buffer[length:]
        if not isinstance(message, dict) or message.get("id") != 1 or "method" in message:
            continue  # a notification
        if "error" in message:
            error = message["error"] or {}
            raise HookError(f"the plan-mode server refused: {error.get('message')}")
        result = message.get("result")
        if not isinstance(result, dict):
            raise HookError("the plan-mode server answered without a result")
        return result


def _recv(sock: _socket.socket) -> bytes:
    chunk = sock.recv(65536)
    if not chunk:
        raise HookError("the plan-mode server closed the connection")
    return bytes(chunk)


def claude_code_params(event: dict[str, Any]) -> dict[str, Any]:
    """What every request carries about the Claude Code session."""
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
    return params


def _timeout() -> float:
    try:
        return float(os.environ.get("PLANMODE_HOOK_TIMEOUT") or TIMEOUT)
    except ValueError:
        return TIMEOUT


def pre_tool_use(root: str, event: dict[str, Any]) -> dict[str, Any] | None:
    params = claude_code_params(event)
    params["tool"] = str(event.get("tool_name") or "")
    tool_input = event.get("tool_input")
    params["input"] = tool_input if isinstance(tool_input, dict) else {}
    if isinstance(event.get("agent_id"), str):
        params["agentId"] = event["agent_id"]
    decision = request(root, "planMode/checkTool", params, _timeout())
    behavior = decision.get("behavior")
    rule = str(decision.get("rule") or "")
    speaks = (behavior == "deny" and rule.startswith("plan.")) or (
        behavior == "allow" and rule in VOUCHED
    )
    if not speaks:
        return None
    output: dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": behavior}
    if decision.get("message"):
        output["permissionDecisionReason"] = decision["message"]
    sandbox = decision.get("sandbox")
    if (
        behavior == "allow"
        and isinstance(sandbox, dict)
        and isinstance(sandbox.get("command"), str)
        and (sandbox.get("required") is True or _runs_rewritten_bash(event.get("transcript_path")))
    ):
        # Claude Code runs the sandboxed line instead (docs/sandbox.md).
        output["updatedInput"] = {**params["input"], "command": sandbox["command"]}
    return {"hookSpecificOutput": output}


def _runs_rewritten_bash(transcript: object) -> bool:
    """Whether this Claude Code runs a Bash line rewritten by the hook without asking: 2.1.197
    does; 2.1.332 asks in the terminal for any command its own check cannot prove read-only,
    whatever the hook answers (docs/claude-code.md). Its version is on the transcript's lines;
    unknown or newer than measured: no rewrite (the read-only proof still decides) — unless
    the user set ``requireSandbox`` (the sandbox's ``required``): then every Claude Code gets
    the sandboxed line, and a newer one asks in the terminal rather than run it unsandboxed."""
    version = _transcript_version(transcript) if isinstance(transcript, str) else None
    return version is not None and version <= SANDBOX_REWRITE_UP_TO


def _transcript_version(path: str) -> tuple[int, ...] | None:
    try:
        with open(path, "rb") as stream:
            stream.seek(0, os.SEEK_END)
            stream.seek(max(0, stream.tell() - 65536))
            tail = stream.read().decode("utf-8", "replace")
    except OSError:
        return None
    at = tail.rfind('"version"')
    if at < 0:
        return None
    raw = tail[at + len('"version"') :].lstrip(" :").removeprefix('"').split('"', 1)[0]
    parts = raw.split("-", 1)[0].split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def permission_request(root: str, event: dict[str, Any]) -> dict[str, Any] | None:
    if event.get("tool_name") != "ExitPlanMode":
        return None  # not ours: Claude Code shows its own dialog
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
    result = request(root, "planMode/exit", params, None)  # the user takes their time
    if result.get("outcome") != "approved":
        message = result.get("feedback") or result.get("toolResult") or "Rejected."
        return _permission_output({"behavior": "deny", "message": message})
    # Always updatedInput: from 2.1.199 Claude Code ignores an allow without it. With "plan"
    # Claude Code takes that text (writes it to its file) and calls it "edited by user"; without
    # it, it reads its own file and does not (docs/claude-code.md) — so "plan" only when the
    # approved text is not what Claude Code submitted.
    approved = result.get("plan")
    notes = result.get("notes")
    if isinstance(notes, str) and notes:
        # The plan is the only text of an approval the model reads: notes go at its end.
        approved = f"{approved.rstrip()}\n\n{notes}\n" if isinstance(approved, str) else notes
    updated = {key: value for key, value in tool_input.items() if key != "plan"}
    if isinstance(approved, str) and approved != plan:
        updated["plan"] = approved
    decision: dict[str, Any] = {"behavior": "allow", "updatedInput": updated}
    chosen = result.get("chosenMode")
    if isinstance(chosen, str):
        decision["updatedPermissions"] = [
            {"type": "setMode", "mode": chosen, "destination": "session"}
        ]
    return _permission_output(decision)


def _permission_output(decision: dict[str, Any]) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


def _fail_closed(event: dict[str, Any], why: str) -> dict[str, Any] | None:
    """While the session plans, a call plan mode could not check is denied."""
    if event.get("permission_mode") != "plan":
        return None
    reason = f"Denied by plan mode (the plan-mode server failed): {why}"
    if event.get("hook_event_name") == "PermissionRequest":
        return _permission_output({"behavior": "deny", "message": reason})
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def answer(event: dict[str, Any]) -> dict[str, Any] | None:
    """The hook's output for one event (None: print nothing)."""
    root = find_root(str(event.get("cwd") or "."))
    if root is None:
        return None  # no editor server: Claude Code asks in the terminal as usual
    name = event.get("hook_event_name")
    try:
        if name == "PreToolUse":
            return pre_tool_use(root, event)
        if name == "PermissionRequest":
            return permission_request(root, event)
        if name == "SessionEnd":
            request(root, "planMode/endSession", {"sessionId": event["session_id"]}, _timeout())
        return None
    except NoServer:
        return None
    except (HookError, ValueError) as exc:
        sys.stderr.write(f"planmode hook: {exc}\n")
        return _fail_closed(event, str(exc))


def run() -> int:
    try:
        event = loads(sys.stdin.buffer.read())
    except ValueError as exc:
        sys.stderr.write(f"planmode hook: the hook input is not JSON: {exc}\n")
        return 1
    if not isinstance(event, dict) or not isinstance(event.get("session_id"), str):
        sys.stderr.write("planmode hook: the hook input has no session_id\n")
        return 1
    output = answer(event)
    if output is not None:
        sys.stdout.write(dumps(output) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(run())
