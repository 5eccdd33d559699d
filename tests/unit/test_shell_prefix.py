"""Claude Code's shell prefix, run as Claude Code runs it: `<script> '<command line>'`.

Outside plan mode it must be invisible (same output, exit status, environment, signals);
while planning the agent's line runs in the OS sandbox; when it cannot tell, nothing runs
(docs/claude-code.md, "Sandboxing planning Bash").
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from planmode.agents.claude_code import shell_prefix
from planmode.sandbox import probe

SESSION = "3b1f5f3e-8f0c-4a57-9d59-0c1f5f0a1b2c"


class Prefix:
    """The installed script and a Claude Code-like environment for its Bash tool and hooks."""

    def __init__(self, tmp: Path) -> None:
        self.dir = tmp
        self.script = tmp / "data" / shell_prefix.NAME
        self.script.parent.mkdir()
        assert shell_prefix.install(str(self.script))
        self.home = tmp / "home"
        self.home.mkdir(exist_ok=True)
        self.cwd_file = tmp / "claude-4f2a-cwd"
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.home),
            "SHELL": "/bin/bash",
            "LANG": "C.UTF-8",
            "CLAUDE_CODE_SESSION_ID": SESSION,
            "CLAUDE_CODE_EXECPATH": "/opt/claude/bin/claude.exe",
        }
        self.hook_env = {**self.env, "CLAUDE_PROJECT_DIR": str(tmp)}
        del self.hook_env["CLAUDE_CODE_EXECPATH"]

    def line(self, command: str) -> str:
        """The line Claude Code builds around the agent's command (measured on 2.1.332)."""
        quoted = "'" + command.replace("'", "'\\''") + "'"
        return (
            f"source {self.home}/.claude/shell-snapshots/snapshot-bash-1-x.sh 2>/dev/null || "
            "true && { \\builtin shopt -u extglob || \\builtin setopt NO_EXTENDED_GLOB; } "
            f">/dev/null 2>&1 || true && eval {quoted} < /dev/null && pwd -P >| {self.cwd_file}"
        )

    def run(
        self, line: str, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.script), line],
            env=self.env if env is None else env,
            cwd=cwd or self.dir,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def record(self, mode: str, state: str = "", prefix: list[str] | None = None) -> None:
        shell_prefix.write_record(SESSION, mode, state, prefix, self.env)


@pytest.fixture
def prefix(tmp_path: Path) -> Prefix:
    return Prefix(tmp_path)


def sandbox() -> probe.Wrapped:
    available = probe.detect_once()
    wrapped = available.wrap("true")
    if wrapped is None:
        pytest.skip(f"no OS sandbox here: {available.detail}")
    return wrapped


def test_without_a_record_the_agents_line_runs_as_without_a_prefix(prefix: Prefix) -> None:
    done = prefix.run(prefix.line("echo out; echo err >&2; cd /usr && exit 7"))
    assert (done.returncode, done.stdout, done.stderr) == (7, "out\n", "err\n")
    done = prefix.run(prefix.line("cd /usr && grep Seccomp: /proc/self/status"))
    assert done.stdout.split() == ["Seccomp:", "0"]
    assert prefix.cwd_file.read_text() == "/usr\n"


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
def test_outside_plan_mode_it_is_transparent(prefix: Prefix, mode: str) -> None:
    prefix.record(mode)
    target = prefix.dir / "written"
    done = prefix.run(prefix.line(f"echo hi > {target}; grep Seccomp: /proc/self/status"))
    assert done.returncode == 0 and done.stdout.split() == ["Seccomp:", "0"]
    assert target.read_text() == "hi\n"


def environment(run: Callable[[str], subprocess.CompletedProcess[str]]) -> dict[str, str]:
    shown = run("env -0").stdout.split("\0")
    return dict(item.split("=", 1) for item in shown if item)


def test_the_environment_is_the_one_claude_code_gave(prefix: Prefix) -> None:
    """Compared with the shell Claude Code would run without a prefix: `$SHELL -c LINE`."""
    prefix.record("default")

    def bare(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["/bin/bash", "-c", command],
            env=prefix.env,
            cwd=prefix.dir,
            capture_output=True,
            text=True,
        )

    def prefixed(command: str) -> subprocess.CompletedProcess[str]:
        return prefix.run(command)

    # `_` is the path of the program bash ran last: env's own in both.
    assert environment(prefixed) == environment(bare)


def test_signals_reach_the_command(prefix: Prefix) -> None:
    """The script execs: Claude Code's signal goes to the command itself (no process between)."""
    prefix.record("default")
    started = subprocess.Popen(
        [str(prefix.script), "exec sleep 30"], env=prefix.env, stdout=subprocess.PIPE
    )
    deadline = time.monotonic() + 10
    while Path(f"/proc/{started.pid}/cmdline").read_bytes().split(b"\0")[0] != b"sleep":
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.01)
    started.send_signal(signal.SIGTERM)
    assert started.wait(10) == -signal.SIGTERM


