"""The Claude Code hook stays in charge under faults and attack.

Each test runs the real server process (tests/e2e/stdio_server.py) and ``planmode hook`` as
Claude Code runs it — a subprocess with the payload on stdin, ``CLAUDE_PROJECT_DIR`` and
``CLAUDE_CODE_SESSION_ID`` in its environment — and judges by effect: what the hook prints,
what is on disk, the session's mode.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planmode import runtime
from planmode.lsp.transport.discovery import discovery_path
from tests.e2e.stdio_server import StdioServer

SESSION = "cc-session-1"
SLUG = "plan-a-greeting-change-sparkling-knuth"
WAITED = "named no plan file within"


@pytest.fixture
def logs(tmp_path: Path) -> Iterator[Path]:
    """Server stderr, printed when a test fails (pytest shows captured output then)."""
    path = tmp_path / "server.log"
    yield path
    if path.exists():
        print(path.read_text(errors="replace")[-20000:])


def claude_env(root: Path, home: Path, **extra: str) -> dict[str, str]:
    """The environment Claude Code gives its command hooks."""
    env = {
        **os.environ,
        "HOME": str(home),
        "CLAUDE_PROJECT_DIR": str(root),
        "CLAUDE_CODE_SESSION_ID": SESSION,
        **extra,
    }
    env.pop("CLAUDE_CONFIG_DIR", None)
    return env


def start_hook(
    payload: dict[str, Any] | bytes, env: dict[str, str], cwd: Path | None = None
) -> subprocess.Popen[bytes]:
    with tempfile.TemporaryFile() as stdin:
        stdin.write(payload if isinstance(payload, bytes) else json.dumps(payload).encode())
        stdin.seek(0)
        return subprocess.Popen(
            [sys.executable, "-m", "planmode", "hook"],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        )


def finish(proc: subprocess.Popen[bytes], timeout: float = 60) -> dict[str, Any] | None:
    """The hook's answer (None: it printed nothing); it always exits 0."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert proc.returncode == 0, err.decode(errors="replace")
    return json.loads(out) if out.strip() else None


def hook(
    payload: dict[str, Any] | bytes, env: dict[str, str], cwd: Path | None = None
) -> dict[str, Any] | None:
    return finish(start_hook(payload, env, cwd))


def pre_tool_use(root: Path, tool: str, tool_input: dict[str, Any], **changes: Any) -> dict:
    return {
        "session_id": SESSION,
        "cwd": str(root),
        "permission_mode": "plan",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01",
        **changes,
    }


def write(root: Path, path: Path | str, **changes: Any) -> dict[str, Any]:
    return {
        **pre_tool_use(root, "Write", {"file_path": str(path), "content": "x = 1\n"}),
        **changes,
    }


def exit_request(root: Path, tool_input: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "cwd": str(root),
        "permission_mode": "plan",
        "hook_event_name": "PermissionRequest",
        "tool_name": "ExitPlanMode",
        "tool_input": tool_input,
        **changes,
    }


def decision(output: dict[str, Any] | None) -> str | None:
    """PreToolUse's permissionDecision, or PermissionRequest's behavior."""
    if output is None:
        return None
    specific = output["hookSpecificOutput"]
    if specific["hookEventName"] == "PermissionRequest":
        return str(specific["decision"]["behavior"])
    return str(specific["permissionDecision"])


def reason(output: dict[str, Any] | None) -> str:
    assert output is not None
    specific = output["hookSpecificOutput"]
    if specific["hookEventName"] == "PermissionRequest":
        return str(specific["decision"]["message"])
    return str(specific["permissionDecisionReason"])


def transcript_line(**fields: Any) -> str:
    """One line as Claude Code writes it: compact JSON, its own key order."""
    return json.dumps(fields, separators=(",", ":")) + "\n"


