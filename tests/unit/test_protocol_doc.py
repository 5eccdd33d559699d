"""docs/protocol.md stays true: every wire name the server has is documented, and every
``planMode/*`` method or ``planMode.*`` name the page mentions exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from planmode.core.settings import Settings
from planmode.lsp import protocol
from planmode.lsp.app import create_server

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "protocol.md"
PACKAGE_JSON = REPO / "vscode-client" / "package.json"

METHOD_RE = re.compile(r"planMode/[A-Za-z]+")
# `planMode.approve`, `planMode.server.pythonPath`, `planMode.client.*` — not the tail of a
# longer dotted path like `initializationOptions.planMode.sessionId`.
DOTTED_RE = re.compile(r"(?<![\w.])planMode\.[A-Za-z]+(?:\.(?:[A-Za-z]+|\*))*")


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def server_names() -> tuple[set[str], set[str]]:
    server = create_server()
    methods = {name for name in server.protocol.fm.features if name.startswith("planMode/")}
    return methods, set(server.protocol.fm.commands)


def wire_constants() -> dict[str, str]:
    return {
        name: value
        for name, value in vars(protocol).items()
        if name.isupper() and isinstance(value, str) and value.startswith("planMode")
    }


def client_contributions() -> set[str]:
    """Names the VS Code client contributes: its palette commands and its settings."""
    contributes = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))["contributes"]
    commands = {c["command"] for c in contributes.get("commands", [])}
    configuration = contributes.get("configuration", {})
    sections = configuration if isinstance(configuration, list) else [configuration]
    settings = {key for section in sections for key in section.get("properties", {})}
    return commands | settings


def test_every_registered_method_and_command_is_documented(
    doc: str, server_names: tuple[set[str], set[str]]
) -> None:
    methods, commands = server_names
    assert methods, "the server registers no planMode/* method: the test lost its subject"
    documented = set(METHOD_RE.findall(doc)) | set(DOTTED_RE.findall(doc))
    missing = sorted((methods | commands) - documented)
    assert not missing, f"registered in the server but missing from docs/protocol.md: {missing}"


def test_every_wire_name_in_protocol_py_is_documented(doc: str) -> None:
    missing = sorted(f"{k} = {v}" for k, v in wire_constants().items() if f"`{v}`" not in doc)
    assert not missing, f"in lsp/protocol.py but missing from docs/protocol.md: {missing}"


def test_every_method_the_doc_names_exists(
    doc: str, server_names: tuple[set[str], set[str]]
) -> None:
    methods, _commands = server_names
    # Notifications are sent, not registered: they exist as constants in lsp/protocol.py.
    known = methods | set(wire_constants().values())
    unknown = sorted(set(METHOD_RE.findall(doc)) - known)
    assert not unknown, f"docs/protocol.md names methods that do not exist: {unknown}"


def test_every_dotted_name_the_doc_names_exists(
    doc: str, server_names: tuple[set[str], set[str]]
) -> None:
    _methods, commands = server_names
    known = commands | client_contributions() | {"planMode.client.*"}
    unknown = sorted(set(DOTTED_RE.findall(doc)) - known)
    assert not unknown, f"docs/protocol.md names commands or settings that do not exist: {unknown}"


def test_every_error_code_is_documented(doc: str) -> None:
    codes = {
        name: value
        for name, value in vars(protocol).items()
        if name.isupper() and isinstance(value, int)
    }
    assert codes
    missing = sorted(f"{k} = {v}" for k, v in codes.items() if f"| {v} |" not in doc)
    assert not missing, f"error codes missing from the table in docs/protocol.md: {missing}"


def test_every_setting_is_documented(doc: str) -> None:
    section = doc.split("## 7. Settings", 1)[1].split("\n## ", 1)[0]
    missing = sorted(name for name in Settings.model_fields if f"`{name}`" not in section)
    assert not missing, f"settings missing from section 7 of docs/protocol.md: {missing}"


def test_the_code_and_readme_point_to_the_doc() -> None:
    assert "docs/protocol.md" in (protocol.__doc__ or "")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "docs/protocol.md" in readme
    for text in (readme, DOC.read_text(encoding="utf-8")):
        assert "../shared" not in text
        assert not re.search(r"guide §", text)


def test_every_cli_verb_is_documented(doc: str) -> None:
    import argparse

    from planmode.cli import _parser

    (verbs,) = (a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert verbs.choices
    missing = sorted(v for v in verbs.choices if not re.search(rf"`(planmode )?{v}\b", doc))
    assert not missing, f"CLI verbs missing from docs/protocol.md: {missing}"
