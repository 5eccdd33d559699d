"""The scripted model behind a real Gemini CLI, for tests that also run an editor: each wait
runs in a thread, so the editor's LSP client keeps answering the server meanwhile."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.e2e.fake_api_server import next_turn
from tests.e2e.gemini.fake_api import FakeApi, Request, function_call, text
from tests.e2e.gemini.tui import GeminiCli


class Agent:
    """Plays the model for one interactive Gemini CLI session: one function call per turn, its
    result read from the next request. A turn that does not come back means Gemini is showing
    something in the terminal (a dialog): the error carries the screen."""

    def __init__(self, api: FakeApi, cli: GeminiCli) -> None:
        self.api = api
        self.cli = cli
        self.last: Request | None = None
        self.plans: Path | None = None

    @property
    def session_id(self) -> str:
        """Gemini's session id: its plans directory is ``…/<project>/<session id>/plans``."""
        assert self.plans is not None, "no request named the plans directory yet"
        return self.plans.parent.name

    async def prompt(self, line: str, timeout: float = 60.0) -> Request:
        """The user types ``line``; the first request of the turn."""
        await asyncio.to_thread(self.cli.wait_ready, timeout)
        self.cli.type(line)
        request = await self.turn(timeout)
        found = request.plans_directory()
        if found:
            self.plans = Path(found)
        return request

    async def turn(self, timeout: float = 30.0) -> Request:
        self.last = await next_turn(self.api, timeout, self.cli.visible)
        return self.last

    async def call(self, name: str, args: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """The model calls one tool; its ``response`` as the model reads it (``{"output"}`` or
        ``{"error"}``)."""
        self.send(name, args)
        return (await self.turn(timeout)).result(name)

    def send(self, name: str, args: dict[str, Any]) -> None:
        """The model calls one tool and the test does not wait (a held exit)."""
        self.api.reply(function_call(name, args))

    def say(self, words: str) -> None:
        """End the turn with a text answer."""
        self.api.reply(text(words))


def failure_report(api: FakeApi, cli: GeminiCli, out: Path) -> str:
    """The screen, every request and every tool result the fake API received, for a failure."""
    out.mkdir(parents=True, exist_ok=True)
    screen = cli.screen().rstrip()
    (out / "screen.txt").write_text(screen)
    (out / "api-requests.txt").write_text(api.dump())
    results = [json.dumps(r.result_text()[:400]) for r in api.main_loop()]
    return "\n".join(
        [
            f"== Gemini CLI {cli.version}: files in {out}",
            "== screen",
            screen,
            "== tool results the fake API received",
            *results,
        ]
    )
