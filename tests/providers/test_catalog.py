"""The model catalog: fetch, cache shape, TTL, staleness, unreachable, lookups, free picks."""

from __future__ import annotations

import json
import socket
from datetime import datetime, timedelta, UTC
from pathlib import Path
from typing import Any

import pytest

from amicus_mcp.errors import BadModel
from amicus_mcp.providers.catalog import (
    Catalog,
    ModelInfo,
    Pricing,
    catalog_endpoint,
    catalog_path,
    free_models,
    load_catalog,
    read_cached_catalog,
    validate_models,
)
from amicus_mcp.providers.routing import resolve_model
from fakeprovider import FakeProvider, Reply

T0 = datetime(2026, 8, 4, 12, 0, 0, tzinfo=UTC)
ROWS: list[dict[str, Any]] = [
    {
        "id": "openai/gpt-5.6-terra",
        "name": "GPT",
        "context_length": 400000,
        "pricing": {"prompt": "0.00000125", "completion": "0.00001"},
    },
    {
        "id": "qwen/qwen3-coder:free",
        "name": "Qwen Coder (free)",
        "context_length": 262144,
        "pricing": {"prompt": "0", "completion": "0"},
    },
    {"id": "openrouter/auto", "name": "Auto", "pricing": {"prompt": "-1", "completion": "-1"}},
    {"name": "row without an id"},
]


