"""Plan-quality diagnostics: what a careful reader would point out about a plan file.

The checks (docs/protocol.md §8): a plan past 11,617 characters (the 90th percentile of plan
lengths measured in real sessions; longer plans were rejected far more often); the ``cap``
format promises at most 40 lines; the ``cut`` format has no Context section; the control
format ends with how to verify the change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from planmode.core.lines import lsp_lines
from planmode.core.workflow import CAP_LINE_LIMIT

Severity = Literal["error", "warning", "information", "hint"]
P90_PLAN_CHARACTERS = 11_617
SOURCE = "planmode"

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_VERIFICATION = re.compile(r"\b(verif\w*|test\w*|validat\w*|check\w*)\b", re.I)


@dataclass(frozen=True)
class PlanDiagnostic:
    line: int
    severity: Severity
    message: str
    code: str


def plan_diagnostics(
    text: str, plan_format: str | None, empty_exit: bool = False
) -> list[PlanDiagnostic]:
    found: list[PlanDiagnostic] = []
    lines = lsp_lines(text)
    if empty_exit and not text.strip():
        found.append(
            PlanDiagnostic(
                0,
                "information",
                "The agent asked to exit plan mode with an empty plan: approving it lets the "
                "agent proceed without a written plan.",
                "empty-plan",
            )
        )
    if len(text) > P90_PLAN_CHARACTERS:
        found.append(
            PlanDiagnostic(
                0,
                "warning",
                f"This plan is {len(text):,} characters long, past the p90 of measured plans "
                f"({P90_PLAN_CHARACTERS:,}); long plans are rejected far more often. "
                "Consider trimming it.",
                "plan-too-long",
            )
        )
    if plan_format == "cap" and len(lines) > CAP_LINE_LIMIT:
        found.append(
            PlanDiagnostic(
                CAP_LINE_LIMIT,
                "warning",
                f"The cap plan format allows at most {CAP_LINE_LIMIT} lines; this plan has "
                f"{len(lines)}.",
                "cap-over-limit",
            )
        )
    headings = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _HEADING.match(line))]
    if plan_format == "cut":
        for index, title in headings:
            if re.match(r"(context|background)\b", title, re.I):
                found.append(
                    PlanDiagnostic(
                        index,
                        "warning",
                        f"The cut plan format has no '{title}' section: drop it and keep one "
                        "line per file to change.",
                        "cut-has-context",
                    )
                )
    if plan_format is None and text.strip() and not _VERIFICATION.search(text):
        found.append(
            PlanDiagnostic(
                0,
                "hint",
                "The plan says nothing about verification: add how to test the change end to "
                "end (a command to run and what to see).",
                "no-verification",
            )
        )
    return found
