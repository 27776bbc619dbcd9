"""No API key value appears in any error message, repr, leg document or log line.

The fake server is told to echo the Authorization header it received back into its error
text — the worst case of a careless upstream — and every typed error is then searched for
the key, down its whole cause chain.
"""

from __future__ import annotations

import json
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


# --- issue 13 item 1: redact first, then cut ------------------------------------------------

CANARY = "sk-or-v1-SECRETCANARY12345678"


def _no_fragment(text: str, key: str = CANARY, *, at_least: int = 8) -> None:
    """No run of `at_least` characters of `key` survives in `text` (a cut key is still a leak)."""
    for start in range(len(key) - at_least + 1):
        assert key[start:start + at_least] not in text, f"fragment {start} of the key leaked"


@pytest.mark.parametrize("offset", range(280, 305))
def test_a_key_straddling_the_snippet_cut_is_masked_whole(offset: int) -> None:
    from amicus_mcp.providers.openai_compat import error_for_status
    import httpx

    message = "x" * offset + f" got Bearer {CANARY} back"
    raw = json.dumps({"error": {"message": message}}).encode()
    for secrets in ((), (CANARY,)):
        err = error_for_status(400, raw, httpx.Headers(), provider="p", model="m", secrets=secrets)
        _no_fragment(err.message)
        _no_fragment(str(err.to_doc()))


@pytest.mark.anyio
@pytest.mark.parametrize("where", ["status", "in-body", "not-json"])
async def test_a_key_echoed_near_the_cut_never_leaks_from_a_provider(fake: FakeProvider, where: str) -> None:
    padded = "y" * 285 + f" {CANARY} tail"
    reply = {
        "status": Reply(status=500, body={"error": {"code": 500, "message": padded}}),
        "in-body": Reply(status=200, body={"error": {"code": "weird", "message": padded}}),
        "not-json": Reply(status=200, body=f"<html>{padded}</html>"),
    }[where]
    fake.script(M, reply)
    async with OpenAICompatibleProvider("fake", fake.base_url, CANARY, retry=FAST_RETRY) as provider:
        with pytest.raises(ProviderError) as info:
            await provider.complete(ask(M))
    for text in _texts(info.value):
        _no_fragment(text)
    assert "***" in info.value.message


def test_every_configured_key_and_token_shape_is_masked(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from amicus_mcp.secrets import redact_text

    monkeypatch.setenv("AMICUS_ENV_DIR", str(tmp_path))
    (tmp_path / ".env").write_text("MY_SERVICE_TOKEN=tok-0123456789abcdef\n", encoding="utf-8")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "ds-key-987654321zyx")
    text = ("a tok-0123456789abcdef b ds-key-987654321zyx c Authorization: Bearer abc.def-123456789 "
            "d sk-proj-AAAAbbbbCCCCdddd1234567890 e AKIAABCDEFGHIJKLMNOP f ghp_" + "a1" * 18)
    masked = redact_text(text)
    for secret in ("tok-0123456789abcdef", "ds-key-987654321zyx", "abc.def-123456789", "sk-proj-AAAA",
                   "AKIAABCDEFGHIJKLMNOP", "ghp_a1a1"):
        assert secret not in masked
    assert "Bearer ***" in masked and masked.startswith("a *** b *** c")


def test_ordinary_text_is_left_alone() -> None:
    from amicus_mcp.secrets import redact_text

    text = ("deepseek/deepseek-chat ran the task-force review; the disk-cache key is stale (Bearer of bad news); "
            "Bearer authentication over TLS; sk-learn-compatible-estimators-everywhere; xoxo-hugs")
    assert redact_text(text) == text


def test_errors_and_json_output_are_masked_at_the_choke_points(monkeypatch: pytest.MonkeyPatch) -> None:
    from amicus_mcp.errors import BadArgs
    from amicus_mcp.fsio import dumps_json

    monkeypatch.setenv("OPENROUTER_API_KEY", CANARY)
    err = BadArgs(f"model '{CANARY}' does not resolve", hint=f"not {CANARY}")
    assert CANARY not in err.message and CANARY not in (err.hint or "")
    assert CANARY not in dumps_json({"note": f"said {CANARY}", CANARY: 1})


# --- issue 13 item 10: a truncated body is a truncated reply, not "cannot reach" --------------


@pytest.mark.anyio
async def test_a_truncated_body_is_named_a_truncated_reply(fake: FakeProvider) -> None:
    body = json.loads(json.dumps(chat("a long enough answer " * 20).body))
    fake.script(M, *[Reply(body=body, truncate_at=60)] * 3)
    async with OpenAICompatibleProvider("fake", fake.base_url, KEY, retry=FAST_RETRY) as provider:
        with pytest.raises(ProviderError) as info:
            await provider.complete(ask(M))
    message = info.value.message
    assert "truncated reply" in message and "HTTP 200" in message
    assert "cannot reach" not in message
    assert info.value.retryable


def test_the_users_own_config_keeps_its_credentials(config_dir, monkeypatch: pytest.MonkeyPatch) -> None:
    from amicus_mcp.config import load_config, save_config

    monkeypatch.setenv("MY_SERVER_TOKEN", "tok-0123456789abcdef")
    doc = {"providers": {"mine": {"baseUrl": "http://127.0.0.1:1/v1",
                                  "headers": {"Authorization": "Bearer tok-0123456789abcdef"}}}}
    save_config(doc)
    assert load_config() == doc  # masking is for what amicus shows and records, not the user's file
