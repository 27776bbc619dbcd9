"""The prompts the engine sends, composed from the text templates in `amicus_mcp/prompts/`.

Templates are readable Markdown files with `$name` placeholders (string.Template), so the
words a model receives can be reviewed without reading code. Everything here is pure: it
takes the run's data and returns strings (and, for structured-output providers, the JSON
Schemas that stand in for the fenced-block contracts).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib.resources import files
from string import Template
from typing import Any

from ..vocabulary import (ANSWER_CONFIDENCES, ANSWER_SCALE, REFUTED, SEVERITIES, UNVERIFIED_CHECKS, VERDICT_MARKER,
                          VERDICT_MEANINGS, VERDICT_SCALE, VOTES)
from ..schemas import JsonSchema
from .evidence import check_phrase

STAGE1_SEAT = "stage1-seat"

# The vocabulary's words as the prompt files spell them (`$verdict_forms`, `$ship_it`, …), filled
# in when a template is read, so a prompt never holds its own copy of the verdict scale.
def _meanings() -> str:
    """Each verdict with its meaning: one paragraph, indented as the brief's list item is."""
    text = " ".join(f'"{phrase}": {VERDICT_MEANINGS[phrase]}' for phrase in VERDICT_SCALE)
    return textwrap.fill(text, width=95, subsequent_indent="   ", break_on_hyphens=False, break_long_words=False,
                         initial_indent="   ")[3:]  # the file indents the first line itself


PROMPT_WORDS: dict[str, str] = {
    "verdict_forms": " · ".join(f"`{VERDICT_MARKER}: {phrase}`" for phrase in VERDICT_SCALE),
    "verdict_lines": "\n".join(f"{VERDICT_MARKER}: {phrase}" for phrase in VERDICT_SCALE),
    # a question council's ANSWER standings and its answers' confidences
    "answer_standings": f"{', '.join(ANSWER_SCALE[:-1])} or {ANSWER_SCALE[-1]}",
    "converged": ANSWER_SCALE[0],
    "split": ANSWER_SCALE[1],
    "insufficient": ANSWER_SCALE[2],
    "verdict_meanings": _meanings(),
    "answer_confidences": f"{', '.join(f'`{c}`' for c in ANSWER_CONFIDENCES[:-1])} or `{ANSWER_CONFIDENCES[-1]}`",
}


@lru_cache(maxsize=None)
def template(name: str) -> Template:
    """The prompt file `name`, with the vocabulary's words filled in; its own `$name`s stay."""
    text = files("amicus_mcp").joinpath("prompts", f"{name}.md").read_text(encoding="utf-8")
    return Template(_fill_words(text))


def _fill_words(text: str) -> str:
    def word(match: re.Match[str]) -> str:
        name = match.group("named") or match.group("braced")
        return PROMPT_WORDS.get(name, match.group(0)) if name else match.group(0)  # `$$` and the rest stay

    return Template.pattern.sub(word, text)


def render(name: str, **values: Any) -> str:
    return template(name).substitute(**{k: str(v) for k, v in values.items()}).strip() + "\n"


# --- Stage 1 ---------------------------------------------------------------------------

def seat_briefing(briefing: str, *, date: str, stance: str | Template = "stance-standard", structured: bool = False) -> str:
    """The composed Stage-1 briefing: the user's briefing, today's date, the stance, the contract.

    `structured` is for providers whose output a JSON Schema constrains (the embedded model):
    they get the same contract described as a JSON object, without example values that a
    small model would copy.
    """
    contract = "findings-contract-structured" if structured else "findings-contract"
    return stage1_briefing(STAGE1_SEAT, contract, briefing, date=date, stance=stance)


def stage1_briefing(frame: str, contract: str, briefing: str, *, date: str, stance: str | Template) -> str:
    """A Stage-1 frame (a review's, a question's) filled with the date, a stance and a contract."""
    return render(
        frame,
        date=date,
        stance=(template(stance) if isinstance(stance, str) else stance).template.strip(),
        contract=template(contract).template.strip(),
        briefing=briefing.strip(),
    )


def seat_stance(role: str, lens: str | None) -> str | Template:
    """The stance a seat's Stage-1 brief takes: the critic's, its lens's, or the standard one."""
    if role == "critic":
        return "stance-critic"
    if lens:
        return lens_stance(lens)
    return "stance-standard"


def lens_stance(lens: str) -> Template:
    """The lens brief for one seat: `security-architect` → 'as a “security architect” would'."""
    return Template(template("stance-lens").safe_substitute(lens=f"a “{lens.replace('-', ' ')}”"))


