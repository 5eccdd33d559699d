"""Feature objects: each feature's state is made in its module's register() and found by type
(lsp/server.py); the server tells them when the service starts and when the editor leaves."""

from __future__ import annotations

from pathlib import Path

import pytest

from planmode.lsp import app
from planmode.lsp.features.approval import Approvals
from planmode.lsp.features.buffers import Buffers
from planmode.lsp.features.codelens import LensMemo
from planmode.lsp.features.sessions import Editor
from planmode.lsp.features.settings import InitializationOptions
from planmode.lsp.features.tools import TranscriptWaits
from planmode.lsp.server import Feature
from planmode.lsp.transport.endpoint import Endpoint

KINDS = (Approvals, Buffers, LensMemo, TranscriptWaits, InitializationOptions, Editor, Endpoint)


def test_every_feature_object_is_found_by_its_type_once_registered() -> None:
    eager = app.create_server()
    lazy = app.create_lazy_server()
    with pytest.raises(LookupError, match="Approvals"):
        lazy.get_feature(Approvals)
    lazy.ensure_features()
    for server in (eager, lazy):
        for kind in KINDS:
            assert type(server.get_feature(kind)) is kind
    assert eager.get_feature(Buffers) is not lazy.get_feature(Buffers)

    class Unregistered(Feature):
        pass

    with pytest.raises(LookupError, match="Unregistered"):
        eager.get_feature(Unregistered)


def test_the_service_reads_plans_through_the_buffers_however_it_starts(tmp_path: Path) -> None:
    started_first = app.create_lazy_server()
    started_first.start_service(tmp_path)  # a request before the features were registered
    started_first.ensure_features()
    for server in (started_first, app.create_server()):
        buffers = server.get_feature(Buffers)
        server.start_service(tmp_path)
        assert server.service.open_document_text == buffers.text


async def test_an_editor_leaving_cancels_the_exits_waiting_on_it() -> None:
    server = app.create_server()
    waiter = server.get_feature(Approvals).wait("a1")
    server.connection_ended()
    assert waiter.cancelled()