@pytest.fixture
def served(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> FakeProvider:
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    fake.catalog = ROWS
    return fake


def _catalog_gets(fake: FakeProvider) -> int:
    return sum(1 for r in fake.requests if r.method == "GET" and r.path == "/v1/models")


@pytest.mark.anyio
async def test_fetch_writes_the_cache_in_the_documented_shape(served: FakeProvider) -> None:
    catalog = await load_catalog(now=T0)
    assert catalog.state == "fresh" and catalog.fetched_at == T0
    assert "authorization" not in served.requests[0].headers  # the catalog needs no key
    doc = json.loads(catalog_path().read_text(encoding="utf-8"))
    assert doc["schemaVersion"] == 2 and doc["fetchedAt"] == "2026-08-04T12:00:00Z"
    assert doc["models"][0] == {
        "id": "openai/gpt-5.6-terra",
        "name": "GPT",
        "contextLength": 400000,
        "pricing": {"prompt": 0.00000125, "completion": 0.00001},
    }
    assert [m["id"] for m in doc["models"]] == ["openai/gpt-5.6-terra", "openrouter/auto", "qwen/qwen3-coder:free"]
    assert catalog.price("openrouter/auto") is None  # variable pricing is unpriced, never free
    assert catalog.has("openrouter/auto") is True  # OpenRouter's own ids keep their prefix
    assert catalog.price("openrouter/openai/gpt-5.6-terra") == Pricing(0.00000125, 0.00001)


@pytest.mark.anyio
async def test_a_fresh_cache_is_used_without_the_network(served: FakeProvider) -> None:
    await load_catalog(now=T0)
    again = await load_catalog(now=T0 + timedelta(hours=23))
    assert again.state == "cached" and again.has("openai/gpt-5.6-terra") is True
    assert _catalog_gets(served) == 1


@pytest.mark.anyio
async def test_a_stale_cache_is_refreshed(served: FakeProvider) -> None:
    await load_catalog(now=T0)
    served.catalog = [{"id": "new/model", "pricing": {"prompt": "0.000001", "completion": "0.000002"}}]
    later = await load_catalog(now=T0 + timedelta(hours=25))
    assert later.state == "fresh" and later.has("new/model") and not later.has("openai/gpt-5.6-terra")
    assert _catalog_gets(served) == 2


@pytest.mark.anyio
async def test_refresh_forces_a_fetch(served: FakeProvider) -> None:
    await load_catalog(now=T0)
    await load_catalog(now=T0 + timedelta(minutes=1), refresh=True)
    assert _catalog_gets(served) == 2


@pytest.mark.anyio
@pytest.mark.parametrize(
    "reply",
    [Reply(status=503, body={"error": {"message": "down"}}), Reply(body="<html>"), Reply(body={"data": []})],
    ids=["503", "not-json", "empty"],
)
async def test_a_failed_refresh_keeps_the_stale_cache_and_backs_off(served: FakeProvider, reply: Reply) -> None:
    await load_catalog(now=T0)
    served.catalog_reply = reply
    stale = await load_catalog(now=T0 + timedelta(hours=30))
    assert stale.state == "stale" and stale.has("openai/gpt-5.6-terra") and stale.error
    assert _catalog_gets(served) == 2
    # Within the back-off window the stale cache is served without another attempt.
    await load_catalog(now=T0 + timedelta(hours=30, minutes=30))
    assert _catalog_gets(served) == 2
    await load_catalog(now=T0 + timedelta(hours=32))
    assert _catalog_gets(served) == 3


@pytest.mark.anyio
async def test_unreachable_without_a_cache_is_an_empty_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", f"http://127.0.0.1:{port}/v1")
    catalog = await load_catalog(now=T0, timeout_s=3)
    assert catalog.is_empty and catalog.state == "unavailable" and "ConnectError" in (catalog.error or "")
    assert catalog.has("anything/at-all") is None  # cannot validate
    validate_models(["anything/at-all"], catalog)  # and so never blocks


@pytest.mark.anyio
async def test_hung_catalog_is_bounded(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    fake.catalog_reply = Reply(hang_s=30)
    started = time.monotonic()
    catalog = await load_catalog(now=T0, timeout_s=1)
    assert catalog.is_empty and catalog.error
    assert time.monotonic() - started < 1 + 3


def test_corrupt_or_foreign_cache_reads_as_empty(config_dir: Path) -> None:
    catalog_path().write_text("{not json", encoding="utf-8")
    assert read_cached_catalog().is_empty
    catalog_path().write_text(json.dumps({"schemaVersion": 1, "models": [{"id": "a/b"}]}), encoding="utf-8")
    assert read_cached_catalog().is_empty


def test_unwritable_config_dir_costs_only_the_cache(config_dir: Path) -> None:
    from amicus_mcp.providers.catalog import write_catalog

    config_dir.rmdir()
    config_dir.write_text("a file where the config dir should be", encoding="utf-8")
    catalog = write_catalog([ModelInfo("a/b", "B", None, None)], now=T0)
    assert catalog.has("a/b") and catalog.error and "cannot write" in catalog.error


@pytest.mark.parametrize(
    ("raw", "pricing"),
    [
        ({"prompt": "0.000003", "completion": "0.000015"}, Pricing(0.000003, 0.000015)),
        ({"prompt": "0", "completion": "0"}, Pricing(0.0, 0.0)),
        ({"prompt": 1e-6, "completion": "2e-6"}, Pricing(1e-6, 2e-6)),
        ({"prompt": "-1", "completion": "0.1"}, None),
        ({"prompt": "abc", "completion": "0"}, None),
        ({"prompt": "0.1"}, None),
        ({"prompt": True, "completion": "0"}, None),
        ("free", None),
    ],
)
def test_pricing_parse(raw: Any, pricing: Pricing | None) -> None:
    assert Pricing.parse(raw) == pricing


def test_pricing_per_mtok() -> None:
    assert Pricing(0.000003, 0.000015).max_per_mtok == pytest.approx(15.0)
    assert Pricing(0.0, 0.0).is_free and not Pricing(0.0, 1e-9).is_free


def _catalog(*ids: str) -> Catalog:
    return Catalog(models={i: ModelInfo(i, i, None, Pricing(0.0, 0.0)) for i in ids}, state="cached")


def test_validate_models() -> None:
    catalog = _catalog("openai/gpt-5.6-terra", "qwen/qwen3.7-max")
    validate_models(["openai/gpt-5.6-terra", "openrouter/qwen/qwen3.7-max", "local", "local/tiny"], catalog)
    with pytest.raises(BadModel, match="'vendor/typo' is not in the OpenRouter model catalog") as info:
        validate_models(["openai/gpt-5.6-terra", "vendor/typo"], catalog)
    assert info.value.hint and "--no-validate-model" in info.value.hint
    with pytest.raises(BadModel, match="'a/x', 'b/y' are not"):
        validate_models(["a/x", "b/y"], catalog)


def test_validate_models_checks_routes_only_where_openrouter_serves_them(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = _catalog("qwen/qwen3.7-max")
    cfg = {"providers": {"ollama": {"baseUrl": "http://localhost:11434/v1"}}}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-direct")
    routes = [resolve_model(s, cfg=cfg) for s in ("qwen", "ollama/llama3", "local", "gpt")]
    validate_models(routes, catalog)  # server, embedded and direct routes are not the catalog's to judge
    with pytest.raises(BadModel, match="z-ai/glm-5.1"):
        validate_models([resolve_model("glm", cfg=cfg)], catalog)


def test_validate_models_reads_the_cache_when_no_catalog_is_given(config_dir: Path) -> None:
    validate_models(["whatever/model"])  # no cache → cannot validate → passes
    catalog_path().write_text(
        json.dumps({"schemaVersion": 2, "baseUrl": catalog_endpoint(), "fetchedAt": "2026-08-04T12:00:00Z",
                    "models": [{"id": "a/b"}]}),
        encoding="utf-8",
    )
    with pytest.raises(BadModel):
        validate_models(["whatever/model"])


def test_free_models_one_per_vendor() -> None:
    catalog = _catalog(
        "qwen/qwen3-coder:free",
        "deepseek/deepseek-r1:free",
        "deepseek/deepseek-chat:free",
        "google/gemini-2.0-flash-exp:free",
        "meta-llama/llama-4:free",
        "openrouter/free-router:free",
        "openai/gpt-5.6-terra",
    )
    assert free_models(catalog=catalog) == [
        "openrouter/deepseek/deepseek-chat:free",
        "openrouter/google/gemini-2.0-flash-exp:free",
        "openrouter/meta-llama/llama-4:free",
    ]
    assert len(free_models(limit=10, catalog=catalog)) == 4
    assert free_models(catalog=Catalog()) == []
    assert free_models(limit=0, catalog=catalog) == []


@pytest.mark.anyio
async def test_the_cache_is_keyed_by_the_endpoint_it_came_from(served: FakeProvider, monkeypatch) -> None:
    """Issue 27 item 19: another endpoint's cache (here one that lists no structured outputs)
    is not this endpoint's catalog; it is fetched anew, not trusted until someone deletes it."""
    other = [{**ROWS[0], "supported_parameters": []}]
    with FakeProvider() as elsewhere:
        elsewhere.catalog = other
        monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", elsewhere.base_url)
        first = await load_catalog(now=T0)
        assert first.get("openai/gpt-5.6-terra").supported_parameters == ()
        doc = json.loads(catalog_path().read_text(encoding="utf-8"))
        assert doc["baseUrl"] == elsewhere.base_url.rstrip("/")
    served.catalog = [{**ROWS[0], "supported_parameters": ["structured_outputs"]}]
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", served.base_url)
    assert read_cached_catalog(now=T0).is_empty  # the other endpoint's cache says nothing of this one
    fresh = await load_catalog(now=T0 + timedelta(minutes=5))  # well inside the other cache's 24 h
    assert fresh.state == "fresh" and _catalog_gets(served) == 1
    assert fresh.get("openai/gpt-5.6-terra").supported_parameters == ("structured_outputs",)
    assert json.loads(catalog_path().read_text(encoding="utf-8"))["baseUrl"] == served.base_url.rstrip("/")
    # A cache written before the key existed is no endpoint's: it is fetched anew too.
    doc = json.loads(catalog_path().read_text(encoding="utf-8"))
    del doc["baseUrl"]
    catalog_path().write_text(json.dumps(doc), encoding="utf-8")
    assert read_cached_catalog(now=T0).is_empty
