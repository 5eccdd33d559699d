"""`planmode demo` is the quick start: it must run end to end and say so."""

import subprocess
import sys


def test_demo_runs_every_step() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "planmode", "demo"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "✗" not in run.stdout
    assert "## Approved Plan (edited by user):" in run.stdout
    assert "Demo passed" in run.stdout
    # Nothing but the story: no log lines from the client or the server on the terminal.
    assert run.stderr == "", run.stderr
