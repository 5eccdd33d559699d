"""The CLI and the Claude Code hook, end to end through a running server's agent endpoint."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from planmode import runtime
from tests.e2e.harness import Editor
from tests.e2e.planmode_cli import in_thread, payload, run

PAYLOADS = Path(__file__).parent / "hook_payloads"


def hook(stdin: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return run(["hook"], stdin, env=env)


async def test_pre_tool_use_decisions(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    denied = await in_thread(run, ["hook"], payload("pre_tool_use_bash_rm.json", root))
    assert denied.returncode == 0, denied.stderr
    output = json.loads(denied.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] == "deny"
    assert "rm" in output["permissionDecisionReason"]
    # permission_mode "plan" put the hook's session into plan mode on the server.
    state = await editor.state("abc123-recorded")
    assert state["mode"] == "plan"

    plan = state["planFilePath"]
    allowed = await in_thread(run, ["hook"], payload("pre_tool_use_write_plan.json", root, plan))
    assert json.loads(allowed.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
    source = await in_thread(run, ["hook"], payload("pre_tool_use_write_source.json", root))
    decision = json.loads(source.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert decision["permissionDecisionReason"].startswith("Denied by plan mode")


async def test_permission_request_waits_for_the_editor(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    event = payload("permission_request_exit_plan_mode.json", root)
    waiting = asyncio.ensure_future(in_thread(run, ["hook"], event))
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    assert not waiting.done()
    plan_path = Path(requested["planFilePath"])
    editor.open(plan_path)
    edited = plan_path.read_text() + "2. And a test.\n"
    editor.change(plan_path, edited)
    lenses = await editor.lenses(plan_path)
    auto_accept = next(
        lens for lens in lenses if lens.command and "auto-accept" in lens.command.title
    )
    await editor.run_lens(auto_accept)
    done = await asyncio.wait_for(waiting, 30)
    decision = json.loads(done.stdout)["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "allow"
    assert decision["updatedInput"]["plan"] == edited
    assert decision["updatedPermissions"] == [
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
    ]


async def test_permission_request_rejected_with_feedback(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    event = payload("permission_request_exit_plan_mode.json", root)
    waiting = asyncio.ensure_future(in_thread(run, ["hook"], event))
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    await editor.request(
        "planMode/reject", {"approvalId": requested["approvalId"], "feedback": "Add a test step."}
    )
    done = await asyncio.wait_for(waiting, 30)
    decision = json.loads(done.stdout)["hookSpecificOutput"]["decision"]
    assert decision == {"behavior": "deny", "message": "Add a test step."}
    assert (await editor.state("abc123-recorded"))["mode"] == "plan"


async def test_other_permission_requests_are_left_to_claude_code(
    editor: Editor, root: Path
) -> None:
    await editor.endpoint()
    other = await in_thread(run, ["hook"], payload("permission_request_bash.json", root))
    assert other.returncode == 0
    assert other.stdout == ""


async def test_without_a_server_the_hook_falls_back_to_the_terminal(root: Path) -> None:
    started = asyncio.get_running_loop().time()
    for name in ("pre_tool_use_bash_rm.json", "permission_request_exit_plan_mode.json"):
        result = await in_thread(run, ["hook"], payload(name, root))
        assert result.returncode == 0
        assert result.stdout == ""  # Claude Code asks in the terminal as usual
    assert asyncio.get_running_loop().time() - started < 30
    cli = await in_thread(run, ["state", "--root", str(root)])
    assert cli.returncode == 1
    assert "no plan-mode server is running" in cli.stderr


async def test_cli_verbs(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    entered = await in_thread(run, ["enter", "--json"], "", root)
    assert entered.returncode == 0, entered.stderr
    assert json.loads(entered.stdout)["state"]["mode"] == "plan"
    state = await in_thread(run, ["state"], "", root / "src")  # found from a subdirectory
    assert state.stdout.startswith("mode: plan")

    assert (await in_thread(run, ["check", "Bash", '{"command": "ls"}'], "", root)).returncode == 0
    denied = await in_thread(run, ["check", "Bash", '{"command": "rm x"}'], "", root)
    assert denied.returncode == 2
    assert denied.stdout.startswith("deny: Denied by plan mode")
    asks = await in_thread(run, ["check", "ExitPlanMode", "{}"], "", root)
    assert asks.returncode == 3

    submitted = await in_thread(run, ["exit", "--plan", "# CLI plan\n"], "", root)
    assert submitted.returncode == 0, submitted.stderr
    assert "submitted for approval" in submitted.stdout
    listed = await in_thread(run, ["plans", "--json"], "", root)
    assert any(p["pending"] for p in json.loads(listed.stdout)["plans"])
    approved = await in_thread(run, ["approve", "--mode", "acceptEdits"], "", root)
    assert approved.returncode == 0, approved.stderr
    assert (await editor.state())["mode"] == "acceptEdits"
    nothing = await in_thread(run, ["approve"], "", root)
    assert nothing.returncode == 1
    assert "No pending approval" in nothing.stderr


async def test_cli_bad_input_is_named_and_changes_nothing(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    await in_thread(run, ["enter"], "", root)
    (root / "latin1.md").write_bytes(b"# Plan \xe9\n")
    (root / "adir").mkdir()
    # Before: Python's bare exception text ("'utf-8' codec can't decode byte 0xe9 …",
    # "Expecting value: line 1 column 1 (char 0)"), naming neither the file nor the argument.
    for argv, message in [
        (["exit", "--plan", "@latin1.md"], "planmode: the plan latin1.md is not UTF-8 text ("),
        (["exit", "--plan", "@adir"], "planmode: cannot read the plan adir: Is a directory"),
        (["exit", "--plan", "@gone.md"], "planmode: cannot read the plan gone.md: No such file"),
        (["check", "Bash", "ls"], "planmode: the tool input is not JSON (Expecting value"),
    ]:
        failed = await in_thread(run, argv, "", root)
        assert failed.returncode == 1, argv
        assert failed.stderr.startswith(message), failed.stderr
        assert failed.stdout == ""
    state = await editor.state()
    assert state["mode"] == "plan" and state["pendingApproval"] is None


def run_into_a_closed_pipe(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """As ``planmode … | head -0``: stdout's reader is gone before the answer is printed."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "planmode", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            cwd=cwd,
        )
    finally:
        os.close(write_end)


