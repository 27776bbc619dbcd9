"""Debate mode (Stage 2.5), the pure half: who debates what, the briefs, and the reassembly.

Exactly one round: provisional tally → each raising seat defends, amends or withdraws its
Contested/Disputed findings → the seats that disputed a defended or amended finding vote on it
again → the final tally. The rules that matter:

- a dead or unparseable defense leaves the claim standing undefended (`no-response`);
- a missing or unparseable re-vote leaves that judge's original verdict standing;
- an amended claim replaces the original text (id, raiser and severity unchanged);
- a withdrawn finding stays in the findings (it was raised) and is recorded `denied`;
- Claude's own review never defends: its findings simply stand.

A question council debates its answers' key claims the same way (`question=True`: the briefs
speak of claims and answers, and a claim shows no severity).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..schemas import JsonSchema
from ..vocabulary import DEBATE_ACTIONS, DEBATED_TIERS, REVOTED_ACTIONS, VOTES
from .briefings import EXAMPLE_IDS, fenced_example, render
from .parse import DefenseResponse, Revote, apply_revotes

if TYPE_CHECKING:  # the declarations only: this module builds plain dicts, and loads no pydantic
    from ..documents.council import JsonValue, TallyRecord
    from ..documents.tally import Decision, TallyFinding, TallyInput, TallyVote

ACTION = {action: action for action in DEBATE_ACTIONS}  # a known action only: never one the model spelled
MAX_REASON_CHARS = 300


@dataclass
class DebateTarget:
    """One Contested/Disputed finding and the votes against it."""

    finding: TallyFinding  # from the tally input: id, raiser, raiserSeat?, severity, claim
    tier: str  # its provisional tier
    disputers: list[str]  # seat ids of the judges that disputed it
    reasons: list[str]  # their one-line reasons, anonymized (as found in their prose)


@dataclass
class DebateOutcome:
    """What the round produced, finding by finding."""

    responses: dict[str, DefenseResponse] = field(default_factory=dict)  # id → {action, argument?, claim?}
    revotes: dict[str, dict[str, Revote]] = field(default_factory=dict)  # judge seat → id → {verdict, reason?}


def judge_seat_of(vote: TallyVote) -> str:
    return vote.get("seat") or vote.get("judge") or ""


def targets(tally_input: TallyInput, record: TallyRecord, judge_prose: Mapping[str, str]) -> list[DebateTarget]:
    """The findings the round debates, with each disputer's reason taken from its prose."""
    tiers = {f["id"]: f["tier"] for f in record["findings"]}
    out = []
    for finding in tally_input["findings"]:
        tier = tiers.get(finding["id"])
        if tier not in DEBATED_TIERS:
            continue
        disputers = [judge_seat_of(v) for v in tally_input["adjudications"]
                     if v["findingId"] == finding["id"] and v["verdict"] == "dispute" and not _own_vote(finding, v)]
        reasons = [reason_for(judge_prose.get(seat, ""), finding["id"]) for seat in disputers]
        out.append(DebateTarget(finding, tier, disputers, reasons))
    return out


def _own_vote(finding: TallyFinding, vote: TallyVote) -> bool:
    if finding.get("raiserSeat") and vote.get("seat"):
        return bool(finding["raiserSeat"] == vote["seat"])
    return bool(vote.get("judge") == finding.get("raiser"))


def reason_for(prose: str, finding_id: str) -> str:
    """The judge's own words about a finding: the first prose line that names its id."""
    pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(finding_id)}(?![0-9])")
    for line in prose.splitlines():
        if pattern.search(line) and not line.lstrip().startswith(("{", "\"", "[", "```")):
            text = " ".join(line.split())
            return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"
    return "(no reason given in prose)"


def _kind(finding: TallyFinding) -> str:
    """What a debated item is, in its parentheses: a finding's severity, or `key claim`."""
    return str(finding["severity"]) if finding.get("severity") is not None else "key claim"


