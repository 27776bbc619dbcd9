"""Any OpenAI-compatible chat API: OpenRouter, OpenAI, DeepSeek, Google, Ollama, vLLM …

Two halves, kept apart the way pydantic-ai splits models from providers:

- request/response mapping — pure functions: `build_payload` turns a `CompletionRequest`
  into a `/chat/completions` body; `parse_reply` turns a decoded body into a
  `Completion` (or a typed error); `with_structured` checks structured output;
  `error_for_status` maps an HTTP failure to a typed error; `price_usage` decides cost.
- plumbing — `OpenAICompatibleProvider`: base URL, key, headers, one shared
  `httpx.AsyncClient`, explicit timeouts, retries under the leg's deadline, and how the
  cost of a reply is worked out (`cost_mode`).

Structured output is requested with `response_format: json_schema` (strict) *and* the
reply is always validated here with `jsonschema`: a server that ignores the parameter
still cannot hand the engine an invalid document. Strict mode wants schemas whose objects
list every property in `required` and set `additionalProperties: false`; OpenAI answers
400 (ProviderRejected) to others.

Usage stays honest across failures: tokens an attempt consumed before failing (an error
inside a 200 body, a schema-invalid reply) are added to the final result or error.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import httpx

from ..errors import BadArgs
from ..fsio import loads_json
from ..schemas import JsonObject
from ..vocabulary import CATALOG_PRICED_MODES, CostMode, CostSource
from .base import Completion, CompletionRequest, Message, Tokens, ToolCall, Usage
from .catalog import Pricing
from .errors import (
    AuthError,
    ContextTooLong,
    MalformedReply,
    ModelNotFound,
    OutOfCredits,
    ProviderDown,
    ProviderError,
    ProviderRejected,
    ProviderTimeout,
    RateLimited,
)
from .keys import Secret, redact
from .retry import RetryPolicy, call_with_retries, parse_retry_after
from .tls import DeferredTLSContext

if TYPE_CHECKING:  # jsonschema is imported where a schema is first used, not at start-up
    from jsonschema.protocols import Validator

PriceLookup = Callable[[str], Pricing | None]

CONNECT_TIMEOUT_S = 10.0
MAX_BODY_BYTES = 32 * 1024 * 1024  # a reply larger than this is not a chat completion
_SNIPPET = 300
_SCHEMA_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_MODEL_MISSING = re.compile(
    r"not a valid model|model[^.]{0,80}?(not found|does not exist|not exist|unknown|unavailable)|"
    r"unknown model|no such model|model_not_found|no endpoints found",
    re.IGNORECASE,
)
# How providers say the prompt does not fit: OpenAI's `context_length_exceeded`, "maximum
# context length is 8192 tokens", "prompt is too long", "exceeds the context window", …
_CONTEXT_TOO_LONG = re.compile(
    r"context[ _-]?(length|window)|maximum context|prompt is too long|too many (input )?tokens|"
    r"input (is )?too long|exceeds? the (model'?s? )?(max(imum)?|token) (context|limit)", re.IGNORECASE)
_MODERATION = re.compile(r"moderat|flagged|guardrail|content (policy|filter)|safety", re.IGNORECASE)


def make_client(transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """The shared client: per-request timeouts are always passed explicitly, and its TLS
    certificates are loaded only once a connection needs them (providers/tls.py)."""
    return httpx.AsyncClient(transport=transport, verify=DeferredTLSContext(), timeout=httpx.Timeout(CONNECT_TIMEOUT_S),
                             follow_redirects=False)


# ---------------------------------------------------------------- request mapping


def build_payload(
    request: CompletionRequest, *, extra: Mapping[str, Any] | None = None, max_tokens_field: str = "max_tokens"
) -> JsonObject:
    """The JSON body for POST /chat/completions (a wire body: open JSON)."""
    payload: JsonObject = {
        "model": request.model,
        "messages": [wire_message(m) for m in request.messages],
    }
    if request.tools:
        payload["tools"] = list(request.tools)
        payload["tool_choice"] = request.tool_choice
    if request.max_tokens is not None:
        payload[max_tokens_field] = request.max_tokens
    if request.temperature is not None:
        payload["temperature"] = request.temperature
    if request.json_schema is not None:
        schema_validator(request.json_schema)  # SchemaError here: a bad schema is our bug, not the model's
        payload["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": schema_name(request.json_schema), "strict": True, "schema": request.json_schema},
        }
    payload.update(extra or {})
    return payload


def wire_message(message: Message) -> JsonObject:
    """One message as `/chat/completions` takes it: an assistant turn's tool calls, a tool turn's call id."""
    doc: JsonObject = {"role": message.role, "content": message.content}
    if message.tool_calls:
        doc["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                             for c in message.tool_calls]
    if message.tool_call_id is not None:
        doc["tool_call_id"] = message.tool_call_id
    return doc


def schema_validator(schema: Mapping[str, Any]) -> Validator:
    """A checked validator for `schema`, compiled once per distinct schema."""
    return _compiled(json.dumps(schema, sort_keys=True))


@functools.lru_cache(maxsize=64)
def _compiled(schema_text: str) -> Validator:
    # Keyed by the canonical JSON text: a council uses a handful of schemas many times,
    # and checking a schema costs more than validating a reply against it.
    from jsonschema.validators import validator_for  # only a structured request pays for jsonschema

    schema = json.loads(schema_text)
    cls = validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def schema_name(schema: Mapping[str, Any]) -> str:
    """OpenAI requires `^[A-Za-z0-9_-]{1,64}$`; derive it from the schema's title."""
    title = schema.get("title")
    cleaned = _SCHEMA_NAME.sub("_", title).strip("_")[:64] if isinstance(title, str) else ""
    return cleaned or "reply"


