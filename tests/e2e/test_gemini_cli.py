"""Gemini CLI (@google/gemini-cli) in its own plan mode, driven for real: the groundwork for
planmode's adapter (docs/gemini.md), with a logging hook of the test's own, not planmode yet.

The pinned CLI runs interactively in tmux (``gemini --approval-mode plan``) against a scripted
Gemini API on 127.0.0.1; the test plays the model and the user. The hook
(tests/e2e/gemini/log_hook.py, in the user's settings) logs every BeforeTool, AfterTool and
SessionEnd payload and answers what the test tells it to. A user policy lets plan mode run a
shell line only when it starts with the bubblewrap launcher, and the hook rewrites the model's
line into it: the channel a planmode adapter can use to run planning shell lines in its OS
sandbox without a prompt.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.gemini.fake_api import FakeApi, Request, function_call, text
from tests.e2e.gemini.tui import VERSION, GeminiCli, hooks, installed, prepare_home

# `make gemini-latest` (later) runs npm's newest release instead of the pinned one.
GEMINI_VERSION = os.environ.get("PLANMODE_GEMINI_VERSION") or VERSION
LOG_HOOK = Path(__file__).parent / "gemini" / "log_hook.py"
BWRAP = (
    "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-net --unshare-pid "
    "--die-with-parent --new-session -- bash -c "
)
# Plan mode offers no shell unless a policy allows one; this one allows only the launcher.
SANDBOX_POLICY = """[[rule]]
toolName = "run_shell_command"
commandPrefix = "bwrap --ro-bind / / --dev /dev --proc /proc"
decision = "allow"
priority = 900
modes = ["plan"]
"""
ORIGINAL = "print('hello')\n"
PLAN = "# Greet by name\n\n1. Read the name from argv in src/app.py.\n"
PROBE = "touch src/new.txt; echo touch=$?; echo pids=$(ls /proc | grep -c '^[0-9]')"
SECRET_REASON = "Denied by the test's hook: src/private.txt holds a secret."
FEEDBACK = "Rejected in review: add a test for the greeting."


def bwrap_works() -> str | None:
    """None when the launcher line runs here, else why not."""
    if shutil.which("bwrap") is None:
        return "bwrap is not installed (make editors installs bubblewrap)"
    done = subprocess.run(
        ["sh", "-c", BWRAP + "true"], capture_output=True, text=True, timeout=30, check=False
    )
    return None if done.returncode == 0 else f"bwrap failed: {done.stderr.strip()[-200:]}"


class Hook:
    """The logging hook's record and its answers (tests/e2e/gemini/log_hook.py)."""

    def __init__(self, directory: Path) -> None:
        self.log = directory / "hooks.jsonl"
        self.table = directory / "answers.json"
        self.answer({})

    @property
    def command(self) -> str:
        return shlex.join([sys.executable, str(LOG_HOOK), str(self.log), str(self.table)])

    def answer(self, table: dict[str, Any]) -> None:
        temporary = self.table.with_suffix(".tmp")
        temporary.write_text(json.dumps(table))
        temporary.replace(self.table)

    def seen(self, event: str, tool: str | None = None) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        records = [json.loads(line) for line in self.log.read_text().splitlines() if line]
        return [
            r
            for r in records
            if r["payload"].get("hook_event_name") == event
            and (tool is None or r["payload"].get("tool_name") == tool)
        ]


