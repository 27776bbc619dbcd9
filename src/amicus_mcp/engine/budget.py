"""The whole-run cost ceiling (`--max-cost`): it bounds KNOWN spend, and it never overshoots.

Every paid launch first *claims* its reservation against what is left (ceiling − known spend −
claims of launches still in flight − reservations of legs lost in flight − the floors held back
for the planned waves still to come). Claiming is synchronous — no await between the check and
the reservation — so two concurrent launches can never both spend the same remaining dollars.

Each claim is a bound, not a guess: the prompt plus the leg's output cap, and the leg sends that
cap as `max_tokens`. The cap is the stage's full cap (`OUTPUT_CAPS`) when the ceiling has room
for it, else what the leg's share of the room pays for, down to the stage's *floor* (one sixteenth
of the full cap): the legs of a wave share the room equally, so a tight ceiling makes every
answer shorter rather than refusing the last seats; when an equal share is below the floor, the
legs are admitted at their floor while the room lasts. A leg whose floor does not fit is refused
(not made) and the run goes on with what it has.

Pre-flight (limits.py) plans the run's waves — Stage 1, Stage 2, the chair — at their floors:
their sum is the smallest ceiling that fits, and a smaller one is refused before anything is
spent (COST_CEILING_TOO_LOW). While the run goes, the floors of the waves still to come are held
back, so Stage 1 can never spend what Stage 2 and the chair need to launch at all.

A leg whose cost is unknown adds nothing to the known figure and is counted instead; a leg that
was in flight when an earlier process of the run died (`council resume`) was probably billed, so
its reservation stays held and it counts as unknown — the reservation is the most its provider
could have billed (its prompt plus the `max_tokens` it was sent), and no generation record can be
asked for a reply that never arrived. With a ceiling set, an inexact total degrades the run
(exit 2), because the figure it was checked against is only a floor.

When the ceiling stops a run, its error says what was counted (`spent`) and the smallest ceiling
that would let the rest run at its floors (`ceiling_for`); `council resume --max-cost` raises the
ceiling of a stopped run, and the legs it finished are reused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..providers.catalog import Pricing
from ..providers.cost import rollup, usage_from_doc

if TYPE_CHECKING:
    from ..documents.usage import LegUsageDoc, RunUsageDoc

FLOOR_DIVISOR = 16  # a leg's floor cap is its full cap over this: a 1,000-token review, a 750-token judgement


def reservation(prompt_tokens: int, pricing: Pricing | None, cap: int) -> float:
    """What a leg reserves: its prompt plus `cap` output tokens ($0 when it has no price)."""
    if pricing is None:
        return 0.0
    return pricing.prompt * prompt_tokens + pricing.completion * cap


def fitted_cap(room: float, prompt_tokens: int, pricing: Pricing | None, cap: int) -> int:
    """The largest output cap up to `cap` whose reservation fits in `room` (-1 when not even
    the prompt fits)."""
    prompt = reservation(prompt_tokens, pricing, 0)
    if prompt > room:
        return -1
    if pricing is None or pricing.completion <= 0:
        return cap
    return min(cap, math.floor((room - prompt) / pricing.completion + 1e-9))


@dataclass
class Claim:
    amount: float
    cap: int  # the output cap the leg sends as `max_tokens`
    settled: bool = False


@dataclass
class Budget:
    ceiling: float | None
    known: float = 0.0
    claimed: float = 0.0
    held: float = 0.0  # reservations of legs lost in flight by an earlier attempt: maybe billed
    lost: int = 0  # how many such legs (each one unknown in the usage block)
    usages: list[LegUsageDoc | None] = field(default_factory=list)  # every settled leg's usage doc (or None)
    floors: dict[str, float] = field(default_factory=dict)  # planned waves not yet opened → floor
    pending: dict[str, int] = field(default_factory=dict)  # opened waves → first legs yet to claim

    def open_wave(self, wave: str, legs: int) -> None:
        """`legs` first legs of `wave` are about to claim: they share the room, and the wave's
        floor is no longer held back (its own legs claim it now)."""
        self.floors.pop(wave, None)
        self.pending[wave] = legs

    def room(self, wave: str | None = None) -> float:
        """What a launch of `wave` may claim: the ceiling less everything spent, claimed, held,
        and the floors of the planned waves still to come."""
        if self.ceiling is None:
            return math.inf
        later = sum(floor for name, floor in self.floors.items() if name != wave)
        return self.ceiling - self.known - self.claimed - self.held - later

    def claim(self, *, wave: str | None, first: bool, prompt_tokens: int, pricing: Pricing | None,
              cap: int, floor: int) -> Claim | None:
        """Reserve a leg: its share of the room pays for an output cap up to `cap`; None means
        refused (not even `floor` fits). `first`: the wave's own leg, not a repair or a retry."""
        share_of = 1
        if first and wave is not None and self.pending.get(wave, 0) > 0:
            share_of = self.pending[wave]
            self.pending[wave] -= 1
        if self.ceiling is not None and pricing is not None:
            room = self.room(wave)
            fitted = fitted_cap(room / share_of, prompt_tokens, pricing, cap)
            if fitted < floor:  # an equal share is too small: admit what the room holds at the floor
                fitted = floor if fitted_cap(room, prompt_tokens, pricing, floor) >= floor else -1
            if fitted < floor:
                return None
            cap = fitted
        elif self.ceiling is not None and self.room(wave) < 0:
            return None  # unpriced, so it reserves nothing: refused only once the room is overdrawn
        amount = reservation(prompt_tokens, pricing, cap)
        self.claimed += amount
        return Claim(amount, cap)

    def skip(self, wave: str | None, first: bool) -> None:
        """A first leg of `wave` that will not claim (reused from disk, or not sent)."""
        if first and wave is not None and self.pending.get(wave, 0) > 0:
            self.pending[wave] -= 1

    def settle(self, claim: Claim | None, usage: LegUsageDoc | None) -> None:
        """Replace a claim by what the leg really cost (once)."""
        if claim is not None and not claim.settled:
            self.claimed -= claim.amount
            claim.settled = True
        self.usages.append(usage)
        parsed = usage_from_doc(usage)
        if parsed is not None and parsed.cost_amount is not None:
            self.known += parsed.cost_amount

    def release(self, claim: Claim) -> None:
        """Drop a claim whose spend another settles (a tool-calling leg's later turns: the leg
        settles once, with every turn's usage summed)."""
        if not claim.settled:
            self.claimed -= claim.amount
            claim.settled = True

    def hold(self, amount: float) -> None:
        """A leg an earlier attempt lost in flight: the provider probably finished and billed
        it, so its reservation keeps counting and its cost is unknown."""
        self.held += amount
        self.lost += 1

    def spent(self) -> str:
        """What counts against the ceiling so far, in words: the known spend, and what legs lost
        in flight reserved (they may have been billed)."""
        held = (f" (and ${self.held:.4f} reserved by legs lost in flight, which may have been billed)"
                if self.held else "")
        return f"known spend ${self.known:.4f}{held}"

    def ceiling_for(self, still: float) -> float:
        """The smallest ceiling that leaves `still` (the floors of the legs yet to run) beside
        everything already counted, rounded up to 1/100 cent: what a shortfall asks for."""
        return math.ceil((self.known + self.held + self.claimed + still) * 10_000 - 1e-6) / 10_000

    @property
    def exhausted(self) -> bool:
        return self.ceiling is not None and self.known + self.held >= self.ceiling

    def usage_block(self) -> RunUsageDoc:
        """run.json `usage`: the rollup over every council leg, plus whether it is exact."""
        total = rollup([*self.usages, *([None] * self.lost)])
        unknown = total["cost"]["unpricedLegs"]
        return {"cost": total["cost"], "tokens": total["tokens"], "unknownLegs": unknown,
                "subtreeUnknownLegs": 0, "costExact": unknown == 0}


