"""planmode's Gemini CLI hook without a server: paths as Gemini reads them, the modes it
learns, its notes, the launcher, and how it fails closed (docs/gemini.md, "The adapter")."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planmode.agents.gemini import hook, modes, notes, shell, transcript, versions

SESSION = "5b6e3c0e-1111-4222-8333-944445555666"


@pytest.fixture(autouse=True)
def runtime_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private runtime directory of the test's own (the records and the notes go there)."""
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


@pytest.fixture
def plans(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / ".gemini" / "tmp" / "project" / SESSION / "plans"
    folder.mkdir(parents=True)
    return folder


def test_paths_as_gemini_plan_mode_reads_them(tmp_path: Path, plans: Path) -> None:
    project = str(tmp_path / "project")
    inside = str(plans / "greet.md")
    assert hook.plan_mode_path(inside, str(plans), project) == inside
    assert hook.plan_mode_path("greet.md", str(plans), project) == inside
    assert hook.plan_mode_path("src/app.py", str(plans), project) == str(plans / "src/app.py")
    # An absolute path outside, and one that climbs out: plan mode refuses them before hooks.
    assert hook.plan_mode_path(f"{project}/src/app.py", str(plans), project) is None
    assert hook.plan_mode_path("../greet.md", str(plans), project) is None
    # Outside plan mode Gemini reads a relative path against the project.
    assert hook.gemini_path("src/app.py", str(plans), project, False) == f"{project}/src/app.py"
    assert hook.gemini_path("greet.md", str(plans), project, True) == inside
    assert hook.gemini_path(3, str(plans), project, True) == 3


def test_a_plans_directory_the_project_names_is_read_from_the_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "docs" / "plans").mkdir(parents=True)
    plans = str(project / "docs" / "plans")
    # Relative to the project root when that lands in the plans directory (Gemini's rule).
    found = hook.plan_mode_path("docs/plans/p.md", plans, str(project))
    assert found == f"{plans}/p.md"


@pytest.mark.parametrize(
    ("argv", "mode"),
    [
        (["node", "/x/.bin/gemini", "--approval-mode", "plan"], "plan"),
        (["node", "/x/.bin/gemini", "--approval-mode=auto_edit"], "auto_edit"),
        (["node", "/x/gemini.js", "--yolo"], "yolo"),
        (["node", "/x/gemini.js", "-y", "--approval-mode", "plan"], "plan"),
        (["node", "/x/gemini.js", "--approval-mode", "plan", "--yolo"], "plan"),
        (["node", "/x/gemini.js", "--", "--yolo"], None),
        (["node", "/x/gemini.js"], None),
    ],
)
def test_the_mode_gemini_s_command_line_asks_for(argv: list[str], mode: str | None) -> None:
    assert modes.mode_from_argv(argv) == mode


def test_the_mode_gemini_s_settings_ask_for(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".gemini").mkdir(parents=True)
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    env = {
        "HOME": str(home),
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(tmp_path / "none.json"),
        "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": str(tmp_path / "none.json"),
    }
    user = home / ".gemini" / "settings.json"
    workspace = project / ".gemini" / "settings.json"
    assert modes.mode_from_settings(None, str(project), env) == "default"
    user.write_text(json.dumps({"general": {"defaultApprovalMode": "plan"}}))
    assert modes.mode_from_settings(None, str(project), env) == "plan"
    workspace.write_text(json.dumps({"general": {"defaultApprovalMode": "auto_edit"}}))
    assert modes.mode_from_settings(None, str(project), env) == "auto_edit"
    assert modes.mode_from_settings("plan", str(project), env) == "plan"
    # A yolo there is ignored, the user's plan overridden all the same (Gemini merges the
    # files first; only --yolo starts in YOLO); plan needs plan mode enabled.
    workspace.write_text(json.dumps({"general": {"defaultApprovalMode": "yolo"}}))
    assert modes.mode_from_settings(None, str(project), env) == "default"
    user.write_text(json.dumps({"general": {"plan": {"enabled": False}}}))
    assert modes.mode_from_settings("plan", str(project), env) == "default"
    # A file that is not JSON might set it: not known (unless the command line says).
    workspace.write_text("// comments\n{}")
    assert modes.mode_from_settings(None, str(project), env) is None
    assert modes.mode_from_settings("plan", str(project), env) == "plan"


