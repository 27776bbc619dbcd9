"""Checks that run before any spend: the bench, the models, the keys, the cost gate, the prompt —
and a council run's whole pre-flight, `prepare`, with the plan of its waves (limits.py).

The prompt check includes the material itself: a briefing that holds a configured key's
value or something shaped like a credential is refused (`SECRET_IN_MATERIAL`) before it can
be sent to every seat, the judges and the chair — unless the caller allows it explicitly.

Every failure here is an `AmicusError` with a hint, raised before a single call is made.
A `--council` member that has gone stale (its alias no longer resolves, or its id has left
the model catalog) is dropped with a reason rather than failing the run; an explicit
`--models` entry stays strict (seed 000).
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import load_config
from ..errors import AmicusError, BadArgs, ClaudeReviewInvalid, MissingPrompt
from ..fsio import read_text
from ..presets import show_council
from ..providers.catalog import Catalog, load_catalog, read_cached_catalog, validate_models
from ..providers.cost import check_cost_gate, cost_gate_threshold, route_pricing
from ..providers.profiles import check_ready, profile_for, traits
from ..providers.routing import Route, resolve_model
from ..schemas import JsonObject
from ..vocabulary import GATEWAY_MODES, GatewayMode
from .material import check_material
from .run_dir import RunDir

if TYPE_CHECKING:
    from ..council.seats import Seat
    from ..documents.base import Document
    from ..documents.commands import CatalogCheck, CouncilShow, DroppedMemberDoc
    from .limits import RunPlan
    from .options import RunOptions
    from .store import SessionStore

DEFAULT_MAX_LEGS = 10


@dataclass
class Bench:
    models: list[str]  # what each leg runs, as typed (aliases or ids), repeats allowed
    routes: list[Route]
    dropped: list[DroppedMemberDoc] = field(default_factory=list)
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


def check_gateway(gateway: str | None) -> GatewayMode | None:
    if gateway is None:
        return None
    if gateway not in GATEWAY_MODES:
        raise BadArgs(f"--gateway '{gateway}' is not one of {', '.join(GATEWAY_MODES)}", hint="auto picks a direct key when one is set, else OpenRouter")
    return gateway


def check_timeout_minutes(minutes: float) -> float:
    if not minutes > 0 or minutes != minutes:
        raise BadArgs(f"--timeout must be a positive number of minutes, got {minutes}", hint="e.g. --timeout 15")
    return minutes * 60.0


def members_of(models: Sequence[str] | None, council: str | None, *, minimum: int = 1) -> tuple[list[str], list[DroppedMemberDoc]]:
    """The bench as typed: exactly one of an explicit model list or a council name."""
    if models and council:
        raise BadArgs("pass exactly one of --models / --council, not both", hint="--models a,b,c or --council NAME")
    if not models and not council:
        from ..front import setting
        from .defaults import BENCH_ENV

        raise BadArgs("provide --models or --council",
                      hint=f"e.g. --models deepseek,gpt or --council budget; or set a default bench in {setting(BENCH_ENV)}")
    if council:
        shown = show_council(council)
        members, dropped = shown["resolved"], shown["dropped"]
        check_council_size(council, members, minimum, dropped)
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
    dropped: list[DroppedMemberDoc]
    council: str | None
    unresolved: list[DroppedMemberDoc]  # council members whose alias no longer routes


def route_bench(models: Sequence[str] | None, council: str | None, *, gateway: GatewayMode | None = None,
                minimum: int = 1, ready: bool = True, cfg: JsonObject | None = None) -> Routed:
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
    if catalog is None and any(traits(r).catalogued for r in routes):
        catalog = await load_catalog()
    return catalog if catalog is not None else Catalog()


def price_bench(routed: Routed, catalog: Catalog, *, minimum: int = 1, cost_gate: bool = True,
                validate: bool = True, cfg: JsonObject | None = None) -> Bench:
    """Drop a council's members that left the catalog, then hold every seat to `check_listed`."""
    members, routes, dropped = routed.members, routed.routes, [*routed.dropped, *routed.unresolved]
    if routed.council:
        members, routes, stale = split_catalogued(members, routes, catalog if validate else Catalog())
        dropped = [*dropped, *stale]
        check_council_size(routed.council, members, minimum, dropped)
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
    cfg: JsonObject = load_config()
    routed = route_bench(models, council, gateway=gateway, minimum=minimum, ready=ready, cfg=cfg)
    catalog = await read_catalog(routed.routes, catalog)
    return price_bench(routed, catalog, minimum=minimum, cost_gate=cost_gate, validate=validate, cfg=cfg)