# --------------------------------------------------------------- response mapping


def parse_reply(body: Any, request: CompletionRequest, *, provider: str) -> tuple[Completion, JsonObject]:
    """A decoded 2xx body → (Completion without cost, the raw usage object)."""
    if not isinstance(body, dict):
        raise MalformedReply(
            f"{provider}: reply for '{request.model}' is not a JSON object", provider=provider, model=request.model
        )
    if body.get("error"):
        raise error_from_body(body["error"], provider=provider, model=request.model)
    choice = _first_choice(body, provider=provider, model=request.model)
    if choice.get("finish_reason") == "error":
        raise error_from_body(
            choice.get("error") or "generation failed after it started", provider=provider, model=request.model
        )
    message = choice.get("message")
    if not isinstance(message, dict):
        raise MalformedReply(
            f"{provider}: reply for '{request.model}' has no message", provider=provider, model=request.model
        )
    usage_obj = _object(body.get("usage"))
    completion = Completion(
        text=_content_text(message, provider=provider, model=request.model),
        finish_reason=_str_or_none(choice.get("finish_reason")),
        resolved_model=_str_or_none(body.get("model")),
        usage=Usage(tokens=parse_tokens(usage_obj)),
        reasoning=_str_or_none(message.get("reasoning")) or _str_or_none(message.get("reasoning_content")),
        response_id=_str_or_none(body.get("id")),
        tool_calls=tool_calls_of(message),
    )
    return completion, usage_obj


MAX_TOOL_CALLS_READ = 32  # tool calls read from one reply at most: the rest of a runaway list is dropped


def tool_calls_of(message: Mapping[str, Any]) -> tuple[ToolCall, ...]:
    """The tool calls a reply's message asks for. A malformed entry is kept as a call with what
    could be read (an empty name, its arguments as text), so whoever runs the tools answers it
    with an error the model can read, rather than the reply failing."""
    raw = message.get("tool_calls")
    if not isinstance(raw, list):
        return ()
    calls: list[ToolCall] = []
    for n, entry in enumerate(raw[:MAX_TOOL_CALLS_READ]):
        entry = _object(entry)
        function = _object(entry.get("function"))
        arguments = function.get("arguments")
        if not isinstance(arguments, str):  # some servers send the object itself
            try:
                arguments = json.dumps(arguments) if arguments is not None else ""
            except (TypeError, ValueError):
                arguments = ""
        name = function.get("name")
        calls.append(ToolCall(id=_str_or_none(entry.get("id")) or f"call_{n}",
                              name=name if isinstance(name, str) else "", arguments=arguments))
    return tuple(calls)


def with_structured(
    completion: Completion, schema: Mapping[str, Any] | None, *, provider: str, model: str
) -> Completion:
    """`completion` with its schema-valid JSON attached; MalformedReply keeps text and usage."""
    if schema is None:
        return completion
    try:
        value = validate_structured(completion.text, schema, provider=provider, model=model)
    except MalformedReply as exc:
        exc.text = completion.text
        exc.usage = completion.usage
        raise
    return completion._replace(structured=value)


