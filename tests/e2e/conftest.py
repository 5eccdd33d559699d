from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.claude_code.recorded import VERSIONS, Recorded
from tests.e2e.harness import Editor, running_editor


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("print('hello')\n")
    return workspace.resolve()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    user_home = tmp_path / "home"
    user_home.mkdir()
    return user_home


@pytest.fixture
async def editor(root: Path, home: Path) -> AsyncIterator[Editor]:
    async with running_editor(root, home, init_options={"sessionId": "main"}) as running:
        yield running


@pytest.fixture(params=VERSIONS)
def recorded(request: pytest.FixtureRequest, root: Path, home: Path) -> Recorded:
    session = Recorded(request.param, root, home, f"cc-{request.param.replace('.', '-')}")
    session.write_transcript()
    return session
