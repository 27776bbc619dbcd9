"""What a council run's legs need before anything is sent: room in each model's context window,
and room under the cost ceiling.

Pre-flight plans the run's waves — every seat's Stage-1 review, every judge's Stage-2 judgement,
the chair — with the prompt each leg will send: the Stage-1 briefing exactly, and for the later
stages a *bound*, since their prompts are made of answers not yet given (the briefing plus every
review at its output cap, `REVIEW_IN_BUNDLE` tokens for each token of review: the prose, its
findings restated and the findings index). Each plan is checked the same way for every seat,
judge and chair:

    context   a leg's prompt plus the smallest answer worth sending (its floor cap) must fit
              the model's catalog `contextLength`; the Stage-1 review cap is lowered so that
              every judge and the chair can read all the reviews; a run that cannot fit even
              so is refused with CONTEXT_LENGTH_EXCEEDED, naming the seat, its window and
              the estimate
    ceiling   the waves' reservations at their floors, summed, are the smallest ceiling that
              fits; a smaller `--max-cost` is refused with COST_CEILING_TOO_LOW, naming the
              ceiling, the reservation per leg and that smallest ceiling

Models with no known window (your own servers, the embedded model, an empty catalog, a catalog
entry without `contextLength`) are not window-checked here; a provider's "context length
exceeded" answer is still recognised as such. Pre-flight is not silent about either: the plan's
`notices` say when a prompt larger than `UNCHECKED_NOTICE_TOKENS` goes to a model whose window
is unknown, and when a reader's window lowered the Stage-1 review cap (who, and to what).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from ..council import briefings, question_briefings
from ..council.seats import Seat
from ..errors import ContextLengthExceeded, CostCeilingTooLow
from ..providers.catalog import Catalog, Pricing
from ..providers.cost import prompt_tokens, route_pricing
from ..providers.routing import Route
from ..vocabulary import LEG_STAGES, PLANNED_STAGES
from .budget import floor_cap, output_cap, reservation

REVIEW_IN_BUNDLE = 1.5  # bundle tokens per review token: its prose, its findings restated, the index
PER_REVIEW_TOKENS = 96  # a review's headings, labels, its ranking line and street-cred line
WAVES = PLANNED_STAGES  # the waves whose floors pre-flight holds, in run order
RUN_ORDER = LEG_STAGES  # every wave a run launches (a debate's and a verify's legs are not planned ahead)
WAVE_NAMES = {"stage1": "Stage 1", "stage2": "Stage 2", "verify": "the verifier", "chair": "the chair"}
ROLES = {"stage1": "seat", "stage2": "judge", "chair": "chair"}
# A prompt above this goes unchecked to a model of unknown window only with a notice: smaller
# prompts fit every window in common use (32K tokens and up), so saying so would be noise.
UNCHECKED_NOTICE_TOKENS = 32_000
MATCHER_FLOOR = "matcher"  # the budget wave whose floor is held for a re-review's matcher (engine/rereview.py)


def context_window(route: Route, catalog: Catalog) -> int | None:
    """The model's context window in tokens, from the catalog; None when it is not known."""
    model_id = route.pricing_id
    info = catalog.get(model_id) if model_id else None
    return info.context_length if info is not None else None


class PlannedLeg(NamedTuple):
    wave: str  # stage1 | stage2 | chair
    who: str  # the seat id, or the chair
    prompt_tokens: int  # exact for Stage 1, a bound after it
    pricing: Pricing | None
    window: int | None

    @property
    def floor(self) -> int:
        return floor_cap(self.wave, ROLES[self.wave])

    def floor_reservation(self) -> float:
        return reservation(self.prompt_tokens, self.pricing, self.floor)


class VerifyBound(NamedTuple):
    """`--verify`'s legs at their most: how many findings it may check is known only after the
    votes, so pre-flight bounds it — `--verify-max` findings, each a leg of up to `turns` turns (a
    verifier with tool calls: one per call and its answer), every turn's prompt at its bound."""

    findings: int  # --verify-max
    turns: int  # 1, or --verify-tool-calls + 1 where the chair's model supports tool calling
    prompt_tokens: int  # the bound of one turn's prompt (the tool results it may have read included)
    pricing: Pricing | None

    @property
    def floor(self) -> int:
        return floor_cap("verify", "verifier")

    def floor_reservation(self) -> float:
        """The most the verify stage reserves with every turn at its floor cap."""
        return self.findings * self.turns * reservation(self.prompt_tokens, self.pricing, self.floor)


