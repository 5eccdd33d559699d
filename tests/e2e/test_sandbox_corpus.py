"""Escape attempts executed for real: the agent's path (checkTool on the running server, then
the sandboxed command it answers with), and each sandbox mechanism alone, bypassing the
classifier. After every command no byte of the workspace (plans and server state included),
of $HOME or of a directory outside may have changed, the server must be alive and still
planning with its pending plan; at the end nothing the corpus started may be running,
listening, or about to write. The corpus is tests/e2e/sandbox_corpus.py (see docs/sandbox.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from planmode.lsp.transport.discovery import Connection, connect
from planmode.sandbox import BWRAP, LANDLOCK, landlock
from planmode.sandbox.probe import Availability, detect
from tests.e2e.sandbox_corpus import (
    CORPUS,
    NETLINK_WRITE_ADDRESS,
    OVER_DENIED,
    READ_ONLY,
    SOCKETS,
    fill,
)
from tests.e2e.stdio_server import StdioServer

PLAN = "# The plan\n\n1. Read everything.\n"
COMMAND_TIMEOUT = 20.0


@dataclass
class World:
    root: Path
    ws: Path
    home: Path
    out: Path
    server: StdioServer
    values: dict[str, Any]
    env: dict[str, str]
    pending: str
    netlink: socket.socket  # NETLINK_USERSOCK, {nlport}: nothing may reach it

    def fill(self, template: str) -> str:
        return fill(template, **self.values)

    def assert_not_escaped(self, done: subprocess.CompletedProcess[bytes], command: str) -> None:
        """The escapes that leave no trace say so (tests/e2e/sandbox_corpus.py)."""
        assert f"escaped-{self.values['m']}".encode() not in done.stdout, command


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True)


def _script(path: Path, body: str) -> None:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def _build(root: Path) -> tuple[Path, Path, Path]:
    ws, home, out = root / "ws", root / "home", root / "outside"
    for directory in (ws / "src", ws / "bin", ws / "emptydir", home / ".config", out):
        directory.mkdir(parents=True)
    (ws / "src" / "a.txt").write_text("alpha\nbeta\nalpha\n")
    (ws / "src" / "b.txt").write_text("gamma\n")
    (ws / "src" / "hex.txt").write_text(
        "00000000: 7077 6e65 640a                           pwned.\n"
    )
    (home / ".bashrc").write_text("# the user's\n")
    (home / ".gitconfig").write_text("[user]\n\tname = Test\n\temail = t@example.com\n")
    (out / "f").write_text("outside\n")
    # Workspace programs that write when run: a shadowing `ls`, a hook, a sourced script.
    _script(ws / "bin" / "ls", f"touch {ws}/pwned-ls")
    _script(ws / "bin" / "pw", f"touch {ws}/pwned-hook; cat")
    (ws / "evil.sh").write_text(f"touch {ws}/pwned-sourced\n")
    evil_cfg = f"[core]\n\tpager = touch {ws}/pwned-pager\n\tfsmonitor = {ws}/bin/pw\n"
    (ws / ".gitconfig").write_text(evil_cfg)
    (ws / "evilcfg").write_text(evil_cfg)
    _git(ws, "init", "-q", "-b", "main")
    _git(ws, "add", "src")
    _git(ws, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "initial")
    _git(ws, "tag", "v1")
    _git(ws, "init", "-q", "--bare", "evil.git")
    (ws / "evil.git" / "config").write_text(evil_cfg + "[core]\n\tbare = true\n")
    # The workspace's own repository turns hostile after the commit.
    with open(ws / ".git" / "config", "a") as config:
        config.write(f'[core]\n\tfsmonitor = {ws}/bin/pw\n[diff "tc"]\n\ttextconv = {ws}/bin/pw\n')
    (ws / ".gitattributes").write_text("*.txt diff=tc\n")
    (ws / "link_out").symlink_to(out)
    (ws / "link_home").symlink_to(home)
    plans = ws / ".claude" / "plans"
    plans.mkdir(parents=True)
    (plans / "the-plan.md").write_text("# a plan\n")
    return ws, home, out


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    ws, home, out = _build(tmp_path)
    server = StdioServer(ws, home, session_id="main")
    netlink = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_USERSOCK)
    try:
        netlink.bind((0, 0))
        netlink.setblocking(False)
        server.request("planMode/enter", {"sessionId": "main"})
        pending = server.request(
            "planMode/exit", {"sessionId": "main", "plan": PLAN, "detach": True}
        )["approvalId"]
        info = server.wait_endpoint()
        marker = f"{os.getpid()}{random.randrange(10**6, 10**7)}"
        values = {
            "py": sys.executable,
            "ws": ws,
            "out": out,
            "home": home,
            "sock": info["socket"],
            "spid": server.pid,
            "port": _free_port(),
            "port2": _free_port(),
            "nlport": netlink.getsockname()[0],
            "m": marker,
        }
        env = {**os.environ, "HOME": str(home), "PLANMODE_SESSION": "main"}
        yield World(tmp_path, ws, home, out, server, values, env, pending, netlink)
    finally:
        netlink.close()
        server.close()


def snapshot(*roots: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under the roots: type, mode, size, mtime and a digest of the bytes."""
    seen: dict[str, tuple[Any, ...]] = {}
    for root in roots:
        for top, dirs, files in os.walk(root):
            for name in dirs + files:
                path = os.path.join(top, name)
                st = os.lstat(path)
                if os.path.islink(path):
                    seen[path] = ("link", os.readlink(path))
                elif os.path.isdir(path):
                    seen[path] = ("dir", st.st_mode, st.st_mtime_ns)
                elif not os.path.isfile(path):
                    seen[path] = ("special", st.st_mode)
                else:
                    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                    seen[path] = ("file", st.st_mode, st.st_size, st.st_mtime_ns, digest)
    return seen


