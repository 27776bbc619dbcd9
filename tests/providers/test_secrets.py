"""No API key value appears in any error message, repr, leg document or log line.

The fake server is told to echo the Authorization header it received back into its error
text — the worst case of a careless upstream — and every typed error is then searched for
the key, down its whole cause chain.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator

import pytest

from amicus_mcp.errors import AmicusError
from amicus_mcp.providers.errors import ProviderError
from amicus_mcp.providers.openai_compat import OpenAICompatibleProvider
from amicus_mcp.providers.openrouter import OpenRouterProvider
from amicus_mcp.providers.routing import ProviderRegistry, resolve_model
from fakeprovider import FAST_RETRY, FakeProvider, Reply, ask, chat, hang, structured

KEY = "sk-or-v1-0123456789abcdef-SECRET"
M = "vendor/model"


def _texts(exc: BaseException) -> Iterator[str]:
    """Every way an exception (and its causes) can be shown."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield str(current)
        yield repr(current)
        yield " ".join(str(a) for a in current.args)
        if isinstance(current, ProviderError):
            yield str(current.to_doc())
        if isinstance(current, AmicusError):
            yield str(current.to_envelope())
        current = current.__cause__ or current.__context__


def _assert_clean(exc: BaseException) -> None:
    for text in _texts(exc):
        assert KEY not in text
        assert KEY[:20] not in text


ECHOING = [
    Reply(status=401, body={"error": {"code": 401, "message": "bad key"}}, echo_auth=True),
    Reply(status=403, body={"error": {"code": 403, "message": "forbidden"}}, echo_auth=True),
    Reply(status=402, body={"error": {"code": 402, "message": "no credits"}}, echo_auth=True),
    Reply(status=500, body={"error": {"code": 500, "message": "crash"}}, echo_auth=True),
    Reply(status=400, body={"error": {"code": 400, "message": "bad request"}}, echo_auth=True),
    Reply(status=200, body={"error": {"code": 429, "message": "later"}}, echo_auth=True),
    Reply(status=200, body={"error": {"code": "weird", "message": "mid-stream"}}, echo_auth=True),
]


@pytest.mark.anyio
@pytest.mark.parametrize("reply", ECHOING, ids=lambda r: f"{r.status}")
async def test_echoed_keys_are_redacted_from_errors(
    fake: FakeProvider, reply: Reply, caplog: pytest.LogCaptureFixture
) -> None:
    fake.script(M, reply)
    with caplog.at_level(logging.DEBUG):
        async with OpenRouterProvider(KEY, base_url=fake.base_url, retry=FAST_RETRY) as provider:
            with pytest.raises(ProviderError) as info:
                await provider.complete(ask(M))
    assert "***" in info.value.message  # the echo happened and was scrubbed
    _assert_clean(info.value)
    assert KEY not in caplog.text


@pytest.mark.anyio
@pytest.mark.parametrize(
    "reply",
    [Reply(body=f"not json {KEY}"), chat(f"model said {KEY}"), hang(30)],
    ids=["raw-body", "schema-fail", "hang"],
)
async def test_other_failures_carry_no_key(fake: FakeProvider, reply: Reply) -> None:
    fake.script(M, reply)
    async with OpenAICompatibleProvider("fake", fake.base_url, KEY, retry=FAST_RETRY) as provider:
        with pytest.raises(ProviderError) as info:
            await provider.complete(ask(M, timeout_s=1, json_schema={"type": "object"}))
    _assert_clean(info.value)


@pytest.mark.anyio
async def test_unreachable_carries_no_key() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with OpenAICompatibleProvider("fake", f"http://127.0.0.1:{port}/v1", KEY, retry=FAST_RETRY) as provider:
        with pytest.raises(ProviderError) as info:
            await provider.complete(ask(M, timeout_s=2))
    _assert_clean(info.value)


@pytest.mark.anyio
async def test_success_path_reprs_carry_no_key(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    fake.script(M, structured({"ok": True}))
    async with ProviderRegistry({}) as registry:
        route = resolve_model(M, cfg={})
        provider = registry.provider_for(route)
        done = await provider.complete(ask(M))
        for shown in (repr(provider), str(provider), repr(registry), repr(route), repr(done), str(vars(provider))):
            assert KEY not in shown
    assert fake.chat_requests(M)[0].headers["authorization"] == f"Bearer {KEY}"  # it was sent, only to the server


def test_missing_key_errors_name_the_variable_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "")
    with pytest.raises(AmicusError) as info:
        resolve_model("gpt", gateway="direct", cfg={})
    _assert_clean(info.value)
    assert "OPENAI_API_KEY" in info.value.message
