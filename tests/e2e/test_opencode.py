"""Plan mode in the real OpenCode CLI (npm's opencode-ai), with the editor's server deciding.

OpenCode runs interactively in tmux, in its plan agent (``OPENCODE_EXPERIMENTAL_PLAN_MODE=1``),
against a scripted OpenAI-compatible API on 127.0.0.1, with what ``planmode init opencode``
wrote: planmode's plugin and shell in the user's data directory, named in the project's
``opencode.json``. The test plays the model and the editor (a pytest-lsp client that started
the server). What the model learns comes back in the tool results OpenCode sends the API; what
happened on disk is checked on disk (docs/opencode.md, "planmode's adapter").
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.harness import Editor, running_editor
from tests.e2e.opencode.agent import Agent, failure_report
from tests.e2e.opencode.fake_api import FakeApi
from tests.e2e.opencode.tui import OpenCode, installed, prepare_home
from tests.e2e.planmode_cli import init

HERE = Path(__file__).parent / "opencode"
VERSION = (
    os.environ.get("PLANMODE_OPENCODE_VERSION") or (HERE / "versions.txt").read_text().split()[0]
)

PROMPT = "Plan greeting by name in src/app.py"
ORIGINAL = "print('hello')\n"
PLAN = "# Greet by name\n\n1. Read the name from argv in src/app.py.\n\n## Verification\nRun it.\n"
FEEDBACK = "Add a test for the greeting."
REVISED = PLAN.replace("\n\n## Verification", "\n2. Add a test.\n\n## Verification")
USER_LINE = "3. Mention it in the README.\n"
SECCOMP = "grep Seccomp: /proc/self/status"
COMMENT = "> [!review] Which argument: the first, or --name?\n"
COMMENT_TOLD = (
    "The user's comments on the plan, each on the text it quotes:\n"
    "1. under “Greet by name” on line 3: “1. Read the name from argv in src/app.py.”\n"
    "   Which argument: the first, or --name?"
)
NOTE = "> [!review] Keep the test short.\n"
# OpenCode's own message after an approved plan_exit (docs/opencode.md).
SWITCHED = "has been approved, you can now edit files. Execute the plan"


def workspace(tmp_path: Path) -> Path:
    root = (tmp_path / "workspace").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(ORIGINAL)
    # A git project: OpenCode keeps the plan under <worktree>/.opencode/plans (elsewhere in
    # its data directory), and .opencode is one of its config directories.
    git = ["git", "-c", "user.name=planmode", "-c", "user.email=planmode@example.invalid"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    return root


def set_up_opencode(root: Path, home: Path) -> Path:
    """``planmode init opencode`` over the user's own project config; the plugin's file."""
    users = {"instructions": ["README.md"], "permission": {"bash": {"grep *": "ask"}}}
    (root / "opencode.json").write_text(json.dumps(users))
    init("opencode", root, {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")})
    written = json.loads((root / "opencode.json").read_text())
    assert written["instructions"] == ["README.md"], written
    (plugin,) = written["plugin"]
    path = Path(plugin.removeprefix("file://"))
    assert path.is_relative_to(home) and path.is_file(), written
    assert Path(written["shell"]).is_relative_to(home), written
    # Nothing in a config directory of OpenCode's: no .opencode/ for it to install npm into.
    assert not (root / ".opencode").exists()
    return path


def require_opencode() -> None:
    """Skip the test where OpenCode (or tmux, git) cannot run."""
    why = installed(VERSION)
    if why is not None:
        pytest.skip(f"OpenCode {VERSION} cannot run here: {why}")
    if shutil.which("tmux") is None or shutil.which("git") is None:
        pytest.skip("the OpenCode test needs tmux and git")


def set_up(tmp_path: Path) -> tuple[Path, Path, FakeApi, dict[str, str]]:
    """The git workspace with ``planmode init opencode`` done, the private home, the fake API
    serving, and the environment OpenCode runs in (npm pointed at the API's empty registry)."""
    root = workspace(tmp_path)
    home = tmp_path / "home"
    api = FakeApi()
    prepare_home(home, VERSION, api.start())
    set_up_opencode(root, home)
    env = {"npm_config_registry": api.registry}
    if os.environ.get("XDG_RUNTIME_DIR"):
        env["XDG_RUNTIME_DIR"] = os.environ["XDG_RUNTIME_DIR"]
    return root, home, api, env


def reason_of(result: str) -> str:
    assert result.startswith("Denied by plan mode"), result
    return result


async def test_plan_mode_in_real_opencode(tmp_path: Path) -> None:
    require_opencode()
    started = time.monotonic()
    root, home, api, env = set_up(tmp_path)
    async with running_editor(root, home) as editor:
        await editor.endpoint()
        sandboxed = (await editor.state())["sandbox"]["mechanism"]
        opencode = OpenCode(VERSION, root, home, extra_env=env, args=["--agent", "plan"])
        try:
            await plan_in_opencode(Agent(api, opencode), editor, root, bool(sandboxed))
            assert api.registry_requests() == []
        except BaseException:
            print(failure_report(api, opencode, tmp_path / "opencode-report"))
            raise
        finally:
            opencode.close()
            api.stop()
    assert time.monotonic() - started < 60


async def plan_in_opencode(agent: Agent, editor: Editor, root: Path, sandboxed: bool) -> None:
    opencode = agent.opencode
    app = root / "src" / "app.py"
    await asyncio.to_thread(opencode.ready, 30)
    assert opencode.agent() == "Plan", opencode.screen()
    first = await agent.prompt(PROMPT)
    assert "plan_exit" in first.tool_names, first.tool_names
    plan = agent.plan_path
    assert plan is not None and plan.parent == root / ".opencode" / "plans", plan

    # Reading is allowed, and so is a read-only shell command.
    assert "print('hello')" in await agent.call("read", {"filePath": str(app)})
    assert "app.py" in await agent.call("bash", {"command": "ls src", "description": "List src"})
    # The user's own rule asks about grep: OpenCode asks about the model's command (planmode's
    # shell keeps it), and once the user allows it, it runs in the sandbox.
    status_call = agent.start("bash", {"command": SECCOMP, "description": "Status"})
    asked = await asyncio.to_thread(opencode.wait_screen, r"Permission required", 20)
    assert f"$ {SECCOMP}" in asked and "bwrap" not in asked, asked
    opencode.keys("Enter")  # Allow once
    status = await agent.result(status_call)
    assert status.split() == ["Seccomp:", "2" if sandboxed else "0"], status

    # Writing anything but the plan is refused with plan mode's reason; so is rm -rf.
    write = await agent.call("write", {"filePath": str(app), "content": "print('hi')\n"})
    assert "only the plan file may be written" in reason_of(write), write
    assert app.read_text() == ORIGINAL
    remove = await agent.call("bash", {"command": "rm -rf src", "description": "Remove src"})
    assert "rm" in reason_of(remove), remove
    assert app.exists()

    # OpenCode's own plan file, where its reminder said.
    written = await agent.call("write", {"filePath": str(plan), "content": PLAN})
    assert "Wrote file successfully" in written, written

    # plan_exit: the plan is reviewed in the editor, on OpenCode's plan file.
    exit_call = agent.start("plan_exit", {})
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    assert Path(requested["planFilePath"]) == plan, requested
    session_id = requested["sessionId"]
    assert session_id.startswith("ses_"), requested
    await editor.until(lambda: plan.as_uri() in [d.uri for d in editor.client.shown_documents])
    editor.open(plan)
    # The user comments in the editor and rejects with feedback: the model reads both, and is
    # told to call plan_exit again on its own plan file.
    editor.change(plan, PLAN.replace("src/app.py.\n", "src/app.py.\n" + COMMENT))
    reject = await lens(editor, plan, "Reject… (1 comment)")
    assert reject.command is not None
    arguments = list(reject.command.arguments or [])
    await editor.execute(reject.command.command, [{**arguments[0], "feedback": FEEDBACK}])
    told = await agent.result(exit_call)
    assert FEEDBACK in told and COMMENT_TOLD in told, told
    assert f"Revise the plan at {plan} and call plan_exit again" in told, told
    assert "ExitPlanMode" not in told, told
    assert (await editor.state(session_id))["mode"] == "plan"
    assert opencode.agent() == "Plan", opencode.screen()

    # The model revises and asks again; the user edits the plan in place and approves with
    # auto-accept edits: OpenCode's own question is answered, the model reads the approved
    # text, and OpenCode switches to its build agent with auto-approve on.
    revised = await agent.call("write", {"filePath": str(plan), "content": REVISED})
    assert "Wrote file successfully" in revised, revised
    exit_call = agent.start("plan_exit", {})
    await editor.wait_for("planMode/approvalRequested", count=2, timeout=30)
    editor.change(plan, plan.read_text())  # the editor shows what is on disk
    edited = REVISED + USER_LINE
    editor.change(plan, edited.replace("2. Add a test.\n", "2. Add a test.\n" + NOTE))
    await editor.run_lens(await lens(editor, plan, "auto-accept"))
    approved = await agent.turn()
    result = approved.result_for(exit_call["id"])
    assert result is not None, approved.messages[-3:]
    assert result.startswith("User has approved your plan"), result
    assert "## Approved Plan (edited by user):" in result and USER_LINE.strip() in result, result
    assert "   Keep the test short." in result and "[!review]" not in result, result
    assert SWITCHED in approved.all_text(), approved.all_text()[-2000:]
    assert "plan_exit" not in approved.tool_names, approved.tool_names
    assert plan.read_text() == edited
    state = await editor.state(session_id)
    assert state["mode"] == "acceptEdits", state
    await asyncio.to_thread(opencode.wait_screen, r"Build auto", 10)

    # The agent implements: the write goes through unasked, and bash runs as it would without
    # planmode (no sandbox; the user's rule for grep answered by the terminal's auto-approve).
    done = await agent.call("write", {"filePath": str(app), "content": "print('hi')\n"})
    assert "Wrote file successfully" in done, done
    assert app.read_text() == "print('hi')\n"
    outside = await agent.call("bash", {"command": SECCOMP, "description": "Status"})
    assert outside.split() == ["Seccomp:", "0"], outside
    agent.say("Done.")
    await asyncio.to_thread(opencode.wait_screen, r"Done\.", 10)
    await asyncio.to_thread(opencode.exit)


async def lens(editor: Editor, plan: Path, title: str) -> types.CodeLens:
    """The lens on the plan whose title contains ``title`` (waits for the review to show)."""

    async def find() -> types.CodeLens:
        while True:
            refreshes = editor.lens_refreshes
            for found in await editor.lenses(plan):
                if found.command and title in found.command.title:
                    return found
            await editor.until(lambda: editor.lens_refreshes > refreshes, 10)  # noqa: B023 (awaited here)

    return await asyncio.wait_for(find(), 10)


async def test_an_interrupted_plan_exit_is_withdrawn_and_tab_leaves_plan_mode(
    tmp_path: Path,
) -> None:
    """Esc Esc while the editor reviews the plan: the plugin withdraws the approval (the editor's
    lenses go) and the model reads OpenCode's own '[Tool execution was interrupted]'; Tab to the
    build agent leaves plan mode at the next request."""
    require_opencode()
    started = time.monotonic()
    root, home, api, env = set_up(tmp_path)
    async with running_editor(root, home) as editor:
        await editor.endpoint()
        opencode = OpenCode(VERSION, root, home, extra_env=env, args=["--agent", "plan"])
        agent = Agent(api, opencode)
        try:
            await asyncio.to_thread(opencode.ready, 30)
            await agent.prompt(PROMPT)
            assert agent.plan_path is not None
            await agent.call("write", {"filePath": str(agent.plan_path), "content": PLAN})
            exit_call = agent.start("plan_exit", {})
            requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
            session_id = requested["sessionId"]
            opencode.keys("Escape")  # OpenCode interrupts at the second
            await asyncio.to_thread(opencode.wait_screen, r"esc again to interrupt", 10)
            opencode.keys("Escape")
            resolved = await editor.wait_for("planMode/approvalResolved", timeout=20)
            assert resolved["outcome"] == "cancelled", resolved
            state = await editor.state(session_id)
            assert state["mode"] == "plan" and state["pendingApproval"] is None, state
            # The user switches to the build agent and asks on: plan mode is left.
            await asyncio.to_thread(opencode.switch_agent, "Build")
            request = await agent.prompt("Go ahead")
            told = request.result_for(exit_call["id"])
            assert told == "[Tool execution was interrupted]", told
            assert "plan_exit" not in request.tool_names, request.tool_names
            agent.say("Done.")
            await asyncio.to_thread(opencode.wait_screen, r"Done\.", 10)
            assert (await editor.state(session_id))["mode"] != "plan"
        except BaseException:
            print(failure_report(api, opencode, tmp_path / "opencode-report"))
            raise
        finally:
            opencode.close()
            api.stop()
    assert time.monotonic() - started < 60
