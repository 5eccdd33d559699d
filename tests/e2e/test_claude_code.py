"""Plan mode in the real Claude Code CLI (from npm), with the editor's server deciding.

Claude Code runs interactively in tmux (``-p`` offers no plan-mode tools) against a scripted
Anthropic Messages API on 127.0.0.1; the test plays the model and the editor (a pytest-lsp
client that started the server). What the model learns comes back in the tool results Claude
Code sends the API; what happened on disk is checked on disk.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.e2e.claude_code.agent import Agent, failure_report
from tests.e2e.claude_code.fake_api import FakeApi, tool_use
from tests.e2e.claude_code.project import (
    CASES,
    ORIGINAL,
    PLAN,
    denied,
    require_claude_code,
    set_up_project,
)
from tests.e2e.claude_code.tui import ClaudeCode
from tests.e2e.harness import Editor, running_editor
from tests.e2e.review import lens

PROMPT = "Plan greeting by name in src/app.py"
FEEDBACK = "Add a test for the greeting."
REVISED = PLAN.replace("\n\n## Verification", "\n2. Add a test.\n\n## Verification")
USER_LINE = "3. Mention it in the README.\n"
PROBE = "python3 -c \"open('notes.txt', 'w').write('x')\""
SECCOMP = "grep Seccomp: /proc/self/status"
FAREWELL = "# Farewell\n\n1. Say goodbye in src/app.py.\n\n## Verification\nRun it.\n"
# Review comments the user writes into the plan (README "Reviewing with comments").
COMMENT = "> [!review] Which argument: the first, or --name?\n"
COMMENT_TOLD = (
    "The user's comments on the plan, each on the text it quotes:\n"
    "1. under “Greet by name” on line 3: “1. Read the name from argv in src/app.py.”\n"
    "   Which argument: the first, or --name?"
)
NOTE = "> [!review] Keep the test short.\n"


@pytest.mark.parametrize(("version", "plans_directory"), CASES)
async def test_plan_mode_in_real_claude_code(
    version: str, plans_directory: str | None, tmp_path: Path
) -> None:
    require_claude_code(version)
    root, home = set_up_project(tmp_path, plans_directory)

    api = FakeApi()
    base_url = api.start()
    async with running_editor(root, home) as editor:
        await editor.endpoint()
        claude = ClaudeCode(version, root, home, base_url, tmp_path)
        try:
            plans = root / plans_directory if plans_directory else home / ".claude" / "plans"
            # Every version runs planning Bash through planmode's shell prefix, in the OS
            # sandbox (docs/claude-code.md, "Sandboxing planning Bash").
            sandboxed = (await editor.state())["sandbox"]["mechanism"]
            await plan_in_claude_code(Agent(api, claude), editor, root, plans, bool(sandboxed))
        except BaseException:
            print(failure_report(api, claude, tmp_path / "claude-code-report"))
            raise
        finally:
            claude.close()
            api.stop()


async def plan_in_claude_code(
    agent: Agent, editor: Editor, root: Path, plans: Path, sandboxed: bool
) -> None:
    app = root / "src" / "app.py"
    await agent.prompt(PROMPT)
    assert agent.plan_path is not None, "Claude Code named no plan file"
    assert agent.plan_path.parent == plans, agent.plan_path

    # Reading is allowed, and so is a read-only shell command.
    read = await agent.call("Read", {"file_path": str(app)})
    assert "print('hello')" in read.result_text()
    listed = await agent.call("Bash", {"command": "ls src", "description": "List src"})
    assert "app.py" in listed.result_text()
    # Both sandboxes put the command under a seccomp filter: it shows in its /proc status.
    status = await agent.call("Bash", {"command": SECCOMP, "description": "Status"})
    assert status.result_text().split() == ["Seccomp:", "2" if sandboxed else "0"]
    # A `cd` still carries over to the next command, as Claude Code keeps its shell's
    # directory (read back from the sandbox); a write inside is refused by the sandbox itself.
    moved = await agent.call("Bash", {"command": "cd src && ls", "description": "Into src"})
    assert "app.py" in moved.result_text(), moved.result_text()
    where = await agent.call("Bash", {"command": "pwd", "description": "Where"})
    assert where.result_text().strip() == str(root / "src"), where.result_text()
    await agent.call("Bash", {"command": f"cd {root}", "description": "Back"})

    # Writing anything but the plan is denied, with the rule that denied it.
    write = await agent.call("Write", {"file_path": str(app), "content": "print('hi')\n"})
    reason = denied(write)
    assert "Denied by plan mode" in reason, reason
    assert app.read_text() == ORIGINAL
    remove = await agent.call("Bash", {"command": "rm -rf src", "description": "Remove src"})
    reason = denied(remove)
    assert "Denied by plan mode" in reason and "rm" in reason, reason
    assert app.exists()

    # Claude Code writes its own plan file, where its reminder said, without asking.
    plan = agent.plan_path
    written = await agent.call("Write", {"file_path": str(plan), "content": PLAN})
    assert "File created successfully" in written.result_text(), written.result_text()
    assert plan.read_text() == PLAN

    # ExitPlanMode: the plan is reviewed in the editor, on Claude Code's plan file.
    await agent.load("ExitPlanMode")
    agent.exit_plan_mode()
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    assert Path(requested["planFilePath"]) == plan
    assert requested["sessionId"] == agent.claude.session_id
    await editor.until(lambda: plan.as_uri() in [d.uri for d in editor.client.shown_documents])
    editor.open(plan)
    # The user comments on the first step in the editor, then rejects with feedback: the model
    # reads both, the comment with what it quotes.
    editor.change(plan, PLAN.replace("src/app.py.\n", "src/app.py.\n" + COMMENT))
    reject = await lens(editor, plan, "Reject… (1 comment)")
    assert reject.command is not None
    arguments = list(reject.command.arguments or [])
    await editor.execute(reject.command.command, [{**arguments[0], "feedback": FEEDBACK}])
    rejected = await agent.turn()
    told = denied(rejected)
    assert FEEDBACK in told and COMMENT_TOLD in told, told
    state = await editor.state(agent.claude.session_id)
    assert state["mode"] == "plan", state

    # The model revises the plan and asks again; the user edits it in place and approves with
    # auto-accept edits.
    revised = await agent.call("Write", {"file_path": str(plan), "content": REVISED})
    assert "updated successfully" in revised.result_text(), revised.result_text()
    agent.exit_plan_mode(allowed_prompts=[{"tool": "Bash", "prompt": "run tests"}])
    await editor.wait_for("planMode/approvalRequested", count=2, timeout=30)
    editor.change(plan, plan.read_text())  # the editor shows what is on disk
    edited = REVISED + USER_LINE
    editor.change(plan, edited.replace("2. Add a test.\n", "2. Add a test.\n" + NOTE))
    approve = await lens(editor, plan, "auto-accept")
    await editor.run_lens(approve)
    approved = await agent.turn()
    result = approved.result_text()
    assert "User has approved your plan" in result, result
    assert USER_LINE.strip() in result and "2. Add a test." in result, result
    # The note reaches the model at the end of the approved plan (the only text of an approval
    # it reads), and Claude Code keeps that text in its plan file; the comment line does not.
    notes = "## The user's notes with the approval:"
    assert result.index(USER_LINE.strip()) < result.index(notes), result
    assert "   Keep the test short." in result and "[!review]" not in result, result
    assert plan.read_text().startswith(edited) and notes in plan.read_text()

    # Claude Code now runs in the mode chosen in the editor: the write goes through unasked,
    # and Bash runs as it would without planmode (no sandbox).
    state = await editor.state(agent.claude.session_id)
    assert state["mode"] == "acceptEdits", state
    assert state["grantedPrompts"], state
    await asyncio.to_thread(agent.claude.wait_status, r"accept edits on")
    outside = await agent.call("Bash", {"command": SECCOMP, "description": "Status"})
    assert outside.result_text().split() == ["Seccomp:", "0"], outside.result_text()
    implemented = await agent.call("Write", {"file_path": str(app), "content": "print('hi')\n"})
    assert "updated successfully" in implemented.result_text(), implemented.result_text()
    assert app.read_text() == "print('hi')\n"

    # Outside plan mode the hook has no opinion on a command: Claude Code asks as it would
    # without it, and the user's "no" is what the model hears.
    agent.api.reply(tool_use("Bash", {"command": PROBE, "description": "Make notes"}))
    await asyncio.to_thread(agent.claude.wait_screen, r"Do you want to proceed\?", 20)
    agent.claude.keys("Escape")
    await asyncio.to_thread(agent.claude.wait_screen, lambda shown: "to proceed?" not in shown, 10)
    agent.claude.type("Skip the notes")
    declined = await agent.turn()
    assert "doesn't want to proceed" in denied(declined), declined.result_text()
    assert not (root / "notes.txt").exists()

    # The user switches back to plan mode (shift+tab) for a follow-up: the same plan file again,
    # approved unedited this time — the model is told so — and the mode from before comes back.
    agent.say("Done.")
    await asyncio.to_thread(agent.claude.wait_screen, r"Done\.", 10)
    await asyncio.to_thread(agent.claude.cycle_mode, "plan mode on")
    follow_up = await agent.prompt("Also plan a farewell")
    assert agent.plan_path == plan, follow_up.all_text()[-2000:]
    await agent.call("Read", {"file_path": str(plan)})
    again = await agent.call("Write", {"file_path": str(plan), "content": FAREWELL})
    assert "updated successfully" in again.result_text(), again.result_text()
    await agent.load("ExitPlanMode")
    agent.exit_plan_mode(allowed_prompts=[{"tool": "Bash", "prompt": "run tests"}])
    await editor.wait_for("planMode/approvalRequested", count=3, timeout=30)
    editor.change(plan, plan.read_text())
    await editor.run_lens(await lens(editor, plan, "Approve plan"))
    unedited = (await agent.turn()).result_text()
    assert f"## Approved Plan:\n{FAREWELL}" in unedited, unedited
    assert "edited by user" not in unedited, unedited
    state = await editor.state(agent.claude.session_id)
    assert state["mode"] == "acceptEdits" and state["grantedPrompts"], state
    await asyncio.to_thread(agent.claude.wait_status, r"accept edits on")

    # /exit ends the session: SessionEnd revokes what the approved plan granted.
    agent.say("Planned.")
    await asyncio.to_thread(agent.claude.wait_screen, r"Planned\.", 10)
    agent.claude.type("/exit")
    await asyncio.to_thread(agent.claude.wait_exit, 30)
    ended = await editor.state_until(
        lambda s: not s["grantedPrompts"], session_id=agent.claude.session_id, timeout=10
    )
    assert ended["grantedPrompts"] == []