def changes(before: dict[str, tuple[Any, ...]], after: dict[str, tuple[Any, ...]]) -> list[str]:
    return sorted(
        f"{'+' if p not in before else '-' if p not in after else '~'} {p}"
        for p in before.keys() | after.keys()
        if before.get(p) != after.get(p)
    )


def run(argv: list[str], world: World) -> subprocess.CompletedProcess[bytes]:
    """Run as an agent's Bash tool would: in the workspace, no stdin, its own session."""
    if any(b"\0" in arg if isinstance(arg, bytes) else "\0" in arg for arg in argv):
        # No process can be given a NUL byte in an argument: nothing runs.
        return subprocess.CompletedProcess(argv, -1, b"", b"")
    proc = subprocess.Popen(
        argv,
        cwd=world.ws,
        env=world.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=COMMAND_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.terminate()  # the sandbox's own cleanup must still leave nothing behind
        out, err = proc.communicate(timeout=10)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def argv_bytes(argv: list[str]) -> list[bytes]:
    # A lone surrogate cannot be UTF-8: pass it the way a careless agent would.
    return [arg.encode("utf-8", "surrogatepass") for arg in argv]


def assert_server_untouched(world: World, command: str) -> None:
    assert world.server.proc.poll() is None, f"the server died after {command!r}"
    stat = Path(f"/proc/{world.server.pid}/stat").read_text()
    assert stat.rsplit(")", 1)[1].split()[0] not in "Tt", f"server stopped by {command!r}"


def assert_nothing_left(world: World, started: float) -> None:
    # Late writers (sleep 1; touch) had their chance.
    time.sleep(max(0.0, started + 1.5 - time.monotonic()))
    marker = str(world.values["m"])
    left = subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True).stdout
    assert left == "", f"left running: {left}"
    for port in (world.values["port"], world.values["port2"]):
        with socket.socket() as probe, pytest.raises(OSError):
            probe.settimeout(1)
            probe.connect(("127.0.0.1", port))
        assert not _bound(port), f"something is bound to port {port}"
    for path in ("/tmp", "/var/tmp", "/dev/shm"):
        assert not Path(f"{path}/planmode-corpus-{marker}").exists()
    try:
        message = world.netlink.recv(4096)
    except BlockingIOError:
        message = b""
    assert not message, f"a netlink message reached a process outside: {message!r}"
    _assert_no_address_added()
    state = world.server.state("main")
    assert state["mode"] == "plan"
    assert (state["pendingApproval"] or {}).get("approvalId") == world.pending


