"""OpenCode's adapter: its tool calls in plan mode's terms, the plan file its plan agent names,
and what its model reads (docs/opencode.md, "planmode's adapter")."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from planmode.agents.opencode import adoption, tools
from planmode.agents.opencode.adapter import OpenCode, OpenCodeCall
from planmode.agents.opencode.adoption import SessionFacts
from planmode.core import plans, prompts
from planmode.core.agents import NotAdoptable, ToolCall
from planmode.core.service import PlanModeService
from planmode.core.session import Session

PAYLOADS = Path(__file__).resolve().parents[1] / "e2e" / "hook_payloads" / "opencode" / "1.18.33"
CREATED = 1796141174681


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = (tmp_path / "workspace").resolve()
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("print('hello')\n")
    return workspace


def facts(root: Path, slug: str = "playful-knight") -> SessionFacts:
    return SessionFacts(created=CREATED, slug=slug, worktree=root, git=True)


def planning(
    root: Path, session_id: str = "ses_1"
) -> tuple[PlanModeService, Session, OpenCodeCall]:
    service = PlanModeService(root, agents=(OpenCode(),))
    session = service.require_session(session_id)
    service.set_mode(session, "plan")
    call = service.agent(OpenCode).call(service.root, facts(root), str(root))
    assert service.learn_plan_file(session, call) is None
    return service, session, call


def recorded(name: str, root: Path) -> tuple[str, dict[str, object]]:
    """A recorded tool.execute.before payload: OpenCode's tool and arguments, in ``root``."""
    entry = json.loads((PAYLOADS / name).read_text().replace("WORKSPACE", str(root)))
    return entry["input"]["tool"], entry["output"]["args"]


# -- the tools ------------------------------------------------------------------------------------
def test_each_recorded_call_is_plan_mode_s(root: Path) -> None:
    directory = str(root)
    read = tools.plan_mode_calls(*recorded("03_tool.execute.before_read.json", root), directory)
    assert [c.tool for c in read] == ["Read"]
    write = tools.plan_mode_calls(*recorded("06_tool.execute.before_write.json", root), directory)
    assert write == (
        ToolCall("Write", {"file_path": f"{root}/src/app.py", "content": "print('hi')\n"}),
    )
    edit = tools.plan_mode_calls(
        *recorded("probe_tool.execute.before_edit_source.json", root), None
    )
    assert edit[0].tool == "Edit"
    assert {"old_string": "hello", "new_string": "bye", "replace_all": False}.items() <= dict(
        edit[0].input
    ).items()
    bash = tools.plan_mode_calls(*recorded("08_tool.execute.before_bash.json", root), directory)
    assert bash == (ToolCall("Bash", {"command": "ls src", "description": "List src"}),)
    patch = tools.plan_mode_calls(
        *recorded("probe_tool.execute.before_apply_patch_source.json", root), directory
    )
    assert patch == (ToolCall("Write", {"file_path": f"{root}/src/app.py"}),)
    task = tools.plan_mode_calls(*recorded("probe_tool.execute.before_task.json", root), directory)
    assert task[0].tool == "Agent" and task[0].input["subagent_type"] == "Explore"
    assert tools.plan_mode_calls("plan_exit", {}, directory) == (ToolCall("ExitPlanMode", {}),)


def test_relative_paths_are_read_against_opencode_s_directory(root: Path) -> None:
    (call,) = tools.plan_mode_calls("write", {"filePath": "src/x.py", "content": ""}, "/d")
    assert call.input["file_path"] == "/d/src/x.py"
    (call,) = tools.plan_mode_calls("edit", {"filePath": "../x", "oldString": "a"}, "/d/e")
    assert call.input["file_path"] == "/d/e/../x"  # lexically joined: plan mode reads both ways
    (call,) = tools.plan_mode_calls("write", {"filePath": "~/x", "content": ""}, "/d")
    assert call.input["file_path"] == "/d/~/x"  # OpenCode expands no ~