def claude_code_transcript(home: Path, version: str = "2.1.332", slug: bool = True) -> Path:
    """A transcript under ``home/.claude``; with ``slug`` its lines name the plan file."""
    path = home / ".claude" / "projects" / "-workspace" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        transcript_line(type="mode", mode="normal", sessionId=SESSION),
        transcript_line(type="permission-mode", permissionMode="plan", sessionId=SESSION),
    ]
    if slug:
        plan = plan_file(home)
        attachment = {
            "type": "plan_mode",
            "reminderType": "full",
            "isSubAgent": False,
            "planFilePath": str(plan),
            "planExists": False,
        }
        lines.append(
            transcript_line(
                type="attachment",
                attachment=attachment,
                sessionId=SESSION,
                version=version,
                slug=SLUG,
            )
        )
    path.write_text("".join(lines))
    return path


def plan_file(home: Path) -> Path:
    return home / ".claude" / "plans" / f"{SLUG}.md"


@contextlib.contextmanager
def planted_record(root: Path, info: dict[str, Any]) -> Iterator[Path]:
    """A workspace record as a server leaves one (it is this user's own directory)."""
    runtime.ensure_directory()
    path = Path(runtime.record_path(str(root)))
    path.write_text(json.dumps(info))
    path.chmod(0o600)
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


class FakeServer:
    """A socket that answers every request with ``reply`` (raw body bytes) and counts the
    connections: a server planted by an attacker, or one whose answers are malformed."""

    def __init__(self, path: Path, reply: bytes = b"") -> None:
        self.reply = reply
        self.connections = 0
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(8)
        self.path = path
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                with contextlib.suppress(OSError):
                    conn.sendall(b"Content-Length: %d\r\n\r\n%b" % (len(self.reply), self.reply))

    def close(self) -> None:
        self.listener.close()


def allow_everything() -> bytes:
    result = {
        "behavior": "allow",
        "rule": "grant",
        "vouched": True,
        "mode": "plan",
        "outcome": "approved",
    }
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).encode()


# -- 19.8: one transcript wait per session ---------------------------------------------------


def test_writes_without_a_slug_wait_once_per_session(root: Path, home: Path, logs: Path) -> None:
    """Before: every Write/Edit of a session whose transcript named no plan file waited 1 s
    for it (150 writes, 155 s). Now the session waits once and then decides with what it
    knows — and still learns the plan file when the transcript names it later."""
    server = StdioServer(root, home, log=logs)
    env = claude_env(root, home)
    try:
        transcript = claude_code_transcript(home, slug=False)
        missing = home / ".claude" / "projects" / "-workspace" / "not-written-yet.jsonl"
        for _ in range(5):
            out = hook(write(root, root / "src" / "app.py", transcript_path=str(transcript)), env)
            assert decision(out) == "deny"
            assert reason(out).startswith("Denied by plan mode (only the plan file")
        for _ in range(3):
            other = write(root, root / "src" / "app.py", transcript_path=str(missing))
            assert decision(hook({**other, "session_id": "cc-session-2"}, env)) == "deny"
        server.request("planMode/listPlans", {})  # the server's log is written by now
        waits = logs.read_text().count(WAITED)
        assert waits == 2, f"{waits} transcript waits for 2 sessions and 8 writes"
        assert server.state(SESSION)["mode"] == "plan"

        # The transcript catches up: the next call learns the plan file, with no new wait.
        claude_code_transcript(home)
        allowed = hook(write(root, plan_file(home), transcript_path=str(transcript)), env)
        assert decision(allowed) == "allow"
        assert server.state(SESSION)["planFilePath"] == str(plan_file(home))
        assert logs.read_text().count(WAITED) == 2
    finally:
        server.close()


# -- 19.8: a server that died, a server that hangs --------------------------------------------


