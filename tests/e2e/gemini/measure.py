"""Measure what the real Gemini CLI does, for docs/gemini.md (not a test; run it by hand).

    .venv/bin/python -m tests.e2e.gemini.measure [--version V] [--save] [EXPERIMENT ...]

Each experiment starts the cached CLI (tests/e2e/gemini/install.sh VERSION) in tmux against
the fake Gemini API, with tests/e2e/gemini/log_hook.py registered for the events it watches,
plays the model and the user, and prints what it found as JSON. ``--save`` also writes the
hook payloads and the tools offered to tests/e2e/hook_payloads/gemini/<version>/ with paths
replaced by placeholders (WORKSPACE, HOME, SESSION_ID). Experiments, in order:

  plan        plan mode: the tools offered, every event's payload, the exit dialog
  default     default mode: payloads of a source write, a patch, a shell line, enter_plan_mode
  answers     BeforeTool/AfterTool answers and what the model reads
  exit        exit_plan_mode: its dialog's answers, a hook's deny/allow/ask, a policy allow
  hold        a hook holding exit_plan_mode: past the default timeout, its timeout, Esc
  modes       default mode with edits allowed by a policy (the hook asks or not), a shell
              line's directory, "Allow for this session" on an edit
  sandbox     running a plan-mode shell line in bubblewrap through a policy and a rewrite
  plans       where plans go: relative names, general.plan.directory from the project
  elsewhere   the user's ! line, a policy written mid-session, reads outside the workspace,
              which environment variables reach a hook
  offline     what it connects to (strace), with the test settings and without them
  firststart  what a start shows without the trusted folder or the auth type
  telemetry   a local telemetry file as a record of mode switches
  projecthooks  hooks in the project's settings: the warning, trusted_hooks.json
  adapter     what planmode's adapter relies on: an exit approved by a rewrite a policy rule
              recognises (no dialog, the AfterTool context), an edit in Default mode likewise,
              which lines a launcher-prefix rule lets through, the hook's parent process,
              the transcript line of a manual exit (docs/gemini.md, "The adapter")

One CLI at a time; the whole run takes a few minutes (hold waits 65 s).
"""

from __future__ import annotations

import argparse
import codecs
import importlib
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.gemini.fake_api import FakeApi, Request, function_call, text
from tests.e2e.gemini.tui import (
    EVENTS,
    VERSION,
    GeminiCli,
    hooks,
    installed,
    prepare_home,
    trust_project_hooks,
)

HOOK = Path(__file__).with_name("log_hook.py")
REPO = Path(__file__).resolve().parents[3]
PAYLOADS = REPO / "tests" / "e2e" / "hook_payloads" / "gemini"
# The line the issue asked to try: bubblewrap, read-only, no network, own PID namespace.
BWRAP = (
    "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-net --unshare-pid "
    "--die-with-parent --new-session -- bash -c "
)
PROBE = (
    "grep Seccomp: /proc/self/status; echo pids=$(ls /proc | grep -c '^[0-9]'); "
    "touch src/new.txt; echo touch=$?"
)
PLAN = "# Greet by name\n\n1. Read the name from argv in src/app.py.\n"


def policy(tool: str, decision: str = "allow", modes: str = '["plan"]', **extra: Any) -> str:
    """One ``[[rule]]`` of a policy file, priority 900 (the user tier)."""
    lines = ["[[rule]]", f"toolName = {json.dumps(tool)}"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in extra.items()]
    lines += [f"decision = {json.dumps(decision)}", "priority = 900", f"modes = {modes}", ""]
    return "\n".join(lines)


