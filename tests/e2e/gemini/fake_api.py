"""A scripted Gemini API on 127.0.0.1 for driving the real Gemini CLI (@google/gemini-cli).

Gemini CLI is pointed here with ``GOOGLE_GEMINI_BASE_URL`` and a dummy ``GEMINI_API_KEY``
(sent back in the ``x-goog-api-key`` header). It speaks the Gemini API (``/v1beta``):

* the agent loop: ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse``, a body of
  ``contents`` (``role`` ``user``/``model``, ``parts``), ``systemInstruction``, ``tools``
  (``[{"functionDeclarations": [...]}]``) and ``generationConfig``; answered as Server-Sent
  Events, one ``data: <GenerateContentResponse>`` per chunk, as the real API streams;
* side requests: ``POST …:generateContent`` asking for JSON (``responseMimeType``
  ``application/json`` with a schema): the model router (``model_choice`` or
  ``complexity_score``), the next-speaker check (``next_speaker``) and the like, answered at
  once with plausible JSON built from the schema; ``…:countTokens``; ``GET /v1beta/models``.

The test plays the model: ``turn()`` waits for the CLI's next main-loop request (the one that
offers the agent's tools) and ``reply()`` answers it with ``text(...)`` and
``function_call(...)`` parts. The tool results come back in the next request as
``functionResponse`` parts (``Request.function_responses()``, ``Request.result_text()``).
Every request is logged for failure reports.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from tests.e2e.fake_api_server import JsonHandler, ScriptedApi

API_KEY = "AIzaSy-planmode-e2e-" + "x" * 19
MODEL_VERSION = "gemini-2.5-pro"

_ids = itertools.count(1)


def text(value: str) -> dict[str, Any]:
    """A text part of the model's answer."""
    return {"text": value}


def function_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A function-call part: the model calls the tool ``name`` with ``args``.

    The real API sends no ``id`` with a call (the CLI makes its own call id)."""
    return {"functionCall": {"name": name, "args": args}}


@dataclass
class Request:
    """One request the CLI sent: its method (``streamGenerateContent``, ``generateContent``,
    ``countTokens``, ``GET``), model, headers and JSON body."""

    method: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def model(self) -> str:
        """The model named in the path: ``/v1beta/models/<model>:<method>``."""
        path = unquote(urlsplit(self.path).path)
        return path.rsplit("/", 1)[-1].split(":", 1)[0]

    @property
    def action(self) -> str:
        path = urlsplit(self.path).path
        return path.rsplit(":", 1)[-1] if ":" in path.rsplit("/", 1)[-1] else ""

    @property
    def declarations(self) -> list[dict[str, Any]]:
        """The function declarations the request offers the model, in order."""
        found: list[dict[str, Any]] = []
        for tool in self.body.get("tools") or []:
            if isinstance(tool, dict):
                found.extend(
                    d for d in tool.get("functionDeclarations") or [] if isinstance(d, dict)
                )
        return found

    @property
    def tool_names(self) -> list[str]:
        return [str(d.get("name")) for d in self.declarations]

    def tool(self, name: str) -> dict[str, Any] | None:
        return next((d for d in self.declarations if d.get("name") == name), None)

    def plans_directory(self) -> str | None:
        """The plans directory plan mode names in ``write_file``'s description (absolute)."""
        description = str((self.tool("write_file") or {}).get("description", ""))
        found = re.search(r"plans directory: (/\S+?)/?\. ", description)
        return found.group(1) if found else None

    def system_text(self) -> str:
        return _flatten((self.body.get("systemInstruction") or {}).get("parts"))

    def _trailing_user(self) -> list[dict[str, Any]]:
        """The contents after the last ``model`` content (what the CLI says since the model
        last spoke: function responses, reminders, the user's prompt)."""
        contents = [c for c in self.body.get("contents") or [] if isinstance(c, dict)]
        tail: list[dict[str, Any]] = []
        for content in reversed(contents):
            if content.get("role") == "model":
                break
            tail.insert(0, content)
        return tail

    def function_responses(self) -> list[dict[str, Any]]:
        """The ``functionResponse`` parts answering the model's last calls (what they did):
        each ``{"id", "name", "response": {"output": …} or {"error": …}}``."""
        return [
            part["functionResponse"]
            for content in self._trailing_user()
            for part in content.get("parts") or []
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
        ]

    def result(self, name: str | None = None) -> dict[str, Any]:
        """The ``response`` object of the last function response (of tool ``name``)."""
        for answer in reversed(self.function_responses()):
            if name is None or answer.get("name") == name:
                response = answer.get("response")
                return response if isinstance(response, dict) else {"output": response}
        raise AssertionError(f"no function response for {name or 'any tool'}: {self.since_model()}")

    def result_text(self) -> str:
        """Every function response's output or error text, joined (what the model reads)."""
        return "\n".join(_response_text(a.get("response")) for a in self.function_responses())

    def since_model(self) -> str:
        """Everything after the last model content as text (results, reminders, prompts)."""
        return "\n".join(_flatten(c.get("parts")) for c in self._trailing_user())

    def all_text(self) -> str:
        return "\n".join(_flatten(c.get("parts")) for c in self.body.get("contents") or [])