def _assert_no_address_added() -> None:
    if shutil.which("ip") is None:
        return  # then no command could add it either
    shown = subprocess.run(["ip", "-o", "addr", "show", "dev", "lo"], capture_output=True)
    if NETLINK_WRITE_ADDRESS.encode() in shown.stdout:
        subprocess.run(["ip", "addr", "del", f"{NETLINK_WRITE_ADDRESS}/32", "dev", "lo"])
        pytest.fail(f"a command added {NETLINK_WRITE_ADDRESS} to the machine's loopback")


def _bound(port: int) -> bool:
    for table in ("tcp", "tcp6", "udp", "udp6"):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
                local = line.split()[1]
                if int(local.rsplit(":", 1)[1], 16) == port:
                    return True
    return False


def _mechanism(name: str) -> Availability:
    if name == LANDLOCK and landlock.abi_version() < landlock.MIN_ABI:
        pytest.skip(f"Landlock ABI {landlock.abi_version()} < {landlock.MIN_ABI} here")
    if name == BWRAP and shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed")
    found = detect({"PLANMODE_SANDBOX": name.split("+")[0]})
    assert found.mechanism == name, found.detail
    return found


def test_the_agents_path_changes_nothing(world: World) -> None:
    """checkTool decides; what it allows runs as its answer says (sandbox.argv)."""
    state = world.server.state("main")
    if state["sandbox"]["mechanism"] is None:
        pytest.skip(f"no sandbox here: {state['sandbox']['detail']}")
    roots = (world.ws, world.home, world.out)
    before = snapshot(*roots)
    started = time.monotonic()
    allowed: list[str] = []
    with connect(world.ws) as conn:
        for kind, template in CORPUS:
            command = world.fill(template)
            decision = _check(conn, command)
            if decision["behavior"] == "allow":
                allowed.append(command)
                box = decision.get("sandbox")
                assert box and box["argv"], f"{command!r} allowed without a sandbox"
                done = run(argv_bytes(box["argv"]), world)  # type: ignore[arg-type]
                world.assert_not_escaped(done, command)
            after = snapshot(*roots)
            assert not changes(before, after), (kind, command, changes(before, after))
            assert_server_untouched(world, command)
    assert_nothing_left(world, started)
    assert not changes(before, snapshot(*roots))
    sys.stderr.write(f"{len(allowed)} of {len(CORPUS)} allowed by the classifier\n")


def _check(conn: Connection, command: str) -> dict[str, Any]:
    params = {"sessionId": "main", "tool": "Bash", "input": {"command": command}}
    return conn.request("planMode/checkTool", params)  # type: ignore[no-any-return]


def _share(offset: int) -> list[tuple[str, str]]:
    """A third of the corpus, every class represented (all of it with PLANMODE_CORPUS_FULL=1:
    under a loaded machine the whole corpus takes about a minute per mechanism)."""
    if os.environ.get("PLANMODE_CORPUS_FULL") == "1":
        return CORPUS
    return [entry for index, entry in enumerate(CORPUS) if index % 3 == offset]


@pytest.mark.parametrize(("mechanism", "offset"), [(LANDLOCK, 0), (BWRAP, 1)])
def test_each_sandbox_holds_without_the_classifier(
    world: World, mechanism: str, offset: int
) -> None:
    sandbox = _mechanism(mechanism)
    roots = (world.ws, world.home, world.out)
    before = snapshot(*roots)
    started = time.monotonic()
    hide = [str(Path(world.values["sock"]).parent)]
    for kind, template in _share(offset):
        command = world.fill(template)
        wrapped = sandbox.wrap(command, hide)
        assert wrapped is not None
        done = run(argv_bytes(wrapped.argv), world)  # type: ignore[arg-type]
        world.assert_not_escaped(done, command)
        after = snapshot(*roots)
        assert not changes(before, after), (kind, command, changes(before, after))
        assert_server_untouched(world, command)
    assert_nothing_left(world, started)
    assert not changes(before, snapshot(*roots))


