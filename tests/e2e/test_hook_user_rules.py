"""The user's own Claude Code rules against the real server and ``planmode hook``, fed what the
real CLI sent (docs/claude-code.md, "The user's own rules"): where Claude Code would deny or
ask — a deny or ask rule of its settings, a read outside its working directories — the hook
says nothing, so Claude Code's rule or question applies; elsewhere plan mode's allow stands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.claude_code.recorded import Recorded, ask, decision_of
from tests.e2e.harness import Editor


def bash(recorded: Recorded, command: str, **changes: Any) -> dict[str, Any]:
    event = recorded.event("PreToolUse", "Bash", **changes)
    event["tool_input"] = {**event["tool_input"], "command": command}
    return event


async def check(editor: Editor, recorded: Recorded, event: dict[str, Any]) -> dict[str, Any]:
    """What the server answers the hook's request for ``event``."""
    return await editor.request(
        "planMode/checkTool",
        {
            "sessionId": recorded.session_id,
            "permissionMode": "plan",
            "tool": event["tool_name"],
            "input": event["tool_input"],
            "projectDir": str(recorded.root),
            "cwd": event["cwd"],
        },
    )


async def test_the_users_rules_and_claude_codes_question_outside_the_project_stand(
    editor: Editor, recorded: Recorded, tmp_path: Path
) -> None:
    await editor.endpoint()
    root, home = recorded.root, recorded.home
    user = home / ".claude" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(
        json.dumps(
            {"permissions": {"deny": ["Read(~/.ssh/**)", "Bash(cat:*)"], "ask": ["Bash(wc:*)"]}}
        )
    )
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("notes\n")
    (root / "src" / "away").symlink_to(outside)

    # A read-only line inside the project: plan mode vouches for it.
    assert decision_of(await ask(recorded, bash(recorded, "head src/app.py"))) == "allow"
    # The user's deny and ask rules: the hook is silent, Claude Code applies them.
    for line, rule in [
        ("cat src/app.py", "claudeCode.deny"),
        (f"head {home}/.ssh/id_rsa", "claudeCode.deny"),
        ("wc -l src/app.py", "claudeCode.ask"),
        (f"head {outside}/notes.txt", "claudeCode.workingDirectories"),
        ("ls ..", "claudeCode.workingDirectories"),
    ]:
        event = bash(recorded, line)
        assert await ask(recorded, event) is None, line
        assert (await check(editor, recorded, event))["rule"] == rule, line
    denied = await check(editor, recorded, bash(recorded, "cat src/app.py"))
    assert denied["message"] == (
        f"Denied by Claude Code's deny rule 'Bash(cat:*)' in {user}: Bash is not permitted "
        "(Claude Code denies it itself)"
    )
    # Relative paths are read from Claude Code's shell directory, the payload's cwd.
    moved = bash(recorded, "head away/notes.txt", cwd=str(root / "src"))
    assert await ask(recorded, moved) is None
    assert decision_of(await ask(recorded, bash(recorded, "head away/notes.txt"))) == "allow"
    # A rule the user adds takes effect at the next call; one in the project's own settings
    # file too.
    project = root / ".claude" / "settings.json"
    project.parent.mkdir(exist_ok=True)
    project.write_text(json.dumps({"permissions": {"deny": ["Bash(head:*)"]}}))
    assert await ask(recorded, bash(recorded, "head src/app.py")) is None
    project.write_text(json.dumps({"permissions": {"additionalDirectories": [str(outside)]}}))
    listed = bash(recorded, f"head {outside}/notes.txt")
    assert decision_of(await ask(recorded, listed)) == "allow"
    # Claude Code's own plan file, outside the project, is still written unasked.
    plan = recorded.plan_file
    write_plan = recorded.event("PreToolUse", "Write", where_file_path=plan.name)
    assert decision_of(await ask(recorded, write_plan)) == "allow"
