"""From what the user typed to the provider that will answer.

`resolve_model(spec)` follows the model-string grammar:

    local | local/<name>           the embedded GGUF model (provider "embedded")
    cli:<agent>[/<model>]          an agent CLI run as a subprocess (providers/agents.py):
                                   cli:claude, cli:codex, cli:gemini (provider "cli:<agent>")
    <alias>                        a slash-free token: must be a known alias
                                   (config.effective_aliases), else BadModel
    openrouter/<vendor>/<model>    always OpenRouter
    <server>/<model>               a server of your own named in config `providers`
                                   (Ollama, llama.cpp, vLLM, LM Studio …): always that server
    <vendor>/<model>               canonical; routed by the gateway policy:
                                     auto       — the vendor's own API when its key is set,
                                                  else OpenRouter
                                     direct     — the vendor's own API; no key → MissingKey
                                     openrouter — OpenRouter

The policy is the `gateway` argument, else config `routing.prefer`, else "auto".
Direct APIs exist for openai, deepseek and google (endpoints.DIRECT_VENDORS).

A `ProviderRegistry` builds the provider for a route and caches it (`provider_for`: one per
target; the model id travels in each request). `profile(route)` says what the route's model
supports (providers/profiles.py), and `complete(route, request)` sends a request the way that
profile allows: a schema only where it is honoured, and once more without it when a provider
rejects it. Providers share the registry's one `httpx.AsyncClient`; the engine owns a
registry for the life of its event loop (`async with ProviderRegistry() as reg`).

The embedded model is imported only when a `local` route is first served
(`amicus_mcp.providers.embedded.make_embedded_provider(cfg)`).

Resolution reads keys (to choose direct vs OpenRouter) but never sends anything, and a
provider is built from the cached catalog only: neither waits on the network.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import httpx

from ..config import effective_aliases, load_config
from ..errors import BadModel, MissingKey
from ..schemas import JsonObject
from ..vocabulary import AGENT_PREFIX, COST_MODES, GATEWAY_MODES, CostMode, GatewayMode
from .base import Completion, CompletionRequest, Provider
from .catalog import Catalog, Pricing, read_cached_catalog
from .endpoints import (
    DIRECT_VENDORS,
    OPENROUTER,
    DirectVendor,
    configured_base_url,
    direct_base_url,
    local_servers,
    provider_settings,
)
from .keys import Secret, get_key, not_set, set_key_hint
from .openai_compat import OpenAICompatibleProvider, make_client
from .errors import ContextTooLong, ModelNotFound, ProviderError, ProviderRejected
from .openrouter import OpenRouterProvider
from .profiles import Profile, ProfileBook
from .route import Route
from .retry import RetryPolicy

EMBEDDED = "embedded"
LOCAL_ALIAS = "local"
_OPENROUTER_PREFIX = "openrouter/"
_MAX_ALIAS_HOPS = 8
_BAD_CHARS = re.compile(r"[\s\x00-\x1f\x7f]")

# Canonical ids whose OpenRouter id is spelled differently (Anthropic dates vs dots).
OPENROUTER_IDS: dict[str, str] = {
    "anthropic/claude-haiku-4-5-20251001": "anthropic/claude-haiku-4.5",
}


# ----------------------------------------------------------------- resolution


def gateway_mode(gateway: str | None, cfg: Mapping[str, Any]) -> GatewayMode:
    """The explicit gateway, else config `routing.prefer`, else "auto"."""
    if gateway is None:
        routing = cfg.get("routing")
        gateway = routing.get("prefer") if isinstance(routing, dict) else None
        gateway = gateway if gateway in GATEWAY_MODES else "auto"
    if gateway not in GATEWAY_MODES:
        raise BadModel(f"Unknown gateway '{gateway}'", hint="use auto, direct or openrouter")
    return cast(GatewayMode, gateway)


def resolve_model(spec: str, *, gateway: GatewayMode | None = None, cfg: Mapping[str, Any] | None = None) -> Route:
    """The route for a model alias or id (see the module docstring for the grammar)."""
    config = load_config() if cfg is None else cfg
    text = spec.strip()
    if not text or _BAD_CHARS.search(text):
        raise BadModel(
            f"Model '{spec}' is not a model id or alias", hint="use an alias like 'gpt' or a vendor/model id"
        )
    model_id, alias = expand_alias(text, effective_aliases(dict(config)))
    return _route_id(model_id, alias, gateway_mode(gateway, config), config)


def expand_alias(text: str, aliases: Mapping[str, str]) -> tuple[str, str | None]:
    """(model id, the alias typed or None). Aliases may name other aliases."""
    current = text
    for _ in range(_MAX_ALIAS_HOPS):
        if "/" in current or current.startswith(AGENT_PREFIX):
            return current, (text if current != text else None)
        target = aliases.get(current)
        if target is None or target.strip() == current:
            if current == LOCAL_ALIAS:
                return current, (text if current != text else None)
            raise BadModel(
                f"Unknown model alias '{current}'",
                hint=f"use a vendor/model id, add the alias under 'aliases' in config.json, or pick one of: {', '.join(sorted(aliases))}",
            )
        current = target.strip()
    raise BadModel(
        f"Model alias '{text}' does not resolve (aliases refer to each other in a loop)",
        hint="fix 'aliases' in config.json",
    )


def _route_id(model_id: str, alias: str | None, mode: GatewayMode, cfg: Mapping[str, Any]) -> Route:
    if model_id.startswith(AGENT_PREFIX):
        from .agents import split_agent_id  # lazily: subprocess machinery, needed only by agent seats

        cli, model = split_agent_id(model_id)
        canonical = f"{AGENT_PREFIX}{cli.name}" + (f"/{model}" if model else "")
        return Route(AGENT_PREFIX + cli.name, model, canonical, "agent", alias)
    if model_id == LOCAL_ALIAS or model_id.startswith(LOCAL_ALIAS + "/"):
        return Route(EMBEDDED, model_id, model_id, "embedded", alias)
    if model_id.startswith(_OPENROUTER_PREFIX):
        rest = model_id[len(_OPENROUTER_PREFIX) :]
        # `openrouter/auto` and friends are OpenRouter's own ids, not a forced route.
        or_id = rest if "/" in rest else model_id
        _check_parts(or_id, model_id)
        return Route(OPENROUTER, or_id, or_id, "gateway", alias)
    vendor, model = _check_parts(model_id, model_id)
    if vendor in local_servers(cfg):
        return Route(vendor, model, model_id, "server", alias)
    return _route_vendor(model_id, vendor, model, alias, mode)


def _route_vendor(model_id: str, vendor: str, model: str, alias: str | None, mode: GatewayMode) -> Route:
    direct = DIRECT_VENDORS.get(vendor)
    via_openrouter = Route(OPENROUTER, OPENROUTER_IDS.get(model_id, model_id), model_id, "gateway", alias)
    if mode == "openrouter" or (direct is None and mode == "auto"):
        return via_openrouter
    if direct is None:
        raise BadModel(
            f"Model '{model_id}' has no direct API (direct APIs: {', '.join(sorted(DIRECT_VENDORS))})",
            hint="use --gateway auto or openrouter for this model",
        )
    if get_key(*direct.key_names):
        return Route(vendor, model, model_id, "direct", alias)
    if mode == "direct":
        raise missing_direct_key(direct)
    return via_openrouter


def _check_parts(model_id: str, typed: str) -> tuple[str, str]:
    vendor, _, model = model_id.partition("/")
    if not vendor or not model:
        raise BadModel(
            f"Model '{typed}' is not a vendor/model id", hint="write it as vendor/model, e.g. openai/gpt-5.6-terra"
        )
    return vendor, model


def missing_direct_key(direct: DirectVendor) -> MissingKey:
    return MissingKey(
        f"The {direct.vendor} API needs a key and {not_set(*direct.key_names)}",
        hint=f"{set_key_hint(direct.key_names[0])}, or use --gateway auto/openrouter",
    )


# ------------------------------------------------------------------ providers

_PARAMETERS = re.compile(r"parameter|response_format|json_schema|structured", re.I)


def refuses_schema(exc: ProviderError) -> bool:
    """A refusal of the schema request itself: a 400, or OpenRouter's "no endpoint can handle
    the requested parameters" (a 404 once `require_parameters` is set)."""
    if isinstance(exc, ContextTooLong):
        return False  # the prompt is too long with or without a schema
    if isinstance(exc, ProviderRejected):
        return exc.status == 400
    return isinstance(exc, ModelNotFound) and bool(_PARAMETERS.search(exc.message))