@pytest.mark.parametrize("mechanism", [LANDLOCK, BWRAP])
def test_no_socket_off_the_allow_list_opens(world: World, mechanism: str) -> None:
    """Every socket escape of the corpus, in each mechanism: refused, nothing reached."""
    sandbox = _mechanism(mechanism)
    started = time.monotonic()
    for template in SOCKETS:
        command = world.fill(template)
        wrapped = sandbox.wrap(command)
        assert wrapped is not None
        done = run(wrapped.argv, world)
        world.assert_not_escaped(done, command)
        assert done.returncode != 0, command
    assert_nothing_left(world, started)


@pytest.mark.parametrize("mechanism", [LANDLOCK, BWRAP])
def test_read_only_commands_still_work(world: World, mechanism: str) -> None:
    sandbox = _mechanism(mechanism)
    before = snapshot(world.ws, world.home, world.out)
    failures = []
    for template, expected in READ_ONLY:
        command = world.fill(template)
        wrapped = sandbox.wrap(command)
        assert wrapped is not None
        done = run(wrapped.argv, world)
        text = done.stdout.decode(errors="replace")
        if done.returncode != 0 or expected not in text:
            failures.append((command, done.returncode, text[-300:], done.stderr[-300:]))
    assert not failures, json.dumps(failures, indent=1, default=str)
    assert not changes(before, snapshot(world.ws, world.home, world.out))


def test_the_over_denied_commands_are_allowed_and_work_sandboxed(world: World) -> None:
    """Issue 12's over-denials, the way an agent runs them: allowed, then run as answered."""
    before = snapshot(world.ws, world.home, world.out)
    failures = []
    with connect(world.ws) as conn:
        for command, expected in OVER_DENIED:
            decision = _check(conn, command)
            if decision["behavior"] != "allow":
                failures.append((command, decision))
                continue
            if "sandbox" not in decision:  # classifier only here
                continue
            done = run(decision["sandbox"]["argv"], world)
            text = done.stdout.decode(errors="replace")
            if expected not in text or (expected and done.returncode != 0):
                failures.append((command, done.returncode, text[-300:], done.stderr[-300:]))
    assert not failures, json.dumps(failures, indent=1, default=str)
    assert not changes(before, snapshot(world.ws, world.home, world.out))


def test_sandboxed_command_keeps_what_the_agent_sees(world: World) -> None:
    """Through checkTool: output, errors, exit status and working directory as unsandboxed."""
    with connect(world.ws) as conn:
        decision = _check(conn, "ls src")
    if "sandbox" not in decision:
        pytest.skip("no sandbox here")
    bare = run(["bash", "-c", "ls src"], world)
    boxed = run(decision["sandbox"]["argv"], world)
    assert (boxed.returncode, boxed.stdout, boxed.stderr) == (
        bare.returncode,
        bare.stdout,
        bare.stderr,
    )
    through_shell = run(["bash", "-c", decision["sandbox"]["command"]], world)
    assert through_shell.stdout == bare.stdout


@pytest.mark.parametrize("mechanism", [LANDLOCK, BWRAP])
def test_signal_forwarding_stops_the_command(world: World, mechanism: str) -> None:
    """An agent's timeout (SIGTERM to what it started) stops the sandboxed command."""
    sandbox = _mechanism(mechanism)
    marker = world.values["m"]
    wrapped = sandbox.wrap(f"sleep 3600.{marker}; echo never")
    assert wrapped is not None
    proc = subprocess.Popen(wrapped.argv, cwd=world.ws, stdout=subprocess.PIPE)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=10)
    # The launcher reports it as a shell would; bwrap dies of it (a shell then says 143 too).
    assert proc.returncode in (128 + signal.SIGTERM, -signal.SIGTERM) and out == b""
    time.sleep(0.3)
    assert subprocess.run(["pgrep", "-f", str(marker)], capture_output=True).stdout == b""


