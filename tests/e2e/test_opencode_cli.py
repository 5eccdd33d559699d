"""The real OpenCode CLI (npm's opencode-ai) in its plan agent, with a logging plugin of the
test's own — the groundwork for planmode's OpenCode adapter (docs/opencode.md).

OpenCode runs interactively in tmux (its plan agent, ``OPENCODE_EXPERIMENTAL_PLAN_MODE=1``)
against a scripted OpenAI-compatible API on 127.0.0.1; the test plays the model and reads what
OpenCode sent back. The plugin (tests/e2e/opencode/log_plugin.ts) logs every hook call and
refuses the calls the test names. Shown: a read runs; the plugin sees a write and a shell
command, and its refusal's reason is what the model reads, word for word; OpenCode's own plan
file is written; ``plan_exit`` reaches the plugin and OpenCode's "switch to the build agent?"
question; ``/exit`` disposes of the plugin. Nothing is fetched from the npm registry.

``PLANMODE_OPENCODE_RECORD=DIR`` saves the plugin's payloads there, paths and ids replaced by
placeholders (tests/e2e/hook_payloads/opencode/<version>/ was made so).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

from tests.e2e.opencode.fake_api import FakeApi, Request, text, tool_call
from tests.e2e.opencode.tui import OpenCode, prepare_home, seed_plugin_deps
from tests.e2e.test_opencode import ORIGINAL, VERSION, require_opencode, workspace

HERE = Path(__file__).parent / "opencode"
RECORD = os.environ.get("PLANMODE_OPENCODE_RECORD")

PROMPT = "Plan greeting by name in src/app.py"
PLAN = "# Greet by name\n\n1. Read the name from argv in src/app.py.\n\n## Verification\nRun it.\n"
DENIED = "Denied by the test's plugin: while planning only the plan file may be written."
# Where OpenCode's plan-mode reminder tells the model to write its plan.
PLAN_PATH = re.compile(r"create your plan at (/\S+?\.md)")
# The first answer of its question ("Plan at … is complete. Would you like to switch to the build
# agent and start implementing?"), which the terminal wraps.
EXIT_QUESTION = "Switch to build agent and start implementing the plan"


class Model:
    """Plays the model: one tool call per turn, each answered by OpenCode's next request."""

    def __init__(self, api: FakeApi, opencode: OpenCode) -> None:
        self.api = api
        self.opencode = opencode

    def turn(self, timeout: float = 30.0) -> Request:
        try:
            return self.api.turn(timeout)
        except TimeoutError:
            raise TimeoutError(
                f"OpenCode sent no request within {timeout:.0f} s; its screen:\n"
                + self.opencode.screen()
            ) from None

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Call one tool; what OpenCode sent back for it (the tool's output or its error)."""
        call = tool_call(name, arguments)
        self.api.reply(call)
        request = self.turn()
        result = request.result_for(call["id"])
        assert result is not None, request.messages[-3:]
        return result


def plugin_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def calls(log: list[dict[str, Any]], tool: str) -> list[dict[str, Any]]:
    return [e for e in log if e["hook"] == "tool.execute.before" and e["input"]["tool"] == tool]


def test_plan_agent_with_a_logging_plugin(tmp_path: Path) -> None:
    require_opencode()
    started = time.monotonic()
    root = workspace(tmp_path)
    home = tmp_path / "home"
    api = FakeApi()
    base_url = api.start()
    config_dir = prepare_home(home, VERSION, base_url)
    (config_dir / "plugin").mkdir()
    shutil.copyfile(HERE / "log_plugin.ts", config_dir / "plugin" / "planmode-e2e-log.ts")
    # Its plan file goes into the project's .opencode/, which OpenCode then treats as a config
    # directory too: seeded like the user's, so a later start installs nothing there either.
    seed_plugin_deps(root / ".opencode", VERSION)
    log = tmp_path / "plugin.jsonl"
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"tool": "write", "contains": "/src/", "reason": DENIED}]))
    env = {
        "PLANMODE_E2E_LOG": str(log),
        "PLANMODE_E2E_RULES": str(rules),
        # Any install from the registry would show in the fake API's log, and fail.
        "npm_config_registry": api.registry,
    }
    opencode = OpenCode(VERSION, root, home, extra_env=env, args=["--agent", "plan"])
    try:
        plan_in_opencode(Model(api, opencode), root, log)
        assert api.registry_requests() == []
    except BaseException:
        report(api, opencode, plugin_log(log), tmp_path / "opencode-report")
        raise
    finally:
        opencode.close()
        api.stop()
    if RECORD:
        record(plugin_log(log), Path(RECORD), root, home)
    assert time.monotonic() - started < 60


