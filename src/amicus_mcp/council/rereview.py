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
claimed twice.

With a matcher model (`council run --baseline RUN --matcher MODEL`), the findings this pass
leaves **new** are put to it (council/matching.py, the eval's matcher): each with every baseline
finding this pass left unclaimed as its candidates — a reworded finding that moved shares
neither place nor words with its old self, so a narrower filter would hide exactly the pairs
the matcher is for. The location and claim matches stand (they are taken on a strong signal),
and a baseline finding is the match of one finding at most. The matcher's decisions are recorded
`by: "matcher"` with its reason (model output: one line, clipped, masked like every answer);
what it could not decide keeps this pass's decision. Everything here is a pure function of its
arguments.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..vocabulary import ESTIMATED_COST_SOURCES, DeterministicMatch, MatchedBy
from .locations import physical_location
from .matching import Frame, Question, Target, one_line

LINE_SLACK = 3
LOCATED_SIMILARITY = 0.3
CLAIM_SIMILARITY = 0.6
STATUSES = ("new", "still-open", "resolved")
# The most findings one matcher call is asked about (its prompt is bounded for pre-flight's price);
# beyond them, findings keep the location and claim decision, and the re-review says so.
MATCHER_QUESTIONS = 40

FRAME = Frame(
    title="Matching review findings to an earlier review's findings",
    intro=("The same material was reviewed twice: once before some changes (the *Earlier findings*) and\n"
           "once after them (the *Findings*). For each finding of the later review, decide which earlier\n"
           "finding it is again — the same problem still there — or none, when it is new."),
    rule=("A finding is an earlier finding again when it points at the same underlying problem — the same\n"
          "defect, in substance — even in other words, at a line that moved, in a file that was renamed, or\n"
          "with another severity. It is none when it is about something else or too vague to tell. A\n"
          "finding names at most one earlier finding, and an earlier finding is named by one finding at\n"
          'most: pick the closest. A finding may only be matched to the earlier findings listed after\n'
          '"may be matched to"; the others are matched already.'),
    targets_heading="Earlier findings", key="baseline", noun="earlier finding", schema_title="rereview_matches",
    unique=True, article="an")


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
    pairs: list[tuple[float, int, int, DeterministicMatch]] = []
    for i, new in enumerate(findings):
        for j, old in enumerate(baseline):
            score = similarity(new.get("claim"), old.get("claim"))
            if _located(new, old) and score >= LOCATED_SIMILARITY:
                pairs.append((score + 1.0, i, j, "location"))  # a located match outranks any claim-only one
            elif score >= CLAIM_SIMILARITY:
                pairs.append((score, i, j, "claim"))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    taken_new: dict[int, tuple[int, DeterministicMatch, float]] = {}
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


def targets(baseline: Sequence[Mapping[str, Any]]) -> list[Target]:
    """The baseline's findings as the matcher's targets: id, severity and location, and the claim."""
    out = []
    for old in baseline:
        where = str(old.get("location") or "no location given")
        out.append(Target(str(old.get("id")), f"{old.get('severity') or 'unrated'}; {one_line(where, 160)}",
                          str(old.get("claim") or "")))
    return out


def questions(findings: Sequence[Mapping[str, Any]], baseline: Sequence[Mapping[str, Any]],
              matched: Mapping[str, Any], most: int = MATCHER_QUESTIONS) -> tuple[list[Question], list[str]]:
    """The matcher's questions: each finding `matched` (match_baseline's result) left new, with the
    baseline findings it left unclaimed as candidates; and the ids beyond the `most` a call holds."""
    claimed = {d["baselineId"] for d in matched["decisions"] if d["baselineId"] is not None}
    free = tuple(str(old.get("id")) for old in baseline if str(old.get("id")) not in claimed)
    new_ids = {d["id"] for d in matched["decisions"] if d["status"] == "new"}
    asked = [Question(str(f.get("id")), str(f.get("severity") or "unrated"), str(f.get("location") or ""),
                      str(f.get("claim") or ""), str(f.get("rationale") or ""), free)
             for f in findings if str(f.get("id")) in new_ids] if free else []
    return asked[:most], [q.finding for q in asked[most:]]


def with_matcher(matched: Mapping[str, Any], answers: Mapping[str, tuple[str | None, str]]) -> dict[str, Any]:
    """match_baseline's result with the matcher's answers: a finding it matched is still open
    (`by: "matcher"`), one it matched to none stays new (`by: "matcher"` too); both keep its reason."""
    claimed = {d["baselineId"] for d in matched["decisions"] if d["baselineId"] is not None}
    decisions = []
    for d in matched["decisions"]:
        answer = answers.get(d["id"]) if d["status"] == "new" else None
        if answer is None:
            decisions.append(dict(d))
            continue
        target, reason = answer
        if target is not None and target in claimed:  # read_reply holds it to one finding; never twice here
            decisions.append(dict(d))
            continue
        if target is not None:
            claimed.add(target)
        by: MatchedBy = "matcher"
        decisions.append({"id": d["id"], "status": "still-open" if target is not None else "new",
                          "baselineId": target, "by": by, "score": None, "reason": one_line(reason, 300)})
    resolved = [r for r in matched["resolved"] if r["baselineId"] not in claimed]
    counts = {"new": sum(d["status"] == "new" for d in decisions),
              "still-open": sum(d["status"] == "still-open" for d in decisions), "resolved": len(resolved)}
    return {"decisions": decisions, "resolved": resolved, "counts": counts}


def matcher_line(doc: Mapping[str, Any]) -> str | None:
    """What the re-review's matcher did, in a line (None: the re-review had none)."""
    part = doc.get("matcher")
    if not isinstance(part, Mapping):
        return None
    cost = part.get("cost") or {}
    amount = cost.get("amount")
    approx = "~" if cost.get("source") in ESTIMATED_COST_SOURCES else ""  # an estimate says so, as a run's total does
    spent = "cost unknown" if amount is None else f"{approx}${amount:.4f}"
    if amount is not None and cost.get("unpricedLegs"):
        spent += f" (and {cost['unpricedLegs']} call(s) of unknown cost)"
    legs = part.get("legs", 0)
    return (f"Matcher {part.get('model')}: asked about {part.get('asked', 0)} finding(s) the location and claim pass "
            f"left new, decided {part.get('decided', 0)}; {legs} call{'' if legs == 1 else 's'}, {spent}")


def matcher_decisions(doc: Mapping[str, Any]) -> list[tuple[str, str | None, str]]:
    """(finding id, the baseline finding it is, or None, the matcher's reason) for each matcher decision."""
    return [(str(d.get("id")), d.get("baselineId"), str(d.get("reason") or ""))
            for d in doc.get("decisions") or [] if isinstance(d, Mapping) and d.get("by") == "matcher"]
