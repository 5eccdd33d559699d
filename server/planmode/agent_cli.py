"""``planmode state|enter|exit|approve|reject|save|keep|undo|check|plans|progress``: the CLI of a
running server.

Each verb is a function here taking the connection and its arguments; its request is named
from :mod:`planmode.lsp.protocol`, and :mod:`planmode.cli` registers it with its arguments.
Talks to the server of the workspace through its agent endpoint (see
:mod:`planmode.lsp.transport.discovery`); stdlib only, so it starts fast. Human-readable
output by default, ``--json`` for scripts.

Exit codes: 0 success (``check``: allow), 1 error or no server, 2 ``check`` denied (or
``approve``/``reject``/``keep``/``undo`` without an id while several wait: the list is printed),
3 ``check`` asks the user.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planmode.lsp import protocol
from planmode.lsp.transport.discovery import Connection, NoServer, RpcError, connect, find_root

EXIT_OK, EXIT_ERROR, EXIT_DENY, EXIT_ASK = 0, 1, 2, 3
# approve/reject/keep/undo without an id when several are waiting: the list, to pick from.
EXIT_CHOOSE = 2

# A verb: what it asks the server, and what it prints; returns the exit code.
ServerVerb = Callable[[Connection, argparse.Namespace], int]


def run(verb: ServerVerb, args: argparse.Namespace) -> int:
    """Run ``verb`` against the workspace's server; every failure is a message and an exit
    code."""
    root = Path(args.root).resolve() if args.root else find_root(Path.cwd()) or Path.cwd()
    # Only `exit --wait` waits for the user, as long as they take.
    timeout = None if getattr(args, "wait", False) else 30
    try:
        with connect(root, timeout=timeout) as conn:
            return verb(conn, args)
    except Ambiguous as exc:
        if args.json:
            print(json.dumps(exc.result, indent=2))
        else:
            text = "\n".join([exc.what, *(f"  {line}" for line in exc.choices)])
            print(_printable(text), file=sys.stderr)
        return EXIT_CHOOSE
    except NoServer as exc:
        print(
            f"planmode: {exc}. Start your editor with the planmode server first.", file=sys.stderr
        )
        return EXIT_ERROR
    except RpcError as exc:
        print(_printable(f"planmode: {exc.message} (error {exc.code})"), file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader left early (`planmode plans | head -1`): nothing more to tell it, and no
        # error to print about it. Not EXIT_OK: a decision the caller never read is no allow.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except (OSError, ValueError) as exc:
        print(_printable(f"planmode: {exc}"), file=sys.stderr)
        return EXIT_ERROR


# -- the verbs ------------------------------------------------------------------------------


def state(conn: Connection, args: argparse.Namespace) -> int:
    result = conn.request(protocol.GET_STATE, _params(args))
    _show(args, result, _state_text(result))
    return EXIT_OK


def enter(conn: Connection, args: argparse.Namespace) -> int:
    result = conn.request(protocol.ENTER, _params(args, agentId=args.agent))
    _show(args, result, f"{result['message']}\n\n{_state_text(result['state'])}")
    return EXIT_OK


def exit_(conn: Connection, args: argparse.Namespace) -> int:
    params = _params(args, agentId=args.agent, plan=_plan_text(args.plan))
    if not args.wait:
        params["detach"] = True
    result = conn.request(protocol.EXIT, params)
    if result.get("outcome") == "pending":
        human = f"Plan submitted for approval in the editor ({result['approvalId']})."
    else:
        human = result["toolResult"]
    _show(args, result, human)
    return EXIT_ERROR if result.get("outcome") == "rejected" else EXIT_OK


def approve(conn: Connection, args: argparse.Namespace) -> int:
    params, approval = _find_approval(conn, args)
    params.update(_params(args, mode=args.mode, includeComments=args.comments))
    params.update(_grant_params(args, approval))
    human = "Approved."
    if params.get("allowedPrompts") and approval is not None:
        rules = [f"  • {g['rule']}" for g in approval.get("grants") or []]
        human = "\n".join(["Approved, and allowed without asking:", *rules])
    _show(args, conn.request(protocol.APPROVE, params), human)
    return EXIT_OK


def reject(conn: Connection, args: argparse.Namespace) -> int:
    params = _find_approval(conn, args)[0]
    params.update(_params(args, feedback=args.feedback, includeComments=args.comments))
    _show(args, conn.request(protocol.REJECT, params), "Rejected.")
    return EXIT_OK


def save(conn: Connection, args: argparse.Namespace) -> int:
    """Save the plan under review for later (docs/protocol.md §12.3): the agent is told not to
    implement it now, and the plan waits in the library to be taken up again."""
    params = _find_approval(conn, args)[0]
    _show(
        args,
        conn.request(protocol.SAVE_FOR_LATER, params),
        "Saved for later: take it up again with planmode plans take-up.",
    )
    return EXIT_OK


def keep(conn: Connection, args: argparse.Namespace) -> int:
    result = conn.request(protocol.KEEP_HUNK, _hunk_params(conn, args))
    if not result.get("ok"):
        _show(args, result, f"Not kept: {result.get('failureReason')}")
        return EXIT_ERROR
    _show(args, result, "Kept.")
    return EXIT_OK


def undo(conn: Connection, args: argparse.Namespace) -> int:
    result = conn.request(protocol.UNDO_HUNK, _hunk_params(conn, args))
    if not result.get("ok"):
        _show(args, result, f"Not undone: {result.get('failureReason')}")
        return EXIT_ERROR
    _show(args, result, "Undone.")
    return EXIT_OK


def check(conn: Connection, args: argparse.Namespace) -> int:
    try:
        tool_input = json.loads(args.input)
    except ValueError as exc:
        raise ValueError(f"the tool input is not JSON ({exc}): {args.input!r:.80}") from None
    result = conn.request(
        protocol.CHECK_TOOL, _params(args, tool=args.tool, input=tool_input, agentId=args.agent)
    )
    message = f": {result['message']}" if result.get("message") else ""
    sandbox = result.get("sandbox")
    if isinstance(sandbox, dict):
        message += f"\nrun it sandboxed ({sandbox['mechanism']}): {sandbox['command']}"
    _show(args, result, f"{result['behavior']}{message}")
    return {"allow": EXIT_OK, "deny": EXIT_DENY}.get(result["behavior"], EXIT_ASK)


def plans(conn: Connection, args: argparse.Namespace) -> int:
    """The plan library (one line a plan), or ``take-up SLUG|PATH``: a saved plan becomes the
    session's plan again."""
    if args.action == "take-up":
        return take_up(conn, args)
    if args.plan is not None:
        raise ValueError(f"planmode plans takes a plan only after take-up, not {args.plan!r}")
    result = conn.request(protocol.LIST_PLANS, _params(args))
    root = Path(args.root).resolve() if args.root else find_root(Path.cwd())
    _show(args, result, plans_table(result["plans"], root))
    return EXIT_OK