def defense_brief(targets_of_raiser: Sequence[DebateTarget], *, question: bool = False) -> str:
    blocks = []
    for t in targets_of_raiser:
        reasons = "\n".join(f"  - a peer: {r}" for r in t.reasons) or "  - (no reason given)"
        blocks.append(f"**{t.finding['id']}** ({_kind(t.finding)}) — {_one_line(t.finding.get('claim'))}\n"
                      f"- disputed by {len(t.disputers)} peer(s):\n{reasons}")
    return render("debate-defense-question" if question else "debate-defense", findings="\n\n".join(blocks),
                  example=defense_example([t.finding["id"] for t in targets_of_raiser]))


def revote_bundle(targets_by_id: Mapping[str, DebateTarget], responses: Mapping[str, DefenseResponse], *,
                  question: bool = False) -> str:
    """The ONE shared re-vote prompt: every defended or amended finding with the raiser's answer,
    in the order of `targets_by_id` (finding order) — never in the order the defenses finished."""
    blocks = []
    for fid, target in targets_by_id.items():
        response = responses.get(fid)
        if response is None or response["action"] not in REVOTED_ACTIONS:
            continue
        finding = target.finding
        if response["action"] == "amended":
            claim = f"AMENDED — {_one_line(response['claim'])} (originally: {_one_line(finding.get('claim'))})"
        else:
            claim = _one_line(finding.get("claim"))
        answer = _one_line(response.get("argument") or "(the raiser amended the claim without further argument)")
        blocks.append(f"**{fid}** ({_kind(finding)}) — {claim}\n- the raiser's answer: {answer}")
    listed = [fid for fid in targets_by_id if fid in responses and responses[fid]["action"] in REVOTED_ACTIONS]
    return render("debate-revote-question" if question else "debate-revote", findings="\n\n".join(blocks),
                  example=revote_example(listed))


def debate_repair_prompt(previous: str, errors: Sequence[Mapping[str, str]], kind: str, ids: Sequence[str]) -> str:
    """`ids`: the finding ids the answer is about, so the shape shown names only those."""
    shape = defense_example(ids, compact=True) if kind == "defense" else revote_example(ids, compact=True)
    return render("debate-repair", previous=previous.strip(), shape=shape,
                  errors="\n".join(f"- {e['code']}: {e['detail']}" for e in errors))


# Examples name the prompt's own finding ids (never an A1 the round does not have): a weak
# model copies the example block, and a copy must at least be about the right findings.
_DEFENSE_EXAMPLES: tuple[dict[str, str], ...] = (
    {"action": "defend", "argument": "…"},
    {"action": "amend", "claim": "…"},
    {"action": "withdraw"},
)


def defense_example(ids: Sequence[str], *, compact: bool = False) -> str:
    entries = [{"id": fid, **_DEFENSE_EXAMPLES[i % len(_DEFENSE_EXAMPLES)]} for i, fid in enumerate(list(ids)[:EXAMPLE_IDS])]
    return fenced_example({"responses": entries}, compact=compact)


def revote_example(ids: Sequence[str], *, compact: bool = False) -> str:
    entries = [{"id": fid, "verdict": "agree", "reason": "one line"} for fid in list(ids)[:1]]
    return fenced_example({"revotes": entries}, compact=compact)


def reassemble(tally_input: TallyInput, record: TallyRecord, outcome: DebateOutcome) -> TallyInput:
    """The final tally input: amended claims in place, re-votes applied, debated findings decorated."""
    tiers = {f["id"]: f["tier"] for f in record["findings"]}
    findings: list[TallyFinding] = []
    for finding in tally_input["findings"]:
        entry: dict[str, object] = {**finding}  # a copy, in the finding's key order, with its unknown keys
        response = outcome.responses.get(finding["id"])
        if response is not None:
            if response["action"] == "amended":
                entry["claim"] = response["claim"]
            # The mark the tally carries into the record (documents/council.py DebateMark).
            entry["debate"] = {"action": ACTION[response["action"]], "previousTier": tiers.get(finding["id"])}
        findings.append(cast("TallyFinding", entry))
    adjudications: list[TallyVote] = []
    by_judge: dict[str, list[TallyVote]] = {}
    for vote in tally_input["adjudications"]:
        by_judge.setdefault(judge_seat_of(vote), []).append({**vote})
    for seat, votes in by_judge.items():
        after = apply_revotes({v["findingId"]: v["verdict"] for v in votes}, outcome.revotes.get(seat, {}))
        for vote in votes:
            vote["verdict"] = after.get(vote["findingId"], vote["verdict"])
            adjudications.append(vote)
    return {**tally_input, "findings": findings, "adjudications": adjudications}


