"""What a test of the real Claude Code starts from: the versions it runs, the project (one
source file and the plan the model writes) and the user's own settings, into which
``planmode init claude-code`` merges planmode's hooks; and the reason of a denied call as the
model reads it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.e2e.claude_code.fake_api import Request
from tests.e2e.claude_code.tui import installed, prepare_home
from tests.e2e.planmode_cli import init

# The oldest version the hook is written for and the newest at the time of writing; the
# Makefile installs exactly these (make claude-code).
OLDEST, NEWEST = (Path(__file__).parent / "versions.txt").read_text().split()
# Where each keeps its plan: the newest as a new user has it (~/.claude/plans), the oldest with
# Claude Code's plansDirectory setting inside the project, under .claude/ (docs/claude-code.md).
# `make claude-code-latest` runs npm's newest release instead, as a new user has it.
LATEST = os.environ.get("PLANMODE_CLAUDE_CODE_VERSION")
CASES = [(LATEST, None)] if LATEST else [(OLDEST, ".claude/plans"), (NEWEST, None)]

ORIGINAL = "print('hello')\n"
PLAN = "# Greet by name\n\n1. Read the name from argv in src/app.py.\n\n## Verification\nRun it.\n"


def set_up_claude_code(root: Path, home: Path, plans_directory: str | None) -> None:
    """The user's own Claude Code settings; ``planmode init claude-code`` merges the hooks in
    and installs the shell prefix in the user's data directory."""
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir()
    # /proc/self: the tests read their own seccomp status there, which Claude Code would ask
    # about (a read outside the project) and planmode then leaves to Claude Code.
    users: dict[str, object] = {"permissions": {"additionalDirectories": ["/proc/self"]}}
    if plans_directory:
        users["plansDirectory"] = plans_directory
    settings.write_text(json.dumps(users))
    init("claude-code", root, {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")})
    written = json.loads(settings.read_text())
    assert written.get("plansDirectory") == plans_directory, written
    assert set(written["hooks"]) == {"PreToolUse", "PermissionRequest", "SessionEnd"}, written
    prefix = Path(written["env"]["CLAUDE_CODE_SHELL_PREFIX"])
    assert prefix.is_relative_to(home) and prefix.is_file(), written


def require_claude_code(version: str) -> None:
    """Skip the test where Claude Code ``version`` cannot run."""
    why = installed(version)
    if why is not None:
        pytest.skip(f"Claude Code {version} cannot run here: {why}")


def set_up_project(tmp_path: Path, plans_directory: str | None) -> tuple[Path, Path]:
    """The workspace (``src/app.py``) and the private home, ``planmode init claude-code`` done
    over the user's settings."""
    root = (tmp_path / "workspace").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(ORIGINAL)
    home = tmp_path / "home"
    prepare_home(home, root)
    set_up_claude_code(root, home, plans_directory)
    return root, home


def denied(request: Request) -> str:
    """The reason of a denied tool call as the model reads it."""
    results = request.tool_results()
    assert results and results[-1].get("is_error"), request.tool_results()
    return request.result_text()
