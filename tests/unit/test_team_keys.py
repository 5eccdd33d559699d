"""The teammate's side of lsp/features/teammates/keys.py: the key it hands to the lead's servers."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from planmode.core import plans
from planmode.core.session import Session
from planmode.lsp.app import create_server
from planmode.lsp.features.teammates import keys as team_keys
from planmode.lsp.server import PlanModeServer
from tests.unit.conftest import ServiceFactory

TEAMMATE = {"agentName": "builder", "teamName": "alpha", "planModeRequired": True}


@pytest.fixture
def pushed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[dict[str, Any]]:
    """The params sent to one lead's server, which takes every key."""
    sent: list[dict[str, Any]] = []

    def push(sock: Path, params: dict[str, Any]) -> bool:
        sent.append(params)
        return True

    monkeypatch.setattr(team_keys, "lead_sockets", lambda root, own: [tmp_path / "lead.sock"])
    monkeypatch.setattr(team_keys, "_push", push)
    return sent


def awaiting_teammate(make_service: ServiceFactory) -> tuple[PlanModeServer, Session, str]:
    server = create_server()
    server._service = service = make_service(teammate=TEAMMATE)
    session = service.require_session("mate")
    service.enter(session)
    plans.write_atomic(service.plan_path(session), "# Plan\n")
    result = service.exit_as_teammate(session)
    assert result is not None and result.request_id is not None
    return server, session, result.request_id


async def test_the_key_goes_out_in_the_wire_names(
    make_service: ServiceFactory, pushed: list[dict[str, Any]]
) -> None:
    server, session, request_id = awaiting_teammate(make_service)
    assert await team_keys.deliver(server, session)
    held = server.service.own_request_key(session)
    assert held is not None
    assert pushed == [
        {
            "root": str(server.service.root),
            "teamName": "alpha",
            "agentName": "builder",
            "requestId": request_id,
            "key": held[1].hex(),
            "planSha256": held[2],
        }
    ]


async def test_a_value_the_lead_would_refuse_is_not_sent(
    make_service: ServiceFactory,
    pushed: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    server, session, request_id = awaiting_teammate(make_service)
    held = server.service.own_request_key(session)
    assert held is not None
    monkeypatch.setattr(
        server.service, "own_request_key", lambda _session: (request_id, held[1], "not a digest")
    )
    with caplog.at_level(logging.WARNING, logger=team_keys.__name__):
        assert not await team_keys.deliver(server, session)
    assert pushed == []
    assert "planMode/teammateKey: field 'plan_sha256' is invalid" in caplog.text