async def prepare_model(model: str, *, flag: str, options: RunOptions) -> Bench:
    """One model a run calls beside its bench (the eval's matcher), checked as a seat is — its
    route, key, catalog entry and the cost gate, under the run's gateway — each error naming `flag`."""
    with naming(flag):
        return await prepare_bench([model], None, gateway=check_gateway(options.gateway), minimum=1,
                                   cost_gate=options.cost_gate, validate=options.validate_models)


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


def gate_threshold(cost_gate: bool, cfg: JsonObject) -> float | None:
    return cost_gate_threshold(cfg, disabled=not cost_gate)


def check_listed(members: Sequence[tuple[str, Route]], catalog: Catalog, *, validate: bool,
                 threshold: float | None) -> None:
    """BAD_MODEL for an id missing from a (non-empty) catalog, unless `validate` is off;
    BUDGET_EXCEEDED for a model priced above the cost gate."""
    if validate:
        validate_models([route for _, route in members], catalog)
    for member, route in members:
        check_cost_gate(member, route_pricing(route, catalog), threshold=threshold)


def check_council_size(council: str, members: Sequence[str], minimum: int,
                       dropped: Sequence[DroppedMemberDoc] = ()) -> None:
    """A council left with fewer than two seats is refused, saying what dropped and why (a
    Desktop user has no `council show` to ask)."""
    from ..front import command

    if len(members) < max(minimum, 2):
        why = f": {dropped_notice(dropped).removeprefix('dropped unavailable council member(s): ')}" if dropped else ""
        show = command(f"amicus council show {council}")
        raise BadArgs(
            f"council '{council}' has fewer than 2 usable members" + (f" (dropped{why})" if dropped else ""),
            hint=(f"{show} lists what dropped and why; " if show else "")
                 + "fix or replace the dropped members, or name the bench with --models",
        )


# --- stale council members: dropped with a reason, never fatal on their own ---------------

def split_resolvable(members: Sequence[str], *, gateway: GatewayMode | None,
                     cfg: JsonObject) -> tuple[list[str], list[Route], list[DroppedMemberDoc]]:
    """(members that route, their routes, the dropped ones with the routing error as reason)."""
    kept: list[str] = []
    routes: list[Route] = []
    dropped: list[DroppedMemberDoc] = []
    for member in members:
        try:
            routes.append(resolve_model(member, gateway=gateway, cfg=cfg))
        except AmicusError as err:
            dropped.append({"member": member, "reason": err.message})
            continue
        kept.append(member)
    return kept, routes, dropped


def split_catalogued(members: Sequence[str], routes: Sequence[Route],
                     catalog: Catalog) -> tuple[list[str], list[Route], list[DroppedMemberDoc]]:
    """Drop members whose OpenRouter id has left a (non-empty) catalog."""
    kept: list[str] = []
    kept_routes: list[Route] = []
    dropped: list[DroppedMemberDoc] = []
    for member, route in zip(members, routes):
        model_id = route.catalog_id
        if model_id and catalog.has(model_id) is False:
            dropped.append({"member": member, "reason": f"'{model_id}' is no longer in the OpenRouter model catalog"})
            continue
        kept.append(member)
        kept_routes.append(route)
    return kept, kept_routes, dropped


