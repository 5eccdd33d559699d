"""The scripted model behind a real OpenCode: each tool call and what came back from it, with
waits that leave the editor's LSP client running (every wait is in a thread)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.e2e.fake_api_server import next_turn
from tests.e2e.opencode.fake_api import FakeApi, Request, text, tool_call
from tests.e2e.opencode.tui import OpenCode

# Where OpenCode's plan-mode reminder tells the model to write its plan.
PLAN_PATH = re.compile(r"(?:create your plan at|A plan file already exists at) (/\S+?\.md)")


class Agent:
    """Plays the model for one interactive OpenCode session. A turn that does not come back
    means OpenCode shows something in the terminal (a question): the error carries the
    screen."""

    def __init__(self, api: FakeApi, opencode: OpenCode) -> None:
        self.api = api
        self.opencode = opencode
        self.plan_path: Path | None = None
        self.last: Request | None = None

    async def prompt(self, line: str, timeout: float = 60.0) -> Request:
        """The user types ``line``; the first request of the turn."""
        self.opencode.type(line)
        request = await self.turn(timeout)
        found = PLAN_PATH.search(request.all_text())
        if found:
            self.plan_path = Path(found.group(1))
        return request

    async def turn(self, timeout: float = 30.0) -> Request:
        self.last = await next_turn(self.api, timeout, self.opencode.screen)
        return self.last

    async def call(self, name: str, arguments: dict[str, Any], timeout: float = 30.0) -> str:
        """The model calls one tool; what OpenCode sent back for it (its output or error)."""
        call = self.start(name, arguments)
        return await self.result(call, timeout)

    def start(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The model calls one tool (its answer comes with the next turn)."""
        call = tool_call(name, arguments)
        self.api.reply(call)
        return call

    async def result(self, call: dict[str, Any], timeout: float = 30.0) -> str:
        request = await self.turn(timeout)
        found = request.result_for(call["id"])
        assert found is not None, json.dumps(request.messages[-3:])[:2000]
        return found

    def say(self, words: str) -> None:
        """End the turn with a text answer."""
        self.api.reply(text(words))


def failure_report(api: FakeApi, opencode: OpenCode, out: Path) -> str:
    """Screen, OpenCode's log and every tool result the fake API received, saved and shown."""
    out.mkdir(parents=True, exist_ok=True)
    screen = opencode.screen().rstrip()
    (out / "screen.txt").write_text(screen)
    (out / "opencode.log").write_text(opencode.logs())
    (out / "api-requests.txt").write_text(api.dump())
    plugin = [
        line
        for line in opencode.logs().splitlines()
        if "plugin" in line.lower() or "planmode" in line.lower()
    ]
    results = [json.dumps(r.result_text()[:300]) for r in api.main_loop()]
    return "\n".join(
        [
            f"== OpenCode {opencode.version}: files in {out}",
            "== screen",
            screen,
            "== OpenCode's log about plugins",
            *plugin[-30:],
            "== tool results the fake API received",
            *results,
        ]
    )
