"""Regression tests for defects found in an audit of the code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planmode.core import plans, teams
from planmode.core.approval import plan_digest
from planmode.core.errors import InvalidParams
from planmode.core.service import PlanModeService


def test_fork_into_a_session_with_its_own_plan_does_not_overwrite_it(
    service: PlanModeService, root: Path
) -> None:
    original = service.require_session("orig")
    service.enter(original)
    plans.write_atomic(service.plan_path(original), "# original plan\n")
    log = root / "t.jsonl"
    log.write_text(json.dumps({"type": "user", "slug": original.slug}) + "\n")
    target = service.require_session("target")
    service.enter(target)
    own = service.plan_path(target)
    plans.write_atomic(own, "# the target's own plan\n")

    copied, path = service.fork(target, str(log))

    assert copied is True
    assert path != own  # a fork gets a new slug: the target's own plan stays
    assert path.read_text() == "# original plan\n"
    assert own.read_text() == "# the target's own plan\n"


def test_approving_a_teammate_request_never_writes_outside_the_plans_directory(
    service: PlanModeService, root: Path
) -> None:
    target = root / "src" / "evil.py"
    request = {
        "type": teams.REQUEST,
        "from": "bob",
        "planFilePath": str(target),
        "planContent": "import os\n",
        "requestId": "r1",
    }
    inbox = teams.inbox_path(root, "team", teams.LEAD)
    inbox.parent.mkdir(parents=True)
    inbox.write_text(json.dumps({"from": "bob", "text": json.dumps(request)}) + "\n")
    # Even a request whose key the lead holds (its teammate's server is the one that lies).
    key = bytes(32)
    service.receive_request_key("r1", key, plan_digest("import os\n"), "team", "bob")
    with pytest.raises(InvalidParams, match="planFilePath"):
        service.answer_teammate("r1", True)

    assert not target.exists()
    assert teams.find_response(root, "team", "bob", "r1", key) is None  # nothing was answered
