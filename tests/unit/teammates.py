"""A required teammate's service as the unit tests play it: made with its team identity, its
plan submitted for the lead's approval, and its request's key handed to the lead as
lsp/features/teammates/keys.py hands it."""

from __future__ import annotations

from planmode.core import plans
from planmode.core.service import PlanModeService
from planmode.core.session import Session
from tests.unit.conftest import ServiceFactory

PLAN = "# Teammate plan\n\n1. build\n"

TEAMMATE = {"agentName": "builder", "teamName": "alpha", "planModeRequired": True}


def teammate_service(make_service: ServiceFactory, **overrides: object) -> PlanModeService:
    return make_service(teammate={**TEAMMATE, **overrides})


def hand_key(mate: PlanModeService, session: Session, lead: PlanModeService) -> None:
    """What lsp/features/teammates/keys.py does between the two servers."""
    handed = mate.own_request_key(session)
    assert handed is not None
    rid, key, digest = handed
    lead.receive_request_key(rid, key, digest, "alpha", "builder")


def submitted(service: PlanModeService, lead: PlanModeService | None = None) -> tuple[Session, str]:
    session = service.require_session("mate")
    service.enter(session)
    plans.write_atomic(service.plan_path(session), PLAN)
    result = service.exit_as_teammate(session)
    assert result is not None
    assert result.outcome == "awaitingLeaderApproval"
    assert result.request_id is not None
    if lead is not None:
        hand_key(service, session, lead)
    return session, result.request_id