def _hook(world: World, command: str, version: str = "2.1.197") -> dict[str, Any] | None:
    """What `planmode hook` answers Claude Code (``version``, as its transcript records it)
    for a Bash call while planning."""
    transcript = world.root / f"transcript-{version}.jsonl"
    transcript.write_text(json.dumps({"type": "user", "version": version}) + "\n")
    event = {
        "session_id": "0f6c3a4e-5b1d-4c7e-9a2f-3d8e1b6c7a90",
        "transcript_path": str(transcript),
        "cwd": str(world.ws),
        "permission_mode": "plan",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Look around"},
    }
    done = subprocess.run(
        [sys.executable, "-m", "planmode", "hook"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        cwd=world.ws,
        env=world.env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"] if done.stdout.strip() else None


def as_claude_code_runs(world: World, command: str) -> subprocess.CompletedProcess[bytes]:
    """Claude Code's Bash tool: the command evaluated by bash, stdin from /dev/null, then the
    working directory recorded for the next call (docs/claude-code.md)."""
    cwd_file = world.root / "claude-cwd"
    wrapper = f"eval {shlex.quote(command)} < /dev/null && pwd -P >| {shlex.quote(str(cwd_file))}"
    return run(["bash", "-c", wrapper], world)


def test_claude_code_runs_the_rewritten_command_with_the_same_result(world: World) -> None:
    """The hook's updatedInput.command, run the way Claude Code runs commands: the same
    output, errors and exit status as the original — and inside the sandbox."""
    probes = [
        "ls src",
        "ls src nosuch",
        "grep -c alpha src/a.txt",
        "wc -l < src/a.txt",
        "git log --oneline -1 | cut -c9-",
        "cat src/a.txt | sort | uniq -c",
    ]
    for command in probes:
        answer = _hook(world, command)
        if answer is None or answer.get("permissionDecision") != "allow":
            pytest.fail(f"the hook did not allow {command!r}: {answer}")
        updated = (answer.get("updatedInput") or {}).get("command")
        if world.server.state("main")["sandbox"]["mechanism"] is None:
            assert updated is None
            continue
        assert isinstance(updated, str) and updated != command, answer
        assert answer["updatedInput"]["description"] == "Look around"
        bare = as_claude_code_runs(world, command)
        boxed = as_claude_code_runs(world, updated)
        assert (boxed.returncode, boxed.stdout, boxed.stderr) == (
            bare.returncode,
            bare.stdout,
            bare.stderr,
        ), command
    # And it is the sandbox that runs: a write through the same rewriting fails.
    answer = _hook(world, "ls src")
    assert answer is not None
    sandboxed = answer["updatedInput"]["command"].replace("ls src", "touch src/pwned")
    as_claude_code_runs(world, sandboxed)
    assert not (world.ws / "src" / "pwned").exists()


def _planmode(world: World, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "planmode", *args],
        capture_output=True,
        text=True,
        cwd=world.ws,
        env=world.env,
        timeout=60,
    )


def test_the_cli_names_the_sandbox_and_runs_through_it(world: World) -> None:
    mechanism = world.server.state("main")["sandbox"]["mechanism"]
    state = _planmode(world, "state")
    assert state.returncode == 0, state.stderr
    assert f"planning Bash: {mechanism or 'classifier only'} (" in state.stdout
    check = _planmode(world, "check", "Bash", json.dumps({"command": "ls src"}))
    assert check.returncode == 0, check.stderr
    if mechanism is None:
        return
    first, second = check.stdout.splitlines()
    assert first == "allow"
    prefix = f"run it sandboxed ({mechanism}): "
    assert second.startswith(prefix)
    listed = run(["bash", "-c", second.removeprefix(prefix)], world)
    assert listed.stdout.split() == [b"a.txt", b"b.txt", b"hex.txt"]


def test_without_a_sandbox_the_cli_says_classifier_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANMODE_SANDBOX", "off")
    ws, home, _out = _build(tmp_path)
    server = StdioServer(ws, home, session_id="main", init_options={"requireSandbox": True})
    try:
        server.request("planMode/enter", {"sessionId": "main"})
        env = {**os.environ, "HOME": str(home), "PLANMODE_SESSION": "main"}
        state = subprocess.run(
            [sys.executable, "-m", "planmode", "state"],
            capture_output=True,
            text=True,
            cwd=ws,
            env=env,
            timeout=60,
        )
        assert (
            "planning Bash: classifier only (turned off (PLANMODE_SANDBOX=off)) — Bash denied "
            "while planning (requireSandbox)"
        ) in state.stdout, state.stdout
    finally:
        server.close()
