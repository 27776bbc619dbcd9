"""Scoring: the recorded decisions and the councils' own documents → the `eval` document.

Pure: everything comes in as arguments (the suite, each case's run.json, tally.json and
matcher decisions, the eval's manifest and options) and the same inputs give the same
document, byte for byte — which is how `amicus eval score DIR` reproduces eval.json.

The figures, over the cases whose council produced a tally ("scored"; a case with none is
"lost", named, and left out of every denominator):

- recall — planted flaws found / planted, per seat (a flaw is found by a seat when one of its
  findings was matched to it) and for the council (found by any seat), by severity, and by
  tier: each planted flaw counts once, at the strongest tier any finding matched to it reached
  (Confirmed > Contested > Singleton > Disputed), or Missed;
- precision per tier, above all Confirmed: matched vs unmatched findings. An unmatched
  finding is not called false — it may be a real flaw nobody planted;
- false alarms — blocker and major findings on clean cases, per seat and for the council;
- chair verdict accuracy against each case's expected verdict;
- cost (councils and matching) and wall time, per case and in total;
- per seat and per model, the mean peers-only street-cred earned in these runs beside the
  measured recall, so a reader can see whether peer agreement tracks correctness.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from ..documents.run import RunManifest
from ..engine import parse_iso
from ..schemas import JsonObject
from ..vocabulary import CEILING_ERROR_CODES, EVIDENCE_CHECKS, REFUTED, SEVERITIES, TIERS, VERDICT_SCALE, VERIFICATIONS, Tier
from .documents import (CaseResult, CouncilResult, EvalDocument, EvalLedgerRow, EvalManifest, EvalRunOptions,
                        FalseAlarms, FindingCounts, FindingResult, FlawResult, MatchesDocument, ModelResult, Money,
                        Precision, Ratio, SeatResult, SuiteSummary, TierPrecision, Totals, Verdicts)
from .report_md import counted
from .suite import Case, Suite

ALARM_SEVERITIES = SEVERITIES[:2]  # blocker, major: on a clean case, a false alarm
UNMATCHED_NOTE = ("An unmatched finding is not necessarily wrong: it may be a real flaw nobody planted. "
                  "Read the unmatched Confirmed findings before calling them noise.")


class CaseInputs(NamedTuple):
    """What one case left on disk: its council's run.json and tally.json, and the decisions."""

    case: Case
    run: RunManifest | None
    tally: Mapping[str, Any] | None
    matches: MatchesDocument | None


# --------------------------------------------------------------------------- small helpers

def rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _ratio(found: int, planted: int, undecided: int) -> Ratio:
    """A recall; with `undecided` findings that might have found more, it is only a floor."""
    return Ratio(found=found, planted=planted, rate=rate(found, planted), undecided=undecided)


def _mean(values: Sequence[float]) -> float | None:
    return round(math.fsum(values) / len(values), 4) if values else None


def _money(amounts: Sequence[tuple[float | None, int]]) -> Money:
    known = [a for a, _ in amounts if a is not None]
    return Money(amount=round(math.fsum(known), 6) if known else None, unpricedLegs=sum(u for _, u in amounts))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def finding_seat(finding: Mapping[str, Any]) -> str:
    return str(finding.get("raiserSeat") or finding.get("raiser") or "")


def _strongest(tiers: Sequence[str | None]) -> Tier | None:
    ranked = [t for t in TIERS if t in tiers]
    return ranked[0] if ranked else None


def _run_cost(run: RunManifest | None) -> tuple[float | None, int]:
    usage = run.usage if run is not None else None
    return (_number(usage.cost.amount), usage.unknown_legs) if usage is not None else (None, 0)


def _wall_ms(run: RunManifest | None, extra_ms: int | None) -> int | None:
    if run is None or run.created_at is None or run.completed_at is None:
        return None
    try:
        started, ended = parse_iso(run.created_at), parse_iso(run.completed_at)
    except ValueError:
        return None
    return int((ended - started).total_seconds() * 1000) + (extra_ms or 0)


