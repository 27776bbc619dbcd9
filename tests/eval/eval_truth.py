"""A bench of known recall over the shipped suite, and the figures an eval of it must give.

`truth(suite)` configures what three fake models raise on every case (tests/fakeprovider.py
`KnownRecall`): which planted flaws each finds, how the judges vote on each finding, which
false claims each adds, one true finding whose location points elsewhere, the chair's verdict
per case. `expected(...)` computes, from that configuration alone — never from the scorer —
the recall per seat and for the council, the tier counts, the Confirmed-tier precision, the
false alarms and the verdict accuracy an eval of it must report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeprovider import Claim

from amicus_mcp.eval.suite import Case, Suite

BENCH = ["fake/a", "fake/b", "fake/c"]
CHAIR, MATCHER = "fake/chair", "fake/matcher"
# Flaw k of a case lands in this tier: the votes every other judge gives its findings.
VOTES_BY_INDEX = ("agree", "split", "neutral", "dispute")
TIER_OF_VOTES = {"agree": "Confirmed", "split": "Contested", "neutral": "Singleton", "dispute": "Disputed"}
WRONG_VERDICT = ("orders-status-migration", "Ship it")  # the chair gets this case wrong
NO_VERDICT = "retry-client-diff"  # the chair never gives a VERDICT line here
MISPLACED = ("rate-limiter-diff", "fake/c")  # this seat's true finding cites a line far from its flaw


@dataclass
class Truth:
    reviews: dict[str, dict[str, list[Claim]]]
    verdicts: dict[str, str | None]
    misplaced: set[str] = field(default_factory=set)  # claim texts the pre-filter must not place


def finds(seat: str, k: int, n: int) -> bool:
    """Which flaws (index k of n) each fake model finds."""
    return {"fake/a": k % 2 == 0, "fake/b": k % 3 == 0, "fake/c": k == n - 1}[seat]


def fabricated(case: Case, seat: str) -> str:
    """A quote no artifact holds: what a seat that fabricates its evidence gives."""
    return f"{case.id}: assert_never_written_by_anyone({BENCH.index(seat) + 1})"


def real_quote(case: Case, line: int) -> str | None:
    """The artifact's own text at `line` (or the first non-blank line after it), verbatim."""
    lines = case.artifact_raw.decode("utf-8").splitlines()
    for text in lines[line - 1:]:
        if len(text.strip()) >= 4:
            return text
    return None


def _anchor_location(case: Case, k: int) -> str | None:
    flaw = case.doc.plantedFlaws[k]
    return f"the part about `{flaw.location.anchors[0]}`" if flaw.location.anchors else None


def truth(suite: Suite) -> Truth:
    t = Truth(reviews={}, verdicts={})
    for case in suite.cases:
        per: dict[str, list[Claim]] = {seat: [] for seat in BENCH}
        flaws = case.doc.plantedFlaws
        for k, flaw in enumerate(flaws):
            for seat in BENCH:
                if not finds(seat, k, len(flaws)):
                    continue
                first = flaw.location.ranges()[0][0]
                location = f"line {first}"
                if seat == "fake/b" and k == 0 and _anchor_location(case, k):
                    location = _anchor_location(case, k) or location  # placed by its anchor, not a line
                text = f"{case.id} {flaw.id} is a real problem (view {BENCH.index(seat) + 1})"
                if (case.id, seat) == MISPLACED and k == len(flaws) - 1:
                    location = "line 2"  # nowhere near the flaw: the pre-filter leaves it unmatched
                    t.misplaced.add(text)
                per[seat].append(Claim(text=text, location=location, severity=flaw.severity, flaw=flaw.id,
                                       votes=VOTES_BY_INDEX[k % 4], evidence=real_quote(case, first)))
        near = f"line {flaws[0].location.ranges()[0][0]}" if flaws else "line 3"
        # Every false claim of a and c fabricates its quote; b's gives none (issue 30's known rate).
        per["fake/a"].append(Claim(f"something false about {case.id} (view 1)", near, "major", None, "agree",
                                   evidence=fabricated(case, "fake/a")))
        per["fake/b"].append(Claim(f"something false about {case.id} (view 2)", "the introduction", "minor",
                                   None, "dispute"))
        per["fake/c"].append(Claim(f"something false about {case.id} (view 3)", "line 9999", "blocker", None,
                                   "neutral", evidence=fabricated(case, "fake/c")))
        t.reviews[case.id] = per
        t.verdicts[case.id] = case.doc.expectedVerdict
    t.verdicts[WRONG_VERDICT[0]] = WRONG_VERDICT[1]
    t.verdicts[NO_VERDICT] = None
    return t


