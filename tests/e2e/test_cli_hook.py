"""The CLI and the Claude Code hook, end to end through a running server's agent endpoint."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from planmode.discovery import discovery_path
from tests.e2e.harness import Editor

PAYLOADS = Path(__file__).parent / "hook_payloads"


async def endpoint(root: Path) -> None:
    for _ in range(500):
        if discovery_path(root).exists():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the endpoint never opened")


def payload(name: str, root: Path, plan_file: str = "") -> str:
    text = (PAYLOADS / name).read_text()
    return text.replace("WORKSPACE", str(root)).replace("PLAN_FILE", plan_file)


def run(args: list[str], stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "planmode", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


async def in_thread(fn, *args):  # type: ignore[no-untyped-def]
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)


async def test_pre_tool_use_decisions(editor: Editor, root: Path) -> None:
    await endpoint(root)
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
    await endpoint(root)
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
    await endpoint(root)
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
    await endpoint(root)
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
    await endpoint(root)
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


async def test_session_end_revokes_what_the_plan_granted(editor: Editor, root: Path) -> None:
    """Grants are scoped to the conversation (Claude Code #27160): SessionEnd ends them."""
    await endpoint(root)
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
    await editor.request("planMode/approve", {"approvalId": requested["approvalId"]})
    await asyncio.wait_for(waiting, 10)
    check = {"sessionId": session, "tool": "Bash", "input": {"command": "pytest -q"}}
    assert (await editor.request("planMode/checkTool", check))["behavior"] == "allow"

    ended = await in_thread(run, ["hook"], payload("session_end.json", root))
    assert ended.returncode == 0, ended.stderr
    assert ended.stdout == ""
    assert (await editor.state(session))["grantedPrompts"] == []
    assert (await editor.request("planMode/checkTool", check))["behavior"] == "ask"