# --- per-leg output caps: what a claim reserves and what the leg sends as `max_tokens` ------
#
# A reasoning model's thinking counts as output, so each cap leaves room for a thorough
# answer *and* the thinking before it; a reply cut at the cap is recorded as truncated.
#   review    16k — prose plus a findings block for a whole artifact, after long thinking
#   judgement 12k — a ranking and one vote per finding, with reasons
#   chair     12k — a synthesis, hard questions and the VERDICT line
#   defense    6k — a short answer per debated finding the seat raised
#   re-vote    6k — one verdict and reason per debated finding
#   repair     8k — re-emit one block (a Stage-1 or judge repair); 4k for a VERDICT line or a
#                   debate block, which are shorter still
OUTPUT_CAPS: dict[tuple[str, str], int] = {
    ("stage1", "review"): 16_000,
    ("stage1", "repair"): 8_000,
    ("stage2", "judge"): 12_000,
    ("stage2", "repair"): 8_000,
    ("chair", "chair"): 12_000,
    ("chair", "repair"): 4_000,
    ("debate", "rebuttal"): 6_000,
    ("debate", "revote"): 6_000,
    ("debate", "repair"): 4_000,
    ("verify", "verifier"): 4_000,  # a short check of one finding against its source, and the answer block
    ("verify", "repair"): 2_000,
}


def output_cap(stage: str, role: str) -> int:
    """The `max_tokens` a council leg sends; a Stage-1 seat of any role (critic, lens) reviews."""
    key = (stage, "review") if stage == "stage1" and role != "repair" else (stage, role)
    return OUTPUT_CAPS[key]


def floor_cap(stage: str, role: str) -> int:
    """The smallest cap a leg is sent with: below it an answer is not worth paying for."""
    return output_cap(stage, role) // FLOOR_DIVISOR
