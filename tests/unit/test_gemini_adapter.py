"""Gemini CLI's adapter: its tool calls in plan mode's terms, the plan file the model names in
Gemini's plans directory, and what its model reads (docs/gemini.md, "The adapter")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planmode.agents.gemini import adoption, tools
from planmode.agents.gemini.adapter import GeminiCall, GeminiCli
from planmode.core import prompts
from planmode.core.agents import NotAdoptable, ToolCall
from planmode.core.service import PlanModeService
from planmode.core.session import Session

PAYLOADS = Path(__file__).resolve().parents[1] / "e2e" / "hook_payloads" / "gemini" / "0.61.0"
SESSION = "5b6e3c0e-1111-4222-8333-944445555666"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = (tmp_path / "workspace").resolve()
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("print('hello')\n")
    return workspace


@pytest.fixture
def plans(fake_home: Path) -> Path:
    folder = fake_home / ".gemini" / "tmp" / "workspace" / SESSION / "plans"
    folder.mkdir(parents=True)
    return folder.resolve()


def planning(root: Path) -> tuple[PlanModeService, Session]:
    service = PlanModeService(root, agents=(GeminiCli(),))
    session = service.require_session(SESSION)
    service.set_mode(session, "plan")
    return service, session


def call(service: PlanModeService, plans: Path, candidate: object = None) -> GeminiCall:
    return service.agent(GeminiCli).call(service.root, str(plans), candidate)


def check(
    service: PlanModeService, session: Session, plans: Path, tool: str, args: dict[str, object]
) -> tuple[str, str | None]:
    """Decide one Gemini call as the LSP layer does: learn the plan it names, then check."""
    candidate = args.get("file_path") if tool in tools.EDIT_TOOLS else None
    report = call(service, plans, candidate)
    service.learn_plan_file(session, report)
    decision = service.check_tool(session, tool, args, tools=report)
    return decision.behavior, decision.message


def recorded(name: str, root: Path, plans: Path) -> tuple[str, dict[str, object]]:
    """A recorded BeforeTool payload: Gemini's tool and arguments, here."""
    text = (PAYLOADS / name).read_text().replace("WORKSPACE", str(root))
    text = text.replace("HOME/.gemini/tmp/workspace/SESSION_ID/plans", str(plans))
    entry = json.loads(text)
    return entry["tool_name"], entry["tool_input"]


# -- the tools ------------------------------------------------------------------------------
def test_each_recorded_call_is_plan_mode_s(root: Path, plans: Path) -> None:
    read = tools.plan_mode_calls(*recorded("06_BeforeTool_read_file_source.json", root, plans))
    assert [c.tool for c in read] == ["Read"]
    write = tools.plan_mode_calls(*recorded("08_BeforeTool_write_file_plan.json", root, plans))
    assert [c.tool for c in write] == ["Write"]
    assert write[0].input["file_path"] == str(plans / "greet.md")
    patch = tools.plan_mode_calls(*recorded("20_BeforeTool_replace_source.json", root, plans))
    assert patch == (
        ToolCall(
            "Edit",
            {
                "file_path": f"{root}/src/app.py",
                "old_string": "hello",
                "new_string": "hi",
                "replace_all": False,
            },
        ),
    )
    line = tools.plan_mode_calls(*recorded("21_BeforeTool_run_shell_command.json", root, plans))
    assert line == (ToolCall("Bash", {"command": "ls src"}),)
    leave = tools.plan_mode_calls(*recorded("12_BeforeTool_exit_plan_mode.json", root, plans))
    assert leave == (ToolCall("ExitPlanMode", {}),)


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("update_topic", {"strategic_intent": "x"}, ()),
        ("invoke_agent", {"agent_name": "codebase_investigator", "prompt": "look"}, ("Agent",)),
        ("google_web_search", {"query": "x"}, ("WebSearch",)),
        ("mcp_server_tool", {"a": 1}, ("mcp_server_tool",)),
    ],
)
def test_other_tools(tool: str, args: dict[str, object], expected: tuple[str, ...]) -> None:
    assert tuple(c.tool for c in tools.plan_mode_calls(tool, args)) == expected


def test_a_planning_agent_is_gemini_s_investigator_only(root: Path, plans: Path) -> None:
    service, session = planning(root)
    investigate = {"agent_name": "codebase_investigator", "prompt": "look"}
    assert check(service, session, plans, "invoke_agent", investigate)[0] == "allow"
    build = {"agent_name": "generalist", "prompt": "build it"}
    assert check(service, session, plans, "invoke_agent", build)[0] == "deny"


