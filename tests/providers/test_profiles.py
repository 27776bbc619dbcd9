"""Provider profiles: what each route's model supports, and what a run learns about it."""

from __future__ import annotations

import json

import pytest
from fakeprovider import FakeProvider, ask, chat, error

from amicus_mcp.providers.catalog import Catalog, ModelInfo, read_cached_catalog, write_catalog
from amicus_mcp.providers.profiles import Profile, ProfileBook, profile_for
from amicus_mcp.providers.routing import ProviderRegistry, resolve_model

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "required": ["answer"], "additionalProperties": False,
          "properties": {"answer": {"type": "string"}}}


def catalog_of(**params: list[str] | None) -> Catalog:
    rows = {f"vendor/{name}": ModelInfo(f"vendor/{name}", name, None, None,
                                        supported_parameters=tuple(p) if p is not None else None)
            for name, p in params.items()}
    return Catalog(models=rows, state="fresh")


def test_each_kind_of_route_has_its_profile(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test-deepseek")
    cfg = {"providers": {"mine": {"baseUrl": "http://127.0.0.1:9/v1", "structuredOutputs": True},
                         "plain": {"baseUrl": "http://127.0.0.1:9/v1"}}}
    catalog = catalog_of(a=["response_format"], b=["structured_outputs", "tools"], c=["temperature"], d=None)

    def profile(spec: str, gateway: str = "auto") -> Profile:
        return profile_for(resolve_model(spec, gateway=gateway, cfg=cfg), cfg=cfg, catalog=catalog)  # type: ignore[arg-type]

    assert profile("local") == Profile(structured_outputs=True, compact=True, local=True, own_hardware=True)
    assert profile("openrouter/vendor/a").structured_outputs
    assert profile("openrouter/vendor/b").structured_outputs
    assert not profile("openrouter/vendor/c").structured_outputs  # the entry does not list it
    assert not profile("openrouter/vendor/d").structured_outputs  # the entry says nothing
    assert not profile("openrouter/vendor/unknown").structured_outputs  # no entry at all
    assert profile("openai/gpt-x").structured_outputs  # direct: the vendor honours json_schema
    assert not profile("deepseek/deepseek-chat").structured_outputs  # json_object only
    assert profile("mine/qwen").structured_outputs  # your own server, when config says so
    assert not profile("plain/qwen").structured_outputs
    assert not any(profile(s).compact for s in ("openrouter/vendor/a", "openai/gpt-x", "mine/qwen"))


def test_a_refusal_downgrades_only_that_model_for_the_rest_of_the_run():
    cfg = {"providers": {"mine": {"baseUrl": "http://127.0.0.1:9/v1", "structuredOutputs": True}}}
    book = ProfileBook(cfg, None)
    first, second = (resolve_model(s, cfg=cfg) for s in ("mine/one", "mine/two"))
    book.refuse_structured(first)
    assert not book.get(first).structured_outputs
    assert book.get(second).structured_outputs


def test_the_catalog_keeps_supported_parameters_through_its_cache(config_dir):
    raw = {"id": "vendor/a", "name": "A", "context_length": 1000, "pricing": {"prompt": "0", "completion": "0"},
           "supported_parameters": ["response_format", 7, "tools"]}
    info = ModelInfo.from_doc(raw)
    assert info is not None and info.supported_parameters == ("response_format", "tools")
    write_catalog([info, ModelInfo("vendor/b", "B", None, None)])
    cached = read_cached_catalog()
    assert cached.get("vendor/a").supported_parameters == ("response_format", "tools")  # type: ignore[union-attr]
    assert cached.get("vendor/b").supported_parameters is None  # type: ignore[union-attr]
    doc = json.loads((config_dir / "model-catalog.json").read_text(encoding="utf-8"))
    assert "supportedParameters" not in doc["models"][1]  # emitted only when known


async def test_openrouter_schema_requests_route_only_to_upstreams_that_honour_them(monkeypatch):
    with FakeProvider() as fake:
        monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test-dummy")
        fake.script("vendor/a", chat(json.dumps({"answer": "yes"})))
        catalog = catalog_of(a=["structured_outputs"])
        route = resolve_model("openrouter/vendor/a", cfg={})
        async with ProviderRegistry({}, catalog=catalog) as registry:
            done = await registry.complete(route, ask("vendor/a", json_schema=SCHEMA))
            plain = await registry.complete(route, ask("vendor/a"))
        assert done.structured == {"answer": "yes"} and plain.structured is None
        schema_body, plain_body = (r.body for r in fake.chat_requests())
        assert schema_body["provider"] == {"require_parameters": True}
        assert schema_body["usage"] == {"include": True}
        assert "provider" not in plain_body and "response_format" not in plain_body


async def test_a_400_to_a_schema_request_is_retried_once_without_it_and_remembered():
    with FakeProvider() as fake:
        cfg = {"providers": {"mine": {"baseUrl": fake.base_url, "structuredOutputs": True}}}
        fake.script("m", error(400, "Unknown parameter: response_format"), chat("plain answer"))
        route = resolve_model("mine/m", cfg=cfg)
        async with ProviderRegistry(cfg, catalog=Catalog()) as registry:
            first = await registry.complete(route, ask("m", json_schema=SCHEMA))
            later = await registry.complete(route, ask("m", json_schema=SCHEMA))
            assert not registry.profile(route).structured_outputs
        assert (first.text, later.text) == ("plain answer", "plain answer")
        sent = [("response_format" in r.body) for r in fake.chat_requests()]
        assert sent == [True, False, False]


async def test_other_refusals_are_not_mistaken_for_a_schema_refusal():
    from amicus_mcp.providers.errors import AuthError

    with FakeProvider() as fake:
        cfg = {"providers": {"mine": {"baseUrl": fake.base_url, "structuredOutputs": True}}}
        fake.script("m", error(401, "bad key"))
        route = resolve_model("mine/m", cfg=cfg)
        async with ProviderRegistry(cfg, catalog=Catalog()) as registry:
            with pytest.raises(AuthError):
                await registry.complete(route, ask("m", json_schema=SCHEMA))
            assert registry.profile(route).structured_outputs
        assert len(fake.chat_requests()) == 1


def test_tool_calling_is_known_from_the_catalog_the_vendor_or_config(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")
    cfg = {"providers": {"mine": {"baseUrl": "http://127.0.0.1:9/v1", "toolCalls": True},
                         "plain": {"baseUrl": "http://127.0.0.1:9/v1"}}}
    catalog = catalog_of(b=["structured_outputs", "tools"], c=["temperature"], d=None)

    def tools(spec: str) -> bool:
        return profile_for(resolve_model(spec, gateway="auto", cfg=cfg), cfg=cfg, catalog=catalog).tool_calls  # type: ignore[arg-type]

    assert tools("openrouter/vendor/b") and tools("openai/gpt-x") and tools("mine/qwen")
    assert not any(tools(s) for s in ("openrouter/vendor/c", "openrouter/vendor/d", "openrouter/vendor/unknown",
                                      "plain/qwen", "local"))
