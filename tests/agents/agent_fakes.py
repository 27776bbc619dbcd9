"""Loopback fakes of the agent CLIs' model APIs that answer as a council seat would.

`SeatAnthropic` is the Anthropic Messages fake (tests/clients/fake_anthropic.py) playing a
seat: it reads the amicus prompt Claude Code forwards (the last text block of the first user
message) and answers it with the same reply a fake-provider seat gives (council_helpers'
`member_responder`), optionally after first asking for tool calls (`tools_first`), so a test
can see what the CLI let through.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from council_helpers import answer_for_schema, kind, member_responder
from fake_anthropic import FakeAnthropic, ToolUse

NODE_BIN = Path(__file__).resolve().parent.parent / "clients" / "node" / "node_modules" / ".bin"


def need_cli(name: str) -> Path:
    path = NODE_BIN / name
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: CI installs tests/clients/node")
        pytest.skip(f"{name} is not installed in tests/clients/node")
    return path




def amicus_prompt(texts: Sequence[str]) -> str:
    """The amicus prompt among the texts a CLI sends (it adds context of its own around it): the
    first one whose wording names a council prompt, else the last."""
    texts = [t for t in texts if t.strip()]
    return next((t for t in texts if kind(t) != "other"), texts[-1] if texts else "")


def first_user_text(body: dict[str, Any]) -> str:
    texts: list[str] = []
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        else:
            texts += [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
        break
    return amicus_prompt(texts)


def has_tool_results(body: dict[str, Any]) -> bool:
    return any(isinstance(b, dict) and b.get("type") == "tool_result"
               for m in body.get("messages") or [] if isinstance(m.get("content"), list) for b in m["content"])


def seat_text(name: str) -> Callable[[str], str]:
    """What the fake-provider seat `fake/<name>` would answer to `prompt`."""
    responder = member_responder(name)

    def text(prompt: str) -> str:
        reply = responder({"messages": [{"role": "user", "content": prompt}]})
        if reply is None:
            return "I have nothing to add."
        return str(reply.body["choices"][0]["message"]["content"])

    return text


def offered_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The input schema of Claude Code's StructuredOutput tool (`--json-schema`), when offered."""
    return next((t.get("input_schema") for t in body.get("tools") or [] if t.get("name") == STRUCTURED_TOOL), None)


STRUCTURED_TOOL = "StructuredOutput"


class SeatAnthropic(FakeAnthropic):
    """`naive`: a model that ignores the StructuredOutput tool and answers in prose regardless;
    `text`: what it answers to a prompt, in place of the fake-provider seat's reply."""

    def __init__(self, name: str, *, tools_first: Sequence[ToolUse] = (), hang_s: float = 0.0,
                 naive: bool = False, text: Callable[[str], str] | None = None) -> None:
        super().__init__(script=lambda _results: "")
        self.hang_s = hang_s  # a model that never answers: the CLI hangs on it
        self.text = text or seat_text(name)
        self.tag = f"seat-{name}"
        self.naive = naive
        self.tools_first = list(tools_first)
        self.prompts: list[str] = []
        self.schemas: list[dict[str, Any]] = []  # the StructuredOutput schemas it was offered

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("tools"):
            return super().answer(body)
        if self.hang_s:
            time.sleep(self.hang_s)
        with self._lock:
            self.transcript.main_requests += 1
            self.transcript.requests.append(body)
            self._record(body.get("messages") or [])
            prompt = first_user_text(body)
            self.prompts.append(prompt)
            schema = offered_schema(body)
            if schema is not None and not has_tool_results(body):
                self.schemas.append(schema)
            if schema is not None and not self.naive:
                if not has_tool_results(body):  # held to a schema: the answer is the tool's input
                    use_id = f"toolu_{next(self._ids):04d}"
                    use = ToolUse(STRUCTURED_TOOL, answer_for_schema(schema, self.tag))
                    self.transcript.calls[use_id] = use
                    return self._message([{"type": "tool_use", "id": use_id, "name": use.name, "input": use.input}],
                                         "tool_use")
                return self._message([{"type": "text", "text": "Done."}], "end_turn")
            if self.tools_first and not has_tool_results(body):
                blocks = []
                for use in self.tools_first:
                    use_id = f"toolu_{next(self._ids):04d}"
                    self.transcript.calls[use_id] = use
                    blocks.append({"type": "tool_use", "id": use_id, "name": use.name, "input": use.input})
                return self._message(blocks, "tool_use")
            return self._message([{"type": "text", "text": self.text(prompt)}], "end_turn")


# ----------------------------------------------------------------------------- a generic loopback server