# -- the plan file ---------------------------------------------------------------------------
def test_the_first_plan_written_is_the_session_s_and_only_it(root: Path, plans: Path) -> None:
    service, session = planning(root)
    plan = str(plans / "greet.md")
    assert check(service, session, plans, "read_file", {"file_path": f"{root}/src/app.py"}) == (
        "allow",
        None,
    )
    assert session.plan_file is None  # a read names no plan
    assert check(service, session, plans, "write_file", {"file_path": plan, "content": "# P\n"})[
        0
    ] == ("allow")
    assert session.plan_file == Path(plan)
    other = check(service, session, plans, "write_file", {"file_path": str(plans / "notes.md")})
    assert other[0] == "deny" and f"write only {plan}" in str(other[1])
    source = check(service, session, plans, "replace", {"file_path": f"{root}/src/app.py"})
    assert source[0] == "deny"
    shell = check(service, session, plans, "run_shell_command", {"command": "rm -rf src"})
    assert shell[0] == "deny" and "rm" in str(shell[1])
    assert check(service, session, plans, "run_shell_command", {"command": "ls src"})[0] == "allow"


def test_an_exit_must_name_the_adopted_plan(root: Path, plans: Path) -> None:
    service, session = planning(root)
    plan = plans / "greet.md"
    plan.write_text("# P\n")
    check(service, session, plans, "write_file", {"file_path": str(plan), "content": "# P\n"})
    other = str(plans / "other.md")
    service.learn_plan_file(session, call(service, plans, other))  # learned already: kept
    refusal = service.exit_refusal(session, other)
    assert refusal is not None and "not the session's plan file" in refusal
    text = prompts.refused_exit_text(refusal, plan, tools.EXIT_TOOL)
    assert text.startswith("Plan mode refused exit_plan_mode:") and "exit_plan_mode again" in text
    assert service.exit_refusal(session, str(plan)) is None


def test_a_plans_directory_the_project_moves_onto_its_files_is_not_used(root: Path) -> None:
    """general.plan.directory "." made a plan write overwrite README.md (docs/gemini.md)."""
    (root / "README.md").write_text("# The project\n")
    service, session = planning(root)
    warning = service.learn_plan_file(session, call(service, root, str(root / "README.md")))
    assert warning is not None and "workspace root" in warning
    denied = service.check_tool(
        session,
        "write_file",
        {"file_path": str(root / "README.md"), "content": "x"},
        tools=call(service, root),
    )
    assert denied.behavior == "deny" and "Gemini CLI's plan file is not used" in str(denied.message)
    src = root / "src"
    with pytest.raises(NotAdoptable, match="holds files that are no plans"):
        adoption.check_plans_directory(str(src), root)


def test_a_plans_directory_in_the_project_of_plans_only_is_used(root: Path) -> None:
    docs = root / "docs" / "plans"
    docs.mkdir(parents=True)
    assert adoption.check_plans_directory(str(docs), root) == docs


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("My Plan.md", "not a plan's name"),
        ("greet.txt", "not a plan's name"),
        ("sub/greet.md", "not directly in"),
        ("../greet.md", "not an absolute, normalised path"),
    ],
)
def test_which_names_are_adopted(plans: Path, name: str, why: str) -> None:
    raw = f"{plans}/{name}"
    with pytest.raises(NotAdoptable, match=why):
        adoption.check_adoptable(raw, plans)


def test_a_plans_directory_neither_gemini_s_nor_the_project_s(tmp_path: Path, root: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "plans"
    elsewhere.mkdir(parents=True)
    with pytest.raises(NotAdoptable, match="neither Gemini CLI's own"):
        adoption.check_plans_directory(str(elsewhere), root)
    link = tmp_path / "link"
    link.symlink_to(elsewhere)
    with pytest.raises(NotAdoptable, match="symlink"):
        adoption.check_plans_directory(str(link), root)


def test_a_saved_adoption_is_checked_again(root: Path, plans: Path) -> None:
    service, session = planning(root)
    check(service, session, plans, "write_file", {"file_path": str(plans / "greet.md")})
    assert session.plan_file is not None and session.plan_file_source == adoption.FROM_PLANS_DIR
    again = PlanModeService(root, agents=(GeminiCli(),)).require_session(SESSION)
    assert again.plan_file == plans / "greet.md"
    GeminiCli().recheck(plans / "greet.md", root)
    with pytest.raises(NotAdoptable):
        GeminiCli().recheck(root / "src" / "notes.md", root)


def test_a_rejection_names_gemini_s_tool(root: Path, plans: Path) -> None:
    service, session = planning(root)
    plan = plans / "greet.md"
    plan.write_text("# P\n")
    check(service, session, plans, "write_file", {"file_path": str(plan), "content": "# P\n"})
    approval, _ = service.begin_exit(session, exit_tool=tools.EXIT_TOOL)
    decision = service.reject(approval.approval_id, session.id, "Add a test.")
    told = decision.result.tool_result
    assert f"Revise the plan at {plan} and call exit_plan_mode again" in told, told
    assert "ExitPlanMode" not in told