class ProviderRegistry:
    """Builds and caches one provider per route target, all sharing one HTTP client."""

    def __init__(
        self,
        cfg: Mapping[str, Any] | None = None,
        *,
        client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        catalog: Catalog | None = None,
        retry: RetryPolicy | None = None,
        project: Path | None = None,
    ) -> None:
        self._cfg = dict(load_config() if cfg is None else cfg)
        self._project = project  # where an agent seat's CLI runs: the repository the council reviews
        self._given_client = client
        self._transport = transport
        self._own_client: httpx.AsyncClient | None = None
        self._catalog = catalog
        self._retry = retry
        self._providers: dict[str, Provider] = {}  # one per target: the model travels in each request
        self._profiles: ProfileBook | None = None

    def __repr__(self) -> str:
        return f"ProviderRegistry(providers={sorted(self._providers)})"

    async def __aenter__(self) -> ProviderRegistry:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        providers, self._providers = list(self._providers.values()), {}
        for provider in providers:
            close = getattr(provider, "aclose", None)
            if close is not None:
                await close()
        if self._own_client is not None:
            client, self._own_client = self._own_client, None
            await client.aclose()

    def provider_for(self, route: Route) -> Provider:
        if route.provider not in self._providers:
            self._providers[route.provider] = self._build(route)
        return self._providers[route.provider]

    def catalog(self) -> Catalog:
        if self._catalog is None:
            self._catalog = read_cached_catalog()  # cache only: building a provider never waits on the network
        return self._catalog

    def price(self, model_id: str) -> Pricing | None:
        return self.catalog().price(model_id)

    def profile(self, route: Route) -> Profile:
        """What the route's model supports, as far as this registry has learned."""
        if self._profiles is None:
            self._profiles = ProfileBook(self._cfg, self.catalog())
        return self._profiles.get(route)

    async def complete(self, route: Route, request: CompletionRequest) -> Completion:
        """`request` on `route`, with its schema only where the profile says it is honoured.

        A provider that rejects the schema request (HTTP 400) is asked once more without it,
        and the route's profile remembers that for the rest of the run."""
        provider = self.provider_for(route)
        if request.tools and not self.profile(route).tool_calls:  # offered only where the model takes them
            request = request._replace(tools=None)
        if request.json_schema is None or not self.profile(route).structured_outputs:
            return await provider.complete(request._replace(json_schema=None))
        try:
            return await provider.complete(request)
        except (ProviderRejected, ModelNotFound) as exc:
            if not refuses_schema(exc):
                raise
        assert self._profiles is not None  # set by self.profile() above
        self._profiles.refuse_structured(route)
        return await provider.complete(request._replace(json_schema=None))

    def _client(self) -> httpx.AsyncClient:
        if self._given_client is not None:
            return self._given_client
        if self._own_client is None:
            self._own_client = make_client(self._transport)
        return self._own_client

    def _build(self, route: Route) -> Provider:
        if route.kind == "embedded":
            return _embedded_provider(self._cfg)
        if route.kind == "agent":
            return _agent_provider(route.provider, self._cfg, self._project)
        if route.provider == OPENROUTER:
            return OpenRouterProvider(cfg=self._cfg, pricing=self.price, client=self._client(), retry=self._retry)
        if route.kind == "direct":
            return self._direct(DIRECT_VENDORS[route.provider])
        return self._server(route.provider)

    def _direct(self, direct: DirectVendor) -> Provider:
        key = get_key(*direct.key_names)
        if not key:
            raise missing_direct_key(direct)
        return OpenAICompatibleProvider(
            direct.vendor,
            direct_base_url(direct, self._cfg),
            key,
            cost_mode="catalog",
            pricing=self.price,
            pricing_prefix=f"{direct.vendor}/",
            max_tokens_field=direct.max_tokens_field,
            key_name=" or ".join(direct.key_names),
            client=self._client(),
            retry=self._retry,
        )

    def _server(self, name: str) -> Provider:
        settings = provider_settings(self._cfg, name)
        base_url = configured_base_url(self._cfg, name)
        if base_url is None:
            raise BadModel(f"Provider '{name}' has no baseUrl in config.json", hint=f"set providers.{name}.baseUrl")
        raw_headers = settings.get("headers")
        headers: JsonObject = raw_headers if isinstance(raw_headers, dict) else {}
        return OpenAICompatibleProvider(
            name,
            base_url,
            _server_key(name, settings),
            headers={str(k): str(v) for k, v in headers.items()},
            cost_mode=_server_cost_mode(settings, base_url),
            pricing=self.price,
            key_name=env if isinstance(env := settings.get("apiKeyEnv"), str) else None,
            client=self._client(),
            retry=self._retry,
        )


