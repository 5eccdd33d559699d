"""The seccomp filter every sandboxed command runs under (classic BPF, built here, no library).

It refuses what the file system and namespaces cannot express (see docs/sandbox.md):

* Every socket family but the few a read-only command needs. Allowed: netlink, only its
  read-only protocols (``READ_ONLY_NETLINK``: ``ip``, ``ss``, getifaddrs), and AF_INET and
  AF_INET6 where the command has an empty network namespace of its own (``internet``).
  Refused with EPERM: Unix-domain sockets — a pathname socket (the agent endpoint, the
  Docker or D-Bus daemon, a tmux server) would let a command act outside the sandbox, and
  connecting to one needs only read access to the directory — and Internet sockets without
  ``internet``: families every kernel has, refused by policy. Refused with EAFNOSUPPORT:
  every other family (vsock, which no network namespace covers, packet, AF_ALG, Bluetooth…),
  what a kernel built without it answers, so programs that probe take their usual path; a
  netlink protocol off the list gets EPROTONOSUPPORT for the same reason.
* ``socketpair``: the same families; of Unix sockets only stream pairs (many runtimes use
  them for pipes, and they reach nothing outside), not datagram ones, which could send to a
  pathname socket.
* Serving: ``listen``, ``accept``, ``accept4``, and ``bind`` but with the length of a netlink
  address (netlink users bind before they ask the kernel).
* Leaving or reshaping the sandbox: new namespaces (``unshare``, ``setns``, ``clone`` with a
  ``CLONE_NEW*`` flag, ``clone3`` answers ENOSYS so libc falls back to ``clone``), mounts,
  ``chroot``; ``io_uring`` (its operations bypass this filter); ``ptrace`` and
  ``process_vm_writev``; ``bpf``, ``perf_event_open``, ``userfaultfd``, the keyrings.
* System V IPC and POSIX message queues (shared with processes outside).
* Changing metadata — modes, owners, timestamps, extended attributes: Landlock does not
  restrict them, so a read-only domain alone would let ``chmod`` or ``touch -d`` through.
* Another system-call ABI than the native one (x32, or i386 through ``int 0x80``): killed,
  because the numbers above would mean other calls there.

Every other refusal is ``EPERM``: the program sees an ordinary permission error. There is no
``socketcall`` to filter: x86-64 and aarch64 have none, and the 32-bit ABIs that do are killed.
"""

from __future__ import annotations

import errno
import os
import struct

# Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JSET_K = 0x45
_JGE_K = 0x35
_AND_K = 0x54
_RET_K = 0x06
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000

# struct seccomp_data: nr, arch, instruction_pointer, args[6] (low word first: little endian).
_NR, _ARCH = 0, 4


def _arg(index: int) -> int:
    return 16 + 8 * index


AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
SOCK_DGRAM = 2
# The netlink protocols that only read — interfaces, addresses and routes (``ip``, glibc's
# getifaddrs), socket tables (``ss``): every change through them needs CAP_NET_ADMIN, and
# without it they cannot message another process either, only the kernel.
NETLINK_ROUTE, NETLINK_SOCK_DIAG = 0, 4
READ_ONLY_NETLINK = (NETLINK_ROUTE, NETLINK_SOCK_DIAG)
# sizeof(struct sockaddr_nl): netlink users bind with it (glibc, iproute2); an Internet
# socket refuses so short an address (EINVAL), and no Unix socket can listen.
SOCKADDR_NL_SIZE = 12
_SOCK_TYPE_MASK = 0xF
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME
CLONE_NEW_MASK = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000
CLONE_NEW_MASK |= 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080

_X32_BIT = 0x40000000


class Arch:
    """One architecture's audit number and system-call numbers."""

    def __init__(self, name: str, audit: int, numbers: dict[str, int], x32_bit: bool = False):
        self.name, self.audit, self.numbers, self.x32_bit = name, audit, numbers, x32_bit


_DENIED = (
    "listen", "accept", "accept4",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "ptrace", "process_vm_writev", "bpf", "perf_event_open", "userfaultfd",
    "keyctl", "add_key", "request_key",
    "shmget", "shmat", "msgget", "msgsnd", "semget", "semop", "semtimedop", "mq_open",
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
    "utime", "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr",
    "setxattrat", "removexattr", "lremovexattr", "fremovexattr", "removexattrat",
)  # fmt: skip

X86_64 = Arch(
    "x86_64",
    0xC000003E,
    {
        "socket": 41, "socketpair": 53, "bind": 49, "listen": 50, "accept": 43, "accept4": 288,
        "clone": 56, "clone3": 435, "unshare": 272, "setns": 308,
        "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
        "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
        "fspick": 433, "mount_setattr": 442,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "ptrace": 101, "process_vm_writev": 311, "bpf": 321, "perf_event_open": 298,
        "userfaultfd": 323, "keyctl": 250, "add_key": 248, "request_key": 249,
        "shmget": 29, "shmat": 30, "msgget": 68, "msgsnd": 69, "semget": 64, "semop": 65,
        "semtimedop": 220, "mq_open": 240,
        "chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452, "chown": 92,
        "fchown": 93, "lchown": 94, "fchownat": 260, "utime": 132, "utimes": 235,
        "futimesat": 261, "utimensat": 280, "setxattr": 188, "lsetxattr": 189,
        "fsetxattr": 190, "setxattrat": 463, "removexattr": 197, "lremovexattr": 198,
        "fremovexattr": 199, "removexattrat": 466,
    },
    x32_bit=True,
)  # fmt: skip

