"""LSP lines: only LF, CRLF and CR end a line; a final line end starts no further line."""

from __future__ import annotations

import pytest

from planmode.core.lines import lsp_lines

CASES = [
    ("", [], []),
    ("a", ["a"], ["a"]),
    ("a\n", ["a"], ["a\n"]),
    ("a\nb", ["a", "b"], ["a\n", "b"]),
    ("\n\n", ["", ""], ["\n", "\n"]),
    ("a\r\nb\rc\n", ["a", "b", "c"], ["a\r\n", "b\r", "c\n"]),
    ("\r\r\n\n", ["", "", ""], ["\r", "\r\n", "\n"]),
    ("x\n\r", ["x", ""], ["x\n", "\r"]),
    ("a\x0cb\u2028c\x85d\x0be\n", ["a\x0cb\u2028c\x85d\x0be"], ["a\x0cb\u2028c\x85d\x0be\n"]),
]


@pytest.mark.parametrize(("text", "bare", "with_ends"), CASES)
def test_only_lf_crlf_and_cr_end_a_line(text: str, bare: list[str], with_ends: list[str]) -> None:
    assert lsp_lines(text) == bare
    assert lsp_lines(text, keepends=True) == with_ends
    assert "".join(with_ends) == text
