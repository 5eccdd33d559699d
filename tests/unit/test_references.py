"""Comments and docs point into the repository: a maintainer holding only the repository can
follow every reference (docs/ carries the contract and the rules)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("server", "tests", "benchmarks", "docs", "vscode-client/src", "vscode-client/test")
SUFFIXES = {".py", ".ts", ".md", ".el", ".lua", ".sh"}
# Checks that name these references in order to refuse them.
CHECKS = {"tests/unit/test_protocol_doc.py"}
# Documents that live outside the repository: the team's guide and contract, the seeds.
OUTSIDE = re.compile(
    "|".join(
        (
            r"\bguide §",
            r"\bcontract §",
            r"\.\./" + "shared",
            "PROTOCOL" + r"\.md",
            "STYLE" + r"\.md",
            "REAL-" + "CLIENTS",
        )
    )
)


def _files() -> list[Path]:
    found = [REPO / "README.md"]
    for root in ROOTS:
        found += [
            path
            for path in (REPO / root).rglob("*")
            if path.suffix in SUFFIXES
            and "node_modules" not in path.parts
            and path.is_file()
            and path.relative_to(REPO).as_posix() not in CHECKS
        ]
    return found


def test_the_sources_are_found() -> None:
    names = {path.name for path in _files()}
    assert {"server.py", "protocol.ts", "protocol.md", "README.md"} <= names


def test_no_reference_points_outside_the_repository() -> None:
    outside = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in _files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not outside, "references outside the repository:\n" + "\n".join(outside)