class MatcherBound(NamedTuple):
    """A re-review's matcher (`--matcher`) at its most: how many findings it is asked about is known
    only after the votes, so pre-flight bounds it — every attempt (the call and its repair) with a
    prompt of the baseline's findings and the most questions a call holds, answered at its cap."""

    calls: int
    prompt_tokens: int
    pricing: Pricing | None
    cap: int  # its output cap, which is its floor (a matcher's answer is never shortened)
    questions: int  # the findings one call asks about: what its context window holds, at most MATCHER_QUESTIONS
    window: int | None  # the matcher's context window (None: not known, not checked)
    targets: int  # the baseline's findings, every one in each prompt

    def floor_reservation(self) -> float:
        return self.calls * reservation(self.prompt_tokens, self.pricing, self.cap)


class CapLimit(NamedTuple):
    """Who lowered the Stage-1 review cap: the reader whose window holds the fewest reviews."""

    who: str
    window: int
    wave: str  # stage2 | chair


class Unchecked(NamedTuple):
    """A model whose window is unknown, and the briefing it is sure to read (its first prompt)."""

    who: str
    prompt_tokens: int
    why: str


class RunPlan(NamedTuple):
    review_cap: int  # the Stage-1 review cap, lowered when a judge's or the chair's window needs it
    legs: tuple[PlannedLeg, ...]  # every wave at its floor (the bounds at floor review caps)
    cap_limit: CapLimit | None = None  # set when the review cap is below the stage's own
    unchecked: tuple[Unchecked, ...] = ()  # large prompts sent to models of unknown window
    verify: VerifyBound | None = None  # --verify: its legs' bound (they are not planned legs)
    matcher: MatcherBound | None = None  # --matcher: a re-review's matcher calls' bound (held back as `matcher`)

    @property
    def cap_lowered(self) -> bool:
        return self.cap_limit is not None and self.review_cap < output_cap("stage1", "seat")

    def cap_reason(self) -> str:
        """Why Stage-1 reviews are capped lower than the stage's own cap (cap_lowered)."""
        limit = self.cap_limit
        assert limit is not None
        reader = "the chair" if limit.wave == "chair" else f"the judge {limit.who}"
        return (f"Stage-1 reviews are capped at {self.review_cap:,} tokens instead of "
                f"{output_cap('stage1', 'seat'):,} so that {reader}, with a {limit.window:,}-token context "
                "window, can read every review")

    def notices(self) -> list[str]:
        """What pre-flight says of the plan before anything is sent (run.json `notices`)."""
        said = [f"{self.cap_reason()}; a review that needs more is cut at the lower cap"] if self.cap_lowered else []
        said += [f"{u.who} is sent the briefing (about {u.prompt_tokens:,} tokens; the reviews add to it after "
                 f"Stage 1) without a context-window check: {u.why}; if its window is smaller, that leg fails"
                 for u in self.unchecked]
        return said

    def floors(self) -> dict[str, float]:
        """Each wave's reservation with every leg at its floor cap."""
        floors: dict[str, float] = {wave: sum(leg.floor_reservation() for leg in self.legs if leg.wave == wave)
                                    for wave in WAVES}
        if self.verify is None:
            floors.pop("verify")
        else:
            floors["verify"] = self.verify.floor_reservation()
        if self.matcher is not None:
            floors[MATCHER_FLOOR] = self.matcher.floor_reservation()
        return floors

    def legs_after(self, wave: str) -> int:
        """The planned legs of the waves that run after `wave` (the run's planned total counts them)."""
        later = RUN_ORDER[RUN_ORDER.index(wave) + 1:]
        return sum(1 for leg in self.legs if leg.wave in later)

    def smallest_ceiling(self) -> float:
        """The smallest `--max-cost` that fits: every wave at its floor, rounded up to 1/100 cent."""
        return math.ceil(sum(self.floors().values()) * 10_000 - 1e-6) / 10_000


