"""OpenRouterProvider: key, attribution, base URL override, and how cost is decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from amicus_mcp.errors import MissingKey
from amicus_mcp.providers.catalog import Pricing
from amicus_mcp.providers.openrouter import OpenRouterProvider
from fakeprovider import FAST_RETRY, FakeProvider, ask, chat, structured, usage


pytestmark = pytest.mark.anyio

PAID = "openai/gpt-5.6-terra"
FREE_ID = "deepseek/deepseek-r1:free"


def _prices(model_id: str) -> Pricing | None:
    return {PAID: Pricing(prompt=0.000002, completion=0.00001), "zero/priced": Pricing(0.0, 0.0)}.get(model_id)


async def test_sends_key_attribution_and_usage_flag(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-v1-abc")
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    fake.script(PAID, structured({"ok": True}, usage=usage(10, 2, cost=0.0003)))
    async with OpenRouterProvider(retry=FAST_RETRY) as provider:
        assert provider.base_url == fake.base_url
        await provider.complete(ask(PAID, json_schema={"type": "object"}))
    sent = fake.chat_requests(PAID)[0]
    assert sent.headers["authorization"] == "Bearer sk-or-v1-abc"
    assert sent.headers["http-referer"].startswith("https://")
    assert sent.headers["x-openrouter-title"] == "amicus-mcp" == sent.headers["x-title"]
    assert sent.body["usage"] == {"include": True}
    assert sent.body["response_format"]["type"] == "json_schema"
    # A schema request is routed only to upstreams that honour response_format.
    assert sent.body["provider"] == {"require_parameters": True}


async def test_reported_cost(fake: FakeProvider) -> None:
    fake.script(PAID, chat("ok", usage=usage(1000, 200, cost=0.0041)))
    async with OpenRouterProvider("k-test", base_url=fake.base_url, pricing=_prices) as provider:
        done = await provider.complete(ask(PAID))
    assert (done.usage.cost_amount, done.usage.cost_source) == (0.0041, "reported")


async def test_zero_cost_with_tokens_on_a_free_model_is_a_reported_zero(fake: FakeProvider) -> None:
    fake.script(FREE_ID, chat("ok", usage=usage(1000, 200, cost=0)))
    async with OpenRouterProvider("k-test", base_url=fake.base_url, pricing=_prices) as provider:
        done = await provider.complete(ask(FREE_ID))
    assert (done.usage.cost_amount, done.usage.cost_source) == (0.0, "reported")


async def test_zero_cost_on_a_catalog_free_model_is_a_reported_zero(fake: FakeProvider) -> None:
    fake.script("zero/priced", chat("ok", usage=usage(10, 2, cost=0)))
    async with OpenRouterProvider("k-test", base_url=fake.base_url, pricing=_prices) as provider:
        done = await provider.complete(ask("zero/priced"))
    assert (done.usage.cost_amount, done.usage.cost_source) == (0.0, "reported")


async def test_zero_cost_on_a_paid_model_is_not_believed(fake: FakeProvider) -> None:
    fake.script(PAID, chat("ok", usage=usage(1000, 200, cost=0)))
    async with OpenRouterProvider("k-test", base_url=fake.base_url, pricing=_prices) as provider:
        done = await provider.complete(ask(PAID))
    assert done.usage.cost_source == "estimated"
    assert done.usage.cost_amount == pytest.approx(1000 * 0.000002 + 200 * 0.00001)


async def test_zero_cost_without_tokens_is_unknown(fake: FakeProvider) -> None:
    fake.script(FREE_ID, chat("ok", usage=usage(None, None, cost=0)))
    async with OpenRouterProvider("k-test", base_url=fake.base_url, pricing=_prices) as provider:
        done = await provider.complete(ask(FREE_ID))
    assert (done.usage.cost_amount, done.usage.cost_source) == (None, "unknown")


async def test_no_cost_and_no_price_is_unknown(fake: FakeProvider) -> None:
    fake.script("new/model", chat("ok", usage=usage(100, 10)))
    async with OpenRouterProvider("k-test", base_url=fake.base_url, pricing=_prices) as provider:
        done = await provider.complete(ask("new/model"))
    assert (done.usage.cost_amount, done.usage.cost_source) == (None, "unknown")


async def test_byok_adds_the_upstream_cost(fake: FakeProvider) -> None:
    billed = usage(100, 10, cost=0.0001, is_byok=True, cost_details={"upstream_inference_cost": 0.002})
    fake.script(PAID, chat("ok", usage=billed))
    async with OpenRouterProvider("k-test", base_url=fake.base_url) as provider:
        done = await provider.complete(ask(PAID))
    assert done.usage.cost_amount == pytest.approx(0.0021)
    assert done.usage.cost_source == "reported"


def test_missing_key_is_missing_key_before_any_request() -> None:
    with pytest.raises(MissingKey) as info:
        OpenRouterProvider(base_url="http://127.0.0.1:9/v1")
    assert "OPENROUTER_API_KEY" in info.value.message
    assert info.value.hint and ".env" in info.value.hint


async def test_key_from_the_config_dirs_env_file(fake: FakeProvider, config_dir: Path) -> None:
    (config_dir / ".env").write_text("# keys\nOPENROUTER_API_KEY=sk-or-from-file\n", encoding="utf-8")
    fake.script(PAID, chat("ok"))
    async with OpenRouterProvider(base_url=fake.base_url) as provider:
        await provider.complete(ask(PAID))
    assert fake.chat_requests(PAID)[0].headers["authorization"] == "Bearer sk-or-from-file"


def test_base_url_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AMICUS_OPENROUTER_BASE_URL")  # the suite-wide guard sets it; start from nothing
    cfg = {"providers": {"openrouter": {"baseUrl": "http://cfg.example/api/v1/"}}}
    assert OpenRouterProvider("k", cfg=cfg).base_url == "http://cfg.example/api/v1"
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", "http://env.example/v1")
    assert OpenRouterProvider("k", cfg=cfg).base_url == "http://env.example/v1"
    assert OpenRouterProvider("k", base_url="http://arg.example/v1", cfg=cfg).base_url == "http://arg.example/v1"
    monkeypatch.delenv("AMICUS_OPENROUTER_BASE_URL")
    assert OpenRouterProvider("k").base_url == "https://openrouter.ai/api/v1"