def _seat_cost(runs: Sequence[RunManifest], seat: str) -> Money:
    amounts = []
    for run in runs:
        for leg in run.legs:
            if leg.seat == seat and leg.finished:
                amount = _number(leg.usage.cost.amount) if leg.usage is not None else None
                amounts.append((amount, 0 if amount is not None else 1))
    return _money(amounts)


def _street_cred(tally: Mapping[str, Any], seat: str, alias: str) -> float | None:
    rows = [_dict(r) for r in _list(tally.get("streetCred"))]
    seated = [r for r in rows if r.get("seat") == seat]
    chosen = seated or [r for r in rows if r.get("model") == alias and "seat" not in r]
    values = [v for v in (_number(r.get("peersOnly")) for r in chosen) if v is not None]
    return math.fsum(values) / len(values) if values else None


def _resolved(tally: Mapping[str, Any], alias: str) -> str | None:
    for row in _list(tally.get("runStats")):
        row = _dict(row)
        if row.get("model") == alias and row.get("role") in ("seat", "critic") and row.get("resolvedModel"):
            return str(row["resolvedModel"])
    for row in _list(tally.get("runStats")):
        row = _dict(row)
        if row.get("model") == alias and str(row.get("role", "")).startswith("lens:") and row.get("resolvedModel"):
            return str(row["resolvedModel"])
    return None


# --------------------------------------------------------------------------- one case

@dataclass
class _Scored:
    inputs: CaseInputs
    doc: CaseResult
    findings: list[FindingResult]
    open: dict[str, list[str]] = field(default_factory=dict)  # undecided finding id → its candidate flaws

    def undecided(self, seats: set[str] | None = None, severity: str | None = None) -> int:
        """Undecided findings (of `seats`; all when None) that might have found a flaw the figure
        counts as missed — one of them is what makes a recall only a floor."""
        if self.inputs.case.clean:
            return 0
        flaws = {f.id: f for f in self.doc.flaws}
        count = 0
        for finding in self.findings:
            if finding.id not in self.open or (seats is not None and finding.seat not in seats):
                continue
            for candidate in self.open[finding.id]:
                flaw = flaws.get(candidate)
                missed = flaw is not None and (not flaw.findings if seats is None
                                               else not set(flaw.foundBy) & seats)
                if missed and flaw is not None and (severity is None or flaw.severity == severity):
                    count += 1
                    break
        return count


def share_note(ceiling: float | None, cases: int) -> str:
    """What a case council's --max-cost was: its share of the suite's (what the user typed)."""
    if ceiling is None or not cases:
        return ""
    return f" (its ceiling was its even share, ${ceiling / cases:.4f}, of the suite's --max-cost ${ceiling:g})"


def _lost_reason(run: RunManifest | None, ceiling_note: str = "") -> str:
    if run is None:
        return "its council never started"
    if run.error is not None:
        note = ceiling_note if run.error.code in CEILING_ERROR_CODES else ""
        return f"its council ended {run.status}: {run.error.code}: {run.error.message}{note}"
    return f"its council ended {run.status} without a tally"


