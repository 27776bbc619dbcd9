"""A re-review: a run's findings matched to the findings of the run it re-reviews (its baseline).

Each finding of the new run is matched to at most one of the baseline's, location first, then
claim — the eval's order (eval/prefilter.py): a deterministic pre-filter on where a finding
points narrows the baseline to candidates, and the claims' words choose among them.

    location   same file, and (when both cite lines) line ranges within LINE_SLACK lines;
               a candidate is taken when the claims share at least LOCATED_SIMILARITY of
               their words (Jaccard over lower-cased word sets)
    claim      no located candidate: any baseline finding whose claim shares at least
               CLAIM_SIMILARITY of its words (the file may have been renamed or moved)

A matched new finding is **still open**; an unmatched one is **new**; a baseline finding no new
finding matched is **resolved**. Every decision is recorded with how it was made and the score,
so a reader can see why. Pairs are taken best score first, so one baseline finding is never
claimed twice. Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .locations import physical_location

LINE_SLACK = 3
LOCATED_SIMILARITY = 0.3
CLAIM_SIMILARITY = 0.6
STATUSES = ("new", "still-open", "resolved")


def _words(text: Any) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", str(text or "").lower()))


def similarity(a: Any, b: Any) -> float:
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


def _located(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    here, there = physical_location(str(new.get("location") or "")), physical_location(str(old.get("location") or ""))
    if here.path is None or here.path != there.path:
        return False
    if here.start is None or there.start is None:
        return True
    return (there.start - LINE_SLACK <= (here.end or here.start)
            and here.start <= (there.end or there.start) + LINE_SLACK)


def match_baseline(findings: Sequence[Mapping[str, Any]], baseline: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """{decisions: [{id, status, baselineId, by, score}], resolved: [{baselineId, claim, location}], counts}."""
    pairs: list[tuple[float, int, int, str]] = []
    for i, new in enumerate(findings):
        for j, old in enumerate(baseline):
            score = similarity(new.get("claim"), old.get("claim"))
            if _located(new, old) and score >= LOCATED_SIMILARITY:
                pairs.append((score + 1.0, i, j, "location"))  # a located match outranks any claim-only one
            elif score >= CLAIM_SIMILARITY:
                pairs.append((score, i, j, "claim"))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    taken_new: dict[int, tuple[int, str, float]] = {}
    taken_old: set[int] = set()
    for score, i, j, by in pairs:
        if i in taken_new or j in taken_old:
            continue
        taken_new[i] = (j, by, round(score - 1.0 if by == "location" else score, 3))
        taken_old.add(j)
    decisions = []
    for i, new in enumerate(findings):
        if i in taken_new:
            j, by, score = taken_new[i]
            decisions.append({"id": str(new.get("id")), "status": "still-open", "baselineId": str(baseline[j].get("id")),
                              "by": by, "score": score})
        else:
            decisions.append({"id": str(new.get("id")), "status": "new", "baselineId": None, "by": None, "score": None})
    resolved = [{"baselineId": str(old.get("id")), "severity": old.get("severity"), "tier": old.get("tier"),
                 "claim": old.get("claim"), "location": old.get("location")}
                for j, old in enumerate(baseline) if j not in taken_old]
    counts = {"new": sum(d["status"] == "new" for d in decisions),
              "still-open": sum(d["status"] == "still-open" for d in decisions), "resolved": len(resolved)}
    return {"decisions": decisions, "resolved": resolved, "counts": counts}


def rereview_line(doc: Mapping[str, Any]) -> str:
    counts = doc.get("counts") or {}
    return (f"Re-review against run {doc.get('baselineRunId')}: {counts.get('new', 0)} new, "
            f"{counts.get('still-open', 0)} still open, {counts.get('resolved', 0)} resolved")