def _first_choice(body: JsonObject, *, provider: str, model: str) -> JsonObject:
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedReply(f"{provider}: reply for '{model}' has no choices", provider=provider, model=model)
    return choices[0]


def _content_text(message: JsonObject, *, provider: str, model: str) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones, in order
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal:
        raise ProviderRejected(f"{provider}: '{model}' refused: {_snippet(redact(refusal, ()))}", provider=provider, model=model)
    if content is None:
        return ""  # e.g. finish_reason "length" with nothing written; the engine judges it
    raise MalformedReply(
        f"{provider}: reply for '{model}' has content of type {type(content).__name__}", provider=provider, model=model
    )


def validate_structured(text: str, schema: Mapping[str, Any], *, provider: str, model: str) -> Any:
    """The reply parsed as JSON and checked against `schema`; MalformedReply otherwise."""
    try:
        value = loads_json(_strip_fence(text), what="the reply")
    except BadArgs as exc:  # NaN, 1e999 and 5,000-digit integers are not JSON amicus carries either
        raise MalformedReply(
            f"{provider}: structured reply from '{model}' is not JSON ({exc.message})", provider=provider, model=model
        ) from None
    from jsonschema.exceptions import best_match

    problem = best_match(schema_validator(schema).iter_errors(value))
    if problem is not None:
        where = "/".join(str(p) for p in problem.absolute_path) or "(root)"
        raise MalformedReply(
            f"{provider}: structured reply from '{model}' does not match the schema at {where}: {_snippet(redact(problem.message, ()))}",
            provider=provider,
            model=model,
        ) from problem
    return value


def _strip_fence(text: str) -> str:
    # Some servers ignore response_format and wrap the JSON in a ``` fence anyway.
    stripped = text.strip()
    match = re.fullmatch(r"```[A-Za-z]*\s*\n(.*?)\n?```", stripped, re.DOTALL)
    return match.group(1) if match else stripped


def parse_tokens(usage: Mapping[str, Any]) -> Tokens:
    prompt_details = _object(usage.get("prompt_tokens_details"))
    completion_details = _object(usage.get("completion_tokens_details"))
    return Tokens(
        input=_count(usage.get("prompt_tokens")),
        output=_count(usage.get("completion_tokens")),
        reasoning=_count(completion_details.get("reasoning_tokens")),
        cache_read=_count(prompt_details.get("cached_tokens")),
        cache_write=_count(prompt_details.get("cache_write_tokens")),
    )


def _object(value: object) -> JsonObject:
    """`value` when it is a JSON object, else an empty one (servers omit and vary fields)."""
    return value if isinstance(value, dict) else {}


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value) or value < 0 or value != int(value):
        return None
    return int(value)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# ------------------------------------------------------------------- error mapping


def error_for_status(
    status: int,
    raw: bytes,
    headers: httpx.Headers,
    *,
    provider: str,
    model: str,
    secrets: tuple[Secret | None, ...] = (),
    auth_hint: str | None = None,
) -> ProviderError:
    """The typed error for a non-2xx reply."""
    detail, code, metadata = _error_details(raw)
    detail = _snippet(redact(detail, secrets))  # redact the whole text first: a cut could split a key
    retry_after = parse_retry_after(headers.get("retry-after"))
    cls, what = _classify(status, detail, code, metadata)
    message = f"{provider}: {what} for model '{model}' (HTTP {status})" + (f": {detail}" if detail else "")
    if cls is AuthError and auth_hint:
        message += f" — {auth_hint}"
    err = cls(message, provider=provider, model=model, status=status, retry_after=retry_after)
    err.refused_by_status = status >= 400
    return err


def too_long(detail: str, code: Any) -> bool:
    """Whether an error says the prompt does not fit the model's context window."""
    return code == "context_length_exceeded" or bool(_CONTEXT_TOO_LONG.search(detail))


