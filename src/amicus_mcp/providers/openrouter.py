"""OpenRouter: one key, every vendor.

An `OpenAICompatibleProvider` with OpenRouter's specifics:

- base URL `https://openrouter.ai/api/v1`, moved by the `base_url` argument,
  `AMICUS_OPENROUTER_BASE_URL` or config `providers.openrouter.baseUrl` (tests point it
  at the fake server);
- the key from `OPENROUTER_API_KEY` (environment, then the keys file) — a missing key is
  `amicus_mcp.errors.MissingKey` at construction, before anything is sent;
- attribution headers (`HTTP-Referer`, `X-OpenRouter-Title` and the older `X-Title`);
- `usage: {"include": true}` in every body: current OpenRouter always returns usage and
  ignores the flag, older deployments need it, so sending it is the robust choice;
- cost: the reply's `usage.cost` (USD) as "reported"; a 0 counts only for a `:free` or
  zero-priced model with real tokens; otherwise a catalog estimate; otherwise unknown.

- structured output: a request with a JSON schema also sends
  `provider: {"require_parameters": true}`, so OpenRouter routes it only to an upstream that
  honours `response_format` (the engine asks for a schema only when the model's catalog entry
  lists it; a refusal is retried once without, see routing.ProviderRegistry.complete).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from ..errors import MissingKey
from .endpoints import OPENROUTER, OPENROUTER_KEY_ENV, openrouter_base_url
from .base import CompletionRequest
from .keys import Secret, get_key, not_set, set_key_hint
from .openai_compat import OpenAICompatibleProvider, PriceLookup
from .retry import RetryPolicy

APP_URL = "https://pypi.org/project/amicus-mcp/"
APP_TITLE = "amicus-mcp"


def attribution_headers(app_url: str = APP_URL, app_title: str = APP_TITLE) -> dict[str, str]:
    return {"HTTP-Referer": app_url, "X-OpenRouter-Title": app_title, "X-Title": app_title}


def missing_openrouter_key() -> MissingKey:
    return MissingKey(
        f"OpenRouter needs an API key and {not_set(OPENROUTER_KEY_ENV)}",
        hint=set_key_hint(OPENROUTER_KEY_ENV),
    )


class OpenRouterProvider(OpenAICompatibleProvider):
    def __init__(
        self,
        api_key: Secret | str | None = None,
        *,
        base_url: str | None = None,
        cfg: Mapping[str, Any] | None = None,
        app_url: str = APP_URL,
        app_title: str = APP_TITLE,
        pricing: PriceLookup | None = None,
        client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        key = api_key if api_key else get_key(OPENROUTER_KEY_ENV)
        if not key:
            raise missing_openrouter_key()
        super().__init__(
            OPENROUTER,
            openrouter_base_url(base_url, cfg),
            key,
            headers=attribution_headers(app_url, app_title),
            cost_mode="reported",
            pricing=pricing,
            extra_body={"usage": {"include": True}},
            key_name=OPENROUTER_KEY_ENV,
            client=client,
            transport=transport,
            retry=retry,
        )

    def extra_body(self, request: CompletionRequest) -> Mapping[str, Any]:
        body = super().extra_body(request)
        if request.json_schema is None:
            return body
        return {**body, "provider": {**body.get("provider", {}), "require_parameters": True}}