def test_gemini_is_found_among_the_hook_s_parents(tmp_path: Path) -> None:
    """The hook runs under `bash -c`, which may exec it: Gemini is the first non-shell."""
    server = str(Path(hook.__file__).parents[3])
    the_hook = (
        f"import sys; sys.path.insert(0, {server!r}); "
        "from planmode.agents.gemini import modes; print(modes.gemini_argv())"
    )
    fake = tmp_path / "gemini"  # a Gemini CLI that runs its hook as `bash -c <command>`
    fake.write_text(
        "import shlex, subprocess, sys\n"
        f"line = shlex.join([sys.executable, '-c', {the_hook!r}]) + '; :'\n"
        "subprocess.run(['bash', '-c', line])\n"
    )
    done = subprocess.run(
        [sys.executable, str(fake), "--approval-mode", "plan"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    found = ast.literal_eval(done.stdout)
    assert found[1:] == [str(fake), "--approval-mode", "plan"], found
    assert modes.mode_from_argv(found) == "plan"


def test_described_modes() -> None:
    assert versions.described_mode(
        "Plan approved. Switching to Auto-Edit mode (edits will be applied automatically).",
        versions.APPROVED,
    ) == ("acceptEdits")
    manual = "User has manually exited Plan Mode. Switching to Default mode (edits …)."
    assert versions.described_mode(manual, versions.MANUAL_EXIT) == "default"
    assert versions.described_mode("Plan rejected. User feedback: x", versions.APPROVED) is None


def line(entry: dict[str, Any]) -> str:
    return json.dumps(entry) + "\n"


def test_the_transcript_tells_a_manual_exit_once_and_only_a_user_s(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    exit_text = versions.MANUAL_EXIT + "Default mode (edits will require confirmation)."
    old = {"type": "user", "content": [{"text": exit_text}]}
    path.write_text(line({"sessionId": SESSION}) + line(old))
    transcript.start(SESSION, str(path))  # what was there before is history
    assert transcript.manual_exit(SESSION, str(path)) is None
    # A file the model read, or its own words, never count: only the user's line alone.
    read = {"type": "user", "content": [{"functionResponse": {"response": {"output": exit_text}}}]}
    said = {"type": "gemini", "content": exit_text}
    with path.open("a") as stream:
        stream.write(line(read) + line(said))
    assert transcript.manual_exit(SESSION, str(path)) is None
    auto = versions.MANUAL_EXIT + "Auto-Edit mode (edits will be applied automatically)."
    with path.open("a") as stream:
        stream.write(line(old) + line({"type": "user", "content": [{"text": auto}]}))
        stream.write('{"type": "user", "content": [{"text": "' + exit_text)  # being written
    assert transcript.manual_exit(SESSION, str(path)) == "acceptEdits"
    assert transcript.manual_exit(SESSION, str(path)) is None
    with path.open("a") as stream:
        stream.write('"}]}\n')
    assert transcript.manual_exit(SESSION, str(path)) == "default"


def test_a_new_transcript_starts_from_its_end(tmp_path: Path) -> None:
    path = tmp_path / "other.jsonl"
    exit_text = versions.MANUAL_EXIT + "Default mode (edits will require confirmation)."
    path.write_text(line({"type": "user", "content": [{"text": exit_text}]}))
    assert transcript.manual_exit(SESSION, str(path)) is None
    assert transcript.manual_exit(SESSION, None) is None


def run_launcher(launcher: Path, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(launcher), *words], capture_output=True, text=True, timeout=30, env=os.environ.copy()
    )


def test_the_launcher_runs_a_record_once_and_nothing_else(tmp_path: Path) -> None:
    launcher = tmp_path / "bin" / shell.NAME
    assert shell.install(str(launcher)) and not shell.install(str(launcher))
    record = shell.write_record(["/bin/sh", "-c", "printf '%s\\n' \"it's $0\"", "ran"])
    done = run_launcher(launcher, record)
    assert (done.returncode, done.stdout) == (0, "it's ran\n"), done.stderr
    again = run_launcher(launcher, record)
    assert again.returncode == 126 and "allowed no such line" in again.stderr
    for words in ((), ("a", "b"), ("../../../bin/true",), ("0" * 31,), ("g" * 32,)):
        refused = run_launcher(launcher, *words)
        assert refused.returncode == 126, words
        assert refused.stderr.startswith("planmode: this command was not run:"), words


def test_a_record_is_written_privately(runtime_dir: Path) -> None:
    name = shell.write_record(["true"])
    path = runtime_dir / "planmode" / shell.RECORDS / name
    assert (path.stat().st_mode & 0o777, len(name)) == (0o600, 32)
    assert (path.parent.stat().st_mode & 0o777) == 0o700
    with pytest.raises(shell.RecordError):
        shell.write_record(["echo", "two\nlines"])


def test_notes_are_kept_per_session_and_forgotten(runtime_dir: Path) -> None:
    notes.write(SESSION, notes.MODE, "plan")
    assert notes.read(SESSION, notes.MODE) == "plan"
    folder = runtime_dir / "planmode" / "gemini" / SESSION
    assert folder.stat().st_mode & 0o777 == 0o700
    notes.forget(SESSION)
    assert notes.read(SESSION, notes.MODE) is None and not folder.exists()
    assert not notes.valid_session("../x") and not notes.valid_session("")


def answer(event: dict[str, Any], project: Path, plans: Path) -> dict[str, Any] | None:
    os.environ["GEMINI_PROJECT_DIR"] = str(project)
    os.environ["GEMINI_PLANS_DIR"] = str(plans)
    try:
        return hook.answer({"session_id": SESSION, **event})
    finally:
        del os.environ["GEMINI_PROJECT_DIR"], os.environ["GEMINI_PLANS_DIR"]


def event(tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"hook_event_name": "BeforeTool", "tool_name": tool, "tool_input": tool_input}


def test_without_a_server_gemini_decides(tmp_path: Path, plans: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (plans / "greet.md").write_text("# Plan\n")
    notes.write(SESSION, notes.MODE, "plan")
    shell_line = event("run_shell_command", {"command": "rm -rf src"})
    assert answer(shell_line, project, plans) is None
    exit_call = event("exit_plan_mode", {"plan_filename": "greet.md"})
    assert answer(exit_call, project, plans) is None  # Gemini's own dialog asks


def test_a_server_that_is_gone_refuses_while_planning(
    tmp_path: Path, plans: Path, runtime_dir: Path
) -> None:
    from planmode import runtime

    project = (tmp_path / "project").resolve()
    project.mkdir()
    record = Path(runtime.ensure_directory()) / runtime.record_name(str(project))
    record.write_text(json.dumps({"version": 1, "state": "running", "pid": 2**22 + 7}))
    record.chmod(0o600)
    read = event("read_file", {"file_path": str(project / "a.py")})
    assert answer(read, project, plans) is None  # not known to plan: nothing said
    notes.write(SESSION, notes.MODE, "plan")
    refused = answer(read, project, plans)
    assert refused is not None and refused["decision"] == "deny"
    assert refused["reason"].startswith("Denied by plan mode (the plan-mode server is gone)")
    notes.write(SESSION, notes.MODE, "default")
    (plans / "greet.md").write_text("# Plan\n")
    exit_call = event("exit_plan_mode", {"plan_filename": "greet.md"})
    refused = answer(exit_call, project, plans)
    assert refused is not None and refused["decision"] == "deny"  # an exit always plans


def test_the_approval_s_text_reaches_the_model_after_gemini_s(tmp_path: Path, plans: Path) -> None:
    text = "User has approved your plan. You can now start coding."
    after = {
        "hook_event_name": "AfterTool",
        "tool_name": "exit_plan_mode",
        "tool_input": {"plan_filename": "greet.md", versions.APPROVAL_KEY: text},
        "tool_response": {"llmContent": "Plan approved. Switching to Default mode (…)."},
    }
    found = answer(after, tmp_path, plans)
    assert found == {
        "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": text}
    }


def test_unreadable_input_is_refused_only_for_an_exit_or_while_planning() -> None:
    def run(raw: bytes) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "planmode", "hook", "gemini"],
            input=raw,
            capture_output=True,
            timeout=30,
            env=os.environ.copy(),
        )
        assert done.returncode == 0
        return done.stdout.decode()

    assert run(b"not json") == ""
    exit_like = b'{"hook_event_name": "BeforeTool", "tool_name": "exit_plan_mode", oops'
    assert json.loads(run(exit_like))["decision"] == "deny"
    notes.write(SESSION, notes.MODE, "plan")
    planning = b'{"session_id": "' + SESSION.encode() + b'", "tool_name": "read_file", x'
    assert json.loads(run(planning))["decision"] == "deny"


