"""The matcher's leg: one paid call that matches findings to targets (council/matching.py), and
at most one repair for what its reply left unanswered. The eval (a case's findings to its planted
flaws) and the re-review (`council run --baseline --matcher`: a run's findings to its baseline's)
both run it here.

Each call claims its reservation from the caller's `Budget` first (the run's, or what an eval's
councils left of the suite's ceiling): the matcher's answer is a list of short decisions, so its
output cap is its floor, never shortened, and a call the ceiling cannot hold is refused, not made.
Its cost is settled from the provider's usage (unknown stays unknown: `cost()` is null then).
Every prompt and reply is written beside the caller's other files (`matcher-prompt.md`,
`matcher-output.md`; `-2` for the repair), the reply masked like every model answer.

Nothing here decides what an unanswered finding is: `run_matcher` returns the answers it could
read and, in `losses`, what it could not do and why; the caller falls back on its own
deterministic decision and names the loss.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

import anyio

from ..council import matching
from ..council.matching import Frame, Question, Reading, Target
from ..fsio import atomic_write_json, atomic_write_text
from ..providers.base import Message, Usage
from ..providers.cost import prompt_tokens, route_pricing, rollup, usage_from_doc
from ..providers.routing import Route
from .budget import Budget
from .limits import context_window
from .run_dir import MATCHER_CALL, MATCHER_OUTPUT, MATCHER_PROMPT
from .store import now_iso

if TYPE_CHECKING:
    from ..documents.usage import LegUsageDoc, RolledCostDoc
    from ..providers.catalog import Catalog
    from ..providers.routing import ProviderRegistry

MATCHER_OUTPUT_CAP = 8_000
ATTEMPTS = 2  # the first call and one repair

LossKind = Literal["refused", "failed", "unanswered"]


class Loss(NamedTuple):
    kind: LossKind  # refused: the ceiling could not hold a call; failed: no reply; unanswered: unreadable
    detail: str


@dataclass
class MatcherLeg:
    """Who answers and what pays: the matcher's model and route, the budget it claims from."""

    model: str
    route: Route
    catalog: Catalog
    registry: ProviderRegistry
    budget: Budget
    timeout_s: float
    directory: Path  # where its prompts and replies are written
    wave: str | None = None  # the budget's wave whose floor was held for it (a run's)
    calls_at: Path | None = None  # a run's legs/: each call is recorded there (MATCHER_CALL) for a resume
    attempt: int = 0  # the run's attempt (0, then one more per resume)


class MatcherCall(NamedTuple):
    """One call made, as a run's cost table shows it (a runStats row of its own)."""

    status: Literal["complete", "error"]
    duration_ms: int
    usage: LegUsageDoc | None  # None: the provider reported none


@dataclass
class MatcherOutcome:
    answers: dict[str, tuple[str | None, str]] = field(default_factory=dict)  # finding → (target, reason)
    legs: int = 0  # calls made (a refused one is not made)
    usages: list[Usage | None] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    calls: list[MatcherCall] = field(default_factory=list)  # each call made, in order

    def cost(self) -> RolledCostDoc:
        """What the calls cost: amount null when no call had a known cost."""
        return rollup(self.usages)["cost"]


async def run_matcher(leg: MatcherLeg, frame: Frame, targets: Sequence[Target],
                      questions: Sequence[Question]) -> MatcherOutcome:
    """Ask the matcher about `questions`; once more about what its reply left unanswered."""
    outcome = MatcherOutcome()
    if not questions:
        return outcome
    if leg.wave is not None:
        leg.budget.open_wave(leg.wave, 1)
    pending = list(questions)
    text = matching.prompt(frame, targets, pending)
    for attempt in range(1, ATTEMPTS + 1):
        reading = await _call(leg, outcome, frame, [t.id for t in targets], text, pending, attempt)
        if reading is None:
            return outcome
        outcome.answers.update(reading.answers)
        pending = _unanswered(frame, questions, outcome.answers)
        if not pending:
            return outcome
        if attempt == ATTEMPTS:
            shown = "; ".join(matching.one_line(p, 160) for p in reading.problems[:3])
            outcome.losses.append(Loss("unanswered", f"{len(pending)} finding(s) left unanswered after a repair "
                                                     f"({shown})"))
            return outcome
        text = matching.repair_prompt(frame, targets, reading.problems, pending)
    return outcome


def _unanswered(frame: Frame, questions: Sequence[Question], answers: dict[str, tuple[str | None, str]]) -> list[Question]:
    """The questions still open; where a target matches one finding at most, without the targets taken."""
    taken = {target for target, _ in answers.values() if target is not None} if frame.unique else set()
    left = []
    for q in questions:
        if q.finding in answers:
            continue
        candidates = tuple(c for c in q.candidates if c not in taken)
        left.append(q._replace(candidates=candidates))
    return left


