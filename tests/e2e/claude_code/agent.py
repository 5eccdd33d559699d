"""The scripted model behind a real Claude Code: each tool call and what came back from it."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from tests.e2e.claude_code.fake_api import FakeApi, Request, text, tool_use
from tests.e2e.claude_code.tui import ClaudeCode
from tests.e2e.fake_api_server import next_turn

# Where Claude Code's plan-mode reminder tells the model to write its plan.
PLAN_PATH = re.compile(r"(?:create your plan at|A plan file already exists at) (/\S+?\.md)")


class Agent:
    """Plays the model for one interactive Claude Code session.

    Every wait is bounded and runs in a thread, so the editor's LSP client keeps answering the
    server meanwhile. A turn that does not come back means Claude Code is showing something
    in the terminal (a permission prompt): the error carries the screen.
    """

    def __init__(self, api: FakeApi, claude: ClaudeCode) -> None:
        self.api = api
        self.claude = claude
        self.plan_path: Path | None = None
        self.last: Request | None = None

    async def prompt(self, line: str, timeout: float = 60.0) -> Request:
        """The user types ``line``; the first request of the turn."""
        await asyncio.to_thread(self.claude.wait_status, r"plan mode on", timeout)
        self.claude.type(line)
        request = await self.turn(timeout)
        found = PLAN_PATH.search(request.all_text())
        if found:
            self.plan_path = Path(found.group(1))
        return request

    async def turn(self, timeout: float = 30.0) -> Request:
        self.last = await next_turn(self.api, timeout, self.claude.screen)
        return self.last

    async def call(self, name: str, tool_input: dict[str, Any], timeout: float = 30.0) -> Request:
        """The model calls one tool; the request that carries its result."""
        self.api.reply(tool_use(name, tool_input))
        return await self.turn(timeout)

    async def load(self, name: str) -> None:
        """Load a deferred tool through ToolSearch when the last request does not offer it."""
        assert self.last is not None
        if name in self.last.tool_names:
            return
        request = await self.call("ToolSearch", {"query": f"select:{name}"})
        assert name in request.tool_names, request.tool_names

    def exit_plan_mode(self, allowed_prompts: list[dict[str, str]] | None = None) -> None:
        """Call ExitPlanMode; Claude Code reads the plan from its file. Answered by the user."""
        self.api.reply(
            tool_use("ExitPlanMode", {"allowedPrompts": allowed_prompts} if allowed_prompts else {})
        )

    def say(self, words: str) -> None:
        """End the turn with a text answer."""
        self.api.reply(text(words))


def failure_report(api: FakeApi, claude: ClaudeCode, out: Path) -> str:
    """Screen, Claude Code's debug log and the fake API's requests, saved and summarised."""
    out.mkdir(parents=True, exist_ok=True)
    screen = claude.screen().rstrip()
    debug = claude.debug_log()
    (out / "screen.txt").write_text(screen)
    (out / "claude-debug.log").write_text(debug)
    (out / "api-requests.txt").write_text(api.dump())
    hooks = [line for line in debug.splitlines() if "hook" in line.lower()]
    results = [json.dumps(r.result_text()[:300]) for r in api.log if r.body.get("messages")]
    return "\n".join(
        [
            f"== Claude Code {claude.version}: files in {out}",
            "== screen",
            screen,
            "== debug log, hook lines (last 40)",
            *hooks[-40:],
            "== tool results the fake API received",
            *results,
        ]
    )
