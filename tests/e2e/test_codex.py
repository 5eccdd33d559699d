"""Plan mode in the real Codex CLI (from npm, pinned), with the editor's server deciding.

Codex runs interactively in tmux, as its users run it, against a scripted Responses API on
127.0.0.1 (tests/e2e/codex/); ``planmode init codex`` set its hooks up in the project and
trusted them in the user's configuration. The test plays the model and the editor (a
pytest-lsp client that started the server). What the model learns comes back in the next
request Codex sends the API; what happened on disk is checked on disk.

The flow (docs/codex.md, "The adapter"): in Codex's Plan mode reads run, inside planmode's
sandbox; a patch of a source file and ``rm -rf`` are refused with plan mode's reason; the
plan is the model's ``<proposed_plan>``, held at the turn's end (the Stop hook) while the
editor reviews it; a rejection with a comment reaches the model and the turn goes on; the
revision is edited in place and approved with auto-accept edits; Codex asks "Implement this
plan?" (no hook answers that for the user), and with the prompt that starts implementing the
model reads the approved text; the implementation's patch runs, outside the sandbox.
"""

from __future__ import annotations

import asyncio
import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.codex.fake_api import FakeApi, Request, custom_tool_call, function_call, text
from tests.e2e.codex.fake_api import patch as make_patch
from tests.e2e.codex.fake_api import update_file as patch_update
from tests.e2e.codex.tui import Codex, installed, versions, write_config
from tests.e2e.harness import Editor, running_editor
from tests.e2e.planmode_cli import init
from tests.e2e.review import lens

# The pinned version; `make agents-latest` runs npm's newest instead.
VERSION = os.environ.get("PLANMODE_CODEX_VERSION") or versions()[0]
PROMPT = "Plan greeting by name in src/app.py"
ORIGINAL = "print('hello')\n"
PLAN = "# Greet by name\n\n1. Read the name from argv in src/app.py.\n\n## Verification\nRun it.\n"
FEEDBACK = "Add a test for the greeting."
REVISED = PLAN.replace("\n\n## Verification", "\n2. Add a test.\n\n## Verification")
USER_LINE = "3. Mention it in the README.\n"
COMMENT = "> [!review] Which argument: the first, or --name?\n"
COMMENT_TOLD = (
    "The user's comments on the plan, each on the text it quotes:\n"
    "1. under “Greet by name” on line 3: “1. Read the name from argv in src/app.py.”\n"
    "   Which argument: the first, or --name?"
)
BLOCKED = "Command blocked by PreToolUse hook: Denied by plan mode"
EVENTS = ["PreToolUse", "PermissionRequest", "Stop", "UserPromptSubmit", "SessionEnd"]


def require_codex() -> None:
    """Skip the test where Codex cannot run."""
    why = installed(VERSION)
    if why is not None:
        pytest.skip(f"Codex CLI {VERSION} cannot run here: {why}")


def workspace(tmp_path: Path) -> Path:
    """The project: ``src/app.py``."""
    root = (tmp_path / "workspace").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(ORIGINAL)
    return root


def set_up_codex(root: Path, home: Path, base_url: str) -> None:
    """The user's own Codex configuration (the provider, the project trusted), and
    ``planmode init codex``: the project's hooks, trusted in the user's config.toml."""
    config = write_config(home / ".codex", root, base_url)
    users = config.read_text()
    init("codex", root, {"HOME": str(home), "CODEX_HOME": str(home / ".codex")})
    hooks = json.loads((root / ".codex" / "hooks.json").read_text())["hooks"]
    assert list(hooks) == EVENTS, hooks
    # The user's keys stay as they were; the trust of each hook is added below them.
    merged = config.read_text()
    assert merged.startswith(users), merged
    state = tomllib.loads(merged)["hooks"]["state"]
    assert len(state) == len(EVENTS), state


class Model:
    """The scripted model's side of the Codex session: each reply, then the request that
    carries what came of it (waited for in a thread: the editor's loop keeps running)."""

    def __init__(self, api: FakeApi, codex: Codex) -> None:
        self.api = api
        self.codex = codex

    async def turn(self, timeout: float = 30.0) -> Request:
        try:
            return await asyncio.to_thread(self.api.turn, timeout)
        except TimeoutError:
            raise TimeoutError(
                f"Codex sent no request within {timeout:.0f} s; its screen:\n"
                + self.codex.visible()
            ) from None

    async def call(self, item: dict[str, Any]) -> Request:
        self.api.reply(item)
        return await self.turn()

    def session_id(self) -> str:
        return str(self.codex.transcript()[0]["payload"]["id"])


def report(api: FakeApi, codex: Codex, out: Path) -> str:
    out.mkdir(parents=True, exist_ok=True)
    (out / "screen.txt").write_text(codex.screen())
    (out / "api-requests.txt").write_text(api.dump())
    outputs = [json.dumps(r.output()[:300]) for r in api.main_requests()]
    return "\n".join(
        [
            f"== Codex {codex.version}: files in {out}",
            "== screen",
            codex.visible().rstrip(),
            "== tool outputs the fake API received",
            *outputs,
        ]
    )


async def test_plan_mode_in_real_codex(tmp_path: Path) -> None:
    require_codex()
    root = workspace(tmp_path)
    home = tmp_path / "home"
    api = FakeApi()
    base_url = api.start()
    set_up_codex(root, home, base_url)
    async with running_editor(root, home) as editor:
        await editor.endpoint()
        codex = Codex(VERSION, root, home, base_url, tmp_path, configured=True)
        try:
            await plan_in_codex(Model(api, codex), editor, root)
        except BaseException:
            print(report(api, codex, tmp_path / "codex-report"))
            raise
        finally:
            codex.close()
            api.stop()


