"""The deterministic tally: tally input → council-tally record.

Pure and byte-stable: the same input always gives the same record. Optional keys are emitted
only when set (`raiserSeat`, `location`, `claim`, `evidence`, `evidenceCheck`, `evidenceLocation`,
`sameModelCorroboration`,
`unattributedPeerDrops`, `debate`, street-cred `seat`), so a document from a bench with no
repeated alias is identical to one written before those keys existed. The ledger append is a
separate step (`ledger.append_ledger`), so the tally itself never touches a file.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, cast

from ..documents.tally import check_tally_input
from ..vocabulary import TIERS
from .evidence import GROUND_FIELDS
from .report import format_money
from .street_cred import street_cred
from .tiers import assign_tier, peer_basis

if TYPE_CHECKING:
    from ..documents.council import RunStatRow, ScoredFinding, TallyRecord, TierCounts, VoteEntry

TALLY_SCHEMA_VERSION: Final = 2

# runStats rows are echoed in this key order; the two defaulted keys say "not reported".
_RUNSTAT_KEYS = (
    "model", "role", "wasChair", "conformance", "findingsUnverified", "repairRefused",
    "waveId", "resolvedModel", "seat", "status", "durationMs", "ttftMs", "usage",
)
_RUNSTAT_DEFAULTS: dict[str, object] = {
    "role": "council", "wasChair": False, "conformance": "clean",
    "status": "unknown", "durationMs": None, "usage": None,
}
_RUNSTAT_FLAGS = ("findingsUnverified", "repairRefused")
_RUNSTAT_EMIT_WHEN_SET = ("waveId", "resolvedModel", "seat", "ttftMs")


def tally(tally_input: Any) -> TallyRecord:
    """Compute the tally record. Raises `BadArgs` when the input is not a valid tally input."""
    with _collector_paused():
        return _tally(tally_input)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The tally builds only acyclic dicts and lists, so the cyclic garbage collector has
    nothing to find; left on, its full passes over a large input make the cost superlinear."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _tally(tally_input: Any) -> TallyRecord:
    check_tally_input(tally_input)
    meta = tally_input["meta"]
    votes_by_finding: dict[str, list[Mapping[str, Any]]] = {}
    for vote in tally_input["adjudications"]:
        votes_by_finding.setdefault(vote["findingId"], []).append(vote)

    findings = [_score(f, votes_by_finding.get(f["id"], [])) for f in tally_input["findings"]]
    tier_counts = cast("TierCounts", dict.fromkeys(TIERS, 0))
    for finding in findings:
        tier_counts[finding["tier"]] += 1

    return {
        "schemaVersion": TALLY_SCHEMA_VERSION,
        "type": "council-tally",
        "meta": meta,
        "judged": len(tally_input["rankings"]) >= 2,
        "streetCred": street_cred(meta, tally_input["rankings"]),
        "findings": findings,
        "runStats": [normalize_run_stat(row) for row in tally_input.get("runStats", [])],
        "tierCounts": tier_counts,
    }


def _score(finding: Mapping[str, Any], votes: list[Mapping[str, Any]]) -> ScoredFinding:
    basis = peer_basis(finding, votes)
    tier, confidence = assign_tier(basis.a, basis.d)
    override = finding.get("tierOverride")
    out: dict[str, object] = {  # built open (its optional keys by name), in the family's key order
        "id": finding["id"],
        "raiser": finding.get("raiser"),
        "severity": finding.get("severity"),
        "tier": tier,
        "basis": basis.as_dict(),
        "confidence": confidence,
        "tierOverride": override if isinstance(override, dict) else None,
        "adjudications": [_vote_entry(v) for v in votes],
    }
    for key in ("raiserSeat", "location", "claim", *GROUND_FIELDS):
        if finding.get(key) is not None:
            out[key] = finding[key]
    if basis.same_model_corroboration:
        out["sameModelCorroboration"] = True
    if basis.unattributed_drops > 0:
        out["unattributedPeerDrops"] = basis.unattributed_drops
    if isinstance(finding.get("debate"), dict):
        out["debate"] = finding["debate"]
    return cast("ScoredFinding", out)


def _vote_entry(vote: Mapping[str, Any]) -> VoteEntry:
    # Per vote (2·10⁵ on a large run): built as its type, `judge` first when the vote names one.
    entry: VoteEntry = {"judge": vote["judge"], "verdict": vote["verdict"]} if "judge" in vote \
        else {"verdict": vote["verdict"]}
    if vote.get("seat") is not None:
        entry["seat"] = vote["seat"]
    return entry


def normalize_run_stat(row: Mapping[str, Any]) -> RunStatRow:
    """A runStats row in the family's key order, defaults filled, unknown keys dropped."""
    out: dict[str, object] = {}
    for key in _RUNSTAT_KEYS:
        if key == "ttftMs":  # kept only as a non-negative integer (0 included); anything else is dropped
            value = row.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                out[key] = value
        elif key in _RUNSTAT_FLAGS:  # a leg's flag, kept only as a boolean (as ttftMs only as a count)
            if isinstance(row.get(key), bool):
                out[key] = row[key]
        elif key in _RUNSTAT_EMIT_WHEN_SET:
            if row.get(key) is not None:
                out[key] = row[key]
        elif row.get(key) is not None:
            out[key] = row[key]
        else:
            out[key] = _RUNSTAT_DEFAULTS[key] if key != "model" else row.get("model")
    return cast("RunStatRow", out)


def total_cost(run_stats: Sequence[Mapping[str, Any]]) -> tuple[float | None, int]:
    """(sum of known leg costs or None when none is known, number of unpriced rows)."""
    known: list[float] = []
    unpriced = 0
    for row in run_stats:
        usage = row.get("usage")
        cost = usage.get("cost") if isinstance(usage, Mapping) else None
        amount = cost.get("amount") if isinstance(cost, Mapping) else None
        if isinstance(amount, (int, float)) and not isinstance(amount, bool):
            known.append(float(amount))
        else:
            unpriced += 1
    return (sum(known) if known else None), unpriced


def render_tally_summary(record: TallyRecord) -> str:
    """The human summary `amicus council tally` prints."""
    counts = record["tierCounts"]
    width = max(len(t) for t in TIERS)
    lines = [f"Council tally ({record['meta']['runId']})"]
    lines += [f"  {tier.ljust(width)}  {counts[tier]}" for tier in TIERS]
    if not record["judged"]:
        lines.append("  (judged: false — fewer than 2 rankings; street-cred rests on thin cross-review)")
    if record["runStats"]:
        amount, unpriced = total_cost(record["runStats"])
        cost = "?" if amount is None else format_money(amount)
        suffix = f" (+{unpriced} unpriced)" if unpriced and amount is not None else ""
        lines.append(f"  Cost: {cost}{suffix}")
    return "\n".join(lines)