def findings_repair_prompt(previous: str, errors: Sequence[Mapping[str, str]], attempted: int | None) -> str:
    error_lines = "\n".join(f"- {e['code']}: {e['detail']}" for e in errors)
    contract = template("findings-contract").template.strip()
    if not previous.strip():
        return render("stage1-repair-empty", errors=error_lines, contract=contract)
    count_rule = (
        f"exactly {attempted} finding(s), no more and no fewer" if attempted is not None
        else "no findings added or removed"
    )
    return render("stage1-repair", previous=previous.strip(), errors=error_lines, count_rule=count_rule, contract=contract)


# --- Stage 2 ---------------------------------------------------------------------------

def judge_bundle(
    *,
    briefing: str,
    date: str,
    reviews: Sequence[tuple[str, str]],
    findings: Sequence[Mapping[str, Any]],
    dismissed: Mapping[str, str] | None = None,
) -> str:
    """The ONE anonymized bundle every judge receives. `reviews` are (label, prose) pairs;
    `findings` carry run-global ids and never a model name. `dismissed` (finding id → a note)
    marks the findings that match one the user dismissed in an earlier run."""
    labels = [label for label, _ in reviews]
    if findings:
        index = "\n".join(_index_line(f) for f in findings)
        empty_rule = ""
    else:
        index = "(no review raised any finding — there is nothing to vote on)"
        empty_rule = "- The findings index is empty, so emit `\"adjudications\": []`.\n"
    blocks = []
    for label, prose in reviews:
        own = [f for f in findings if f["label"] == label]
        listing = "\n".join(_finding_block(f, (dismissed or {}).get(str(f["id"]))) for f in own) if own \
            else "_This review raised no findings._"
        blocks.append(f"### {label}\n\n{prose.strip() or '_(no prose)_'}\n\n#### Findings of {label}\n\n{listing}")
    return render(
        "stage2-judge",
        date=date,
        review_count=len(reviews),
        label_list=", ".join(labels),
        example=judge_example(labels, [f["id"] for f in findings]),
        empty_index_rule=empty_rule,
        briefing=briefing.strip(),
        findings_index=index,
        reviews="\n\n".join(blocks),
    )


def _index_line(f: Mapping[str, Any]) -> str:
    return f"- **{f['id']}** ({f['severity']}) — {one_line(f['claim'])}"


def _finding_block(f: Mapping[str, Any], dismissed: str | None = None) -> str:
    block = (
        f"- **{f['id']}** ({f['severity']}) {one_line(f['claim'])}\n"
        f"  - location: {one_line(f['location'])}\n"
        f"{evidence_lines(f)}"
        f"  - rationale: {one_line(f['rationale'])}"
    )
    if dismissed is not None:  # the user's earlier decision is evidence too: judge whether it still holds
        block += f"\n  - previously dismissed by the user: {one_line(dismissed)}"
    return block


def evidence_lines(f: Mapping[str, Any], *, mark: str = "") -> str:
    """The finding's quoted evidence and what the deterministic check found, as the judges and
    the chair read them ("evidence check: evidence not found in the material"); nothing for a
    finding that was never checked, so a run before evidence composes the same packets."""
    if f.get("evidenceCheck") is None and not isinstance(f.get("evidence"), str):
        return ""
    quote = f.get("evidence")
    out = f"  - evidence: “{one_line(quote)}”\n" if isinstance(quote, str) and quote.strip() else ""
    phrase = check_phrase(f)
    out += f"  - evidence check: {phrase}{mark}\n" if phrase else ""
    verdict = f.get("verification")
    if isinstance(verdict, str):  # --verify: what a model that did not raise it found in the source
        reason = f.get("verificationReason")
        out += f"  - verifier: {verdict}{' — ' + one_line(reason) if isinstance(reason, str) else ''}\n"
    return out


def one_line(text: Any) -> str:
    return " ".join(str(text).split())


def judge_repair_prompt(previous: str, errors: Sequence[Mapping[str, str]], labels: Sequence[str], finding_ids: Sequence[str]) -> str:
    return render(
        "stage2-repair",
        previous=previous.strip(),
        errors="\n".join(f"- {e['code']}: {e['detail']}" for e in errors),
        label_list=", ".join(labels),
        finding_ids=", ".join(finding_ids) if finding_ids else "(none — emit an empty adjudications list)",
        example=judge_example(labels, finding_ids, compact=True),
    )


# --- examples built from the run's own labels and ids ------------------------------------
# A weak model copies the example block it is shown. An example naming a label or an id the
# run does not have (a "Review C" on a two-review bench) would then be refused and the judge
# lost, so every example is built from the labels and ids of the prompt it sits in, and is
# itself a valid answer.

EXAMPLE_IDS = 3  # the examples show the shape on at most this many findings


def example_ranking(labels: Sequence[str]) -> list[Any]:
    """Every label once, not in label order, with a tie when there are three or more."""
    labels = list(labels)
    if len(labels) < 2:
        return labels
    if len(labels) == 2:
        return [labels[1], labels[0]]
    return [labels[1], [labels[0], labels[2]], *labels[3:]]


