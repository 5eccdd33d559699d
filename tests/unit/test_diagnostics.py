"""Plan-quality diagnostics: each rule, its line, its severity, and when it stays quiet."""

from __future__ import annotations

import pytest

from planmode.core.diagnostics import P90_PLAN_CHARACTERS, PlanDiagnostic, plan_diagnostics

GOOD = "# Plan\n\n1. Change src/app.py\n\n## Verification\nRun pytest and see it pass.\n"


def codes(found: list[PlanDiagnostic]) -> list[str]:
    return [d.code for d in found]


def only(found: list[PlanDiagnostic], code: str) -> PlanDiagnostic:
    (match,) = [d for d in found if d.code == code]
    return match


def test_a_good_plan_has_no_diagnostics() -> None:
    for plan_format in (None, "trim", "cut", "cap"):
        assert plan_diagnostics(GOOD, plan_format) == []


def test_the_p90_figure() -> None:
    assert P90_PLAN_CHARACTERS == 11_617


@pytest.mark.parametrize("plan_format", [None, "trim", "cut", "cap"])
def test_long_plan_warns_with_the_figure(plan_format: str | None) -> None:
    text = GOOD + "x" * (P90_PLAN_CHARACTERS + 1 - len(GOOD))
    assert len(text) == P90_PLAN_CHARACTERS + 1
    found = only(plan_diagnostics(text, plan_format), "plan-too-long")
    assert found.severity == "warning" and found.line == 0
    assert "11,617" in found.message and f"{len(text):,}" in found.message


def test_plan_of_exactly_p90_is_fine() -> None:
    text = GOOD + "x" * (P90_PLAN_CHARACTERS - len(GOOD))
    assert len(text) == P90_PLAN_CHARACTERS
    assert "plan-too-long" not in codes(plan_diagnostics(text, None))


def test_length_counts_characters_not_bytes() -> None:
    text = GOOD + "é" * (P90_PLAN_CHARACTERS - len(GOOD))
    assert len(text.encode("utf-8")) > P90_PLAN_CHARACTERS
    assert "plan-too-long" not in codes(plan_diagnostics(text, None))


def cap_plan(lines: int) -> str:
    return "".join(f"{i}. verify step {i}\n" for i in range(1, lines + 1))


def test_cap_format_over_40_lines_warns_on_line_41() -> None:
    assert "cap-over-limit" not in codes(plan_diagnostics(cap_plan(40), "cap"))
    found = only(plan_diagnostics(cap_plan(41), "cap"), "cap-over-limit")
    assert found.severity == "warning"
    assert found.line == 40  # 0-based: the first line past the cap
    assert "40" in found.message and "41" in found.message
    # Without a final newline the count is the same.
    assert "cap-over-limit" in codes(plan_diagnostics(cap_plan(41).rstrip("\n"), "cap"))


@pytest.mark.parametrize("plan_format", [None, "trim", "cut"])
def test_line_cap_only_in_cap_format(plan_format: str | None) -> None:
    assert "cap-over-limit" not in codes(plan_diagnostics(cap_plan(80), plan_format))


def test_cut_format_with_a_context_section_warns_on_its_heading() -> None:
    text = "# Plan\n\n## Context\nWhy we do this.\n\n## Files\n- src/app.py: greet\n"
    found = only(plan_diagnostics(text, "cut"), "cut-has-context")
    assert found.severity == "warning"
    assert found.line == 2
    assert "Context" in found.message


@pytest.mark.parametrize(
    "heading", ["## Context", "# context", "### Background", "## Context and goals", "  ## Context"]
)
def test_cut_context_heading_variants(heading: str) -> None:
    text = f"# Plan\n{heading}\nstuff\n"
    assert only(plan_diagnostics(text, "cut"), "cut-has-context").line == 1


@pytest.mark.parametrize(
    "text",
    [
        "# Plan\nContext: the word in prose\n",
        "# Plan\n## Contextual menus\n",
        "# Plan\n    ## Context (indented code)\n",
    ],
)
def test_cut_without_a_context_heading_is_fine(text: str) -> None:
    assert "cut-has-context" not in codes(plan_diagnostics(text, "cut"))


def test_context_heading_is_fine_outside_cut() -> None:
    text = "# Plan\n## Context\nWhy.\n## Verification\nRun the tests.\n"
    for plan_format in (None, "trim", "cap"):
        assert "cut-has-context" not in codes(plan_diagnostics(text, plan_format))


def test_two_context_sections_two_warnings() -> None:
    text = "## Context\na\n## Background\nb\n"
    found = [d for d in plan_diagnostics(text, "cut") if d.code == "cut-has-context"]
    assert [d.line for d in found] == [0, 2]


def test_control_format_without_verification_is_a_hint() -> None:
    text = "# Plan\n\n1. Change src/app.py\n2. Ship it\n"
    found = only(plan_diagnostics(text, None), "no-verification")
    assert found.severity == "hint"
    assert "verification" in found.message.lower()


@pytest.mark.parametrize(
    "word", ["Verify the output", "Run the tests", "validate it", "check the logs", "TESTING"]
)
def test_any_verification_step_satisfies_control(word: str) -> None:
    text = f"# Plan\n1. Change it\n2. {word}\n"
    assert "no-verification" not in codes(plan_diagnostics(text, None))


@pytest.mark.parametrize("plan_format", ["trim", "cut", "cap"])
def test_verification_hint_only_in_control(plan_format: str) -> None:
    assert "no-verification" not in codes(plan_diagnostics("# Plan\n1. Ship\n", plan_format))


def test_empty_exit_is_information_only_while_empty() -> None:
    found = only(plan_diagnostics("", None, empty_exit=True), "empty-plan")
    assert found.severity == "information" and found.line == 0
    assert "empty" in found.message
    assert codes(plan_diagnostics("  \n\n", None, empty_exit=True)) == ["empty-plan"]
    assert "empty-plan" not in codes(plan_diagnostics(GOOD, None, empty_exit=True))
    assert plan_diagnostics("", None) == []  # an empty file nobody submitted is not news


def test_empty_plan_gets_no_verification_hint() -> None:
    assert "no-verification" not in codes(plan_diagnostics("", None))
    assert "no-verification" not in codes(plan_diagnostics("\n \n", None))


def test_several_rules_at_once() -> None:
    text = "## Context\n" + "".join(f"{i}. step\n" for i in range(50)) + "x" * 12_000
    found = codes(plan_diagnostics(text, "cut"))
    assert sorted(found) == ["cut-has-context", "plan-too-long"]
    found = codes(plan_diagnostics(text, "cap"))
    assert sorted(found) == ["cap-over-limit", "plan-too-long"]
    found = codes(plan_diagnostics(text, None))
    assert sorted(found) == ["no-verification", "plan-too-long"]


def test_messages_are_sentences() -> None:
    text = "## Context\n" + "".join(f"{i}. step\n" for i in range(50)) + "x" * 12_000
    for plan_format in (None, "cut", "cap"):
        for found in plan_diagnostics(text, plan_format):
            assert found.message[0].isupper() and found.message.rstrip().endswith(".")


def test_heading_lines_are_lsp_lines() -> None:
    # A form feed is not a line break in LSP: the heading is on line 2 for the editor.
    text = "# Plan\x0cpage two\nintro\n## Context\n"
    assert only(plan_diagnostics(text, "cut"), "cut-has-context").line == 2
