"""allowedPrompts: each prompt one exact rule, described as the approval shows it."""

from __future__ import annotations

import subprocess

import pytest

from planmode.core.grants import plain_words, prompt_allows, rule_for


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("pytest -q tests/unit", ("pytest", "-q", "tests/unit")),
        ("pytest  -k 'a and b'", ("pytest", "-k", "a and b")),
        ("npm run dev -- --port=3", ("npm", "run", "dev", "--", "--port=3")),
        ("make test\t V=1", ("make", "test", "V=1")),
        ("pytest 'x'y'$HOME'", ("pytest", "xy$HOME")),  # single quotes: literal
        ("run tests; rm -rf x", None),
        ("pytest;rm x", None),
        ("pytest && rm x", None),
        ("pytest | sh", None),
        ("pytest > out", None),
        ("pytest $(rm x)", None),
        ("pytest `rm x`", None),
        ('pytest -k "$x"', None),  # double quotes expand
        ("pytest $HOME", None),
        ("pytest ~/x", None),
        ("pytest *.py", None),
        ("pytest {a,b}", None),
        ("pytest # comment", None),
        ("pytest\\;rm", None),
        ("pytest\nrm x", None),
        ("pytest\rrm", None),
        ("pytest 'unterminated", None),
        ("X=1 pytest", None),  # an assignment, not a program
        ("'pytest' -q", None),  # a quoted program name
        ("", None),
        ("   ", None),
    ],
)
def test_plain_words(command: str, words: tuple[str, ...] | None) -> None:
    assert plain_words(command) == words


@pytest.mark.parametrize(
    "command",
    ["pytest -q tests/unit", "pytest  -k 'a and b' 'x y'", "make test\t V=1", "pytest 'x'y'$HOME'"],
)
def test_plain_words_are_the_words_bash_runs(command: str) -> None:
    argv = subprocess.run(
        ["bash", "-c", f"set -f; printf '%s\\0' {command}"], capture_output=True, check=True
    ).stdout.split(b"\0")[:-1]
    assert tuple(a.decode() for a in argv) == plain_words(command)


@pytest.mark.parametrize(
    ("tool", "prompt", "command", "covered"),
    [
        ("Bash", "run tests", "pytest -q", True),
        ("Bash", "run tests", "python -m pytest tests/unit -k 'a or b'", True),
        ("Bash", "run tests", "pytest; rm -rf /", False),
        ("Bash", "run tests", "pytestevil", False),
        ("Bash", "run tests", "python -m pytestx", False),
        ("Bash", "run tests; rm -rf /", "pytest", True),  # a category: its commands only
        ("Bash", "run tests; rm -rf /", "rm -rf /", False),
        ("Bash", "npm run dev", "npm run dev", True),
        ("Bash", "npm run dev", "npm  run   dev", True),
        ("Bash", "npm run dev", "npm run dev --port 3", False),
        ("Bash", "npm run dev", "npm run 'dev'", True),  # the same words to bash
        ("Bash", "npm run dev *", "npm run dev --port 3", True),
        ("Bash", "npm run dev *", "npm run dev", True),
        ("Bash", "npm run dev *", "npm run dev; rm x", False),
        ("Bash", "npm run dev *", "npm run devil", False),
        ("Bash", "npm run dev *", "npm run dev $(rm x)", False),
        ("Bash", "deploy; rm -rf /", "deploy", False),  # not plain words: nothing
        ("Bash", "deploy; rm -rf /", "deploy; rm -rf /", False),
        ("Bash", "npm * dev", "npm run dev", False),
        ("Bash", "*", "rm -rf /", False),
        ("Read", "npm run dev", "npm run dev", False),
    ],
)
def test_prompt_allows(tool: str, prompt: str, command: str, covered: bool) -> None:
    assert prompt_allows(tool, prompt, command) is covered


def test_rules_say_exactly_what_they_match() -> None:
    assert rule_for("Bash", "npm run dev").rule == "Bash “npm run dev”: exactly `npm run dev`"
    assert rule_for("Bash", "npm run dev *").rule == (
        "Bash “npm run dev *”: `npm run dev` followed by any plain words"
    )
    tests = rule_for("Bash", "run the tests").rule
    assert tests.startswith("Bash “run the tests” (category test): `pytest`, `python -m pytest`")
    assert tests.endswith("`gradle test`, each followed by any plain words")
    assert rule_for("Bash", "deploy; rm").rule == (
        "Bash “deploy; rm”: allows nothing (the prompt is not plain words; '*' may only be its "
        "last word)"
    )
    assert rule_for("Read", "x").rule == (
        "Read “x”: allows nothing (only Bash prompts are granted)"
    )
    assert rule_for("Bash", "npm run dev").label() == "`npm run dev`"
    assert rule_for("Bash", "npm run dev *").label() == "`npm run dev` …"
    assert rule_for("Bash", "lint").label() == "“lint” (lint commands)"
    assert rule_for("Bash", "a;b").rule.endswith(
        "allows nothing (the prompt is not plain words; '*' may only be its last word)"
    )
