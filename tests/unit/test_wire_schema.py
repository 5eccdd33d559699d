"""The wire's payload models and the schema generated from them for the client's tests."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import ValidationError

from planmode.core.approval import Approval as CoreApproval
from planmode.core.approval import ExitResult as CoreExitResult
from planmode.lsp import protocol, results
from planmode.lsp.app import create_server
from planmode.lsp.schema import SCHEMA_PATH, render, wire_schema

REPO = Path(__file__).resolve().parents[2]


def test_the_committed_schema_is_the_generated_one() -> None:
    committed = (REPO / SCHEMA_PATH).read_text(encoding="utf-8")
    assert committed == render(), f"{SCHEMA_PATH} is stale: run `make schema` and commit it"


def test_every_registered_request_and_command_is_in_the_schema() -> None:
    server = create_server()
    methods = {name for name in server.protocol.fm.features if name.startswith("planMode/")}
    commands = set(server.protocol.fm.commands)
    schema = wire_schema()
    assert len(methods) >= 20
    assert set(schema["requests"]) == methods
    assert set(schema["commands"]) == commands
    for kind in ("requests", "commands"):
        for name, entry in schema[kind].items():
            for ref in [entry["params"], *entry["result"].get("anyOf", [entry["result"]])]:
                assert ref["$ref"].removeprefix("#/$defs/") in schema["$defs"], name


def test_notifications_are_the_protocol_s() -> None:
    notifications = set(wire_schema()["notifications"])
    assert notifications == {
        protocol.DID_CHANGE_STATE,
        protocol.APPROVAL_REQUESTED,
        protocol.APPROVAL_RESOLVED,
        protocol.DID_CHANGE_PROGRESS,
    }


def test_an_omitted_field_is_left_out_when_none_and_optional_and_never_null_in_the_schema() -> None:
    resolved = results.ApprovalResolved(approval_id="a1", outcome="rejected")
    assert resolved.wire() == {"approvalId": "a1", "outcome": "rejected"}
    restored = results.ApprovalResolved(approval_id="a1", outcome="approved", restored_mode="plan")
    assert restored.wire()["restoredMode"] == "plan"
    schema = wire_schema()["$defs"]["ApprovalResolved"]
    assert schema["required"] == ["approvalId", "outcome"]
    assert "anyOf" not in schema["properties"]["restoredMode"]


def test_a_nullable_field_is_always_sent_and_required_in_the_schema() -> None:
    result = CoreExitResult(outcome="approved", file_path="/p.md", tool_result="ok")
    wire = results.ExitResult.model_validate(result).wire()
    assert wire["plan"] is None and wire["userEditsDiff"] is None
    schema = wire_schema()["$defs"]["ExitResult"]
    assert set(schema["required"]) == set(schema["properties"])
    assert {"type": "null"} in schema["properties"]["plan"]["anyOf"]


def test_a_payload_reads_core_s_dataclass_and_fails_on_what_it_lacks() -> None:
    approval = CoreApproval(session_id="s1", plan_file_path=Path("/p.md"), submitted_plan="x")
    wire = results.Approval.model_validate(approval).wire()
    assert wire["planFilePath"] == "/p.md" and wire["agentId"] is None
    # A value of another type, or a field core does not hold (and the model gives no default),
    # is an error, not a guess.
    with pytest.raises(ValidationError, match="agent_id"):
        results.Approval.model_validate(replace(approval, agent_id=3))
    with pytest.raises(ValidationError, match="planExists"):
        results.SessionState.model_validate(approval)


def test_a_notification_takes_only_its_model() -> None:
    server = create_server()
    with pytest.raises(TypeError, match="approvalResolved"):
        server.notify(protocol.APPROVAL_RESOLVED, results.OkResult())