def expected(suite: Suite, t: Truth) -> dict[str, Any]:
    """The figures an eval of this truth must report, computed from the configuration alone."""
    seat_found = {seat: 0 for seat in BENCH}
    planted = 0
    tiers = {"Confirmed": 0, "Contested": 0, "Singleton": 0, "Disputed": 0, "Missed": 0}
    found_total = 0
    by_severity: dict[str, list[int]] = {}
    for case in suite.cases:
        if case.clean:
            continue
        for flaw in case.doc.plantedFlaws:
            planted += 1
            hits = [(seat, c) for seat, claims in t.reviews[case.id].items() for c in claims
                    if c.flaw == flaw.id and c.text not in t.misplaced]
            for seat in {s for s, _ in hits}:
                seat_found[seat] += 1
            sev = by_severity.setdefault(flaw.severity, [0, 0])
            sev[1] += 1
            if hits:
                found_total += 1
                sev[0] += 1
                strongest = min((TIER_OF_VOTES[c.votes] for _, c in hits),
                                key=["Confirmed", "Contested", "Singleton", "Disputed"].index)
                tiers[strongest] += 1
            else:
                tiers["Missed"] += 1
    confirmed = [c for per in t.reviews.values() for claims in per.values() for c in claims if c.votes == "agree"]
    matched = [c for c in confirmed if c.flaw is not None and c.text not in t.misplaced]
    clean = [case for case in suite.cases if case.clean]
    alarms = [c for case in clean for claims in t.reviews[case.id].values() for c in claims
              if c.severity in ("blocker", "major")]
    seat_alarm_cases = {seat: sum(1 for case in clean if any(c.severity in ("blocker", "major")
                                                              for c in t.reviews[case.id][seat])) for seat in BENCH}
    verdicts = [(t.verdicts[c.id], c.doc.expectedVerdict) for c in suite.cases]
    return {
        "planted": planted, "seatFound": seat_found, "councilFound": found_total, "tiers": tiers,
        "bySeverity": {sev: tuple(v) for sev, v in by_severity.items()},
        "confirmedMatched": len(matched), "confirmedUnmatched": len(confirmed) - len(matched),
        "cleanCases": len(clean), "falseAlarms": len(alarms),
        "confirmedAlarms": sum(1 for c in alarms if c.votes == "agree"),
        "casesWithAlarm": sum(1 for case in clean if any(c.severity in ("blocker", "major")
                                                         for claims in t.reviews[case.id].values() for c in claims)),
        "seatAlarmCases": seat_alarm_cases,
        "seatAlarms": {seat: sum(1 for case in clean for c in t.reviews[case.id][seat]
                                 if c.severity in ("blocker", "major")) for seat in BENCH},
        "verdictsCorrect": sum(1 for got, want in verdicts if got == want),
        "verdictsNone": sum(1 for got, _ in verdicts if got is None),
        "verdictsWrong": sum(1 for got, want in verdicts if got is not None and got != want),
        "findings": {seat: sum(len(t.reviews[c.id][seat]) for c in suite.cases) for seat in BENCH},
        # Confirmed precision by evidence: a real quote is found (verified, or moved when the stated
        # line is not where the run's material numbers it), a fabricated one is not, none is absent.
        "confirmedByQuote": _by_quote([c for c in confirmed], t),
        "alarmsByQuote": _by_quote(alarms, t),
        # With --verify: the Confirmed findings by the verifier's answer (it checks the blocker and
        # major ones, and refutes exactly those whose quote is fabricated).
        "confirmedByAnswer": _by_answer(confirmed, t),
    }


def _by_answer(claims: list[Claim], t: Truth) -> dict[str, tuple[int, int]]:
    def answer(c: Claim) -> str:
        if c.severity not in ("blocker", "major"):
            return "unverified"
        return "refuted" if quote_kind(c) == "not-found" else "holds"

    out: dict[str, tuple[int, int]] = {}
    for name in ("holds", "refuted", "unsure", "unverified"):
        group = [c for c in claims if answer(c) == name]
        matched = sum(1 for c in group if c.flaw is not None and c.text not in t.misplaced)
        out[name] = (matched, len(group) - matched)
    return out


def quote_kind(claim: Claim) -> str:
    """What the evidence check must find for a claim's quote: `found`, `not-found` or `absent`."""
    if claim.evidence is None:
        return "absent"
    return "not-found" if "assert_never_written_by_anyone" in claim.evidence else "found"


def _by_quote(claims: list[Claim], t: Truth) -> dict[str, tuple[int, int]]:
    """quote kind → (matched, unmatched) among `claims`."""
    out: dict[str, tuple[int, int]] = {}
    for kind_ in ("found", "not-found", "absent"):
        group = [c for c in claims if quote_kind(c) == kind_]
        matched = sum(1 for c in group if c.flaw is not None and c.text not in t.misplaced)
        out[kind_] = (matched, len(group) - matched)
    return out


def titles(suite: Suite) -> Mapping[str, str]:
    return {c.id: c.doc.title for c in suite.cases}
