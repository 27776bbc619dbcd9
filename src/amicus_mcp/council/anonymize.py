"""Anonymization for Stage 2, and the way back for the tally.

Reviews get labels `Review A`, `Review B`, … in bench order (a question council's answers
`Answer A`, `Answer B`, …), and every finding a run-global id (the review's letter + its local
id: `B2` is Review B's second finding; an answer's key claims are its findings). Judges see only
labels; the label map (label → alias, label → seat) stays with the engine and goes into
`run.json`, never into a prompt. `tally_input` turns the judges' label-space answers back into
the model-space tally input.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from typing_extensions import NotRequired, TypedDict

from ..vocabulary import EvidenceCheck, Verification
from .answers import AnswerDetails
from .evidence import GROUND_FIELDS
from .parse import Adjudication, ranking_to_order

if TYPE_CHECKING:  # the declarations only: this module builds plain dicts, and loads no pydantic
    from ..documents.tally import RunStat, TallyFinding, TallyInput, TallyMeta, TallyRanking, TallyVote

MAX_REVIEWS = len(string.ascii_uppercase)


class StageOneReview(NamedTuple):
    """One seat's Stage-1 outcome, as the anonymizer needs it."""

    seat_id: str
    alias: str
    text: str  # the review as written (after any repair)
    findings: Sequence[Mapping[str, Any]]  # validated local findings (an answer's claims); [] when unstructured
    structured: bool  # False when the findings block never validated
    details: AnswerDetails | None = None  # an answer's answer, assumptions and confidence


class AnonFinding(TypedDict):
    """A run-global finding (an answer's key claim) as the judges read it; the evidence check and
    the verifier set their keys on it in place (council/evidence.py, engine/verify.py)."""

    id: str
    label: str
    raiser: str
    raiserSeat: str | None
    severity: str | None
    claim: str
    location: str | None
    rationale: str | None
    evidence: str | None
    evidenceCheck: NotRequired[EvidenceCheck]
    evidenceLocation: NotRequired[str]
    verification: NotRequired[Verification]
    verificationLines: NotRequired[list[str]]
    verificationReason: NotRequired[str]
    verificationToolCalls: NotRequired[int]


class _Seat(TypedDict):
    seat: NotRequired[str]  # a judge's seat id, only where it differs from its alias


@dataclass
class Anonymized:
    labels: list[str]
    label_map: dict[str, str]  # label → alias
    seat_map: dict[str, str]  # label → seat id
    prose: list[tuple[str, str]]  # (label, the review's prose without its findings block)
    findings: list[AnonFinding] = field(default_factory=list)  # run-global findings
    details: dict[str, AnswerDetails] = field(default_factory=dict)  # label → an answer's details

    @property
    def finding_ids(self) -> list[str]:
        return [f["id"] for f in self.findings]


REVIEW_NOUN = "Review"
ANSWER_NOUN = "Answer"


def label(index: int, noun: str = REVIEW_NOUN) -> str:
    return f"{noun} {string.ascii_uppercase[index]}"


def strip_findings_block(text: str) -> str:
    """The prose before the last ```json fence (the block itself is re-listed with global ids)."""
    cut = text.rfind("```json")
    return text[:cut].rstrip() if cut != -1 else text.rstrip()


def anonymize(reviews: Sequence[StageOneReview], noun: str = REVIEW_NOUN) -> Anonymized:
    """Labels, run-global ids and the prose the judges read. A finding's severity, location
    and rationale are None for a key claim, which has none."""
    if len(reviews) > MAX_REVIEWS:
        raise ValueError(f"at most {MAX_REVIEWS} reviews can be labelled, got {len(reviews)}")
    out = Anonymized(labels=[], label_map={}, seat_map={}, prose=[])
    for index, review in enumerate(reviews):
        name = label(index, noun)
        letter = name[-1]
        out.labels.append(name)
        out.label_map[name] = review.alias
        out.seat_map[name] = review.seat_id
        out.prose.append((name, strip_findings_block(review.text) if review.structured else review.text.rstrip()))
        if review.details is not None:
            out.details[name] = {**review.details}
        for finding in review.findings:
            out.findings.append(
                {
                    "id": f"{letter}{finding['id']}",
                    "label": name,
                    "raiser": review.alias,
                    "raiserSeat": review.seat_id if review.seat_id != review.alias else None,
                    "severity": finding.get("severity"),
                    "claim": finding["claim"],
                    "location": finding.get("location"),
                    "rationale": finding.get("rationale"),
                    # The quote the finding rests on (optional when parsing; council/evidence.py checks it).
                    "evidence": finding.get("evidence") if isinstance(finding.get("evidence"), str) else None,
                }
            )
    return out


class JudgeAnswer(NamedTuple):
    """One judge's parsed Stage-2 answer (label space)."""

    seat_id: str
    alias: str
    ranking: Sequence[Any]
    adjudications: Sequence[Adjudication]


def tally_input(
    *,
    meta: Mapping[str, object],
    anonymized: Anonymized,
    judges: Sequence[JudgeAnswer],
    run_stats: Sequence[Mapping[str, object]],
) -> TallyInput:
    """The five-key tally input, de-anonymized; seat ids only where they differ from aliases."""
    seat_map = {lab: sid for lab, sid in anonymized.seat_map.items() if sid != anonymized.label_map[lab]}
    findings: list[TallyFinding] = []
    for f in anonymized.findings:
        # A key claim has no severity and no location: they are left out (a review's always has both).
        # Built open (its optional keys by name), in the family's key order.
        entry: dict[str, object] = {"id": f["id"], "raiser": f["raiser"]}
        if f["severity"] is not None:
            entry["severity"] = f["severity"]
        entry["claim"] = f["claim"]
        if f["location"] is not None:
            entry["location"] = f["location"]
        if f["raiserSeat"] is not None:
            entry["raiserSeat"] = f["raiserSeat"]
        # Emitted when set, so a run before evidence (or a hand-assembled input) is unchanged.
        view: Mapping[str, object] = f
        for key in GROUND_FIELDS:
            value = view.get(key)
            if value is not None:
                entry[key] = value
        findings.append(cast("TallyFinding", entry))
    adjudications: list[TallyVote] = []
    rankings: list[TallyRanking] = []
    for judge in judges:
        seat: _Seat = {"seat": judge.seat_id} if judge.seat_id != judge.alias else {}
        for vote in judge.adjudications:
            adjudications.append({"findingId": vote["id"], "judge": judge.alias, "verdict": vote["verdict"], **seat})
        if not judge.ranking:  # a judge whose ranking was dropped (engine salvage) votes, and ranks nothing
            continue
        order, order_seats = ranking_to_order(judge.ranking, anonymized.label_map, seat_map or None)
        ranking: TallyRanking = {"judge": judge.alias, "order": order}
        if "seat" in seat:
            ranking["seat"] = seat["seat"]
        if order_seats is not None:
            ranking["orderSeats"] = order_seats
        rankings.append(ranking)
    return {
        # The run's meta and legs, copied as they are: check_tally_input checks them when tallied.
        "meta": cast("TallyMeta", dict(meta)),
        "findings": findings,
        "adjudications": adjudications,
        "rankings": rankings,
        "runStats": cast("list[RunStat]", [dict(row) for row in run_stats]),
    }