def dropped_notice(dropped: Sequence[Mapping[str, object]]) -> str:
    """The one wording of a council's dropped members (a council run's and a wave's notices)."""
    return "dropped unavailable council member(s): " + "; ".join(f"{d['member']} ({d['reason']})" for d in dropped)


async def preview_council(name: str, *, gateway: GatewayMode | None = None, offline: bool = False) -> CouncilShow:
    """`council show`: the resolved/dropped split a `--council NAME` run would get, against
    the model catalog as a run reads it (refreshed when the cache is older than a day;
    `offline`: the cache only). `catalog` says whether the members were checked against it:
    a member that left the catalog is only caught when they were. Nothing is spent."""
    doc = show_council(name)
    cfg: JsonObject = load_config()
    resolvable, routes, unresolved = split_resolvable(doc["resolved"], gateway=gateway, cfg=cfg)
    looked_up = any(traits(r).catalogued for r in routes)  # as prepare_bench decides to fetch it
    catalog = (read_cached_catalog() if offline else await load_catalog()) if looked_up else Catalog()
    kept, _, stale = split_catalogued(resolvable, routes, catalog)
    return {**doc, "resolved": kept, "dropped": [*doc["dropped"], *unresolved, *stale],
            "catalog": catalog_check(catalog, looked_up=looked_up, offline=offline)}


def catalog_check(catalog: Catalog, *, looked_up: bool, offline: bool) -> CatalogCheck:
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


# --------------------------------------------------------------------------- a council run's pre-flight

DEFAULT_CHAIR = "deepseek"
# A default chair must never sit on the bench it judges: when it does, the first of these
# that is not a bench seat (and whose key is set) chairs instead, and the run says so. The
# order is fixed, so the front's pre-flight and the worker's pick the same chair.
CHAIR_ORDER: tuple[str, ...] = (DEFAULT_CHAIR, "gemini", "gpt", "kimi", "glm", "mistral")
# Offline there is no independent model: a bench made only of the embedded model is chaired
# by that same model under its explicit name, and the run says so.
LOCAL_CHAIR = "local/gemma3-270m-q4_k_m"
_LENS = re.compile(r"^[a-z0-9][a-z0-9-]{0,47}$")


@dataclass
class Prepared:
    """Everything pre-flight established for a council run; nothing has been spent or written yet."""

    options: RunOptions
    run_id: str
    run_dir: Path
    store: SessionStore
    briefing: str
    seats: list[Seat]
    routes: list[Route]
    chair: str
    chair_route: Route
    dropped: list[DroppedMemberDoc]
    catalog: Catalog
    timeout_s: float
    claude_review: str | None = None  # the validated text of Claude's review
    # run.json's records of where the briefing came from (`template`, `artifact`, `pack`), in order
    records: dict[str, Document] = field(default_factory=dict)
    plan: RunPlan | None = None  # the waves' windows and floors (limits.py); None: nothing planned
    chair_notice: str | None = None  # the default chair sat on the bench: which chair was taken instead
    matcher_route: Route | None = None  # a re-review's --matcher, checked as the chair is
    matcher_loss: str | None = None  # why the re-review runs without its matcher (no room: the ceiling's, its window's)
    matcher_questions: int | None = None  # the findings one matcher call asks about (what its window holds)
    matcher_window: int | None = None  # the matcher's context window, where known

    @property
    def dir(self) -> RunDir:
        return RunDir(self.run_dir)

    @property
    def lens_run(self) -> bool:
        return any(seat["role"].startswith("lens:") for seat in self.seats)

    @property
    def subscription_seats(self) -> list[str]:
        """The bench and chair legs billed by an agent CLI's own subscription: no price amicus can see."""
        return list(dict.fromkeys(r.canonical for r in [*self.routes, self.chair_route] if traits(r).subscription))

    @property
    def offline_chair(self) -> bool:
        """The chair runs on the embedded model, as the bench does: the verdict is not independent."""
        return traits(self.chair_route).local and any(traits(route).local for route in self.routes)

    def seat_route(self, seat_id: str) -> tuple[Seat, Route]:
        for seat, route in zip(self.seats, self.routes):
            if seat["id"] == seat_id:
                return seat, route
        raise KeyError(f"no bench seat '{seat_id}'")