def test_a_hook_runs_as_claude_code_runs_it_in_every_mode(prefix: Prefix) -> None:
    """Hooks go through the prefix too: never sandboxed (planmode's own hook must reach the
    server), run by /bin/sh as Claude Code runs them."""
    prefix.record("plan", shell_prefix.PENDING)
    done = prefix.run("grep Seccomp: /proc/self/status; echo $0", env=prefix.hook_env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Seccomp:", "0", "/bin/sh"]


def test_while_planning_the_agents_line_runs_in_the_sandbox(prefix: Prefix) -> None:
    wrapped = sandbox()
    prefix.record("plan", shell_prefix.SANDBOX, wrapped.prefix)
    target = prefix.dir / "written"
    done = prefix.run(
        prefix.line(f"grep Seccomp: /proc/self/status; touch {target}; cd /usr/bin && exit 3")
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout.split() == ["Seccomp:", "2"]
    assert "Read-only file system" in done.stderr or "Permission denied" in done.stderr
    assert not target.exists()
    # Claude Code's read-back of the working directory still works (through descriptor 3).
    ended = prefix.run(prefix.line("cd /usr/bin && pwd"))
    assert ended.returncode == 0, ended.stderr
    assert prefix.cwd_file.read_text() == "/usr/bin\n"


def test_a_read_back_that_is_not_claude_codes_is_left_alone(prefix: Prefix) -> None:
    """Only a file named like Claude Code's own (…/claude-<hex>-cwd) is opened outside."""
    wrapped = sandbox()
    prefix.record("plan", shell_prefix.SANDBOX, wrapped.prefix)
    victim = prefix.dir / "notes.txt"
    victim.write_text("mine\n")
    done = prefix.run(f"eval 'cd /usr' < /dev/null && pwd -P >| {victim}")
    assert done.returncode != 0
    assert victim.read_text() == "mine\n"
    link = prefix.dir / "claude-9-cwd"
    link.symlink_to(victim)
    done = prefix.run(f"eval 'cd /usr' < /dev/null && pwd -P >| {link}")
    assert done.returncode != 0
    assert victim.read_text() == "mine\n"


def test_planning_without_a_sandbox_or_a_server_runs_unsandboxed(prefix: Prefix) -> None:
    """No OS sandbox works here, or no plan-mode server: the classifier (or Claude Code's own
    rules) decided, as docs/sandbox.md says for "classifier only"."""
    for state in (shell_prefix.CLASSIFIER, shell_prefix.NO_SERVER):
        prefix.record("plan", state)
        done = prefix.run(prefix.line("grep Seccomp: /proc/self/status"))
        assert done.stdout.split() == ["Seccomp:", "0"], state


@pytest.mark.parametrize("state", [shell_prefix.PENDING, "", "sandbox"])
def test_when_it_cannot_tell_nothing_runs(prefix: Prefix, state: str) -> None:
    prefix.record("plan", state)  # "sandbox" without a prefix: no way to run it sandboxed
    target = prefix.dir / "written"
    done = prefix.run(prefix.line(f"touch {target}"))
    assert done.returncode == 126
    assert done.stderr.startswith("planmode: this command was not run: ")
    assert not target.exists()


def test_a_record_that_is_not_planmodes_is_refused(prefix: Prefix, tmp_path: Path) -> None:
    prefix.record("default")
    record = Path(shell_prefix.records_dir(prefix.env)) / SESSION
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("default\n\n\n")
    record.unlink()
    record.symlink_to(elsewhere)
    target = prefix.dir / "written"
    done = prefix.run(prefix.line(f"touch {target}"))
    assert done.returncode == 126 and "not planmode's record" in done.stderr
    assert not target.exists()


def test_without_a_session_nothing_runs(prefix: Prefix) -> None:
    env = {k: v for k, v in prefix.env.items() if k != "CLAUDE_CODE_SESSION_ID"}
    done = prefix.run(prefix.line("true"), env=env)
    assert done.returncode == 126 and "CLAUDE_CODE_SESSION_ID" in done.stderr


def test_the_record_round_trips_any_word(prefix: Prefix) -> None:
    words = ["/bin/sh", "-c", 'exec "$@" 9<"$0"', "it's", "a b", "$HOME", "*"]
    prefix.record("plan", shell_prefix.SANDBOX, words)
    mode, state, quoted = shell_prefix.read_record(SESSION, prefix.env) or ("", "", "")
    assert (mode, state) == ("plan", shell_prefix.SANDBOX)
    shown = subprocess.run(  # as the script reads it
        ["/bin/sh", "-c", 'eval "set -- $QUOTED"; printf "%s\\n" "$@"'],
        env={"QUOTED": quoted},
        capture_output=True,
        text=True,
    )
    assert shown.stdout.splitlines() == words


def test_the_record_directory_must_be_private(prefix: Prefix) -> None:
    records = Path(shell_prefix.records_dir(prefix.env))
    records.mkdir(parents=True)
    records.chmod(0o777)
    with pytest.raises(shell_prefix.RecordError, match="not a private directory"):
        prefix.record("plan", shell_prefix.PENDING)
    records.chmod(0o700)
    prefix.record("plan", shell_prefix.PENDING)
    for bad in ("", "../x", ".hidden"):
        with pytest.raises(shell_prefix.RecordError):
            shell_prefix.write_record(bad, "plan", environ=prefix.env)
    with pytest.raises(shell_prefix.RecordError, match="line break"):
        prefix.record("plan", shell_prefix.SANDBOX, ["a\nb"])


def test_install_is_idempotent_and_executable(tmp_path: Path) -> None:
    path = tmp_path / "bin" / shell_prefix.NAME
    assert shell_prefix.install(str(path)) is True
    assert shell_prefix.install(str(path)) is False
    path.chmod(0o644)
    assert shell_prefix.install(str(path)) is True
    assert os.access(path, os.X_OK)