def take_up(conn: Connection, args: argparse.Namespace) -> int:
    """A saved plan, named by its slug or path, taken up by ``--session``; without it, by the
    session that saved it (the plan's own), else the editor's default session."""
    if not args.plan:
        raise ValueError("planmode plans take-up needs the plan: its slug or its path")
    listed = conn.request(protocol.LIST_PLANS, {})["plans"]
    if "/" not in args.plan and not args.plan.endswith(".md"):
        named = [p for p in listed if p["slug"] == args.plan and not p.get("agentId")]
        if not named:
            raise ValueError(f"no plan {args.plan!r} in the workspace (planmode plans lists them)")
        path = named[0]["path"]
    else:
        path = str(Path(args.plan).resolve())
    params = _params(args, path=path)
    own = next((p.get("sessionId") for p in listed if p["path"] == path), None)
    if "sessionId" not in params and own:
        params["sessionId"] = own
    result = conn.request(protocol.TAKE_UP_PLAN, params)
    _show(
        args,
        result,
        f"Taken up: {result['planFilePath']} is the plan of session "
        f"{result['state']['sessionId']} again, in plan mode.",
    )
    return EXIT_OK


def plans_table(listed: list[dict[str, Any]], root: Path | None = None) -> str:
    """The library as ``planmode plans`` prints it: status (with progress), agent, session,
    last change and path, newest first."""
    if not listed:
        return "No plans yet."
    rows = [("STATUS", "AGENT", "SESSION", "MODIFIED", "PLAN")]
    for p in listed:
        status = p["status"]
        if p.get("progress"):
            status += f" {p['progress']['done']}/{p['progress']['total']}"
        path = Path(p["path"])
        if root is not None and path.is_relative_to(root):
            path = path.relative_to(root)
        session = p.get("sessionId") or "-"
        rows.append((status, p.get("agent") or "-", session[:12], p["modified"], str(path)))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4]
        for row in rows
    )


