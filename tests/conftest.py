"""Shared by every test: `make test` allows no skipped test.

The real clients (Neovim, Emacs, Claude Code, the sandbox) skip themselves where a machine
lacks them, which suits a developer's partial setup. `make test` installs all of them, so there
a skip means a missing install step hiding behind a green run: with PLANMODE_NO_SKIP=1 (set by
`make test`) a skipped test fails with its reason.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if (
        report.skipped
        and not hasattr(report, "wasxfail")
        and os.environ.get("PLANMODE_NO_SKIP") == "1"
    ):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under make test (PLANMODE_NO_SKIP=1): {reason}"
