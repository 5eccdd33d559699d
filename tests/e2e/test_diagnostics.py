"""Plan-quality diagnostics pushed for the plan file: each appears on its line and goes away."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsprotocol import types

from tests.e2e.harness import Editor, running_editor
from tests.e2e.review import by_code, diagnostics_until

GOOD = "# Plan\n\n1. Change the greeting in src/app.py\n\n## Verification\nRun the tests.\n"


def has(code: str) -> Callable[[list[types.Diagnostic]], bool]:
    return lambda found: bool(by_code(found, code))


def lacks(code: str) -> Callable[[list[types.Diagnostic]], bool]:
    return lambda found: not by_code(found, code)


async def plan_path(editor: Editor) -> Path:
    entered = await editor.request("planMode/enter", {})
    return Path(entered["state"]["planFilePath"])


async def test_control_format_diagnostics(editor: Editor, root: Path) -> None:
    path = await plan_path(editor)

    # An exit with an empty plan: information, until a plan is written.
    task = editor.start("planMode/exit", {"plan": ""})
    found = await diagnostics_until(editor, path, has("empty-plan"))
    (empty,) = by_code(found, "empty-plan")
    assert empty.severity == types.DiagnosticSeverity.Information
    assert empty.range.start.line == 0
    assert empty.source == "planmode"
    assert "empty" in empty.message
    editor.open(path, "")
    editor.change(path, "# Plan\n\n1. Change the greeting\n")
    await diagnostics_until(editor, path, lacks("empty-plan"))

    # No verification step in the control format: a hint, gone once there is one.
    found = await diagnostics_until(editor, path, has("no-verification"))
    (hint,) = by_code(found, "no-verification")
    assert hint.severity == types.DiagnosticSeverity.Hint
    assert "verification" in hint.message.lower()
    editor.change(path, GOOD)
    assert await diagnostics_until(editor, path, lambda found: found == []) == []

    # Past the p90 length: a warning with the figure.
    long = GOOD + "Detail. " * 1500
    assert len(long) > 11_617
    editor.change(path, long)
    found = await diagnostics_until(editor, path, has("plan-too-long"))
    (warning,) = by_code(found, "plan-too-long")
    assert warning.severity == types.DiagnosticSeverity.Warning
    assert warning.range.start.line == 0
    assert "11,617" in warning.message and f"{len(long):,}" in warning.message
    assert [d.code for d in found] == ["plan-too-long"]
    editor.change(path, GOOD)
    assert await diagnostics_until(editor, path, lambda found: found == []) == []

    # Only plan files get diagnostics.
    app = root / "src" / "app.py"
    editor.open(app)
    editor.change(app, "x" * 20_000)
    await editor.settle()
    assert not editor.client.diagnostics.get(app.as_uri())
    task.cancel()


async def test_cap_format_over_40_lines(root: Path, home: Path) -> None:
    options = {"sessionId": "main", "planFormat": "cap"}
    async with running_editor(root, home, init_options=options) as editor:
        path = await plan_path(editor)
        lines = [f"{i}. step {i}\n" for i in range(1, 42)]
        editor.open(path, "".join(lines))
        found = await diagnostics_until(editor, path, has("cap-over-limit"))
        (warning,) = by_code(found, "cap-over-limit")
        assert warning.severity == types.DiagnosticSeverity.Warning
        assert warning.range.start.line == 40
        assert warning.range.end.line == 40
        assert warning.range.end.character == len("41. step 41")
        assert "40" in warning.message and "41" in warning.message
        # Not the control format: no verification hint.
        assert by_code(found, "no-verification") == []
        editor.change(path, "".join(lines[:40]))
        await diagnostics_until(editor, path, lacks("cap-over-limit"))


async def test_cut_format_with_a_context_section(root: Path, home: Path) -> None:
    options = {"sessionId": "main", "planFormat": "cut"}
    async with running_editor(root, home, init_options=options) as editor:
        path = await plan_path(editor)
        text = "# Plan\n\n## Context\nWhy we change it.\n\n## Files\n- src/app.py: greeting\n"
        editor.open(path, text)
        found = await diagnostics_until(editor, path, has("cut-has-context"))
        (warning,) = by_code(found, "cut-has-context")
        assert warning.severity == types.DiagnosticSeverity.Warning
        assert warning.range.start.line == 2
        assert warning.range.end.character == len("## Context")
        assert "Context" in warning.message
        # Moving it moves the diagnostic; dropping it clears it.
        editor.change(path, "# Plan\n\n## Files\n- src/app.py\n\n## Context\nWhy.\n")
        await diagnostics_until(editor, path, lambda f: [d.range.start.line for d in f] == [5])
        editor.change(path, "# Plan\n\n## Files\n- src/app.py: greeting\n")
        await diagnostics_until(editor, path, lacks("cut-has-context"))


async def test_a_settings_change_republishes_open_plans(editor: Editor) -> None:
    """Switching planFormat re-checks the plans already open, without an edit."""
    await editor.ready()
    path = await plan_path(editor)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# Plan\n\n## Context\nWhy.\n\n## Verification\nRun the tests.\n")
    editor.open(path)
    await diagnostics_until(editor, path, lacks("cut-has-context"))
    editor.reconfigure({"planFormat": "cut"})
    found = await diagnostics_until(editor, path, has("cut-has-context"))
    assert by_code(found, "cut-has-context")[0].range.start.line == 2
    editor.reconfigure({})
    await diagnostics_until(editor, path, lacks("cut-has-context"))
