"""``planmode hook gemini``: Gemini CLI's hooks answered by the editor's plan-mode server.

Gemini CLI runs this with the hook's JSON on stdin (``.gemini/settings.json``, written by
``planmode init gemini``). No payload carries Gemini's approval mode: the server's session
keeps it, told what Gemini shows of it (:mod:`.modes`). Each event makes at most a request or
two to the server of the workspace, and prints an answer only where plan mode has one
(docs/gemini.md, "The adapter"):

* ``SessionStart`` → ``planMode/setMode``: the mode Gemini started in (its command line, its
  settings).
* ``BeforeTool`` → ``planMode/checkTool`` with the call as Gemini names it (``gemini``: its
  plans directory; a relative path made absolute as Gemini reads it; a shell line's
  ``dir_path`` as ``cwd``), and ``permissionMode`` when the transcript shows the user left
  plan mode with Shift+Tab (:mod:`.transcript`). A write Gemini lets through outside its plans
  directory proves it is not planning: a server that still takes the session for planning is
  told so first. Then, as the answer's ``vouched`` says plan mode stands behind it:

  * a deny: ``{"decision": "deny", "reason"}`` (the model reads ``Tool execution blocked:
    <reason>``);
  * a planning shell line it allows: rewritten (``tool_input``) into planmode's launcher and a
    record of the sandboxed line (:mod:`.shell`), which the policy ``planmode init`` wrote lets
    plan mode run;
  * an edit while the approved plan auto-accepts edits (the session is ``acceptEdits``; Gemini
    itself is in Default mode): rewritten with :data:`~.versions.ACCEPT_EDITS_KEY`, which that
    policy allows without asking;
  * an ``ask`` it vouches for outside plan mode (a drift ``ask`` after approval):
    ``{"decision": "ask"}``, which brings Gemini's dialog in every mode (auto-edit and YOLO
    too), the reason as its text;
  * anything else: nothing, so Gemini's own policy and prompts decide.
* ``BeforeTool`` of ``exit_plan_mode`` → ``planMode/exit`` (``permissionMode: plan``, the plan
  the call names in Gemini's plans directory): the call is held while the user reviews the plan
  in the editor. Rejected: ``deny`` with the text the model reads (feedback and comments).
  Approved: ``tool_input`` with :data:`~.versions.APPROVAL_KEY` — the policy's rule for it
  approves the exit without Gemini's own dialog (the user decides once) — carrying what the
  model reads of the approval.
* ``AfterTool`` of ``exit_plan_mode``: that text, as ``additionalContext`` (the model reads it
  after Gemini's "Plan approved. Switching to Default mode …"). Approved or rejected in Gemini's
  own dialog instead (the hook could not ask the server), and of ``enter_plan_mode``: the
  session follows (``planMode/setMode``).
  While it holds, Esc in Gemini cancels the turn but not the hook (Gemini queues new prompts
  until the hook ends); the hook sees the transcript's ``Request cancelled.`` and ends, and its
  dropped connection withdraws the approval from the editor.
* ``SessionEnd`` → ``planMode/endSession`` (which also answers an exit still held).

The server is found through the workspace's record in the user's runtime directory (the nearest
at or above ``$GEMINI_PROJECT_DIR``, else the payload's ``cwd``), never through a file in the
workspace. No record: nothing is printed — Gemini's own plan mode and dialogs, as without
planmode. While the session plans (as last noted, :mod:`.notes`), and for any
``exit_plan_mode``, a server that is gone, fails or does not answer refuses the call with why:
Gemini runs a call whose hook crashes or times out, so this never does either. Always exit 0.

Stdlib only: it runs before every tool call (``make bench``). The endpoint's client is every
agent's hook's (:mod:`planmode.agents.hookclient`).
"""

from __future__ import annotations

import os
import sys

from planmode import runtime
from planmode.agents import hookclient
from planmode.agents.gemini import notes, transcript, versions
from planmode.agents.gemini.versions import EDIT_TOOLS, ENTER_TOOL, EXIT_TOOL, SHELL_TOOL
from planmode.agents.hookclient import (
    HookError,
    NoServer,
    ServerGone,
    dumps,
    endpoint,
    loads,
    request,
)

# Not typing.TYPE_CHECKING: the typing module is not imported at run time (see above).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# How often a held exit looks at Gemini's transcript for the user's Esc (seconds).
POLL = 0.5
ACCEPTED_EDITS = "auto-accept edits (the plan approved in the editor)"
AUTO_ACCEPT_NOTE = (
    "The user approved the plan with auto-accept edits: your edits (write_file, replace) are "
    "applied without asking, although Gemini CLI says Default mode."
)


