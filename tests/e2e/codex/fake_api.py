"""A scripted OpenAI Responses API on 127.0.0.1 for driving the real Codex CLI.

Codex reaches it through a custom model provider in ``CODEX_HOME/config.toml`` (``base_url``
ending in ``/v1``, ``wire_api = "responses"``, ``env_key``): every model turn is a
``POST /v1/responses`` with ``stream: true``, answered as Server-Sent Events in the shape the
real API streams them (``response.created``, ``response.in_progress``,
``response.output_item.added``, ``response.content_part.added``, ``response.output_text.delta``,
``response.function_call_arguments.delta``/``.done``, ``response.custom_tool_call_input.delta``,
``response.output_item.done``, ``response.completed``).

The test plays the model: ``turn()`` waits for Codex's next main-loop request (the one that
offers the agent's tools) and ``reply()`` answers it with text, a function call (``shell``-like
tools, ``exec_command``…) or a custom tool call (the freeform ``apply_patch``). Side requests
— the thread title (a request without the agent's tools that asks for JSON) and anything else
Codex asks on the side — are answered at once with plausible content. ``GET /v1/models``
answers the one model the tests configure. Every request is logged for failure reports.
"""

from __future__ import annotations

import gzip
import itertools
import json
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.fake_api_server import JsonHandler, ScriptedApi

# A model from Codex's built-in list: with an unknown name Codex offers no apply_patch tool.
MODEL = "gpt-5.5"

_ids = itertools.count(1)


def _id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):032x}"


def text(value: str) -> dict[str, Any]:
    """An assistant message (``<proposed_plan>`` blocks are written this way too)."""
    return {
        "type": "message",
        "id": _id("msg"),
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": value, "annotations": [], "logprobs": []}],
    }


def function_call(name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    """A JSON function call (``exec_command``, ``shell``, ``update_plan``…)."""
    encoded = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "type": "function_call",
        "id": _id("fc"),
        "call_id": _id("call"),
        "name": name,
        "arguments": encoded,
        "status": "completed",
    }


def custom_tool_call(name: str, tool_input: str) -> dict[str, Any]:
    """A freeform tool call: ``apply_patch`` takes the patch text itself."""
    return {
        "type": "custom_tool_call",
        "id": _id("ctc"),
        "call_id": _id("call"),
        "name": name,
        "input": tool_input,
        "status": "completed",
    }


def patch(*hunks: str) -> str:
    """An ``apply_patch`` body: ``*** Begin Patch`` … ``*** End Patch`` around the hunks."""
    return "*** Begin Patch\n" + "".join(hunks) + "*** End Patch\n"


def add_file(path: str, content: str) -> str:
    lines = "".join(f"+{line}\n" for line in content.splitlines())
    return f"*** Add File: {path}\n{lines}"


def update_file(path: str, old: str, new: str) -> str:
    return f"*** Update File: {path}\n@@\n-{old}\n+{new}\n"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received: float = field(default_factory=time.monotonic)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools offered: ``tools``, and for models in code mode the ``additional_tools``
        input item (namespaces flattened: ``functions`` plain, others ``namespace.name``)."""
        offered = [t for t in self.body.get("tools") or [] if isinstance(t, dict)]
        for item in self.items:
            if item.get("type") == "additional_tools":
                offered += _flatten_namespaces(item.get("tools") or [])
        return offered

    @property
    def tool_names(self) -> list[str]:
        return [_tool_name(t) for t in self.tools]

    def tool(self, name: str) -> dict[str, Any] | None:
        return next((t for t in self.tools if _tool_name(t) == name), None)

    @property
    def items(self) -> list[dict[str, Any]]:
        found = self.body.get("input")
        return [i for i in found if isinstance(i, dict)] if isinstance(found, list) else []

    def since_assistant(self) -> list[dict[str, Any]]:
        """The input items after the model's last output (tool outputs, messages)."""
        items = self.items
        for index in range(len(items) - 1, -1, -1):
            item = items[index]
            if item.get("role") == "assistant" or item.get("type") in _MODEL_ITEMS:
                return items[index + 1 :]
        return items

    def tool_outputs(self) -> list[dict[str, Any]]:
        """The outputs answering the model's last calls (``function_call_output``,
        ``custom_tool_call_output``), in order."""
        return [i for i in self.since_assistant() if i.get("type") in _OUTPUT_ITEMS]

    def output(self, call: dict[str, Any] | None = None) -> str:
        """The text Codex sent back for ``call`` (default: every output of the last calls)."""
        outputs = [
            o
            for o in self.tool_outputs()
            if call is None or o.get("call_id") == call.get("call_id")
        ]
        return "\n".join(_flatten(o.get("output")) for o in outputs)

    def texts(self) -> list[str]:
        """Every text in the input, in order (messages, tool outputs, instructions aside)."""
        return [_item_text(i) for i in self.items]

    def all_text(self) -> str:
        return "\n".join([str(self.body.get("instructions") or ""), *self.texts()])

    def user_texts(self) -> list[str]:
        """The texts of user and developer messages (prompts, mode instructions, reminders)."""
        return [_item_text(i) for i in self.items if i.get("role") in ("user", "developer")]