def test_a_server_that_died_denies_while_planning(
    root: Path, home: Path, tmp_path: Path, logs: Path
) -> None:
    """Before: after kill -9 the hook took the stale endpoint for "no server" and said nothing
    while Claude Code planned, so a write was only asked about in the terminal."""
    env = claude_env(root, home)
    server = StdioServer(root, home, log=logs)
    assert decision(hook(write(root, root / "src" / "app.py"), env)) == "deny"
    server.kill()

    for call in (
        write(root, root / "src" / "app.py"),
        pre_tool_use(root, "Bash", {"command": "ls src"}),
    ):
        out = hook(call, env)
        assert decision(out) == "deny", call
        assert reason(out).startswith("Denied by plan mode (the plan-mode server is gone)")
        assert "reopen the workspace in the editor" in reason(out)
        assert "planmode lsp" in reason(out)
    refused = hook(exit_request(root, {"plan": "# Plan\n"}), env)
    assert decision(refused) == "deny"
    assert "is gone" in reason(refused)
    # Outside plan mode the hook has no say, gone server or not.
    assert hook(write(root, root / "src" / "app.py", permission_mode="default"), env) is None
    assert (
        hook({"session_id": SESSION, "cwd": str(root), "hook_event_name": "SessionEnd"}, env)
        is None
    )

    # A workspace that never had a server: Claude Code asks as usual.
    never = tmp_path / "never-served"
    never.mkdir()
    assert hook(write(never, never / "a.py"), claude_env(never, home)) is None

    # A server that starts again decides; one that stops cleanly (the editor closed) leaves
    # no record: nothing is said.
    server = StdioServer(root, home, log=logs)
    try:
        assert decision(hook(write(root, root / "src" / "app.py"), env)) == "deny"
    finally:
        server.close()
    assert hook(write(root, root / "src" / "app.py"), env) is None


def test_a_hung_server_does_not_hold_a_waiting_exit(root: Path, home: Path, logs: Path) -> None:
    """Before: an ExitPlanMode hook waited on a SIGSTOPped server forever. Now a silence is
    met with planMode/ping; a live server answers it (however long the user takes), a hung
    one does not, and the exit is denied."""
    env = claude_env(root, home, PLANMODE_HOOK_KEEPALIVE="0.3")
    server = StdioServer(root, home, log=logs)
    try:
        waiting = start_hook(exit_request(root, {"plan": "# Plan\n\n1. Step.\n"}), env)
        pending = server.until(
            lambda: server.state(SESSION)["pendingApproval"], 30, "the exit never became pending"
        )
        time.sleep(1.5)  # several silences of 0.3 s: each one pinged and answered
        assert waiting.poll() is None
        server.request("planMode/approve", {"approvalId": pending["approvalId"]})
        assert decision(finish(waiting)) == "allow"

        hook(pre_tool_use(root, "Read", {"file_path": "x"}), env)  # back into plan mode
        waiting = start_hook(exit_request(root, {"plan": "# Plan\n\n2. Step.\n"}), env)
        server.until(
            lambda: server.state(SESSION)["pendingApproval"], 30, "the exit never became pending"
        )
        os.kill(server.pid, signal.SIGSTOP)
        try:
            out = finish(waiting, timeout=30)
        finally:
            os.kill(server.pid, signal.SIGCONT)
        assert decision(out) == "deny"
        assert "stopped answering" in reason(out)
        # Awake again, the server saw the hook go: the approval is withdrawn, plan mode stays.
        state = server.until(
            lambda: (s := server.state(SESSION))["pendingApproval"] is None and s,
            30,
            "the abandoned approval stayed pending",
        )
        assert state["mode"] == "plan"
    finally:
        server.close()


def test_a_hook_during_start_up_waits_for_the_server(root: Path, home: Path, logs: Path) -> None:
    """Before: a call while the editor's server was starting found no endpoint and was let
    through silently. The server records that it is starting; the hook waits for it."""
    server = StdioServer(root, home, log=logs, ready=False)
    try:
        record = Path(runtime.record_path(str(root)))
        deadline = time.monotonic() + 30
        while not (record.exists() and json.loads(record.read_text())["state"] == "starting"):
            assert time.monotonic() < deadline, "the starting server left no record"
            time.sleep(0.02)
        waiting = start_hook(write(root, root / "src" / "app.py"), claude_env(root, home))
        time.sleep(0.5)  # the hook reads the record while the server is still starting
        server.finish_start()
        out = finish(waiting)
        assert decision(out) == "deny"
        assert reason(out).startswith("Denied by plan mode (only the plan file")
    finally:
        server.close()


