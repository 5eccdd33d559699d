"""Fixtures for the core's unit tests: a workspace in tmp_path and a home that is not yours."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from planmode.core.service import PlanModeService
from planmode.core.settings import Settings


@pytest.fixture(autouse=True)
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point ``~`` at a scratch directory so no test can read or write the real home."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("USERPROFILE", raising=False)
    for name in (
        "CLAUDE_CODE_PLAN_MODE_INTERVIEW_PHASE",
        "CLAUDE_CODE_PLAN_V2_AGENT_COUNT",
        "CLAUDE_CODE_PLAN_V2_EXPLORE_AGENT_COUNT",
    ):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    return workspace.resolve()


ServiceFactory = Callable[..., PlanModeService]


@pytest.fixture
def make_service(root: Path) -> ServiceFactory:
    """A service on ``root``; keyword arguments become its Settings."""

    def make(**settings: object) -> PlanModeService:
        return PlanModeService(root, Settings.model_validate(settings))

    return make


@pytest.fixture
def service(make_service: ServiceFactory) -> PlanModeService:
    return make_service()
