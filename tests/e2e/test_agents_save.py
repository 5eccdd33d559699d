"""Save for later in the real Gemini CLI, Codex CLI and OpenCode (docs/protocol.md §12.3).

Each with its own end-to-end harness (``test_gemini.py``, ``test_codex.py``,
``test_opencode.py``): the model plans and submits, the user saves the plan for later in the
editor, and what the model reads and what the agent shows are measured; the agent stays in its
plan mode and the library lists the plan ``saved`` with the agent's name. Claude Code's is
``test_claude_code_library.py``.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.e2e import test_codex, test_gemini, test_opencode
from tests.e2e.codex.fake_api import FakeApi as CodexApi
from tests.e2e.codex.fake_api import text
from tests.e2e.codex.tui import Codex
from tests.e2e.gemini.agent import Agent as GeminiAgent
from tests.e2e.gemini.fake_api import FakeApi as GeminiApi
from tests.e2e.gemini.tui import GeminiCli
from tests.e2e.harness import Editor, running_editor
from tests.e2e.opencode.agent import Agent as OpenCodeAgent
from tests.e2e.opencode.tui import OpenCode
from tests.e2e.review import lens

SAVED = "The user saved the plan for later"
PLAN = test_gemini.PLAN


async def listed(editor: Editor, plan: Path) -> dict[str, object]:
    plans = (await editor.request("planMode/listPlans", {}))["plans"]
    (entry,) = [p for p in plans if p["path"] == str(plan)]
    return entry


async def test_save_for_later_in_real_gemini_cli(tmp_path: Path) -> None:
    version = test_gemini.GEMINI_VERSION
    test_gemini.require_gemini()
    root, home = test_gemini.set_up(tmp_path)
    api = GeminiApi()
    base_url = api.start()
    async with running_editor(root, home) as editor:
        await editor.endpoint()
        cli = GeminiCli(root, home, base_url, version)
        try:
            agent = GeminiAgent(api, cli)
            await agent.prompt(test_gemini.PROMPT)
            assert agent.plans is not None
            plan = agent.plans / "greet.md"
            await agent.call("write_file", {"file_path": str(plan), "content": PLAN})
            agent.send("exit_plan_mode", {"plan_filename": "greet.md"})
            await editor.wait_for("planMode/approvalRequested", timeout=30)
            editor.open(plan)
            await editor.run_lens(await lens(editor, plan, "Save for later"))
            told = test_gemini.blocked((await agent.turn()).result("exit_plan_mode"))
            print(f"Gemini CLI {version}: the model reads {told!r}")
            assert told.startswith(SAVED), told
            assert "Do not call exit_plan_mode again for this plan" in told, told
            assert (await editor.state(agent.session_id))["mode"] == "plan"
            entry = await listed(editor, plan)
            assert entry["status"] == "saved" and entry["agent"] == "gemini", entry
            print(f"Gemini CLI's screen after Save for later:\n{cli.screen()}")
        except BaseException:
            print(test_gemini.failure_report(api, cli, tmp_path / "gemini-report"))
            raise
        finally:
            cli.close()
            api.stop()


async def test_save_for_later_in_real_codex(tmp_path: Path) -> None:
    version = test_codex.VERSION
    test_codex.require_codex()
    root = test_codex.workspace(tmp_path)
    home = tmp_path / "home"
    api = CodexApi()
    base_url = api.start()
    test_codex.set_up_codex(root, home, base_url)
    async with running_editor(root, home) as editor:
        await editor.endpoint()
        codex = Codex(version, root, home, base_url, tmp_path, configured=True)
        try:
            model = test_codex.Model(api, codex)
            await asyncio.to_thread(codex.ready)
            await asyncio.to_thread(codex.plan_mode)
            await asyncio.to_thread(codex.type, test_codex.PROMPT)
            await model.turn()
            model.api.reply(text(f"The plan:\n\n<proposed_plan>\n{PLAN}</proposed_plan>\n"))
            requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
            plan = Path(requested["planFilePath"])
            editor.open(plan)
            await editor.run_lens(await lens(editor, plan, "Save for later"))
            saved = await model.turn()
            told = saved.user_texts()[-1]
            print(f"Codex {version}: the model reads {told[told.find('<hook_prompt') :]!r}")
            assert SAVED in told, told
            # Inside <hook_prompt>, Codex escapes the text's angle brackets.
            assert "Do not propose your plan in a &lt;proposed_plan&gt; block" in told, told
            # The turn goes on in Plan mode, and when the model ends it Codex still asks its own
            # "Implement this plan?" (the turn proposed one): the user stays in Plan mode.
            model.api.reply(text("Understood: the plan is saved for later."))
            screen = await asyncio.to_thread(
                codex.wait_screen, "Implement this plan", 30, visible=True
            )
            print(f"Codex's screen after Save for later:\n{screen}")
            assert "No, stay in Plan mode" in screen, screen
            codex.keys("3")
            await asyncio.to_thread(
                codex.wait_screen,
                lambda shown: "Implement this plan?" not in shown,
                10,
                visible=True,
            )
            session = requested["sessionId"]
            assert (await editor.state(session))["mode"] == "plan"
            entry = await listed(editor, plan)
            assert entry["status"] == "saved" and entry["agent"] == "codex", entry
        except BaseException:
            print(test_codex.report(api, codex, tmp_path / "codex-report"))
            raise
        finally:
            codex.close()
            api.stop()


async def test_save_for_later_in_real_opencode(tmp_path: Path) -> None:
    version = test_opencode.VERSION
    test_opencode.require_opencode()
    started = time.monotonic()
    root, home, api, env = test_opencode.set_up(tmp_path)
    async with running_editor(root, home) as editor:
        await editor.endpoint()
        opencode = OpenCode(version, root, home, extra_env=env, args=["--agent", "plan"])
        try:
            agent = OpenCodeAgent(api, opencode)
            await asyncio.to_thread(opencode.ready, 30)
            await agent.prompt(test_opencode.PROMPT)
            plan = agent.plan_path
            assert plan is not None
            await agent.call("write", {"filePath": str(plan), "content": PLAN})
            exit_call = agent.start("plan_exit", {})
            requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
            editor.open(plan)
            await editor.run_lens(await lens(editor, plan, "Save for later"))
            told = await agent.result(exit_call)
            print(f"OpenCode {version}: the model reads {told!r}")
            assert SAVED in told, told
            assert "Do not call plan_exit again for this plan" in told, told
            assert (await editor.state(requested["sessionId"]))["mode"] == "plan"
            assert opencode.agent() == "Plan", opencode.screen()
            entry = await listed(editor, plan)
            assert entry["status"] == "saved" and entry["agent"] == "opencode", entry
            print(f"OpenCode's screen after Save for later:\n{opencode.screen()}")
        except BaseException:
            print(test_opencode.failure_report(api, opencode, tmp_path / "opencode-report"))
            raise
        finally:
            opencode.close()
            api.stop()
    assert time.monotonic() - started < 60