class Session:
    """One interactive CLI against the fake API, the logging hook on ``events``."""

    def __init__(
        self,
        work: Path,
        name: str,
        version: str,
        mode: str | None = "plan",
        events: tuple[str, ...] = ("BeforeTool", "AfterTool", "Notification", "SessionEnd"),
        hook_timeout_ms: int | None = None,
        settings: dict[str, Any] | None = None,
        project_settings: dict[str, Any] | None = None,
        policies: dict[str, str] | None = None,
        hooks_in: str = "user",
        wrapper: list[str] | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.base = work / name
        shutil.rmtree(self.base, ignore_errors=True)
        self.ws = self.base / "workspace"
        (self.ws / "src").mkdir(parents=True)
        (self.ws / "src" / "app.py").write_text("print('hello')\n")
        (self.ws / "README.md").write_text("# The project\n")
        self.home = self.base / "home"
        self.log = self.base / "hooks.jsonl"
        self.answers = self.base / "answers.json"
        self.answer({})
        command = f"{shlex.quote(sys.executable)} {HOOK} {self.log} {self.answers}"
        hooked = {"hooks": hooks(command, events, timeout_ms=hook_timeout_ms)} if events else {}
        user = {**(settings or {}), **(hooked if hooks_in == "user" else {})}
        prepare_home(self.home, self.ws, user, policies)
        project = {**(project_settings or {}), **(hooked if hooks_in == "project" else {})}
        if project:
            (self.ws / ".gemini").mkdir()
            (self.ws / ".gemini" / "settings.json").write_text(json.dumps(project, indent=2))
        self.api = FakeApi()
        self.cli = GeminiCli(
            self.ws,
            self.home,
            self.api.start(),
            version,
            approval_mode=mode,
            wrapper=wrapper,
            extra_env=extra_env,
        )
        self.last: Request | None = None

    def answer(self, table: dict[str, Any]) -> None:
        """What the logging hook answers from now on (log_hook.py)."""
        temporary = self.answers.with_suffix(".tmp")
        temporary.write_text(json.dumps(table))
        temporary.replace(self.answers)

    def prompt(self, line: str) -> Request:
        self.cli.wait_ready()
        self.cli.type(line)
        self.last = self.api.turn(60)
        return self.last

    def call(self, name: str, args: dict[str, Any], timeout: float = 30) -> Request:
        self.api.reply(function_call(name, args))
        self.last = self.api.turn(timeout)
        return self.last

    def attempt(
        self, name: str, args: dict[str, Any], wait: float = 4, allow: bool = False
    ) -> dict[str, Any]:
        """Call a tool; the model's next request, or else the dialog on screen, which is then
        cancelled (Esc) and the user types on (the model reads nothing about it) — or, with
        ``allow``, answered "Allow once"."""
        self.api.reply(function_call(name, args))
        try:
            self.last = self.api.turn(wait)
            return {"asked": False, "result": self.last.function_responses()}
        except TimeoutError:
            shown = self.dialog()
            if allow:
                self.cli.keys("Enter")
                self.last = self.api.turn(30)
                return {"asked": True, "dialog": shown, "result": self.last.function_responses()}
            self.cli.keys("Escape")
            time.sleep(1)
            self.cli.type("Go on.")
            self.last = self.api.turn(30)
            return {"asked": True, "dialog": shown}

    def dialog(self) -> list[str]:
        """The boxed lines of the visible screen (tool displays and dialogs)."""
        lines = [line.strip() for line in self.cli.visible().splitlines()]
        boxed = [line.strip("│ ").rstrip() for line in lines if line.startswith("│")]
        return [line for line in boxed if line and line[0] not in "╭╰─"]

    def status(self) -> str:
        """The mode line over the prompt (``plan``, ``auto-accept edits``, …)."""
        return next(
            (line.strip() for line in self.cli.visible().splitlines() if "Shift+Tab" in line), ""
        )

    def events(self, name: str | None = None, tool: str | None = None) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        found = [json.loads(line) for line in self.log.read_text().splitlines() if line]
        return [
            e
            for e in found
            if (name is None or e["payload"].get("hook_event_name") == name)
            and (tool is None or e["payload"].get("tool_name") == tool)
        ]

    def plans(self) -> Path:
        assert self.last is not None
        directory = self.last.plans_directory()
        assert directory, "no plans directory in write_file's description"
        return Path(directory)

    def exit_dialog(self, plan: str = "greet.md") -> list[str]:
        self.api.reply(function_call("exit_plan_mode", {"plan_filename": plan}))
        self.cli.wait_screen("Ready to start implementation", 20, visible=True)
        time.sleep(0.5)  # keys sent while the dialog is still being drawn are lost
        return self.dialog()

    def quit(self) -> None:
        self.api.reply(text("Done."))
        self.cli.wait_screen(r"Done\.", 10, visible=True)
        self.cli.type("/exit")
        self.cli.wait_exit(20)

    def close(self) -> None:
        self.cli.close()
        self.api.stop()


def result(request: Request) -> Any:
    """The one function response's ``response`` (``{"output": …}`` or ``{"error": …}``)."""
    answers = request.function_responses()
    return answers[-1]["response"] if answers else None


# --- the experiments ---------------------------------------------------------------------


def plan_mode(s: Session) -> dict[str, Any]:
    found: dict[str, Any] = {}
    first = s.prompt("Plan greeting by name in src/app.py")
    found["tools"] = first.tool_names
    found["declarations"] = first.declarations
    found["system_prompt_mode"] = re.findall(r"# Active Approval Mode: (\w+)", first.system_text())
    plans = s.plans()
    found["plans_directory"] = str(plans)
    app = str(s.ws / "src" / "app.py")
    found["read"] = result(s.call("read_file", {"file_path": app}))
    found["write_source"] = result(s.call("write_file", {"file_path": app, "content": "x\n"}))
    patch = {"file_path": app, "instruction": "greet", "old_string": "hello", "new_string": "hi"}
    found["replace_source"] = result(s.call("replace", patch))
    found["shell"] = result(s.call("run_shell_command", {"command": "rm -rf src"}))
    found["source_unchanged"] = (s.ws / "src" / "app.py").read_text() == "print('hello')\n"
    plan = str(plans / "greet.md")
    found["write_plan"] = result(s.call("write_file", {"file_path": plan, "content": PLAN}))
    edit = {"file_path": plan, "instruction": "x", "old_string": "argv", "new_string": "sys.argv"}
    found["replace_plan"] = result(s.call("replace", edit))
    found["seen_by_before_tool"] = [e["payload"]["tool_name"] for e in s.events("BeforeTool")]
    found["exit_dialog"] = s.exit_dialog()
    s.cli.keys("Enter")  # the first choice: Yes, automatically accept edits
    after = s.api.turn(30)
    s.last = after
    found["exit_auto"] = result(after)
    found["status_after"] = s.status()
    found["tools_after_auto"] = after.tool_names
    found["declarations_after"] = after.declarations
    found["write_after"] = s.attempt("write_file", {"file_path": app, "content": "print('hi')\n"})
    found["source_after"] = (s.ws / "src" / "app.py").read_text()
    s.quit()
    found["session_end"] = [e["payload"].get("reason") for e in s.events("SessionEnd")]
    found["events"] = sorted({e["payload"]["hook_event_name"] for e in s.events()})
    found["hook_env"] = s.events()[0]["env"] if s.events() else {}
    found["hook_cwd"] = s.events()[0]["cwd"] if s.events() else None
    return found


def default_mode(s: Session) -> dict[str, Any]:
    found: dict[str, Any] = {}
    first = s.prompt("Greet by name in src/app.py")
    found["tools"] = first.tool_names
    found["requests"] = [f"{r.method} {r.model}" for r in s.api.log]
    found["side_request"] = next((r.body for r in s.api.log if r.method == "generateContent"), None)
    app = str(s.ws / "src" / "app.py")
    found["write_source"] = s.attempt("write_file", {"file_path": app, "content": "x\n"})
    patch = {"file_path": app, "instruction": "greet", "old_string": "hello", "new_string": "hi"}
    found["replace_source"] = s.attempt("replace", patch)
    found["shell_ls"] = s.attempt("run_shell_command", {"command": "ls src", "description": "ls"})
    found["shell_touch"] = s.attempt(
        "run_shell_command", {"command": "touch notes.txt", "description": "Make notes"}
    )
    line = "grep -c . src/app.py"
    rewrite = {"hookSpecificOutput": {"tool_input": {"command": BWRAP + shlex.quote(line)}}}
    s.answer({"BeforeTool:run_shell_command": {"stdout": rewrite}})
    found["shell rewritten into bwrap"] = s.attempt("run_shell_command", {"command": line})
    s.answer({})
    found["enter_plan_mode"] = s.attempt("enter_plan_mode", {"reason": "Plan first"}, allow=True)
    found["notifications"] = [e["payload"]["details"] for e in s.events("Notification")]
    return found


def answers(s: Session) -> dict[str, Any]:
    found: dict[str, Any] = {}
    s.prompt("Plan greeting by name in src/app.py")
    files = []
    for number in range(12):  # a new file each time: 5 identical calls are a "loop"
        path = s.ws / "src" / f"f{number}.py"
        path.write_text(f"F{number}\n")
        files.append(str(path))
    other = s.ws / "src" / "other.py"
    other.write_text("OTHER\n")
    cases: list[tuple[str, dict[str, Any]]] = [
        ("deny", {"stdout": {"decision": "deny", "reason": "Denied by the test."}}),
        ("block", {"stdout": {"decision": "block", "reason": "Blocked by the test."}}),
        ("exit 2", {"exit": 2, "stderr": "Exit 2 from the test."}),
        ("exit 1", {"exit": 1, "stderr": "Exit 1 from the test."}),
        ("allow", {"stdout": {"decision": "allow"}}),
        ("ask", {"stdout": {"decision": "ask"}}),
        (
            "rewrite",
            {"stdout": {"hookSpecificOutput": {"tool_input": {"file_path": str(other)}}}},
        ),
    ]
    for (name, answer), read in zip(cases, files, strict=False):
        s.answer({"BeforeTool:read_file": answer})
        found[f"BeforeTool {name}"] = s.attempt("read_file", {"file_path": read})
    s.answer({"AfterTool:read_file": {"stdout": {"decision": "deny", "reason": "Hidden."}}})
    found["AfterTool deny"] = s.attempt("read_file", {"file_path": files[8]})
    context = {"hookSpecificOutput": {"additionalContext": "Context from the test."}}
    s.answer({"AfterTool:read_file": {"stdout": context}})
    found["AfterTool additionalContext"] = s.attempt("read_file", {"file_path": files[9]})
    s.answer({"BeforeTool:read_file": {"stdout": {"continue": False, "stopReason": "Stop."}}})
    s.api.reply(function_call("read_file", {"file_path": files[10]}))
    time.sleep(4)
    found["BeforeTool continue false"] = {
        "model asked again": len(s.api.main_loop()) > len(cases) + 3,
        "screen": [line for line in s.cli.visible().splitlines() if "stopped" in line],
    }
    return found


def exits(s: Session) -> dict[str, Any]:
    found: dict[str, Any] = {}
    s.prompt("Plan greeting by name in src/app.py")
    s.call("write_file", {"file_path": str(s.plans() / "greet.md"), "content": PLAN})
    missing = {"plan_filename": "missing.md"}
    found["missing plan"] = s.attempt("exit_plan_mode", missing)
    found["absolute outside"] = s.attempt("exit_plan_mode", {"plan_filename": "../greet.md"})
    found["hooks saw"] = [e["payload"]["tool_input"] for e in s.events("BeforeTool")][1:]
    reason = "Plan rejected in the editor: add a test."
    s.answer({"BeforeTool:exit_plan_mode": {"stdout": {"decision": "deny", "reason": reason}}})
    found["hook deny"] = s.attempt("exit_plan_mode", {"plan_filename": "greet.md"})
    s.answer({"BeforeTool:exit_plan_mode": {"stdout": {"decision": "allow"}}})
    found["hook allow → dialog"] = "Ready to start implementation" in "\n".join(s.exit_dialog())
    s.cli.keys("Down")
    s.cli.keys("Down")
    time.sleep(0.3)
    s.cli._tmux("send-keys", "-l", "Add a test please.")
    time.sleep(0.5)
    s.cli.keys("Enter")
    s.last = s.api.turn(30)
    found["dialog feedback"] = result(s.last)
    s.answer({})
    s.exit_dialog()
    s.cli.keys("Escape")
    time.sleep(2)
    found["dialog Esc: model asked"] = len(s.api.main_loop())
    s.cli.type("Try again.")
    s.last = s.api.turn(30)
    found["dialog Esc: next request"] = s.last.since_model()
    s.exit_dialog()
    s.cli.keys("Down")
    time.sleep(0.3)
    s.cli.keys("Enter")
    s.last = s.api.turn(30)
    found["dialog manual"] = result(s.last)
    found["status after manual"] = s.status()
    return found


def exit_by_policy(s: Session) -> dict[str, Any]:
    found: dict[str, Any] = {}
    s.prompt("Plan greeting by name in src/app.py")
    s.call("write_file", {"file_path": str(s.plans() / "greet.md"), "content": PLAN})
    hold = s.base / "decision.json"
    s.answer({"BeforeTool:exit_plan_mode": {"hold": str(hold)}})
    s.api.reply(function_call("exit_plan_mode", {"plan_filename": "greet.md"}))
    time.sleep(3)
    found["while held"] = [line for line in s.cli.visible().splitlines() if "Hook" in line]
    hold.write_text("")  # the user approved in the editor: the hook answers nothing
    s.last = s.api.turn(30)
    found["result"] = result(s.last)
    found["status after"] = s.status()
    found["tools after"] = s.last.tool_names
    return found


def hold(s: Session, seconds: float) -> dict[str, Any]:
    s.prompt("Plan greeting by name in src/app.py")
    s.call("write_file", {"file_path": str(s.plans() / "greet.md"), "content": PLAN})
    decision = s.base / "decision.json"
    s.answer({"BeforeTool:exit_plan_mode": {"hold": str(decision)}})
    started = time.monotonic()
    s.api.reply(function_call("exit_plan_mode", {"plan_filename": "greet.md"}))
    time.sleep(seconds)
    shown = [line.strip() for line in s.cli.visible().splitlines() if "Hook" in line]
    reason = f"Rejected after {seconds:.0f} s in the editor."
    decision.write_text(json.dumps({"decision": "deny", "reason": reason}))
    s.last = s.api.turn(30)
    return {"result": result(s.last), "after": time.monotonic() - started, "screen": shown}


def hold_timeout(s: Session) -> dict[str, Any]:
    s.prompt("Plan greeting by name in src/app.py")
    s.call("write_file", {"file_path": str(s.plans() / "greet.md"), "content": PLAN})
    late = {"sleep": 8, "stdout": {"decision": "deny", "reason": "Too late."}}
    s.answer({"BeforeTool:exit_plan_mode": late})
    shown = s.exit_dialog()
    warning = [line for line in s.cli.visible().splitlines() if "failed" in line]
    return {"dialog shown after the timeout": shown[:3], "warning": warning}


def hold_overflow(s: Session) -> dict[str, Any]:
    """A timeout past node's 32-bit setTimeout limit (2147483647 ms) fires at once."""
    s.prompt("Plan greeting by name in src/app.py")
    s.call("write_file", {"file_path": str(s.plans() / "greet.md"), "content": PLAN})
    never = s.base / "never"
    s.answer({"BeforeTool:exit_plan_mode": {"hold": str(never)}})
    started = time.monotonic()
    s.exit_dialog()
    shown_after = round(time.monotonic() - started, 1)
    never.write_text("")
    return {"dialog shown after s": shown_after}


def hold_escape(s: Session) -> dict[str, Any]:
    s.prompt("Plan greeting by name in src/app.py")
    s.call("write_file", {"file_path": str(s.plans() / "greet.md"), "content": PLAN})
    decision = s.base / "decision.json"
    s.answer({"BeforeTool:exit_plan_mode": {"hold": str(decision)}})
    s.api.reply(function_call("exit_plan_mode", {"plan_filename": "greet.md"}))
    time.sleep(3)
    s.cli.keys("Escape")
    time.sleep(2)
    still = os.popen(f"pgrep -f {shlex.quote(str(s.answers))}").read().split()
    shown = [line.strip() for line in s.cli.visible().splitlines() if "cancel" in line.lower()]
    decision.write_text(json.dumps({"decision": "deny", "reason": "late"}))
    time.sleep(2)
    return {
        "hook still running after Esc": bool(still),
        "screen": shown,
        "model asked again": len(s.api.main_loop()) > 2,
    }


def sandbox(s: Session, wrap: Callable[[str], str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    first = s.prompt("Plan greeting by name in src/app.py")
    found["shell offered in plan mode"] = "run_shell_command" in first.tool_names
    for name, line in [
        ("probe", PROBE),
        ("compound", "ls src && grep -c . src/app.py | cat"),
        ("redirection inside", "echo hi > /dev/null; echo redirected"),
    ]:
        rewrite = {"hookSpecificOutput": {"tool_input": {"command": wrap(line)}}}
        s.answer({"BeforeTool:run_shell_command": {"stdout": rewrite}})
        found[name] = s.attempt("run_shell_command", {"command": line, "description": name})
    s.answer({})
    found["not rewritten"] = s.attempt("run_shell_command", {"command": "ls src"})
    found["rm not rewritten"] = s.attempt("run_shell_command", {"command": "rm -rf src"})
    found["src intact"] = (s.ws / "src" / "app.py").exists()
    found["no new file"] = not (s.ws / "src" / "new.txt").exists()
    return found


def own_sandbox(s: Session) -> dict[str, Any]:
    s.prompt("Plan greeting by name in src/app.py")
    line = "grep Seccomp: /proc/self/status; ls /proc | head -3; touch src/new.txt; echo touch=$?"
    return {
        "probe": s.attempt("run_shell_command", {"command": line}),
        "substitution": s.attempt("run_shell_command", {"command": "echo $(id -u)"}),
        "rm": s.attempt("run_shell_command", {"command": "rm -rf src"}),
        "src intact": (s.ws / "src" / "app.py").exists(),
    }


def plans(s: Session) -> dict[str, Any]:
    found: dict[str, Any] = {}
    first = s.prompt("Plan greeting by name in src/app.py")
    directory = s.plans()
    found["plans directory"] = str(directory)
    found["in the system prompt"] = re.findall(
        r"produce an implementation plan in `([^`]*)`", first.system_text()
    )
    for name, path in [
        ("relative name", "rel-plan.md"),
        ("relative plans/", "plans/p2.md"),
        ("README.md relative", "README.md"),
        ("README.md absolute", str(s.ws / "README.md")),
        (".txt", str(directory / "notes.txt")),
        ("subdirectory", str(directory / "sub" / "x.md")),
        ("space in name", str(directory / "my plan.md")),
        ("absolute .md", str(directory / "ok.md")),
    ]:
        found[name] = s.attempt("write_file", {"file_path": path, "content": f"# {name}\n"})
    found["README.md now"] = (s.ws / "README.md").read_text()
    found["files"] = sorted(str(p.relative_to(s.base)) for p in s.base.rglob("*.md"))
    found["GEMINI_PLANS_DIR"] = sorted({e["env"].get("GEMINI_PLANS_DIR") for e in s.events()})
    return found


def connects(trace: Path) -> dict[str, Any]:
    """The TCP peers (``connect``) and the DNS names asked (``sendto``/``sendmmsg``) in an
    strace log."""
    logged = trace.read_text(errors="replace")
    peers = re.findall(
        r'sin6?_port=htons\((\d+)\).*?inet_(?:addr|pton)\((?:AF_INET6, )?"([^"]+)"', logged
    )
    names = set()
    for port_53 in re.findall(r'iov_base="((?:[^"\\]|\\.)*)"', logged):
        packet = codecs.escape_decode(port_53.encode())[0]
        labels, at = [], 12
        while 12 <= at < len(packet) and packet[at]:
            labels.append(packet[at + 1 : at + 1 + packet[at]].decode(errors="replace"))
            at += 1 + packet[at]
        if len(labels) > 1:
            names.add(".".join(labels))
    return {"tcp": sorted({f"{host}:{port}" for port, host in peers}), "dns": sorted(names)}


def offline_minimal(work: Path, version: str) -> dict[str, Any]:
    """The CLI with only the auth type and the trusted folder: what it reaches for."""
    if shutil.which("strace") is None:
        return {"skipped": "strace is not installed"}
    base = work / "offline-minimal"
    shutil.rmtree(base, ignore_errors=True)
    ws = base / "workspace"
    (ws / "src").mkdir(parents=True)
    home = base / "home"
    (home / ".gemini").mkdir(parents=True)
    auth = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(auth))
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(ws): "TRUST_FOLDER"}))
    trace = work / "strace-minimal.txt"
    api = FakeApi()
    wrapper = ["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmmsg", "-s", "80"]
    cli = GeminiCli(ws, home, api.start(), version, wrapper=[*wrapper, "-o", str(trace)])
    try:
        cli.wait_ready()
        cli.type("Plan greeting")
        api.turn(60)
        api.reply(text("Done."))
        time.sleep(10)
    finally:
        cli.close()
        api.stop()
    return {**connects(trace), "requests": [f"{r.method} {r.model}" for r in api.log]}


