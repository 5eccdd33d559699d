"""``python -I -m planmode.sandbox run -- ARGV…``: run ARGV confined by Landlock and seccomp.

The launcher stays outside the sandbox to clean up after it: it makes a private temporary
directory (``TMPDIR``), becomes the child subreaper, forks the command into a new session and
confines it there (no capabilities, no new privileges, Landlock, seccomp), forwards the
signals a caller uses to stop it, waits, and then kills every process the command left
behind — background jobs, ``nohup``, ``setsid`` — before removing the directory. The exit
status is the command's (128 + N when signal N killed it).

Confinement failures are fatal before the command starts (exit 126): a command never runs
unconfined.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

from planmode.sandbox import landlock, seccomp

_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24
_PR_SET_SECCOMP = 22
_PR_SET_CHILD_SUBREAPER = 36
_SECCOMP_MODE_FILTER = 2
_CAPSET_V3 = 0x20080522
EXIT_CONFINEMENT_FAILED = 126
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)

_libc = ctypes.CDLL(None, use_errno=True)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def drop_capabilities() -> None:
    """No capability now, and none gained on exec (root gets the bounding set on exec)."""
    for cap in range(64):
        if _libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() not in (
            22,  # EINVAL: no such capability
            1,  # EPERM: we never had CAP_SETPCAP, so nothing to drop either
        ):
            _check(-1, "PR_CAPBSET_DROP")
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(_CapHeader(_CAPSET_V3, 0)), data), "capset")


def load_filter(program: bytes) -> None:
    buffer = ctypes.create_string_buffer(program, len(program))
    prog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _check(
        _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0),
        "PR_SET_SECCOMP",
    )


def _confine_and_exec(argv: list[str], tmp: str, program: bytes) -> None:
    try:
        os.setsid()
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        drop_capabilities()
        landlock.restrict_self([tmp])
        load_filter(program)
        os.environ["TMPDIR"] = tmp
        for sig in _FORWARDED:
            signal.signal(sig, signal.SIG_DFL)
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(2, f"planmode sandbox: {exc}\n".encode())
    os._exit(EXIT_CONFINEMENT_FAILED)


def _children() -> list[int]:
    pids: list[int] = []
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError), open(f"/proc/self/task/{task}/children") as handle:
            pids += [int(pid) for pid in handle.read().split()]
    return pids


def _kill_leftovers() -> None:
    """SIGKILL our children until there are none: orphans of the command are reparented to
    us (subreaper), so killing a leftover hands its own children to the next round."""
    while children := _children():
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            for _ in children:  # each of them dies: none of these waits can hang
                os.waitpid(-1, 0)


def _remove_tree(path: str) -> None:
    for top, dirs, files in os.walk(path, topdown=False):
        for name in files:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(top, name))
        for name in dirs:
            with contextlib.suppress(OSError):
                os.rmdir(os.path.join(top, name))
    with contextlib.suppress(OSError):
        os.rmdir(path)


def run(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write("planmode sandbox: nothing to run (usage: run -- PROGRAM ARGS…)\n")
        return 2
    arch = seccomp.native_arch()
    if arch is None:
        sys.stderr.write("planmode sandbox: no seccomp table for this architecture\n")
        return EXIT_CONFINEMENT_FAILED
    program = seccomp.build_filter(arch, internet=False)
    parent = "/var/tmp" if os.access("/var/tmp", os.W_OK) else "/tmp"
    tmp = os.path.join(parent, f"planmode-sandbox-{os.urandom(8).hex()}")
    os.mkdir(tmp, 0o700)
    try:
        _check(_libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "PR_SET_CHILD_SUBREAPER")
        pid = os.fork()
        if pid == 0:
            _confine_and_exec(argv, tmp, program)
        for sig in _FORWARDED:
            signal.signal(sig, lambda signum, _frame: _forward(pid, signum))
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
        _kill_leftovers()
    finally:
        _remove_tree(tmp)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _forward(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signum)
