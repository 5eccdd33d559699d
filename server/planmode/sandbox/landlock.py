"""Linux Landlock through ``ctypes``: the ABI version, and a read-only domain for this process.

Landlock needs no privilege: a process restricts itself and every child it will ever have,
irreversibly. The domain built here (see docs/sandbox.md) lets everything be read and
executed, lets only the given directories (the private temporary directory) and ``/dev/null``
be written, refuses every TCP bind and connect (ABI 4), and scopes abstract Unix sockets and
signals to the domain (ABI 6: the command cannot signal the editor, the server or the agent).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable

# System-call numbers are the same on every architecture (added after the tables merged).
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS = 38

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1

# The oldest ABI this sandbox accepts: signal scoping (6) is what keeps a command from
# killing processes outside it when there is no PID namespace.
MIN_ABI = 6

_READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV


class LandlockError(OSError):
    pass


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(*args: object) -> int:
    result = int(_libc.syscall(*args))
    if result < 0:
        err = ctypes.get_errno()
        raise LandlockError(err, os.strerror(err))
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI, 0 when it has none (or it is disabled at boot)."""
    try:
        return _syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    except LandlockError:
        return 0


def _handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def restrict_self(writable: Iterable[str], abi: int | None = None) -> None:
    """Confine this process (and its future children) for good; raises on any failure, so a
    caller that goes on to run the command only does so confined."""
    abi = abi_version() if abi is None else abi
    if abi < MIN_ABI:
        raise LandlockError(0, f"Landlock ABI {abi} is older than {MIN_ABI}")
    handled = _handled_fs(abi)
    attr = _RulesetAttr(handled, NET_BIND_TCP | NET_CONNECT_TCP, SCOPE_ABSTRACT_UNIX_SOCKET)
    attr.scoped |= SCOPE_SIGNAL
    ruleset = _syscall(
        _SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), 0
    )
    try:
        _allow(ruleset, "/", _READ)
        _allow(ruleset, "/dev/null", FS_READ_FILE | FS_WRITE_FILE | FS_TRUNCATE)
        for directory in writable:
            _allow(ruleset, directory, handled)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            err = ctypes.get_errno()
            raise LandlockError(err, f"PR_SET_NO_NEW_PRIVS: {os.strerror(err)}")
        _syscall(_SYS_RESTRICT_SELF, ruleset, 0)
    finally:
        os.close(ruleset)


def _allow(ruleset: int, path: str, access: int) -> None:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        is_dir = os.path.isdir(path)
        rule = _PathBeneathAttr(access if is_dir else access & _FILE_RIGHTS, fd)
        _syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
    finally:
        os.close(fd)