def _classify(status: int, detail: str, code: Any, metadata: Mapping[str, Any]) -> tuple[type[ProviderError], str]:
    model_missing = code == "model_not_found" or bool(_MODEL_MISSING.search(detail))
    if status not in (401, 402, 429) and too_long(detail, code):
        return ContextTooLong, "the prompt does not fit the model's context window"
    if status == 401:
        return AuthError, "the API key was rejected"
    if status == 402:
        return OutOfCredits, "out of credits or over the key's limit"
    if status == 403:
        if "reasons" in metadata or "flagged_input" in metadata or _MODERATION.search(detail):
            return ProviderRejected, "the request was refused by moderation"
        return AuthError, "the API key is not allowed to do this"
    if status == 404 or (status == 400 and model_missing):
        return ModelNotFound, "unknown model"
    if status == 408:
        return ProviderTimeout, "the provider timed out"
    if status == 429:
        return RateLimited, "rate limited"
    if status >= 500:
        return ProviderDown, "the provider failed"
    if 300 <= status < 400:
        return ProviderRejected, "unexpected redirect (check the base URL)"
    return ProviderRejected, "the request was rejected"


def error_from_body(error: Any, *, provider: str, model: str, secrets: tuple[Secret | None, ...] = ()) -> ProviderError:
    """The typed error for an `error` object inside a 200 body (generation already started)."""
    detail, code, metadata = _details_from_json({"error": error})
    detail = _snippet(redact(detail, secrets))
    status = code if isinstance(code, int) and not isinstance(code, bool) and 400 <= code <= 599 else None
    if status is None and too_long(detail, code):
        return ContextTooLong(f"{provider}: the prompt does not fit the model's context window for model '{model}': "
                              f"{detail}", provider=provider, model=model)
    if status is None:
        # Failed mid-generation with no usable code: the upstream broke, which is worth a retry.
        return ProviderDown(
            f"{provider}: generation failed for model '{model}': {detail}", provider=provider, model=model
        )
    cls, what = _classify(status, detail, code, metadata)
    return cls(
        f"{provider}: {what} for model '{model}' (error {status} in a 200 reply): {detail}",
        provider=provider,
        model=model,
        status=status,
    )


def _error_details(raw: bytes) -> tuple[str, Any, Mapping[str, Any]]:
    """(human message, error code, metadata) from whatever error body a server sent.

    The message is whole (not yet cut): callers redact it, then cut it with `_snippet`.
    """
    try:
        body = loads_json(raw, what="error body")
    except BadArgs:
        return raw.decode("utf-8", errors="replace"), None, {}
    return _details_from_json(body)


def _details_from_json(body: Any) -> tuple[str, Any, Mapping[str, Any]]:
    err = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(err, str):
        return err, None, {}
    if not isinstance(err, dict):
        return _dumps_lenient(body), None, {}
    message = err["message"] if isinstance(err.get("message"), str) else _dumps_lenient(err)
    metadata = _object(err.get("metadata"))
    raw_detail = metadata.get("raw")
    if isinstance(raw_detail, str) and raw_detail:
        message = f"{message} ({raw_detail})"  # OpenRouter puts the upstream's words here
    return message, err.get("code"), metadata


def _dumps_lenient(value: Any) -> str:
    # A server's error body may hold NaN or nest absurdly; it is only shown, never parsed.
    try:
        return json.dumps(value)
    except (ValueError, RecursionError):
        return repr(type(value).__name__)