_MODEL_ITEMS = {"function_call", "custom_tool_call", "reasoning", "local_shell_call"}
_OUTPUT_ITEMS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}


def _flatten_namespaces(tools: list[Any], prefix: str = "") -> list[dict[str, Any]]:
    flat: list[dict[str, Any]] = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            name = str(tool.get("name") or "")
            inner = "" if name == "functions" else f"{prefix}{name}."
            flat += _flatten_namespaces(tool.get("tools") or [], inner)
        else:
            flat.append({**tool, "name": f"{prefix}{_tool_name(tool)}"})
    return flat


def _tool_name(tool: dict[str, Any]) -> str:
    if tool.get("name"):
        return str(tool["name"])
    function = tool.get("function")
    if isinstance(function, dict) and function.get("name"):
        return str(function["name"])
    return str(tool.get("type"))


def _flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_flatten(part) for part in content)
    if isinstance(content, dict):
        if "text" in content:
            return str(content["text"])
        if "output" in content:
            return _flatten(content["output"])
        if "content" in content:
            return _flatten(content["content"])
    return ""


def _item_text(item: dict[str, Any]) -> str:
    kind = item.get("type")
    if kind in _OUTPUT_ITEMS:
        return _flatten(item.get("output"))
    if kind == "function_call":
        return str(item.get("arguments") or "")
    if kind == "custom_tool_call":
        return str(item.get("input") or "")
    return _flatten(item.get("content"))


def _decode(raw: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        return gzip.decompress(raw)
    if encoding == "deflate":
        return zlib.decompress(raw)
    if encoding in ("zstd", "br"):
        raise ValueError(f"cannot decode a {encoding} request body")
    return raw


@dataclass
class FakeApi(ScriptedApi[Request]):
    """The Responses API: its routes and its stream, and a proxy that refuses every tunnel."""

    # Seconds between two streamed events: the real API trickles tokens, and Codex renders as
    # they come. Zero streams as fast as the socket takes them.
    pace: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    client = "Codex"
    answer_timeout = 600

    def is_main_loop(self, request: Request) -> bool:
        return is_main_loop(request)

    def side_reply(self, request: Request) -> list[dict[str, Any]]:
        return side_answer(request)

    def unanswered(self) -> list[dict[str, Any]]:
        return [text("(the test never answered this turn)")]

    @property
    def base_url(self) -> str:
        """What the provider's ``base_url`` says (with ``/v1``)."""
        assert self._server is not None, "start() first"
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def start(self) -> str:
        api = self

        class Handler(JsonHandler):
            def _record(self, body: dict[str, Any]) -> Request:
                request = Request(
                    self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                with api._lock:
                    api.log.append(request)
                return request

            def get(self) -> None:
                self._record({})
                path = self.path.split("?")[0]
                if path.endswith("/models"):
                    self._json({"object": "list", "data": [_model_entry()], "models": []})
                else:
                    self._json(_error("not_found", f"no route for GET {path}"), 404)

            def connect(self) -> None:
                # Anything Codex tries to reach on the Internet, through the proxy the test
                # names (HTTPS_PROXY): logged, and refused.
                self._record({})
                self.send_empty(403)
                self.close_connection = True

            def head(self) -> None:
                self.send_empty(200)

            def post(self) -> None:
                raw = self.read_body()
                try:
                    decoded = _decode(raw, (self.headers.get("Content-Encoding") or "").lower())
                    body = json.loads(decoded or b"{}")
                except ValueError as exc:
                    body = {"unparsed": raw[:2000].decode(errors="replace"), "error": str(exc)}
                request = self._record(body if isinstance(body, dict) else {"body": body})
                path = self.path.split("?")[0]
                if path.endswith("/responses"):
                    items = api._answer(request)
                    if body.get("stream", True):
                        self._stream(items, request)
                    else:
                        self._json(_response(items, request, "completed"))
                else:
                    self._json(_error("not_found", f"no route for POST {path}"), 404)

            def _json(self, payload: Any, status: int = 200) -> None:
                self.send_json(payload, status, headers=[("x-request-id", _id("req"))])

            def _stream(self, items: list[dict[str, Any]], request: Request) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("x-request-id", _id("req"))
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    for event in _events(items, request):
                        self.wfile.write(
                            f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
                        )
                        self.wfile.flush()
                        if api.pace:
                            time.sleep(api.pace)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # Codex gave up on the stream (an interrupt): nothing to answer.
                self.close_connection = True

        self.serve(Handler)
        return self.base_url

    def main_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.log if r.method == "POST" and is_main_loop(r)]

    def dump(self, limit: int = 6000) -> str:
        lines = []
        with self._lock:
            logged = list(self.log)
        for number, request in enumerate(logged):
            body = dict(request.body)
            if "tools" in body:
                body["tools"] = [_tool_name(t) for t in body["tools"]]
            if "instructions" in body:
                body["instructions"] = f"… ({len(str(body['instructions']))} characters)"
            shown = json.dumps(body, indent=1)
            lines.append(f"#{number} {request.method} {request.path}\n{shown[-limit:]}")
        return "\n".join(lines)


def is_main_loop(request: Request) -> bool:
    """The agent's own turns offer its tools; the title request asks for structured output
    (a JSON schema) and offers at most ``apply_patch``."""
    if request.method != "POST" or not request.path.split("?")[0].endswith("/responses"):
        return False
    fmt = request.body.get("text")
    if isinstance(fmt, dict) and isinstance(fmt.get("format"), dict):
        return False
    return any(name != "apply_patch" for name in request.tool_names)


def side_answer(request: Request) -> list[dict[str, Any]]:
    """A plausible answer to a request that is not the agent's turn (a title, a summary)."""
    fmt = request.body.get("text")
    wanted = fmt.get("format") if isinstance(fmt, dict) else None
    if isinstance(wanted, dict) and wanted.get("type") == "json_schema":
        schema = wanted.get("schema")
        properties = schema.get("properties") if isinstance(schema, dict) else None
        if isinstance(properties, dict) and properties:
            return [text(json.dumps({key: _sample(spec) for key, spec in properties.items()}))]
        return [text(json.dumps({"title": "Plan a change"}))]
    return [text("Plan a change")]


def _sample(spec: Any) -> Any:
    kind = spec.get("type") if isinstance(spec, dict) else None
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return 0
    if kind == "array":
        return []
    if kind == "object":
        return {}
    return "Plan a change"


def _model_entry() -> dict[str, Any]:
    return {"id": MODEL, "object": "model", "created": 1767225600, "owned_by": "openai"}


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"type": "invalid_request_error", "code": code, "message": message}}