def _server_key(name: str, settings: Mapping[str, Any]) -> Secret | None:
    """A server needs a key only when config names the variable that holds it (`apiKeyEnv`)."""
    env_name = settings.get("apiKeyEnv")
    if not isinstance(env_name, str) or not env_name:
        return None  # Ollama, llama.cpp, vLLM and LM Studio run without one by default
    key = get_key(env_name)
    if not key:
        raise MissingKey(
            f"Provider '{name}' needs a key and {not_set(env_name)}",
            hint=set_key_hint(env_name),
        )
    return key


def _server_cost_mode(settings: Mapping[str, Any], base_url: str) -> CostMode:
    """`cost` from config; by default 0.0 on your own machine or LAN, unknown elsewhere."""
    declared = settings.get("cost")
    if declared in COST_MODES:
        return cast(CostMode, declared)
    return "local" if is_local_url(base_url) else "none"


def is_local_url(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local or address.is_unspecified


def _embedded_provider(cfg: Mapping[str, Any]) -> Provider:
    """The embedded model, imported only when a route needs it (its module is heavy, and
    llama.cpp, which it loads on the first request, is an optional extra)."""
    from .embedded import make_embedded_provider

    return make_embedded_provider(dict(cfg))


def _agent_provider(provider: str, cfg: Mapping[str, Any], project: Path | None) -> Provider:
    """An agent CLI, run in the project the council reviews (the repository at hand)."""
    from .agents import make_agent_provider

    return make_agent_provider(provider, cfg, project or Path(os.environ.get("AMICUS_PROJECT_DIR") or os.getcwd()))
