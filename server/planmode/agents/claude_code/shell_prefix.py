"""Claude Code's shell prefix: every Bash command of a planning session runs in the OS sandbox.

Claude Code runs each Bash command line through the program named by
``CLAUDE_CODE_SHELL_PREFIX`` — ``<prefix> '<the whole command line>'`` — on every version
measured (2.1.197, 2.1.332), with no terminal prompt, and its hooks the same way
(docs/claude-code.md, "Sandboxing planning Bash"). ``planmode init claude-code`` installs
:data:`SCRIPT` outside the project and names it there.

The script must decide before every command, in a millisecond, whether the session plans. The
``PreToolUse`` hook tells it: for each Bash call it leaves a **record** for the session —
``${CLAUDE_CONFIG_DIR:-$HOME/.claude}/plan-mode/shell/<session id>`` — of Claude Code's
permission mode and, while planning, how the sandbox runs a command (the server's
``sandbox.prefix``). Three lines: the mode; the state (:data:`SANDBOX`, :data:`CLASSIFIER`,
:data:`NO_SERVER`, :data:`PENDING`); the prefix's words, each single-quoted. The hook and the
script are both children of the same Claude Code process, so they find the same directory.

Stdlib ``os`` only: the hook imports this on every tool call.
"""

from __future__ import annotations

import os

# The installed script's file name: the hook knows its prefix is planmode's by it.
NAME = "planmode-shell-prefix"
ENV_PREFIX = "CLAUDE_CODE_SHELL_PREFIX"

# What a planning session's record says about running a command.
SANDBOX = "sandbox"  # run it with the prefix on the third line
CLASSIFIER = "classifier"  # no OS sandbox works here: the read-only classifier alone
NO_SERVER = "noserver"  # no plan-mode server for the workspace: planmode has no opinion
PENDING = "pending"  # the hook has not finished: the script refuses to run anything


def is_ours(environ: os._Environ[str] | dict[str, str] = os.environ) -> bool:
    """Whether Claude Code runs this session's commands through planmode's script (it drops a
    prefix it does not accept, so the hook's own environment says)."""
    return os.path.basename(environ.get(ENV_PREFIX, "").strip()) == NAME


def records_dir(environ: os._Environ[str] | dict[str, str] = os.environ) -> str:
    """Where the records are: Claude Code's configuration directory, as the script finds it."""
    config = environ.get("CLAUDE_CONFIG_DIR") or os.path.join(environ.get("HOME", ""), ".claude")
    return os.path.join(config, "plan-mode", "shell")


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


class RecordError(OSError):
    """The record could not be written safely; while planning, the call is denied."""


def write_record(
    session_id: str,
    mode: str,
    state: str = "",
    prefix: list[str] | None = None,
    environ: os._Environ[str] | dict[str, str] = os.environ,
) -> None:
    """Leave the session's record for the script, atomically (a reader never sees half)."""
    if not session_id or "/" in session_id or session_id.startswith("."):
        raise RecordError(f"session id {session_id!r} cannot name a record")
    words = prefix or []
    if any("\n" in word or "\0" in word for word in words) or "\n" in mode + state:
        raise RecordError("the sandbox's command line has a line break")
    directory = records_dir(environ)
    _private_directory(directory)
    text = f"{mode}\n{state}\n{' '.join(_quote(word) for word in words)}\n"
    path = os.path.join(directory, session_id)
    temp = f"{path}.{os.getpid()}.tmp"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
        os.replace(temp, path)
    except OSError as exc:
        _unlink(temp)
        raise RecordError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _private_directory(directory: str) -> None:
    """``directory`` exists, is a real directory of this user and nobody else can write it."""
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        info = os.lstat(directory)
    except OSError as exc:
        raise RecordError(f"cannot make {directory}: {exc.strerror or exc}") from exc
    import stat

    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise RecordError(f"{directory} is not a private directory of this user")


def read_record(
    session_id: str, environ: os._Environ[str] | dict[str, str] = os.environ
) -> tuple[str, str, str] | None:
    """The session's record as (mode, state, quoted prefix), None when there is none."""
    try:
        with open(os.path.join(records_dir(environ), session_id), encoding="utf-8") as stream:
            lines = stream.read().split("\n")
    except FileNotFoundError:
        return None
    mode, state, prefix, *_ = [*lines, "", "", ""]
    return mode, state, prefix


