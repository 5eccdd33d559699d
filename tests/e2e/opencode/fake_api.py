"""A scripted OpenAI-compatible Chat Completions API on 127.0.0.1 for the real OpenCode CLI.

OpenCode reaches it through a provider of its ``opencode.json`` that uses
``@ai-sdk/openai-compatible`` (shipped inside the binary) with this server's ``baseURL``. The
wire (measured on 1.18.33, docs/opencode.md): every model call is ``POST /v1/chat/completions``
with ``"stream": true`` and ``stream_options.include_usage``; the answer is Server-Sent Events,
``data: <chat.completion.chunk>`` lines, tool calls as ``delta.tool_calls`` whose
``function.arguments`` arrive in pieces, then a chunk with ``finish_reason``, one with
``usage`` and ``data: [DONE]``.

The test plays the model: ``turn()`` waits for OpenCode's next main-loop request (the one that
offers the agent's tools) and ``reply()`` answers it. Side requests — the session title (the
``title`` agent: no tools) — are answered at once with plausible content. Every request is
logged for failure reports; ``Request`` reads the tool results out of one.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.fake_api_server import JsonHandler, ScriptedApi

MODEL = "planmode-fake"
TITLE = "Plan a change"

_ids = itertools.count(1)


def text(value: str) -> dict[str, Any]:
    """The model's text (the end of a turn when no tool call follows)."""
    return {"type": "text", "text": value}


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One call of a tool the request offered, by its name there (``read``, ``bash``…)."""
    return {
        "type": "tool_call",
        "id": f"call_{next(_ids):024d}",
        "name": name,
        "arguments": arguments,
    }


@dataclass
class Request:
    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    received: float = field(default_factory=time.monotonic)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The offered tools' ``function`` objects: ``name``, ``description``, ``parameters``."""
        return [t.get("function") or {} for t in self.body.get("tools") or []]

    @property
    def tool_names(self) -> list[str]:
        return [str(t.get("name")) for t in self.tools]

    def tool(self, name: str) -> dict[str, Any] | None:
        return next((t for t in self.tools if t.get("name") == name), None)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    def system_text(self) -> str:
        return "\n".join(
            _flatten(m.get("content")) for m in self.messages if m.get("role") == "system"
        )

    def tool_results(self) -> list[dict[str, Any]]:
        """The ``role: "tool"`` messages answering the last assistant turn's tool calls.

        Each has ``tool_call_id`` and ``content`` (a string: the tool's output, or the text of
        the error that stopped it).
        """
        results: list[dict[str, Any]] = []
        for message in reversed(self.messages):
            if message.get("role") == "assistant":
                break
            if message.get("role") == "tool":
                results.insert(0, message)
        return results

    def result_for(self, call_id: str) -> str | None:
        """The output OpenCode sent for the tool call ``call_id``, wherever it is."""
        for message in self.messages:
            if message.get("role") == "tool" and message.get("tool_call_id") == call_id:
                return _flatten(message.get("content"))
        return None

    def result_text(self) -> str:
        """Every text of the last tool results, joined."""
        return "\n".join(_flatten(m.get("content")) for m in self.tool_results())

    def since_assistant(self) -> str:
        """Everything after the last assistant message as text (results, reminders, prompts)."""
        texts: list[str] = []
        for message in reversed(self.messages):
            if message.get("role") == "assistant":
                break
            texts.insert(0, _flatten(message.get("content")))
        return "\n".join(texts)

    def all_text(self) -> str:
        return "\n".join(_flatten(m.get("content")) for m in self.messages)


def _flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "text":
                    parts.append(str(block.get("text", "")))
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return ""