def test_a_hook_as_soon_as_initialize_is_answered_gets_the_servers_decision(
    root: Path, home: Path, logs: Path
) -> None:
    """Before: the server recorded that it was starting only once its features had loaded,
    about 0.2 s after its initialize answer: a hook called in between found no server and
    said nothing while planning. The record is written before the answer now."""
    server = StdioServer(root, home, log=logs, ready=False)  # returns with the answer
    try:
        record = Path(runtime.record_path(str(root)))
        assert json.loads(record.read_text())["state"] == "starting"
        waiting = start_hook(write(root, root / "src" / "app.py"), claude_env(root, home))
        server.finish_start()  # initialized, as an editor sends it after the answer
        out = finish(waiting)
        assert decision(out) == "deny"
        assert reason(out).startswith("Denied by plan mode (only the plan file")
    finally:
        server.close()


# -- 20.8: a file the agent could have written decides nothing ---------------------------------


def test_an_endpoint_file_in_the_workspace_decides_nothing(
    root: Path, home: Path, tmp_path: Path, logs: Path
) -> None:
    """Before: ``vendor/pkg/.claude/plan-mode/endpoint.json`` naming a dead socket stopped the
    search at ``cwd`` = vendor/pkg and the hook said nothing: a write of src/app.py while
    planning was not denied. Neither it nor a workspace file naming a server that allows
    everything is read now."""
    fake = FakeServer(tmp_path / "fake.sock", allow_everything())
    vendored = root / "vendor" / "pkg"
    planted = discovery_path(vendored)
    planted.parent.mkdir(parents=True)
    planted.write_text(json.dumps({"socket": str(tmp_path / "dead.sock"), "pid": os.getpid()}))
    server = StdioServer(root, home, log=logs)
    try:
        # The workspace's own copy, overwritten to name the fake server.
        discovery_path(root).write_text(json.dumps({"socket": str(fake.path), "pid": os.getpid()}))
        env = claude_env(root, home)
        out = hook(write(vendored, root / "src" / "app.py"), env, cwd=vendored)
        assert decision(out) == "deny"
        assert reason(out).startswith("Denied by plan mode (only the plan file")
        # Without CLAUDE_PROJECT_DIR the payload's cwd is walked up, through records only.
        bare = {k: v for k, v in env.items() if k != "CLAUDE_PROJECT_DIR"}
        assert decision(hook(write(vendored, root / "src" / "app.py"), bare, vendored)) == "deny"
        state = subprocess.run(
            [sys.executable, "-m", "planmode", "state", "--session", SESSION],
            capture_output=True,
            text=True,
            cwd=vendored,
            env=bare,
            timeout=60,
        )
        assert state.stdout.startswith("mode: plan"), state.stderr

        # A workspace that never had a server, whatever its files say: nothing is allowed.
        other = tmp_path / "other"
        discovery_path(other).parent.mkdir(parents=True)
        discovery_path(other).write_text(json.dumps({"socket": str(fake.path), "pid": os.getpid()}))
        assert hook(write(other, other / "a.py"), claude_env(other, home), other) is None
        assert fake.connections == 0
        assert (root / "src" / "app.py").read_text() == "print('hello')\n"
    finally:
        server.close()
        fake.close()


# -- 20.9: every input gets a decision ----------------------------------------------------------


def test_every_input_gets_a_decision(root: Path, home: Path, logs: Path) -> None:
    """Before: a tool_input nested 1,000 arrays deep crashed the hook (RecursionError, exit
    1, no output) and the deny was lost. Any input now exits 0; while planning a failure
    denies, otherwise nothing is printed."""
    env = claude_env(root, home)
    deep = "[" * 1000 + "]" * 1000

    def raw(mode: str, event: str = "PreToolUse", tool: str = "Write", body: str = deep) -> bytes:
        return (
            f'{{"session_id":"{SESSION}","cwd":{json.dumps(str(root))},'
            f'"permission_mode":"{mode}","hook_event_name":"{event}","tool_name":"{tool}",'
            f'"tool_input":{{"file_path":"src/app.py","content":{body}}}}}'
        ).encode()

    server = StdioServer(root, home, log=logs)
    try:
        planning: list[bytes | dict[str, Any]] = [
            raw("plan"),
            raw("plan")[:-40],  # cut short
            raw("plan", body='"\xff"').replace(b"\xc3\xbf", b"\xff"),  # not UTF-8
            raw("plan").replace(f'"session_id":"{SESSION}",'.encode(), b""),
            write(root, "src/app.py", tool_input=[1, 2]),
            write(root, "src/app.py", agent_id=7),
            write(root, "src/app.py", cwd=5),
            write(
                root,
                "src/app.py",
                tool_input={"file_path": "src/app.py", "content": "\ud800\x00é🙂"},
            ),
            write(
                root,
                "src/app.py",
                tool_input={"file_path": "src/app.py", "content": "x" * 8_000_000},
            ),
        ]
        for payload in planning:
            out = hook(payload if isinstance(payload, bytes) else json.dumps(payload).encode(), env)
            assert decision(out) == "deny", str(payload)[:200]
        exit_deep = hook(raw("plan", "PermissionRequest", "ExitPlanMode"), env)
        assert exit_deep is not None
        assert exit_deep["hookSpecificOutput"]["hookEventName"] == "PermissionRequest"
        assert decision(exit_deep) == "deny"
        for quiet in (raw("default"), raw("default")[:-40], b"[]", b"", b"null"):
            assert hook(quiet, env) is None, quiet[:200]
    finally:
        server.close()
    assert (root / "src" / "app.py").read_text() == "print('hello')\n"