def with_defaults(options: RunOptions) -> RunOptions:
    """The options with their pack and then the environment's defaults applied: what `prepare`
    starts from, and what an eval applies once for all its cases (their --max-cost is the suite's)."""
    from .briefing_inputs import apply_pack
    from .defaults import apply_env_defaults

    return apply_env_defaults(apply_pack(options))


async def prepare(options: RunOptions, *, briefing: str | None = None,
                  records: dict[str, Document] | None = None) -> Prepared:
    """Every check before any spend. A worker continuing a run another front prepared passes
    the run directory's own `briefing` copy and the `records` (template, artifact, pack) the
    front made of it: the caller's files may have changed since, and are not read again."""
    from ..documents.run import TemplateRecord
    from .briefing_inputs import blame_pack, is_template_file, resolve_intent
    from .defaults import default_chair
    from .limits import check_ceiling, plan_run
    from .options import DEFAULT_TIMEOUT_MIN
    from .store import SessionStore, new_id, resolve_project

    options = with_defaults(options)
    timeout_min = DEFAULT_TIMEOUT_MIN if options.timeout_min is None else options.timeout_min
    options = options.model_copy(update={"timeout_min": timeout_min, "debate": bool(options.debate)})
    if options.baseline:  # resolved before any spend; the worker reads the verdict file it names
        from .baseline import resolve_baseline

        options = options.model_copy(update={"baseline": resolve_baseline(options.baseline, options.project)})
    if options.matcher and not options.baseline:
        from .options import flag_of

        raise BadArgs(f"{flag_of('matcher')} applies to a re-review only: it needs {flag_of('baseline')}",
                      hint=f"add {flag_of('baseline')} RUN (the run this one re-reviews), or drop {flag_of('matcher')}")
    if options.template and is_template_file(options.template):  # the worker runs elsewhere
        options = options.model_copy(update={"template": str(Path(options.template).expanduser().resolve())})
    if briefing is None:
        briefing, records = compose_or_read(options)
    else:
        briefing = check_material(briefing, what="the run's briefing", allow_secrets=options.allow_secrets)
    template_record = (records or {}).get("template")
    template_intent = (template_record.intent or "review") if isinstance(template_record, TemplateRecord) else None
    options = options.model_copy(update={"intent": resolve_intent(options, template_intent)})
    with blame_pack(options, "gateway"):
        gateway = check_gateway(options.gateway)
    with blame_pack(options, "timeout_min"):
        timeout_s = check_timeout_minutes(timeout_min)
    # Infinity is no reader's value (every front reads dollars through options.parse_dollars,
    # which refuses it): it is the eval's "no ceiling of its own" for a case it prepares before
    # sharing the suite's ceiling out (eval/runner.py), so only a non-positive amount is refused.
    if options.max_cost is not None and not options.max_cost > 0:
        raise BadArgs(f"--max-cost must be a positive number of dollars, got {options.max_cost}", hint="e.g. --max-cost 2.00")
    # The chair is held to every check a seat is (its key, the catalog, the cost gate), before
    # anything is spent: a typo'd or over-priced chair never lets the run pay for two stages first.
    cfg = load_config()
    with blame_pack(options, "bench", "gateway"):
        routed = route_bench(options.models, options.council, gateway=gateway, minimum=2, cfg=cfg)
    if options.chair is not None:  # typed, or the pack's: a clash is the caller's to fix
        chair, chair_notice = options.chair, None
        with blame_pack(options, "chair", "bench"), naming("--chair"):
            chair_route = resolve_model(chair, gateway=gateway, cfg=cfg)
            check_ready(chair, chair_route, cfg)
    else:
        chair, chair_route, chair_notice = pick_chair(routed, default_chair(), gateway=gateway, cfg=cfg)
        if chair_notice is None and chair == default_chair():  # recorded as the run's, as before
            options = options.model_copy(update={"chair": chair})
    matcher_route: Route | None = None
    if options.matcher:  # held to every check the chair is, before anything is spent
        with naming("--matcher"):
            matcher_route = resolve_model(options.matcher, gateway=gateway, cfg=cfg)
            check_ready(options.matcher, matcher_route, cfg)
    catalog = await read_catalog([*routed.routes, chair_route, *([matcher_route] if matcher_route else [])])
    with blame_pack(options, "bench", "gateway"):
        bench = price_bench(routed, catalog, minimum=2, cost_gate=options.cost_gate,
                            validate=options.validate_models, cfg=cfg)
    with blame_pack(options, "chair", "bench"), naming("--chair"):
        check_listed([(chair, chair_route)], catalog, validate=options.validate_models,
                     threshold=gate_threshold(options.cost_gate, cfg))
    with blame_pack(options, "chair", "bench"):
        bench_ids = {m for m in bench.models} | {r.canonical for r in bench.routes}
        if chair in bench_ids or chair_route.canonical in bench_ids:
            raise BadArgs(
                f"the chair '{chair}' is also a bench seat",
                hint="the chair must be independent of the bench: pick another --chair",
            )
    with blame_pack(options, "critic", "lenses", "bench"):
        seats = seat_table(bench.models, critic=options.critic, lenses=options.lenses)
    claude_review = read_claude_review(options.claude_review, question=options.question) if options.claude_review else None
    if claude_review is not None:  # the bench reads it too: it is material like the briefing
        claude_review = check_material(claude_review, what=f"Claude's review '{options.claude_review}'",
                                       allow_secrets=options.allow_secrets)
    # Room in every model's window and under the ceiling, for every wave, before anything is spent.
    with blame_pack(options, "bench", "chair"):
        plan = plan_run(briefing=briefing, date=datetime.now(timezone.utc).strftime("%Y-%m-%d"), seats=seats,
                        routes=bench.routes, chair=chair, chair_route=chair_route, catalog=bench.catalog,
                        claude_review=claude_review, question=options.question,
                        verify=bool(options.verify) and not options.question, verify_max=options.verify_cap,
                        verify_tool_calls=options.verify_calls
                        if profile_for(chair_route, cfg=cfg, catalog=bench.catalog).tool_calls else 0)
    if options.matcher and matcher_route is not None:
        with naming("--matcher"):
            check_listed([(options.matcher, matcher_route)], catalog, validate=options.validate_models,
                         threshold=gate_threshold(options.cost_gate, cfg))
    with blame_pack(options, "max_cost", "bench", "chair"):
        check_ceiling(plan, options.max_cost)
    matcher_loss, matcher_questions, matcher_window = None, None, None  # no re-review matcher: nothing bounded
    if matcher_route is not None and options.baseline:
        from .baseline import matcher_bound

        bound = matcher_bound(options.baseline, matcher_route, bench.catalog)
        matcher_questions, matcher_window = bound.questions, bound.window
        with_matcher = plan._replace(matcher=bound)
        if bound.questions == 0:  # never an over-long prompt: the run goes on, matched by location and claim only
            matcher_loss = (f"not called: the matcher's {bound.window or 0:,}-token context window cannot hold the "
                            f"baseline's {bound.targets} finding(s) and one finding to match, plus its "
                            f"{bound.cap:,}-token answer")
        elif options.max_cost is not None and sum(with_matcher.floors().values()) > options.max_cost:
            # The council fits and the matcher does not: the run goes on, matched by location and claim only.
            matcher_loss = (f"not called: the --max-cost ${options.max_cost:g} ceiling holds the council but not "
                            f"also the matcher's worst case (${bound.floor_reservation():.4f}; "
                            f"--max-cost {with_matcher.smallest_ceiling():.4f} holds both)")
        else:
            plan = with_matcher
    store = SessionStore(resolve_project(options.project))
    run_id = options.run_id or new_id()
    store.session_dir(run_id)  # validates a caller-supplied id
    # A run directory no one named goes inside the project, where its index is (store.py).
    run_dir = Path(options.out_dir).expanduser().resolve() if options.out_dir else store.project / f"council-{run_id}"
    check_run_dir(RunDir(run_dir), run_id)
    return Prepared(
        options=options, run_id=run_id, run_dir=run_dir, store=store, briefing=briefing,
        seats=seats, routes=bench.routes, chair=chair, chair_route=chair_route,
        dropped=bench.dropped, catalog=bench.catalog, timeout_s=timeout_s, claude_review=claude_review,
        records=dict(records or {}), plan=plan, chair_notice=chair_notice, matcher_route=matcher_route,
        matcher_loss=matcher_loss, matcher_questions=matcher_questions, matcher_window=matcher_window,
    )


