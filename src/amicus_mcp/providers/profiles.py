"""What a route's model supports: the one place the engine asks.

A `Profile` answers the questions the engine has about a model before it sends anything —
can it be held to a JSON Schema, and does it need the tight output caps of a small local
model — so no other module ever tests a route's kind to decide.

Structured output (a JSON-schema `response_format`, or the embedded model's grammar):

    embedded        always: llama.cpp compiles the schema to a grammar
    OpenRouter      when the model's catalog entry lists `structured_outputs` or
                    `response_format` in `supported_parameters` (unknown entry: no)
    direct vendor   when the vendor's API is known to honour json_schema (endpoints.py)
    your own server when config says so: `providers.<name>.structuredOutputs: true`

A provider that answers HTTP 400 to a schema request is asked once more without it, and its
profile is downgraded for the rest of the run (`ProfileBook.refuse_structured`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from .catalog import Catalog
from .endpoints import DIRECT_VENDORS, provider_settings
from .route import Route

# OpenRouter's names for "this model can be held to a JSON Schema".
STRUCTURED_PARAMETERS = frozenset({"structured_outputs", "response_format"})


@dataclass(frozen=True)
class Profile:
    structured_outputs: bool = False  # send a JSON-schema response_format (or a grammar)
    compact: bool = False  # a small local model: tight length caps keep it on the rails and fast


def profile_for(route: Route, *, cfg: Mapping[str, Any], catalog: Catalog | None) -> Profile:
    """The profile of a resolved route under this config and catalog."""
    if route.kind == "embedded":
        return Profile(structured_outputs=True, compact=True)
    if route.kind == "gateway":
        info = catalog.get(route.model) if catalog is not None else None
        params = info.supported_parameters if info is not None else None
        return Profile(structured_outputs=bool(params and STRUCTURED_PARAMETERS & set(params)))
    if route.kind == "direct":
        vendor = DIRECT_VENDORS.get(route.provider)
        return Profile(structured_outputs=bool(vendor and vendor.structured_outputs))
    return Profile(structured_outputs=provider_settings(cfg, route.provider).get("structuredOutputs") is True)


class ProfileBook:
    """The profiles of one run's routes, with what the run has learned about them."""

    def __init__(self, cfg: Mapping[str, Any], catalog: Catalog | None) -> None:
        self._cfg = cfg
        self._catalog = catalog
        self._profiles: dict[tuple[str, str], Profile] = {}

    def get(self, route: Route) -> Profile:
        key = (route.provider, route.model)
        if key not in self._profiles:
            self._profiles[key] = profile_for(route, cfg=self._cfg, catalog=self._catalog)
        return self._profiles[key]

    def refuse_structured(self, route: Route) -> None:
        """The provider rejected a schema request: send this model plain prompts from now on."""
        self._profiles[(route.provider, route.model)] = replace(self.get(route), structured_outputs=False)