def progress(conn: Connection, args: argparse.Namespace) -> int:
    """The approved plan's progress: the session's (``--session``), else the plan approved
    last, the other executing sessions named (``--json``: all of them); none is an error."""
    from planmode.core.progress import progress_text

    if args.session:
        found = conn.request(protocol.GET_PROGRESS, _params(args))
        _show(args, found, progress_text(found))
        return EXIT_OK
    listed = conn.request(protocol.LIST_PROGRESS, {})["progress"]
    if not listed:
        raise RpcError(protocol.NO_APPROVED_PLAN, "No approved plan is being carried out")
    *older, latest = listed  # oldest approval first
    human = progress_text(latest)
    if older:
        sessions = ", ".join(p["sessionId"] for p in reversed(older))
        human += f"\nOlder plans still carried out (planmode progress --session ID): {sessions}"
    _show(args, {"progress": listed}, human)
    return EXIT_OK


# -- what the verbs share -------------------------------------------------------------------


def _params(args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    params = {k: v for k, v in extra.items() if v is not None}
    if args.session:
        params["sessionId"] = args.session
    return params


def _plan_text(raw: str | None) -> str | None:
    if raw is None:
        return None
    if raw == "-":
        return sys.stdin.read()
    if raw.startswith("@"):
        try:
            return Path(raw[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot read the plan {raw[1:]}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise ValueError(f"the plan {raw[1:]} is not UTF-8 text ({exc.reason})") from None
    return raw


class Ambiguous(Exception):
    """Several candidates and none named: the user picks one from ``choices``."""

    def __init__(self, what: str, choices: list[str], result: Any) -> None:
        super().__init__(what)
        self.what = what
        self.choices = choices
        self.result = result


def _find_approval(
    conn: Connection, args: argparse.Namespace
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The params naming the approval to decide — the named one, else the only one pending in
    the workspace (every session's, Claude Code's included, and teammates') — and the approval
    as listed (None for an id that is not listed: the server answers for it)."""
    listed = conn.request(protocol.LIST_APPROVALS, _params(args))
    approvals = listed["approvals"]
    if args.approval_id:
        named = [a for a in approvals if a["approvalId"] == str(args.approval_id)]
        return _params(args, approvalId=str(args.approval_id)), (named[0] if named else None)
    if not approvals:
        where = f"session {args.session}" if args.session else "the workspace"
        raise RpcError(protocol.NO_PENDING_APPROVAL, f"No pending approval in {where}.")
    if len(approvals) > 1:
        raise Ambiguous(
            f"{len(approvals)} approvals are pending; name one (planmode {args.verb} ID):",
            [_approval_line(a) for a in approvals],
            listed,
        )
    (approval,) = approvals
    params: dict[str, Any] = {"approvalId": approval["approvalId"]}
    if approval.get("sessionId"):
        params["sessionId"] = approval["sessionId"]
    return params, approval


def _grant_params(args: argparse.Namespace, approval: dict[str, Any] | None) -> dict[str, Any]:
    """The allowed prompts to grant with an approval: shown before they are granted, so a plan
    that asks for some is approved only with --grant (they are listed first) or --no-grant."""
    listed: dict[str, Any] = approval or {}
    asked = listed.get("allowedPrompts") or []
    if not asked or args.no_grant:
        return {}
    if not args.grant:
        rules = [
            g.get("rule", f"{g['tool']} “{g['prompt']}”") for g in listed.get("grants") or asked
        ]
        raise Ambiguous(
            "The plan also asks to run these commands without asking; approve with --grant to "
            "allow them, or --no-grant to approve the plan alone:",
            [f"• {rule}" for rule in rules],
            {"approvals": [approval]},
        )
    return {"allowedPrompts": [{"tool": p["tool"], "prompt": p["prompt"]} for p in asked]}


def _approval_line(approval: dict[str, Any]) -> str:
    if approval.get("teamName"):
        who = f"teammate {approval.get('agentId')} of {approval['teamName']}"
    else:
        who = f"session {approval.get('sessionId')}"
    return f"{approval['approvalId']}  {approval['planFilePath']}  ({who})"


def _hunk_params(conn: Connection, args: argparse.Namespace) -> dict[str, Any]:
    """path and hunkId of the hunk to keep or undo: the named one, else the only one."""
    listed = conn.request(protocol.LIST_HUNKS, _params(args, path=args.plan))
    hunks = listed["hunks"]
    if args.hunk_id:
        hunks = [h for h in hunks if h["hunkId"] == args.hunk_id]
        if not hunks:
            raise RpcError(
                protocol.PLAN_CHANGED, f"No unreviewed change {args.hunk_id} (the plan changed?)."
            )
    if not hunks:
        raise RpcError(protocol.NO_PENDING_APPROVAL, "No unreviewed changes.")
    if len(hunks) > 1:
        raise Ambiguous(
            f"{len(hunks)} changes are unreviewed; name one (planmode {args.verb} HUNK_ID):",
            [
                f"{h['hunkId']}  {h['path']}:{h['line'] + 1}  {h['keepTitle']} · {h['undoTitle']}"
                for h in hunks
            ],
            listed,
        )
    (hunk,) = hunks
    return _params(args, path=hunk["path"], hunkId=hunk["hunkId"])


# What a terminal would act on rather than show (escape sequences, bidi overrides): the texts
# printed come from agents and repositories (a path an agent wrote, a library record).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _printable(text: str) -> str:
    """``text`` with each control character spelled out (``\\x1b``), lines and tabs kept."""
    return _CONTROL.sub(lambda found: repr(found.group())[1:-1], text)


def _show(args: argparse.Namespace, result: Any, human: str) -> None:
    print(json.dumps(result, indent=2) if args.json else _printable(human))


def _state_text(state: dict[str, Any]) -> str:
    lines = [f"mode: {state['mode']}"]
    if state.get("prePlanMode"):
        lines.append(f"before plan mode: {state['prePlanMode']}")
    exists = "exists" if state.get("planExists") else "not written yet"
    lines.append(f"plan: {state['planFilePath']} ({exists})")
    pending = state.get("pendingApproval")
    if pending:
        lines.append(f"pending approval: {pending['approvalId']}")
        for grant in pending.get("grants") or []:
            lines.append(f"  asks to allow: {grant['rule']}")
    for grant in state.get("grantedPrompts") or []:
        lines.append(f"granted: {grant['tool']} “{grant['prompt']}”")
    sandbox = state.get("sandbox")
    if isinstance(sandbox, dict):
        required = (
            " — Bash denied while planning (requireSandbox)"
            if (sandbox.get("required") and not sandbox.get("mechanism"))
            else ""
        )
        lines.append(f"planning Bash: {sandbox.get('status')} ({sandbox.get('detail')}){required}")
    return "\n".join(lines)