def edits_by_policy(s: Session) -> dict[str, Any]:
    """Default mode with a user policy allowing edits there: the hook decides per call."""
    s.prompt("Greet by name in src/app.py")
    app = str(s.ws / "src" / "app.py")
    found: dict[str, Any] = {
        "silent hook": s.attempt("write_file", {"file_path": app, "content": "a\n"})
    }
    s.answer({"BeforeTool:write_file": {"stdout": {"decision": "ask"}}})
    found["hook ask"] = s.attempt("write_file", {"file_path": app, "content": "b\n"})
    found["app.py"] = (s.ws / "src" / "app.py").read_text()
    s.answer({})
    found["pwd with dir_path src"] = s.attempt(
        "run_shell_command", {"command": "pwd", "dir_path": "src"}
    )
    found["cd src && pwd"] = s.attempt(
        "run_shell_command", {"command": "cd src && pwd"}, allow=True
    )
    found["pwd after"] = s.attempt("run_shell_command", {"command": "pwd"})
    return found


def session_allow(s: Session) -> dict[str, Any]:
    """Default mode: "Allow for this session" in an edit's dialog."""
    s.prompt("Greet by name in src/app.py")
    app = str(s.ws / "src" / "app.py")
    s.api.reply(function_call("write_file", {"file_path": app, "content": "a\n"}))
    s.cli.wait_screen("Allow for this session", 20, visible=True)
    before = s.status()
    s.cli.keys("Down")
    time.sleep(0.3)
    s.cli.keys("Enter")
    s.last = s.api.turn(30)
    return {"status before": before, "result": result(s.last), "status after": s.status()}


