"""Settings over the wire: plansDirectory, every source's precedence, re-reading, bad values."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from tests.e2e.harness import Editor, capabilities, running_editor


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def plans_dir(state: dict[str, Any]) -> Path:
    return Path(state["planFilePath"]).parent


def naming(texts: list[str], word: str) -> list[str]:
    return [text for text in texts if word in text]


# -- plansDirectory ---------------------------------------------------------------------


async def test_plans_directory_inside_the_root_is_used(root: Path, home: Path) -> None:
    init = {"sessionId": "main", "plansDirectory": "docs/plans"}
    async with running_editor(root, home, init_options=init) as editor:
        await editor.ready()
        state = await editor.state()
        assert plans_dir(state) == root / "docs" / "plans"
        # The plan written there is the one the server sees.
        await editor.request("planMode/enter")
        Path(state["planFilePath"]).parent.mkdir(parents=True)
        Path(state["planFilePath"]).write_text("# Plan\n")
        assert (await editor.state())["planExists"] is True
        await editor.settle()
        assert naming(editor.messages(), "plansDirectory") == []


@pytest.mark.parametrize("where", ["parent", "absolute", "symlink"])
async def test_plans_directory_outside_the_root_falls_back_with_a_warning(
    root: Path, home: Path, tmp_path: Path, where: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    setting = {
        "parent": "../elsewhere",
        "absolute": str(elsewhere),
        "symlink": "linked-plans",
    }[where]
    if where == "symlink":
        (root / "linked-plans").symlink_to(elsewhere, target_is_directory=True)
    init = {"sessionId": "main", "plansDirectory": setting}
    async with running_editor(root, home, init_options=init) as editor:
        await editor.ready()
        state = await editor.state()
        assert plans_dir(state) == root / ".claude" / "plans"
        warning = await editor.message_until(lambda text: "plansDirectory" in text)
        assert warning in editor.warnings()
        assert setting in warning
        # Told once, not once per source read.
        await editor.settle()
        assert len(naming(editor.messages(), "plansDirectory")) == 1, editor.messages()
        # Plan mode still works, and writes nothing outside the workspace.
        entered = await editor.request("planMode/enter")
        assert entered["state"]["mode"] == "plan"
    assert list(elsewhere.iterdir()) == []


async def test_plans_directory_from_a_home_file_outside_the_root_falls_back(
    root: Path, home: Path
) -> None:
    write_json(home / ".claude" / "settings.json", {"plansDirectory": str(home / "plans")})
    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        await editor.ready()
        assert plans_dir(await editor.state()) == root / ".claude" / "plans"
        await editor.message_until(lambda text: "plansDirectory" in text)


# -- precedence -------------------------------------------------------------------------


async def test_every_source_in_order_of_precedence(root: Path, home: Path) -> None:
    write_json(root / ".claude" / "settings.local.json", {"plansDirectory": "from-local"})
    write_json(root / ".claude" / "settings.json", {"plansDirectory": "from-project"})
    write_json(home / ".claude" / "settings.json", {"plansDirectory": "from-home"})
    configuration = {"planMode": {"plansDirectory": "from-config"}}
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, configuration=configuration
    ) as editor:
        await editor.ready()
        assert plans_dir(await editor.state()) == root / "from-config"

        editor.reconfigure({})
        await editor.state_until(lambda s: plans_dir(s) == root / "from-local")

        (root / ".claude" / "settings.local.json").unlink()
        editor.reconfigure({})
        await editor.state_until(lambda s: plans_dir(s) == root / "from-project")

        (root / ".claude" / "settings.json").unlink()
        editor.reconfigure({})
        await editor.state_until(lambda s: plans_dir(s) == root / "from-home")

        (home / ".claude" / "settings.json").unlink()
        editor.reconfigure({})
        await editor.state_until(lambda s: plans_dir(s) == root / ".claude" / "plans")

        editor.reconfigure({"plansDirectory": "from-config-again"})
        await editor.state_until(lambda s: plans_dir(s) == root / "from-config-again")


async def test_initialization_options_win_over_everything(root: Path, home: Path) -> None:
    write_json(root / ".claude" / "settings.local.json", {"plansDirectory": "from-local"})
    write_json(root / ".claude" / "settings.json", {"plansDirectory": "from-project"})
    write_json(home / ".claude" / "settings.json", {"plansDirectory": "from-home"})
    init = {"sessionId": "main", "plansDirectory": "from-init"}
    configuration = {"planMode": {"plansDirectory": "from-config", "autoModeGate": False}}
    async with running_editor(root, home, init_options=init, configuration=configuration) as editor:
        await editor.ready()
        assert plans_dir(await editor.state()) == root / "from-init"
        # The configuration still supplies what the init options leave out.
        error = await editor.error("planMode/setMode", {"mode": "auto"})
        assert error.code == -32602
        # A configuration change cannot override the init options either.
        editor.reconfigure({"plansDirectory": "from-config-2", "autoModeGate": True})
        await _set_auto_eventually(editor)  # the re-read configuration turned the gate on
        assert plans_dir(await editor.state()) == root / "from-init"


async def _set_auto_eventually(editor: Editor, timeout: float = 5.0) -> None:
    """Switch to auto as soon as the re-read configuration allows it."""

    async def attempt() -> None:
        while True:
            try:
                await editor.request("planMode/setMode", {"mode": "auto"})
                return
            except JsonRpcException:
                await asyncio.sleep(0.02)

    await asyncio.wait_for(attempt(), timeout)


async def test_pushed_settings_are_used_when_the_editor_has_no_configuration_pull(
    root: Path, home: Path
) -> None:
    caps = capabilities()
    assert caps.workspace is not None
    caps.workspace.configuration = False
    async with running_editor(root, home, init_options={"sessionId": "main"}, caps=caps) as editor:
        await editor.ready()
        assert plans_dir(await editor.state()) == root / ".claude" / "plans"
        editor.reconfigure({"plansDirectory": "pushed"})
        await editor.state_until(lambda s: plans_dir(s) == root / "pushed")


# -- bad values -------------------------------------------------------------------------


async def test_bad_initialization_options_are_warned_about_and_defaulted(
    root: Path, home: Path
) -> None:
    init = {"sessionId": "main", "planAgentCount": 99, "autoModeGate": "x"}
    async with running_editor(root, home, init_options=init) as editor:
        await editor.ready()
        await editor.message_until(lambda text: "planAgentCount" in text)
        await editor.message_until(lambda text: "autoModeGate" in text)
        # Each warning is shown once.
        await editor.settle()
        assert len(naming(editor.warnings(), "planAgentCount")) == 1, editor.messages()
        assert len(naming(editor.warnings(), "autoModeGate")) == 1, editor.messages()
        # The default (the gate on) is used, and the server keeps working.
        assert (await editor.request("planMode/setMode", {"mode": "auto"}))["mode"] == "auto"
        entered = await editor.request("planMode/enter")
        assert entered["state"]["prePlanMode"] == "auto"


async def test_a_bad_configuration_change_is_warned_about_and_defaulted(
    root: Path, home: Path
) -> None:
    configuration = {"planMode": {"plansDirectory": "good"}}
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, configuration=configuration
    ) as editor:
        await editor.ready()
        assert plans_dir(await editor.state()) == root / "good"
        editor.reconfigure({"plansDirectory": 5, "exploreAgentCount": 0})
        await editor.state_until(lambda s: plans_dir(s) == root / ".claude" / "plans")
        await editor.message_until(lambda text: "plansDirectory" in text)
        await editor.message_until(lambda text: "exploreAgentCount" in text)
        assert (await editor.request("planMode/enter"))["state"]["mode"] == "plan"


async def test_a_settings_file_that_is_not_json_is_warned_about(root: Path, home: Path) -> None:
    bad = root / ".claude" / "settings.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("{ not json")
    write_json(home / ".claude" / "settings.json", {"plansDirectory": "from-home"})
    async with running_editor(root, home, init_options={"sessionId": "main"}) as editor:
        await editor.ready()
        await editor.message_until(lambda text: str(bad) in text)
        # The other sources still count.
        assert plans_dir(await editor.state()) == root / "from-home"


# -- auto mode and the gate -------------------------------------------------------------


async def test_auto_gate_turned_off_during_plan_restores_default_with_a_warning(
    root: Path, home: Path
) -> None:
    configuration = {"planMode": {"autoModeGate": True}}
    async with running_editor(
        root, home, init_options={"sessionId": "main"}, configuration=configuration
    ) as editor:
        await editor.ready()
        assert (await editor.request("planMode/setMode", {"mode": "auto"}))["mode"] == "auto"
        entered = await editor.request("planMode/enter")
        assert entered["state"]["prePlanMode"] == "auto"

        editor.reconfigure({"autoModeGate": False})
        await _wait_for_gate_off(editor)

        pending = editor.start("planMode/exit", {"plan": "# Plan\n\n1. step\n"})
        requested = await editor.wait_for("planMode/approvalRequested")
        assert await editor.request(
            "planMode/approve", {"approvalId": requested["approvalId"]}
        ) == {"ok": True}
        result = await asyncio.wait_for(pending, 10)
        assert result["outcome"] == "approved"
        assert result["restoredMode"] == "default"
        resolved = await editor.wait_for("planMode/approvalResolved")
        assert resolved["restoredMode"] == "default"
        state = await editor.state()
        assert state["mode"] == "default"
        assert state["prePlanMode"] is None
        assert state["autoModeActive"] is False
        warning = await editor.message_until(lambda text: "plan exit -> default" in text)
        assert warning in editor.warnings()


async def test_auto_gate_on_restores_auto_after_approval(editor: Editor) -> None:
    await editor.request("planMode/setMode", {"mode": "auto"})
    await editor.request("planMode/enter")
    pending = editor.start("planMode/exit", {"plan": "# Plan\n"})
    requested = await editor.wait_for("planMode/approvalRequested")
    await editor.request("planMode/approve", {"approvalId": requested["approvalId"]})
    result = await asyncio.wait_for(pending, 10)
    assert result["restoredMode"] == "auto"
    assert (await editor.state())["mode"] == "auto"
    await editor.settle()
    assert naming(editor.messages(), "plan exit -> default") == []


async def _wait_for_gate_off(editor: Editor, timeout: float = 5.0) -> None:
    """The gate is off once switching another session to auto is refused."""

    async def poll() -> None:
        while True:
            try:
                await editor.request("planMode/setMode", {"mode": "auto", "sessionId": "probe"})
            except JsonRpcException:
                return
            await editor.request("planMode/setMode", {"mode": "default", "sessionId": "probe"})
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), timeout)
