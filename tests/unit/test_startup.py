"""Start-up: ``planmode lsp`` answers ``initialize`` before it loads its features, and the
capabilities it declares then are exactly those of the registered features."""

from __future__ import annotations

import inspect
import subprocess
import sys

from planmode.lsp import app


def test_the_startup_table_is_what_the_features_register() -> None:
    full = app.create_server().protocol.fm
    standard = {name for name in full.features if not name.startswith("planMode/")}
    missing = standard - set(app.STARTUP_FEATURES)
    extra = set(app.STARTUP_FEATURES) - standard
    assert not missing and not extra, (
        f"lsp/app.py STARTUP_FEATURES is out of date: add {sorted(missing)}, remove {sorted(extra)}"
    )
    for name, options in app.STARTUP_FEATURES.items():
        assert full.feature_options.get(name) == options, name
    assert sorted(app.startup_commands()) == sorted(full.commands)
    # The lazy server hands the initialize params to it from a plain call (lsp/app.py).
    assert not inspect.iscoroutinefunction(full.features["initialize"])


def test_every_standard_handler_is_a_module_function_taking_the_server_first() -> None:
    # pygls passes the server to a handler whose first parameter is annotated with the
    # server's class; it calls a handler whose annotation it cannot resolve with the
    # params alone, so a wrong import would only show as failing requests.
    server = app.create_server()
    for name, registered in server.protocol.fm.features.items():
        if name.startswith("planMode/"):
            continue
        handler = getattr(registered, "func", None)
        assert handler is not None, f"{name}: pygls does not pass it the server"
        assert handler.__qualname__ == handler.__name__, f"{name}: not a module-level function"
        if not inspect.iscoroutinefunction(handler):
            assert registered.args == (server,), name


def test_the_lazy_server_registers_the_same_features_once_loaded() -> None:
    full = app.create_server().protocol.fm
    lazy = app.create_lazy_server()
    before = lazy.protocol.fm
    assert not any(name.startswith("planMode/") for name in before.features)
    lazy.ensure_features()
    assert set(before.features) == set(full.features)
    assert set(before.commands) == set(full.commands)
    assert before.feature_options == full.feature_options
    lazy.ensure_features()  # a second call registers nothing twice


def test_answering_initialize_imports_nothing_heavy() -> None:
    # A fresh interpreter: what the lsp verb imports up to the initialize answer.
    script = (
        "import sys\n"
        "from planmode.cli import _parser\n"
        "from planmode.lsp.transport import stdio\n"
        "from planmode.lsp.app import create_lazy_server\n"
        "_parser().parse_args(['lsp'])\n"
        "create_lazy_server()\n"
        "heavy = ('pydantic', 'tree_sitter', 'tree_sitter_bash', 'coolname', 'platformdirs',\n"
        "         'planmode.core', 'planmode.lsp.params', 'planmode.lsp.lifecycle',\n"
        "         'planmode.lsp.features.settings')\n"
        "print('\\n'.join(sorted(m for m in sys.modules if m.startswith(heavy))))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert run.stdout.strip() == "", f"imported before initialize:\n{run.stdout}"