def elsewhere(s: Session) -> dict[str, Any]:
    """The user's own ``!`` shell line, a policy written during the session, reads outside
    the workspace."""
    found: dict[str, Any] = {}
    s.cli.wait_ready()
    s.cli._tmux("send-keys", "-l", "!touch bang.txt")
    time.sleep(1)
    s.cli.keys("Enter")
    time.sleep(3)
    found["! line in plan mode ran"] = (s.ws / "bang.txt").exists()
    found["! line seen by BeforeTool"] = bool(s.events("BeforeTool"))
    s.cli.keys("Escape")  # out of shell mode
    time.sleep(0.5)
    (s.ws / ".env").write_text("TOKEN=1\n")
    s.prompt("Plan greeting by name in src/app.py")
    for path in ("/etc/hostname", str(s.ws / ".env"), str(s.home / ".gemini" / "settings.json")):
        found[f"read {path}"] = s.attempt("read_file", {"file_path": path})
    found["reads seen by BeforeTool"] = [
        e["payload"]["tool_input"]["file_path"] for e in s.events("BeforeTool", "read_file")
    ]
    s.call("write_file", {"file_path": str(s.plans() / "greet.md"), "content": PLAN})
    late = s.home / ".gemini" / "policies" / "late.toml"
    late.parent.mkdir(exist_ok=True)
    late.write_text(policy("exit_plan_mode"))
    time.sleep(2)
    dialog = "Ready to start implementation" in "\n".join(s.exit_dialog())
    found["policy written during the session: dialog still shown"] = dialog
    names = set(s.events()[-1]["env_names"])
    found["variables reaching a hook"] = {
        name: name in names for name in ("GEMINI_API_KEY", "MY_TOKEN", "XDG_RUNTIME_DIR")
    }
    return found