@dataclass
class FakeApi(ScriptedApi[Request]):
    """The Chat Completions API: its routes and its stream, and an empty npm registry."""

    root: str = ""

    client = "OpenCode"

    def is_main_loop(self, request: Request) -> bool:
        return is_main_loop(request)

    def side_reply(self, request: Request) -> list[dict[str, Any]]:
        return _side_answer(request)

    def unanswered(self) -> list[dict[str, Any]]:
        return [text("(the test never answered this turn)")]

    @property
    def registry(self) -> str:
        """An npm registry URL on this server (``npm_config_registry``): it serves no package,
        so a CLI that tries to install one at run time fails at once, and it shows in the log
        (``registry_requests``)."""
        return f"{self.root}/npm/"

    def registry_requests(self) -> list[str]:
        return [r.path for r in self.log if r.path.startswith("/npm/")]

    def start(self) -> str:
        """Serve on a free port; the base URL a provider's ``baseURL`` names (``…/v1``)."""
        api = self

        class Handler(JsonHandler):
            def get(self) -> None:
                api.log.append(Request(self.path, {}, dict(self.headers)))
                if self.path.split("?")[0].rstrip("/").endswith("/models"):
                    self._json({"object": "list", "data": [_model_entry()]})
                else:
                    self._json(_error("not_found", f"no route {self.path}"), 404)

            def post(self) -> None:
                raw = self.read_body()
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unparsed": raw.decode(errors="replace")}
                request = Request(self.path, body, dict(self.headers))
                api.log.append(request)
                if self.path.split("?")[0].endswith("/chat/completions"):
                    blocks = api._answer(request)
                    if body.get("stream"):
                        self._stream(blocks, body)
                    else:
                        self._json(_completion(blocks, body))
                else:
                    self._json(_error("not_found", f"no route {self.path}"), 404)

            def _json(self, payload: Any, status: int = 200) -> None:
                self.send_json(payload, status)

            def _stream(self, blocks: list[dict[str, Any]], body: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    for chunk in _chunks(blocks, body):
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the CLI gave up on the answer (interrupted, exited)
                self.close_connection = True

        self.root = f"http://127.0.0.1:{self.serve(Handler)}"
        return f"{self.root}/v1"

    def dump(self) -> str:
        lines = []
        for number, request in enumerate(self.log):
            body = dict(request.body)
            if "tools" in body:
                body["tools"] = [(t.get("function") or {}).get("name") for t in body["tools"]]
            messages = body.get("messages")
            if isinstance(messages, list):
                body["messages"] = [
                    {**m, "content": "…"} if m.get("role") == "system" else m for m in messages
                ]
            lines.append(f"#{number} {request.path}\n{json.dumps(body, indent=1)[:6000]}")
        return "\n".join(lines)


def is_main_loop(request: Request) -> bool:
    """An agent's own turns offer its tools; the title request offers none."""
    return len(request.body.get("tools") or []) > 2


def _side_answer(request: Request) -> list[dict[str, Any]]:
    return [text(TITLE)]


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _model_entry() -> dict[str, Any]:
    return {"id": MODEL, "object": "model", "created": 1_700_000_000, "owned_by": "planmode"}


def _usage() -> dict[str, Any]:
    return {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}


def _finish_reason(blocks: list[dict[str, Any]]) -> str:
    return "tool_calls" if any(b["type"] == "tool_call" for b in blocks) else "stop"


def _completion(blocks: list[dict[str, Any]], body: dict[str, Any]) -> dict[str, Any]:
    """The same answer unstreamed (``"stream": false``), as ``chat.completion``."""
    calls = [b for b in blocks if b["type"] == "tool_call"]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(b["text"] for b in blocks if b["type"] == "text") or None,
    }
    if calls:
        message["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
            }
            for c in calls
        ]
    return {
        "id": f"chatcmpl-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model") or MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(blocks)}],
        "usage": _usage(),
    }


def _chunks(blocks: list[dict[str, Any]], body: dict[str, Any]) -> list[dict[str, Any]]:
    """The SSE chunks of one answer, split as the real API splits them."""
    ident = f"chatcmpl-{next(_ids)}"
    created = int(time.time())
    model = body.get("model") or MODEL

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": None,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    chunks = [chunk({"role": "assistant", "content": ""})]
    calls = 0
    for block in blocks:
        if block["type"] == "text":
            words = block["text"]
            for start in range(0, len(words), 24):
                chunks.append(chunk({"content": words[start : start + 24]}))
        else:
            encoded = json.dumps(block["arguments"])
            chunks.append(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": calls,
                                "id": block["id"],
                                "type": "function",
                                "function": {"name": block["name"], "arguments": ""},
                            }
                        ]
                    }
                )
            )
            for start in range(0, len(encoded), 64):
                piece = encoded[start : start + 64]
                chunks.append(
                    chunk({"tool_calls": [{"index": calls, "function": {"arguments": piece}}]})
                )
            calls += 1
    chunks.append(chunk({}, _finish_reason(blocks)))
    if (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({**chunk({}), "choices": [], "usage": _usage()})
    return chunks
