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


# A reference into docs/: the file, then its section numbers (§5.1, "section 1", "§2–§5",
# "sections 2 and 3") and/or names, quoted, of what the section holds ("2. Words: what bash
# would compute"). It may wrap onto the next comment line, and a Markdown link may stand for
# the file. A later bare "§6" of the same file points into the document named last.
NUM = r"\d+(?:\.\d+)*"
MORE = rf"\s*(?:\u2013|,)\s*\u00a7{NUM}|\s+(?:and|or)\s+\u00a7?{NUM}"
SECTIONS = rf"(?:\u00a7|sections? ){NUM}(?:{MORE})*"
QUOTED = r'"[^"]+"(?:\s+and\s+"[^"]+")*'
# Between the parts: spaces, punctuation, comment markers.
GAP = r"[`\s,(#*/]*"
REFERENCE = re.compile(
    rf"docs/(?P<doc>[\w-]+\.md)`?(?:\]\(docs/[\w-]+\.md\))?"
    rf"(?:{GAP}(?P<sections>{SECTIONS}))?(?:{GAP[:-1]}+(?P<names>{QUOTED}))?"
)
# Inside a document, a bare "section 5.6" or "§6" is one of its own.
BARE_SECTIONS = re.compile(SECTIONS)
NUMBER = re.compile(NUM)
# What a quoted name may be: a heading (with or without its number), a bold phrase, a line
# that is a label ("Transitions:") or a code span.
HEADING = re.compile(rf"#{{1,6}}\s+(?P<title>(?:(?P<number>{NUM})\.?\s+)?(?P<text>.*?))\s*")
BOLD = re.compile(r"\*\*(.+?)\*\*")
LABEL = re.compile(r"(\w[\w ]*):")
CODE = re.compile(r"`([^`]+)`")
# A comment's line markers, where a quoted name wraps onto the next line.
WRAP = re.compile(r"\s*\n\s*(?:#|//|\*(?!\*))?\s*")


def _outline(doc: Path) -> tuple[set[str], list[tuple[str, str]]]:
    """A document's section numbers, and what a quoted name may be, each with the number of
    the section it is in ("" before the first numbered heading)."""
    numbers: set[str] = set()
    names: list[tuple[str, str]] = []
    current = ""
    fenced = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if heading := HEADING.fullmatch(line):
            if heading["number"]:
                current = heading["number"]
                numbers.add(current)
            names += [(heading["title"], current), (heading["text"], current)]
            continue
        found = [bold.replace("`", "").rstrip(".") for bold in BOLD.findall(line)]
        found += CODE.findall(line)
        if label := LABEL.fullmatch(line):
            found.append(label[1])
        names += [(name, current) for name in found]
    return numbers, names


def _in(number: str, section: str) -> bool:
    return number == section or number.startswith(section + ".")


def _wrong_references(path: Path, text: str) -> list[str]:
    """Every reference of ``text`` into docs/ that names no file, section or name there."""
    wrong: list[str] = []

    def check(doc_name: str, sections: str, names: str, at: int, quote: str) -> None:
        where = f"{path.relative_to(REPO)}:{text.count(chr(10), 0, at) + 1}: {quote!r}"
        doc = REPO / "docs" / doc_name
        if not doc.is_file():
            wrong.append(f"{where}: docs/{doc_name} does not exist")
            return
        numbers, known = _outline(doc)
        cited = NUMBER.findall(sections)
        wrong.extend(f"{where}: no section {n} in docs/{doc_name}" for n in set(cited) - numbers)
        for name in (WRAP.sub(" ", name) for name in re.findall(r'"([^"]+)"', names)):
            found = [number for candidate, number in known if candidate == name]
            if not found:
                wrong.append(f"{where}: docs/{doc_name} holds no {name!r}")
            elif cited and not any(_in(number, n) for number in found for n in cited):
                wrong.append(f"{where}: {name!r} is not in section {', '.join(cited)}")

    references = list(REFERENCE.finditer(text))
    for ref in references:
        check(ref["doc"], ref["sections"] or "", ref["names"] or "", ref.start(), ref[0])
    for bare in BARE_SECTIONS.finditer(text):
        if any(ref.start() <= bare.start() < ref.end() for ref in references):
            continue
        before = [ref["doc"] for ref in references if ref.end() <= bare.start()]
        if path.parent == REPO / "docs":
            check(path.name, bare[0], "", bare.start(), bare[0])
        elif before:
            check(before[-1], bare[0], "", bare.start(), bare[0])
        elif bare[0].startswith("\u00a7"):
            line = text.count("\n", 0, bare.start()) + 1
            wrong.append(f"{path.relative_to(REPO)}:{line}: {bare[0]!r} names no docs/ file")
    return wrong


def test_every_reference_into_docs_names_a_file_and_section_that_exist() -> None:
    wrong = [
        problem
        for path in _files()
        if path.relative_to(REPO).as_posix() != "tests/unit/test_references.py"
        for problem in _wrong_references(path, path.read_text(encoding="utf-8"))
    ]
    assert not wrong, "references into docs/ that do not resolve:\n" + "\n".join(wrong)


def test_a_wrong_reference_into_docs_is_found() -> None:
    here = REPO / "server" / "example.py"
    right = [
        "see docs/protocol.md \u00a75.1 (approval) and\n# \u00a76.",
        'docs/protocol.md \u00a75.1, "Teammates: authenticated answers"',
        "[`docs/protocol.md`](docs/protocol.md)\n\u00a73 and \u00a710",
        '(docs/read-only-bash.md, "4. Programs,\n    options and operands" and "3. Variables")',
        'docs/protocol.md \u00a72\n# ("Transitions")',
        'for needed in ("docs/protocol.md"):\n    glob("x")',
    ]
    for text in right:
        assert _wrong_references(here, text) == [], text
    wrong = {
        "docs/protocol.md \u00a742": "no section 42",
        "docs/protocol.md section 5.9": "no section 5.9",
        "docs/protocol.md\n    \u00a72\u2013\u00a743": "no section 43",
        "docs/protocol.md \u00a71, and later \u00a744": "no section 44",
        "docs/nothing.md \u00a71": "docs/nothing.md does not exist",
        'docs/protocol.md, "Teammates"': "holds no 'Teammates'",
        'docs/protocol.md \u00a76, "Teammates: authenticated answers"': "is not in section 6",
        "the rule (\u00a76)": "names no docs/ file",
    }
    for text, problem in wrong.items():
        found = _wrong_references(here, text)
        assert len(found) == 1 and problem in found[0], (text, found)
