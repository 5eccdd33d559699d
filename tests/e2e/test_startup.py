"""``planmode lsp`` registers its features after the initialize answer (lsp/app.py): a request
sent right after ``initialize`` — before ``initialized`` — is answered as usual, with the
``initializationOptions`` applied."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.e2e.stdio_server import frame, read_message


def test_a_request_right_after_initialize_is_answered(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "planmode", "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        initialize = {
            "processId": None,
            "rootUri": tmp_path.as_uri(),
            "capabilities": {},
            "initializationOptions": {"planMode": {"sessionId": "early"}},
        }
        # Both messages in one write: the second is read before the features were registered.
        server.stdin.write(
            frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize})
            + frame({"jsonrpc": "2.0", "id": 2, "method": "planMode/getState", "params": {}})
            + frame({"jsonrpc": "2.0", "id": 3, "method": "planMode/nope", "params": {}})
        )
        server.stdin.flush()
        answers = {}
        while len(answers) < 3:
            message = read_message(server.stdout)
            if "id" in message and "method" not in message:
                answers[message["id"]] = message
        capabilities = answers[1]["result"]["capabilities"]
        assert capabilities["codeLensProvider"] is not None
        assert "planMode.approve" in capabilities["executeCommandProvider"]["commands"]
        state = answers[2]["result"]
        assert state["sessionId"] == "early"
        assert state["mode"] == "default"
        assert state["planFilePath"].startswith(str(tmp_path.resolve()))
        assert answers[3]["error"]["code"] == -32601
        server.stdin.write(frame({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}))
        server.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
        server.stdin.flush()
        assert server.wait(timeout=20) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