# -- paths, as Gemini CLI reads them ------------------------------------------------------
def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def plan_mode_path(raw: object, plans_dir: str, project: str) -> str | None:
    """Where Gemini's plan mode writes ``raw`` (its ``resolveAndValidatePlanPath``): an
    absolute path inside the plans directory as it is, else the path from the project root
    when that lands there, else from the plans directory; None when plan mode refuses it (not
    inside the plans directory, symlinks followed) — Gemini then never runs the hook."""
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
        return None
    text = raw.strip()
    real_plans = os.path.realpath(plans_dir)
    candidates = [text] if os.path.isabs(text) else []
    candidates += [os.path.normpath(os.path.join(project, text))]
    candidates += [os.path.normpath(os.path.join(plans_dir, text))]
    for candidate in candidates:
        if _inside(os.path.realpath(candidate), real_plans):
            return candidate
    return None


def gemini_path(raw: object, plans_dir: str, project: str, planning: bool) -> object:
    """``raw`` as Gemini reads a file path: the plan-mode way while the session plans,
    otherwise against the project root. Anything not a path is passed on as it is."""
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
        return raw
    if planning:
        found = plan_mode_path(raw, plans_dir, project)
        if found is not None:
            return found
    return os.path.normpath(os.path.join(project, raw.strip()))


# -- one event --------------------------------------------------------------------------
class Call:
    """One event of a session, with what the hook knows around it."""

    def __init__(self, event: dict[str, Any], launcher: str | None) -> None:
        self.event = event
        self.session: str = event["session_id"]
        self.name = str(event.get("hook_event_name") or "")
        self.tool = str(event.get("tool_name") or "")
        raw_input = event.get("tool_input")
        self.input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
        self.launcher = launcher
        cwd = event.get("cwd")
        self.project = os.environ.get("GEMINI_PROJECT_DIR") or (
            cwd if isinstance(cwd, str) and cwd else os.getcwd()
        )
        self.noted = notes.read(self.session, notes.MODE)

    @property
    def plans_dir(self) -> str:
        found = os.environ.get("GEMINI_PLANS_DIR")
        if not found or not os.path.isabs(found):
            raise HookError("Gemini CLI named no plans directory ($GEMINI_PLANS_DIR)")
        return os.path.normpath(found)

    @property
    def planning(self) -> bool:
        """Whether a call that could not be checked must be refused: the session plans as
        last noted, or the call is the exit from plan mode."""
        return self.noted == "plan" or (self.name == "BeforeTool" and self.tool == EXIT_TOOL)

    def params(self) -> dict[str, Any]:
        return {"sessionId": self.session, "gemini": {"plansDir": self.plans_dir}}

    def note_mode(self, mode: object) -> None:
        if isinstance(mode, str) and mode != self.noted:
            notes.write_quietly(self.session, notes.MODE, mode)
            self.noted = mode


def _locate(call: Call) -> tuple[str, str] | None:
    return runtime.find(call.project)


def _deny(reason: str) -> dict[str, Any]:
    return {"decision": "deny", "reason": reason}


def _ask(message: str) -> dict[str, Any]:
    return {"decision": "ask", "reason": message, "systemMessage": message}