def first_start(work: Path, version: str) -> dict[str, Any]:
    """What a start shows without each piece of the test's private HOME."""
    found: dict[str, Any] = {}
    auth = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    for name, settings, trusted in [
        ("no settings, no trusted folder", None, False),
        ("auth only, no trusted folder", auth, False),
        ("no auth type, trusted folder", {}, True),
    ]:
        base = work / f"first-{len(found)}"
        shutil.rmtree(base, ignore_errors=True)
        ws = base / "workspace"
        ws.mkdir(parents=True)
        gemini = base / "home" / ".gemini"
        gemini.mkdir(parents=True)
        if settings is not None:
            (gemini / "settings.json").write_text(json.dumps(settings))
        if trusted:
            (gemini / "trustedFolders.json").write_text(json.dumps({str(ws): "TRUST_FOLDER"}))
        api = FakeApi()
        cli = GeminiCli(ws, base / "home", api.start(), version)
        try:
            time.sleep(12)
            shown = [line.strip().strip("│").strip() for line in cli.visible().splitlines()]
            found[name] = [line for line in shown if line and not set(line) <= set("▄▀─╭╮╰╯ ")]
        finally:
            cli.close()
            api.stop()
    return found


def telemetry(s: Session, outfile: Path) -> dict[str, Any]:
    s.cli.wait_ready()
    time.sleep(2)
    seen = []
    for _ in range(3):
        before = outfile.read_text().count("approval_mode_switch") if outfile.exists() else 0
        s.cli.keys("BTab")
        started = time.monotonic()
        while time.monotonic() - started < 20:
            now = outfile.read_text().count("approval_mode_switch") if outfile.exists() else 0
            if now > before:
                break
            time.sleep(0.05)
        seen.append({"status": s.status(), "logged after s": round(time.monotonic() - started, 1)})
    switches = re.findall(r'"from_mode": "(\w+)",\s*"to_mode": "(\w+)"', outfile.read_text())
    return {"switches": seen, "logged": switches}


