"""The package as users get it: ``python -m build`` makes a wheel and an sdist, the wheel goes
into a clean venv (not editable, no dev tools, dependencies from the index), and
``planmode demo`` and ``planmode lsp`` run from there, away from the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.stdio_server import frame, read_message

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(
    os.environ.get("PLANMODE_E2E_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "planmode-e2e"
)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: nothing pointing into the checkout or its venv."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(REPO))
    )
    return {**env, **extra}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # Without arguments, build makes the sdist and then the wheel *from the sdist*: a file the
    # sdist leaves out breaks the wheel here, not on a user's machine.
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    target = tmp_path_factory.mktemp("user") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True, timeout=120)
    (wheel,) = dist.glob("planmode-*.whl")
    pip = [str(target / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run(
        [*pip, "--cache-dir", str(CACHE / "pip"), str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
        env=clean_env(),
    )
    yield target


def test_the_wheel_and_sdist_hold_the_package(dist: Path) -> None:
    (wheel,) = dist.glob("planmode-*.whl")
    (sdist,) = dist.glob("planmode-*.tar.gz")
    sources = {
        p.relative_to(REPO / "server").as_posix() for p in REPO.glob("server/planmode/**/*.py")
    }
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    assert sources <= in_wheel, sorted(sources - in_wheel)
    assert not any(name.startswith("tests/") for name in in_wheel)
    metadata = (
        zipfile.ZipFile(wheel)
        .read(next(n for n in in_wheel if n.endswith(".dist-info/METADATA")))
        .decode()
    )
    assert "Requires-Dist: tree-sitter-bash" in metadata  # the shell grammar is a dependency
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    # The dev tools are pyproject's dependency group, never what a user's install pulls in.
    assert all('extra == "test"' in line for line in requires if "pytest" in line), requires
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in ("pyproject.toml", "README.md", "LICENSE", "docs/protocol.md"):
        assert needed in names, needed


def test_the_wheel_names_no_dev_tool_and_no_extra(dist: Path) -> None:
    (wheel,) = dist.glob("planmode-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(name).decode()
    headers = [
        line
        for line in metadata.splitlines()
        if line.startswith(("Requires-Dist:", "Provides-Extra:"))
    ]
    assert not [line for line in headers if line.startswith("Provides-Extra:")], headers
    tools = ("pytest", "hypothesis", "ruff", "mypy", "build")
    requires = [line.split(":", 1)[1].strip() for line in headers]
    assert not [r for r in requires if r.startswith(tools)], requires


def test_the_installed_package_is_the_wheel_without_test_extras(venv: Path, tmp_path: Path) -> None:
    probe = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.util, planmode; print(planmode.__file__); "
            "print(importlib.util.find_spec('pytest') is not None)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=clean_env(),
    )
    location, has_pytest = probe.stdout.split()
    assert Path(location).is_relative_to(venv), location
    assert has_pytest == "False"


def test_planmode_demo_runs_from_the_wheel(venv: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        [str(venv / "bin" / "planmode"), "demo"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=clean_env(),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Demo passed" in run.stdout
    assert "✗" not in run.stdout


def test_planmode_lsp_answers_initialize_from_the_wheel(venv: Path, tmp_path: Path) -> None:
    server = subprocess.Popen(
        [str(venv / "bin" / "planmode"), "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=clean_env(),
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}},
                }
            )
        )
        server.stdin.flush()
        answer = read_message(server.stdout)
        assert answer["id"] == 1, answer
        result = answer["result"]
        assert result["serverInfo"]["name"] == "planmode"
        assert "planMode.approve" in result["capabilities"]["executeCommandProvider"]["commands"]
        server.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        server.stdin.write(
            frame({"jsonrpc": "2.0", "id": 2, "method": "planMode/enter", "params": {}})
        )
        server.stdin.flush()
        while (message := read_message(server.stdout)).get("id") != 2:
            pass
        assert message["result"]["state"]["mode"] == "plan"
        server.stdin.write(frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}))
        server.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
        server.stdin.flush()
        assert server.wait(timeout=20) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