def remove_record(session_id: str, environ: os._Environ[str] | dict[str, str] = os.environ) -> None:
    if session_id and "/" not in session_id and not session_id.startswith("."):
        _unlink(os.path.join(records_dir(environ), session_id))


def _unlink(path: str) -> None:
    # Not contextlib.suppress: importing contextlib costs the hook a millisecond.
    try:  # noqa: SIM105
        os.unlink(path)
    except OSError:
        pass


# The script Claude Code runs as its shell prefix: POSIX sh, so that outside plan mode a command
# pays a millisecond, not a Python start-up (make bench). Kept in step with the functions above
# by tests/unit/test_shell_prefix.py, which runs it.
SCRIPT = r"""#!/bin/sh
# planmode: Claude Code's shell prefix (CLAUDE_CODE_SHELL_PREFIX), written by
# `planmode init claude-code`; docs/claude-code.md, "Sandboxing planning Bash".
#
# Claude Code runs every Bash command as `<this file> '<command line>'`, and its hooks the same
# way. While the session plans, the agent's command line runs inside planmode's OS sandbox.
# Otherwise -- and always for hooks and the other programs Claude Code starts -- it runs exactly
# as it would without a prefix. When this script cannot tell, it runs nothing (exit 126).

refuse() {
  printf 'planmode: this command was not run: %s\n' "$1" >&2
  exit 126
}
[ "$#" -eq 1 ] || refuse "Claude Code's shell prefix expects one command line, not $# words"

# The agent's Bash command line ends with Claude Code's read-back of the working directory;
# the Bash tool's environment also names Claude Code's binary and not the project (a hook's
# names the project). Anything else is not the agent's, and runs as Claude Code asked.
agent=
case $1 in *' && pwd -P >| '*) agent=1 ;; esac
[ -n "${CLAUDE_CODE_EXECPATH-}" ] && [ -z "${CLAUDE_PROJECT_DIR-}" ] && agent=1
[ -n "$agent" ] || exec /bin/sh -c "$1"
shell=${SHELL:-/bin/bash}

session=${CLAUDE_CODE_SESSION_ID-}
case $session in
  '' | .* | */*)
    refuse "Claude Code named no session (CLAUDE_CODE_SESSION_ID): is it planning?" ;;
esac
record=${CLAUDE_CONFIG_DIR:-$HOME/.claude}/plan-mode/shell/$session
# No record: planmode's hook never saw this session run Bash, so plan mode has no opinion.
[ -e "$record" ] || [ -L "$record" ] || exec "$shell" -c "$1"
[ -f "$record" ] && [ ! -L "$record" ] && [ -O "$record" ] ||
  refuse "$record is not planmode's record (not a file of this user)"
mode= state= prefix=
{ IFS= read -r mode && IFS= read -r state && IFS= read -r prefix; } <"$record" ||
  refuse "cannot read $record, so planmode cannot tell whether the session plans"
[ "$mode" = plan ] || exec "$shell" -c "$1"
case $state in
  sandbox) [ -n "$prefix" ] || refuse "$record names no sandbox" ;;
  classifier | noserver) exec "$shell" -c "$1" ;;
  *) refuse "planmode has not finished checking this command; run it again" ;;
esac

# The read-back writes a file of Claude Code's, which the read-only sandbox cannot: the command
# writes the directory to descriptor 3 instead, opened on that file here.
line=$1
case $line in
  *' && pwd -P >| '*)
    file=${line##*' && pwd -P >| '}
    case $file in \'*\') file=${file#\'} file=${file%\'} ;; esac
    case $file in
      /*/claude-*-cwd) case $file in *[!A-Za-z0-9._/-]*) file= ;; esac ;;
      *) file= ;;
    esac
    # `command`: a file that cannot be opened does not end this script.
    if [ -n "$file" ] && [ ! -L "$file" ] && command exec 3>"$file"; then
      line="${line%' && pwd -P >| '*} && pwd -P >&3"
    fi
    ;;
esac
eval "set -- $prefix" || refuse "$record names no sandbox"
exec "$@" "$shell" -c "$line"
"""


def default_path() -> str:
    """Where ``planmode init claude-code`` puts the script: this user's data directory, outside
    every project (Claude Code refuses a prefix the session could write)."""
    import platformdirs

    return os.path.join(platformdirs.user_data_dir("planmode"), NAME)


def install(path: str) -> bool:
    """Write the script to ``path`` (0755, atomically); False when it is already there."""
    from planmode.agents.setup import install_script

    return install_script(path, SCRIPT)
