"""Checks that run before any spend: the bench, the models, the keys, the cost gate, the prompt.

The prompt check includes the material itself: a briefing that holds a configured key's
value or something shaped like a credential is refused (`SECRET_IN_MATERIAL`) before it can
be sent to every seat, the judges and the chair — unless the caller allows it explicitly.

Every failure here is an `AmicusError` with a hint, raised before a single call is made.
A `--council` member that has gone stale (its alias no longer resolves, or its id has left
the model catalog) is dropped with a reason rather than failing the run; an explicit
`--models` entry stays strict (seed 000).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import load_config
from ..errors import AmicusError, BadArgs, BadModel, MissingKey, MissingPrompt, SecretInMaterial
from ..fsio import read_text
from ..presets import show_council
from ..providers.catalog import Catalog, load_catalog, read_cached_catalog, validate_models
from ..providers.cost import check_cost_gate, cost_gate_threshold, route_pricing
from ..providers.endpoints import OPENROUTER_KEY_ENV, provider_settings
from ..providers.keys import get_key, set_key_hint
from ..providers.routing import GATEWAY_MODES, GatewayMode, Route, resolve_model

DEFAULT_MAX_LEGS = 10


@dataclass
class Bench:
    models: list[str]  # what each leg runs, as typed (aliases or ids), repeats allowed
    routes: list[Route]
    dropped: list[dict[str, str]] = field(default_factory=list)
    council: str | None = None
    catalog: Catalog = field(default_factory=Catalog)  # what pricing and validation were read from


def max_legs() -> int:
    raw = os.environ.get("AMICUS_FANOUT_MAX_LEGS", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MAX_LEGS


def read_prompt_file(path: str | None, *, allow_secrets: bool = False) -> str:
    """The briefing, read (bounded) and checked for secrets (`check_material`)."""
    if not path:
        raise MissingPrompt("a prompt file is required", hint="pass --prompt-file FILE (prompts are never inline)")
    if not Path(path).exists():
        raise MissingPrompt(f"prompt file '{path}' does not exist", hint="check the path")
    text = read_text(path, what="prompt file")
    if not text.strip():
        raise MissingPrompt(f"prompt file '{path}' is empty", hint="write the briefing into the file first")
    return check_material(text, what=f"prompt file '{path}'", allow_secrets=allow_secrets)


MAX_HITS_SHOWN = 5


def check_material(text: str, *, what: str, allow_secrets: bool = False) -> str:
    """`text` as it may be sent to models; SECRET_IN_MATERIAL when it holds a secret.

    A hit names its line and kind, never the value. With `allow_secrets` the material goes
    out as written, except the values of keys configured on this machine, which are masked:
    those never reach a model.
    """
    from ..secrets import mask_configured, scan_material

    if allow_secrets:
        return mask_configured(text)
    hits = scan_material(text)
    if not hits:
        return text
    shown = "; ".join(hit.describe() for hit in hits[:MAX_HITS_SHOWN])
    more = f" (and {len(hits) - MAX_HITS_SHOWN} more)" if len(hits) > MAX_HITS_SHOWN else ""
    raise SecretInMaterial(
        f"{what} looks like it contains a secret, which would be sent to every model: {shown}{more}",
        hint="remove it from the material; if it is not a real secret, pass --allow-secrets "
             "(allowSecrets: true over MCP)",
    )


def check_gateway(gateway: str | None) -> GatewayMode | None:
    if gateway is None:
        return None
    if gateway not in GATEWAY_MODES:
        raise BadArgs(f"--gateway '{gateway}' is not one of {', '.join(GATEWAY_MODES)}", hint="auto picks a direct key when one is set, else OpenRouter")
    return gateway  # type: ignore[return-value]


def check_timeout_minutes(minutes: float) -> float:
    if not minutes > 0 or minutes != minutes:
        raise BadArgs(f"--timeout must be a positive number of minutes, got {minutes}", hint="e.g. --timeout 15")
    return minutes * 60.0


def members_of(models: Sequence[str] | None, council: str | None, *, minimum: int = 1) -> tuple[list[str], list[dict[str, str]]]:
    """The bench as typed: exactly one of an explicit model list or a council name."""
    if models and council:
        raise BadArgs("pass exactly one of --models / --council, not both", hint="--models a,b,c or --council NAME")
    if not models and not council:
        raise BadArgs("provide --models or --council", hint="e.g. --models deepseek,gpt or --council budget")
    if council:
        shown = show_council(council)
        members, dropped = shown["resolved"], shown["dropped"]
        check_council_size(council, members, minimum)
    else:
        members, dropped = list(models or []), []
    if len(members) < minimum:
        raise BadArgs(f"need at least {minimum} model(s), got {len(members)}", hint="add models to --models")
    if len(members) > max_legs():
        raise BadArgs(
            f"{len(members)} legs exceeds the fan-out cap of {max_legs()} legs",
            hint="use fewer models, or raise AMICUS_FANOUT_MAX_LEGS",
        )
    return list(members), list(dropped)


@dataclass
class Routed:
    """The bench as typed and routed, every route ready to run; the catalog not yet read."""

    members: list[str]
    routes: list[Route]
    dropped: list[dict[str, str]]
    council: str | None
    unresolved: list[dict[str, str]]  # council members whose alias no longer routes


def route_bench(models: Sequence[str] | None, council: str | None, *, gateway: GatewayMode | None = None,
                minimum: int = 1, ready: bool = True, cfg: dict[str, Any] | None = None) -> Routed:
    """Resolve every member (a council's unroutable members are dropped) and check each route
    can run — before the catalog is even fetched; an estimate spends nothing, so it needs no keys."""
    members, dropped = members_of(models, council, minimum=minimum)
    cfg = load_config() if cfg is None else cfg
    if council:
        resolvable, routes, unresolved = split_resolvable(members, gateway=gateway, cfg=cfg)
    else:
        resolvable, routes, unresolved = list(members), [resolve_model(m, gateway=gateway, cfg=cfg) for m in members], []
    if ready:
        for member, route in zip(resolvable, routes):
            check_ready(member, route, cfg)
    return Routed(resolvable, routes, dropped, council, unresolved)


async def read_catalog(routes: Sequence[Route], catalog: Catalog | None = None) -> Catalog:
    """The model catalog, fetched only when some route goes through OpenRouter."""
    if catalog is None and any(r.kind == "gateway" for r in routes):
        catalog = await load_catalog()
    return catalog if catalog is not None else Catalog()


def price_bench(routed: Routed, catalog: Catalog, *, minimum: int = 1, cost_gate: bool = True,
                validate: bool = True, cfg: dict[str, Any] | None = None) -> Bench:
    """Drop a council's members that left the catalog, then hold every seat to `check_listed`."""
    members, routes, dropped = routed.members, routed.routes, [*routed.dropped, *routed.unresolved]
    if routed.council:
        members, routes, stale = split_catalogued(members, routes, catalog if validate else Catalog())
        dropped = [*dropped, *stale]
        check_council_size(routed.council, members, minimum)
    check_listed(list(zip(members, routes)), catalog, validate=validate,
                 threshold=gate_threshold(cost_gate, load_config() if cfg is None else cfg))
    return Bench(models=members, routes=routes, dropped=dropped, council=routed.council, catalog=catalog)


async def prepare_bench(
    models: Sequence[str] | None,
    council: str | None,
    *,
    gateway: GatewayMode | None = None,
    minimum: int = 1,
    cost_gate: bool = True,
    validate: bool = True,
    catalog: Catalog | None = None,
    ready: bool = True,
) -> Bench:
    """Resolve every member, drop a council's stale members, validate ids against the catalog,
    check every route can run (its key, the local extra) and apply the cost gate."""
    cfg: dict[str, Any] = load_config()
    routed = route_bench(models, council, gateway=gateway, minimum=minimum, ready=ready, cfg=cfg)
    catalog = await read_catalog(routed.routes, catalog)
    return price_bench(routed, catalog, minimum=minimum, cost_gate=cost_gate, validate=validate, cfg=cfg)


# --- the checks every model a run calls must pass: each seat (critic and lens seats are bench
# seats) and the chair alike. `check_ready` before the catalog is read, `check_listed` after.

@contextmanager
def naming(flag: str) -> Iterator[None]:
    """Prefix a check's error with the argument it is about (`--chair: Model 'x' is not …`)."""
    try:
        yield
    except AmicusError as err:
        if not err.message.startswith(flag):
            err.message = f"{flag}: {err.message}"
            err.args = (err.message,)
        raise


def gate_threshold(cost_gate: bool, cfg: dict[str, Any]) -> float | None:
    return cost_gate_threshold(cfg, disabled=not cost_gate)


def check_listed(members: Sequence[tuple[str, Route]], catalog: Catalog, *, validate: bool,
                 threshold: float | None) -> None:
    """BAD_MODEL for an id missing from a (non-empty) catalog, unless `validate` is off;
    BUDGET_EXCEEDED for a model priced above the cost gate."""
    if validate:
        validate_models([route for _, route in members], catalog)
    for member, route in members:
        check_cost_gate(member, route_pricing(route, catalog), threshold=threshold)


def check_council_size(council: str, members: Sequence[str], minimum: int) -> None:
    if len(members) < max(minimum, 2):
        raise BadArgs(
            f"council '{council}' has fewer than 2 usable members",
            hint="'amicus council show " + council + "' lists what dropped and why",
        )


# --- stale council members: dropped with a reason, never fatal on their own ---------------

def split_resolvable(members: Sequence[str], *, gateway: GatewayMode | None,
                     cfg: dict[str, Any]) -> tuple[list[str], list[Route], list[dict[str, str]]]:
    """(members that route, their routes, the dropped ones with the routing error as reason)."""
    kept: list[str] = []
    routes: list[Route] = []
    dropped: list[dict[str, str]] = []
    for member in members:
        try:
            routes.append(resolve_model(member, gateway=gateway, cfg=cfg))
        except AmicusError as err:
            dropped.append({"member": member, "reason": err.message})
            continue
        kept.append(member)
    return kept, routes, dropped


def split_catalogued(members: Sequence[str], routes: Sequence[Route],
                     catalog: Catalog) -> tuple[list[str], list[Route], list[dict[str, str]]]:
    """Drop members whose OpenRouter id has left a (non-empty) catalog."""
    kept: list[str] = []
    kept_routes: list[Route] = []
    dropped: list[dict[str, str]] = []
    for member, route in zip(members, routes):
        model_id = route.catalog_id
        if model_id and catalog.has(model_id) is False:
            dropped.append({"member": member, "reason": f"'{model_id}' is no longer in the OpenRouter model catalog"})
            continue
        kept.append(member)
        kept_routes.append(route)
    return kept, kept_routes, dropped


def dropped_notice(dropped: Sequence[dict[str, str]]) -> str:
    """The one wording of a council's dropped members (a council run's and a wave's notices)."""
    return "dropped unavailable council member(s): " + "; ".join(f"{d['member']} ({d['reason']})" for d in dropped)


async def preview_council(name: str, *, gateway: GatewayMode | None = None, offline: bool = False) -> dict[str, Any]:
    """`council show`: the resolved/dropped split a `--council NAME` run would get, against
    the model catalog as a run reads it (refreshed when the cache is older than a day;
    `offline`: the cache only). `catalog` says whether the members were checked against it:
    a member that left the catalog is only caught when they were. Nothing is spent."""
    doc = show_council(name)
    cfg: dict[str, Any] = load_config()
    resolvable, routes, unresolved = split_resolvable(doc["resolved"], gateway=gateway, cfg=cfg)
    looked_up = any(r.kind == "gateway" for r in routes)  # as prepare_bench decides to fetch it
    catalog = (read_cached_catalog() if offline else await load_catalog()) if looked_up else Catalog()
    kept, _, stale = split_catalogued(resolvable, routes, catalog)
    return {**doc, "resolved": kept, "dropped": [*doc["dropped"], *unresolved, *stale],
            "catalog": catalog_check(catalog, looked_up=looked_up, offline=offline)}


def catalog_check(catalog: Catalog, *, looked_up: bool, offline: bool) -> dict[str, Any]:
    """What `council show` says of the catalog it checked the members against (or did not)."""
    fetched = catalog.fetched_at.isoformat().replace("+00:00", "Z") if catalog.fetched_at else None
    if not looked_up:
        return {"checked": True, "state": None, "fetchedAt": None,
                "note": "no member is looked up in the OpenRouter model catalog"}
    if catalog.is_empty:
        why = ("--offline, and no catalog is cached" if offline
               else f"the catalog could not be fetched ({catalog.error or 'no models'})")
        return {"checked": False, "state": catalog.state, "fetchedAt": None,
                "note": f"not checked against the OpenRouter model catalog: {why}; a member that left it "
                        "shows as resolved, and a run drops it only once it can read the catalog"}
    note = None
    if catalog.state == "stale" or catalog.error:
        note = (f"checked against the catalog cached at {fetched}"
                + (f"; refreshing it failed ({catalog.error})" if catalog.error else " (older than a day)"))
    return {"checked": True, "state": catalog.state, "fetchedAt": fetched, "note": note}


# --- can every route run? -----------------------------------------------------------------

def check_ready(member: str, route: Route, cfg: dict[str, Any]) -> None:
    """MissingKey for a route whose key is not set; the local model's own error when the
    `local` extra or its model package is not installed. Cheap: nothing is imported."""
    if route.kind == "gateway" and not get_key(OPENROUTER_KEY_ENV):
        raise missing_key(member, "runs through OpenRouter", OPENROUTER_KEY_ENV)
    if route.kind == "server":
        env_name = provider_settings(cfg, route.provider).get("apiKeyEnv")
        if isinstance(env_name, str) and env_name and not get_key(env_name):
            raise missing_key(member, f"runs on provider '{route.provider}'", env_name)
    if route.kind == "embedded":
        check_local_ready(member, route)


def missing_key(member: str, how: str, env_name: str) -> MissingKey:
    return MissingKey(f"'{member}' {how}, which needs {env_name}, and {env_name} is not set",
                      hint=set_key_hint(env_name))


def check_local_ready(member: str, route: Route) -> None:
    from ..providers.embedded import EXTRA_HINT, LocalModelUnavailable, LocalSettings, resolve_local_model
    from ..providers.gguf_cache import MODEL_DISTRIBUTION, MODEL_PACKAGE

    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalModelUnavailable(f"'{member}' runs on the embedded local model, which needs the 'local' extra "
                                    "(llama-cpp-python), and it is not installed", hint=EXTRA_HINT)
    ref = resolve_local_model(route.model, LocalSettings.from_config())
    if ref.path is None and importlib.util.find_spec(MODEL_PACKAGE) is None:
        raise BadModel(f"'{member}' runs on the bundled local model, and its package '{MODEL_DISTRIBUTION}' "
                       "is not installed", hint=EXTRA_HINT)
