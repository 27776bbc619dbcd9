"""The one interface every council leg goes through.

A provider turns a `CompletionRequest` into a `Completion`. Implementations live beside
this module (OpenAI-compatible HTTP APIs, OpenRouter, the embedded GGUF model); the engine
only ever sees this interface.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

if TYPE_CHECKING:
    from ..documents.usage import LegUsageDoc, TokenCountsDoc
    from ..schemas import JsonSchema

from ..vocabulary import CostSource


class ToolCall(NamedTuple):
    """One tool call a model asked for (OpenAI's `tool_calls` entry): its arguments as the raw
    text the model wrote — model output, parsed by whoever runs the tool, never trusted."""

    id: str
    name: str
    arguments: str


class Message(NamedTuple):
    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: tuple[ToolCall, ...] = ()  # an assistant turn that called tools
    tool_call_id: str | None = None  # a tool turn: the call it answers


class CompletionRequest(NamedTuple):
    model: str  # the provider-side model id (already resolved from an alias)
    messages: tuple[Message, ...]
    json_schema: JsonSchema | None = None  # ask for structured output when supported
    timeout_s: float = 900.0
    max_tokens: int | None = None
    temperature: float | None = None
    # Function tools offered (OpenAI's `tools` entries), sent only where the route's profile says
    # the model supports tool calling (profiles.py); None: no tools.
    tools: tuple[dict[str, object], ...] | None = None
    # "none": the tools stay offered but the model must answer in words. A conversation that
    # already holds tool calls keeps its tools, as the API requires; it only asks for the answer.
    tool_choice: Literal["auto", "none"] = "auto"
    # Told when the provider starts the leg's work, for a provider that queues legs (`queues`: an
    # agent CLI waits for a slot first); the leg's timeout runs from then, not from the queue.
    on_start: Callable[[], None] | None = None
    on_queued: Callable[[], None] | None = None  # told when the leg must wait for a slot first


class Tokens(NamedTuple):
    input: int | None = None
    output: int | None = None
    reasoning: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None

    def to_doc(self) -> TokenCountsDoc:
        return {
            "input": self.input,
            "output": self.output,
            "reasoning": self.reasoning,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
        }


class Usage(NamedTuple):
    """What a leg consumed. Unknown cost is `None` with source "unknown" — never 0."""

    tokens: Tokens = Tokens()
    cost_amount: float | None = None
    cost_source: CostSource = "unknown"

    def to_doc(self) -> LegUsageDoc:
        return {
            "tokens": self.tokens.to_doc(),
            "cost": {"amount": self.cost_amount, "currency": "USD", "source": self.cost_source},
        }


class Completion(NamedTuple):
    text: str
    finish_reason: str | None
    resolved_model: str | None  # the executable id that actually served the request
    usage: Usage
    reasoning: str | None = None  # the model's visible reasoning, when the server returns it apart
    structured: Any = None  # the parsed, schema-valid JSON when the request set json_schema
    response_id: str | None = None  # the server's id for this completion (OpenRouter: gen-…)
    tool_calls: tuple[ToolCall, ...] = ()  # the tools the model asked to call (finish_reason `tool_calls`)


class Provider(Protocol):
    name: str

    async def complete(self, request: CompletionRequest) -> Completion: ...