def project_hooks(s: Session) -> dict[str, Any]:
    s.cli.wait_ready()
    time.sleep(1)
    shown = [line.strip() for line in s.cli.screen().splitlines() if line.strip()]
    warning = [line for line in shown if "hook" in line.lower() or "WARNING" in line]
    trusted = s.home / ".gemini" / "trusted_hooks.json"
    return {
        "warning": warning,
        "trusted_hooks.json": json.loads(trusted.read_text()) if trusted.exists() else None,
        "SessionStart hook ran": bool(s.events("SessionStart")),
    }


# --- saving the payloads -----------------------------------------------------------------


def approved_by_rule(s: Session) -> dict[str, Any]:
    """exit_plan_mode under a rule that allows it only with a key the hook adds."""
    found: dict[str, Any] = {}
    s.prompt("Plan greeting by name in src/app.py")
    s.call("write_file", {"file_path": str(s.plans() / "greet.md"), "content": PLAN})
    s.api.reply(function_call("exit_plan_mode", {"plan_filename": "greet.md"}))
    time.sleep(4)
    found["without the key: dialog"] = "Ready to start implementation" in s.cli.visible()
    s.cli.keys("Escape")
    time.sleep(1.5)
    s.cli.type("Go on.")
    s.last = s.api.turn(30)
    marked = {"plan_filename": "greet.md", "planmode_approval": "THE APPROVED TEXT"}
    context = {"hookEventName": "AfterTool", "additionalContext": "THE APPROVED TEXT"}
    s.answer(
        {
            "BeforeTool:exit_plan_mode": {"stdout": {"hookSpecificOutput": {"tool_input": marked}}},
            "AfterTool:exit_plan_mode": {"stdout": {"hookSpecificOutput": context}},
        }
    )
    found["with the key"] = s.attempt("exit_plan_mode", {"plan_filename": "greet.md"}, wait=10)
    found["status after"] = s.status()
    found["AfterTool saw"] = [e["payload"]["tool_input"] for e in s.events("AfterTool")][-1:]
    return found


def edits_by_rule(s: Session) -> dict[str, Any]:
    """Default mode, a rule allowing write_file/replace only with a key the hook adds."""
    s.prompt("Greet by name in src/app.py")
    app = str(s.ws / "src" / "app.py")
    found: dict[str, Any] = {
        "no key": s.attempt("write_file", {"file_path": app, "content": "a\n"})
    }
    keyed = {"file_path": app, "content": "b\n", "planmode_accept_edits": "yes"}
    rewrite = {"stdout": {"hookSpecificOutput": {"tool_input": keyed}}}
    s.answer({"BeforeTool:write_file": rewrite})
    found["key"] = s.attempt("write_file", {"file_path": app, "content": "b\n"})
    found["app.py"] = (s.ws / "src" / "app.py").read_text()
    found["status"] = s.status()
    return found


def launcher_prefix(s: Session, launcher: Path) -> dict[str, Any]:
    """Plan mode, a rule allowing lines that start with a launcher, the hook silent: which of
    the model's own lines run."""
    s.prompt("Plan greeting by name in src/app.py")
    found: dict[str, Any] = {}
    for name, tail in [
        ("alone", " abc"),
        ("; touch", " abc; touch pwned1"),
        ("&& touch", " abc && touch pwned2"),
        ("$(touch)", " $(touch pwned3)"),
        ("> file", " abc > pwned4"),
        ("newline", " abc\ntouch pwned5"),
        ("| sh", " abc | sh"),
    ]:
        found[name] = s.attempt("run_shell_command", {"command": f"{launcher}{tail}"})
    found["files written"] = sorted(p.name for p in s.ws.glob("pwned*"))
    return found


def manual_exit(s: Session) -> dict[str, Any]:
    """Shift+Tab out of plan mode while the model is idle: what the transcript records."""
    s.prompt("Plan greeting by name in src/app.py")
    s.api.reply(text("Ok."))
    s.cli.wait_screen(r"Ok\.", 10, visible=True)
    time.sleep(0.5)
    found: dict[str, Any] = {"status before": s.status()}
    s.cli.keys("BTab")
    time.sleep(1)
    found["status after"] = s.status()
    [transcript] = sorted((s.home / ".gemini" / "tmp").rglob("session-*.jsonl"))
    lines = [json.loads(line) for line in transcript.read_text().splitlines() if line]
    found["last user line"] = [e for e in lines if e.get("type") == "user"][-1]["content"]
    return found