def _seat_ids(routed: Routed) -> set[str]:
    return set(routed.members) | {r.canonical for r in routed.routes}


def pick_chair(routed: Routed, preferred: str | None, *, gateway: GatewayMode | None,
               cfg: JsonObject) -> tuple[str, Route, str | None]:
    """The chair of a run that names none: `preferred` (AMICUS_DEFAULT_CHAIR, the bundle's
    "Default chair"), else DEFAULT_CHAIR — unless it sits on the bench, when the first of
    CHAIR_ORDER that is no bench seat and whose key is set chairs instead, with a notice saying
    which and why. An all-local bench keeps the embedded model (offline there is no other)."""
    from ..front import setting
    from .defaults import CHAIR_ENV

    if preferred is None and all(traits(r).local for r in routed.routes):
        chair_route = resolve_model(LOCAL_CHAIR, gateway=gateway, cfg=cfg)
        with naming("--chair"):
            check_ready(LOCAL_CHAIR, chair_route, cfg)
        return LOCAL_CHAIR, chair_route, None
    first = preferred or DEFAULT_CHAIR
    source = f" ({setting(CHAIR_ENV)})" if preferred else ""
    with naming(setting(CHAIR_ENV) if preferred else "--chair"):
        first_route = resolve_model(first, gateway=gateway, cfg=cfg)
    seats = _seat_ids(routed)
    if first not in seats and first_route.canonical not in seats:
        with naming(setting(CHAIR_ENV) if preferred else "--chair"):
            check_ready(first, first_route, cfg)
        return first, first_route, None
    independent: list[tuple[str, Route]] = []
    for candidate in CHAIR_ORDER:
        try:
            route = resolve_model(candidate, gateway=gateway, cfg=cfg)
        except AmicusError:  # an alias config.json took away
            continue
        if candidate not in seats and route.canonical not in seats:
            independent.append((candidate, route))
    if not independent:
        raise BadArgs(f"the default chair '{first}'{source} is a bench seat, and so is every other default chair "
                      f"({', '.join(CHAIR_ORDER)})",
                      hint="the chair must be independent of the bench: name one with --chair"
                           + (f", or change {setting(CHAIR_ENV)}" if preferred else ""))
    chosen, route = next(((c, r) for c, r in independent if _is_ready(c, r, cfg)), independent[0])
    with naming("--chair"):
        check_ready(chosen, route, cfg)  # none is ready: the first independent one's missing key
    notice = (f"the default chair '{first}'{source} is a bench seat, and the chair must be independent of the "
              f"bench: '{chosen}' chairs instead (the first of {', '.join(CHAIR_ORDER)} that is not a bench seat)")
    return chosen, route, notice