def _response_text(response: Any) -> str:
    if isinstance(response, dict):
        for key in ("output", "error", "content", "llmContent"):
            if key in response:
                value = response[key]
                return value if isinstance(value, str) else json.dumps(value)
        return json.dumps(response)
    return "" if response is None else str(response)


def _flatten(parts: Any) -> str:
    if isinstance(parts, str):
        return parts
    out: list[str] = []
    for part in parts or []:
        if not isinstance(part, dict):
            continue
        if "text" in part:
            out.append(str(part["text"]))
        elif isinstance(part.get("functionResponse"), dict):
            out.append(_response_text(part["functionResponse"].get("response")))
        elif isinstance(part.get("functionCall"), dict):
            call = part["functionCall"]
            out.append(f"{call.get('name')}({json.dumps(call.get('args'))})")
    return "\n".join(out)


@dataclass
class FakeApi(ScriptedApi[Request]):
    """The Gemini API: its routes and its stream; side requests answered from their schema."""

    # Answers for side requests by a word their system instruction or schema holds; the
    # default answers are in _side_answer.
    side_answers: dict[str, dict[str, Any]] = field(default_factory=dict)

    client = "Gemini CLI"

    def is_main_loop(self, request: Request) -> bool:
        return is_main_loop(request)

    def side_reply(self, request: Request) -> list[dict[str, Any]]:
        return [text(json.dumps(self._side_answer(request)))]

    def unanswered(self) -> list[dict[str, Any]]:
        return [text("(the test never answered this turn)")]

    def start(self) -> str:
        api = self

        class Handler(JsonHandler):
            def get(self) -> None:
                request = Request("GET", self.path, {}, dict(self.headers.items()))
                api.log.append(request)
                path = urlsplit(self.path).path.rstrip("/")
                if path.endswith("/models"):
                    self._json({"models": [_model_entry(MODEL_VERSION)]})
                elif "/models/" in path:
                    self._json(_model_entry(request.model))
                else:
                    self._error(404, f"Method not found: {self.path}", "NOT_FOUND")

            def post(self) -> None:
                raw = self.read_body()
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unparsed": raw.decode(errors="replace")}
                headers = dict(self.headers.items())
                request = Request("POST", self.path, body, headers)
                request.method = request.action or "POST"
                api.log.append(request)
                if self.headers.get("x-goog-api-key") != API_KEY:
                    self._error(
                        400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT"
                    )
                elif request.action == "streamGenerateContent":
                    self._stream(api._answer(request), request)
                elif request.action == "generateContent":
                    self._json(_response(api._answer(request), request, final=True))
                elif request.action == "countTokens":
                    self._json({"totalTokens": 1000})
                else:
                    self._error(404, f"Method not found: {self.path}", "NOT_FOUND")

            def _json(self, payload: Any, status: int = 200) -> None:
                self.send_json(payload, status, content_type="application/json; charset=UTF-8")

            def _error(self, status: int, message: str, reason: str) -> None:
                self._json(
                    {"error": {"code": status, "message": message, "status": reason}}, status
                )

            def _stream(self, parts: list[dict[str, Any]], request: Request) -> None:
                # As the real API: chunked text/event-stream, one `data:` line a chunk, each
                # ended by a blank line (CRLF), the last chunk with finishReason and usage.
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for chunk in _chunks(parts, request):
                    data = f"data: {json.dumps(chunk)}\r\n\r\n".encode()
                    self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        return f"http://127.0.0.1:{self.serve(Handler)}"

    def _side_answer(self, request: Request) -> dict[str, Any]:
        about = request.system_text() + json.dumps(request.body.get("generationConfig") or {})
        for word, answer in self.side_answers.items():
            if word in about:
                return answer
        return _side_answer(request)

    def dump(self) -> str:
        lines = []
        for number, request in enumerate(self.log):
            body = dict(request.body)
            if "tools" in body:
                body["tools"] = request.tool_names
            if "systemInstruction" in body:
                body["systemInstruction"] = request.system_text()[:300] + "…"
            lines.append(
                f"#{number} {request.method} {request.path}\n{json.dumps(body, indent=1)[:6000]}"
            )
        return "\n".join(lines)