def test_a_held_exit_sees_the_user_s_esc(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    cancelled = {"id": "x", "type": "info", "content": versions.CANCELLED}
    path.write_text(line(cancelled))  # an earlier turn's
    watch = transcript.Cancelled(str(path))
    assert not watch()
    said = {"type": "gemini", "content": versions.CANCELLED}
    with path.open("a") as stream:
        stream.write(line({"$set": {"lastUpdated": "now"}}) + line(said))
    assert not watch()
    with path.open("a") as stream:
        stream.write(line(cancelled))
    assert watch()
    assert not transcript.Cancelled(None)()


def test_an_ask_plan_mode_vouches_for_brings_gemini_s_dialog_outside_plan_mode() -> None:
    call = hook.Call({"session_id": SESSION, "tool_name": "write_file"}, None)
    message = "Not in the approved plan: notes.txt. The plan … never names this file. Allow?"
    drift = {"behavior": "ask", "rule": "drift", "vouched": True, "message": message}
    # After approval, with auto-accept edits: the dialog, not the rewrite that skips it.
    assert hook.answer_tool(call, {**drift, "mode": "acceptEdits"}) == {
        "decision": "ask",
        "reason": message,
        "systemMessage": message,
    }
    asked = hook.answer_tool(call, {**drift, "mode": "default"})
    assert asked is not None and asked["decision"] == "ask"
    # An ask of the user's own rules is Gemini's to make; plan mode's own asks nothing.
    rules = {**drift, "rule": "settings.ask", "vouched": False, "mode": "default"}
    assert hook.answer_tool(call, rules) is None
    assert hook.answer_tool(call, {**drift, "mode": "plan"}) is None