@pytest.mark.parametrize(
    "reply",
    [
        b"not json",
        json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"behavior": 5}}).encode(),
        json.dumps({"jsonrpc": "2.0", "id": 1, "result": [1]}).encode(),
        json.dumps(
            {"jsonrpc": "2.0", "id": 1, "result": {"outcome": "approved", "plan": 5}}
        ).encode(),
        b'{"jsonrpc":"2.0","id":1,"result":' + b"[" * 5000 + b"]" * 5000 + b"}",
        json.dumps({"jsonrpc": "2.0", "id": 1, "error": "boom"}).encode(),
    ],
)
def test_a_malformed_server_answer_denies_while_planning(
    tmp_path: Path, home: Path, reply: bytes
) -> None:
    workspace = tmp_path / "served-badly"
    workspace.mkdir()
    fake = FakeServer(tmp_path / "bad.sock", reply)
    info = {"version": 1, "state": "running", "socket": str(fake.path), "pid": os.getpid()}
    try:
        with planted_record(workspace.resolve(), info):
            env = claude_env(workspace, home)
            calls = [
                write(workspace, workspace / "a.py"),
                exit_request(workspace, {"plan": "# Plan\n"}),
            ]
            for call in calls:
                out = hook(call, env)
                assert decision(out) == "deny", call
                assert reason(out).startswith("Denied by plan mode (the plan-mode server failed)")
                assert hook({**call, "permission_mode": "acceptEdits"}, env) is None
    finally:
        fake.close()


def test_an_answer_without_vouched_denies_while_planning(tmp_path: Path, home: Path) -> None:
    """A server older than the hook says nothing of whether plan mode stands behind its
    answer: while planning the call is denied (fail closed), otherwise nothing is said."""
    workspace = tmp_path / "older-server"
    workspace.mkdir()
    result = {"behavior": "allow", "rule": "plan.planFile", "mode": "plan"}
    fake = FakeServer(
        tmp_path / "old.sock", json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).encode()
    )
    info = {"version": 1, "state": "running", "socket": str(fake.path), "pid": os.getpid()}
    try:
        with planted_record(workspace.resolve(), info):
            env = claude_env(workspace, home)
            call = write(workspace, workspace / "a.py")
            out = hook(call, env)
            assert decision(out) == "deny"
            assert reason(out).startswith("Denied by plan mode (the plan-mode server failed)")
            assert "without 'vouched'" in reason(out)
            assert hook({**call, "permission_mode": "acceptEdits"}, env) is None
            assert fake.connections == 2
    finally:
        fake.close()


# -- 20.10: Claude Code's version, from the line's structure ------------------------------------


