"""The ``planmode`` command line: arguments are checked before anything starts."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("port", "problem"),
    [
        ("99999", "99999 is not a TCP port (0 to 65535)"),
        ("-5", "-5 is not a TCP port (0 to 65535)"),
        ("http", "'http' is not a port number"),
    ],
)
def test_lsp_tcp_refuses_a_port_that_is_no_port(port: str, problem: str) -> None:
    # Before: a traceback from bind() (OverflowError) after the server had started.
    refused = subprocess.run(
        [sys.executable, "-m", "planmode", "lsp", "--tcp", f"--port={port}"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1] == (f"planmode lsp: error: argument --port: {problem}")
    assert "Traceback" not in refused.stderr
    assert refused.stdout == ""


def test_every_verb_says_what_it_does_in_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    from planmode.cli import _parser, verbs

    table = verbs()
    for name, verb in table.items():
        with pytest.raises(SystemExit) as shown:
            _parser(table).parse_args([name, "--help"])
        assert shown.value.code == 0
        text = capsys.readouterr().out
        assert text.startswith(f"usage: planmode {name} ")
        # The description (its one line, capitalized), however the terminal wraps it.
        assert verb.help[1:] in " ".join(text.split()), name
