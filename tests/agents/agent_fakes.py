"""Loopback fakes of the agent CLIs' model APIs that answer as a council seat would.

`SeatAnthropic` is the Anthropic Messages fake (tests/clients/fake_anthropic.py) playing a
seat: it reads the amicus prompt Claude Code forwards (the last text block of the first user
message) and answers it with the same reply a fake-provider seat gives (council_helpers'
`member_responder`), optionally after first asking for tool calls (`tools_first`), so a test
can see what the CLI let through.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from council_helpers import member_responder
from fake_anthropic import FakeAnthropic, ToolUse

NODE_BIN = Path(__file__).resolve().parent.parent / "clients" / "node" / "node_modules" / ".bin"


def need_cli(name: str) -> Path:
    path = NODE_BIN / name
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: CI installs tests/clients/node")
        pytest.skip(f"{name} is not installed in tests/clients/node")
    return path




def first_user_text(body: dict[str, Any]) -> str:
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        texts = [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
        texts = [t for t in texts if not t.lstrip().startswith("<system-reminder>")]
        return texts[-1] if texts else ""
    return ""


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


class SeatAnthropic(FakeAnthropic):
    def __init__(self, name: str, *, tools_first: Sequence[ToolUse] = (), hang_s: float = 0.0) -> None:
        super().__init__(script=lambda _results: "")
        self.hang_s = hang_s  # a model that never answers: the CLI hangs on it
        self.text = seat_text(name)
        self.tools_first = list(tools_first)
        self.prompts: list[str] = []

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
            if self.tools_first and not has_tool_results(body):
                blocks = []
                for use in self.tools_first:
                    use_id = f"toolu_{next(self._ids):04d}"
                    self.transcript.calls[use_id] = use
                    blocks.append({"type": "tool_use", "id": use_id, "name": use.name, "input": use.input})
                return self._message(blocks, "tool_use")
            return self._message([{"type": "text", "text": self.text(prompt)}], "end_turn")
