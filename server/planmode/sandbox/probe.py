"""Which sandbox this machine offers (each mechanism tried for real), and wrapping a command
in it. See :mod:`planmode.sandbox` and docs/sandbox.md."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from planmode.sandbox import BWRAP, CLASSIFIER_ONLY, ENV_CHOICE, LANDLOCK, SECCOMP_FD, seccomp

CHOICES = ("auto", "landlock", "bwrap", "off")
# The launcher runs as a script with -I -S (no site, no user paths: 10 ms less per command);
# it finds its package from its own absolute path, never from the working directory.
LAUNCHER = str(Path(__file__).with_name("__main__.py"))
ENV_PROGRAM = "/usr/bin/env"


@dataclass(frozen=True)
class Wrapped:
    """A command made to run inside the sandbox: ``argv`` to execute directly, or ``command``
    for a shell (the same thing, quoted). ``prefix`` runs whatever program and arguments are
    appended to it in the same sandbox, with the same environment: how an agent that wraps its
    own shell (Claude Code's shell prefix) sandboxes a command line it builds itself."""

    mechanism: str
    argv: list[str]
    command: str
    prefix: list[str]
    # It may run only so, never outside the sandbox (the caller's setting: requireSandbox).
    required: bool = False


@dataclass(frozen=True)
class Availability:
    """What :func:`detect` found. ``mechanism`` is None where there is no sandbox; ``detail``
    says what it is, or why there is none."""

    mechanism: str | None
    detail: str
    bash: str = "/bin/bash"
    bwrap: str | None = None
    filter_path: str | None = None
    python: str = sys.executable

    @property
    def status(self) -> str:
        return self.mechanism or CLASSIFIER_ONLY

    def to_wire(self) -> dict[str, object]:
        return {"mechanism": self.mechanism, "status": self.status, "detail": self.detail}

    def wrap(
        self, command: str, hide: Sequence[str] = (), env: Mapping[str, str] | None = None
    ) -> Wrapped | None:
        """``command`` (a ``bash -c`` string) made to run inside the sandbox; None without one.
        ``hide``: directories bubblewrap covers with an empty tmpfs (the agent endpoint's).
        ``env``: variables added for the command (through ``env``), e.g. git's (docs/sandbox.md).

        The wrapped command keeps the original's working directory, environment (except
        ``TMPDIR``: the private temporary directory), standard streams and exit status
        (128 + N when signal N killed it, as bash reports it).
        """
        if self.mechanism is None:
            return None
        if self.mechanism == BWRAP and self.filter_path:
            _restore_filter(self.filter_path)
        hidden = tuple(path for path in hide if os.path.isdir(path))
        launch = self._launch(hidden, tuple((env or {}).items()))
        if launch is None:
            return None
        prefix, shown, redirect = launch
        inner = [self.bash, "-c", command, "bash"]  # $0 as under a plain `bash -c`
        text = f"{shown} {shlex.join(inner)}{redirect}"
        return Wrapped(self.mechanism, [*prefix, *inner], text, list(prefix))

    @functools.lru_cache(maxsize=8)  # noqa: B019 (one per process: detect_once keeps them)
    def _launch(
        self, hidden: tuple[str, ...], variables: tuple[tuple[str, str], ...]
    ) -> tuple[tuple[str, ...], str, str] | None:
        """The prefix for these hidden directories and variables, the same as shell words, and
        what follows the command in its shell form (bwrap's filter on fd 9): made once, not for
        every command."""
        added = [ENV_PROGRAM, *(f"{key}={value}" for key, value in variables)] if variables else []
        if self.mechanism == BWRAP and self.bwrap and self.filter_path:
            outer = [*bwrap_argv(self.bwrap, list(hidden)), "--", *added]
            # bwrap reads the filter from an open descriptor: /bin/sh opens it on fd 9.
            prefix = ["/bin/sh", "-c", f'exec "$@" {SECCOMP_FD}<"$0"', self.filter_path, *outer]
            redirect = f" {SECCOMP_FD}<{shlex.quote(self.filter_path)}"
            return tuple(prefix), shlex.join(outer), redirect
        if self.mechanism == LANDLOCK:
            prefix = [self.python, "-I", "-S", LAUNCHER, "run", "--", *added]
            return tuple(prefix), shlex.join(prefix), ""
        return None


def _restore_filter(path: str) -> None:
    """The filter file again if it went away (a cleaned runtime directory): without it every
    sandboxed command would fail to start."""
    if os.path.exists(path):
        return
    arch = seccomp.native_arch()
    with contextlib.suppress(OSError):
        if arch is not None:
            written = write_filter(seccomp.build_filter(arch), Path(path).parent)
            if str(written) != path:  # another filter version: leave the command to fail
                os.unlink(written)


def private_tmp() -> str:
    return "/var/tmp" if os.path.isdir("/var/tmp") else "/tmp"


def bwrap_argv(bwrap: str, hide: Sequence[str] = ()) -> list[str]:
    """bubblewrap's options (everything before ``--``); the filter is read from fd 9.

    ``/`` read-only (submounts too), a fresh ``/dev`` (no disks), ``/proc`` of a new PID
    namespace (the command sees and signals only its own processes; when it ends, the
    namespace and everything in it dies), a private tmpfs for ``TMPDIR``, an empty network
    namespace, no capabilities, a new session (no terminal to push input into).
    """
    tmp = private_tmp()
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", tmp]
    for path in hide:
        argv += ["--tmpfs", path]
    argv += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    argv += ["--setenv", "TMPDIR", tmp, "--seccomp", str(SECCOMP_FD)]
    return argv


def filter_directory() -> Path:
    """A directory only this user can write: the runtime directory, else the cache."""
    import platformdirs  # only the server detects; the launcher never gets here

    with warnings.catch_warnings():  # "XDG_RUNTIME_DIR is not set": we fall back
        warnings.simplefilter("ignore")
        for make in (platformdirs.user_runtime_dir, platformdirs.user_cache_dir):
            with contextlib.suppress(OSError):
                directory = Path(make("planmode", ensure_exists=True)) / "sandbox"
                directory.mkdir(mode=0o700, exist_ok=True)
                if directory.stat().st_uid == os.getuid() and os.access(directory, os.W_OK):
                    return directory
    raise OSError("no private directory for the seccomp filter")


def write_filter(program: bytes, directory: Path) -> Path:
    """The filter in a file named by its digest, written atomically; a file of that name
    with other bytes is replaced."""
    path = directory / f"seccomp-{hashlib.sha256(program).hexdigest()[:16]}.bpf"
    with contextlib.suppress(OSError):
        if path.read_bytes() == program:
            return path
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".seccomp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(program)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return path


def _try(candidate: Availability) -> str | None:
    """None when ``candidate`` really confines a command (the very argv agents get: reading
    works, writing fails); else why not."""
    scratch = tempfile.mkdtemp(prefix="planmode-probe-")
    target = os.path.join(scratch, "written")
    wrapped = candidate.wrap(f"test -r / && ! (: > {shlex.quote(target)}) 2>/dev/null")
    try:
        if wrapped is None:
            return f"{candidate.mechanism} is incomplete"
        done = subprocess.run(
            wrapped.argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=20, cwd="/"
        )
        if os.path.exists(target):
            return f"{candidate.mechanism} let a write through"
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{candidate.mechanism} cannot run: {exc}"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip().splitlines()
        return f"{candidate.mechanism} failed ({err[-1] if err else f'exit {done.returncode}'})"
    return None


_found: dict[str, Availability] = {}


def detect_once(env: Mapping[str, str] | None = None) -> Availability:
    """:func:`detect`, once per process and ``PLANMODE_SANDBOX`` value (it runs commands)."""
    env = os.environ if env is None else env
    key = env.get(ENV_CHOICE) or ""
    if key not in _found:
        _found[key] = detect(env)
    return _found[key]


def detect(env: Mapping[str, str] | None = None, directory: Path | None = None) -> Availability:
    """The preferred mechanism that works here, or none and why.

    bubblewrap first (namespaces and seccomp: the stronger isolation, and a few ms per command
    against the Landlock launcher's Python start-up), then Landlock (no user namespaces
    needed, and the command sees the real process list). ``PLANMODE_SANDBOX`` forces one, or
    ``off``.
    """
    env = os.environ if env is None else env
    choice = (env.get(ENV_CHOICE) or "auto").strip().lower()
    if choice not in CHOICES:
        return Availability(None, f"{ENV_CHOICE}={choice!r} is not one of {', '.join(CHOICES)}")
    if choice == "off":
        return Availability(None, f"turned off ({ENV_CHOICE}=off)")
    if not sys.platform.startswith("linux"):
        return Availability(None, f"no OS sandbox on {sys.platform} (Linux only)")
    arch = seccomp.native_arch()
    if arch is None:
        return Availability(None, f"no seccomp system-call table for {os.uname().machine}")
    bash = shutil.which("bash") or "/bin/bash"
    reasons: list[str] = []
    if choice in {"auto", "bwrap"}:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            reasons.append("bwrap is not installed")
        else:
            try:
                path = write_filter(seccomp.build_filter(arch), directory or filter_directory())
            except OSError as exc:
                reasons.append(f"cannot write the seccomp filter: {exc}")
            else:
                detail = "bubblewrap namespaces and seccomp"
                found = Availability(BWRAP, detail, bash, bwrap, str(path))
                failure = _try(found)
                if failure is None:
                    return found
                reasons.append(failure)
    if choice in {"auto", "landlock"}:
        from planmode.sandbox import landlock

        abi = landlock.abi_version()
        if abi >= landlock.MIN_ABI:
            found = Availability(LANDLOCK, f"Landlock ABI {abi} and seccomp", bash)
            failure = _try(found)
            if failure is None:
                return found
            reasons.append(failure)
        else:
            reasons.append(f"Landlock ABI {abi} < {landlock.MIN_ABI}" if abi else "no Landlock")
    return Availability(None, "; ".join(reasons))
