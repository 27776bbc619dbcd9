"""A loopback fake of the Anthropic Messages API, for driving Claude Code in print mode.

Claude Code (`claude -p`, `ANTHROPIC_BASE_URL` pointed here) sends its conversation to
`POST /v1/messages`. The fake plays the model from a script: each turn of the main
conversation (a request that offers tools) is answered by a script — a function of the tool
results so far that returns the next tool calls or a closing text, so a later call can use an
id an earlier result returned — and every `tool_result` block Claude Code sends back is
recorded, because that is exactly what the model would read.

Side requests (a title, a summary, token counting, anything without tools) get a short
harmless answer and are only counted. Replies are streamed as server-sent events when the
request asks for `stream: true` (Claude Code does), else returned as one JSON message.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ToolResult:
    """One `tool_result` block as Claude Code sent it to the model."""

    tool_use_id: str
    tool: str  # the name of the tool_use it answers
    is_error: bool
    texts: list[str]  # every text the model would read, in order

    @property
    def text(self) -> str:
        return "\n".join(self.texts)


@dataclass(frozen=True)
class ToolUse:
    name: str
    input: dict[str, Any]


Script = Callable[[list[ToolResult]], Sequence[ToolUse] | str]  # the next tool calls, or the final text
MAX_TURNS = 40  # a script that never ends is cut off here, with a closing text


@dataclass
class Transcript:
    results: list[ToolResult] = field(default_factory=list)
    calls: dict[str, ToolUse] = field(default_factory=dict)  # tool_use id → what was called
    main_requests: int = 0
    side_requests: list[str] = field(default_factory=list)  # paths and models of the rest
    requests: list[dict[str, Any]] = field(default_factory=list)  # every main request body, raw
    failures: list[str] = field(default_factory=list)  # a script that raised: the conversation ends there


class FakeAnthropic:
    def __init__(self, script: Script):
        self.script = script
        self.transcript = Transcript()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-anthropic", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # ------------------------------------------------------------------ the model's turn

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The assistant message for one /v1/messages request."""
        with self._lock:
            if not body.get("tools"):
                self.transcript.side_requests.append(f"messages {body.get('model')}")
                return self._message([{"type": "text", "text": "Council review"}], "end_turn")
            self.transcript.main_requests += 1
            self.transcript.requests.append(body)
            self._record(body.get("messages") or [])
            if self.transcript.main_requests > MAX_TURNS:
                return self._message([{"type": "text", "text": "Stopping: too many turns."}], "end_turn")
            try:
                step = self.script(list(self.transcript.results))
            except Exception as exc:  # end the conversation at once; the test reports the failure
                self.transcript.failures.append(f"{type(exc).__name__}: {exc}")
                return self._message([{"type": "text", "text": "The script failed."}], "end_turn")
            if isinstance(step, str):
                return self._message([{"type": "text", "text": step}], "end_turn")
            blocks = []
            for use in step:
                use_id = f"toolu_{next(self._ids):04d}"
                self.transcript.calls[use_id] = use
                blocks.append({"type": "tool_use", "id": use_id, "name": use.name, "input": use.input})
            return self._message(blocks, "tool_use")

    def _record(self, messages: list[dict[str, Any]]) -> None:
        """Every tool_result in the conversation not recorded yet (Claude Code resends the history)."""
        seen = {result.tool_use_id for result in self.transcript.results}
        for message in messages:
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict) or block.get("type") != "tool_result":
                    continue
                use_id = str(block.get("tool_use_id"))
                if use_id in seen:
                    continue
                seen.add(use_id)
                call = self.transcript.calls.get(use_id)
                self.transcript.results.append(ToolResult(
                    tool_use_id=use_id, tool=call.name if call else "?", is_error=bool(block.get("is_error")),
                    texts=_texts(block.get("content"))))

    def _message(self, content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
        return {"id": f"msg_{next(self._ids):04d}", "type": "message", "role": "assistant",
                "model": "claude-fake", "content": content, "stop_reason": stop_reason, "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 10}}


def _texts(content: Any) -> list[str]:
    """The text a tool_result carries: a string, or text blocks (other block kinds say what they are)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [block.get("text", "") if block.get("type") == "text" else f"<{block.get('type')} block>"
            for block in content if isinstance(block, dict)]


def sse(message: dict[str, Any]) -> bytes:
    """One assistant message as the Messages API streams it."""
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            events += [("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": {"type": "text", "text": ""}}),
                       ("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": {"type": "text_delta", "text": block["text"]}})]
        else:
            events += [("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": {**block, "input": {}}}),
                       ("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": {"type": "input_json_delta",
                                                          "partial_json": json.dumps(block["input"])}})]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events += [("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                  "usage": {"output_tokens": 10}}),
               ("message_stop", {"type": "message_stop"})]
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    @property
    def fake(self) -> FakeAnthropic:
        return self.server.fake  # type: ignore[attr-defined,no-any-return]

    def do_GET(self) -> None:
        self.fake.transcript.side_requests.append(f"GET {self.path}")
        self._json(200, {"data": [], "has_more": False})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages/count_tokens"):
            self.fake.transcript.side_requests.append("count_tokens")
            self._json(200, {"input_tokens": 100})
            return
        if not path.endswith("/v1/messages"):
            self.fake.transcript.side_requests.append(f"POST {path}")
            self._json(200, {})
            return
        message = self.fake.answer(body)
        if body.get("stream"):
            payload = sse(message)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        else:
            self._json(200, message)

    def _json(self, status: int, doc: Any) -> None:
        payload = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