def test_the_version_is_the_lines_own_not_the_models(root: Path, home: Path, logs: Path) -> None:
    """Before: the last text ``"version"`` in the transcript's tail decided, so a version key
    in the model's tool input (a line still being written, or one Claude Code keeps without
    a version of its own) switched whether the hook rewrote a Bash line into the sandbox."""
    env = claude_env(root, home)
    transcript = home / ".claude" / "projects" / "-workspace" / f"{SESSION}.jsonl"
    transcript.parent.mkdir(parents=True)
    bash = pre_tool_use(root, "Bash", {"command": "ls src"}, transcript_path=str(transcript))

    def tool_use(version: str) -> dict[str, Any]:
        content = [{"type": "tool_use", "name": "Write", "input": {"version": version}}]
        return {"role": "assistant", "content": content}

    server = StdioServer(root, home, log=logs)
    try:
        hook(pre_tool_use(root, "Read", {"file_path": "x"}), env)
        mechanism = server.state(SESSION)["sandbox"]["mechanism"]
        # 2.1.332 asks for a rewritten line: the model's "2.1.100" in a line being written.
        writing = transcript_line(type="assistant", message=tool_use("2.1.100"), version="2.1.332")
        transcript.write_text(
            transcript_line(type="user", sessionId=SESSION, version="2.1.332", slug=SLUG)
            + writing[: writing.index('"2.1.100"') + len('"2.1.100"')]
        )
        newer = hook(bash, env)
        assert decision(newer) == "allow"
        assert "updatedInput" not in newer["hookSpecificOutput"]  # type: ignore[index]
        # 2.1.197 runs it unasked: the model's "9.9.9" on a line without a version of its own.
        transcript.write_text(
            transcript_line(type="user", sessionId=SESSION, version="2.1.197", slug=SLUG)
            + transcript_line(type="progress", data={"message": tool_use("9.9.9")})
        )
        older = hook(bash, env)
        assert decision(older) == "allow"
        if mechanism is not None:
            rewritten = older["hookSpecificOutput"]["updatedInput"]  # type: ignore[index]
            assert rewritten["command"] != "ls src" and "ls src" in rewritten["command"]
    finally:
        server.close()


# -- 20.11: a subagent's ExitPlanMode is the subagent's -----------------------------------------


def test_a_subagents_exit_is_its_own(root: Path, home: Path, logs: Path) -> None:
    """Before: the PermissionRequest lost ``agent_id``: the subagent's plan became a
    main-session approval that overwrote the main plan file, and approving it moved the whole
    session to the chosen mode."""
    env = claude_env(root, home)
    transcript = claude_code_transcript(home)
    main_plan = plan_file(home)
    agent_plan = main_plan.with_name(f"{SLUG}-agent-a7f3c2.md")
    server = StdioServer(root, home, log=logs)
    try:
        allowed = hook(write(root, main_plan, transcript_path=str(transcript)), env)
        assert decision(allowed) == "allow"
        main_plan.parent.mkdir(parents=True)
        main_plan.write_text("# Main plan\n\n1. Greet.\n")
        sub = exit_request(
            root,
            {"plan": "# Sub plan\n\n1. Look around.\n", "planFilePath": str(agent_plan)},
            transcript_path=str(transcript),
            agent_id="a7f3c2",
            agent_type="Plan",
        )
        waiting = start_hook(sub, env)
        requested = server.until(
            lambda: next(
                (
                    n["params"]
                    for n in server.notifications
                    if n["method"] == "planMode/approvalRequested"
                ),
                None,
            ),
            30,
            "no approval was requested",
        )
        assert requested["agentId"] == "a7f3c2"
        assert requested["planFilePath"] == str(agent_plan)
        assert main_plan.read_text() == "# Main plan\n\n1. Greet.\n"
        server.request(
            "planMode/approve",
            {"approvalId": requested["approvalId"], "mode": "acceptEdits"},
        )
        out = finish(waiting)
        assert decision(out) == "allow"
        assert "updatedPermissions" not in out["hookSpecificOutput"]["decision"]  # type: ignore[index]
        assert server.state(SESSION)["mode"] == "plan"
        assert main_plan.read_text() == "# Main plan\n\n1. Greet.\n"
        assert agent_plan.read_text() == "# Sub plan\n\n1. Look around.\n"
        # A subagent's end is not the conversation's.
        ended = {"session_id": SESSION, "cwd": str(root), "hook_event_name": "SessionEnd"}
        assert hook({**ended, "agent_id": "a7f3c2"}, env) is None
        assert server.state(SESSION)["mode"] == "plan"
    finally:
        server.close()