class Model:
    """Plays the model: one function call per turn, its result read from the next request."""

    def __init__(self, api: FakeApi, cli: GeminiCli) -> None:
        self.api = api
        self.cli = cli

    def prompt(self, line: str) -> Request:
        self.cli.wait_ready()
        self.cli.type(line)
        return self.turn(60)

    def turn(self, timeout: float = 30) -> Request:
        try:
            return self.api.turn(timeout)
        except TimeoutError:
            raise TimeoutError(
                f"Gemini CLI sent no request within {timeout:.0f} s; its screen:\n"
                + self.cli.visible()
            ) from None

    def choose(self, dialog: str, key: str = "Enter", timeout: float = 30) -> Request:
        """Answer Gemini CLI's dialog with ``key``, as the user would once it shows; the
        request that follows. A key that arrives while the dialog is still being drawn is
        lost, so it is sent again while the dialog stays on screen."""
        self.cli.wait_screen(dialog, 20, visible=True)
        deadline = time.monotonic() + timeout
        while True:
            time.sleep(0.3)
            if dialog in self.cli.visible():
                self.cli.keys(key)
            try:
                return self.api.turn(3)
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"no request after answering {dialog!r}:\n{self.cli.visible()}"
                    ) from None

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """The tool's ``response`` as the model reads it: ``{"output"}`` or ``{"error"}``."""
        self.api.reply(function_call(name, args))
        return self.turn().result(name)


def failure_report(api: FakeApi, cli: GeminiCli, hook: Hook, out: Path) -> str:
    out.mkdir(parents=True, exist_ok=True)
    screen = cli.screen().rstrip()
    (out / "screen.txt").write_text(screen)
    (out / "api-requests.txt").write_text(api.dump())
    seen = hook.log.read_text() if hook.log.exists() else ""
    results = [json.dumps(r.result_text()[:300]) for r in api.main_loop()]
    return "\n".join(
        [
            f"== Gemini CLI {cli.version}: files in {out}",
            "== screen",
            screen,
            "== hook payloads",
            *(line[:400] for line in seen.splitlines()),
            "== tool results the fake API received",
            *results,
        ]
    )


def test_plan_mode_in_real_gemini_cli(tmp_path: Path) -> None:
    why = installed(GEMINI_VERSION)
    if why is not None:
        pytest.skip(f"Gemini CLI {GEMINI_VERSION} cannot run here: {why}")
    why = bwrap_works()
    if why is not None:
        pytest.skip(f"the sandbox launcher cannot run here: {why}")
    root = (tmp_path / "workspace").resolve()
    (root / "src").mkdir(parents=True)
    app = root / "src" / "app.py"
    app.write_text(ORIGINAL)
    (root / "src" / "private.txt").write_text("TOKEN=secret\n")
    home = tmp_path / "home"
    hook = Hook(tmp_path)
    events = ("BeforeTool", "AfterTool", "SessionEnd")
    prepare_home(home, root, {"hooks": hooks(hook.command, events)}, {"sandbox": SANDBOX_POLICY})
    api = FakeApi()
    cli = GeminiCli(root, home, api.start(), GEMINI_VERSION)
    try:
        plan_in_gemini_cli(Model(api, cli), hook, root, time.monotonic())
    except BaseException:
        print(failure_report(api, cli, hook, tmp_path / "gemini-report"))
        raise
    finally:
        cli.close()
        api.stop()