def _rewrite(tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": tool_input}}


def _set_mode(info: dict[str, Any], call: Call, mode: str) -> None:
    timeout = hookclient.timeout()
    state = request(info, "planMode/setMode", {"sessionId": call.session, "mode": mode}, timeout)
    call.note_mode(state.get("mode"))


def before_tool(info: dict[str, Any], call: Call) -> dict[str, Any] | None:
    told = transcript.manual_exit(call.session, call.event.get("transcript_path"))
    if told is not None:
        call.note_mode(told)  # the user left plan mode with Shift+Tab
    if call.tool == EXIT_TOOL:
        return exit_plan_mode(info, call)
    params = call.params()
    if told is not None:
        params["permissionMode"] = told
    # Calls Gemini makes only outside its plan mode: a write its plan mode would have refused
    # before any hook, enter_plan_mode.
    not_planning = call.tool == ENTER_TOOL
    raw = call.input.get("file_path")
    if call.tool in EDIT_TOOLS and isinstance(raw, str):
        not_planning = plan_mode_path(raw, call.plans_dir, call.project) is None
    if call.tool == SHELL_TOOL:
        where = call.input.get("dir_path")
        base = os.path.join(call.project, where) if isinstance(where, str) and where else None
        params["cwd"] = os.path.normpath(base or call.project)
    params["tool"] = call.tool
    timeout = hookclient.timeout()

    def check(planning: bool) -> dict[str, Any]:
        tool_input = dict(call.input)
        if call.tool in EDIT_TOOLS:
            tool_input["file_path"] = gemini_path(raw, call.plans_dir, call.project, planning)
        params["input"] = tool_input
        return request(info, "planMode/checkTool", params, timeout)

    planning = call.noted == "plan" and not not_planning
    decision = check(planning)
    if not_planning and decision.get("mode") == "plan":
        # Gemini left plan mode where no hook saw it (Shift+Tab while the model ran): Default
        # is where Shift+Tab leads from plan mode.
        _set_mode(info, call, "default")
        params.pop("permissionMode", None)
        decision = check(False)
    elif call.tool in EDIT_TOOLS and (decision.get("mode") == "plan") != planning:
        # The server knew better whether the session plans: Gemini reads a relative path
        # against the plans directory while planning, against the project otherwise.
        before = gemini_path(raw, call.plans_dir, call.project, planning)
        if gemini_path(raw, call.plans_dir, call.project, not planning) != before:
            decision = check(not planning)
    return answer_tool(call, decision)


def answer_tool(call: Call, decision: dict[str, Any]) -> dict[str, Any] | None:
    """What the hook prints for a checkTool ``decision`` (see the module)."""
    behavior = decision.get("behavior")
    rule = decision.get("rule")
    mode = decision.get("mode")
    vouched = decision.get("vouched")
    if behavior not in ("allow", "deny", "ask") or not isinstance(rule, str):
        raise HookError("the plan-mode server answered planMode/checkTool without a decision")
    if not isinstance(vouched, bool):
        raise HookError(
            "the plan-mode server answered planMode/checkTool without 'vouched' (a server older "
            "than this hook)"
        )
    call.note_mode(mode)
    if behavior == "deny" and vouched:
        return _deny(hookclient.text(decision, "message") or f"Denied by plan mode ({rule}).")
    if behavior == "ask" and vouched and mode != "plan":
        # Gemini's own dialog, in every mode, even where its policy (or planmode's accepted
        # edits) would let the call run unasked: measured in
        # docs/gemini.md, "After approval: progress and drift".
        return _ask(hookclient.text(decision, "message") or f"Plan mode asks ({rule}).")
    planning_line = call.tool == SHELL_TOOL and mode == "plan" and rule == "plan.bash"
    if planning_line and behavior == "allow" and vouched:
        return _sandboxed(call, decision.get("sandbox"))
    if call.tool in EDIT_TOOLS:
        if mode == "acceptEdits" and behavior == "allow":
            return _rewrite({**call.input, versions.ACCEPT_EDITS_KEY: ACCEPTED_EDITS})
        if versions.ACCEPT_EDITS_KEY in call.input:
            # The model's own: only planmode's hook vouches for an edit Gemini asks about.
            return _rewrite({k: v for k, v in call.input.items() if k != versions.ACCEPT_EDITS_KEY})
    return None


def _sandboxed(call: Call, sandbox: object) -> dict[str, Any] | None:
    """A planning shell line the server allowed, rewritten to run through planmode's launcher
    (:mod:`.shell`): in the sandbox the answer names, or — where no OS sandbox works — as the
    classifier allowed it. Without the launcher (``planmode init gemini --no-shell``) nothing
    is said: Gemini's plan mode refuses the line."""
    if call.launcher is None:
        return None
    from planmode.agents.gemini import shell

    command = call.input.get("command")
    argv = sandbox.get("argv") if isinstance(sandbox, dict) else None
    if not (isinstance(argv, list) and argv and all(isinstance(w, str) for w in argv)):
        if sandbox is not None or not isinstance(command, str):
            raise HookError("the plan-mode server's sandbox names no command line")
        argv = ["/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh", "-c", command]
    record = shell.write_record(argv)
    rewritten = {**call.input, "command": shell.command(call.launcher, record)}
    rewritten["is_background"] = False  # a line that outlives its call would outlive plan mode
    return _rewrite(rewritten)


def exit_plan_mode(info: dict[str, Any], call: Call) -> dict[str, Any] | None:
    """The plan reviewed in the editor while Gemini waits (see the module)."""
    plans_dir = call.plans_dir
    path = plan_mode_path(call.input.get("plan_filename"), plans_dir, call.project)
    try:
        written = path is not None and os.path.isfile(path) and os.path.getsize(path) > 0
    except OSError:
        written = False
    if not written:
        return None  # Gemini answers itself: "Plan file does not exist" (or is empty)
    params = call.params()
    params["permissionMode"] = "plan"
    params["planFilePath"] = path
    result = wait_for_decision(
        info, params, transcript.Cancelled(call.event.get("transcript_path"))
    )
    if result is None:
        return None  # the user cancelled the call in Gemini: no one reads an answer
    outcome = result.get("outcome")
    if outcome not in ("approved", "rejected", "saved"):
        raise HookError("the plan-mode server answered planMode/exit without an outcome")
    told = hookclient.text(result, "toolResult")
    if outcome != "approved":  # rejected, or saved for later: still planning, told why
        return _deny(told or hookclient.text(result, "feedback") or "The plan was rejected.")
    call.note_mode(result.get("restoredMode"))
    text = told or "User has approved your plan."
    if result.get("chosenMode") == "acceptEdits" or result.get("restoredMode") == "acceptEdits":
        text += f"\n\n{AUTO_ACCEPT_NOTE}"
    kept = {k: v for k, v in call.input.items() if k != versions.APPROVAL_KEY}
    return _rewrite({**kept, versions.APPROVAL_KEY: text})


def wait_for_decision(
    info: dict[str, Any], params: dict[str, Any], cancelled: transcript.Cancelled
) -> dict[str, Any] | None:
    """``planMode/exit`` and its answer, however long the user takes; None when the user
    cancels the call in Gemini meanwhile (Esc: ``cancelled``), and then the connection is
    dropped, which withdraws the approval from the editor. As the client's ``request`` with a
    keep-alive: after ``PLANMODE_HOOK_KEEPALIVE`` seconds of silence the server is pinged, and
    as long again without an answer it is taken for dead."""
    import _socket
    import time

    from planmode.agents.hookclient import PING, frame, next_message

    keepalive = hookclient.keepalive()
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(POLL)
    try:
        try:
            sock.connect(info["socket"])
        except (FileNotFoundError, ConnectionRefusedError):
            raise ServerGone(info.get("pid")) from None
        message = {"jsonrpc": "2.0", "id": 1, "method": "planMode/exit", "params": params}
        sock.sendall(frame(dumps(message).encode()))
        buffer = b""
        heard = time.monotonic()
        pinged = False
        while True:
            body, buffer = next_message(buffer)
            if body is not None:
                answer = loads(body)
                if not isinstance(answer, dict) or "method" in answer:
                    continue  # a notification
                if answer.get("id") == 2:
                    pinged = False  # alive: the wait goes on
                elif answer.get("id") == 1:
                    if "error" in answer:
                        error = answer["error"] if isinstance(answer["error"], dict) else {}
                        raise HookError(f"the plan-mode server refused: {error.get('message')}")
                    result = answer.get("result")
                    if not isinstance(result, dict):
                        raise HookError("the plan-mode server answered without a result")
                    return result
                continue
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                if cancelled():
                    return None
                if time.monotonic() - heard < keepalive:
                    continue
                if pinged:
                    raise HookError(
                        "the plan-mode server stopped answering "
                        f"(no answer to {PING} within {keepalive:g} s)"
                    ) from None
                ping = {"jsonrpc": "2.0", "id": 2, "method": PING, "params": {}}
                sock.sendall(frame(dumps(ping).encode()))
                pinged, heard = True, time.monotonic()
                continue
            if not chunk:
                raise HookError("the plan-mode server closed the connection")
            buffer += chunk
            heard = time.monotonic()
    except OSError as exc:
        raise HookError(f"the plan-mode server did not answer planMode/exit: {exc}") from exc
    finally:
        sock.close()


def after_tool(call: Call) -> dict[str, Any] | None:
    """The approval's text for the model, or the mode Gemini's own answer switched to."""
    if call.tool == EXIT_TOOL:
        approved = call.input.get(versions.APPROVAL_KEY)
        if isinstance(approved, str) and approved:
            output = {"hookEventName": "AfterTool", "additionalContext": approved}
            return {"hookSpecificOutput": output}
    response = call.event.get("tool_response")
    content = response.get("llmContent") if isinstance(response, dict) else None
    if not isinstance(content, str):
        return None
    if call.tool == EXIT_TOOL:
        mode = versions.described_mode(content, versions.APPROVED)
    elif call.tool == ENTER_TOOL and content.startswith(versions.ENTERED):
        mode = "plan"
    else:
        return None
    if mode is None:
        return None  # rejected in Gemini's dialog: still planning
    found = _locate(call)
    if found is not None:
        _set_mode(endpoint(found[1]), call, mode)
    else:
        call.note_mode(mode)
    return None


def session_start(call: Call) -> None:
    from planmode.agents.gemini import modes

    transcript.start(call.session, call.event.get("transcript_path"))
    if call.event.get("source") not in ("startup", "resume"):
        return  # /clear keeps Gemini's mode, which no file tells
    mode = modes.starting_mode(call.project)
    if mode is None:
        return
    found = _locate(call)
    if found is None:
        call.note_mode(mode)
        return
    _set_mode(endpoint(found[1]), call, mode)


def session_end(call: Call) -> None:
    found = _locate(call)
    notes.forget(call.session)
    if found is not None:
        timeout = hookclient.timeout()
        request(endpoint(found[1]), "planMode/endSession", {"sessionId": call.session}, timeout)


def answer(event: dict[str, Any], launcher: str | None = None) -> dict[str, Any] | None:
    """The hook's output for one event (None: print nothing)."""
    call = Call(event, launcher)
    root = "the workspace"
    try:
        if call.name == "AfterTool":
            return after_tool(call)
        if call.name == "SessionStart":
            session_start(call)
            return None
        if call.name == "SessionEnd":
            session_end(call)
            return None
        if call.name != "BeforeTool":
            return None
        found = _locate(call)
        if found is None:
            return None  # no editor server here ever: Gemini's own plan mode and dialogs
        root, record = found
        return before_tool(endpoint(record), call)
    except NoServer:  # it stopped, as servers do when the editor closes
        return None
    except ServerGone as gone:
        sys.stderr.write(f"planmode hook: {gone}\n")
        return _fail_closed(call, hookclient.gone(root, gone.pid))
    except Exception as exc:  # every failure is decided: none is a crash
        sys.stderr.write(f"planmode hook: {hookclient.why(exc)}\n")
        return _fail_closed(
            call, f"Denied by plan mode (the plan-mode server failed): {hookclient.why(exc)}"
        )


def _fail_closed(call: Call, reason: str) -> dict[str, Any] | None:
    """While the session plans, a call plan mode could not check is refused with ``reason``;
    otherwise nothing is said."""
    if call.name == "BeforeTool" and call.planning:
        return _deny(reason)
    return None


def _envelope(raw: bytes) -> dict[str, Any]:
    """What an input that could not be parsed says of itself, read as text: the first
    ``hook_event_name``, ``tool_name`` and ``session_id``."""
    import re

    text = raw.decode("utf-8", "replace")
    found: dict[str, Any] = {}
    for key in ("hook_event_name", "tool_name", "session_id"):
        values = re.findall(rf'"{key}"\s*:\s*"([^"\\]*)"', text)
        if values:
            found[key] = values[0]
    return found


def _launcher(argv: list[str]) -> str | None:
    """``--launcher PATH``: planmode's shell launcher, as the user's policy file names it."""
    if "--launcher" in argv:
        at = argv.index("--launcher")
        if at + 1 < len(argv) and os.path.isabs(argv[at + 1]):
            return argv[at + 1]
    return None


def run(argv: list[str] | None = None) -> int:
    """Read one hook event, print the answer (if any); always exit 0."""
    launcher = _launcher(sys.argv[1:] if argv is None else argv)
    raw = b""
    try:
        raw = sys.stdin.buffer.read()
        event = hookclient.event(raw, notes.valid_session)
    except Exception as exc:  # bad JSON, deep nesting, huge input: decided all the same
        sys.stderr.write(f"planmode hook: the hook input cannot be read: {hookclient.why(exc)}\n")
        envelope = _envelope(raw)
        session = envelope.get("session_id")
        planning = envelope.get("tool_name") == EXIT_TOOL or (
            isinstance(session, str)
            and notes.valid_session(session)
            and notes.read(session, notes.MODE) == "plan"
        )
        output = None
        if envelope.get("hook_event_name") in (None, "BeforeTool") and planning:
            output = _deny(
                f"Denied by plan mode (the hook input cannot be read): {hookclient.why(exc)}"
            )
    else:
        output = answer(event, launcher)
    if output is not None:
        sys.stdout.write(dumps(output) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(run())
