"""Plan mode in the real Gemini CLI (from npm), with the editor's server deciding.

Gemini CLI runs interactively in tmux (``gemini --approval-mode plan``) against a scripted
Gemini API on 127.0.0.1, set up by ``planmode init gemini`` (its hooks in the project's
``.gemini/settings.json``, planmode's rules in the user's policy file, the shell launcher); the
test plays the model and the editor (a pytest-lsp client that started the server). What the
model learns comes back in the tool results Gemini sends the API; what happened on disk is
checked on disk (docs/gemini.md, "The adapter").
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.gemini.agent import Agent, failure_report
from tests.e2e.gemini.fake_api import FakeApi
from tests.e2e.gemini.tui import VERSION, GeminiCli, installed, prepare_home, trust_project_hooks
from tests.e2e.harness import Editor, running_editor
from tests.e2e.planmode_cli import init

# `make gemini-latest` runs npm's newest release instead of the pinned one.
GEMINI_VERSION = os.environ.get("PLANMODE_GEMINI_VERSION") or VERSION

PROMPT = "Plan greeting by name in src/app.py"
ORIGINAL = "print('hello')\n"
PLAN = "# Greet by name\n\n1. Read the name from argv in src/app.py.\n\n## Verification\nRun it.\n"
FEEDBACK = "Add a test for the greeting."
REVISED = PLAN.replace("\n\n## Verification", "\n2. Add a test.\n\n## Verification")
USER_LINE = "3. Mention it in the README.\n"
COMMENT = "> [!review] Which argument: the first, or --name?\n"
COMMENT_TOLD = (
    "The user's comments on the plan, each on the text it quotes:\n"
    "1. under “Greet by name” on line 3: “1. Read the name from argv in src/app.py.”\n"
    "   Which argument: the first, or --name?"
)
NOTE = "> [!review] Keep the test short.\n"
SECCOMP = "grep Seccomp: /proc/self/status"
BLOCKED = "Tool execution blocked: "


def set_up_gemini(root: Path, home: Path) -> None:
    """``planmode init gemini`` over the user's own project settings, as a user runs it."""
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(json.dumps({"ui": {"hideTips": True}}))
    init("gemini", root, {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")})
    written = json.loads((root / ".gemini" / "settings.json").read_text())
    assert written["ui"] == {"hideTips": True}, written
    assert set(written["hooks"]) == {
        "SessionStart",
        "BeforeTool",
        "AfterTool",
        "SessionEnd",
    }, written
    rules = (home / ".gemini" / "policies" / "planmode.toml").read_text()
    assert "planmode_approval" in rules and "planmode-gemini-shell" in rules, rules
    # The first start would warn once about the project's hooks (docs/gemini.md): seen.
    trust_project_hooks(home, root)


def require_gemini() -> None:
    """Skip the test where the Gemini CLI cannot run."""
    why = installed(GEMINI_VERSION)
    if why is not None:
        pytest.skip(f"Gemini CLI {GEMINI_VERSION} cannot run here: {why}")


def set_up(tmp_path: Path) -> tuple[Path, Path]:
    """The workspace (``src/app.py``) with ``planmode init gemini`` done, the private home."""
    root = (tmp_path / "workspace").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(ORIGINAL)
    home = tmp_path / "home"
    prepare_home(home, root)
    set_up_gemini(root, home)
    return root, home


def blocked(response: dict[str, object]) -> str:
    """The reason of a call a hook refused, as the model reads it."""
    error = str(response.get("error", ""))
    assert error.startswith(BLOCKED), response
    return error[len(BLOCKED) :]


async def test_plan_mode_in_real_gemini_cli(tmp_path: Path) -> None:
    require_gemini()
    root, home = set_up(tmp_path)

    api = FakeApi()
    base_url = api.start()
    async with running_editor(root, home) as editor:
        await editor.endpoint()
        cli = GeminiCli(root, home, base_url, GEMINI_VERSION)
        try:
            sandboxed = (await editor.state())["sandbox"]["mechanism"]
            await plan_in_gemini(Agent(api, cli), editor, root, bool(sandboxed), time.monotonic())
        except BaseException:
            print(failure_report(api, cli, tmp_path / "gemini-report"))
            raise
        finally:
            cli.close()
            api.stop()


async def plan_in_gemini(
    agent: Agent, editor: Editor, root: Path, sandboxed: bool, started: float
) -> None:
    app = root / "src" / "app.py"
    first = await agent.prompt(PROMPT)
    # Plan mode's own tools, and the shell through planmode's launcher only.
    assert "exit_plan_mode" in first.tool_names and "run_shell_command" in first.tool_names
    assert agent.plans is not None and agent.plans.is_relative_to(agent.cli.home), agent.plans
    # SessionStart told the server how Gemini started: --approval-mode plan.
    state = await editor.state(agent.session_id)
    assert state["mode"] == "plan", state

    # Reading is allowed; a read-only shell line runs in planmode's sandbox, unasked.
    read = await agent.call("read_file", {"file_path": str(app)})
    assert read == {"output": ORIGINAL}, read
    listed = await agent.call("run_shell_command", {"command": "ls src", "description": "List"})
    assert "app.py" in listed["output"], listed
    status = await agent.call("run_shell_command", {"command": SECCOMP, "description": "Status"})
    shown = status["output"].split("Output:", 1)[1].split()[:2]
    assert shown == ["Seccomp:", "2" if sandboxed else "0"], status

    # A source write never reaches a hook: Gemini's plan mode refuses it itself (the closest
    # it gets to plan mode's reason); nothing changes.
    write = await agent.call("write_file", {"file_path": str(app), "content": "print('hi')\n"})
    assert "must be within the designated plans directory" in write["error"], write
    assert app.read_text() == ORIGINAL
    # A shell line that writes is refused with plan mode's reason.
    remove = await agent.call("run_shell_command", {"command": "rm -rf src"})
    reason = blocked(remove)
    assert reason.startswith("Denied by plan mode (read-only Bash): rm "), reason
    assert app.exists()

    # The model writes its plan where Gemini keeps plans: that file is the session's plan; any
    # other file there is refused with plan mode's reason.
    plan = agent.plans / "greet.md"
    written = await agent.call("write_file", {"file_path": str(plan), "content": PLAN})
    assert "Successfully created" in written["output"], written
    notes = await agent.call("write_file", {"file_path": "notes.md", "content": "x\n"})
    reason = blocked(notes)
    assert reason.startswith("Denied by plan mode (only the plan file may be written)"), reason
    assert f"write only {plan}" in reason and not (agent.plans / "notes.md").exists()

    # exit_plan_mode: held while the plan is reviewed in the editor, on Gemini's plan file.
    agent.send("exit_plan_mode", {"plan_filename": "greet.md"})
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    assert Path(requested["planFilePath"]) == plan and requested["sessionId"] == agent.session_id
    await editor.until(lambda: plan.as_uri() in [d.uri for d in editor.client.shown_documents])
    editor.open(plan)
    # The user comments on the first step, then rejects with feedback: the model reads both,
    # naming Gemini's own exit tool and plan file.
    editor.change(plan, PLAN.replace("src/app.py.\n", "src/app.py.\n" + COMMENT))
    reject = await lens(editor, plan, "Reject… (1 comment)")
    assert reject.command is not None
    arguments = list(reject.command.arguments or [])
    await editor.execute(reject.command.command, [{**arguments[0], "feedback": FEEDBACK}])
    told = blocked((await agent.turn()).result("exit_plan_mode"))
    assert told.startswith("User rejected the plan. Keep planning"), told
    assert f"Revise the plan at {plan} and call exit_plan_mode again" in told, told
    assert FEEDBACK in told and COMMENT_TOLD in told, told
    assert (await editor.state(agent.session_id))["mode"] == "plan"

    # The model revises and asks again; Esc in the terminal cancels Gemini's turn: the review
    # is withdrawn from the editor, and the user can prompt again.
    revised = await agent.call("write_file", {"file_path": str(plan), "content": REVISED})
    assert "Successfully overwrote" in revised["output"], revised
    agent.send("exit_plan_mode", {"plan_filename": "greet.md"})
    await editor.wait_for("planMode/approvalRequested", count=2, timeout=30)
    await asyncio.to_thread(agent.cli.wait_screen, "Executing Hook: planmode", 10, True)
    agent.cli.keys("Escape")
    withdrawn = await editor.wait_for("planMode/approvalResolved", count=2, timeout=10)
    assert withdrawn["outcome"] == "cancelled", withdrawn
    assert (await editor.state(agent.session_id))["pendingApproval"] is None
    again = await agent.prompt("Ask me again.")
    assert again.since_model().endswith("Ask me again."), again.since_model()

    # The user edits the plan in place and approves with auto-accept edits in the editor —
    # and is not asked again in the terminal.
    agent.send("exit_plan_mode", {"plan_filename": "greet.md"})
    await editor.wait_for("planMode/approvalRequested", count=3, timeout=30)
    editor.change(plan, plan.read_text())  # the editor shows what is on disk
    edited = REVISED + USER_LINE
    editor.change(plan, edited.replace("2. Add a test.\n", "2. Add a test.\n" + NOTE))
    await editor.run_lens(await lens(editor, plan, "auto-accept"))
    approved = await agent.turn()
    result = approved.result("exit_plan_mode")["output"]
    assert result.startswith("Plan approved. Switching to Default mode"), result
    assert "<hook_context>User has approved your plan." in result, result
    assert USER_LINE.strip() in result and "2. Add a test." in result, result
    assert "   Keep the test short." in result and "[!review]" not in result, result
    assert plan.read_text().startswith(edited)
    assert "enter_plan_mode" in approved.tool_names, approved.tool_names

    # Gemini resumes in Default mode (the only mode an approval without its dialog gives);
    # the editor's auto-accept edits holds all the same: the edit runs unasked.
    state = await editor.state(agent.session_id)
    assert state["mode"] == "acceptEdits", state
    implemented = await agent.call(
        "write_file", {"file_path": str(app), "content": "print('hi')\n"}
    )
    assert "Successfully overwrote" in implemented["output"], implemented
    assert app.read_text() == "print('hi')\n"

    # /exit ends the session on the server too.
    agent.say("Done.")
    await asyncio.to_thread(agent.cli.wait_screen, r"Done\.", 10, True)
    agent.cli.type("/exit")
    await asyncio.to_thread(agent.cli.wait_exit, 30)
    assert time.monotonic() - started < 60


async def lens(editor: Editor, plan: Path, title: str) -> types.CodeLens:
    """The lens on the plan whose title contains ``title`` (waits for the review to show)."""

    async def find() -> types.CodeLens:
        while True:
            refreshes = editor.lens_refreshes
            for found in await editor.lenses(plan):
                if found.command and title in found.command.title:
                    return found
            await editor.until(lambda: editor.lens_refreshes > refreshes, 10)  # noqa: B023

    return await asyncio.wait_for(find(), 10)