async def test_a_reader_that_left_early_gets_no_error_text(editor: Editor, root: Path) -> None:
    await editor.endpoint()
    # Before: "planmode: [Errno 32] Broken pipe" on stderr, as if the command had failed.
    for args in (["state"], ["check", "Bash", '{"command": "ls"}'], ["plans", "--json"]):
        cut = await in_thread(run_into_a_closed_pipe, args, root)
        assert cut.stderr == "", args
        assert cut.returncode == 1  # not 0: nobody read what was decided
    # And the decision is not lost for a caller that reads it.
    assert (await in_thread(run, ["check", "Bash", '{"command": "ls"}'], "", root)).returncode == 0


async def test_session_end_revokes_what_the_plan_granted(editor: Editor, root: Path) -> None:
    """Grants are scoped to the conversation (Claude Code #27160): SessionEnd ends them."""
    await editor.endpoint()
    session = "abc123-recorded"
    await editor.request("planMode/enter", {"sessionId": session})
    waiting = editor.start(
        "planMode/exit",
        {
            "sessionId": session,
            "plan": "# Plan\n",
            "allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}],
        },
    )
    requested = await editor.wait_for("planMode/approvalRequested")
    # Granted as the lenses grant: the approval names the prompts it was shown.
    granted = {"approvalId": requested["approvalId"], "allowedPrompts": requested["allowedPrompts"]}
    await editor.request("planMode/approve", granted)
    await asyncio.wait_for(waiting, 10)
    check = {"sessionId": session, "tool": "Bash", "input": {"command": "pytest -q"}}
    assert (await editor.request("planMode/checkTool", check))["behavior"] == "allow"

    ended = await in_thread(run, ["hook"], payload("session_end.json", root))
    assert ended.returncode == 0, ended.stderr
    assert ended.stdout == ""
    assert (await editor.state(session))["grantedPrompts"] == []
    assert (await editor.request("planMode/checkTool", check))["behavior"] == "ask"


