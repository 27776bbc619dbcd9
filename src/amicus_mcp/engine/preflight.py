"""Checks that run before any spend: the bench, the models, the cost gate, the prompt.

The prompt check includes the material itself: a briefing that holds a configured key's
value or something shaped like a credential is refused (`SECRET_IN_MATERIAL`) before it can
be sent to every seat, the judges and the chair — unless the caller allows it explicitly.

Every failure here is an `AmicusError` with a hint, raised before a single call is made.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import load_config
from ..errors import BadArgs, MissingPrompt, SecretInMaterial
from ..fsio import read_text
from ..presets import show_council
from ..providers.catalog import Catalog, load_catalog, validate_models
from ..providers.cost import check_cost_gate, cost_gate_threshold, route_pricing
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
        if len(members) < max(minimum, 2):
            raise BadArgs(
                f"council '{council}' has fewer than 2 usable members",
                hint="'amicus council show " + council + "' lists what dropped and why",
            )
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


async def prepare_bench(
    models: Sequence[str] | None,
    council: str | None,
    *,
    gateway: GatewayMode | None = None,
    minimum: int = 1,
    cost_gate: bool = True,
    validate: bool = True,
    catalog: Catalog | None = None,
) -> Bench:
    """Resolve every member, validate ids against the catalog and apply the cost gate."""
    members, dropped = members_of(models, council, minimum=minimum)
    cfg: dict[str, Any] = load_config()
    routes = [resolve_model(member, gateway=gateway, cfg=cfg) for member in members]
    if catalog is None and any(r.kind == "gateway" for r in routes):
        catalog = await load_catalog()
    catalog = catalog if catalog is not None else Catalog()
    if validate:
        validate_models(routes, catalog)
    threshold = cost_gate_threshold(cfg, disabled=not cost_gate)
    for member, route in zip(members, routes):
        check_cost_gate(member, route_pricing(route, catalog), threshold=threshold)
    return Bench(models=members, routes=routes, dropped=dropped, council=council, catalog=catalog)
