"""The lines of a text as an editor counts them (LSP): only LF, CRLF and CR end a line.

``str.splitlines`` also ends lines at FF, VT, U+2028 and more, which would put every later
line number off by one from the editor's.
"""

from __future__ import annotations

import re

_LINE_WITH_END = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def lsp_lines(text: str, keepends: bool = False) -> list[str]:
    """The lines of ``text``; with ``keepends`` each keeps its line end. A final line end
    starts no further line, so ``""`` has none and ``"a\\n"`` has one."""
    if "\r" in text:
        if keepends:
            return _LINE_WITH_END.findall(text)
        # Normalised to LF first: splitting on one character is several times faster.
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if keepends:
        last = lines.pop()
        lines = [line + "\n" for line in lines]
        if last:
            lines.append(last)
        return lines
    return lines[:-1] if lines[-1] == "" else lines