def plan_run(*, briefing: str, date: str, seats: Sequence[Seat], routes: Sequence[Route], chair: str,
             chair_route: Route, catalog: Catalog, claude_review: str | None = None,
             question: bool = False, verify: bool = False, verify_max: int = 1, verify_tool_calls: int = 0) -> RunPlan:
    """The run's plan, checked against every window; CONTEXT_LENGTH_EXCEEDED when it cannot fit.
    A question council's answers are planned like reviews (the same caps), from its own frames.
    With `verify`, the verifier's legs are bounded: `verify_max` findings, each with
    `verify_tool_calls` tool calls (0 where the chair's model takes no tools)."""
    stage1 = [prompt_tokens(len(stage1_prompt(briefing, date, seat, question=question))) for seat in seats]
    windows = [context_window(route, catalog) for route in routes]
    for seat, route, tokens, window in zip(seats, routes, stage1, windows):
        need = tokens + floor_cap("stage1", "seat")
        if window is not None and need > window:
            raise too_long(seat["id"], window, "the Stage-1 briefing", tokens, floor_cap("stage1", "seat"))
    extra = prompt_tokens(len(claude_review)) * REVIEW_IN_BUNDLE if claude_review is not None else 0.0
    reviews = len(seats) + (1 if claude_review is not None else 0)
    judge_base = prompt_tokens(len(empty_bundle(briefing, date, question=question)))
    chair_base = prompt_tokens(len(empty_chair_packet(briefing, date, question=question)))
    chair_window = context_window(chair_route, catalog)
    readers = [(seat["id"], window, judge_base, "stage2") for seat, window in zip(seats, windows)]
    readers.append((chair, chair_window, chair_base, "chair"))

    def bound(base: int, review_cap: int) -> int:
        return math.ceil(base + extra + reviews * (REVIEW_IN_BUNDLE * review_cap + PER_REVIEW_TOKENS))

    review_cap = output_cap("stage1", "seat")
    cap_limit: CapLimit | None = None
    for who, window, base, wave in readers:  # the largest review cap every reader can hold
        if window is None:
            continue
        room = window - floor_cap(wave, ROLES[wave]) - bound(base, 0)
        fits = math.floor(room / (reviews * REVIEW_IN_BUNDLE))
        if fits < review_cap:
            review_cap, cap_limit = fits, CapLimit(who, window, wave)
    if review_cap < floor_cap("stage1", "seat"):
        for who, window, base, wave in readers:
            tokens = bound(base, floor_cap("stage1", "seat"))
            if window is not None and tokens + floor_cap(wave, ROLES[wave]) > window:
                what = "the Stage-2 bundle" if wave == "stage2" else "the chair packet"
                raise too_long(who, window, f"{what} (the briefing and {reviews} reviews, each at its "
                               f"{floor_cap('stage1', 'seat'):,}-token floor)", tokens, floor_cap(wave, ROLES[wave]))
    verify_bound: VerifyBound | None = None
    if verify:  # --verify: the chair's model reads one finding and its excerpts (and what its tools read)
        tokens = verify_prompt_bound(date)
        if chair_window is not None and tokens + floor_cap("verify", "verifier") > chair_window:
            raise too_long(chair, chair_window, "a verifier prompt (one finding and its source excerpts)", tokens,
                           floor_cap("verify", "verifier"))
        verify_bound = VerifyBound(verify_max, verify_tool_calls + 1, tokens + tool_reads_bound(verify_tool_calls),
                                   route_pricing(chair_route, catalog))
    at_floor = floor_cap("stage1", "seat")
    legs = [PlannedLeg("stage1", seat["id"], tokens, route_pricing(route, catalog), window)
            for seat, route, tokens, window in zip(seats, routes, stage1, windows)]
    legs += [PlannedLeg("stage2", seat["id"], bound(judge_base, at_floor), route_pricing(route, catalog), window)
             for seat, route, window in zip(seats, routes, windows)]
    legs.append(PlannedLeg("chair", chair, bound(chair_base, at_floor), route_pricing(chair_route, catalog),
                           chair_window))
    cap = max(review_cap, at_floor)
    # What each model of unknown window is sure to read: the briefing (a seat's Stage-1 prompt,
    # the chair's packet before any review is in it) — the reviews only add to it.
    briefed = [(seat["id"], route, window, tokens) for seat, route, tokens, window in zip(seats, routes, stage1, windows)]
    briefed.append((chair, chair_route, chair_window, chair_base))
    unchecked = tuple(Unchecked(who, tokens, unknown_window(route, catalog))
                      for who, route, window, tokens in briefed if window is None and tokens > UNCHECKED_NOTICE_TOKENS)
    return RunPlan(review_cap=cap, legs=tuple(legs), cap_limit=cap_limit, unchecked=unchecked, verify=verify_bound)


def unknown_window(route: Route, catalog: Catalog) -> str:
    """Why a model's context window is not known, in words."""
    model_id = route.pricing_id
    if model_id and catalog.get(model_id) is not None:
        return f"the model catalog lists '{model_id}' with no contextLength"
    if model_id and not catalog.is_empty:
        return f"the model catalog has no entry for '{model_id}'"
    if model_id:
        return "the model catalog could not be read"
    return "its provider is not in the model catalog, and amicus knows no window for it"