def score_case(inputs: CaseInputs, seat_order: Sequence[str], ceiling_note: str = "") -> _Scored:
    case, run, tally, matches = inputs.case, inputs.run, inputs.tally, inputs.matches
    doc = CaseResult(
        caseId=case.id, kind=case.doc.kind, title=case.doc.title, clean=case.clean,
        scored=tally is not None and matches is not None, lostReason=None,
        runId=run.run_id if run else None, runStatus=run.status if run else None,
        expectedVerdict=case.doc.expectedVerdict, verdict=None, verdictCorrect=None,
        plantedFlaws=len(case.doc.plantedFlaws), found=0, flaws=[],
        findingCounts=FindingCounts(total=0, matched=0, unmatched=0, undecided=0), findings=[],
        falseAlarms=0,
        cost=_money([_run_cost(run), *([(matches.usage.amount, matches.usage.unpricedLegs)] if matches else [])]),
        wallMs=_wall_ms(run, matches.durationMs if matches else None),
    )
    if tally is None or matches is None:
        doc.lostReason = _lost_reason(run, ceiling_note)
        doc.flaws = [FlawResult(id=f.id, severity=f.severity, flawClass=f.flaw_class, tier=None, foundBy=[],
                                findings=[]) for f in case.doc.plantedFlaws]
        return _Scored(inputs, doc, [])
    decisions = {d.finding: d for d in matches.decisions}
    findings = []
    for f in _list(tally.get("findings")):
        f = _dict(f)
        decision = decisions[str(f.get("id"))]
        tier = f.get("tier")
        check, verification = f.get("evidenceCheck"), f.get("verification")
        findings.append(FindingResult(
            id=str(f.get("id")), seat=finding_seat(f), severity=str(f.get("severity")),
            tier=tier if tier in TIERS else None,
            claim=str(f.get("claim") or ""), location=str(f.get("location") or ""),
            flaw=decision.flaw, by=decision.by, placement=decision.placement, reason=decision.reason,
            evidenceCheck=check if check in EVIDENCE_CHECKS else None,
            verification=verification if verification in VERIFICATIONS else None))
    for flaw in case.doc.plantedFlaws:
        hits = [f for f in findings if f.flaw == flaw.id]
        seats = {f.seat for f in hits}
        doc.flaws.append(FlawResult(id=flaw.id, severity=flaw.severity, flawClass=flaw.flaw_class,
                                    tier=_strongest([f.tier for f in hits]),
                                    foundBy=[s for s in seat_order if s in seats] + sorted(seats - set(seat_order)),
                                    findings=[f.id for f in hits]))
    doc.found = sum(1 for f in doc.flaws if f.findings)
    doc.findingCounts = _counts(findings)
    doc.findings = findings
    open_ = {d.finding: list(d.candidates) for d in matches.decisions if d.by == "undecided"}
    if case.clean:
        doc.falseAlarms = sum(1 for f in findings if f.severity in ALARM_SEVERITIES)
    verdict = run.overall_verdict if run is not None else None
    if verdict in VERDICT_SCALE:
        doc.verdict = verdict
        doc.verdictCorrect = verdict == case.doc.expectedVerdict
    return _Scored(inputs, doc, findings, open_)


# --------------------------------------------------------------------------- seats and models

def bench_seats(inputs: Sequence[CaseInputs], fallback: Sequence[str]) -> list[tuple[str, str]]:
    """(seat id, alias) of the bench, in seat order, from the first run that lists them."""
    for item in inputs:
        seats = [(s.id, s.alias) for s in (item.run.seats or [] if item.run is not None else [])]
        if seats:
            return seats
    return [(m, m) for m in fallback]


def _findings_of(scored: Sequence[_Scored], seat: str) -> list[FindingResult]:
    return [f for s in scored for f in s.findings if f.seat == seat]


def _counts(findings: Sequence[FindingResult]) -> FindingCounts:
    matched = sum(1 for f in findings if f.flaw is not None)
    undecided = sum(1 for f in findings if f.by == "undecided")
    return FindingCounts(total=len(findings), matched=matched, unmatched=len(findings) - matched - undecided,
                         undecided=undecided)


def _seat_result(seat: str, alias: str, scored: Sequence[_Scored]) -> SeatResult:
    flawed = [s for s in scored if not s.inputs.case.clean]
    clean = [s for s in scored if s.inputs.case.clean]
    planted = sum(len(s.doc.flaws) for s in flawed)
    found = sum(1 for s in flawed for f in s.doc.flaws if seat in f.foundBy)
    alarms = [[f for f in s.findings if f.seat == seat and f.severity in ALARM_SEVERITIES] for s in clean]
    creds = [c for c in (_street_cred(_dict(s.inputs.tally), seat, alias) for s in scored) if c is not None]
    resolved = next((r for r in (_resolved(_dict(s.inputs.tally), alias) for s in scored) if r), None)
    with_alarm = sum(1 for a in alarms if a)
    return SeatResult(
        seat=seat, model=alias, resolvedModel=resolved,
        recall=_ratio(found, planted, sum(s.undecided({seat}) for s in flawed)),
        findings=_counts(_findings_of(scored, seat)),
        falseAlarms=sum(len(a) for a in alarms), cleanCases=len(clean), cleanCasesWithAlarm=with_alarm,
        falseAlarmRate=rate(with_alarm, len(clean)), streetCredPeersOnly=_mean(creds),
        cost=_seat_cost([s.inputs.run for s in scored if s.inputs.run is not None], seat),
    )


