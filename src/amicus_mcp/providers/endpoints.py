"""Where each provider lives and which key it needs — data only, no I/O.

Kept apart from `routing` so the catalog (which only needs OpenRouter's base URL) and the
providers can share it without importing each other.

Base URLs can be moved for tests, proxies and self-hosted gateways: OpenRouter through
`AMICUS_OPENROUTER_BASE_URL` or config `providers.openrouter.baseUrl`; a direct vendor
through config `providers.<vendor>.baseUrl`. A config `providers` entry with any other
name is a server of your own (Ollama, llama.cpp, vLLM, LM Studio, …).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..schemas import JsonObject  # config.json is the user's: every value is narrowed where it is read

OPENROUTER = "openrouter"
OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"
OPENROUTER_BASE_URL_ENV = "AMICUS_OPENROUTER_BASE_URL"
OPENROUTER_KEY_ENV = "OPENROUTER_API_KEY"


class DirectVendor(NamedTuple):
    """A vendor whose own OpenAI-compatible API we can call with the vendor's key."""

    vendor: str
    base_url: str
    key_names: tuple[str, ...]  # first one set wins
    max_tokens_field: str = "max_tokens"
    structured_outputs: bool = False  # honours a JSON-schema response_format
    tool_calls: bool = False  # takes OpenAI-style function tools (`tools` / `tool_calls`)


DIRECT_VENDORS: dict[str, DirectVendor] = {
    # OpenAI's reasoning models reject `max_tokens`; `max_completion_tokens` works for all.
    "openai": DirectVendor("openai", "https://api.openai.com/v1", ("OPENAI_API_KEY",), "max_completion_tokens",
                           structured_outputs=True, tool_calls=True),
    # DeepSeek's API offers only `json_object` mode, not a schema.
    "deepseek": DirectVendor("deepseek", "https://api.deepseek.com/v1", ("DEEPSEEK_API_KEY",), tool_calls=True),
    "google": DirectVendor(
        "google",
        "https://generativelanguage.googleapis.com/v1beta/openai",
        ("GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"),
        structured_outputs=True,
        tool_calls=True,
    ),
}


def provider_settings(cfg: Mapping[str, Any], name: str) -> JsonObject:
    """config.json `providers.<name>` as a dict (`{}` when absent or not an object)."""
    providers = cfg.get("providers")
    entry = providers.get(name) if isinstance(providers, dict) else None
    return dict(entry) if isinstance(entry, dict) else {}


def configured_base_url(cfg: Mapping[str, Any], name: str) -> str | None:
    url = provider_settings(cfg, name).get("baseUrl")
    return url.strip().rstrip("/") if isinstance(url, str) and url.strip() else None


def openrouter_base_url(explicit: str | None = None, cfg: Mapping[str, Any] | None = None) -> str:
    """An explicit argument, else the env override, else config, else the public API."""
    if explicit:
        return explicit.rstrip("/")
    env = os.environ.get(OPENROUTER_BASE_URL_ENV, "").strip()
    if env:
        return env.rstrip("/")
    return configured_base_url(cfg or {}, OPENROUTER) or OPENROUTER_BASE_URL


def direct_base_url(vendor: DirectVendor, cfg: Mapping[str, Any]) -> str:
    return configured_base_url(cfg, vendor.vendor) or vendor.base_url


def local_servers(cfg: Mapping[str, Any]) -> dict[str, JsonObject]:
    """Config `providers` entries that name a server of your own (not a known gateway/vendor)."""
    providers = cfg.get("providers")
    if not isinstance(providers, dict):
        return {}
    reserved = {OPENROUTER, *DIRECT_VENDORS, "local", "embedded"}
    return {
        name: dict(entry)
        for name, entry in providers.items()
        if isinstance(name, str) and name not in reserved and isinstance(entry, dict) and configured_base_url(cfg, name)
    }