async def _call(leg: MatcherLeg, outcome: MatcherOutcome, frame: Frame, target_ids: list[str], text: str,
                pending: list[Question], attempt: int) -> Reading | None:
    from .waves import call_route

    suffix = "" if attempt == 1 else f"-{attempt}"
    leg.directory.mkdir(parents=True, exist_ok=True)
    atomic_write_text(leg.directory / MATCHER_PROMPT.format(suffix=suffix), text)
    tokens, window = prompt_tokens(len(text)), context_window(leg.route, leg.catalog)
    if window is not None and tokens + MATCHER_OUTPUT_CAP > window:  # never an over-long prompt
        outcome.losses.append(Loss("failed", f"the matcher's {'call' if attempt == 1 else 'repair'} was not sent: its "
                                             f"prompt (about {tokens:,} tokens) and its {MATCHER_OUTPUT_CAP:,}-token "
                                             f"answer do not fit its {window:,}-token context window"))
        return None
    claim = leg.budget.claim(wave=leg.wave, first=attempt == 1, prompt_tokens=tokens,
                             pricing=route_pricing(leg.route, leg.catalog), cap=MATCHER_OUTPUT_CAP,
                             floor=MATCHER_OUTPUT_CAP)
    if claim is None:
        outcome.losses.append(Loss("refused", "the --max-cost ceiling had no room left for the matcher's "
                                              + ("call" if attempt == 1 else "repair")))
        return None
    outcome.legs += 1
    record = (leg.calls_at / MATCHER_CALL.format(attempt=leg.attempt, call=attempt)) if leg.calls_at else None
    started_at = now_iso()
    _record(record, started_at, claim.amount, "running", None)  # on disk before the request goes
    taken = ({t: f for f, (t, _) in outcome.answers.items() if t is not None} if frame.unique else None)
    started = time.monotonic()
    try:
        completion = await call_route(leg.registry, leg.route, (Message("user", text),), timeout_s=leg.timeout_s,
                                      json_schema=matching.reply_schema(frame, pending, target_ids),
                                      max_tokens=MATCHER_OUTPUT_CAP)
    except anyio.get_cancelled_exc_class():  # an abort: the call may have been billed, its cost is unknown
        leg.budget.settle(claim, None)
        outcome.usages.append(None)
        raise
    except Exception as exc:  # noqa: BLE001 - a failed matcher call is the caller's loss to name
        usage = getattr(exc, "usage", None)
        usage_doc: LegUsageDoc | None = usage.to_doc() if usage is not None else None
        leg.budget.settle(claim, usage_doc)
        outcome.usages.append(usage_from_doc(usage_doc) if usage_doc else None)
        outcome.calls.append(MatcherCall("error", _since(started), usage_doc))
        _record(record, started_at, claim.amount, "error", usage_doc)
        raw = getattr(exc, "text", None)
        message = getattr(exc, "message", None) or type(exc).__name__
        atomic_write_text(leg.directory / MATCHER_OUTPUT.format(suffix=suffix), raw or f"(no reply: {message})\n")
        if raw:  # the model answered, in a shape the provider refused: read what it said
            return matching.read_reply(frame, raw, None, pending, taken)
        outcome.losses.append(Loss("failed", f"the matcher call failed ({matching.one_line(message, 200)})"))
        return None
    leg.budget.settle(claim, completion.usage.to_doc())
    outcome.usages.append(completion.usage)
    outcome.calls.append(MatcherCall("complete", _since(started), completion.usage.to_doc()))
    _record(record, started_at, claim.amount, "complete", completion.usage.to_doc())
    atomic_write_text(leg.directory / MATCHER_OUTPUT.format(suffix=suffix), completion.text)
    reading = matching.read_reply(frame, completion.text, completion.structured, pending, taken)
    if completion.finish_reason == "length" and reading.problems:  # say why, so the repair answers shorter
        reading.problems.insert(0, f"TRUNCATED: the reply was cut at its {MATCHER_OUTPUT_CAP:,}-token cap; keep "
                                   "each reason to one short line")
    return reading


def _since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


def _record(path: Path | None, started_at: str, reserved: float, status: Literal["running", "complete", "error"],
            usage: LegUsageDoc | None) -> None:
    """A run's record of one matcher call (documents/legs.py MatcherCallRecord), written whole."""
    if path is None:
        return
    from ..documents.legs import MatcherCallRecord

    doc = MatcherCallRecord.model_validate({"startedAt": started_at, "reserved": round(reserved, 10), "status": status,
                                            **({"usage": usage} if usage is not None else {})})
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(path, doc.to_doc())