def _usage() -> dict[str, Any]:
    return {
        "input_tokens": 1000,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 1020,
    }


def _response(items: list[dict[str, Any]], request: Request, status: str) -> dict[str, Any]:
    return {
        "id": request.headers.get("x-fake-response-id") or _id("resp"),
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": request.body.get("model") or MODEL,
        "output": items if status == "completed" else [],
        "parallel_tool_calls": bool(request.body.get("parallel_tool_calls")),
        "tool_choice": request.body.get("tool_choice") or "auto",
        "usage": _usage() if status == "completed" else None,
    }


def _pending(item: dict[str, Any]) -> dict[str, Any]:
    """The item as ``response.output_item.added`` announces it: nothing streamed yet."""
    started = {**item, "status": "in_progress"}
    if item["type"] == "message":
        started["content"] = []
    elif item["type"] == "function_call":
        started["arguments"] = ""
    elif item["type"] == "custom_tool_call":
        started["input"] = ""
    return started


def _chunks(value: str, size: int = 24) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]


def _events(items: list[dict[str, Any]], request: Request) -> list[dict[str, Any]]:
    response = _response(items, request, "in_progress")
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.in_progress", "response": response},
    ]
    for index, item in enumerate(items):
        events.append(
            {"type": "response.output_item.added", "output_index": index, "item": _pending(item)}
        )
        item_id = item["id"]
        if item["type"] == "message":
            value = item["content"][0]["text"]
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            where = {"item_id": item_id, "output_index": index, "content_index": 0}
            events.append({"type": "response.content_part.added", **where, "part": part})
            for chunk in _chunks(value):
                events.append(
                    {"type": "response.output_text.delta", **where, "delta": chunk, "logprobs": []}
                )
            events.append(
                {"type": "response.output_text.done", **where, "text": value, "logprobs": []}
            )
            events.append(
                {"type": "response.content_part.done", **where, "part": {**part, "text": value}}
            )
        elif item["type"] == "function_call":
            where = {"item_id": item_id, "output_index": index}
            for chunk in _chunks(item["arguments"]):
                events.append(
                    {"type": "response.function_call_arguments.delta", **where, "delta": chunk}
                )
            events.append(
                {
                    "type": "response.function_call_arguments.done",
                    **where,
                    "arguments": item["arguments"],
                }
            )
        elif item["type"] == "custom_tool_call":
            where = {"item_id": item_id, "output_index": index}
            for chunk in _chunks(item["input"]):
                events.append(
                    {"type": "response.custom_tool_call_input.delta", **where, "delta": chunk}
                )
            events.append(
                {"type": "response.custom_tool_call_input.done", **where, "input": item["input"]}
            )
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append(
        {"type": "response.completed", "response": _response(items, request, "completed")}
    )
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events
