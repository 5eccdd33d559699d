"""Bad input: generated params for every planMode/* method and command, and garbage on the wire.

The server must answer every request (a result, or a JSON-RPC error with a message), stay
alive, and an erroring call must change nothing. One long-lived server serves the whole
module (hypothesis runs many examples against it); every answer is awaited with a timeout.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from planmode.lsp.transport.discovery import Connection
from planmode.lsp.transport.framing import Reader, read_blocking
from tests.e2e.garbage import GARBAGE, LSP_GARBAGE, METHOD_NOT_FOUND, errors
from tests.e2e.stdio_server import StdioServer, frame

METHODS = [
    "planMode/getState",
    "planMode/setMode",
    "planMode/enter",
    "planMode/slashCommand",
    "planMode/checkTool",
    "planMode/applyEdit",
    "planMode/exit",
    "planMode/approve",
    "planMode/reject",
    "planMode/nextTurn",
    "planMode/resume",
    "planMode/fork",
    "planMode/listPlans",
    "planMode/agentDefinitions",
    "planMode/listRevisions",
    "planMode/revisionDiff",
]
COMMANDS = ["planMode.approve", "planMode.reject", "planMode.keepHunk", "planMode.undoHunk"]
FIELDS = [
    "sessionId",
    "mode",
    "agentId",
    "args",
    "tool",
    "input",
    "edit",
    "label",
    "plan",
    "allowedPrompts",
    "detach",
    "approvalId",
    "planSha256",
    "feedback",
    "transcript",
    "remote",
    "path",
    "hunkId",
    "from",
    "to",
    "file_path",
    "command",
    "subagent_type",
]
# JSON-RPC's own keys inside params must not confuse the message parser.
WIRE_KEYS = ["jsonrpc", "id", "method", "params", "result", "error"]
ROOT = "@ROOT@"  # replaced by the workspace root's path before sending
WORDS = [
    "",
    " ",
    "plan",
    "default",
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "Plan",
    "Bash",
    "Write",
    "Edit",
    "Read",
    "Task",
    "Explore",
    "ExitPlanMode",
    "EnterPlanMode",
    "open",
    "ls -la",
    "rm -rf /",
    "cat $(whoami)",
    "2.0",
    "../../etc/passwd",
    "/etc/passwd",
    "file:///etc/passwd",
    "file://",
    f"{ROOT}/src/app.py",
    f"{ROOT}/.claude/plans/fuzz.md",
    f"file://{ROOT}/src/app.py",
    f"file://{ROOT}/.claude/plans/fuzz.md",
    f"file://{ROOT}/new.txt",
    f"file://{ROOT}/src",
    f"{ROOT}/transcript.jsonl",
    "fuzz",
    "fuzz-2",
    "0" * 64,
    "a" * 129,
    "x\x00y",
    "é😀\u2028",
    "\ud800",
    "ü" * 5000,
    "y" * 1_000_000,
]
SESSIONS = [None, None, "fuzz", "fuzz-2", "", "../up", "a" * 129, 7, ["fuzz"], {"id": "x"}]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.sampled_from(WORDS)
)
keys = st.sampled_from(FIELDS + WIRE_KEYS) | st.text(max_size=10)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=15,
)
positions = st.fixed_dictionaries(
    {"line": st.integers(-2, 5) | json_values, "character": st.integers(-2, 50)}
)
ranges = st.fixed_dictionaries({"start": positions, "end": positions})
text_edits = st.fixed_dictionaries({"range": ranges, "newText": st.text(max_size=50) | scalars})
uris = st.sampled_from([w for w in WORDS if w.startswith("file:")]) | st.text(max_size=20)
file_operations = st.one_of(
    st.fixed_dictionaries(
        {"textDocument": st.fixed_dictionaries({"uri": uris, "version": st.none()})},
        optional={"edits": st.lists(text_edits, max_size=3)},
    ),
    st.fixed_dictionaries(
        {"kind": st.sampled_from(["create", "delete", "bogus"]), "uri": uris},
        optional={"options": st.dictionaries(st.sampled_from(["overwrite", "recursive"]), scalars)},
    ),
    st.fixed_dictionaries({"kind": st.just("rename"), "oldUri": uris, "newUri": uris}),
    json_values,
)
workspace_edits = st.one_of(
    st.fixed_dictionaries({"changes": st.dictionaries(uris, st.lists(text_edits, max_size=3))}),
    st.fixed_dictionaries({"documentChanges": st.lists(file_operations, max_size=3)}),
    json_values,
)
field_values = {
    "sessionId": st.sampled_from(SESSIONS),
    "edit": workspace_edits,
    "input": st.dictionaries(
        st.sampled_from(["file_path", "command", "subagent_type", "path"]) | keys,
        json_values,
        max_size=3,
    )
    | json_values,
    "allowedPrompts": st.lists(
        st.fixed_dictionaries({"tool": st.sampled_from(["Bash", "Read"]), "prompt": scalars}),
        max_size=3,
    )
    | json_values,
}


@st.composite
def params_objects(draw: st.DrawFn) -> dict[str, Any]:
    """An object with a few known fields (valid-looking or junk) and random extra keys."""
    chosen = draw(st.lists(st.sampled_from(FIELDS), max_size=5, unique=True))
    result: dict[str, Any] = {}
    for name in chosen:
        strategy = field_values.get(name, json_values)
        result[name] = draw(strategy | json_values if name in field_values else strategy)
    extras = draw(st.dictionaries(keys, json_values, max_size=2))
    for key, value in extras.items():
        result.setdefault(key, value)
    return result


any_params = st.one_of(
    params_objects(), params_objects(), params_objects(), json_values, st.sampled_from([[], ""])
)


def rooted(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace(ROOT, str(root))
    if isinstance(value, list):
        return [rooted(v, root) for v in value]
    if isinstance(value, dict):
        return {rooted(k, root): rooted(v, root) for k, v in value.items()}
    return value


class Fuzzer:
    """Sends one call, resolves what it leaves pending, checks the server's answer."""

    def __init__(self, server: StdioServer, root: Path) -> None:
        self.server = server
        self.root = root
        self.calls = 0
        self.errors = 0

    def snapshot(self, session: Any) -> tuple[Any, ...]:
        snap: list[Any] = [self.server.state(), self.plans()]
        if isinstance(session, str):
            answer = self.server.answer(
                self.server.start("planMode/getState", {"sessionId": session})
            )
            snap.append(answer.get("result"))
        return tuple(snap)

    def plans(self) -> list[tuple[str, int]]:
        listed = self.server.request("planMode/listPlans", {})["plans"]
        return sorted((p["path"], p["sizeBytes"]) for p in listed)

    def call(self, method: str, params: Any) -> dict[str, Any]:
        params = rooted(params, self.root)
        session = params.get("sessionId") if isinstance(params, dict) else None
        before = self.snapshot(session)
        msg_id = self.server.start(method, params)
        answer = self.settle(msg_id, session)
        self.calls += 1
        assert self.server.alive(), f"the server died on {method} {params!r:.300}"
        assert set(answer) & {"result", "error"}, answer
        error = answer.get("error")
        if error is not None:
            self.errors += 1
            assert isinstance(error.get("code"), int), error
            # Bad input is the caller's error, each with its own code: never an internal one.
            assert error["code"] != -32603, f"{method} {params!r:.300}: {error}"
            assert isinstance(error.get("message"), str) and error["message"].strip(), error
            after = self.snapshot(session)
            assert after == before, f"{method} failed ({error['message']:.200}) yet changed state"
        return answer

    def settle(self, msg_id: int, session: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The answer; an exit left waiting for approval is rejected so that it returns.

        Pending approvals are looked for now and again after each notification or request from
        the server (an exit that starts waiting announces it), until the answer arrives."""
        deadline = time.monotonic() + timeout
        while True:
            heard = self.server.heard
            answer = self.server.poll_answer(msg_id)
            if answer is not None:
                return answer
            assert time.monotonic() < deadline, f"no answer to request {msg_id} in {timeout}s"
            self.reject_pending(session)
            self.server.wait_heard(heard, deadline, answer_to=msg_id)

    def reject_pending(self, session: Any) -> None:
        for sid in {session if isinstance(session, str) else None, None}:
            params = {} if sid is None else {"sessionId": sid}
            state = self.server.answer(self.server.start("planMode/getState", params)).get("result")
            pending = (state or {}).get("pendingApproval")
            if pending:
                self.server.request(
                    "planMode/reject",
                    {"approvalId": pending["approvalId"], "sessionId": pending["sessionId"]},
                )


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("bad-input")
    root = (base / "workspace").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "transcript.jsonl").write_text(
        json.dumps({"type": "user", "slug": "fuzz", "planContent": "# Resumed plan\n"}) + "\n"
    )
    (base / "home").mkdir()
    return root


@pytest.fixture(scope="module")
def server(fuzz_root: Path) -> Iterator[StdioServer]:
    log = fuzz_root.parent / "server.log"
    with StdioServer(fuzz_root, fuzz_root.parent / "home", session_id="main", log=log) as running:
        yield running


@pytest.fixture(scope="module")
def fuzzer(server: StdioServer, fuzz_root: Path) -> Fuzzer:
    return Fuzzer(server, fuzz_root)


FUZZ = settings(
    deadline=None,
    # No shrinking: every failing example waits for a timeout; the failure itself is shown.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)


@settings(FUZZ, max_examples=300)
@given(method=st.sampled_from(METHODS), params=any_params)
def test_every_method_answers_generated_params(fuzzer: Fuzzer, method: str, params: Any) -> None:
    fuzzer.call(method, params)


@settings(FUZZ, max_examples=120)
@given(
    command=st.sampled_from(COMMANDS),
    arguments=st.lists(any_params, max_size=2) | json_values,
)
def test_every_command_answers_generated_arguments(
    fuzzer: Fuzzer, command: str, arguments: Any
) -> None:
    fuzzer.call("workspace/executeCommand", {"command": command, "arguments": arguments})


def test_the_fuzzed_server_still_works(fuzzer: Fuzzer, server: StdioServer) -> None:
    """After all of the above: a full enter / exit / approve round trip still works."""
    assert fuzzer.calls >= 100
    assert fuzzer.errors > 0  # the generators do reach the error paths
    sid = "after-fuzz"
    server.request("planMode/setMode", {"sessionId": sid, "mode": "default"})
    state = server.request("planMode/enter", {"sessionId": sid})["state"]
    assert state["mode"] == "plan"
    waiting = server.start("planMode/exit", {"sessionId": sid, "plan": "# Plan\n"})
    approval = server.until(
        lambda: server.state(sid)["pendingApproval"], 5, "the exit never became pending"
    )
    assert approval is not None
    server.request("planMode/approve", {"approvalId": approval["approvalId"]})
    assert server.answer(waiting)["result"]["outcome"] == "approved"
    assert server.state(sid)["mode"] == "default"


# -- garbage on the wire (tests/e2e/garbage.py) --------------------------------------------


def get_state(msg_id: int) -> bytes:
    return frame(
        {
            "jsonrpc": "2.0",
            "id": msg_id,
            "method": "planMode/getState",
            "params": {"sessionId": "main"},
        }
    )


def assert_one_line(log: str, expected: tuple[int, Any] | None) -> None:
    """What one bad message logged: no traceback; the line saying why it was refused (and
    perhaps the framer's line about bytes it skipped)."""
    assert "Traceback" not in log, log
    assert log.count("\n") <= 2, log
    if expected is not None:
        assert str(expected[0]) in log or "unknown method" in log, log


@pytest.fixture(scope="module")
def server_log(fuzz_root: Path) -> Path:
    return fuzz_root.parent / "server.log"


def test_garbage_on_stdio_gets_its_own_error(server: StdioServer, server_log: Path) -> None:
    """Before: a method that was no string got -32603; a wrong jsonrpc, a body that was no
    UTF-8 and 200k-deep nesting got no answer (the nesting logged a RecursionError); an object
    id ran the handler and its answer was dropped; each of them logged a traceback."""
    before = server.state("main")
    for junk, expected in GARBAGE + LSP_GARBAGE:
        heard, logged = len(server.responses), server_log.stat().st_size
        server.send_raw(junk)
        # A good request after it is answered after whatever the junk got.
        assert server.state("main") == before
        assert errors(server.responses[heard:]) == ([] if expected is None else [expected]), junk
        assert server.alive()
        assert_one_line(server_log.read_text(errors="replace")[logged:], expected)
    # A Content-Length too small: the rest of the body is read as headers.
    body = json.dumps({"jsonrpc": "2.0", "id": 900, "method": "planMode/getState"}).encode()
    server.send_raw(b"Content-Length: 10\r\n\r\n" + body)
    assert server.state("main") == before
    # Too large: the next messages are swallowed into this one's body; later ones are answered.
    server.send_raw(b"Content-Length: 200\r\n\r\n" + body)
    ids = [server.start("planMode/getState", {"sessionId": "main"}) for _ in range(5)]
    assert server.answer(ids[-1])["result"] == before
    assert server.alive()
    assert server.state("main") == before
    # Nested as deep as any message may be (64 levels), a request is answered as usual.
    deep: Any = "x"
    for _ in range(60):
        deep = [deep]
    assert server.request("planMode/getState", {"sessionId": "main", "extra": deep}) == before


def exchange(socket_path: str, junk: bytes) -> list[dict[str, Any]]:
    """Send ``junk`` and a good request on one connection to the agent endpoint: the
    responses that come before the good request's answer, and that answer."""
    reader = Reader()
    responses = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
        raw.settimeout(10)
        raw.connect(socket_path)
        raw.sendall(junk + get_state(999))
        while True:
            body = read_blocking(lambda: raw.recv(65536) or b"", reader)
            message = json.loads(body)
            if "method" in message:
                continue  # a notification
            responses.append(message)
            if message.get("id") == 999:
                return responses


def test_garbage_on_the_agent_endpoint_gets_its_own_error(
    server: StdioServer, server_log: Path
) -> None:
    socket_path = server.wait_endpoint()["socket"]
    before = server.state("main")
    lsp = [
        (junk, (METHOD_NOT_FOUND, expected[1]) if expected else None)
        for junk, expected in LSP_GARBAGE
    ]
    for junk, expected in GARBAGE + lsp:
        logged = server_log.stat().st_size
        *refused, answer = exchange(socket_path, junk)
        assert answer["result"] == before
        assert errors(refused) == ([] if expected is None else [expected]), junk
        assert_one_line(server_log.read_text(errors="replace")[logged:], expected)
    # One connection, garbage then valid requests on it: the connection keeps working.
    with Connection(socket_path, timeout=10) as conn:
        for junk, _ in GARBAGE[:8]:
            conn._sock.sendall(junk)
        conn._sock.sendall(b"Content-Length: 300\r\n\r\n" + b"{" * 10)
        conn._sock.sendall(b"".join(get_state(i) for i in range(70, 78)))
        while (message := conn._receive()).get("id") != 77:
            pass
        assert message["result"] == before
    # Half a message, then the agent hangs up: nothing is left waiting or changed.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
        raw.connect(socket_path)
        raw.sendall(b'Content-Length: 1000\r\n\r\n{"jsonrpc"')
    assert server.state("main") == before
    assert server.alive()


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("planMode/listRevisions", {"path": "x\x00y.md"}),
        ("planMode/revisionDiff", {"path": "x\x00y.md", "from": 1, "to": 2}),
        ("planMode/listHunks", {"path": "x\x00y.md"}),
        ("planMode/keepHunk", {"path": "x\x00y.md", "hunkId": "h"}),
        ("planMode/undoHunk", {"path": "x\x00y.md", "hunkId": "h"}),
    ],
)
def test_a_plan_path_that_is_no_path_is_invalid_params(
    fuzzer: Fuzzer, method: str, params: dict[str, Any]
) -> None:
    # Before: -32603 with pathlib's "embedded null byte" and a traceback.
    error = fuzzer.call(method, params)["error"]
    assert error["code"] == -32602
    assert error["message"].startswith("field 'path': 'x\\x00y.md' is not a plan file in ")