class _Server:
    """A threaded loopback HTTP server whose POSTs go to `self.post(path, body) → (status, headers, bytes)`."""

    def __init__(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_GET(self) -> None:
                owner.requests.append(("GET", self.path, None))
                self._send(200, {"Content-Type": "application/json"}, b'{"models": [], "data": []}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                owner.requests.append(("POST", self.path, body))
                status, headers, payload = owner.post(self.path, body)
                self._send(status, headers, payload)

            def _send(self, status: int, headers: dict[str, str], payload: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.requests: list[tuple[str, str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> _Server:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def post(self, path: str, body: Any) -> tuple[int, dict[str, str], bytes]:
        raise NotImplementedError


# ----------------------------------------------------------------------------- Gemini API


class SeatGemini(_Server):
    """The Gemini API (generateContent / streamGenerateContent) playing a seat, for the Gemini CLI
    (`GOOGLE_GEMINI_BASE_URL` pointed here). `tools_first` are function calls asked for before the
    seat's reply (the CLI's own tool names: write_file, run_shell_command, read_file…)."""

    def __init__(self, name: str, *, tools_first: Sequence[tuple[str, dict[str, Any]]] = (),
                 hang_s: float = 0.0) -> None:
        super().__init__()
        self.text = seat_text(name)
        self.tools_first = list(tools_first)
        self.hang_s = hang_s
        self.prompts: list[str] = []
        self.function_responses: list[dict[str, Any]] = []  # what the CLI sent back for each call

    def post(self, path: str, body: Any) -> tuple[int, dict[str, str], bytes]:
        if ":countTokens" in path:
            return 200, {"Content-Type": "application/json"}, b'{"totalTokens": 100}'
        contents = body.get("contents") or []
        if not body.get("tools"):  # a side request (routing, next-speaker, a summary): a short answer
            reply = _gemini_reply([{"text": '{"reasoning": "simple", "model_choice": "flash", "next_speaker": "user"}'}])
        else:
            if self.hang_s:
                time.sleep(self.hang_s)
            texts = [p.get("text", "") for c in contents if c.get("role") == "user" for p in c.get("parts") or []
                     if isinstance(p, dict) and "text" in p]
            responses = [p["functionResponse"] for c in contents for p in c.get("parts") or []
                         if isinstance(p, dict) and "functionResponse" in p]
            with self._lock:
                prompt = amicus_prompt(texts)
                self.prompts.append(prompt)
                if self.tools_first and not responses:
                    reply = _gemini_reply([{"functionCall": {"name": n, "args": a}} for n, a in self.tools_first])
                else:
                    self.function_responses.extend(r for r in responses if r not in self.function_responses)
                    reply = _gemini_reply([{"text": self.text(prompt)}])
        if "alt=sse" in path or ":streamGenerateContent" in path:
            return 200, {"Content-Type": "text/event-stream"}, f"data: {json.dumps(reply)}\r\n\r\n".encode()
        return 200, {"Content-Type": "application/json"}, json.dumps(reply).encode()


def _gemini_reply(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
            "modelVersion": "gemini-fake"}


# ----------------------------------------------------------------------------- OpenAI Responses API


class SeatResponses(_Server):
    """The OpenAI Responses API (`POST /v1/responses`, streamed) playing a seat, for the Codex CLI
    (a model provider in `$CODEX_HOME/config.toml` pointed here). `tools_first` are function calls
    (name, arguments) asked for before the seat's reply."""

    def __init__(self, name: str, *, tools_first: Sequence[tuple[str, dict[str, Any]]] = (),
                 hang_s: float = 0.0, naive: bool = False, text: Callable[[str], str] | None = None) -> None:
        super().__init__()
        self.text = text or seat_text(name)
        self.tag = f"seat-{name}"
        self.naive = naive  # ignores `text.format` and answers in prose regardless
        self.tools_first = list(tools_first)
        self.hang_s = hang_s
        self.prompts: list[str] = []
        self.schemas: list[dict[str, Any]] = []  # the `text.format` json_schema of each request that had one
        self.outputs: list[dict[str, Any]] = []  # the function_call_output items the CLI sent back
        self._ids = itertools.count(1)

    def post(self, path: str, body: Any) -> tuple[int, dict[str, str], bytes]:
        if not path.rstrip("/").endswith("/responses"):
            return 404, {"Content-Type": "application/json"}, b'{"error": {"message": "not here"}}'
        if self.hang_s:
            time.sleep(self.hang_s)
        items = body.get("input") or []
        texts = [c.get("text", "") for i in items if isinstance(i, dict) and i.get("role") == "user"
                 for c in i.get("content") or [] if isinstance(c, dict) and c.get("type") == "input_text"]
        outputs = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
        with self._lock:
            prompt = amicus_prompt(texts)
            self.prompts.append(prompt)
            fmt = (body.get("text") or {}).get("format") or {}
            schema = fmt.get("schema") if fmt.get("type") == "json_schema" else None
            if schema is not None:
                self.schemas.append(schema)
            if self.tools_first and not outputs:
                out = [{"type": "function_call", "id": f"fc_{next(self._ids)}", "call_id": f"call_{next(self._ids)}",
                        "name": n, "arguments": json.dumps(a), "status": "completed"} for n, a in self.tools_first]
            else:
                self.outputs.extend(o for o in outputs if o not in self.outputs)
                answer = (json.dumps(answer_for_schema(schema, self.tag)) if schema is not None and not self.naive
                          else self.text(prompt))
                out = [{"type": "message", "id": f"msg_{next(self._ids)}", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": answer, "annotations": []}]}]
        rid = f"resp_{next(self._ids)}"
        events = [("response.created", {"type": "response.created", "response": {"id": rid}})]
        for item in out:
            events.append(("response.output_item.done", {"type": "response.output_item.done", "item": item}))
        events.append(("response.completed", {"type": "response.completed", "response": {
            "id": rid, "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                                 "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                                 "total_tokens": 20}}}))
        payload = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
        return 200, {"Content-Type": "text/event-stream"}, payload.encode()


def codex_home(home: Path, base_url: str) -> Path:
    """A CODEX_HOME whose model provider is the fake (an API key in its env_key, nothing else)."""
    folder = home / ".codex"
    folder.mkdir(exist_ok=True)
    (folder / "config.toml").write_text(
        'model = "gpt-fake"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{base_url}/v1"\nenv_key = "OPENAI_API_KEY"\nwire_api = "responses"\n', encoding="utf-8")
    return folder