def _snippet(text: str) -> str:
    """`text` flattened and cut to a readable length. Call it on redacted text only:
    cutting first could leave most of a key just past the mask's reach."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _SNIPPET else flat[: _SNIPPET - 1] + "…"


# ------------------------------------------------------------------------- cost


def reported_cost(usage: Mapping[str, Any], tokens: Tokens, model: str, pricing: Pricing | None) -> float | None:
    """The billed cost from an OpenRouter usage object, or None when it is not a real figure."""
    cost = _number(usage.get("cost"))
    if cost is None:
        return None
    details = _object(usage.get("cost_details"))
    upstream = _number(details.get("upstream_inference_cost"))
    if usage.get("is_byok") is True and upstream is not None:
        cost += upstream  # with your own upstream key, `cost` is only OpenRouter's fee
    if cost > 0:
        return cost
    # A 0 is believed only where 0 is the price: a `:free` variant, or a catalog price of 0.
    used = (tokens.input or 0) + (tokens.output or 0) > 0
    free = model.endswith(":free") or (pricing is not None and pricing.is_free)
    return 0.0 if used and free else None


def estimate_from_tokens(tokens: Tokens, pricing: Pricing | None) -> float | None:
    if pricing is None or (tokens.input or 0) + (tokens.output or 0) <= 0:
        return None
    return (tokens.input or 0) * pricing.prompt + (tokens.output or 0) * pricing.completion


def price_usage(
    tokens: Tokens, usage: Mapping[str, Any], *, mode: CostMode, model: str, pricing: Pricing | None
) -> Usage:
    """A `Usage` whose cost follows `mode`; unknown stays None, never 0."""
    if mode == "reported":
        cost = reported_cost(usage, tokens, model, pricing)
        if cost is not None:
            return Usage(tokens=tokens, cost_amount=cost, cost_source="reported")
    if mode in CATALOG_PRICED_MODES:
        estimate = estimate_from_tokens(tokens, pricing)
        if estimate is not None:
            return Usage(tokens=tokens, cost_amount=estimate, cost_source="estimated")
    if mode == "local" and (tokens.input or 0) + (tokens.output or 0) > 0:
        # Your own hardware sends no bill: the $0 is exact, not an estimate.
        return Usage(tokens=tokens, cost_amount=0.0, cost_source="reported")
    return Usage(tokens=tokens)


def sum_usage(usages: list[Usage]) -> Usage:
    """Several attempts' usage as one: a total cost only when every attempt's is known."""
    fields = ("input", "output", "reasoning", "cache_read", "cache_write")
    tokens = Tokens(**{f: _sum_known(getattr(u.tokens, f) for u in usages) for f in fields})
    amounts = [u.cost_amount for u in usages]
    if any(a is None for a in amounts) or any(u.cost_source == "unknown" for u in usages):
        return Usage(tokens=tokens)
    source: CostSource = "reported" if all(u.cost_source == "reported" for u in usages) else "estimated"
    return Usage(tokens=tokens, cost_amount=sum(a or 0.0 for a in amounts), cost_source=source)


def _sum_known(values: Iterable[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


# ---------------------------------------------------------------------- plumbing


class OpenAICompatibleProvider:
    """POST {base_url}/chat/completions with retries, deadlines and typed errors."""

    def __init__(
        self,
        name: str,
        base_url: str,
        api_key: Secret | str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        cost_mode: CostMode = "none",
        pricing: PriceLookup | None = None,
        pricing_prefix: str = "",
        extra_body: Mapping[str, Any] | None = None,
        max_tokens_field: str = "max_tokens",
        key_name: str | None = None,
        client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: RetryPolicy | None = None,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self._key = api_key if isinstance(api_key, Secret) or api_key is None else Secret(api_key)
        self._headers = dict(headers or {})
        self.cost_mode: CostMode = cost_mode
        self._pricing = pricing
        self._pricing_prefix = pricing_prefix  # catalog ids are `vendor/model`; direct APIs drop the vendor
        self._extra_body = dict(extra_body or {})
        self._max_tokens_field = max_tokens_field
        self._key_name = key_name
        self._client = client  # a shared client is never closed here
        self._transport = transport
        self._own_client: httpx.AsyncClient | None = None  # made on first use, closed by aclose()
        self._retry = retry or RetryPolicy()
        self._connect_timeout_s = connect_timeout_s

    def __repr__(self) -> str:
        key = "set" if self._key else "none"
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r}, key={key}, cost_mode={self.cost_mode!r})"

    async def __aenter__(self) -> OpenAICompatibleProvider:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._own_client is not None:
            client, self._own_client = self._own_client, None
            await client.aclose()

    def _http(self) -> httpx.AsyncClient:
        if self._client is not None:
            return self._client
        if self._own_client is None:
            self._own_client = make_client(self._transport)
        return self._own_client

    async def complete(self, request: CompletionRequest) -> Completion:
        payload = build_payload(request, extra=self.extra_body(request), max_tokens_field=self._max_tokens_field)
        failed: list[Usage] = []  # what attempts that failed after generating consumed

        async def attempt(seconds_left: float) -> Completion:
            try:
                return await self._attempt(payload, request, seconds_left)
            except ProviderError as exc:
                if exc.usage is not None:
                    failed.append(exc.usage)
                raise

        try:
            done = await call_with_retries(
                attempt, budget_s=request.timeout_s, policy=self._retry, provider=self.name, model=request.model
            )
        except ProviderError as exc:
            exc.usage = sum_usage(failed) if failed else exc.usage
            raise
        return done._replace(usage=sum_usage([*failed, done.usage])) if failed else done

    def extra_body(self, request: CompletionRequest) -> Mapping[str, Any]:
        """Provider-specific fields added to every body (a subclass may vary them by request)."""
        return self._extra_body

    async def _attempt(self, payload: JsonObject, request: CompletionRequest, seconds_left: float) -> Completion:
        body = await self._post_json(payload, request.model, seconds_left)
        try:
            completion, usage_obj = parse_reply(body, request, provider=self.name)
            priced = completion._replace(usage=self._usage(usage_obj, request.model))
            return with_structured(priced, request.json_schema, provider=self.name, model=request.model)
        except ProviderError as exc:
            if exc.usage is None and isinstance(body, dict) and isinstance(body.get("usage"), dict):
                exc.usage = self._usage(body["usage"], request.model)  # a failure after generation still cost tokens
            self._scrub(exc)
            raise

    def _usage(self, usage_obj: Mapping[str, Any], model: str) -> Usage:
        return price_usage(
            parse_tokens(usage_obj), usage_obj, mode=self.cost_mode, model=model, pricing=self._price(model)
        )

    def _price(self, model: str) -> Pricing | None:
        return self._pricing(self._pricing_prefix + model) if self._pricing is not None else None

    async def _post_json(self, payload: JsonObject, model: str, seconds_left: float) -> Any:
        status, raw, headers = await self._send(payload, model, seconds_left)
        if not 200 <= status < 300:
            hint = f"check {self._key_name}" if self._key_name else None
            raise error_for_status(
                status, raw, headers, provider=self.name, model=model, secrets=(self._key,), auth_hint=hint
            )
        try:
            return loads_json(raw, what="reply")
        except BadArgs as exc:
            detail = _snippet(redact(raw.decode("utf-8", errors="replace"), (self._key,)))
            raise MalformedReply(
                f"{self.name}: reply for '{model}' is not JSON ({exc.message}): {detail}",
                provider=self.name,
                model=model,
                status=status,
            ) from None

    async def _send(self, payload: JsonObject, model: str, seconds_left: float) -> tuple[int, bytes, httpx.Headers]:
        connect = min(self._connect_timeout_s, seconds_left)
        timeout = httpx.Timeout(connect=connect, read=seconds_left, write=seconds_left, pool=connect)
        url = f"{self.base_url}/chat/completions"
        replied: int | None = None  # the status line arrived: the server was reached
        try:
            async with self._http().stream(
                "POST", url, json=payload, headers=self._request_headers(), timeout=timeout
            ) as response:
                replied = response.status_code
                raw = await _read_capped(response, provider=self.name, model=model)
                return response.status_code, raw, response.headers
        except httpx.TimeoutException as exc:
            raise ProviderTimeout(
                f"{self.name}: {type(exc).__name__} talking to {self.base_url} for '{model}'",
                provider=self.name,
                model=model,
            ) from exc
        except httpx.TransportError as exc:
            raise ProviderDown(
                self._transport_failure(exc, model, replied), provider=self.name, model=model, status=replied
            ) from exc

    def _transport_failure(self, exc: httpx.TransportError, model: str, replied: int | None) -> str:
        """What went wrong on the wire, in words that say whether the server was reached."""
        if replied is not None:
            return (f"{self.name}: truncated reply from {self.base_url} for '{model}' (HTTP {replied}): the "
                    f"connection closed before the whole body arrived ({type(exc).__name__})")
        if isinstance(exc, httpx.RemoteProtocolError):
            return (f"{self.name}: {self.base_url} closed the connection without a reply for '{model}' "
                    f"({type(exc).__name__}: {exc})")
        return f"{self.name}: cannot reach {self.base_url} for '{model}': {type(exc).__name__}: {exc}"

    def _request_headers(self) -> dict[str, str]:
        headers = dict(self._headers)
        if self._key:
            headers["Authorization"] = f"Bearer {self._key.reveal()}"
        return headers

    def _scrub(self, exc: ProviderError) -> None:
        # A server can echo anything back inside a 200 body; keep keys out of the message.
        exc.message = redact(exc.message, (self._key,))
        exc.args = (exc.message,)


async def _read_capped(response: httpx.Response, *, provider: str, model: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise MalformedReply(
                f"{provider}: reply for '{model}' exceeds {MAX_BODY_BYTES} bytes",
                provider=provider,
                model=model,
                status=response.status_code,
            )
        chunks.append(chunk)
    return b"".join(chunks)
