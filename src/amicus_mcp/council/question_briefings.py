"""The prompts a question council sends, composed from `amicus_mcp/prompts/` like a review's.

A question council runs the review's pipeline with answers in place of reviews: each seat
answers the question in the answer contract (`answers.py`), every judge ranks the anonymized
answers and votes on every key claim (the judge block, parser and repair are the review's
own), and the chair synthesises one answer that ends with an `ANSWER:` line and names the
dissent. Everything here is pure; the shared pieces (rendering, examples, rankings as text)
are `briefings`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from string import Template
from typing import TYPE_CHECKING, Any

from ..schemas import JsonSchema
from ..vocabulary import ANSWER_CONFIDENCES, ANSWER_SCALE
from .briefings import (evidence_lines, judge_example, one_line, order_text, pretty_json, render, score_text, stage1_briefing, template,
                        text_schema)

if TYPE_CHECKING:  # the declarations only: this module builds plain dicts, and loads no pydantic
    from ..documents.council import VerdictRanking

STAGE1_QUESTION = "stage1-question"


# --- Stage 1 ---------------------------------------------------------------------------

def question_briefing(briefing: str, *, date: str, stance: str | Template = "stance-question",
                      structured: bool = False) -> str:
    """The composed Stage-1 briefing of a question council (see `briefings.seat_briefing`)."""
    contract = "answer-contract-structured" if structured else "answer-contract"
    return stage1_briefing(STAGE1_QUESTION, contract, briefing, date=date, stance=stance)


def question_stance(role: str, lens: str | None) -> str | Template:
    """The stance a seat answers from: the contrarian's, its lens's, or the standard one."""
    if role == "critic":
        return "stance-question-critic"
    if lens:
        return Template(template("stance-question-lens").safe_substitute(lens=f"a “{lens.replace('-', ' ')}”"))
    return "stance-question"


def answer_repair_prompt(previous: str, errors: Sequence[Mapping[str, str]], attempted: int | None) -> str:
    count_rule = (f"exactly {attempted} claim(s), no more and no fewer" if attempted is not None
                  else "no claims added or removed")
    return render("answer-repair", previous=previous.strip(), count_rule=count_rule,
                  errors="\n".join(f"- {e['code']}: {e['detail']}" for e in errors),
                  contract=template("answer-contract").template.strip())


# --- Stage 2 ---------------------------------------------------------------------------

def answers_bundle(*, briefing: str, date: str, answers: Sequence[tuple[str, str]],
                   details: Mapping[str, Mapping[str, Any]], claims: Sequence[Mapping[str, Any]]) -> str:
    """The ONE anonymized bundle every judge of a question council receives. `answers` are
    (label, reasoning prose) pairs, `details` each structured answer's answer, assumptions and
    confidence by label, `claims` the run-global key claims; never a model name."""
    labels = [label for label, _ in answers]
    if claims:
        index = "\n".join(f"- **{c['id']}** — {one_line(c['claim'])}" for c in claims)
        empty_rule = ""
    else:
        index = "(no answer stated a key claim — there is nothing to vote on)"
        empty_rule = "- The key claims index is empty, so emit `\"adjudications\": []`.\n"
    blocks = []
    for label, prose in answers:
        blocks.append(_answer_block(label, prose, details.get(label), [c for c in claims if c["label"] == label]))
    return render(
        "stage2-answers",
        date=date,
        answer_count=len(answers),
        label_list=", ".join(labels),
        example=judge_example(labels, [c["id"] for c in claims]),
        empty_index_rule=empty_rule,
        briefing=briefing.strip(),
        claims_index=index,
        answers="\n\n".join(blocks),
    )


def _answer_block(label: str, prose: str, detail: Mapping[str, Any] | None, own: Sequence[Mapping[str, Any]]) -> str:
    head = [f"### {label}", ""]
    if detail is None:
        head.append("_This answer carries no readable answer block: judge it by its prose._")
    else:
        head.append(f"**Answer:** {one_line(detail['answer'])}")
        head.append(f"**Confidence:** {detail['confidence']}")
        assumptions = detail.get("assumptions") or []
        head.append("**Assumptions:** " + ("; ".join(one_line(a) for a in assumptions) if assumptions else "none stated"))
    # A claim that quoted the material shows the quote and its check (nothing for one that did not).
    listing = "\n".join(f"- **{c['id']}** {one_line(c['claim'])}" + ("\n" + evidence_lines(c).rstrip("\n")
                                                                    if evidence_lines(c) else "")
                        for c in own) if own else "_No key claims._"
    return "\n".join(head) + f"\n\n**Reasoning:**\n\n{prose.strip() or '_(no prose)_'}\n\n#### Key claims of {label}\n\n{listing}"


# --- the chair ---------------------------------------------------------------------------

def question_chair_packet(*, briefing: str, date: str, record: Mapping[str, Any], ranking: Sequence[VerdictRanking],
                          answers: Sequence[Mapping[str, Any]], rankings: Sequence[Mapping[str, Any]]) -> str:
    """The de-anonymized chair packet of a question council. `ranking` is the aggregate ranking
    (`ranking.aggregate_ranking`); `answers` each seat's answer as the run knows it (`who`,
    `label`, `prose`, `answer`, `confidence`, `assumptions`, or None for the last three when its
    block never read); `record` the tally (amended claims and tiers are what the chair reads)."""
    ranked = [f"{r['rank']}. {r.get('seat') or r['model']} — peers-only {score_text(r.get('peersOnly'))}, "
              f"with-self {score_text(r.get('withSelf'))}; its claims: {r['confirmedClaims']} Confirmed, "
              f"{r['disputedClaims']} Disputed of {r['claims']}" for r in ranking]
    claims = []
    for f in record["findings"]:
        basis = f.get("basis", {"a": 0, "d": 0, "n": 0})
        debate = f.get("debate")
        round_note = f"; debate: {debate['action']}, was {debate['previousTier']}" if isinstance(debate, Mapping) else ""
        claims.append(f"- **{f['id']}** (made by {f.get('raiserSeat') or f.get('raiser')}) — {one_line(f.get('claim'))}\n"
                      f"  - tier: {f['tier']} ({f['confidence']}); peers a{basis['a']}/d{basis['d']}/n{basis['n']}{round_note}")
    ranking_lines = [f"- {r['judge']}: {order_text(r)}" for r in rankings] or ["- (no judge produced a usable ranking)"]
    blocks = []
    for a in answers:
        if a.get("answer") is None:
            head = "_Its answer block never read: its prose follows._"
        else:
            assumptions = "; ".join(one_line(x) for x in a.get("assumptions") or []) or "none stated"
            head = (f"**Answer:** {one_line(a['answer'])}\n**Confidence:** {a['confidence']}\n"
                    f"**Assumptions:** {assumptions}")
        blocks.append(f"### {a['who']} ({a['label']})\n\n{head}\n\n{a['prose'].strip() or '_(no prose)_'}")
    return render(
        "chair-question",
        date=date,
        briefing=briefing.strip(),
        ranking="\n".join(ranked) or "(no answer was ranked)",
        claims="\n".join(claims) or "(no answer stated a key claim)",
        rankings="\n".join(ranking_lines),
        answers="\n\n".join(blocks),
        answer_scale=template("chair-answer-scale").template.strip(),
    )


def chair_answer_repair_prompt(synthesis: str) -> str:
    return render("chair-answer-repair", synthesis=synthesis.strip())


# --- structured output -------------------------------------------------------------------

def answer_output_schema(*, compact: bool = True) -> JsonSchema:
    claims: JsonSchema = {"type": "array", "items": {
        "type": "object",
        "required": ["id", "claim"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "integer", "minimum": 1} if compact else {"type": "integer"},
            "claim": text_schema(200, compact),
        },
    }}
    assumptions: JsonSchema = {"type": "array", "items": text_schema(160, compact)}
    if compact:
        claims["maxItems"] = 4
        assumptions["maxItems"] = 3
    return {
        "type": "object",
        "required": ["reasoning", "answer", "claims", "assumptions", "confidence"],
        "additionalProperties": False,
        "properties": {
            "reasoning": text_schema(600, compact),
            "answer": text_schema(300, compact),
            "claims": claims,
            "assumptions": assumptions,
            "confidence": {"enum": list(ANSWER_CONFIDENCES)},
        },
    }


def answer_from_structured(obj: Mapping[str, Any]) -> str:
    """A structured Stage-1 answer as the answer document every other path produces."""
    block = {"answer": obj["answer"], "claims": obj["claims"], "assumptions": obj["assumptions"],
             "confidence": obj["confidence"]}
    return f"{obj['reasoning'].strip()}\n\n```json\n{pretty_json(block)}\n```\n"


def chair_question_output_schema(*, compact: bool = True) -> JsonSchema:
    return {
        "type": "object",
        "required": ["synthesis", "dissent", "standing", "answer"],
        "additionalProperties": False,
        "properties": {
            "synthesis": text_schema(800, compact),
            "dissent": {"type": "array", "items": text_schema(240, compact), "minItems": 1, "maxItems": 5},
            "standing": {"enum": list(ANSWER_SCALE)},
            "answer": text_schema(300, compact),
        },
    }


def chair_question_from_structured(obj: Mapping[str, Any]) -> str:
    dissent = "\n".join(f"- {d.strip()}" for d in obj["dissent"])
    return f"{obj['synthesis'].strip()}\n\n## Dissent\n\n{dissent}\n\nANSWER: {obj['standing']} — {obj['answer'].strip()}\n"
