"""OpenAICompatibleProvider against the fake server: every scripted case ends typed and bounded."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from amicus_mcp.providers.base import Tokens, Usage
from amicus_mcp.providers.catalog import Pricing
from amicus_mcp.providers.errors import (
    AuthError,
    MalformedReply,
    ModelNotFound,
    OutOfCredits,
    ProviderDown,
    ProviderRejected,
    ProviderTimeout,
    RateLimited,
)
from amicus_mcp.providers.openai_compat import (
    OpenAICompatibleProvider,
    build_payload,
    parse_tokens,
    schema_name,
    sum_usage,
)
from fakeprovider import (
    FAST_RETRY,
    ask,
    FakeProvider,
    Reply,
    chat,
    error,
    error_in_body,
    failed_mid_generation,
    hang,
    malformed,
    rate_limited,
    structured,
    usage,
)


pytestmark = pytest.mark.anyio

M = "vendor/model"
SCHEMA: dict[str, Any] = {
    "title": "Findings block",
    "type": "object",
    "properties": {"findings": {"type": "array", "items": {"type": "string"}}},
    "required": ["findings"],
    "additionalProperties": False,
}


@pytest.fixture
async def provider(fake: FakeProvider) -> AsyncIterator[OpenAICompatibleProvider]:
    async with OpenAICompatibleProvider("fake", fake.base_url, "sk-test-key", retry=FAST_RETRY) as p:
        yield p


async def test_valid_text_reply(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    fake.script(M, chat("Looks fine.", model="vendor/model-2026-08", usage=usage(120, 30)))
    done = await provider.complete(ask(M, max_tokens=500, temperature=0.2))
    assert done.text == "Looks fine."
    assert done.finish_reason == "stop"
    assert done.resolved_model == "vendor/model-2026-08"
    assert done.usage.tokens == Tokens(input=120, output=30)
    assert done.usage.cost_amount is None and done.usage.cost_source == "unknown"  # cost_mode "none"
    sent = fake.chat_requests(M)[0]
    assert sent.headers["authorization"] == "Bearer sk-test-key"
    assert sent.body["messages"] == [{"role": "user", "content": "Review this."}]
    assert sent.body["max_tokens"] == 500 and sent.body["temperature"] == 0.2
    assert "response_format" not in sent.body


async def test_structured_output_is_requested_and_validated(
    fake: FakeProvider, provider: OpenAICompatibleProvider
) -> None:
    fake.script(M, structured({"findings": ["a", "b"]}))
    done = await provider.complete(ask(M, json_schema=SCHEMA))
    assert done.structured == {"findings": ["a", "b"]}
    fmt = fake.chat_requests(M)[0].body["response_format"]
    assert fmt == {"type": "json_schema", "json_schema": {"name": "Findings_block", "strict": True, "schema": SCHEMA}}


async def test_structured_reply_in_a_fence_is_accepted(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    fake.script(M, chat('```json\n{"findings": []}\n```'))
    done = await provider.complete(ask(M, json_schema=SCHEMA))
    assert done.structured == {"findings": []}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("not json at all", "is not JSON"),
        ('{"findings": [1]}', "at findings/0"),
        ('{"other": 1}', "does not match the schema"),
    ],
)
async def test_structured_reply_that_is_not_valid_is_malformed(
    fake: FakeProvider, provider: OpenAICompatibleProvider, text: str, fragment: str
) -> None:
    fake.script(M, chat(text))
    with pytest.raises(MalformedReply, match=fragment):
        await provider.complete(ask(M, json_schema=SCHEMA))
    assert len(fake.chat_requests(M)) == 1  # the council's repair re-prompt owns retries of content


@pytest.mark.parametrize(
    "reply",
    [
        malformed(),
        Reply(body={"id": "x", "model": M}),
        Reply(body={"choices": []}),
        Reply(body=[1, 2]),
        Reply(body={"choices": [{"finish_reason": "stop"}]}),
    ],
    ids=["html-body", "no-choices", "empty-choices", "not-an-object", "no-message"],
)
async def test_malformed_bodies(fake: FakeProvider, provider: OpenAICompatibleProvider, reply: Reply) -> None:
    fake.script(M, reply)
    with pytest.raises(MalformedReply) as info:
        await provider.complete(ask(M))
    assert info.value.provider == "fake" and info.value.model == M


async def test_a_schema_invalid_reply_keeps_its_text_and_usage(fake: FakeProvider) -> None:
    fake.script(M, chat('{"findings": "not a list"}', usage=usage(900, 40)))
    async with OpenAICompatibleProvider("ollama", fake.base_url, cost_mode="local") as local:
        with pytest.raises(MalformedReply) as info:
            await local.complete(ask(M, json_schema=SCHEMA))
    assert info.value.text == '{"findings": "not a list"}'
    assert info.value.usage == Usage(tokens=Tokens(input=900, output=40), cost_amount=0.0, cost_source="reported")
    assert info.value.to_doc()["usage"]["tokens"]["input"] == 900


async def test_an_error_in_a_200_body_keeps_the_usage_it_reports(
    fake: FakeProvider, provider: OpenAICompatibleProvider
) -> None:
    fake.script(M, error_in_body(400, "content filtered", usage=usage(500, 20)))
    with pytest.raises(ProviderRejected) as info:
        await provider.complete(ask(M))
    assert info.value.usage is not None and info.value.usage.tokens == Tokens(input=500, output=20)


async def test_usage_of_failed_attempts_is_added_to_the_final_result(fake: FakeProvider) -> None:
    fake.script(
        M,
        error_in_body(502, "upstream broke", usage=usage(100, 10, cost=0.001)),
        chat("ok", usage=usage(100, 50, cost=0.002)),
    )
    async with OpenAICompatibleProvider("gw", fake.base_url, "k", cost_mode="reported", retry=FAST_RETRY) as gateway:
        done = await gateway.complete(ask(M))
    assert done.usage.tokens == Tokens(input=200, output=60)
    assert (done.usage.cost_amount, done.usage.cost_source) == (pytest.approx(0.003), "reported")


async def test_usage_of_every_failed_attempt_is_on_the_final_error(fake: FakeProvider) -> None:
    fake.script(M, error_in_body(502, "upstream broke", usage=usage(100, 10, cost=0.001)))
    async with OpenAICompatibleProvider("gw", fake.base_url, "k", cost_mode="reported", retry=FAST_RETRY) as gateway:
        with pytest.raises(ProviderDown) as info:
            await gateway.complete(ask(M))
    assert info.value.usage is not None
    assert info.value.usage.tokens.input == 300 and info.value.usage.cost_amount == pytest.approx(0.003)


def test_sum_usage_is_unknown_when_any_part_is() -> None:
    known = Usage(tokens=Tokens(input=1), cost_amount=0.5, cost_source="reported")
    guessed = Usage(tokens=Tokens(output=2), cost_amount=0.25, cost_source="estimated")
    assert sum_usage([known, guessed]) == Usage(
        tokens=Tokens(input=1, output=2), cost_amount=0.75, cost_source="estimated"
    )
    assert sum_usage([known, Usage(tokens=Tokens(input=3))]) == Usage(tokens=Tokens(input=4))


async def test_429_with_retry_after_is_waited_out_then_succeeds(
    fake: FakeProvider, provider: OpenAICompatibleProvider
) -> None:
    fake.script(M, rate_limited(retry_after=1), chat("second time lucky"))
    started = time.monotonic()
    done = await provider.complete(ask(M))
    assert done.text == "second time lucky"
    assert len(fake.chat_requests(M)) == 2
    assert time.monotonic() - started >= 0.9  # Retry-After honoured, not skipped


async def test_429_with_retry_after_beyond_the_budget_gives_up_at_once(
    fake: FakeProvider, provider: OpenAICompatibleProvider
) -> None:
    fake.script(M, rate_limited(retry_after=30), chat("never reached"))
    started = time.monotonic()
    with pytest.raises(RateLimited) as info:
        await provider.complete(ask(M, timeout_s=5))
    assert info.value.status == 429 and info.value.retry_after == 30
    assert len(fake.chat_requests(M)) == 1
    assert time.monotonic() - started < 5


async def test_429_every_time_ends_rate_limited_after_bounded_attempts(
    fake: FakeProvider, provider: OpenAICompatibleProvider
) -> None:
    fake.script(M, rate_limited(retry_after=None))
    with pytest.raises(RateLimited):
        await provider.complete(ask(M))
    assert len(fake.chat_requests(M)) == FAST_RETRY.max_attempts


async def test_5xx_then_success(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    fake.script(
        M, error(502, "upstream down"), error(503, "no provider available"), chat("recovered", usage=usage(3, 4))
    )
    done = await provider.complete(ask(M))
    assert done.text == "recovered"
    assert len(fake.chat_requests(M)) == 3


async def test_5xx_every_time_is_provider_down(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    fake.script(M, error(500, "internal"))
    with pytest.raises(ProviderDown) as info:
        await provider.complete(ask(M))
    assert info.value.status == 500 and "internal" in str(info.value)
    assert len(fake.chat_requests(M)) == 3


@pytest.mark.parametrize(
    ("reply", "expected", "status"),
    [
        (error(402, "Insufficient credits"), OutOfCredits, 402),
        (error(401, "No auth credentials found"), AuthError, 401),
        (error(403, "Key is disabled"), AuthError, 403),
        (
            error(403, "Input was flagged by moderation", metadata={"reasons": ["violence"], "flagged_input": "…"}),
            ProviderRejected,
            403,
        ),
        (error(404, "model 'vendor/model' not found"), ModelNotFound, 404),
        (error(400, "vendor/model is not a valid model ID"), ModelNotFound, 400),
        (error(400, "messages: field required"), ProviderRejected, 400),
        (error(422, "unprocessable"), ProviderRejected, 422),
    ],
    ids=["402", "401", "403-key", "403-moderation", "404", "400-model", "400", "422"],
)
async def test_client_errors_are_typed_and_never_retried(
    fake: FakeProvider, provider: OpenAICompatibleProvider, reply: Reply, expected: type[Exception], status: int
) -> None:
    fake.script(M, reply, chat("must not be reached"))
    with pytest.raises(expected) as info:
        await provider.complete(ask(M))
    assert type(info.value) is expected
    assert info.value.status == status  # type: ignore[attr-defined]
    assert len(fake.chat_requests(M)) == 1


async def test_hung_connection_times_out_within_the_budget(
    fake: FakeProvider, provider: OpenAICompatibleProvider
) -> None:
    fake.script(M, hang(30))
    started = time.monotonic()
    with pytest.raises(ProviderTimeout) as info:
        await provider.complete(ask(M, timeout_s=1.0))
    assert time.monotonic() - started < 1.0 + 3.0
    assert info.value.leg_status == "timeout"


async def test_hang_then_success_is_not_retried_past_the_deadline(
    fake: FakeProvider, provider: OpenAICompatibleProvider
) -> None:
    fake.script(M, hang(30), chat("too late"))
    started = time.monotonic()
    with pytest.raises(ProviderTimeout):
        await provider.complete(ask(M, timeout_s=1.0))
    assert time.monotonic() - started < 1.0 + 3.0


async def test_latency_within_the_budget_succeeds(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    fake.script(M, chat("slow but fine", delay_s=0.3))
    done = await provider.complete(ask(M, timeout_s=5))
    assert done.text == "slow but fine"


async def test_408_is_a_timeout_and_retried(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    fake.script(M, error(408, "request timeout"), chat("ok"))
    assert (await provider.complete(ask(M))).text == "ok"
    assert len(fake.chat_requests(M)) == 2


async def test_error_object_inside_a_200_body(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    fake.script(M, error_in_body(402, "Key limit exceeded"), chat("unreached"))
    with pytest.raises(OutOfCredits) as info:
        await provider.complete(ask(M))
    assert "Key limit exceeded" in str(info.value) and "in a 200 reply" in str(info.value)
    assert len(fake.chat_requests(M)) == 1


async def test_retryable_error_inside_a_200_body_is_retried(
    fake: FakeProvider, provider: OpenAICompatibleProvider
) -> None:
    fake.script(M, error_in_body(502, "Provider returned error"), chat("fine now"))
    assert (await provider.complete(ask(M))).text == "fine now"


async def test_finish_reason_error_is_provider_down(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    fake.script(M, failed_mid_generation("stream broke"))
    with pytest.raises(ProviderDown, match="stream broke"):
        await provider.complete(ask(M))
    assert len(fake.chat_requests(M)) == 3  # a broken upstream is worth retrying


async def test_usage_with_reasoning_and_cache_tokens(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    fake.script(M, chat("ok", usage=usage(1000, 400, reasoning=250, cached=600, cache_write=100)))
    done = await provider.complete(ask(M))
    assert done.usage.tokens == Tokens(input=1000, output=400, reasoning=250, cache_read=600, cache_write=100)


async def test_missing_usage_is_unknown_not_zero(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    fake.script(M, chat("ok", usage=None, model=None))
    done = await provider.complete(ask(M))
    assert done.usage.tokens == Tokens()
    assert done.usage.cost_amount is None and done.usage.cost_source == "unknown"
    assert done.resolved_model is None


async def test_unreachable_server_is_provider_down_in_bounded_time() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago and has no listener now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with OpenAICompatibleProvider("fake", f"http://127.0.0.1:{port}/v1", retry=FAST_RETRY) as provider:
        started = time.monotonic()
        with pytest.raises(ProviderDown, match="cannot reach"):
            await provider.complete(ask(M, timeout_s=3))
        assert time.monotonic() - started < 3 + 3


async def test_local_cost_mode_prices_known_tokens_at_zero(fake: FakeProvider) -> None:
    fake.script(M, chat("ok", usage=usage(10, 5)))
    fake.script("no/usage", chat("ok", usage=None))
    async with OpenAICompatibleProvider("ollama", fake.base_url, cost_mode="local") as local:
        done = await local.complete(ask(M))
        assert (done.usage.cost_amount, done.usage.cost_source) == (0.0, "reported")  # exact: no bill
        unknown = await local.complete(ask("no/usage"))
        assert (unknown.usage.cost_amount, unknown.usage.cost_source) == (None, "unknown")
    assert "authorization" not in fake.chat_requests(M)[0].headers  # no key, no header


async def test_catalog_cost_mode_estimates_from_the_vendor_prefixed_price(fake: FakeProvider) -> None:
    fake.script("gpt-x", chat("ok", usage=usage(1000, 100)))
    asked: list[str] = []

    def lookup(model_id: str) -> Pricing | None:
        asked.append(model_id)
        return Pricing(prompt=0.000002, completion=0.00001)

    async with OpenAICompatibleProvider(
        "openai", fake.base_url, "k-direct", cost_mode="catalog", pricing=lookup, pricing_prefix="openai/"
    ) as direct:
        done = await direct.complete(ask("gpt-x"))
    assert asked == ["openai/gpt-x"]
    assert done.usage.cost_source == "estimated"
    assert done.usage.cost_amount == pytest.approx(1000 * 0.000002 + 100 * 0.00001)


async def test_content_parts_reasoning_and_refusal(fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    parts = Reply(
        body={
            "model": M,
            "choices": [
                {
                    "finish_reason": "stop",
                    "message": {
                        "content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
                    },
                }
            ],
        }
    )
    fake.script(M, parts)
    assert (await provider.complete(ask(M))).text == "ab"
    fake.script(M, chat("answer", reasoning="thought about it"))
    assert (await provider.complete(ask(M))).reasoning == "thought about it"
    fake.script(
        M, Reply(body={"choices": [{"finish_reason": "stop", "message": {"content": None, "refusal": "I can't help"}}]})
    )
    with pytest.raises(ProviderRejected, match="refused"):
        await provider.complete(ask(M))


async def test_length_finish_without_text_is_returned_for_the_engine_to_judge(
    fake: FakeProvider, provider: OpenAICompatibleProvider
) -> None:
    fake.script(M, chat(None, finish="length", usage=usage(10, 4000)))
    done = await provider.complete(ask(M))
    assert (done.text, done.finish_reason) == ("", "length")


async def test_shared_client_is_not_closed_by_the_provider(fake: FakeProvider) -> None:
    import httpx

    fake.script(M, chat("ok"))
    async with httpx.AsyncClient() as client:
        async with OpenAICompatibleProvider("a", fake.base_url, client=client) as first:
            await first.complete(ask(M))
        assert not client.is_closed
        second = OpenAICompatibleProvider("b", fake.base_url, client=client)
        assert (await second.complete(ask(M))).text == "ok"


def test_build_payload_pure_mapping() -> None:
    request = ask(M, json_schema={"type": "object"}, max_tokens=7)
    payload = build_payload(request, extra={"usage": {"include": True}}, max_tokens_field="max_completion_tokens")
    assert payload["max_completion_tokens"] == 7 and "max_tokens" not in payload
    assert payload["usage"] == {"include": True}
    assert payload["response_format"]["json_schema"]["name"] == "reply"
    assert json.loads(json.dumps(payload)) == payload


def test_an_invalid_schema_is_a_programming_error() -> None:
    from jsonschema.exceptions import SchemaError

    with pytest.raises(SchemaError):
        build_payload(ask(M, json_schema={"type": "no-such-type"}))


@pytest.mark.parametrize(
    ("title", "name"), [("Judge output!", "Judge_output"), ("", "reply"), (None, "reply"), ("x" * 80, "x" * 64)]
)
def test_schema_name(title: str | None, name: str) -> None:
    assert schema_name({"title": title} if title is not None else {}) == name


def test_parse_tokens_rejects_nonsense() -> None:
    tokens = parse_tokens(
        {"prompt_tokens": -1, "completion_tokens": True, "completion_tokens_details": {"reasoning_tokens": 2.5}}
    )
    assert tokens == Tokens()


async def test_tools_are_offered_and_tool_calls_read_as_openrouter_sends_them(
        fake: FakeProvider, provider: OpenAICompatibleProvider) -> None:
    from amicus_mcp.providers.base import CompletionRequest, Message, ToolCall
    from fakeprovider import calling, tool_call

    spec = {"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}
    odd = {"id": "call_odd", "type": "function", "function": {"arguments": {"text": "x"}}}  # no name, an object
    fake.script(M, calling(tool_call("search", {"text": "evict"}, call_id="call_1"), odd, "not an entry"))
    request = CompletionRequest(model=M, messages=(Message("user", "Check it."),), timeout_s=10, tools=(spec,))
    done = await provider.complete(request)
    assert done.text == "" and done.finish_reason == "tool_calls"
    assert done.tool_calls == (ToolCall("call_1", "search", '{"text": "evict"}'), ToolCall("call_odd", "", '{"text": "x"}'),
                               ToolCall("call_2", "", ""))
    sent = fake.chat_requests(M)[0].body
    assert sent["tools"] == [spec] and sent["tool_choice"] == "auto"
    # The next turn carries the assistant's calls and one tool message per call, in OpenAI's shape.
    fake.script(M, chat("Done."))
    turn = request._replace(messages=(*request.messages, Message("assistant", "", tool_calls=done.tool_calls[:1]),
                                      Message("tool", "3 hits", tool_call_id="call_1")), tool_choice="none")
    assert (await provider.complete(turn)).text == "Done."
    # Asked for the answer: the tools its calls name are still offered, with tool_choice "none".
    assert (fake.chat_requests(M)[1].body["tools"], fake.chat_requests(M)[1].body["tool_choice"]) == ([spec], "none")
    assert fake.chat_requests(M)[1].body["messages"][1:] == [
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": '{"text": "evict"}'}}]},
        {"role": "tool", "content": "3 hits", "tool_call_id": "call_1"}]