def placeholders(s: Session, value: Any) -> Any:
    """Paths and ids replaced: HOME, WORKSPACE, SESSION_ID, TIMESTAMP."""
    session = next(
        (e["payload"]["session_id"] for e in s.events() if "session_id" in e["payload"]), ""
    )
    text_ = json.dumps(value)
    for real, shown in [(str(s.ws), "WORKSPACE"), (str(s.home), "HOME")]:
        text_ = text_.replace(real, shown)
    if session:
        text_ = text_.replace(session, "SESSION_ID").replace(session[:8], "SESSION8")
    text_ = re.sub(r'"timestamp": "[^"]+"', '"timestamp": "TIMESTAMP"', text_)
    text_ = re.sub(r"\d{4}-\d\d-\d\dT\d\d-\d\d(?=-SESSION8)", "DATE", text_)
    return json.loads(text_)


def save_payloads(sessions: list[Session], tools: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    number = 0
    seen: set[str] = set()
    for s in sessions:
        for event in s.events():
            payload = event["payload"]
            detail = [payload.get(k) for k in ("tool_name", "reason", "source", "trigger")]
            key = "_".join([payload["hook_event_name"], *(str(d) for d in detail if d)][:2])
            if payload.get("hook_event_name") == "Notification":
                key += "_" + str((payload.get("details") or {}).get("type"))
            written = (payload.get("tool_input") or {}).get("file_path")
            if written:
                key += "_plan" if str(written).startswith(str(s.home)) else "_source"
            if key in seen:
                continue
            seen.add(key)
            (out / f"{number:02d}_{key}.json").write_text(
                json.dumps(placeholders(s, payload), indent=2) + "\n"
            )
            number += 1
    first = sessions[0]
    env = placeholders(first, first.events()[0]["env"]) if first.events() else {}
    env.pop("GEMINI_CLI_NO_RELAUNCH", None)  # the test's own, not Gemini CLI's
    (out / "hook_env.json").write_text(json.dumps(env, indent=2) + "\n")
    (out / "tools.json").write_text(json.dumps(placeholders(first, tools), indent=2) + "\n")
    transcripts = list((first.home / ".gemini" / "tmp").glob("*/chats/*.jsonl"))
    if transcripts:
        lines = [json.loads(line) for line in transcripts[0].read_text().splitlines() if line]
        (out / "transcript.jsonl").write_text(
            "".join(json.dumps(placeholders(first, line)) + "\n" for line in lines)
        )


# --- main --------------------------------------------------------------------------------


ORDER = [
    "plan", "default", "answers", "exit", "hold", "modes", "sandbox", "plans", "elsewhere",
    "offline", "firststart", "telemetry", "projecthooks", "adapter",
]  # fmt: skip


def run(names: list[str], version: str, save: bool, work: Path) -> dict[str, Any]:
    report: dict[str, Any] = {"version": version}
    keep: list[Session] = []
    tools: dict[str, Any] = {}

    def session(name: str, **options: Any) -> Session:
        s = Session(work, name, version, **options)
        keep.append(s)
        return s

    def measured(key: str, s: Session, what: Callable[[Session], dict[str, Any]]) -> None:
        try:
            report[key] = what(s)
        except Exception as exc:  # a report with the failure beats none
            report[key] = {"failed": repr(exc), "screen": s.cli.visible().splitlines()}
        finally:
            s.close()

    if "plan" in names:
        s = session("plan", events=EVENTS)
        measured("plan mode", s, plan_mode)
        found = report["plan mode"]
        tools = {
            "plan": found.pop("declarations", []),
            "autoEdit": found.pop("declarations_after", []),
        }
    if "default" in names:
        s = session("default", mode=None, events=("BeforeTool", "AfterTool", "Notification"))
        measured("default mode", s, default_mode)
    if "answers" in names:
        measured("hook answers (plan mode)", session("answers"), answers)
    if "exit" in names:
        measured("exit_plan_mode", session("exit"), exits)
        allow_exit = {"exit": policy("exit_plan_mode")}
        s = session("exit-policy", hook_timeout_ms=600_000, policies=allow_exit)
        measured("exit_plan_mode allowed by a policy, hook holding", s, exit_by_policy)
    if "hold" in names:
        s = session("hold", hook_timeout_ms=600_000)
        measured("hold 65 s (timeout 600000)", s, lambda s: hold(s, 65))
        measured("hold, timeout 3000", session("hold-timeout", hook_timeout_ms=3000), hold_timeout)
        s = session("hold-escape", hook_timeout_ms=600_000)
        measured("hold, Esc", s, hold_escape)
        s = session("hold-overflow", hook_timeout_ms=3_000_000_000)
        measured("hold, timeout 3000000000", s, hold_overflow)
    if "sandbox" in names:
        rule = policy("run_shell_command", commandPrefix="bwrap --ro-bind / / --dev /dev")
        s = session("sandbox-line", policies={"sandbox": rule})
        measured(
            "sandbox: the bwrap line", s, lambda s: sandbox(s, lambda c: BWRAP + shlex.quote(c))
        )
        planmode_sandbox = _planmode_sandbox()
        if planmode_sandbox is not None:
            bwrap, wrap = planmode_sandbox
            for redirection in (False, True):
                extra: dict[str, Any] = {"allowRedirection": True} if redirection else {}
                rule = policy("run_shell_command", commandPrefix=f"{bwrap} --ro-bind / /", **extra)
                s = session(f"sandbox-planmode-{redirection}", policies={"sandbox": rule})
                key = f"sandbox: planmode's prefix, allowRedirection={redirection}"
                measured(key, s, lambda s: sandbox(s, wrap))
        s = session(
            "own-sandbox",
            settings={"security": {"toolSandboxing": True}},
            policies={"shell": policy("run_shell_command")},
        )
        measured("Gemini's own tool sandbox, shell allowed in plan mode", s, own_sandbox)
    if "plans" in names:
        for name, directory in [
            ("default", None),
            ("dot", "."),
            ("src", "src"),
            ("outside", "/tmp"),
        ]:
            project = {"general": {"plan": {"directory": directory}}} if directory else None
            s = session(f"plans-{name}", project_settings=project)
            measured(f"plans, general.plan.directory={directory}", s, plans)
    if "modes" in names:
        edits = {
            "edits": policy("write_file", modes='["default"]').replace(
                'toolName = "write_file"', 'toolName = ["write_file", "replace"]'
            )
        }
        s = session("edits-policy", mode=None, policies=edits)
        measured("default mode, edits allowed by a policy", s, edits_by_policy)
        measured(
            "default mode, Allow for this session",
            session("session-allow", mode=None),
            session_allow,
        )
    if "elsewhere" in names:
        extra = {"MY_TOKEN": "secret", "XDG_RUNTIME_DIR": str(work / "runtime")}
        measured("elsewhere", session("elsewhere", extra_env=extra), elsewhere)
    if "offline" in names:
        report["offline, test settings"] = _offline_test(work, version)
        report["offline, only auth and trust"] = offline_minimal(work, version)
    if "firststart" in names:
        report["first start without the private settings"] = first_start(work, version)
    if "telemetry" in names:
        outfile = work / "telemetry.log"
        outfile.unlink(missing_ok=True)
        settings = {"telemetry": {"enabled": True, "target": "local", "outfile": str(outfile)}}
        s = session("telemetry", events=(), settings=settings)
        measured("local telemetry", s, lambda s: telemetry(s, outfile))
    if "projecthooks" in names:
        s = session("projecthooks", events=("SessionStart",), hooks_in="project")
        measured("hooks in the project's settings", s, project_hooks)
        trust_project_hooks(s.home, s.ws)  # what the first start recorded, written by the test
    if "adapter" in names:
        exit_rule = policy("exit_plan_mode", argsPattern='"planmode_approval":"')
        s = session("adapter-exit", hook_timeout_ms=600_000, policies={"exit": exit_rule})
        measured("adapter: exit approved by a rewrite the policy recognises", s, approved_by_rule)
        edits_rule = policy(
            "write_file", modes='["default"]', argsPattern='"planmode_accept_edits":"'
        ).replace('toolName = "write_file"', 'toolName = ["write_file", "replace"]')
        s = session("adapter-edits", mode=None, policies={"edits": edits_rule})
        measured("adapter: an edit in Default mode by a rewrite", s, edits_by_rule)
        launcher = work / "launcher"
        launcher.write_text('#!/bin/sh\necho "launched: $*"\n')
        launcher.chmod(0o755)
        rule = policy("run_shell_command", commandPrefix=str(launcher))
        s = session("adapter-prefix", policies={"launcher": rule})
        measured(
            "adapter: lines a launcher rule lets through", s, lambda s: launcher_prefix(s, launcher)
        )
        s = session("adapter-shifttab", events=("BeforeTool",))
        measured("adapter: Shift+Tab out of plan mode", s, manual_exit)
    if save and tools:
        save_payloads(
            [k for k in keep if k.base.name in ("plan", "default", "exit")],
            tools,
            PAYLOADS / version,
        )
    return report


def _offline_test(work: Path, version: str) -> dict[str, Any]:
    if shutil.which("strace") is None:
        return {"skipped": "strace is not installed"}
    trace = work / "strace-test.txt"
    wrapper = [
        "strace",
        "-f",
        "-qq",
        "-e",
        "trace=connect,sendto,sendmmsg",
        "-s",
        "80",
        "-o",
        str(trace),
    ]
    s = Session(work, "offline-test", version, events=(), wrapper=wrapper)
    try:
        s.prompt("Plan greeting")
        s.call("read_file", {"file_path": str(s.ws / "src" / "app.py")})
        s.api.reply(text("Done."))
        time.sleep(8)
    finally:
        s.close()
    return {**connects(trace), "requests": [f"{r.method} {r.model}" for r in s.api.log]}


def _planmode_sandbox() -> tuple[str, Callable[[str], str]] | None:
    """planmode's own bubblewrap sandbox (server/planmode/sandbox), when it works here."""
    sys.path.insert(0, str(REPO / "server"))
    probe: Any = importlib.import_module("planmode.sandbox.probe")
    found = probe.detect()
    if found.mechanism != "bwrap+seccomp" or found.bwrap is None:
        return None

    def wrap(line: str) -> str:
        wrapped = found.wrap(line)
        assert wrapped is not None
        return str(wrapped.command)

    return str(found.bwrap), wrap


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiments", nargs="*", help=f"any of: {' '.join(ORDER)} (all)")
    parser.add_argument("--version", default=VERSION)
    parser.add_argument("--save", action="store_true", help="write the hook payloads")
    parser.add_argument("--work", type=Path, help="keep the sessions' files here")
    options = parser.parse_args()
    why = installed(options.version)
    if why is not None:
        print(f"Gemini CLI {options.version} is not installed: {why}", file=sys.stderr)
        return 1
    unknown = set(options.experiments) - set(ORDER)
    if unknown:
        parser.error(f"unknown experiments: {' '.join(sorted(unknown))}")
    work = options.work or Path(tempfile.mkdtemp(prefix="gemini-measure-"))
    work.mkdir(parents=True, exist_ok=True)
    report = run(options.experiments or ORDER, options.version, options.save, work)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