def _model_result(alias: str, seats: Sequence[str], scored: Sequence[_Scored],
                  seat_rows: Sequence[SeatResult]) -> ModelResult:
    """A model's figures: its seats together (a twin bench's seats count as one model)."""
    flawed = [s for s in scored if not s.inputs.case.clean]
    clean = [s for s in scored if s.inputs.case.clean]
    planted = sum(len(s.doc.flaws) for s in flawed)
    found = sum(1 for s in flawed for f in s.doc.flaws if set(f.foundBy) & set(seats))
    alarms = [[f for f in s.findings if f.seat in seats and f.severity in ALARM_SEVERITIES] for s in clean]
    rows = [r for r in seat_rows if r.seat in seats]
    creds = [r.streetCredPeersOnly for r in rows if r.streetCredPeersOnly is not None]
    with_alarm = sum(1 for a in alarms if a)
    return ModelResult(
        model=alias, resolvedModel=next((r.resolvedModel for r in rows if r.resolvedModel), None),
        seats=list(seats), recall=_ratio(found, planted, sum(s.undecided(set(seats)) for s in flawed)),
        falseAlarms=sum(len(a) for a in alarms), cleanCasesWithAlarm=with_alarm,
        falseAlarmRate=rate(with_alarm, len(clean)), streetCredPeersOnly=_mean(creds),
        cost=_money([(r.cost.amount, r.cost.unpricedLegs) for r in rows]),
    )


# --------------------------------------------------------------------------- the council

def _council(scored: Sequence[_Scored]) -> CouncilResult:
    flaws = [f for s in scored if not s.inputs.case.clean for f in s.doc.flaws]
    found = [f for f in flaws if f.findings]
    by_severity = {sev: _ratio(sum(1 for f in found if f.severity == sev),
                               sum(1 for f in flaws if f.severity == sev),
                               sum(s.undecided(severity=sev) for s in scored)) for sev in SEVERITIES}
    by_tier: dict[str, int] = {tier: sum(1 for f in flaws if f.tier == tier) for tier in TIERS}
    by_tier["Missed"] = len(flaws) - len(found)
    unrefuted_recall = None
    if any(f.verification for s in scored for f in s.findings):  # a --verify eval
        kept = {(s.doc.caseId, f.flaw) for s in scored for f in s.findings
                if f.flaw is not None and f.verification != REFUTED}
        unrefuted = sum(1 for s in scored if not s.inputs.case.clean for f in s.doc.flaws
                        if (s.doc.caseId, f.id) in kept)
        unrefuted_recall = _ratio(unrefuted, len(flaws), sum(s.undecided() for s in scored))
    return CouncilResult.model_validate({"recall": _ratio(len(found), len(flaws), sum(s.undecided() for s in scored)),
                                         "recallUnrefuted": unrefuted_recall, "bySeverity": by_severity,
                                         "byTier": by_tier})


UNVERIFIED = "unverified"  # a finding the verifier never answered on (not picked, or no usable answer)
Make = TypeVar("Make")


def _tier_precision(findings: Sequence[FindingResult]) -> TierPrecision:
    counts = _counts(findings)
    return TierPrecision(findings=counts.total, matched=counts.matched, unmatched=counts.unmatched,
                         undecided=counts.undecided, rate=rate(counts.matched, counts.matched + counts.unmatched))


def _splits(findings: Sequence[FindingResult],
            make: Callable[[Sequence[FindingResult]], Make]) -> tuple[dict[str, Make] | None, dict[str, Make] | None]:
    """`make(subset)` per evidence check and per verifier answer, each given only when the
    runs recorded one (an eval of runs before evidence reads as it did): (evidence, verification)."""
    evidence: dict[str, Make] | None = None
    verification: dict[str, Make] | None = None
    if any(f.evidenceCheck for f in findings):
        evidence = {c: make([f for f in findings if f.evidenceCheck == c]) for c in EVIDENCE_CHECKS}
    if any(f.verification for f in findings):
        verification = {v: make([f for f in findings if (f.verification or UNVERIFIED) == v])
                        for v in (*VERIFICATIONS, UNVERIFIED)}
    return evidence, verification