def _is_ready(member: str, route: Route, cfg: JsonObject) -> bool:
    try:
        check_ready(member, route, cfg)
    except AmicusError:
        return False
    return True


def compose_or_read(options: RunOptions) -> tuple[str, dict[str, Document]]:
    """The briefing (from a template and its artifact, or the prompt file), checked for
    secrets, and what run.json records of where it came from."""
    from .briefing_inputs import check_briefing_source, compose_briefing
    from ..documents.run import input_records

    check_briefing_source(options)
    raw: dict[str, object] = {"pack": options.pack_record} if options.pack_record else {}
    if not options.template:
        return read_prompt_file(options.prompt_file, allow_secrets=options.allow_secrets), input_records(raw)
    composed = compose_briefing(options)
    raw.update(composed.records())
    text = check_material(composed.text, what=f"the briefing composed from template '{options.template}'",
                          allow_secrets=options.allow_secrets)
    return text, input_records(raw)


def seat_table(models: Sequence[str], *, critic: str | None, lenses: Sequence[str] | None) -> list[Seat]:
    """The bench's seats with their roles: one critic seat, or one random lens per seat."""
    from ..council.seats import build_seats

    if critic and lenses:
        raise BadArgs("--critic and --lenses cannot be combined", hint="pick one optional element for the bench's briefs")
    roles = ["seat"] * len(models)
    lens_of: list[str | None] = [None] * len(models)
    if critic:
        if critic not in models:
            raise BadArgs(f"the critic '{critic}' is not a bench seat", hint=f"--critic must name one of: {', '.join(models)}")
        roles[list(models).index(critic)] = "critic"  # the first seat of that alias
    if lenses:
        slugs = [lens.strip() for lens in lenses]
        if len(slugs) != len(models):
            raise BadArgs(f"--lenses has {len(slugs)} lens(es) for {len(models)} seats",
                          hint="give exactly one distinct lens per seat")
        bad = [lens for lens in slugs if not _LENS.match(lens)]
        if bad or len(set(slugs)) != len(slugs):
            raise BadArgs(f"lenses must be distinct lowercase slugs like security-architect; got {', '.join(slugs)}",
                          hint="letters, digits and '-', at most 48 characters")
        random.SystemRandom().shuffle(slugs)  # the lens↔seat assignment is random and private
        roles = [f"lens:{lens}" for lens in slugs]
        lens_of = list(slugs)
    return build_seats(models, roles=roles, lenses=lens_of)


