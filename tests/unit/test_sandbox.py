"""The OS sandbox: detection, the seccomp filter, and each mechanism running real commands.

Each mechanism is tested where this machine has it (Landlock ABI >= 6; bwrap installed, as
`make editors` does); where it exists but does not work, the test fails rather than skips.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planmode.core.permissions import Decision
from planmode.core.planning import SandboxState
from planmode.lsp.results import CheckToolResult
from planmode.sandbox import BWRAP, CLASSIFIER_ONLY, LANDLOCK, landlock, seccomp
from planmode.sandbox.probe import Availability, detect

_detected: dict[str, Availability] = {}


def _mechanism(name: str) -> Availability:
    if name in _detected:
        return _detected[name]
    if name == LANDLOCK and landlock.abi_version() < landlock.MIN_ABI:
        pytest.skip(f"Landlock ABI {landlock.abi_version()} < {landlock.MIN_ABI} here")
    if name == BWRAP and shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed")
    found = detect({"PLANMODE_SANDBOX": name.split("+")[0]})
    assert found.mechanism == name, found.detail
    _detected[name] = found
    return found


@pytest.fixture(params=[LANDLOCK, BWRAP])
def sandbox(request: pytest.FixtureRequest) -> Availability:
    return _mechanism(request.param)


def run_in(
    sandbox: Availability,
    command: str,
    cwd: Path,
    stdin: str = "",
    env: dict[str, str] | None = None,
    timeout: float = 30,
) -> subprocess.CompletedProcess[str]:
    wrapped = sandbox.wrap(command)
    assert wrapped is not None
    return subprocess.run(
        wrapped.argv,
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )


def test_keeps_cwd_env_streams_and_status(sandbox: Availability, tmp_path: Path) -> None:
    env = {**os.environ, "PLANMODE_PROBE": "it's $here"}
    done = run_in(
        sandbox,
        'pwd; printf "%s\\n" "$PLANMODE_PROBE"; tr a-z A-Z; echo oops >&2; exit 7',
        tmp_path,
        stdin="piped in\n",
        env=env,
    )
    assert done.returncode == 7
    assert done.stdout.splitlines() == [str(tmp_path), "it's $here", "PIPED IN"]
    assert done.stderr == "oops\n"


def test_shell_string_is_the_same_command(sandbox: Availability, tmp_path: Path) -> None:
    original = "printf '%s|' \"$0\" a\\ b 'c\nd' $'\\t'; echo; exit 3"
    wrapped = sandbox.wrap(original)
    assert wrapped is not None
    through_shell = subprocess.run(
        ["bash", "-c", wrapped.command], capture_output=True, text=True, cwd=tmp_path
    )
    bare = subprocess.run(["bash", "-c", original], capture_output=True, text=True, cwd=tmp_path)
    assert (through_shell.returncode, through_shell.stdout) == (bare.returncode, bare.stdout)
    assert through_shell.returncode == 3


def test_a_removed_filter_file_is_written_again(tmp_path: Path) -> None:
    sandbox = _mechanism(BWRAP)
    assert sandbox.filter_path is not None
    original = Path(sandbox.filter_path).read_bytes()
    Path(sandbox.filter_path).unlink()
    done = run_in(sandbox, "echo fine", tmp_path)
    assert (done.returncode, done.stdout) == (0, "fine\n")
    assert Path(sandbox.filter_path).read_bytes() == original


def test_killed_by_a_signal_reports_128_plus_n(sandbox: Availability, tmp_path: Path) -> None:
    assert run_in(sandbox, "kill -TERM $$", tmp_path).returncode == 128 + signal.SIGTERM


def test_nothing_writes_but_the_private_tmp(sandbox: Availability, tmp_path: Path) -> None:
    tmp_path = tmp_path / "work"
    tmp_path.mkdir()
    target = tmp_path / "file"
    target.write_text("before\n")
    stat = target.stat()
    done = run_in(
        sandbox,
        "echo x > file; echo y >> file; touch new; mkdir d; rm -f file; ln -s file l; "
        "chmod 600 file; touch -d 2001-01-01 file; "
        "cat <<EOF\nheredoc $((6 * 7))\nEOF\n"
        'echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"; echo nul > /dev/null && echo devnull',
        tmp_path,
    )
    assert target.read_text() == "before\n"
    assert (target.stat().st_mode, target.stat().st_mtime_ns) == (stat.st_mode, stat.st_mtime_ns)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
    assert done.stdout.splitlines() == ["heredoc 42", "tmp", "devnull"]
    assert done.stderr.count("\n") >= 8  # every write refused, with the error shown


def test_private_tmp_is_gone_afterwards(sandbox: Availability, tmp_path: Path) -> None:
    done = run_in(sandbox, 'echo "$TMPDIR"; touch "$TMPDIR/mark"; ls "$TMPDIR"', tmp_path)
    assert done.stdout.splitlines()[1] == "mark"
    tmpdir = done.stdout.splitlines()[0]
    if sandbox.mechanism == LANDLOCK:
        assert not Path(tmpdir).exists()
    else:  # bwrap: a tmpfs of its own mount namespace; the host's directory is untouched
        assert not (Path(tmpdir) / "mark").exists()


def test_no_unix_socket_and_no_server(sandbox: Availability, tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen()
    listener.settimeout(0.5)
    try:
        script = (
            "import socket, sys\n"
            "def attempt(what, fn):\n"
            "    try:\n"
            "        fn(); print(what, 'ok')\n"
            "    except OSError as e:\n"
            "        print(what, e.errno)\n"
            f"attempt('unix', lambda: socket.socket(socket.AF_UNIX).connect({str(path)!r}))\n"
            "attempt('abstract', lambda: socket.socket(socket.AF_UNIX).connect('\\0x'))\n"
            "attempt('dgram-pair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))\n"
            "attempt('stream-pair', lambda: socket.socketpair())\n"
            "s = None\n"
            "def serve():\n"
            "    global s\n"
            "    s = socket.socket(); s.listen()\n"
            "attempt('listen', serve)\n"
            "attempt('bind', lambda: socket.socket().bind(('127.0.0.1', 0)))\n"
            "attempt('udp-bind', lambda: socket.socket(type=socket.SOCK_DGRAM).bind(('', 0)))\n"
        )
        done = run_in(sandbox, f"python3 -c {_q(script)}", tmp_path)
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        listener.close()
    results = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert results.pop("stream-pair") == "ok", done
    assert set(results.values()) == {"1"}, done  # EPERM each
    assert len(results) == 6


# Each socket family or netlink protocol a command might open, and how (family, type,
# protocol); a sandbox opens only those of READ_ONLY_SOCKETS.
SOCKETS = {
    "vsock": (40, socket.SOCK_STREAM, 0),
    "packet": (17, socket.SOCK_RAW, 0),
    "packet-dgram": (17, socket.SOCK_DGRAM, 0),
    "key": (15, socket.SOCK_RAW, 2),
    "alg": (38, socket.SOCK_SEQPACKET, 0),
    "bluetooth": (31, socket.SOCK_RAW, 1),
    "can": (29, socket.SOCK_RAW, 1),
    "xdp": (44, socket.SOCK_RAW, 0),
    "tipc": (30, socket.SOCK_RDM, 0),
    "rds": (21, socket.SOCK_SEQPACKET, 0),
    "netlink-usersock": (16, socket.SOCK_RAW, 2),
    "netlink-audit": (16, socket.SOCK_RAW, 9),
    "netlink-uevent": (16, socket.SOCK_RAW, 15),
    "netlink-generic": (16, socket.SOCK_RAW, 16),
    "netlink-route": (16, socket.SOCK_RAW, 0),
    "netlink-sock-diag": (16, socket.SOCK_DGRAM, 4),
    "inet-udp": (2, socket.SOCK_DGRAM, 0),
    "inet6-tcp": (10, socket.SOCK_STREAM, 0),
    "unix": (1, socket.SOCK_STREAM, 0),
}
READ_ONLY_SOCKETS = {"netlink-route", "netlink-sock-diag"}
_OPEN_EACH = (
    "import ctypes, errno, json, socket, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "for name, args in json.loads(sys.argv[1]).items():\n"
    "    try:\n"
    "        s = socket.socket(*args)\n"
    "    except OSError as e:\n"
    "        print(name, errno.errorcode[e.errno]); continue\n"
    "    if s.family == socket.AF_INET:  # bind with a netlink address's length: too short\n"
    "        libc.bind(s.fileno(), ctypes.create_string_buffer(16), 12)\n"
    "        print('inet-bind-12', errno.errorcode[ctypes.get_errno()])\n"
    "    print(name, 'ok')\n"
)


def test_only_the_read_only_socket_families_open(sandbox: Availability, tmp_path: Path) -> None:
    table = json.dumps({name: [int(arg) for arg in args] for name, args in SOCKETS.items()})
    script = f"{_q(sys.executable)} -c {_q(_OPEN_EACH)} {_q(table)}"
    done = run_in(sandbox, script, tmp_path)
    assert done.returncode == 0, done.stderr
    opened = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    internet = sandbox.mechanism == BWRAP  # its network namespace is empty
    expected = {
        name: "ok"
        if name in READ_ONLY_SOCKETS or (internet and name.startswith("inet"))
        else "EPERM"
        if name in ("unix", "inet-udp", "inet6-tcp")
        else "EPROTONOSUPPORT"
        if name.startswith("netlink")
        else "EAFNOSUPPORT"
        for name in SOCKETS
    }
    if internet:
        expected["inet-bind-12"] = "EINVAL"
    assert opened == expected


def test_network_state_reads_but_does_not_change(sandbox: Availability, tmp_path: Path) -> None:
    """`ip`, `ss` and getifaddrs work (netlink); changing an address or destroying a socket
    through it does not (no capability)."""
    for tool in ("ip", "ss", "hostname"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (make editors installs iproute2)")
    address = f"203.0.113.{os.getpid() % 200 + 20}"
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    accepted, _ = server.accept()
    port = client.getsockname()[1]
    try:
        reads = {
            "ip -o addr show dev lo": "127.0.0.1",
            "ss -tln": "State",
            "hostname -I": "",
            f"{_q(sys.executable)} -c 'import socket; print(socket.if_nameindex())'": "'lo'",
        }
        for command, expected in reads.items():
            done = run_in(sandbox, command, tmp_path)
            assert (done.returncode, done.stderr) == (0, ""), command
            assert expected in done.stdout, command
        added = run_in(sandbox, f"ip addr add {address}/32 dev lo", tmp_path)
        assert added.returncode != 0 and "Operation not permitted" in added.stderr
        run_in(sandbox, f"ss -K 'dport = :{port}'", tmp_path)  # SOCK_DESTROY
        client.sendall(b"x")
        accepted.settimeout(5)
        assert accepted.recv(1) == b"x", "a socket outside was destroyed"
    finally:
        for each in (accepted, client, server):
            each.close()
        outside = subprocess.run(["ip", "-o", "addr", "show", "dev", "lo"], capture_output=True)
        if address.encode() in outside.stdout:
            subprocess.run(["ip", "addr", "del", f"{address}/32", "dev", "lo"])
            pytest.fail(f"the sandbox added {address} to the machine's loopback")


def test_no_signal_reaches_outside(sandbox: Availability, tmp_path: Path) -> None:
    victim = subprocess.Popen(["sleep", "30"])
    try:
        done = run_in(sandbox, f"kill -9 {victim.pid}; echo $?", tmp_path)
        time.sleep(0.2)
        assert victim.poll() is None, "the sandbox killed a process outside it"
        assert done.stdout.strip() != "0"
    finally:
        victim.kill()
        victim.wait()


def test_nothing_outlives_the_command(sandbox: Availability, tmp_path: Path) -> None:
    marker = f"planmode-sandbox-{os.getpid()}-{time.monotonic_ns()}"
    # Background jobs, nohup, setsid and a double fork, each a sleep named by the marker.
    command = (
        f"(exec -a {marker}-bg sleep 60) & "
        f"nohup bash -c 'exec -a {marker}-nohup sleep 60' >/dev/null 2>&1 & "
        f"setsid bash -c 'exec -a {marker}-setsid sleep 60' & "
        f"( ( exec -a {marker}-double sleep 60 & ) & ); sleep 0.3; echo started"
    )
    done = run_in(sandbox, command, tmp_path)
    assert done.stdout.strip() == "started"
    time.sleep(0.3)
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert left.stdout == "", f"left running: {left.stdout}"


def test_no_capabilities_inside(sandbox: Availability, tmp_path: Path) -> None:
    done = run_in(sandbox, "grep -E '^Cap(Eff|Prm|Amb):' /proc/self/status", tmp_path)
    values = {line.split()[1] for line in done.stdout.splitlines()}
    assert values == {"0000000000000000"}, done.stdout


def test_landlock_sees_the_real_process_list(tmp_path: Path) -> None:
    sandbox = _mechanism(LANDLOCK)
    done = run_in(sandbox, f"ps -p {os.getpid()} -o pid=", tmp_path)
    assert done.stdout.strip() == str(os.getpid())


def _q(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


# -- detection ---------------------------------------------------------------------------
def test_off_and_bad_choices_say_classifier_only() -> None:
    off = detect({"PLANMODE_SANDBOX": "off"})
    assert (off.mechanism, off.status) == (None, CLASSIFIER_ONLY)
    assert off.wrap("ls") is None
    assert "PLANMODE_SANDBOX=off" in off.detail
    bad = detect({"PLANMODE_SANDBOX": "chroot"})
    assert bad.mechanism is None and "'chroot'" in bad.detail


def test_a_broken_bwrap_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
    )
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    found = detect({"PLANMODE_SANDBOX": "bwrap"}, directory=tmp_path)
    assert found.mechanism is None
    assert "No permissions to create new namespace" in found.detail


def test_a_sandbox_that_lets_writes_through_is_not_used(tmp_path: Path) -> None:
    from planmode.sandbox import probe

    # A "bwrap" that runs the command unconfined: the probe's write goes through.
    fake = tmp_path / "bwrap"
    fake.write_text('#!/bin/sh\nwhile [ "$1" != -- ]; do shift; done; shift; exec "$@"\n')
    fake.chmod(0o755)
    filt = tmp_path / "filter.bpf"
    filt.write_bytes(b"")
    unconfined = Availability(BWRAP, "", shutil.which("bash") or "/bin/bash", str(fake), str(filt))
    assert probe._try(unconfined) == "bwrap+seccomp let a write through"


# -- the filter --------------------------------------------------------------------------
def test_filter_is_well_formed() -> None:
    arch = seccomp.native_arch()
    if arch is None:
        pytest.skip("no seccomp table for this machine")
    for internet in (True, False):
        program = seccomp.build_filter(arch, internet)
        assert len(program) % 8 == 0 and 0 < len(program) // 8 < 4096
        records = [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
        # First the architecture check, last instructions are returns.
        assert records[0] == (0x20, 0, 0, 4)
        assert records[-1][0] == 0x06
        for index, (code, jt, jf, _k) in enumerate(records):
            if code & 0x07 == 0x05:  # jumps stay inside the program
                assert index + 1 + max(jt, jf) < len(records)


def verdict(program: bytes, arch: seccomp.Arch, call: str, *args: int, nr: int = -1) -> int:
    """What the filter answers for one system call: a classic BPF interpreter for the
    instructions seccomp.py emits, run over ``struct seccomp_data``."""
    number = arch.numbers[call] if nr < 0 else nr
    padded = [*args, 0, 0, 0, 0, 0, 0][:6]
    data = struct.pack("<IIQ6Q", number, arch.audit, 0, *padded)
    records: list[tuple[int, int, int, int]] = [
        struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)
    ]
    pc = acc = 0
    while True:
        code, jt, jf, k = records[pc]
        pc += 1
        if code == 0x20:  # ld [k]
            (acc,) = struct.unpack_from("<I", data, k)
        elif code == 0x54:  # and #k
            acc &= k
        elif code == 0x06:  # ret #k
            return k
        elif code in (0x15, 0x35, 0x45):  # jeq, jge, jset #k
            taken = {0x15: acc == k, 0x35: acc >= k, 0x45: acc & k != 0}[code]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"opcode {code:#x} not interpreted")


ALLOW, KILL = seccomp.RET_ALLOW, seccomp.RET_KILL_PROCESS
EPERM = seccomp.RET_ERRNO | errno.EPERM
EAFNOSUPPORT = seccomp.RET_ERRNO | errno.EAFNOSUPPORT
EPROTONOSUPPORT = seccomp.RET_ERRNO | errno.EPROTONOSUPPORT
AF_VSOCK, AF_PACKET, AF_KEY, AF_ALG, AF_XDP = 40, 17, 15, 38, 44
AF_BLUETOOTH, AF_CAN, AF_TIPC, AF_RDS = 31, 29, 30, 21
NETLINK_USERSOCK, NETLINK_AUDIT, NETLINK_KOBJECT_UEVENT, NETLINK_GENERIC = 2, 9, 15, 16


@pytest.mark.parametrize("arch", [seccomp.X86_64, seccomp.AARCH64], ids=lambda a: a.name)
@pytest.mark.parametrize("internet", [True, False], ids=["bwrap", "landlock"])
def test_sockets_are_an_allow_list(arch: seccomp.Arch, internet: bool) -> None:
    program = seccomp.build_filter(arch, internet)

    def opened(family: int, kind: int = socket.SOCK_STREAM, protocol: int = 0) -> int:
        return verdict(program, arch, "socket", family, kind, protocol)

    # Netlink, read-only protocols only (SOCK_DGRAM is the same as SOCK_RAW there).
    assert opened(seccomp.AF_NETLINK, socket.SOCK_RAW, seccomp.NETLINK_ROUTE) == ALLOW
    assert opened(seccomp.AF_NETLINK, socket.SOCK_DGRAM, seccomp.NETLINK_SOCK_DIAG) == ALLOW
    for protocol in (NETLINK_USERSOCK, NETLINK_AUDIT, NETLINK_KOBJECT_UEVENT, NETLINK_GENERIC):
        assert opened(seccomp.AF_NETLINK, socket.SOCK_RAW, protocol) == EPROTONOSUPPORT
    # Internet only where the network namespace is the sandbox's own.
    for family in (seccomp.AF_INET, seccomp.AF_INET6):
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
            assert opened(family, kind) == (ALLOW if internet else EPERM)
    assert opened(seccomp.AF_UNIX) == EPERM
    assert opened(seccomp.AF_UNIX, socket.SOCK_DGRAM) == EPERM
    others = [AF_VSOCK, AF_PACKET, AF_KEY, AF_ALG, AF_XDP, AF_BLUETOOTH, AF_CAN, AF_TIPC, AF_RDS]
    for family in [*others, 0, 46, 255, 0xFFFFFFFF]:
        assert opened(family) == EAFNOSUPPORT, family
    # The kernel reads an int: only the low 32 bits count, here too.
    assert opened((1 << 32) | AF_VSOCK) == EAFNOSUPPORT
    assert opened((1 << 32) | seccomp.AF_UNIX) == EPERM

    def paired(family: int, kind: int, protocol: int = 0) -> int:
        return verdict(program, arch, "socketpair", family, kind, protocol)

    assert paired(seccomp.AF_UNIX, socket.SOCK_STREAM) == ALLOW
    assert paired(seccomp.AF_UNIX, socket.SOCK_SEQPACKET) == ALLOW
    cloexec_dgram = socket.SOCK_DGRAM | socket.SOCK_CLOEXEC
    assert paired(seccomp.AF_UNIX, cloexec_dgram) == EPERM
    assert paired(AF_VSOCK, socket.SOCK_STREAM) == EAFNOSUPPORT
    assert paired(AF_TIPC, socket.SOCK_SEQPACKET) == EAFNOSUPPORT
    assert paired(seccomp.AF_NETLINK, socket.SOCK_RAW, NETLINK_USERSOCK) == EPROTONOSUPPORT

    # bind: only a netlink address's length (sockaddr_in is 16, sockaddr_in6 28).
    assert verdict(program, arch, "bind", 3, 0x1000, seccomp.SOCKADDR_NL_SIZE) == ALLOW
    for length in (2, 16, 28, 110):
        assert verdict(program, arch, "bind", 3, 0x1000, length) == EPERM
    for call in ("listen", "accept", "accept4"):
        assert verdict(program, arch, call, 3) == EPERM
    close = 3 if arch is seccomp.X86_64 else 57
    assert verdict(program, arch, "close", 3, nr=close) == ALLOW


def test_a_foreign_abi_is_killed() -> None:
    program = seccomp.build_filter(seccomp.X86_64)
    # x32: the x86-64 audit number with bit 30 set in the call number (its socket is 41 too).
    x32_socket = 0x40000000 | 41
    assert verdict(program, seccomp.X86_64, "socket", AF_VSOCK, nr=x32_socket) == KILL
    # i386 through int 0x80 (socketcall is 102 there): another audit number.
    i386 = seccomp.Arch("i386", 0x40000003, {"socketcall": 102})
    assert verdict(program, i386, "socketcall", 1) == KILL
    # 32-bit arm under aarch64.
    arm = seccomp.Arch("arm", 0x40000028, {"socket": 281})
    assert verdict(seccomp.build_filter(seccomp.AARCH64), arm, "socket", AF_VSOCK) == KILL


def test_unknown_architecture_has_no_table(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = os.uname_result(("Linux", "h", "6", "1", "riscv64"))
    monkeypatch.setattr(seccomp.os, "uname", lambda: fake)
    assert seccomp.native_arch() is None


# -- checkTool and the state -------------------------------------------------------------
def _wire(decision: Decision) -> dict[str, object]:
    """The checkTool answer the decision is."""
    return CheckToolResult.model_validate(decision).wire()


def _planning(make_service, **settings):  # type: ignore[no-untyped-def]
    service = make_service(**settings)
    session = service.session("s1")
    service.enter(session)
    return service, session


def test_allowed_planning_bash_carries_the_sandbox(make_service) -> None:  # type: ignore[no-untyped-def]
    service, session = _planning(make_service)
    if service.sandbox.mechanism is None:
        pytest.skip(f"no sandbox here: {service.sandbox.detail}")
    wire = _wire(service.check_tool(session, "Bash", {"command": "ls -la"}))
    assert wire["behavior"] == "allow"
    box = wire["sandbox"]
    assert box["mechanism"] == service.sandbox.mechanism
    assert box["argv"][-3:] == ["-c", "ls -la", "bash"]
    assert box["required"] is False
    assert "'ls -la'" in box["command"]
    # Denied commands, other tools and Bash outside plan mode carry none.
    assert "sandbox" not in _wire(service.check_tool(session, "Bash", {"command": "rm x"}))
    assert "sandbox" not in _wire(service.check_tool(session, "Read", {"file_path": "x"}))
    service.set_mode(session, "bypassPermissions")
    assert "sandbox" not in _wire(service.check_tool(session, "Bash", {"command": "ls"}))


def test_without_a_sandbox_planning_bash_is_classifier_only(  # type: ignore[no-untyped-def]
    make_service, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANMODE_SANDBOX", "off")
    service, session = _planning(make_service)
    assert service.state(session).sandbox == SandboxState(
        mechanism=None,
        status="classifier only",
        detail="turned off (PLANMODE_SANDBOX=off)",
        required=False,
    )
    assert _wire(service.check_tool(session, "Bash", {"command": "ls"})) == {
        "behavior": "allow",
        "rule": "plan.bash",
        "vouched": True,
        "mode": "plan",
    }


def test_require_sandbox_denies_planning_bash_without_one(  # type: ignore[no-untyped-def]
    make_service, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANMODE_SANDBOX", "off")
    service, session = _planning(make_service, requireSandbox=True)
    assert service.state(session).sandbox.required is True
    wire = _wire(service.check_tool(session, "Bash", {"command": "ls"}))
    assert wire == {
        "behavior": "deny",
        "message": "Denied by requireSandbox: no OS sandbox works here (turned off "
        "(PLANMODE_SANDBOX=off)), so Bash is denied while planning",
        "rule": "plan.bash",  # plan mode's: the Claude Code hook passes it on
        "vouched": True,
        "mode": "plan",
    }
    # Only while planning, and only Bash.
    assert service.check_tool(session, "Read", {"file_path": "x"}).behavior == "allow"
    service.set_mode(session, "bypassPermissions")
    assert service.check_tool(session, "Bash", {"command": "ls"}).behavior == "allow"