def test_a_patch_writes_every_file_its_headers_name() -> None:
    text = (
        "*** Begin Patch\n*** Add File: notes.md\n+hi\n*** Update File: src/a.py\n"
        "*** Move to: src/b.py\n@@\n-x\n+y\n*** Delete File: old.txt\r\n*** End Patch"
    )
    assert tools.patch_paths(text) == ["notes.md", "src/a.py", "src/b.py", "old.txt"]
    calls = tools.plan_mode_calls("apply_patch", {"patchText": text}, "/w")
    assert [c.input["file_path"] for c in calls] == [
        "/w/notes.md",
        "/w/src/a.py",
        "/w/src/b.py",
        "/w/old.txt",
    ]
    # A patch whose files cannot be told stays a tool plan mode does not know.
    for unknown in ("no headers", "*** Add File:   \n", None):
        (call,) = tools.plan_mode_calls("apply_patch", {"patchText": unknown}, "/w")
        assert call.tool == "apply_patch"


def test_invalid_is_nothing_to_check_and_unknown_tools_stay_themselves() -> None:
    assert tools.plan_mode_calls("invalid", {"tool": "x", "error": "y"}, "/w") == ()
    assert tools.plan_mode_calls("github_create_issue", {"title": "t"}, "/w") == (
        ToolCall("github_create_issue", {"title": "t"}),
    )


# -- plan mode's answers --------------------------------------------------------------------------
def test_while_planning_only_opencode_s_plan_file_is_written(root: Path) -> None:
    service, session, call = planning(root)
    plan = root / ".opencode" / "plans" / f"{CREATED}-playful-knight.md"
    assert service.plan_path(session) == plan

    def check(tool: str, args: dict[str, object]) -> tuple[str, str]:
        decision = service.check_tool(session, tool, args, cwd=str(root), tools=call)
        return decision.behavior, decision.message or ""

    assert check("read", {"filePath": str(root / "src" / "app.py")})[0] == "allow"
    assert check("write", {"filePath": str(plan), "content": "# Plan\n"}) == ("allow", "")
    behavior, why = check("write", {"filePath": "src/app.py", "content": "x"})
    assert behavior == "deny" and "only the plan file may be written" in why, why
    assert f"{root}/src/app.py" in why
    # A patch of the plan and a source file is refused, naming the source file.
    both = f"*** Begin Patch\n*** Update File: {plan}\n@@\n+x\n*** Add File: src/new.py\n+y\n"
    behavior, why = check("apply_patch", {"patchText": both + "*** End Patch"})
    assert behavior == "deny" and "src/new.py" in why, why
    only_plan = f"*** Begin Patch\n*** Update File: {plan}\n@@\n+x\n*** End Patch"
    assert check("apply_patch", {"patchText": only_plan})[0] == "allow"
    behavior, why = check("bash", {"command": "rm -rf src"})
    assert behavior == "deny" and "rm" in why, why
    assert check("bash", {"command": "ls src"})[0] == "allow"
    assert check("task", {"subagent_type": "explore", "prompt": "p", "description": "d"})[0] == (
        "allow"
    )
    assert check("task", {"subagent_type": "general", "prompt": "p", "description": "d"})[0] == (
        "deny"
    )
    assert check("invalid", {"tool": "nope"})[0] == "allow"
    behavior, why = check("github_create_issue", {"title": "t"})
    assert behavior == "deny" and "not a known planning tool" in why, why


def test_outside_plan_mode_nothing_is_refused_by_plan_mode(root: Path) -> None:
    service, session, call = planning(root)
    service.set_mode(session, "default")
    decision = service.check_tool(
        session, "write", {"filePath": "src/app.py", "content": "x"}, tools=call
    )
    assert decision.behavior != "deny" and not decision.rule.startswith("plan.")


def test_a_rejection_names_plan_exit_and_opencode_s_plan_file(root: Path) -> None:
    service, session, call = planning(root)
    plan = service.plan_path(session)
    plans.write_atomic(plan, "# Plan\n\n1. Do it\n")
    approval, _ = service.begin_exit(session, exit_tool=call.exit_tool)
    decision = service.reject(approval.approval_id, session.id, "Smaller steps.")
    told = decision.result.tool_result
    assert told.startswith(prompts.REJECTED_PREFIX)
    assert f"Revise the plan at {plan} and call plan_exit again" in told, told
    assert "ExitPlanMode" not in told and "Smaller steps." in told
    refused = prompts.refused_exit_text("why", plan, call.exit_tool)
    assert "ExitPlanMode" not in refused and "call plan_exit again" in refused


