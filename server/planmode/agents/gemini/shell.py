"""Planning shell lines of Gemini CLI in the OS sandbox: planmode's launcher and its records.

Gemini's plan mode offers no shell tool. ``planmode init gemini`` adds one, narrowly: a rule in
the user's policy file allows, in plan mode only, a ``run_shell_command`` whose whole line is
planmode's launcher and one word (:data:`SCRIPT`; Gemini's policy refuses a line that chains,
substitutes or redirects anything after it: measured, docs/gemini.md). The ``BeforeTool``
hook rewrites a planning line the server allowed into ``<launcher> <record>``, having left the
**record** — the sandboxed command line the server answered (``sandbox.argv``), or, where no
OS sandbox works, the line under ``bash -c`` (the read-only classifier alone decided) — in
``<runtime dir>/gemini-shell/<record>`` (:mod:`planmode.runtime`, 0700; the file 0600, named
by 128 random bits).

The launcher runs a record once (it removes it first) and nothing else: no record, a record
that is not a file of this user, a name that is not a record's — it runs nothing (exit 126,
``planmode: this command was not run: <why>`` on stderr). So a hook that crashed or timed out
(Gemini then runs the model's own line as it is) gives the model nothing: its line is not
rewritten, and a line it starts with the launcher itself names no record.

Stdlib ``os`` only: the hook imports this before a planning shell line.
"""

from __future__ import annotations

import os

from planmode import runtime

NAME = "planmode-gemini-shell"
RECORDS = "gemini-shell"
# Records the user never ran (the call was cancelled) are removed after this many seconds.
STALE = 600.0


class RecordError(OSError):
    """The record could not be left safely; the line is refused."""


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def records_dir(make: bool = False) -> str:
    try:
        return runtime.private_directory(RECORDS, make=make)
    except OSError as exc:
        raise RecordError(str(exc)) from exc


def write_record(argv: list[str]) -> str:
    """Leave a record of ``argv`` for the launcher; its name."""
    if not argv or any("\n" in word or "\0" in word for word in argv):
        raise RecordError("the sandbox's command line has a line break")
    try:
        folder = records_dir(make=True)
        _prune(folder)
        name = os.urandom(16).hex()
        path = os.path.join(folder, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, (" ".join(_quote(word) for word in argv) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except RecordError:
        raise
    except OSError as exc:
        raise RecordError(f"cannot leave the launcher's record: {exc.strerror or exc}") from exc
    return name


def _prune(folder: str) -> None:
    import time

    now = time.time()
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if now - os.lstat(path).st_mtime > STALE:
                os.unlink(path)
        except OSError:
            pass


def command(launcher: str, record: str) -> str:
    """The line Gemini runs instead of the model's: the launcher (as the policy names it) and
    the record's name."""
    return f"{launcher} {record}"


def policy_prefix(launcher: str) -> str:
    """The launcher as a shell word, which the policy's ``commandPrefix`` names: a path made
    of safe characters only (no quoting that Gemini's prefix match would have to follow)."""
    safe = all(c.isalnum() or c in "/._-+@%=:," for c in launcher)
    if not launcher.startswith("/") or not safe:
        raise ValueError(f"{launcher!r} is not an absolute path of plain characters")
    return launcher


# The launcher Gemini runs: POSIX sh, kept in step with the functions above by
# tests/unit/test_gemini_shell.py, which runs it.
SCRIPT = r"""#!/bin/sh
# planmode: runs a planning shell line of Gemini CLI in planmode's OS sandbox; written by
# `planmode init gemini` (docs/gemini.md, "The adapter"). Gemini's policy lets plan mode run
# only `<this file> <record>`; planmode's hook leaves the record just before, for one run.
# Anything else runs nothing (exit 126).

refuse() {
  printf 'planmode: this command was not run: %s\n' "$1" >&2
  exit 126
}
[ "$#" -eq 1 ] || refuse "planmode's launcher runs one record, not $# words"
case $1 in
  *[!0-9a-f]* | '') refuse "'$1' names no record of planmode's hook" ;;
esac
[ "${#1}" -eq 32 ] || refuse "'$1' names no record of planmode's hook"

# The user's runtime directory, as planmode's hook finds it (planmode/runtime.py).
base=${XDG_RUNTIME_DIR-}
case $base in
  /*) ;;
  *)
    uid=$(id -u)
    base=/run/user/$uid
    { [ -d "$base" ] && [ ! -L "$base" ] && [ -O "$base" ]; } || base=/tmp/runtime-$uid
    ;;
esac
folder=$base/planmode/gemini-shell
{ [ -d "$folder" ] && [ ! -L "$folder" ] && [ -O "$folder" ]; } ||
  refuse "$folder is not planmode's (no planning line was allowed here)"
record=$folder/$1
[ -f "$record" ] && [ ! -L "$record" ] && [ -O "$record" ] ||
  refuse "planmode's hook allowed no such line (no record $1)"
words=
IFS= read -r words <"$record" || refuse "cannot read the record $1"
rm -f "$record" || refuse "cannot remove the record $1: it would run again"
[ -n "$words" ] || refuse "the record $1 is empty"
eval "set -- $words" || refuse "the record $1 names no command"
exec "$@"
"""


def default_path() -> str:
    """Where ``planmode init gemini`` puts the launcher: this user's data directory, outside
    every project (the agent must not be able to change what sandboxes it)."""
    import platformdirs

    return os.path.join(platformdirs.user_data_dir("planmode"), NAME)


def install(path: str) -> bool:
    """Write the launcher to ``path`` (0755, atomically); False when it is already there."""
    from planmode.agents.setup import install_script

    return install_script(path, SCRIPT)