async def plan_in_codex(model: Model, editor: Editor, root: Path) -> None:
    codex = model.codex
    app = root / "src" / "app.py"
    await asyncio.to_thread(codex.ready)
    await asyncio.to_thread(codex.plan_mode)
    await asyncio.to_thread(codex.type, PROMPT)
    first = await model.turn()
    assert any("<collaboration_mode># Plan Mode" in t for t in first.user_texts())

    # Reading is allowed, and a read-only command runs in planmode's sandbox: Codex's own
    # shows Seccomp 2 as well, so the sign is the sandbox's private TMPDIR (docs/codex.md).
    read = await model.call(function_call("exec_command", {"cmd": "cat src/app.py"}))
    assert "print('hello')" in read.output(), read.output()
    session = model.session_id()
    state = await editor.state(session)
    assert state["mode"] == "plan", state
    boxed = await model.call(function_call("exec_command", {"cmd": "printenv TMPDIR"}))
    assert "/planmode-sandbox-" in boxed.output(), boxed.output()

    # A write of a source file is refused with plan mode's reason, and so is rm -rf.
    source_patch = make_patch(patch_update("src/app.py", "print('hello')", "print('hi')"))
    written = await model.call(custom_tool_call("apply_patch", source_patch))
    told = written.output()
    assert told.startswith(BLOCKED) and "<proposed_plan>" in told, told
    assert app.read_text() == ORIGINAL
    removed = await model.call(function_call("exec_command", {"cmd": "rm -rf src"}))
    told = removed.output()
    assert told.startswith(f"{BLOCKED} (read-only Bash)") and "rm" in told, told
    assert app.exists()

    # The plan: the turn ends with a <proposed_plan>; its Stop hook holds it while the editor
    # shows it for review, in the plan file plan mode wrote.
    model.api.reply(text(f"The plan:\n\n<proposed_plan>\n{PLAN}</proposed_plan>\n"))
    requested = await editor.wait_for("planMode/approvalRequested", timeout=30)
    plan = Path(requested["planFilePath"])
    assert requested["sessionId"] == session
    assert plan.parent == root / ".claude" / "plans" and plan.read_text() == PLAN
    await editor.until(lambda: plan.as_uri() in [d.uri for d in editor.client.shown_documents])
    editor.open(plan)

    # The user comments on the first step and rejects with feedback: the model reads both, in
    # the same turn, which goes on in Plan mode (Codex asks nothing).
    editor.change(plan, PLAN.replace("src/app.py.\n", "src/app.py.\n" + COMMENT))
    reject = await lens(editor, plan, "Reject… (1 comment)")
    assert reject.command is not None
    arguments = list(reject.command.arguments or [])
    await editor.execute(reject.command.command, [{**arguments[0], "feedback": FEEDBACK}])
    rejected = await model.turn()
    told = "\n".join(rejected.user_texts())
    assert "User rejected the plan. Keep planning" in told, told
    assert FEEDBACK in told and COMMENT_TOLD in told and "<proposed_plan>" in told, told
    assert "Implement this plan" not in codex.visible()
    assert (await editor.state(session))["mode"] == "plan"

    # The model proposes its revision; the user edits it in place and approves it with
    # auto-accept edits.
    model.api.reply(text(f"Revised:\n\n<proposed_plan>\n{REVISED}</proposed_plan>\n"))
    await editor.wait_for("planMode/approvalRequested", count=2, timeout=30)
    await editor.until(lambda: editor.buffers.get(plan) == REVISED)
    edited = REVISED + USER_LINE
    editor.change(plan, edited)
    await editor.run_lens(await lens(editor, plan, "auto-accept"))
    state = await editor.state_until(lambda s: s["mode"] != "plan", session_id=session)
    assert state["mode"] == "acceptEdits", state
    assert plan.read_text() == edited

    # The turn ends; Codex asks whether to implement the plan — its own question, which no
    # hook answers — under plan mode's note. The user says yes.
    shown = await asyncio.to_thread(codex.wait_screen, "Implement this plan", 30, visible=True)
    assert "approved in the editor with your edits" in codex.screen(), shown
    codex.keys("1")
    implementing = await model.turn()
    texts = implementing.user_texts()
    assert "Implement the plan." in texts, texts[-3:]
    assert any("Collaboration Mode: Default" in t for t in texts), texts[-3:]
    approved = texts[-1]
    assert approved.startswith("User has approved your plan"), approved
    assert f"## Approved Plan (edited by user):\n{edited}" in approved, approved

    # Codex implements in its Default mode: the patch goes through under Codex's own rules,
    # and commands run outside planmode's sandbox.
    done = await model.call(custom_tool_call("apply_patch", source_patch))
    assert "Success" in done.output(), done.output()
    assert app.read_text() == "print('hi')\n"
    plain = await model.call(function_call("exec_command", {"cmd": "printenv TMPDIR"}))
    assert "/planmode-sandbox-" not in plain.output(), plain.output()
    model.api.reply(text("Done."))
    await asyncio.to_thread(codex.wait_screen, r"Done\.", 10)
    assert (await editor.state(session))["mode"] == "acceptEdits"

    await asyncio.to_thread(codex.type, "/exit")
    await asyncio.to_thread(codex.wait_exit, 30)
