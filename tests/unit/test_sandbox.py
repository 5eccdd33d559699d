"""The OS sandbox: detection, the seccomp filter, and each mechanism running real commands.

Each mechanism is tested where this machine has it (Landlock ABI >= 6; bwrap installed, as
`make editors` does); where it exists but does not work, the test fails rather than skips.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import struct
import subprocess
import time
from pathlib import Path

import pytest

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
    for no_inet in (False, True):
        program = seccomp.build_filter(arch, no_inet)
        assert len(program) % 8 == 0 and 0 < len(program) // 8 < 4096
        records = [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
        # First the architecture check, last instructions are returns.
        assert records[0] == (0x20, 0, 0, 4)
        assert records[-1][0] == 0x06
        for index, (code, jt, jf, _k) in enumerate(records):
            if code & 0x07 == 0x05:  # jumps stay inside the program
                assert index + 1 + max(jt, jf) < len(records)


def test_unknown_architecture_has_no_table(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = os.uname_result(("Linux", "h", "6", "1", "riscv64"))
    monkeypatch.setattr(seccomp.os, "uname", lambda: fake)
    assert seccomp.native_arch() is None


# -- checkTool and the state -------------------------------------------------------------
def _planning(make_service, **settings):  # type: ignore[no-untyped-def]
    service = make_service(**settings)
    session = service.session("s1")
    service.enter(session)
    return service, session


def test_allowed_planning_bash_carries_the_sandbox(make_service) -> None:  # type: ignore[no-untyped-def]
    service, session = _planning(make_service)
    if service.sandbox.mechanism is None:
        pytest.skip(f"no sandbox here: {service.sandbox.detail}")
    wire = service.check_tool(session, "Bash", {"command": "ls -la"}).to_wire()
    assert wire["behavior"] == "allow"
    box = wire["sandbox"]
    assert box["mechanism"] == service.sandbox.mechanism
    assert box["argv"][-3:] == ["-c", "ls -la", "bash"]
    assert box["required"] is False
    assert "'ls -la'" in box["command"]
    # Denied commands, other tools and Bash outside plan mode carry none.
    assert "sandbox" not in service.check_tool(session, "Bash", {"command": "rm x"}).to_wire()
    assert "sandbox" not in service.check_tool(session, "Read", {"file_path": "x"}).to_wire()
    service.set_mode(session, "bypassPermissions")
    assert "sandbox" not in service.check_tool(session, "Bash", {"command": "ls"}).to_wire()


def test_without_a_sandbox_planning_bash_is_classifier_only(  # type: ignore[no-untyped-def]
    make_service, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANMODE_SANDBOX", "off")
    service, session = _planning(make_service)
    assert service.state(session)["sandbox"] == {
        "mechanism": None,
        "status": "classifier only",
        "detail": "turned off (PLANMODE_SANDBOX=off)",
        "required": False,
    }
    assert service.check_tool(session, "Bash", {"command": "ls"}).to_wire() == {
        "behavior": "allow",
        "rule": "plan.bash",
    }


def test_require_sandbox_denies_planning_bash_without_one(  # type: ignore[no-untyped-def]
    make_service, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANMODE_SANDBOX", "off")
    service, session = _planning(make_service, requireSandbox=True)
    assert service.state(session)["sandbox"]["required"] is True
    wire = service.check_tool(session, "Bash", {"command": "ls"}).to_wire()
    assert wire == {
        "behavior": "deny",
        "message": "Denied by requireSandbox: no OS sandbox works here (turned off "
        "(PLANMODE_SANDBOX=off)), so Bash is denied while planning",
        "rule": "plan.bash",  # plan mode's: the Claude Code hook passes it on
    }
    # Only while planning, and only Bash.
    assert service.check_tool(session, "Read", {"file_path": "x"}).behavior == "allow"
    service.set_mode(session, "bypassPermissions")
    assert service.check_tool(session, "Bash", {"command": "ls"}).behavior == "allow"