def judge_example(labels: Sequence[str], finding_ids: Sequence[str], *, compact: bool = False) -> str:
    votes = [{"id": fid, "verdict": VOTES[i % len(VOTES)]}
             for i, fid in enumerate(list(finding_ids)[:EXAMPLE_IDS])]
    return fenced_example({"ranking": example_ranking(labels), "adjudications": votes}, compact=compact)


def fenced_example(value: Mapping[str, Any], *, compact: bool = False) -> str:
    """A ```json block; entries of a top-level list go one per line unless `compact`."""
    import json

    if compact:
        return f"```json\n{json.dumps(value, ensure_ascii=False)}\n```"
    parts = []
    for key, item in value.items():
        if isinstance(item, list) and item and all(isinstance(e, dict) for e in item):
            rows = ",\n".join(f"    {json.dumps(e, ensure_ascii=False)}" for e in item)
            parts.append(f'  {json.dumps(key)}: [\n{rows}\n  ]')
        else:
            parts.append(f"  {json.dumps(key)}: {json.dumps(item, ensure_ascii=False)}")
    return "```json\n{\n" + ",\n".join(parts) + "\n}\n```"


# --- the chair ---------------------------------------------------------------------------

def chair_packet(
    *,
    briefing: str,
    date: str,
    record: Mapping[str, Any],
    findings: Sequence[Mapping[str, Any]],
    reviews: Sequence[tuple[str, str]],
    rankings: Sequence[Mapping[str, Any]],
    scale: str = "chair-verdict-scale",
) -> str:
    """The de-anonymized chair packet with the closing addendum (always on): the verdict scale,
    or for a task council `chair-task-scale` (an ANSWER line).

    On a debate run `record` is the post-debate tally: its claim (an amended one replaces the
    original) and its tier are what the chair reads, with what the round did to the finding."""
    tiers = {f["id"]: f for f in record["findings"]}
    finding_lines = []
    for f in findings:
        scored = tiers.get(f["id"], {})
        basis = scored.get("basis", {"a": 0, "d": 0, "n": 0})
        debate = scored.get("debate")
        round_note = f"; debate: {debate['action']}, was {debate['previousTier']}" if isinstance(debate, Mapping) else ""
        finding_lines.append(
            f"- **{f['id']}** ({f['severity']}, raised by {f['raiserSeat'] or f['raiser']}) — {one_line(scored.get('claim') or f['claim'])}\n"
            f"  - tier: {scored.get('tier', '?')} ({scored.get('confidence', '?')}); peers a{basis['a']}/d{basis['d']}/n{basis['n']}{round_note}\n"
            f"  - location: {one_line(f['location'])}\n"
            f"{evidence_lines(f, mark=chair_mark(f))}"
            f"  - rationale: {one_line(f['rationale'])}"
        )
    cred_lines = [
        f"- {row.get('seat') or row['model']}: peers-only {score_text(row.get('peersOnly'))}, with-self {score_text(row.get('withSelf'))}"
        for row in record["streetCred"]
    ]
    ranking_lines = [f"- {r['judge']}: {order_text(r)}" for r in rankings] or ["- (no judge produced a usable ranking)"]
    review_blocks = [f"### {who}\n\n{text.strip()}" for who, text in reviews]
    return render(
        "chair",
        date=date,
        briefing=briefing.strip(),
        findings="\n".join(finding_lines) or "(no findings were raised)",
        street_cred="\n".join(cred_lines),
        rankings="\n".join(ranking_lines),
        reviews="\n\n".join(review_blocks),
        verdict_scale=template(scale).template.strip(),
    )


def chair_mark(f: Mapping[str, Any]) -> str:
    """` — UNVERIFIED` for a finding whose quote is not in the material or was never given: the
    chair weighs it knowing that."""
    if f.get("verification") == REFUTED:
        return " — REFUTED by the verifier"
    return " — UNVERIFIED" if f.get("evidenceCheck") in UNVERIFIED_CHECKS else ""


def order_text(ranking: Mapping[str, Any]) -> str:
    seats = ranking.get("orderSeats") or [None] * len(ranking["order"])
    parts = []
    for slot, seat_slot in zip(ranking["order"], seats):
        if isinstance(slot, list):
            members = [s or a for a, s in zip(slot, seat_slot if isinstance(seat_slot, list) else [None] * len(slot))]
            parts.append("(" + " = ".join(members) + ")")
        else:
            parts.append(seat_slot or slot)
    return " > ".join(parts)


def score_text(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, (int, float)) else "—"


def chair_repair_prompt(synthesis: str) -> str:
    return render("chair-repair", synthesis=synthesis.strip())


