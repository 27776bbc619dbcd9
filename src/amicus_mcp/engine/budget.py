"""The whole-run cost ceiling (`--max-cost`): it bounds KNOWN spend and never blocks a run.

Every paid launch first *claims* its estimate against what is left (ceiling − known spend −
claims of launches still in flight). Claiming is synchronous — no await between the check and
the reservation — so two concurrent launches can never both spend the same remaining dollars.
Each claim is a bound, not a guess: the prompt plus the stage's output cap (`OUTPUT_CAPS`
below), and the leg sends that cap as `max_tokens`.
A refused launch is not made; the run goes on with what it has. A leg whose cost is unknown
adds nothing to the known figure and is counted instead: with a ceiling set, an inexact total
degrades the run (exit 2), because the figure it was checked against is only a floor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..providers.cost import rollup, usage_from_doc


@dataclass
class Claim:
    amount: float
    settled: bool = False


@dataclass
class Budget:
    ceiling: float | None
    known: float = 0.0
    claimed: float = 0.0
    usages: list[Any] = field(default_factory=list)  # every settled leg's usage doc (or None)

    def claim(self, estimate: float | None) -> Claim | None:
        """Reserve `estimate` (an unpriced launch reserves 0); None means refused."""
        amount = estimate or 0.0
        if self.ceiling is not None and self.known + self.claimed + amount > self.ceiling:
            return None
        self.claimed += amount
        return Claim(amount)

    def settle(self, claim: Claim | None, usage: dict[str, Any] | None) -> None:
        """Replace a claim by what the leg really cost (once)."""
        if claim is not None and not claim.settled:
            self.claimed -= claim.amount
            claim.settled = True
        self.usages.append(usage)
        parsed = usage_from_doc(usage)
        if parsed is not None and parsed.cost_amount is not None:
            self.known += parsed.cost_amount

    @property
    def exhausted(self) -> bool:
        return self.ceiling is not None and self.known >= self.ceiling

    def usage_block(self) -> dict[str, Any]:
        """run.json `usage`: the rollup over every council leg, plus whether it is exact."""
        total = rollup(self.usages)
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
}


def output_cap(stage: str, role: str) -> int:
    """The `max_tokens` a council leg sends; a Stage-1 seat of any role (critic, lens) reviews."""
    key = (stage, "review") if stage == "stage1" and role != "repair" else (stage, role)
    return OUTPUT_CAPS[key]
