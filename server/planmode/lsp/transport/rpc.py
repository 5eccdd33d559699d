"""JSON-RPC over every transport (stdio, TCP, the agent endpoint): the protocol a
:class:`~planmode.lsp.server.PlanModeServer` reads its messages with. Each framed body
(:mod:`.framing`) is checked (:mod:`.messages`) and structured; a body that is no JSON-RPC
message, or whose params do not fit its method, gets its own error and one log line, and the
server goes on."""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any

from cattrs import ClassValidationError, transform_error
from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import JsonRpcException
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
)

from planmode.lsp.server import PlanModeServer
from planmode.lsp.transport import framing, messages
from planmode.lsp.transport.messages import MessageId

log = logging.getLogger(__name__)


class PlanModeProtocol(LanguageServerProtocol):
    """Keeps ``planMode/*`` params as plain JSON so pydantic validates them.

    pygls turns params of methods it does not know into namedtuples, which lose the
    difference between an object and a list and mangle keys that are not identifiers.
    """

    def structure_top(self, data: dict[str, Any]) -> Any:
        """The whole message, a valid JSON-RPC message (lsp/transport/messages.py), structured
        as pygls's ``structure_message`` does: a method's own LSP type, else pygls's plain
        request or notification, which its ``params`` keep as JSON."""
        method = data.get("method")
        if isinstance(method, str):
            known = None if method.startswith("planMode/") else self.get_message_type(method)
            if known is not None:
                return self._converter.structure(data, known)
            if "id" in data:
                return JsonRPCRequestMessage(
                    id=data["id"], method=method, jsonrpc=data["jsonrpc"], params=data.get("params")
                )
            return JsonRPCNotification(
                method=method, jsonrpc=data["jsonrpc"], params=data.get("params")
            )
        if "error" in data:
            return self._converter.structure(data, ResponseErrorMessage)
        result_type = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
        return self._converter.structure({"result": None, **data}, result_type)

    def handle_body(self, body: bytes) -> None:
        """One framed message's body (lsp/transport/framing.py), from any transport: a body
        that is no JSON-RPC message is answered with its error (lsp/transport/messages.py) and
        logged in one line; it never stops the server."""
        try:
            message = framing.parse(body)
        except framing.NotJson as exc:
            self.refuse(messages.Refusal(messages.PARSE_ERROR, str(exc)))
            return
        try:
            self.handle_message(message)
        except Exception as exc:
            log.exception("unable to handle a message")
            self._server.report_server_error(exc, JsonRpcException)

    def handle_message(self, message: Any) -> None:
        refusal = messages.check(message)
        if refusal is not None:
            self.refuse(refusal)
            return
        if message.get("method") != "initialize":
            # Every message after initialize finds the features registered (lsp/app.py).
            server = self._server
            if isinstance(server, PlanModeServer):
                server.ensure_features()
        try:
            structured = self.structure_top(message)
        except Exception as exc:
            # Params of the wrong shape for a standard LSP method (or a malformed response).
            self.refuse(malformed(message, exc))
            return
        super().handle_message(structured)

    def refuse(self, refusal: messages.Refusal) -> None:
        """Answer a message that cannot be handled with its error; one log line."""
        log.warning("refused a message (%d): %s", refusal.code, refusal.message)
        if refusal.answer:
            self._send_data(refusal.response())

    def _send_handler_result(self, future: Future[Any], *, msg_id: MessageId) -> None:
        """As pygls's, except that a request answered with its JSON-RPC error (a bad request:
        -32602, -32001…) is one log line, not a traceback."""
        if future.cancelled() or not isinstance(future.exception(), JsonRpcException):
            super()._send_handler_result(future, msg_id=msg_id)
            return
        error = future.exception()
        assert isinstance(error, JsonRpcException)
        self._request_futures.pop(msg_id, None)
        # Params of the wrong shape are a bad message; the others (-32001…) answers.
        level = logging.WARNING if error.code == messages.INVALID_PARAMS else logging.INFO
        log.log(level, "answered request %r with error %d: %s", msg_id, error.code, error.message)
        self._send_response(msg_id, error=error.to_response_error())

    def _check_handler_result(self, future: Future[Any]) -> None:
        """As pygls's, except that a notification refused with a JSON-RPC error (params of the
        wrong shape) is one log line, not an error shown to the user: nothing awaits it."""
        if future.cancelled() or not isinstance(future.exception(), JsonRpcException):
            super()._check_handler_result(future)
            return
        error = future.exception()
        assert isinstance(error, JsonRpcException)
        log.warning("ignored a notification (%d): %s", error.code, error.message)


def malformed(message: dict[str, Any], exc: Exception) -> messages.Refusal:
    """A valid JSON-RPC message that does not fit its LSP type: its params are invalid
    (answered when it is a request), or it is a malformed response (only logged)."""
    method = message.get("method")
    if isinstance(exc, ClassValidationError):
        reason = "; ".join(transform_error(exc)[:3])
    else:
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0]
    if not isinstance(method, str):
        return messages.Refusal(
            messages.INVALID_REQUEST, f"a malformed response: {reason}", answer=False
        )
    return messages.Refusal(
        messages.INVALID_PARAMS,
        f"{method}: params do not fit the request: {reason}",
        message.get("id"),
        answer="id" in message,
    )