def plan_in_opencode(model: Model, root: Path, log: Path) -> None:
    opencode = model.opencode
    app = root / "src" / "app.py"
    opencode.ready(30)
    assert opencode.agent() == "Plan", opencode.screen()
    opencode.type(PROMPT)
    first = model.turn()
    assert "plan_exit" in first.tool_names, first.tool_names
    found = PLAN_PATH.search(first.all_text())
    assert found, first.all_text()[-2000:]
    plan = Path(found.group(1))
    assert plan.parent == root / ".opencode" / "plans", plan

    # A read runs.
    assert ORIGINAL.strip() in model.call("read", {"filePath": str(app)})
    # The plugin sees a write and refuses it: the model reads its reason, word for word.
    refused = model.call("write", {"filePath": str(app), "content": "print('hi')\n"})
    assert refused == DENIED, refused
    assert app.read_text() == ORIGINAL
    # The plugin sees a shell command, which runs.
    assert "app.py" in model.call("bash", {"command": "ls src", "description": "List src"})
    # OpenCode's own plan file: its rules let the plan agent write it.
    written = model.call("write", {"filePath": str(plan), "content": PLAN})
    assert "Wrote file successfully" in written, written
    assert plan.read_text() == PLAN

    # plan_exit reaches the plugin, then OpenCode's own question in the terminal; the user's
    # Yes switches to the build agent and the model is told so.
    call = tool_call("plan_exit", {})
    model.api.reply(call)
    opencode.wait_screen(EXIT_QUESTION, 20)
    opencode.keys("Enter")  # its first answer: Yes
    approved = model.turn()
    assert approved.result_for(call["id"]) == (
        "User approved switching to build agent. Wait for further instructions."
    )
    assert "plan_exit" not in approved.tool_names, approved.tool_names
    model.api.reply(text("Done."))
    opencode.wait_screen(r"Done\.", 10)
    assert opencode.agent() == "Build", opencode.screen()
    opencode.exit()

    entries = plugin_log(log)
    # The agent of each request (the title request's is "title"), the way a plugin learns it.
    agents = [e["input"]["agent"] for e in entries if e["hook"] == "chat.params"]
    assert "plan" in agents and agents[-1] == "build", agents
    seen = [e["input"]["tool"] for e in entries if e["hook"] == "tool.execute.before"]
    assert seen == ["read", "write", "bash", "write", "plan_exit"], seen
    (read,) = calls(entries, "read")
    assert read["output"]["args"] == {"filePath": str(app)}
    source, own_plan = calls(entries, "write")
    assert source["output"]["args"]["filePath"] == str(app)
    assert own_plan["output"]["args"] == {"filePath": str(plan), "content": PLAN}
    (bash,) = calls(entries, "bash")
    assert bash["output"]["args"]["command"] == "ls src"
    (exit_call,) = calls(entries, "plan_exit")
    assert exit_call["input"]["callID"] == call["id"] and exit_call["output"]["args"] == {}
    asked = [e for e in entries if e["hook"] == "event" and e["input"]["type"] == "question.asked"]
    assert asked and asked[0]["input"]["properties"]["tool"]["callID"] == call["id"], asked
    assert entries[-1]["hook"] == "dispose", entries[-1]


def report(api: FakeApi, opencode: OpenCode, entries: list[dict[str, Any]], out: Path) -> None:
    """Screen, OpenCode's log, the plugin's log and the fake API's requests, saved and shown."""
    out.mkdir(parents=True, exist_ok=True)
    screen = opencode.screen().rstrip()
    (out / "screen.txt").write_text(screen)
    (out / "opencode.log").write_text(opencode.logs())
    (out / "api-requests.txt").write_text(api.dump())
    (out / "plugin.jsonl").write_text("\n".join(json.dumps(e) for e in entries))
    results = [json.dumps(r.result_text()[:300]) for r in api.main_loop()]
    print(
        "\n".join(
            [
                f"== OpenCode {opencode.version}: files in {out}",
                "== screen",
                screen,
                "== plugin hooks",
                *(f"{e['hook']} {json.dumps(e['input'])[:200]}" for e in entries[-30:]),
                "== tool results the fake API received",
                *results,
            ]
        )
    )


def record(entries: list[dict[str, Any]], out: Path, root: Path, home: Path) -> None:
    """Each payload in its own file, ``NN_<hook>_<tool or event>.json``, with placeholders."""
    out.mkdir(parents=True, exist_ok=True)
    for number, entry in enumerate(entries):
        what = entry["input"].get("tool") or entry["input"].get("type") or ""
        name = f"{number:02d}_{entry['hook']}{'_' + what if what else ''}.json"
        (out / name).write_text(placeholders(json.dumps(entry, indent=1), root, home) + "\n")


def placeholders(payload: str, root: Path, home: Path) -> str:
    payload = payload.replace(str(root), "WORKSPACE").replace(str(home), "HOME")
    for prefix, name in (
        ("ses", "SESSION_ID"),
        ("msg", "MESSAGE_ID"),
        ("prt", "PART_ID"),
        ("que", "QUESTION_ID"),
        ("per", "PERMISSION_ID"),
        ("evt", "EVENT_ID"),
    ):
        payload = re.sub(rf"\b{prefix}_[0-9A-Za-z]{{20,}}", name, payload)
    return payload