def plan_in_gemini_cli(model: Model, hook: Hook, root: Path, started: float) -> None:
    app = root / "src" / "app.py"
    first = model.prompt("Plan greeting by name in src/app.py")
    # Plan mode's own tools: its exit tool, no way back in; the shell only by the policy.
    assert "exit_plan_mode" in first.tool_names, first.tool_names
    assert "enter_plan_mode" not in first.tool_names, first.tool_names
    assert "run_shell_command" in first.tool_names, first.tool_names
    plans = Path(first.plans_directory() or "")
    assert plans.is_relative_to(model.cli.home / ".gemini" / "tmp"), plans

    # A read runs; the hook sees it first, with Gemini CLI's variables.
    read = model.call("read_file", {"file_path": str(app)})
    assert read == {"output": ORIGINAL}, read
    [seen] = hook.seen("BeforeTool", "read_file")
    assert seen["payload"]["tool_input"] == {"file_path": str(app)}, seen
    assert seen["payload"]["cwd"] == str(root), seen
    assert seen["env"]["GEMINI_PLANS_DIR"] == str(plans), seen["env"]

    # A write of a source file fails in Gemini CLI's own argument check, before any hook;
    # a write of a plan in its plans directory runs, and the hook sees it.
    refused = model.call("write_file", {"file_path": str(app), "content": "print('hi')\n"})
    assert "must be within the designated plans directory" in refused["error"], refused
    assert app.read_text() == ORIGINAL
    assert not hook.seen("BeforeTool", "write_file")
    plan = plans / "greet.md"
    written = model.call("write_file", {"file_path": str(plan), "content": PLAN})
    assert "Successfully created" in written["output"], written
    assert plan.read_text() == PLAN
    [seen] = hook.seen("BeforeTool", "write_file")
    assert seen["payload"]["tool_input"] == {"file_path": str(plan), "content": PLAN}, seen

    # A shell line: the hook sees it and rewrites it into the launcher, which the policy lets
    # run without a prompt: read-only files, its own process namespace.
    wrapped = {"tool_input": {"command": BWRAP + shlex.quote(PROBE)}}
    hook.answer({"BeforeTool:run_shell_command": {"stdout": {"hookSpecificOutput": wrapped}}})
    ran = model.call("run_shell_command", {"command": PROBE, "description": "Probe"})
    output = ran["output"]
    assert "Read-only file system" in output and "touch=1" in output, ran
    assert int(output.split("pids=")[1].split()[0]) < 10, ran
    assert "modified by a hook" in output, ran
    assert not (root / "src" / "new.txt").exists()
    [seen] = hook.seen("BeforeTool", "run_shell_command")
    assert seen["payload"]["tool_input"]["command"] == PROBE, seen
    # Without the rewrite, plan mode's own policy refuses the line.
    hook.answer({})
    removed = model.call("run_shell_command", {"command": "rm -rf src"})
    assert removed["error"].startswith("Tool execution denied by policy."), removed
    assert app.exists()

    # A hook's deny reaches the model as its reason, after Gemini CLI's fixed prefix.
    deny = {"stdout": {"decision": "deny", "reason": SECRET_REASON}}
    hook.answer({"BeforeTool:read_file": deny})
    secret = model.call("read_file", {"file_path": str(root / "src" / "private.txt")})
    assert secret == {"error": f"Tool execution blocked: {SECRET_REASON}"}, secret

    # The exit tool reaches the hook, which can reject it with the reviewer's words...
    hook.answer({"BeforeTool:exit_plan_mode": {"stdout": {"decision": "deny", "reason": FEEDBACK}}})
    rejected = model.call("exit_plan_mode", {"plan_filename": "greet.md"})
    assert rejected == {"error": f"Tool execution blocked: {FEEDBACK}"}, rejected
    assert hook.seen("BeforeTool", "exit_plan_mode")[0]["payload"]["tool_input"] == {
        "plan_filename": "greet.md"
    }
    # ...but not approve it: without a deny, Gemini CLI's own dialog asks in the terminal.
    hook.answer({})
    model.api.reply(function_call("exit_plan_mode", {"plan_filename": "greet.md"}))
    approved = model.choose("Ready to start implementation")  # Yes, automatically accept edits
    told = approved.result("exit_plan_mode")["output"]
    assert told.startswith("Plan approved. Switching to Auto-Edit mode"), told
    assert str(plan) in told, told
    assert "enter_plan_mode" in approved.tool_names, approved.tool_names
    assert "exit_plan_mode" not in approved.tool_names, approved.tool_names

    model.api.reply(text("Done."))
    model.cli.wait_screen(r"Done\.", 10, visible=True)
    model.cli.type("/exit")
    model.cli.wait_exit(20)
    assert [r["payload"]["reason"] for r in hook.seen("SessionEnd")][:1] == ["exit"]
    assert time.monotonic() - started < 60