def _precision(scored: Sequence[_Scored]) -> Precision:
    findings = [f for s in scored for f in s.findings]
    by_tier = {tier: _tier_precision([f for f in findings if f.tier == tier]) for tier in TIERS}
    evidence, verification = _splits([f for f in findings if f.tier == "Confirmed"], _tier_precision)
    return Precision(byTier=by_tier, confirmed=by_tier["Confirmed"], note=UNMATCHED_NOTE,
                     confirmedByEvidence=evidence, confirmedByVerification=verification)


def _false_alarms(scored: Sequence[_Scored]) -> FalseAlarms:
    clean = [s for s in scored if s.inputs.case.clean]
    alarms = [[f for f in s.findings if f.severity in ALARM_SEVERITIES] for s in clean]
    evidence, verification = _splits([f for a in alarms for f in a], len)
    return FalseAlarms(cleanCases=len(clean), findings=sum(len(a) for a in alarms),
                       confirmed=sum(1 for a in alarms for f in a if f.tier == "Confirmed"),
                       casesWithAlarm=sum(1 for a in alarms if a), byEvidence=evidence, byVerification=verification)


def _verdicts(scored: Sequence[_Scored]) -> Verdicts:
    correct = sum(1 for s in scored if s.doc.verdictCorrect is True)
    wrong = sum(1 for s in scored if s.doc.verdictCorrect is False)
    none = sum(1 for s in scored if s.doc.verdict is None)
    return Verdicts(cases=len(scored), correct=correct, wrong=wrong, noVerdict=none, accuracy=rate(correct, len(scored)))


def _totals(cases: Sequence[_Scored], manifest: EvalManifest) -> Totals:
    councils = _money([_run_cost(c.inputs.run) for c in cases])
    matching = _money([(c.inputs.matches.usage.amount, c.inputs.matches.usage.unpricedLegs)
                       for c in cases if c.inputs.matches is not None])
    total = _money([(councils.amount, councils.unpricedLegs), (matching.amount, matching.unpricedLegs)])
    wall = None
    if manifest.completedAt is not None:
        wall = int((parse_iso(manifest.completedAt) - parse_iso(manifest.createdAt)).total_seconds() * 1000)
    return Totals(cost=total, councils=councils, matching=matching, wallMs=wall)


def _notes(cases: Sequence[_Scored], precision: Precision) -> list[str]:
    notes = []
    lost = [c for c in cases if not c.doc.scored]
    if lost:
        notes.append(f"{counted(len(lost), 'case')} produced no tally and {'is' if len(lost) == 1 else 'are'} "
                     "left out of every figure: "
                     + "; ".join(f"{c.doc.caseId} ({c.doc.lostReason})" for c in lost))
    undecided = sum(c.doc.findingCounts.undecided for c in cases)
    if undecided:
        notes.append(f"{counted(undecided, 'finding')} got no usable answer from the matcher: "
                     f"{'it counts' if undecided == 1 else 'they count'} as matched to nothing, so recall is a floor")
    if precision.confirmed.unmatched:
        notes.append(UNMATCHED_NOTE)
    no_verdict = [c.doc.caseId for c in cases if c.doc.scored and c.doc.verdict is None]
    if no_verdict:
        notes.append(f"no chair verdict on {counted(len(no_verdict), 'case')}: {', '.join(no_verdict)}")
    return notes


# --------------------------------------------------------------------------- the document