def read_claude_review(path: str, *, question: bool = False) -> str:
    """Claude's own review (a question council: Claude's own answer), validated like any
    other — before anything is spent."""
    from ..council.answers import AnswerResult, validate_answer
    from ..council.findings import FindingsResult, validate_findings

    what = "answer" if question else "review"
    try:
        text = read_text(path, what=f"Claude's {what} file")
    except AmicusError as err:
        raise ClaudeReviewInvalid(err.message, hint=err.hint) from None
    result: AnswerResult | FindingsResult = validate_answer(text) if question else validate_findings(text)
    if not result["ok"]:
        problems = "; ".join(f"{e['code']}: {e['detail']}" for e in result["errors"][:3])
        hint = ("end it with a ```json block {answer, claims[], assumptions[], confidence}; check it with "
                "'amicus council validate --intent question'" if question else
                "end it with a ```json block {overall, findings[]}; check it with 'amicus council validate'")
        raise ClaudeReviewInvalid(f"Claude's {what} '{path}' is not a valid {what}: {problems}", hint=hint)
    return text


def check_run_dir(run_dir: RunDir, run_id: str) -> None:
    """A run directory is never reused: `--out-dir` may hold nothing, or this very run."""
    if run_dir.path.exists() and not run_dir.path.is_dir():
        raise BadArgs(f"--out-dir '{run_dir.path}' exists and is not a directory", hint="name a new folder")
    if run_dir.manifest_path.exists():
        try:
            other: str | None = run_dir.read().run_id
        except AmicusError:
            other = None
        if other != run_id:
            raise BadArgs(f"--out-dir '{run_dir.path}' already holds another run ({other or 'unreadable run.json'})",
                          hint="pick a new --out-dir; a run directory is never reused")