def is_main_loop(request: Request) -> bool:
    """The agent's own turns offer its tools; routing, next-speaker and other side requests
    (which ask for JSON) do not."""
    return request.action == "streamGenerateContent" and len(request.declarations) > 2


def _side_answer(request: Request) -> dict[str, Any]:
    """Plausible JSON for a side request, from the schema it asks for."""
    config = request.body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return {}
    answer: dict[str, Any] = {}
    for name, spec in properties.items():
        kind = str((spec or {}).get("type", "string")).lower()
        if name == "model_choice":
            answer[name] = "pro"
        elif name == "next_speaker":
            answer[name] = "user"  # the model's turn is over: the CLI waits for the user
        elif name == "complexity_score":
            answer[name] = 70
        elif (spec or {}).get("enum"):
            answer[name] = spec["enum"][0]
        elif kind in ("integer", "number"):
            answer[name] = 1
        elif kind == "boolean":
            answer[name] = False
        elif kind == "array":
            answer[name] = []
        elif kind == "object":
            answer[name] = {}
        else:
            answer[name] = "The request is a planning task."
    return answer


def _model_entry(model: str) -> dict[str, Any]:
    return {
        "name": f"models/{model}",
        "version": "001",
        "displayName": model,
        "inputTokenLimit": 1048576,
        "outputTokenLimit": 65536,
        "supportedGenerationMethods": ["generateContent", "countTokens"],
    }


def _usage(request: Request) -> dict[str, Any]:
    prompt = max(1, len(json.dumps(request.body.get("contents") or [])) // 4)
    return {"promptTokenCount": prompt, "candidatesTokenCount": 20, "totalTokenCount": prompt + 20}


def _response(parts: list[dict[str, Any]], request: Request, final: bool) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    response: dict[str, Any] = {"candidates": [candidate]}
    if final:
        candidate["finishReason"] = "STOP"
        response["usageMetadata"] = _usage(request)
    response["modelVersion"] = MODEL_VERSION
    response["responseId"] = f"resp-{next(_ids):08d}"
    return response


def _chunks(parts: list[dict[str, Any]], request: Request) -> list[dict[str, Any]]:
    """The stream: text split in pieces, each function call whole in its own chunk (as the
    real API sends them), the last chunk carrying ``finishReason`` and ``usageMetadata``."""
    pieces: list[dict[str, Any]] = []
    for part in parts:
        if "text" in part and len(part["text"]) > 40:
            words = part["text"]
            pieces.extend({"text": words[i : i + 40]} for i in range(0, len(words), 40))
        else:
            pieces.append(part)
    if not pieces:
        pieces = [{"text": ""}]
    return [
        _response([piece], request, final=index == len(pieces) - 1)
        for index, piece in enumerate(pieces)
    ]


def wait_for(check: Any, timeout: float, what: str) -> None:
    """Poll ``check()`` until it is true (a helper for tests that watch files)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {timeout:.0f} s")
        time.sleep(0.1)