def summary(targets_: Sequence[DebateTarget], outcome: DebateOutcome, before: TallyRecord,
            after: TallyRecord, *, revote_judges: int) -> dict[str, JsonValue]:
    """run.json's `debate` object, as JSON (documents/run.py DebateSummary validates it when the
    engine records it)."""
    actions = [r["action"] for r in outcome.responses.values()]
    applied = sum(len(v) for v in outcome.revotes.values())
    old = {f["id"]: f["tier"] for f in before["findings"]}
    changed = sum(1 for f in after["findings"] if f["id"] in old and old[f["id"]] != f["tier"])
    return {
        "enabled": True,
        "outcome": "ran",
        "contested": sum(1 for t in targets_ if t.tier == "Contested"),
        "disputed": sum(1 for t in targets_ if t.tier == "Disputed"),
        "defended": actions.count("defended"),
        "amended": actions.count("amended"),
        "withdrawn": actions.count("withdrawn"),
        "noResponse": actions.count("no-response"),
        "revoteJudges": revote_judges,
        "revoteApplied": applied,
        "verdictChanges": changed,
    }


def withdrawn_decisions(outcome: DebateOutcome) -> list[Decision]:
    """Withdrawn findings are denied automatically — never put to the user."""
    return [{"id": fid, "decision": "denied", "applied": False}
            for fid, r in outcome.responses.items() if r["action"] == "withdrawn"]


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


# --- structured output: the debate's blocks as JSON Schemas ----------------------------
# For models that can be held to a schema (see briefings' findings/judge/chair schemas).
# A strict schema lists every property as required, so an entry carries both `argument` and
# `claim`; the one its action does not use is empty, and the document keeps only the other.

def _free_text(compact: bool, max_length: int) -> JsonSchema:
    return {"type": "string", "maxLength": max_length} if compact else {"type": "string"}


def defense_output_schema(ids: Sequence[str], *, compact: bool = True) -> JsonSchema:
    entry: JsonSchema = {
        "type": "object",
        "required": ["id", "action", "argument", "claim"],
        "additionalProperties": False,
        "properties": {"id": {"enum": list(ids)}, "action": {"enum": ["defend", "amend", "withdraw"]},
                       "argument": _free_text(compact, 400), "claim": _free_text(compact, 200)},
    }
    return {"type": "object", "required": ["responses"], "additionalProperties": False,
            "properties": {"responses": {"type": "array", "items": entry, "maxItems": len(ids)}}}


def revote_output_schema(ids: Sequence[str], *, compact: bool = True) -> JsonSchema:
    entry: JsonSchema = {
        "type": "object",
        "required": ["id", "verdict", "reason"],
        "additionalProperties": False,
        "properties": {"id": {"enum": list(ids)}, "verdict": {"enum": list(VOTES)},
                       "reason": _free_text(compact, 200)},
    }
    return {"type": "object", "required": ["revotes"], "additionalProperties": False,
            "properties": {"revotes": {"type": "array", "items": entry, "maxItems": len(ids)}}}


def defense_from_structured(obj: Mapping[str, Any]) -> str:
    """A structured defense as the document every other path produces (a trailing json block)."""
    entries = [{k: v for k, v in entry.items() if not (k in ("argument", "claim") and not str(v).strip())}
               for entry in obj["responses"]]
    return fenced_example({"responses": entries}, compact=False)


def revote_from_structured(obj: Mapping[str, Any]) -> str:
    return fenced_example({"revotes": list(obj["revotes"])}, compact=False)
