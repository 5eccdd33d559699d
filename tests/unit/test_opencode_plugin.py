"""planmode's OpenCode plugin (agents/opencode/planmode.js), run by node against a scripted
plan-mode server on a Unix socket found through a workspace record, as OpenCode's process would
run it: what it sends, what it throws (the model reads it), what it marks for planmode's shell,
how plan_exit's approval reaches OpenCode, and that it fails closed only while planning."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "server/planmode/agents/opencode/planmode.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="the plugin's tests need node")

# Plays OpenCode: imports the plugin, calls its hooks in the scenario's order, prints each
# outcome (and what the plugin asked of OpenCode's client) as a JSON line.
DRIVER = r"""
import { PlanMode } from "./planmode.mjs"
const steps = JSON.parse(process.argv[2])
const calls = []
const client = {
  session: {
    get: async ({ path }) => { calls.push(["session.get", path.id]); return { data: null } },
  },
  _client: { post: async (request) => { calls.push(["post", request]); return {} } },
  tui: { publish: async (request) => { calls.push(["publish", request]); return {} } },
}
const input = { client, directory: process.env.TEST_DIRECTORY, worktree: process.env.TEST_DIRECTORY,
  project: { worktree: process.env.TEST_DIRECTORY, vcs: "git" } }
const hooks = await PlanMode(input)
for (const step of steps) {
  const output = step.output ?? {}
  try {
    await hooks[step.hook](step.input, output)
    console.log(JSON.stringify({ ok: true, output, calls: calls.splice(0) }))
  } catch (error) {
    console.log(JSON.stringify({ ok: false, error: error.message, output, calls: calls.splice(0) }))
  }
}
process.exit(0)
"""

Answer = Callable[[str, dict[str, Any]], dict[str, Any]]


class Server:
    """A plan-mode server's agent endpoint, scripted: ``answer(method, params)`` is the result
    (a dict with ``"error"`` answers an error). Every request is kept."""

    def __init__(self, path: Path, answer: Answer) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.answer = answer
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._connection, args=(conn,), daemon=True).start()

    def _connection(self, conn: socket.socket) -> None:
        buffer = b""
        with conn:
            while True:
                try:
                    chunk = conn.recv(65536)
                except OSError:
                    return
                if not chunk:
                    return
                buffer += chunk
                while b"\r\n\r\n" in buffer:
                    head, rest = buffer.split(b"\r\n\r\n", 1)
                    length = int(head.split(b":")[1])
                    if len(rest) < length:
                        break
                    message = json.loads(rest[:length])
                    buffer = rest[length:]
                    self.requests.append((message["method"], message["params"]))
                    result = self.answer(message["method"], message["params"])
                    reply = (
                        {"jsonrpc": "2.0", "id": message["id"], "error": result["error"]}
                        if "error" in result
                        else {"jsonrpc": "2.0", "id": message["id"], "result": result}
                    )
                    body = json.dumps(reply).encode()
                    conn.sendall(b"Content-Length: %d\r\n\r\n%b" % (len(body), body))

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def place(tmp_path: Path) -> Iterator[dict[str, Path]]:
    runtime = tmp_path / "run"
    (runtime / "planmode").mkdir(parents=True, mode=0o700)
    runtime.chmod(0o700)
    workspace = (tmp_path / "workspace").resolve()
    (workspace / "src").mkdir(parents=True)
    shutil.copyfile(PLUGIN, tmp_path / "planmode.mjs")
    (tmp_path / "driver.mjs").write_text(DRIVER)
    yield {"runtime": runtime, "workspace": workspace, "dir": tmp_path}


def record(place: dict[str, Path], pid: int, socket_path: Path | None) -> None:
    root = str(place["workspace"])
    key = hashlib.sha256(root.encode()).hexdigest()
    info: dict[str, Any] = {"version": 1, "pid": pid, "root": root}
    info |= {"state": "running", "socket": str(socket_path)} if socket_path else {"state": "x"}
    path = place["runtime"] / "planmode" / f"workspace-{key}.json"
    path.write_text(json.dumps(info))
    path.chmod(0o600)


def run(place: dict[str, Path], steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(place["dir"] / "home"),
        "XDG_RUNTIME_DIR": str(place["runtime"]),
        "TEST_DIRECTORY": str(place["workspace"]),
        "PLANMODE_HOOK_TIMEOUT": "5",
    }
    done = subprocess.run(
        [str(NODE), "driver.mjs", json.dumps(steps)],
        cwd=place["dir"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def session(sid: str, parent: str | None = None, agent: str = "plan") -> dict[str, Any]:
    info: dict[str, Any] = {"id": sid, "slug": "calm-island", "agent": agent}
    info["time"] = {"created": 1796142069727, "updated": 1796142069727}
    if parent:
        info["parentID"] = parent
    return {
        "hook": "event",
        "input": {"event": {"type": "session.created", "properties": {"info": info}}},
    }


def agent(sid: str, name: str) -> dict[str, Any]:
    return {"hook": "chat.params", "input": {"sessionID": sid, "agent": name}}


def before(sid: str, tool: str, args: dict[str, Any], call: str = "call_1") -> dict[str, Any]:
    return {
        "hook": "tool.execute.before",
        "input": {"tool": tool, "sessionID": sid, "callID": call},
        "output": {"args": args},
    }


def checker(decide: Callable[[dict[str, Any]], dict[str, Any]]) -> Answer:
    def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "planMode/checkTool":
            return {"mode": params.get("permissionMode", "plan"), **decide(params)}
        return {"ok": True}

    return answer


def test_what_the_plugin_sends_and_what_a_refusal_reads(place: dict[str, Path]) -> None:
    def decide(params: dict[str, Any]) -> dict[str, Any]:
        if params["tool"] == "write":
            return {
                "behavior": "deny",
                "rule": "plan.planFile",
                "vouched": True,
                "message": "Denied by plan mode (only the plan file may be written): …",
            }
        return {"behavior": "allow", "rule": "plan.readOnly", "vouched": False}

    server = Server(place["dir"] / "agent.sock", checker(decide))
    record(place, os.getpid(), place["dir"] / "agent.sock")
    try:
        results = run(
            place,
            [
                session("ses_a"),
                agent("ses_a", "title"),  # OpenCode's own title request: no session's turn
                agent("ses_a", "plan"),
                before("ses_a", "read", {"filePath": "src/app.py"}),
                before("ses_a", "write", {"filePath": "src/app.py", "content": "x"}),
                session("ses_child", parent="ses_a", agent="explore"),
                agent("ses_child", "explore"),
                before("ses_child", "bash", {"command": "ls", "workdir": "src"}, "call_2"),
            ],
        )
    finally:
        server.close()
    assert results[3]["ok"] and results[4] == {
        **results[4],
        "ok": False,
        "error": "Denied by plan mode (only the plan file may be written): …",
    }
    assert results[7]["ok"], results[7]
    (read, write, bash) = [p for m, p in server.requests if m == "planMode/checkTool"]
    assert read["sessionId"] == "ses_a" and read["permissionMode"] == "plan"
    assert read["tool"] == "read" and read["input"] == {"filePath": "src/app.py"}
    assert read["opencode"] == {
        "directory": str(place["workspace"]),
        "worktree": str(place["workspace"]),
        "git": True,
        "dataDir": str(place["dir"] / "home" / ".local" / "share" / "opencode"),
        "sessionCreated": 1796142069727,
        "sessionSlug": "calm-island",
    }
    assert write["tool"] == "write"
    # The session's agent is followed at once, once (a subagent's is not the session's).
    modes = [p for m, p in server.requests if m == "planMode/setMode"]
    assert modes == [{"sessionId": "ses_a", "mode": "plan"}]
    # A subagent's call is its planning session's, as that subagent's.
    assert bash["sessionId"] == "ses_a" and bash["agentId"] == "ses_child"
    assert "permissionMode" not in bash and bash["cwd"] == str(place["workspace"] / "src")


def test_a_planning_bash_call_is_marked_for_planmode_s_shell_or_rewritten(
    place: dict[str, Path],
) -> None:
    sandbox = {
        "mechanism": "bwrap+seccomp",
        "prefix": ["bwrap", "--ro-bind", "/", "/", "--"],
        "command": "bwrap --ro-bind / / -- bash -c 'ls'",
        "argv": [],
        "required": False,
    }
    allow = checker(
        lambda _: {"behavior": "allow", "rule": "plan.bash", "vouched": True, "sandbox": sandbox}
    )
    server = Server(place["dir"] / "agent.sock", allow)
    record(place, os.getpid(), place["dir"] / "agent.sock")
    own = place["dir"] / "shell" / "bash"  # beside the plugin: planmode's shell
    try:
        ours = run(
            place,
            [
                {"hook": "config", "input": {"shell": str(own)}},
                session("ses_a"),
                agent("ses_a", "plan"),
                before("ses_a", "bash", {"command": "ls it's"}, "call_9"),
                {
                    "hook": "shell.env",
                    "input": {"cwd": "/", "sessionID": "ses_a", "callID": "call_9"},
                    "output": {"env": {}},
                },
                {
                    "hook": "shell.env",
                    "input": {"cwd": "/", "sessionID": "ses_a", "callID": "call_8"},
                    "output": {"env": {}},
                },
            ],
        )
        theirs = run(
            place,
            [
                {"hook": "config", "input": {"shell": "/bin/zsh"}},
                session("ses_a"),
                agent("ses_a", "plan"),
                before("ses_a", "bash", {"command": "ls"}, "call_9"),
            ],
        )
    finally:
        server.close()
    assert ours[3]["output"]["args"] == {"command": "ls it's"}  # the model's command, kept
    assert ours[4]["output"]["env"] == {"PLANMODE_SANDBOX": "'bwrap' '--ro-bind' '/' '/' '--'"}
    assert ours[5]["output"]["env"] == {"PLANMODE_SANDBOX": ""}  # a call it did not allow
    # OpenCode's shell is not planmode's: the command itself becomes the sandboxed line.
    assert theirs[3]["output"]["args"] == {"command": sandbox["command"]}


def test_no_server_leaves_opencode_s_rules_alone_and_a_dead_one_fails_closed_while_planning(
    place: dict[str, Path],
) -> None:
    steps = [
        session("ses_a"),
        agent("ses_a", "plan"),
        before("ses_a", "write", {"filePath": "src/app.py"}),
        agent("ses_a", "build"),
        before("ses_a", "write", {"filePath": "src/app.py"}),
    ]
    nothing = run(place, steps)
    assert nothing[2]["ok"] and nothing[4]["ok"]
    dead = subprocess.Popen(["true"])
    dead.wait()
    record(place, dead.pid, place["dir"] / "gone.sock")
    gone = run(place, steps)
    assert not gone[2]["ok"], gone[2]
    assert gone[2]["error"].startswith("Denied by plan mode (the plan-mode server is gone)")
    assert f"(pid {dead.pid})" in gone[2]["error"]
    assert gone[4]["ok"], gone[4]  # outside plan mode: no opinion


def test_a_failing_server_denies_while_planning(place: dict[str, Path]) -> None:
    def broken(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"error": {"code": -32603, "message": "boom"}}

    server = Server(place["dir"] / "agent.sock", broken)
    record(place, os.getpid(), place["dir"] / "agent.sock")
    try:
        results = run(
            place, [session("ses_a"), agent("ses_a", "plan"), before("ses_a", "read", {})]
        )
    finally:
        server.close()
    assert results[2] == {
        **results[2],
        "ok": False,
        "error": "Denied by plan mode (the plan-mode server failed): "
        "the plan-mode server refused: boom",
    }


def test_plan_exit_rejected_and_approved(place: dict[str, Path]) -> None:
    outcomes = iter(
        [
            {"outcome": "rejected", "toolResult": "User rejected the plan. Keep planning: …"},
            {
                "outcome": "approved",
                "toolResult": "User has approved your plan. …",
                "chosenMode": "acceptEdits",
                "restoredMode": "acceptEdits",
            },
        ]
    )

    def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return next(outcomes) if method == "planMode/exit" else {"ok": True}

    server = Server(place["dir"] / "agent.sock", answer)
    record(place, os.getpid(), place["dir"] / "agent.sock")
    asked = {
        "hook": "event",
        "input": {
            "event": {
                "type": "question.asked",
                "properties": {
                    "id": "que_1",
                    "sessionID": "ses_a",
                    "tool": {"messageID": "m", "callID": "call_e2"},
                },
            }
        },
    }
    after = {
        "hook": "tool.execute.after",
        "input": {"tool": "plan_exit", "sessionID": "ses_a", "callID": "call_e2"},
        "output": {"title": "Switching to build agent", "output": "User approved switching"},
    }
    try:
        results = run(
            place,
            [
                session("ses_a"),
                agent("ses_a", "plan"),
                before("ses_a", "plan_exit", {}, "call_e1"),
                before("ses_a", "plan_exit", {}, "call_e2"),
                asked,
                after,
                {"hook": "dispose", "input": {}},
            ],
        )
    finally:
        server.close()
    assert results[2] == {
        **results[2],
        "ok": False,
        "error": "User rejected the plan. Keep planning: …",
    }
    assert results[3]["ok"], results[3]
    assert results[4]["calls"] == [
        [
            "post",
            {
                "url": "/question/{requestID}/reply",
                "path": {"requestID": "que_1"},
                "body": {"answers": [["Yes"]]},
            },
        ]
    ]
    assert results[5]["output"]["output"] == "User has approved your plan. …"
    assert results[5]["calls"] == [
        [
            "publish",
            {"body": {"type": "tui.command.execute", "properties": {"command": "permission.mode"}}},
        ]
    ]
    exits = [p for m, p in server.requests if m == "planMode/exit"]
    assert [e["permissionMode"] for e in exits] == ["plan", "plan"]
    assert exits[0]["opencode"]["sessionSlug"] == "calm-island"
    assert ("planMode/endSession", {"sessionId": "ses_a"}) in server.requests


def test_an_ask_plan_mode_vouches_for_is_refused_with_how_the_user_allows_it(
    place: dict[str, Path],
) -> None:
    from planmode.agents import hookclient

    asked = "Not in the approved plan: notes.txt. The plan (p.md) never names this file. Allow?"

    def decide(params: dict[str, Any]) -> dict[str, Any]:
        if params["input"].get("filePath") == "notes.txt":
            return {"behavior": "ask", "rule": "drift", "vouched": True, "message": asked}
        return {"behavior": "ask", "rule": "settings.ask", "vouched": False, "message": "?"}

    server = Server(place["dir"] / "agent.sock", checker(decide))
    record(place, os.getpid(), place["dir"] / "agent.sock")
    try:
        results = run(
            place,
            [
                session("ses_a", agent="build"),
                agent("ses_a", "build"),
                before("ses_a", "write", {"filePath": "notes.txt", "content": "x"}),
                before("ses_a", "write", {"filePath": "src/app.py", "content": "x"}),
            ],
        )
    finally:
        server.close()
    # The same words as every Python hook's refusal (agents/hookclient.py), OpenCode named.
    told = hookclient.unasked(asked, "Codex").replace(
        "Codex cannot ask from its hook", "OpenCode cannot ask from its plugin"
    )
    assert results[2] == {**results[2], "ok": False, "error": told}
    assert told.startswith(
        "Not in the approved plan: notes.txt. The plan (p.md) never names this file. The drift"
    )
    assert "Allow this file for this plan" in told and "Allow?" not in told
    assert results[3]["ok"], results[3]  # the user's own rules: OpenCode's to ask
