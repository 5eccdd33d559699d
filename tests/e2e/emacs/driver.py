"""Real Emacs (``emacs -nw``) in a private tmux server, driven by keystrokes like a person.

Each session gets a fresh ``$HOME`` holding an ``init.el`` (one of this directory's, with the
server command filled in), its own tmux server (``tmux -L``) and its own Emacs server socket;
the editor's state is read with ``emacsclient --eval`` on that socket, never changed by it.
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).parent
EMACS, TMUX, EMACSCLIENT = (shutil.which(n) for n in ("emacs", "tmux", "emacsclient"))
AVAILABLE = all((EMACS, TMUX, EMACSCLIENT))


def elisp_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Emacs:
    def __init__(self, tmp: Path, root: Path, init: str, first_file: Path) -> None:
        self.home = tmp / "emacs-home"
        (self.home / ".emacs.d").mkdir(parents=True)
        self.socket_dir = tmp / "emacs-socket"
        self.socket_dir.mkdir(mode=0o700)
        self.socket = self.socket_dir / "planmode"
        self.events = tmp / "lsp-events.log"
        template = (HERE / init).read_text(encoding="utf-8")
        (self.home / ".emacs.d" / "init.el").write_text(
            template.replace("@PYTHON@", elisp_string(sys.executable))
            .replace("@SOCKET_DIR@", elisp_string(str(self.socket_dir)))
            .replace("@EVENTS@", elisp_string(str(self.events))),
            encoding="utf-8",
        )
        self.tmux_name = f"review-emacs-{uuid.uuid4().hex[:8]}"
        env = {
            "HOME": str(self.home),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        }
        if "PYTHONPATH" in os.environ:  # the server Emacs starts runs the planmode under test
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        command = " ".join(
            [
                "env",
                "-i",
                *(f"{k}={v}" for k, v in env.items()),
                str(EMACS),
                "-nw",
                str(first_file),
            ]
        )
        self._tmux("new-session", "-d", "-x", "160", "-y", "45", "-c", str(root), command)
        self.wait_for("(featurep 'planmode-test-ready)", "t", timeout=30)

    # -- tmux -----------------------------------------------------------------------------
    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            [str(TMUX), "-L", self.tmux_name, *args],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
        return done.stdout

    def keys(self, *keys: str) -> None:
        """Named keys as tmux spells them (``C-x``, ``M-x``, ``Enter``, ``Tab``)."""
        for key in keys:
            self._tmux("send-keys", "-t", "0", key)
            time.sleep(0.05)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "0", "-l", text)
        time.sleep(0.05)

    def command(self, name: str) -> None:
        """M-x NAME RET."""
        self.keys("M-x")
        self.wait_screen("M-x")
        self.type(name)
        self.keys("Enter")

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "0")

    def wait_screen(self, text: str, timeout: float = 15) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if text in shown:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared on the screen:\n{shown}")
            time.sleep(0.1)

    # -- reading state --------------------------------------------------------------------
    def eval(self, expression: str) -> str:
        done = subprocess.run(
            [str(EMACSCLIENT), "-s", str(self.socket), "--eval", expression],
            capture_output=True,
            text=True,
            timeout=20,
        )
        if done.returncode != 0:
            raise AssertionError(f"emacsclient failed: {done.stderr}")
        return done.stdout.strip()

    def wait_for(self, expression: str, expected: str, timeout: float = 15) -> str:
        deadline = time.monotonic() + timeout
        last = ""
        while True:
            try:
                last = self.eval(expression)
            except (AssertionError, subprocess.TimeoutExpired) as exc:
                last = str(exc)
            if last == expected:
                return last
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{expression} is {last!r}, not {expected!r}\nscreen:\n{self.screen()}"
                )
            time.sleep(0.1)

    def buffer(self, path: Path) -> tuple[str, bool]:
        """The text of the buffer visiting ``path`` and whether it is modified."""
        name = elisp_string(str(path))
        text = self.eval(
            f"(with-current-buffer (find-buffer-visiting {name}) "
            "(base64-encode-string (encode-coding-string "
            "(buffer-substring-no-properties (point-min) (point-max)) 'utf-8) t))"
        )
        modified = self.eval(
            f"(with-current-buffer (find-buffer-visiting {name}) (buffer-modified-p))"
        )
        return base64.b64decode(text.strip('"')).decode("utf-8"), modified == "t"

    def messages(self) -> str:
        return self.eval(
            '(with-current-buffer "*Messages*" (buffer-substring-no-properties 1 (point-max)))'
        )

    def close(self) -> None:
        """End this session's tmux server (and the Emacs in it) and remove its socket."""
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            socket = self._tmux("display-message", "-p", "#{socket_path}").strip()
            self._tmux("kill-server")
            if socket:
                Path(socket).unlink(missing_ok=True)