def score(manifest: EvalManifest, options: EvalRunOptions, suite: Suite,
          inputs: Sequence[CaseInputs]) -> EvalDocument:
    """The eval document (its JSON: `eval_json`)."""
    seats = bench_seats(inputs, manifest.models)
    seat_order = [s for s, _ in seats]
    ceiling = options.bench.get("maxCost")  # the suite's, as eval-options.json records it
    note = share_note(float(ceiling) if isinstance(ceiling, (int, float)) else None, len(inputs))
    cases = [score_case(item, seat_order, note) for item in inputs]
    scored = [c for c in cases if c.doc.scored]
    seat_rows = [_seat_result(seat, alias, scored) for seat, alias in seats]
    aliases: dict[str, list[str]] = {}
    for seat, alias in seats:
        aliases.setdefault(alias, []).append(seat)
    bench = options.bench
    precision = _precision(scored)
    return EvalDocument.model_validate({
        "schemaVersion": 2, "type": "eval", "evalId": manifest.id, "createdAt": manifest.createdAt,
        "completedAt": manifest.completedAt, "status": manifest.status, "suite": _suite_summary(suite, inputs),
        "bench": {"seats": [{"seat": s, "model": a} for s, a in seats], "chair": manifest.chair,
                  "matcher": manifest.matcher, "critic": bench.get("critic"), "lenses": bench.get("lenses"),
                  "debate": bool(bench.get("debate")), "maxCost": bench.get("maxCost")},
        "casesScored": len(scored), "casesLost": len(cases) - len(scored),
        "council": _council(scored), "seats": seat_rows,
        "models": [_model_result(alias, members, scored, seat_rows) for alias, members in aliases.items()],
        "precision": precision, "falseAlarms": _false_alarms(scored), "verdicts": _verdicts(scored),
        "totals": _totals(cases, manifest), "cases": [c.doc for c in cases], "notes": _notes(cases, precision),
        "tag": manifest.tag,
    })


def eval_json(doc: EvalDocument) -> JsonObject:
    """eval.json: the document's JSON, keys in the model's order.

    The grounding figures are emitted only when the runs recorded them (issue 30), so an eval
    of runs before evidence is byte-identical to one scored before they existed."""
    out = doc.model_dump(mode="json", by_alias=True)
    for key in ("recallUnrefuted",):
        if out["council"].get(key) is None:
            out["council"].pop(key, None)
    for key in ("confirmedByEvidence", "confirmedByVerification"):
        if out["precision"].get(key) is None:
            out["precision"].pop(key, None)
    for key in ("byEvidence", "byVerification"):
        if out["falseAlarms"].get(key) is None:
            out["falseAlarms"].pop(key, None)
    for case in out["cases"]:
        for finding in case["findings"]:
            for key in ("evidenceCheck", "verification"):
                if finding.get(key) is None:
                    finding.pop(key, None)
    return out


def _suite_summary(suite: Suite, inputs: Sequence[CaseInputs]) -> SuiteSummary:
    """The suite as this eval ran it (a `--case` selection runs part of it)."""
    ran = [item.case for item in inputs]
    flawed = [c for c in ran if not c.clean]
    return SuiteSummary(name=suite.doc.name, version=suite.doc.version, sha256=suite.sha256, cases=len(ran),
                        cleanCases=len(ran) - len(flawed), plantedFlaws=sum(len(c.doc.plantedFlaws) for c in flawed),
                        kinds=sorted({c.doc.kind for c in ran}))


# --------------------------------------------------------------------------- the eval ledger

def ledger_rows(doc: EvalDocument) -> list[EvalLedgerRow]:
    """One eval-ledger row per model of an eval document: counts and rates, no content."""
    return [EvalLedgerRow(
        evalId=doc.evalId, date=doc.completedAt or doc.createdAt, suite=doc.suite.name,
        suiteVersion=doc.suite.version, suiteSha256=doc.suite.sha256, model=model.model,
        resolvedModel=model.resolvedModel, seats=len(model.seats), casesScored=doc.casesScored,
        plantedFlaws=model.recall.planted, found=model.recall.found, recall=model.recall.rate,
        undecided=model.recall.undecided, cleanCases=doc.falseAlarms.cleanCases, falseAlarms=model.falseAlarms,
        cleanCasesWithAlarm=model.cleanCasesWithAlarm, falseAlarmRate=model.falseAlarmRate,
        streetCredPeersOnly=model.streetCredPeersOnly, tag=doc.tag or None) for model in doc.models]
