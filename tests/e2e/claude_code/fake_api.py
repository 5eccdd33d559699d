"""A scripted Anthropic Messages API on 127.0.0.1 for driving the real Claude Code CLI.

The test plays the model: ``turn()`` waits for Claude Code's next main-loop request (the one
that offers the agent's tools) and ``reply()`` answers it, streamed as Server-Sent Events in
the shape the real API uses. Side requests — the session title (a small-model request that
expects JSON), ``count_tokens``, ``/v1/models``, quota probes — are answered at once with
plausible content. Every request is logged for failure reports.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

from tests.e2e.fake_api_server import JsonHandler, ScriptedApi

MODEL = "claude-sonnet-4-5-20250929"


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


_ids = itertools.count(1)


def tool_use(name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{next(_ids):024d}", "name": name, "input": tool_input}


@dataclass
class Request:
    path: str
    body: dict[str, Any]

    @property
    def tool_names(self) -> list[str]:
        return [str(t.get("name")) for t in self.body.get("tools") or []]

    def tool(self, name: str) -> dict[str, Any] | None:
        return next((t for t in self.body.get("tools") or [] if t.get("name") == name), None)

    def tool_results(self) -> list[dict[str, Any]]:
        """The tool_result blocks answering the last assistant turn (what its tool_use did).

        They sit in the user message after the last assistant message; newer versions may
        follow it with ``system`` messages (reminders, "Exited Plan Mode").
        """
        results: list[dict[str, Any]] = []
        for message in reversed(self.body.get("messages") or []):
            if message.get("role") == "assistant":
                break
            content = message.get("content")
            if message.get("role") == "user" and isinstance(content, list):
                results[:0] = [
                    b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                ]
        return results

    def result_text(self) -> str:
        """Every text of the last user message's tool results, joined."""
        return "\n".join(_flatten(b.get("content")) for b in self.tool_results())

    def since_assistant(self) -> str:
        """Everything after the last assistant message as text (results, reminders, prompts)."""
        texts: list[str] = []
        for message in reversed(self.body.get("messages") or []):
            if message.get("role") == "assistant":
                break
            texts.insert(0, _flatten(message.get("content")))
        return "\n".join(texts)

    def all_text(self) -> str:
        return "\n".join(_flatten(m.get("content")) for m in self.body.get("messages") or [])


def _flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "text":
                    parts.append(str(block.get("text", "")))
                elif block.get("type") == "tool_result":
                    parts.append(_flatten(block.get("content")))
                elif block.get("type") == "tool_use":
                    parts.append(json.dumps(block.get("input")))
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return ""


@dataclass
class FakeApi(ScriptedApi[Request]):
    """The Messages API: its routes and its stream."""

    client = "Claude Code"

    def is_main_loop(self, request: Request) -> bool:
        return _is_main_loop(request)

    def side_reply(self, request: Request) -> list[dict[str, Any]]:
        return _side_answer(request)

    def unanswered(self) -> list[dict[str, Any]]:
        return [text("(the test never answered this turn)")]

    def start(self) -> str:
        api = self

        class Handler(JsonHandler):
            def get(self) -> None:
                api.log.append(Request(self.path, {}))
                if self.path.startswith("/v1/models"):
                    self._json({"data": [_model_entry()], "has_more": False})
                else:
                    self._json({"type": "error", "error": {"type": "not_found_error"}}, 404)

            def head(self) -> None:
                self.send_empty(200)

            def post(self) -> None:
                raw = self.read_body()
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unparsed": raw.decode(errors="replace")}
                request = Request(self.path, body)
                api.log.append(request)
                path = self.path.split("?")[0]
                if path.endswith("/count_tokens"):
                    self._json({"input_tokens": 1000})
                elif path.endswith("/v1/messages"):
                    blocks = api._answer(request)
                    if body.get("stream"):
                        self._stream(blocks, body)
                    else:
                        self._json(_message(blocks, body))
                else:
                    self._json({"type": "error", "error": {"type": "not_found_error"}}, 404)

            def _json(self, payload: Any, status: int = 200) -> None:
                self.send_json(payload, status, headers=[("request-id", f"req_{next(_ids)}")])

            def _stream(self, blocks: list[dict[str, Any]], body: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("request-id", f"req_{next(_ids)}")
                self.send_header("Connection", "close")
                self.end_headers()
                for event in _events(blocks, body):
                    self.wfile.write(
                        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
                    )
                    self.wfile.flush()
                self.close_connection = True

        return f"http://127.0.0.1:{self.serve(Handler)}"

    def dump(self) -> str:
        lines = []
        for number, request in enumerate(self.log):
            body = dict(request.body)
            if "tools" in body:
                body["tools"] = [t.get("name") for t in body["tools"]]
            if "system" in body:
                body["system"] = "…"
            lines.append(f"#{number} POST {request.path}\n{json.dumps(body, indent=1)[:6000]}")
        return "\n".join(lines)


def _is_main_loop(request: Request) -> bool:
    """The agent's own turns offer its tools; title, quota and summary requests do not."""
    return bool(request.body.get("tools")) and len(request.body.get("tools") or []) > 2


def _side_answer(request: Request) -> list[dict[str, Any]]:
    system = json.dumps(request.body.get("system") or "")
    if "json" in system.lower() or request.body.get("output_format"):
        return [text(json.dumps({"title": "Plan a change", "isNewTopic": True}))]
    return [text("Plan a change")]


def _model_entry() -> dict[str, Any]:
    return {
        "type": "model",
        "id": MODEL,
        "display_name": "Claude Sonnet 4.5",
        "created_at": "2025-09-29T00:00:00Z",
    }


def _usage(output_tokens: int = 1) -> dict[str, Any]:
    return {
        "input_tokens": 100,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
    }


def _stop_reason(blocks: list[dict[str, Any]]) -> str:
    return "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"


def _message(blocks: list[dict[str, Any]], body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"msg_{next(_ids):024d}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model") or MODEL,
        "content": blocks,
        "stop_reason": _stop_reason(blocks),
        "stop_sequence": None,
        "usage": _usage(20),
    }


def _events(blocks: list[dict[str, Any]], body: dict[str, Any]) -> list[dict[str, Any]]:
    start = _message([], body)
    start["stop_reason"] = None
    start["usage"] = _usage(1)
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                }
            )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": block["text"]},
                }
            )
        else:
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {
                        "type": "tool_use",
                        "id": block["id"],
                        "name": block["name"],
                        "input": {},
                    },
                }
            )
            encoded = json.dumps(block["input"])
            for chunk in range(0, len(encoded), 64) if encoded else [0]:
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {
                            "type": "input_json_delta",
                            "partial_json": encoded[chunk : chunk + 64],
                        },
                    }
                )
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(blocks), "stop_sequence": None},
            "usage": {"output_tokens": 20},
        }
    )
    events.append({"type": "message_stop"})
    return events
