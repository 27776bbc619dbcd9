"""Model resolution (aliases, grammar, gateway policy, keys) and provider construction."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from amicus_mcp.errors import BadModel, MissingKey
from amicus_mcp.providers.base import Completion, CompletionRequest, Usage
from amicus_mcp.providers.catalog import Catalog, ModelInfo, Pricing
from amicus_mcp.providers.openai_compat import OpenAICompatibleProvider
from amicus_mcp.providers.openrouter import OpenRouterProvider
from amicus_mcp.providers.routing import ProviderRegistry, Route, is_local_url, resolve_model
from fakeprovider import FakeProvider, ask, chat, usage

NO_CFG: dict[str, Any] = {}
OLLAMA_CFG = {"providers": {"ollama": {"baseUrl": "http://localhost:11434/v1"}}}


def test_alias_without_a_direct_key_goes_through_openrouter() -> None:
    route = resolve_model("gpt", cfg=NO_CFG)
    assert route == Route("openrouter", "openai/gpt-5.6-terra", "openai/gpt-5.6-terra", "gateway", alias="gpt")
    assert route.catalog_id == route.pricing_id == "openai/gpt-5.6-terra"


def test_auto_prefers_the_direct_api_when_its_key_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-direct")
    route = resolve_model("gpt", cfg=NO_CFG)
    assert (route.provider, route.model, route.canonical, route.kind) == (
        "openai",
        "gpt-5.6-terra",
        "openai/gpt-5.6-terra",
        "direct",
    )
    assert route.catalog_id is None and route.pricing_id == "openai/gpt-5.6-terra"


def test_direct_key_from_the_env_file(config_dir: Path) -> None:
    (config_dir / ".env").write_text("DEEPSEEK_API_KEY=sk-ds\n", encoding="utf-8")
    assert resolve_model("deepseek", cfg=NO_CFG).provider == "deepseek"


def test_google_accepts_the_legacy_gemini_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "g-key")
    route = resolve_model("google/gemini-3.6-flash", cfg=NO_CFG)
    assert (route.provider, route.model) == ("google", "gemini-3.6-flash")


def test_gateway_openrouter_wins_over_a_direct_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-direct")
    assert resolve_model("gpt", gateway="openrouter", cfg=NO_CFG).provider == "openrouter"


def test_gateway_direct_without_the_key_is_missing_key() -> None:
    with pytest.raises(MissingKey, match="OPENAI_API_KEY") as info:
        resolve_model("openai/gpt-5.6-terra", gateway="direct", cfg=NO_CFG)
    assert info.value.code == "MISSING_KEY" and info.value.hint


def test_gateway_direct_for_a_vendor_without_a_direct_api() -> None:
    with pytest.raises(BadModel, match="no direct API"):
        resolve_model("qwen/qwen3.7-max", gateway="direct", cfg=NO_CFG)


def test_config_routing_prefer_is_the_default_gateway(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-direct")
    assert resolve_model("gpt", cfg={"routing": {"prefer": "openrouter"}}).provider == "openrouter"
    assert resolve_model("gpt", gateway="auto", cfg={"routing": {"prefer": "openrouter"}}).provider == "openai"


def test_openrouter_prefix_forces_openrouter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-direct")
    route = resolve_model("openrouter/openai/gpt-5.6-terra", gateway="direct", cfg=NO_CFG)
    assert (route.provider, route.model, route.canonical) == (
        "openrouter",
        "openai/gpt-5.6-terra",
        "openai/gpt-5.6-terra",
    )
    assert resolve_model("openrouter/auto", cfg=NO_CFG).model == "openrouter/auto"


def test_alias_to_an_openrouter_route() -> None:
    route = resolve_model("qwen", cfg=NO_CFG)
    assert (route.provider, route.model, route.alias) == ("openrouter", "qwen/qwen3.7-max", "qwen")


def test_anthropic_dated_id_uses_its_openrouter_spelling() -> None:
    route = resolve_model("haiku", cfg=NO_CFG)
    assert route.model == "anthropic/claude-haiku-4.5" and route.canonical == "anthropic/claude-haiku-4-5-20251001"


def test_unknown_alias_is_bad_model_with_a_hint() -> None:
    with pytest.raises(BadModel) as info:
        resolve_model("gtp", cfg=NO_CFG)
    assert info.value.message == "Unknown model alias 'gtp'"
    assert info.value.hint and "config.json" in info.value.hint and "gpt" in info.value.hint


@pytest.mark.parametrize("spec", ["", "   ", "open ai/x", "openai/", "/gpt", "openrouter/", "a/b\nc"])
def test_malformed_specs_are_bad_model(spec: str) -> None:
    with pytest.raises(BadModel):
        resolve_model(spec, cfg=NO_CFG)


def test_unknown_gateway_is_rejected() -> None:
    with pytest.raises(BadModel, match="Unknown gateway"):
        resolve_model("gpt", gateway="sideways", cfg=NO_CFG)  # type: ignore[arg-type]


def test_user_aliases_override_and_chain() -> None:
    cfg = {"aliases": {"gpt": "openai/gpt-4.1", "reviewer": "gpt", "loop-a": "loop-b", "loop-b": "loop-a"}}
    assert resolve_model("reviewer", cfg=cfg).model == "openai/gpt-4.1"
    with pytest.raises(BadModel, match="loop"):
        resolve_model("loop-a", cfg=cfg)


@pytest.mark.parametrize(
    ("spec", "model"), [("local", "local"), ("local/gemma3-270m-q4_k_m", "local/gemma3-270m-q4_k_m")]
)
def test_local_routes_to_the_embedded_provider(spec: str, model: str) -> None:
    route = resolve_model(spec, cfg=NO_CFG)
    assert (route.provider, route.model, route.kind) == ("embedded", model, "embedded")
    assert route.catalog_id is None and route.pricing_id is None


def test_an_alias_may_point_at_a_local_model() -> None:
    route = resolve_model("tiny", cfg={"aliases": {"tiny": "local/tiny-model"}})
    assert (route.provider, route.model, route.alias) == ("embedded", "local/tiny-model", "tiny")


def test_configured_server_routes_by_its_name_whatever_the_gateway() -> None:
    route = resolve_model("ollama/llama3.2:3b", gateway="openrouter", cfg=OLLAMA_CFG)
    assert (route.provider, route.model, route.canonical, route.kind) == (
        "ollama",
        "llama3.2:3b",
        "ollama/llama3.2:3b",
        "server",
    )
    assert route.catalog_id is None and route.pricing_id is None


def test_a_provider_entry_for_a_direct_vendor_only_moves_its_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = {"providers": {"openai": {"baseUrl": "http://proxy.example/v1"}}}
    assert resolve_model("openai/gpt-x", cfg=cfg).provider == "openrouter"  # still needs its key
    monkeypatch.setenv("OPENAI_API_KEY", "sk-direct")
    route = resolve_model("openai/gpt-x", cfg=cfg)
    provider = ProviderRegistry(cfg).provider_for(route)
    assert isinstance(provider, OpenAICompatibleProvider) and provider.base_url == "http://proxy.example/v1"


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:11434/v1", True),
        ("http://127.0.0.1:8080/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://gpu.localhost/v1", True),
        ("https://api.together.xyz/v1", False),
        ("http://8.8.8.8/v1", False),
    ],
)
def test_is_local_url(url: str, local: bool) -> None:
    assert is_local_url(url) is local


# ------------------------------------------------------------------ providers


def test_provider_for_builds_each_kind_and_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-ds")
    registry = ProviderRegistry(OLLAMA_CFG, catalog=Catalog())
    gateway = registry.provider_for(resolve_model("qwen", cfg=OLLAMA_CFG))
    assert isinstance(gateway, OpenRouterProvider) and gateway.cost_mode == "reported"
    assert registry.provider_for(resolve_model("kimi", cfg=OLLAMA_CFG)) is gateway
    direct = registry.provider_for(resolve_model("deepseek", cfg=OLLAMA_CFG))
    assert isinstance(direct, OpenAICompatibleProvider) and direct.name == "deepseek" and direct.cost_mode == "catalog"
    assert direct.base_url == "https://api.deepseek.com/v1"
    server = registry.provider_for(resolve_model("ollama/llama3", cfg=OLLAMA_CFG))
    assert isinstance(server, OpenAICompatibleProvider) and server.cost_mode == "local"


def test_provider_for_openrouter_without_a_key_is_missing_key() -> None:
    with pytest.raises(MissingKey, match="OPENROUTER_API_KEY"):
        ProviderRegistry(NO_CFG).provider_for(resolve_model("qwen", cfg=NO_CFG))


def test_a_server_that_names_a_key_variable_needs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = {"providers": {"together": {"baseUrl": "https://api.together.xyz/v1", "apiKeyEnv": "TOGETHER_API_KEY"}}}
    monkeypatch.delenv("TOGETHER_API_KEY", raising=False)
    route = resolve_model("together/llama-4", cfg=cfg)
    with pytest.raises(MissingKey, match="TOGETHER_API_KEY"):
        ProviderRegistry(cfg).provider_for(route)
    monkeypatch.setenv("TOGETHER_API_KEY", "tg-key")
    provider = ProviderRegistry(cfg).provider_for(route)
    assert isinstance(provider, OpenAICompatibleProvider) and provider.cost_mode == "none"


class _StubEmbedded:
    name = "local"

    def __init__(self, route: Route) -> None:
        self.route = route

    async def complete(self, request: CompletionRequest) -> Completion:
        return Completion(text="hi", finish_reason="stop", resolved_model=request.model, usage=Usage())


def test_embedded_routes_fall_back_to_the_modules_constructor(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    built: list[dict[str, Any]] = []

    def make_embedded_provider(cfg: dict[str, Any]) -> _StubEmbedded:
        built.append(cfg)
        return _StubEmbedded(Route("embedded", "local", "local", "embedded"))

    module = types.ModuleType("amicus_mcp.providers.embedded")
    module.make_embedded_provider = make_embedded_provider  # type: ignore[attr-defined]
    monkeypatch.setitem(__import__("sys").modules, "amicus_mcp.providers.embedded", module)
    cfg = {"local": {"nCtx": 4096}}
    provider = ProviderRegistry(cfg).provider_for(resolve_model("local/x", cfg=cfg))
    assert isinstance(provider, _StubEmbedded) and built == [cfg]


# ----------------------------------------------------- end to end via the fake


@pytest.fixture
async def registry_for_fake(
    fake: FakeProvider, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[ProviderRegistry]:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-e2e")
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    cfg = {"providers": {"lab": {"baseUrl": fake.base_url}}}
    (config_dir / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    catalog = Catalog(
        models={"qwen/qwen3.7-max": ModelInfo("qwen/qwen3.7-max", "Qwen", None, Pricing(0.000001, 0.000004))},
        state="cached",
    )
    async with ProviderRegistry(catalog=catalog) as registry:
        yield registry


@pytest.mark.anyio
async def test_end_to_end_through_the_ordinary_code(fake: FakeProvider, registry_for_fake: ProviderRegistry) -> None:
    fake.script("qwen/qwen3.7-max", chat("gateway reply", usage=usage(1000, 100)))
    fake.script("llama3", chat("lab reply", usage=usage(50, 5)))
    gateway_route = resolve_model("qwen")
    lab_route = resolve_model("lab/llama3")
    gateway = await registry_for_fake.provider_for(gateway_route).complete(ask(gateway_route.model))
    lab = await registry_for_fake.provider_for(lab_route).complete(ask(lab_route.model))
    assert gateway.text == "gateway reply" and gateway.usage.cost_source == "estimated"
    assert gateway.usage.cost_amount == pytest.approx(1000 * 0.000001 + 100 * 0.000004)
    assert (lab.text, lab.usage.cost_amount, lab.usage.cost_source) == ("lab reply", 0.0, "reported")  # own hardware: an exact $0
    assert fake.chat_requests("qwen/qwen3.7-max")[0].headers["authorization"] == "Bearer sk-or-e2e"
    assert "authorization" not in fake.chat_requests("llama3")[0].headers


def test_importing_routing_does_not_import_the_embedded_model() -> None:
    import subprocess
    import sys

    code = (
        "import sys, amicus_mcp.providers.routing as r, amicus_mcp.providers.cost, amicus_mcp.providers.catalog;"
        "r.resolve_model('local', cfg={});"
        "print('amicus_mcp.providers.embedded' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"