async def test_outside_plan_mode_the_hook_stays_out_of_the_way(editor: Editor, root: Path) -> None:
    """No plan-mode opinion, no output: Claude Code's own prompts stay in charge."""
    await editor.endpoint()
    calls = [
        payload("pre_tool_use_read.json", root),
        payload("pre_tool_use_bash_rm.json", root, permission_mode="default"),
        payload(
            "pre_tool_use_bash_rm.json",
            root,
            permission_mode="default",
            tool_input={"command": "ls"},
        ),
        payload("pre_tool_use_write_source.json", root, permission_mode="acceptEdits"),
        payload("pre_tool_use_bash_rm.json", root, permission_mode="bypassPermissions"),
    ]
    for call in calls:
        result = await in_thread(hook, call)
        assert result.returncode == 0, result.stderr
        assert result.stdout == "", call
    # The session still followed Claude Code's mode.
    assert (await editor.state("abc123-recorded"))["mode"] == "bypassPermissions"


async def test_in_plan_mode_reading_tools_are_left_to_claude_code(
    editor: Editor, root: Path
) -> None:
    await editor.endpoint()
    for tool, tool_input in [("Read", {"file_path": "src/app.py"}), ("TaskList", {})]:
        event = payload("pre_tool_use_read.json", root, permission_mode="plan")
        result = await in_thread(
            hook, json.dumps({**json.loads(event), "tool_name": tool, "tool_input": tool_input})
        )
        assert result.stdout == "", tool
    mcp = await in_thread(
        hook,
        payload(
            "pre_tool_use_read.json",
            root,
            permission_mode="plan",
            tool_name="mcp__github__create_issue",
            tool_input={"title": "x"},
        ),
    )
    output = json.loads(mcp.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "mcp__github__create_issue is an MCP tool" in output["permissionDecisionReason"]


async def test_a_failing_server_denies_while_planning(editor: Editor, root: Path) -> None:
    """Fail closed: plan mode that cannot be checked is not skipped."""
    await editor.endpoint()
    broken = payload(
        "pre_tool_use_read.json",
        root,
        permission_mode="plan",
        transcript_path="relative/not-a-transcript.jsonl",
    )
    result = await in_thread(hook, broken)
    assert result.returncode == 0
    output = json.loads(result.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert output["permissionDecisionReason"].startswith(
        "Denied by plan mode (the plan-mode server failed)"
    )
    assert "transcriptPath" in output["permissionDecisionReason"]
    # The same failure outside plan mode leaves the call to Claude Code.
    quiet = await in_thread(
        hook, payload("pre_tool_use_read.json", root, transcript_path="relative/x.jsonl")
    )
    assert quiet.stdout == ""


async def test_a_server_that_does_not_answer_denies_while_planning(
    root: Path, tmp_path: Path
) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    address = str(tmp_path / "silent.sock")
    listener.bind(address)
    listener.listen(1)
    # The record a server that hangs leaves in the runtime directory (planmode.runtime).
    runtime.ensure_directory()
    record = Path(runtime.record_path(str(root)))
    info = {"version": 1, "state": "running", "socket": address, "pid": os.getpid()}
    record.write_text(json.dumps(info))
    try:
        event = payload("pre_tool_use_write_source.json", root)
        result = await in_thread(hook, event, {"PLANMODE_HOOK_TIMEOUT": "0.5"})
        output = json.loads(result.stdout)["hookSpecificOutput"]
        assert output["permissionDecision"] == "deny"
        assert "did not answer planMode/checkTool" in output["permissionDecisionReason"]
        # An exit waits for the user as long as it takes, but not for a server that does not
        # answer a ping.
        exit_event = payload("permission_request_exit_plan_mode.json", root)
        silent = await in_thread(hook, exit_event, {"PLANMODE_HOOK_KEEPALIVE": "0.3"})
        decision = json.loads(silent.stdout)["hookSpecificOutput"]["decision"]
        assert decision["behavior"] == "deny"
        assert "stopped answering" in decision["message"]
        # Its socket gone: the server died, and the record says there was one.
        listener.close()
        os.unlink(address)
        gone = json.loads((await in_thread(hook, exit_event)).stdout)["hookSpecificOutput"]
        assert gone["decision"]["behavior"] == "deny"
        assert "the plan-mode server is gone" in gone["decision"]["message"]
        # No record: no server at all, Claude Code's own dialog.
        record.unlink()
        assert (await in_thread(hook, exit_event)).stdout == ""
    finally:
        listener.close()
        record.unlink(missing_ok=True)


SLUG = "plan-a-greeting-change-optimized-sunset"


def claude_code_session(root: Path, home: Path, version: str = "2.1.332") -> tuple[dict, Path]:
    """A Claude Code configuration directory with a transcript that names the plan file."""
    config = home / ".claude"
    plan = config / "plans" / f"{SLUG}.md"
    plan.parent.mkdir(parents=True)
    transcript = config / "projects" / "-workspace" / "abc123-recorded.jsonl"
    transcript.parent.mkdir(parents=True)
    lines = [
        {
            "type": "user",
            "sessionId": "abc123-recorded",
            "version": version,
            "message": {"role": "user", "content": "plan a greeting change"},
        },
        {
            "type": "attachment",
            "sessionId": "abc123-recorded",
            "version": version,
            "slug": SLUG,
            "attachment": {
                "type": "plan_mode",
                "reminderType": "full",
                "isSubAgent": False,
                "planFilePath": str(plan),
                "planExists": False,
            },
        },
        {
            "type": "assistant",
            "sessionId": "abc123-recorded",
            "version": version,
            "slug": SLUG,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Reading."}]},
        },
    ]
    # Compact, as Claude Code writes it.
    transcript.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    env = {"CLAUDE_CONFIG_DIR": str(config), "CLAUDE_PROJECT_DIR": str(root)}
    return {"env": env, "transcript": str(transcript)}, plan


async def test_claude_codes_own_plan_file_is_the_plan(
    editor: Editor, root: Path, home: Path
) -> None:
    await editor.endpoint()
    session, plan = claude_code_session(root, home)
    env, transcript = session["env"], session["transcript"]
    write = await in_thread(
        hook,
        payload("pre_tool_use_write_plan.json", root, str(plan), transcript_path=transcript),
        env,
    )
    assert write.returncode == 0, write.stderr
    assert json.loads(write.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
    state = await editor.state("abc123-recorded")
    assert state["planFilePath"] == str(plan)
    assert state["planSlug"] == SLUG

    ours = await in_thread(
        hook,
        payload(
            "pre_tool_use_write_plan.json",
            root,
            str(root / ".claude/plans/x.md"),
            transcript_path=transcript,
        ),
        env,
    )
    decision = json.loads(ours.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert str(plan) in decision["permissionDecisionReason"]
    (home / "plans-link").symlink_to(plan.parent)
    linked = await in_thread(
        hook,
        payload(
            "pre_tool_use_write_plan.json",
            root,
            str(home / "plans-link" / plan.name),
            transcript_path=transcript,
        ),
        env,
    )
    assert json.loads(linked.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"

    plan.write_text("# Greeting\n\n1. Say goodbye.\n")
    exit_event = payload(
        "permission_request_exit_plan_mode.json",
        root,
        transcript_path=transcript,
        tool_input={"plan": plan.read_text(), "planFilePath": str(plan)},
    )
    waiting = asyncio.ensure_future(in_thread(hook, exit_event, env))
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    assert requested["planFilePath"] == str(plan)
    editor.open(plan)
    edited = plan.read_text() + "2. And a test.\n"
    editor.change(plan, edited)
    lenses = await editor.lenses(plan)
    approve = next(
        lens for lens in lenses if lens.command and lens.command.title.startswith("Approve plan")
    )
    await editor.run_lens(approve)
    done = await asyncio.wait_for(waiting, 30)
    decision = json.loads(done.stdout)["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "allow"
    assert decision["updatedInput"] == {"plan": edited, "planFilePath": str(plan)}
    assert "updatedPermissions" not in decision
    assert plan.read_text() == edited  # written back where Claude Code reads it
    listed = await editor.request("planMode/listPlans", {})
    assert any(
        p["path"] == str(plan) and p["sessionId"] == "abc123-recorded" for p in listed["plans"]
    )
    revisions = await editor.request("planMode/listRevisions", {"sessionId": "abc123-recorded"})
    assert revisions["path"] == str(plan)
    assert [r["author"] for r in revisions["revisions"]][-1] == "user"
