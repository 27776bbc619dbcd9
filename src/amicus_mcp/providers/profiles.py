"""What a route's model supports: the one place the engine asks.

A `Profile` answers the questions the engine has about a model before it sends anything —
can it be held to a JSON Schema, does it need the tight output caps of a small local model,
does it run in this process, is it free, does the OpenRouter catalog list it — and
`check_ready` whether it can run at all (its key, the local extra), so no other module ever
tests a route's kind to decide.

    kind       local  own hardware ($0)  catalogued  ready when
    embedded   yes    yes                no          the `local` extra (and its model) is installed
    gateway    no     no                 yes         OPENROUTER_API_KEY is set
    direct     no     no                 no          (resolution already required its key)
    server     no     yes                no          its `apiKeyEnv`, when config names one, is set
    agent      no     no (subscription)  no          its CLI is on PATH, supported and logged in

Structured output (a JSON-schema `response_format`, or the embedded model's grammar):

    embedded        always: llama.cpp compiles the schema to a grammar
    OpenRouter      when the model's catalog entry lists `structured_outputs` or
                    `response_format` in `supported_parameters` (unknown entry: no)
    direct vendor   when the vendor's API is known to honour json_schema (endpoints.py)
    your own server when config says so: `providers.<name>.structuredOutputs: true`
    agent CLI       when the CLI has an output-schema flag (Claude Code, Codex CLI; not Gemini CLI)

Tool calling (OpenAI's `tools` / `tool_calls`; the verifier's read-only tools, engine/verify.py):

    OpenRouter      when the model's catalog entry lists `tools` in `supported_parameters`
    direct vendor   when the vendor's API is known to take tools (endpoints.py)
    your own server when config says so: `providers.<name>.toolCalls: true`
    embedded, agent never (the embedded model's grammar holds it to one answer; an agent CLI has its own tools)

A provider that answers HTTP 400 to a schema request is asked once more without it, and its
profile is downgraded for the rest of the run (`ProfileBook.refuse_structured`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..errors import BadModel, MissingKey
from .catalog import Catalog
from .endpoints import DIRECT_VENDORS, OPENROUTER_KEY_ENV, provider_settings
from .keys import get_key, not_set, set_key_hint
from .route import Route

# OpenRouter's names for "this model can be held to a JSON Schema".
STRUCTURED_PARAMETERS = frozenset({"structured_outputs", "response_format"})
TOOL_PARAMETER = "tools"  # OpenRouter's name for "this model takes function tools"


class Profile(NamedTuple):
    structured_outputs: bool = False  # send a JSON-schema response_format (or a grammar)
    compact: bool = False  # a small local model: tight length caps keep it on the rails and fast
    local: bool = False  # the embedded model: runs in this process, with no key and no network
    own_hardware: bool = False  # the embedded model or a server of your own: priced at $0
    catalogued: bool = False  # an OpenRouter route: listed, priced and validated by its catalog
    subscription: bool = False  # an agent CLI: billed by its own plan, so no price and no --max-cost bound
    tool_calls: bool = False  # takes OpenAI-style function tools and answers with `tool_calls`


def traits(route: Route) -> Profile:
    """What is known of a route before any config or catalog is read: whether it is local,
    free, catalogued (structured output is then known only for the embedded model)."""
    if route.kind == "embedded":
        return Profile(structured_outputs=True, compact=True, local=True, own_hardware=True)
    if route.kind == "gateway":
        return Profile(catalogued=True)
    if route.kind == "server":
        return Profile(own_hardware=True)
    if route.kind == "agent":
        return Profile(subscription=True)
    return Profile()


def profile_for(route: Route, *, cfg: Mapping[str, Any], catalog: Catalog | None) -> Profile:
    """The profile of a resolved route under this config and catalog."""
    known = traits(route)
    if known.local:
        return known
    if known.catalogued:
        info = catalog.get(route.model) if catalog is not None else None
        params = info.supported_parameters if info is not None else None
        return known._replace(structured_outputs=bool(params and STRUCTURED_PARAMETERS & set(params)),
                              tool_calls=bool(params and TOOL_PARAMETER in params))
    if route.kind == "agent":
        from .agents import split_agent_id

        # Claude Code (--json-schema) and Codex (--output-schema) hold a reply to a schema; Gemini CLI
        # has no such mode, so its reply's fenced block carries the structure.
        return known._replace(structured_outputs=split_agent_id(route.canonical)[0].structured)
    if route.kind == "direct":
        vendor = DIRECT_VENDORS.get(route.provider)
        return known._replace(structured_outputs=bool(vendor and vendor.structured_outputs),
                              tool_calls=bool(vendor and vendor.tool_calls))
    settings = provider_settings(cfg, route.provider)
    return known._replace(structured_outputs=settings.get("structuredOutputs") is True,
                          tool_calls=settings.get("toolCalls") is True)


# --- can the route run? -------------------------------------------------------------------

def check_ready(member: str, route: Route, cfg: Mapping[str, Any]) -> None:
    """MissingKey for a route whose key is not set; the local model's own error when the
    `local` extra or its model package is not installed; AgentNotReady for an agent CLI that
    is missing, too old or logged out (that check runs the CLI twice, ~1-2 s)."""
    if route.kind == "gateway" and not get_key(OPENROUTER_KEY_ENV):
        raise missing_key(member, "runs through OpenRouter", OPENROUTER_KEY_ENV)
    if route.kind == "server":
        env_name = provider_settings(cfg, route.provider).get("apiKeyEnv")
        if isinstance(env_name, str) and env_name and not get_key(env_name):
            raise missing_key(member, f"runs on provider '{route.provider}'", env_name)
    if route.kind == "embedded":
        check_local_ready(member, route)
    if route.kind == "agent":
        from .agents import check_agent_ready

        check_agent_ready(member, route.canonical)


def missing_key(member: str, how: str, env_name: str) -> MissingKey:
    return MissingKey(f"'{member}' {how}, which needs {env_name}, and {not_set(env_name)}",
                      hint=set_key_hint(env_name))


def check_local_ready(member: str, route: Route) -> None:
    import importlib.util

    from .embedded import EXTRA_HINT, LocalModelUnavailable, LocalSettings, resolve_local_model
    from .gguf_cache import MODEL_DISTRIBUTION, MODEL_PACKAGE

    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalModelUnavailable(f"'{member}' runs on the embedded local model, which needs the 'local' extra "
                                    "(llama-cpp-python), and it is not installed", hint=EXTRA_HINT)
    ref = resolve_local_model(route.model, LocalSettings.from_config())
    if ref.path is None and importlib.util.find_spec(MODEL_PACKAGE) is None:
        raise BadModel(f"'{member}' runs on the bundled local model, and its package '{MODEL_DISTRIBUTION}' "
                       "is not installed", hint=EXTRA_HINT)


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
        self._profiles[(route.provider, route.model)] = self.get(route)._replace(structured_outputs=False)