AARCH64 = Arch(
    "aarch64",
    0xC00000B7,
    {
        "socket": 198, "socketpair": 199, "bind": 200, "listen": 201, "accept": 202,
        "accept4": 242, "clone": 220, "clone3": 435, "unshare": 97, "setns": 268,
        "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51,
        "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
        "fspick": 433, "mount_setattr": 442,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "ptrace": 117, "process_vm_writev": 271, "bpf": 280, "perf_event_open": 241,
        "userfaultfd": 282, "keyctl": 219, "add_key": 217, "request_key": 218,
        "shmget": 194, "shmat": 196, "msgget": 186, "msgsnd": 189, "semget": 190, "semop": 193,
        "semtimedop": 192, "mq_open": 180,
        "fchmod": 52, "fchmodat": 53, "fchmodat2": 452, "fchownat": 54, "fchown": 55,
        "utimensat": 88, "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463,
        "removexattr": 14, "lremovexattr": 15, "fremovexattr": 16, "removexattrat": 466,
    },
)  # fmt: skip

ARCHES = {"x86_64": X86_64, "amd64": X86_64, "aarch64": AARCH64, "arm64": AARCH64}


def native_arch() -> Arch | None:
    """The running machine's system-call table, or None where this filter has none."""
    return ARCHES.get(os.uname().machine.lower())


class _Program:
    """Straight-line BPF with symbolic jump targets, resolved when assembled."""

    def __init__(self) -> None:
        self.code: list[tuple[int, int | str, int | str, int]] = []
        self.labels: dict[str, int] = {}

    def op(self, code: int, k: int, jt: int | str = 0, jf: int | str = 0) -> None:
        self.code.append((code, jt, jf, k))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def assemble(self) -> bytes:
        out = b""
        for index, (code, jt, jf, k) in enumerate(self.code):
            out += struct.pack("<HBBI", code, self._rel(jt, index), self._rel(jf, index), k)
        return out

    def _rel(self, target: int | str, index: int) -> int:
        if isinstance(target, int):
            return target
        offset = self.labels[target] - index - 1
        if not 0 <= offset <= 255:
            raise ValueError(f"BPF jump to {target} out of range")
        return offset


def build_filter(arch: Arch, internet: bool = True) -> bytes:
    """The filter as ``struct sock_filter`` records (8 bytes each), ready for
    ``PR_SET_SECCOMP`` or bwrap's ``--seccomp FD``. ``internet``: whether AF_INET and
    AF_INET6 sockets may be opened — only where the command has an empty network namespace
    of its own (bwrap)."""
    eperm = RET_ERRNO | errno.EPERM
    nr = arch.numbers
    p = _Program()
    p.op(_LD_W_ABS, _ARCH)
    p.op(_JEQ_K, arch.audit, 1, 0)
    p.op(_RET_K, RET_KILL_PROCESS)
    p.op(_LD_W_ABS, _NR)
    if arch.x32_bit:
        p.op(_JGE_K, _X32_BIT, "kill", 0)
    for name in _DENIED:
        if name in nr:  # aarch64 has only the *at forms of some
            p.op(_JEQ_K, nr[name], "eperm", 0)
    p.op(_JEQ_K, nr["clone3"], "enosys", 0)
    p.op(_JEQ_K, nr["clone"], "clone", 0)
    p.op(_JEQ_K, nr["socket"], "socket", 0)
    p.op(_JEQ_K, nr["socketpair"], "socketpair", 0)
    p.op(_JEQ_K, nr["bind"], "bind", 0)
    p.op(_RET_K, RET_ALLOW)

    p.label("clone")
    p.op(_LD_W_ABS, _arg(0))
    p.op(_JSET_K, CLONE_NEW_MASK, "eperm", "allow")

    # socketpair: a stream pair of Unix sockets (it reaches nothing outside), else the
    # families of socket() below.
    p.label("socketpair")
    p.op(_LD_W_ABS, _arg(0))
    p.op(_JEQ_K, AF_UNIX, 0, "family")
    p.op(_LD_W_ABS, _arg(1))
    p.op(_AND_K, _SOCK_TYPE_MASK)
    p.op(_JEQ_K, SOCK_DGRAM, "eperm", "allow")

    # socket: an allow-list of families (the kernel reads the low 32 bits of an int argument,
    # as this filter does). Refused: Unix and (without ``internet``) Internet with EPERM,
    # every other family with EAFNOSUPPORT, another netlink protocol with EPROTONOSUPPORT.
    p.label("socket")
    p.op(_LD_W_ABS, _arg(0))
    p.op(_JEQ_K, AF_UNIX, "eperm", 0)
    p.label("family")
    internet_socket = "allow" if internet else "eperm"
    p.op(_JEQ_K, AF_INET, internet_socket, 0)
    p.op(_JEQ_K, AF_INET6, internet_socket, 0)
    p.op(_JEQ_K, AF_NETLINK, 0, "eafnosupport")
    p.op(_LD_W_ABS, _arg(2))
    for protocol in READ_ONLY_NETLINK:
        p.op(_JEQ_K, protocol, "allow", 0)
    p.op(_RET_K, RET_ERRNO | errno.EPROTONOSUPPORT)

    # bind: only with the length of a netlink address (no listen, no accept: nothing serves).
    p.label("bind")
    p.op(_LD_W_ABS, _arg(2))
    p.op(_JEQ_K, SOCKADDR_NL_SIZE, "allow", "eperm")

    p.label("allow")
    p.op(_RET_K, RET_ALLOW)
    p.label("eperm")
    p.op(_RET_K, eperm)
    p.label("eafnosupport")
    p.op(_RET_K, RET_ERRNO | errno.EAFNOSUPPORT)
    p.label("enosys")
    p.op(_RET_K, RET_ERRNO | errno.ENOSYS)
    p.label("kill")
    p.op(_RET_K, RET_KILL_PROCESS)
    return p.assemble()