# --- structured output: the same contracts as JSON Schemas -----------------------------
# Models that can be held to a schema (a JSON-schema response_format, or the embedded model's
# grammar) get these instead of relying on a fenced block; the engine turns the JSON back
# into the same documents. `compact` (a small local model) adds length caps that bound its
# output and so its run time: grammar-constrained generation on two CPU cores runs at
# roughly a dozen tokens a second. Every schema keeps the prose (review, analysis, synthesis).

def text_schema(max_length: int, compact: bool) -> JsonSchema:
    # Only a small local model needs the caps; strict cloud schema modes reject length keywords.
    return {"type": "string", "minLength": 1, "maxLength": max_length} if compact else {"type": "string"}


def findings_output_schema(*, compact: bool = True) -> JsonSchema:
    findings: JsonSchema = {"type": "array", "items": {
        "type": "object",
        "required": ["id", "severity", "claim", "location", "evidence", "rationale"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "integer", "minimum": 1} if compact else {"type": "integer"},
            "severity": {"enum": list(SEVERITIES)},
            "claim": text_schema(200, compact),
            "location": text_schema(80, compact),
            "evidence": text_schema(240, compact),  # a verbatim quote: checked against the material
            "rationale": text_schema(240, compact),
        },
    }}
    if compact:
        findings["maxItems"] = 4
    return {
        "type": "object",
        "required": ["review", "overall", "findings"],
        "additionalProperties": False,
        "properties": {
            "review": text_schema(600, compact),
            "overall": text_schema(200, compact),
            "findings": findings,
        },
    }


def judge_output_schema(labels: Sequence[str], finding_ids: Sequence[str], *, compact: bool = True) -> JsonSchema:
    adjudication: JsonSchema = {
        "type": "object",
        "required": ["id", "verdict"],
        "additionalProperties": False,
        "properties": {"id": {"enum": list(finding_ids) or [""]}, "verdict": {"enum": list(VOTES)}},
    }
    return {
        "type": "object",
        "required": ["analysis", "ranking", "adjudications"],
        "additionalProperties": False,
        "properties": {
            "analysis": text_schema(400, compact),
            "ranking": {"type": "array", "items": {"enum": list(labels)}, "minItems": len(labels), "maxItems": len(labels)},
            "adjudications": {"type": "array", "items": adjudication, "maxItems": len(finding_ids)},
        },
    }


def _chair_schema(closing: JsonSchema, compact: bool) -> JsonSchema:
    """The chair's synthesis and hard questions, then its closing properties."""
    properties: JsonSchema = {
        "synthesis": text_schema(800, compact),
        "hardQuestions": {"type": "array", "items": text_schema(160, compact), "minItems": 3, "maxItems": 5},
        **closing,
    }
    return {"type": "object", "required": [*properties], "additionalProperties": False, "properties": properties}


def chair_output_schema(*, compact: bool = True) -> JsonSchema:
    return _chair_schema({"verdict": {"enum": list(VERDICT_SCALE)}}, compact)


def chair_task_output_schema(*, compact: bool = True) -> JsonSchema:
    """A task council's chair: the review chair's synthesis and hard questions, closing on an ANSWER
    line (a standing and its sentence) in place of the verdict."""
    return _chair_schema({"standing": {"enum": list(ANSWER_SCALE)}, "answer": text_schema(300, compact)}, compact)


def review_from_structured(obj: Mapping[str, Any]) -> str:
    """A structured Stage-1 reply as the review document every other path produces."""
    block = {"overall": obj["overall"], "findings": obj["findings"]}
    return f"{obj['review'].strip()}\n\n```json\n{pretty_json(block)}\n```\n"


def judge_from_structured(obj: Mapping[str, Any]) -> str:
    block = {"ranking": obj["ranking"], "adjudications": obj["adjudications"]}
    return f"{obj['analysis'].strip()}\n\n```json\n{pretty_json(block)}\n```\n"


def chair_from_structured(obj: Mapping[str, Any]) -> str:
    questions = "\n".join(f"{i}. {q.strip()}" for i, q in enumerate(obj["hardQuestions"], 1))
    return f"{obj['synthesis'].strip()}\n\n## Hard questions\n\n{questions}\n\nVERDICT: {obj['verdict']}\n"


def chair_task_from_structured(obj: Mapping[str, Any]) -> str:
    questions = "\n".join(f"{i}. {q.strip()}" for i, q in enumerate(obj["hardQuestions"], 1))
    return (f"{obj['synthesis'].strip()}\n\n## Hard questions\n\n{questions}\n\n"
            f"ANSWER: {obj['standing']} — {obj['answer'].strip()}\n")


def pretty_json(value: Any) -> str:
    import json

    return json.dumps(value, indent=2, ensure_ascii=False)
