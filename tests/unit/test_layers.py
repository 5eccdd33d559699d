"""The layers, core ← agents ← lsp ← cli: core knows no agent and no LSP (its interfaces for
agents are core/agents.py), an agent's adapter knows core but no LSP, and the LSP layer picks
the adapter for a request (lsp/features/agents.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from planmode.agents.claude_code.adapter import ClaudeCode
from planmode.core.service import PlanModeService

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "planmode"


def imports(folder: str) -> dict[str, set[str]]:
    """Every module a file under ``folder`` imports (absolute names), by file."""
    found: dict[str, set[str]] = {}
    for path in (PACKAGE / folder).rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
        found[str(path.relative_to(PACKAGE))] = names
    return found


def test_core_imports_neither_agents_nor_the_lsp_layer() -> None:
    wrong = {
        path: sorted(n for n in names if n.startswith(("planmode.agents", "planmode.lsp", "pygls")))
        for path, names in imports("core").items()
    }
    assert not {path: names for path, names in wrong.items() if names}


def test_agents_do_not_import_the_lsp_layer() -> None:
    wrong = {
        path: sorted(n for n in names if n.startswith(("planmode.lsp", "pygls", "lsprotocol")))
        for path, names in imports("agents").items()
    }
    assert not {path: names for path, names in wrong.items() if names}


def test_a_saved_adoption_needs_the_agent_that_learned_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service that knows no agent which reports plan files drops a saved adoption (a
    session file may have come with the repository); with Claude Code's adapter it stands."""
    root = tmp_path / "project"
    config = tmp_path / "home" / ".claude"
    (config / "plans").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    root.mkdir()
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type": "user", "slug": "claude-slug"}\n')
    service = PlanModeService(root, agents=(ClaudeCode(),))
    session = service.require_session("cc-1")
    service.set_mode(session, "plan")
    call = service.agent(ClaudeCode).call(service.root, str(transcript), str(root), str(config))
    assert service.learn_plan_file(session, call) is None
    assert session.plan_file == config / "plans" / "claude-slug.md"
    again = PlanModeService(root, agents=(ClaudeCode(),)).require_session("cc-1")
    assert again.plan_file == session.plan_file
    assert PlanModeService(root).require_session("cc-1").plan_file is None
