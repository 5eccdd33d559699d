"""A teammate of an agent team as the end-to-end tests play it: who it is (its
``initializationOptions.teammate``) and its plan submitted for the lead's approval."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.harness import Editor

TEAMMATE = {"agentName": "builder", "teamName": "alpha", "planModeRequired": True}

PLAN = "# Builder's plan\n\n1. build it\n"


async def submit(teammate: Editor) -> dict:
    entered = await teammate.request("planMode/enter")
    plan_path = Path(entered["state"]["planFilePath"])
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(PLAN)
    return await teammate.request("planMode/exit")