def check_ceiling(plan: RunPlan, ceiling: float | None) -> None:
    """COST_CEILING_TOO_LOW when the ceiling cannot hold every wave at its floor."""
    if ceiling is None:
        return
    floors = plan.floors()
    if sum(floors.values()) <= ceiling:
        return
    parts = []
    for wave in WAVES:
        legs = [leg for leg in plan.legs if leg.wave == wave]
        if wave == "verify" and plan.verify is not None:
            bound = plan.verify
            turns = f" of up to {bound.turns} turns each" if bound.turns > 1 else ""
            parts.append(f"{WAVE_NAMES[wave]} up to {bound.findings} leg(s){turns} (--verify-max {bound.findings}), "
                         f"${bound.floor_reservation():.4f} in all ({bound.floor:,}-token answers)")
        if legs:
            dearest = max(leg.floor_reservation() for leg in legs)
            parts.append(f"{WAVE_NAMES[wave]} {len(legs)} leg(s) of up to ${dearest:.4f} each "
                         f"({legs[0].floor:,}-token answers)")
    if plan.matcher is not None:
        matcher = plan.matcher
        parts.append(f"the re-review's matcher up to {matcher.calls} call(s), ${matcher.floor_reservation():.4f} in "
                     f"all ({matcher.cap:,}-token answers)")
    smallest = plan.smallest_ceiling()
    raise CostCeilingTooLow(
        f"the --max-cost ${ceiling:g} ceiling cannot hold this run even with every answer at its smallest "
        f"output cap: it reserves {'; '.join(parts)}, ${sum(floors.values()):.4f} in all. "
        f"The smallest ceiling that fits is ${smallest:.4f}",
        hint=f"raise --max-cost to at least {smallest:.4f}, or pick cheaper models or fewer seats"
             + (" (or a lower --verify-max or --verify-tool-calls)" if plan.verify is not None else ""),
    )


def too_long(who: str, window: int, what: str, tokens: int, floor: int) -> ContextLengthExceeded:
    return ContextLengthExceeded(
        f"'{who}' has a {window:,}-token context window, and {what} is about {tokens:,} tokens, "
        f"plus at least {floor:,} for its answer",
        hint="shorten the briefing or the artifact (review it in parts), or pick models with a larger "
             "context window (contextLength in the model catalog)",
    )


def verify_prompt_bound(date: str) -> int:
    """The most a verifier prompt holds: its frame, a finding's fields at their model-text bound and
    the excerpts at their cut (engine/verify.py). How many findings it checks is known only after
    the votes, so its legs claim the ceiling as they launch rather than being planned here."""
    from ..council.verification import MAX_EXCERPT_CHARS, verifier_prompt

    long = "x" * 2000
    frame = verifier_prompt({"id": "A1", "severity": "blocker", "location": long, "evidence": long},
                            {"tier": "Confirmed", "claim": long}, "x" * MAX_EXCERPT_CHARS, date=date)
    return prompt_tokens(len(frame))


def tool_reads_bound(calls: int) -> int:
    """What `calls` tool calls can add to a verifier's prompt at most, its turns at their floor cap:
    each result at its cut with its label and fence, the over-budget errors of the one turn that may
    overrun, and every calling turn's own output (the calls), sent back (engine/source_tools.py)."""
    if calls <= 0:
        return 0
    from ..providers.openai_compat import MAX_TOOL_CALLS_READ
    from .source_tools import MAX_RESULT_CHARS, TOOLS_SPENT

    results = calls * (MAX_RESULT_CHARS + 400) + MAX_TOOL_CALLS_READ * 200 + len(TOOLS_SPENT)
    return prompt_tokens(results) + calls * floor_cap("verify", "verifier")


def stage1_prompt(briefing: str, date: str, seat: Seat, *, question: bool = False) -> str:
    """The Stage-1 brief a seat is sent (stage1.brief_for, without writing it)."""
    if question:
        return question_briefings.question_briefing(
            briefing, date=date, stance=question_briefings.question_stance(seat["role"], seat["lens"]))
    return briefings.seat_briefing(briefing, date=date, stance=briefings.seat_stance(seat["role"], seat["lens"]))


def empty_bundle(briefing: str, date: str, *, question: bool = False) -> str:
    if question:
        return question_briefings.answers_bundle(briefing=briefing, date=date, answers=[], details={}, claims=[])
    return briefings.judge_bundle(briefing=briefing, date=date, reviews=[], findings=[])


def empty_chair_packet(briefing: str, date: str, *, question: bool = False) -> str:
    if question:
        return question_briefings.question_chair_packet(briefing=briefing, date=date, record={"findings": []},
                                                        ranking=[], answers=[], rankings=[])
    return briefings.chair_packet(briefing=briefing, date=date, record={"findings": [], "streetCred": []},
                                  findings=[], reviews=[], rankings=[])