# -- the plan file --------------------------------------------------------------------------------
def test_opencode_s_rule_for_its_plan_file(tmp_path: Path) -> None:
    git = SessionFacts(CREATED, "calm-island", tmp_path / "w", git=True)
    assert adoption.plan_file(git) == tmp_path / "w" / ".opencode" / "plans" / (
        f"{CREATED}-calm-island.md"
    )
    data = tmp_path / "data" / "opencode"
    outside = SessionFacts(CREATED, "calm-cabin", Path("/"), git=False, data=data)
    assert adoption.plan_file(outside) == data / "plans" / f"{CREATED}-calm-cabin.md"
    with pytest.raises(NotAdoptable):
        adoption.plan_file(SessionFacts(CREATED, "Not A Slug", tmp_path, git=True))
    with pytest.raises(NotAdoptable):
        adoption.plan_file(SessionFacts(CREATED, "calm-cabin", Path("/"), git=False))


def test_a_plan_file_outside_the_workspace_is_adopted_in_opencode_s_data_directory(
    tmp_path: Path,
) -> None:
    root = (tmp_path / "w").resolve()
    root.mkdir()
    data = (tmp_path / "data" / "opencode").resolve()
    path = data / "plans" / f"{CREATED}-calm-cabin.md"
    assert adoption.check_adoptable(path, root, data) == path
    with pytest.raises(NotAdoptable, match="not where OpenCode keeps plans"):
        adoption.check_adoptable(path, root, None)
    elsewhere = (tmp_path / "x").resolve() / ".opencode" / "plans" / path.name
    with pytest.raises(NotAdoptable, match="not where OpenCode keeps plans"):
        adoption.check_adoptable(elsewhere, root, data)


@pytest.mark.parametrize(
    "name", ["plan.md", "calm-cabin.md", f"{CREATED}-Calm.md", f"{CREATED}-calm-cabin.txt"]
)
def test_only_opencode_s_plan_file_names_are_adopted(root: Path, name: str) -> None:
    with pytest.raises(NotAdoptable, match="plan file name"):
        adoption.check_adoptable(root / ".opencode" / "plans" / name, root)


def test_a_repository_s_symlinked_plans_directory_is_not_adopted(
    root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / ".opencode").mkdir()
    (root / ".opencode" / "plans").symlink_to(outside, target_is_directory=True)
    service = PlanModeService(root, agents=(OpenCode(),))
    session = service.require_session("ses_1")
    service.set_mode(session, "plan")
    call = service.agent(OpenCode).call(service.root, facts(root), str(root))
    warning = service.learn_plan_file(session, call)
    assert warning is not None and "symlink" in warning, warning
    assert session.plan_file is None
    # Until it is fixed no file may be written while planning, the plan file's name included.
    plan = root / ".opencode" / "plans" / f"{CREATED}-playful-knight.md"
    decision = service.check_tool(session, "write", {"filePath": str(plan)}, tools=call)
    assert decision.behavior == "deny", decision


def test_a_plans_directory_holding_other_files_is_not_adopted(root: Path) -> None:
    (root / ".opencode" / "plans").mkdir(parents=True)
    (root / ".opencode" / "plans" / "run.sh").write_text("echo\n")
    with pytest.raises(NotAdoptable, match="no plans"):
        adoption.check_adoptable(root / ".opencode" / "plans" / f"{CREATED}-calm-cabin.md", root)


def test_a_worktree_above_the_workspace_holds_the_plan(tmp_path: Path) -> None:
    worktree = (tmp_path / "repo").resolve()
    workspace = worktree / "packages" / "app"
    workspace.mkdir(parents=True)
    path = worktree / ".opencode" / "plans" / f"{CREATED}-calm-cabin.md"
    assert adoption.check_adoptable(path, workspace) == path


def test_a_saved_adoption_is_checked_again_by_opencode(root: Path) -> None:
    _, session, _ = planning(root)
    adopted = session.plan_file
    assert adopted is not None
    again = PlanModeService(root, agents=(OpenCode(),)).require_session(session.id)
    assert again.plan_file == adopted
    # A server that knows no OpenCode drops it (a session file may come with the repository).
    assert PlanModeService(root).require_session(session.id).plan_file is None


def test_opencode_s_data_directory_as_xdg_says(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "d")}
    assert adoption.data_dir(env) == tmp_path / "d" / "opencode"
    relative = {"XDG_DATA_HOME": "relative/dir"}
    expected = Path(os.path.expanduser("~")) / ".local" / "share" / "opencode"
    assert adoption.data_dir(relative) == expected
