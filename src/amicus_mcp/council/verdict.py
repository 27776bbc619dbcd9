"""The verdict: a pure merge of a tally record with the Stage-4 decisions.

Nothing is recomputed. `build_verdict` is a *closed projection*: each literal below names
every key it emits, so a key added to the tally record reaches `verdict.json` only when it
is named here. The top level renames `meta.models` to `council` and promotes `meta.seats`
to `seats`.

A question council's record (`meta.intent: "question"`) gives a verdict that says so
(`intent`), whose `overallVerdict` is the chair's ANSWER standing (Converged, Split,
Insufficient) rather than a review verdict, and which carries the answers' aggregate
`ranking` (`council/ranking.py`, a pure function of the record). Every one of these keys is
emitted only for a question, so a review's verdict is byte-identical to one written before
question councils existed.

A task council's record (`meta.intent: "task"`) gives a verdict with `intent: "task"` whose
`overallVerdict` is its chair's ANSWER standing and whose `answer` is the sentence on that line;
everything else is a review's (findings, street-cred, no ranking).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from ..documents.tally import check_decisions
from ..errors import BadArgs
from ..schemas import schema_errors
from ..vocabulary import ANSWERING_INTENTS, ANSWER_SCALE, EVIDENCE_CHECKS, QUESTION, TIERS, VERDICT_SCALE, VERIFICATIONS
from .ranking import aggregate_ranking

if TYPE_CHECKING:
    from ..documents.council import TallyRecord, Verdict, VerdictFinding, VerdictStreetCred

VERDICT_SCHEMA_VERSION: Final = 2


# What the run itself knew beyond the tally (council run, issue 12): emitted after
# `tierCounts`, each only when set, so a verdict built from a record alone is unchanged. A
# question council adds the question it was asked (`question`, bounded: QUESTION_CHARS), the
# chair's one-sentence `answer`, the seats' `answers` and the chair's `dissent`.
RUN_FACT_KEYS = ("question", "answer", "synthesis", "dissent", "hardQuestions", "answers", "debate", "degrades", "notices")


QUESTION_CHARS = 4000  # a longer question is kept to this many characters (…), so a verdict stays small


def question_fact(briefing: str) -> str | None:
    """A question council's question as its verdict keeps it: the briefing, trimmed and bounded."""
    text = briefing.strip()
    if not text:
        return None
    return text if len(text) <= QUESTION_CHARS else text[: QUESTION_CHARS - 1].rstrip() + "…"


def is_question(doc: Any) -> bool:
    """Whether a tally record (its meta) or a verdict is a question council's."""
    if not isinstance(doc, Mapping):
        return False
    meta = doc.get("meta")
    return (meta.get("intent") if isinstance(meta, Mapping) else doc.get("intent")) == QUESTION


def intent_of(doc: Any) -> Any:
    """A tally record's `meta.intent`, or a verdict's `intent` (None for a review)."""
    if not isinstance(doc, Mapping):
        return None
    meta = doc.get("meta")
    return meta.get("intent") if isinstance(meta, Mapping) else doc.get("intent")


def answers_chair(doc: Any) -> bool:
    """Whether a record's or verdict's chair closes on an ANSWER line (a question's, a task's)."""
    return intent_of(doc) in ANSWERING_INTENTS


def verdict_scale(doc: Any) -> tuple[str, ...]:
    """The overallVerdict phrases a record or verdict admits: the ANSWER standings for a question
    or a task."""
    return ANSWER_SCALE if answers_chair(doc) else VERDICT_SCALE


def build_verdict(
    record: Any,
    decisions: Any = (),
    *,
    overall_verdict: str | None = None,
    run: Mapping[str, Any] | None = None,
) -> Verdict:
    """Merge `record` (a council-tally document) with `decisions` into a council-verdict.

    `run` carries what the run knew beyond the record — the chair's `synthesis` and
    `hardQuestions`, the `debate` summary, the `degrades` and informational `notices` — so
    `council report` can say what was lost after Stage 4 too. A previous verdict of the same
    run works as `run` (that is how `council verdict` keeps them when it re-decides).

    The record is checked against the council-tally schema first: it comes from a file or a
    tool's argument. `merge_verdict` is the same merge for a record this process's `tally()`
    has just built."""
    _check_record(record)
    return merge_verdict(record, decisions, overall_verdict=overall_verdict, run=run)


def merge_verdict(
    record: TallyRecord,
    decisions: Any = (),
    *,
    overall_verdict: str | None = None,
    run: Mapping[str, Any] | None = None,
) -> Verdict:
    """`build_verdict` for a record `tally()` has just built (a council run's own): checking it
    against the schema would only re-check the tally's tests, at the cost of importing jsonschema
    in every run (~60 ms). The decisions are checked as always."""
    decisions = list(decisions) if isinstance(decisions, tuple) else decisions
    check_decisions(decisions)
    question = is_question(record)
    answering = answers_chair(record)
    scale = verdict_scale(record)
    if overall_verdict is not None and overall_verdict not in scale:
        line = "ANSWER line's standing" if answering else "VERDICT line"
        raise BadArgs(
            f"overallVerdict '{overall_verdict}' is not one of: {', '.join(scale)}"
            + (f" (this record is a {intent_of(record)} council's)" if answering else ""),
            hint=f"pass the chair's {line} exactly, or null when there is none",
        )
    by_id = _decisions_by_id(decisions, {f["id"] for f in record["findings"]})
    meta = record["meta"]

    verdict: dict[str, object] = {  # built open (its optional keys by name), in the family's key order
        "schemaVersion": VERDICT_SCHEMA_VERSION,
        "type": "council-verdict",
        "overallVerdict": overall_verdict,
        "runId": meta["runId"],
    }
    for key in ("runType", "date", "chair"):
        if key in meta:
            verdict[key] = meta[key]
    verdict["council"] = meta["models"]
    if meta.get("seats") is not None:  # seed 000: `seats` sits immediately after `council`
        verdict["seats"] = meta["seats"]
    if "claudeInCouncil" in meta:
        verdict["claudeInCouncil"] = meta["claudeInCouncil"]
    if answering:
        verdict["intent"] = intent_of(record)
    verdict["findings"] = [_finding(f, by_id.get(f["id"], {}), question=question) for f in record["findings"]]
    verdict["streetCred"] = [_street_cred_row(row) for row in record["streetCred"]]
    verdict["runStats"] = record["runStats"]
    verdict["tierCounts"] = record["tierCounts"]
    if record["judged"] is False:  # emitted only when false: the tiers rest on thin cross-review
        verdict["judged"] = False
    if question:
        verdict["ranking"] = aggregate_ranking(record)
    verdict.update(run_facts(run))
    return cast("Verdict", verdict)


def run_facts(run: Mapping[str, Any] | None) -> dict[str, object]:
    """The well-formed, non-empty RUN_FACT_KEYS of `run`, in that order; the rest is dropped."""
    if not isinstance(run, Mapping):
        return {}
    out: dict[str, object] = {}
    question = run.get("question")
    if isinstance(question, str) and question.strip():
        out["question"] = question
    answer = run.get("answer")
    if isinstance(answer, str) and answer.strip():
        out["answer"] = answer
    synthesis = run.get("synthesis")
    if isinstance(synthesis, str) and synthesis.strip():
        out["synthesis"] = synthesis
    for key in ("dissent", "hardQuestions"):
        items = [q for q in run.get(key) or [] if isinstance(q, str) and q.strip()] \
            if isinstance(run.get(key), list) else []
        if items:
            out[key] = items
    answers = [dict(a) for a in run.get("answers") or [] if isinstance(a, Mapping) and isinstance(a.get("label"), str)] \
        if isinstance(run.get("answers"), list) else []
    if answers:
        out["answers"] = answers
    if isinstance(run.get("debate"), Mapping) and run["debate"]:
        out["debate"] = dict(run["debate"])
    degrades = [dict(d) for d in run.get("degrades") or [] if isinstance(d, Mapping) and isinstance(d.get("what"), str)] \
        if isinstance(run.get("degrades"), list) else []
    if degrades:
        out["degrades"] = degrades
    notices = [n for n in run.get("notices") or [] if isinstance(n, str) and n.strip()] \
        if isinstance(run.get("notices"), list) else []
    if notices:
        out["notices"] = notices
    return out


def same_run(previous: Any, record: Any) -> bool:
    """Whether `previous` is a verdict of the run `record` (a tally record) is the tally of."""
    if not isinstance(previous, Mapping) or previous.get("type") != "council-verdict":
        return False
    meta = record.get("meta") if isinstance(record, Mapping) else None
    return isinstance(meta, Mapping) and previous.get("runId") == meta.get("runId")


def carried_run_facts(previous: Any, record: Mapping[str, Any]) -> dict[str, object] | None:
    """A previous verdict's run facts, when it is a verdict of the same run as `record`."""
    return (run_facts(previous) or None) if same_run(previous, record) else None


def redecide(record: Any, decisions: Any, previous: Any, *, overall_verdict: str | None = None,
             keep_verdict: bool = True, answer: str | None = None) -> Verdict:
    """Stage-4 decisions over a run that may already have a verdict (`previous`, any document).

    Re-deciding keeps what the run decided: a previous verdict of the same run gives its chair's
    `overallVerdict` (unless `overall_verdict` replaces it, or `keep_verdict` is False) and its
    run facts (what was lost, the chair's sections). Anything else in `previous` is ignored.
    `answer` (a question council: the sentence on the chair's ANSWER line) replaces the one the
    run had; it is refused for a review, which has none, and dropped with `keep_verdict` False."""
    overall = overall_verdict
    if overall is None and keep_verdict and same_run(previous, record) \
            and previous.get("overallVerdict") in verdict_scale(record):  # a damaged one is not carried
        overall = previous["overallVerdict"]
    facts = dict(carried_run_facts(previous, record) or {})
    if answer is not None:
        if not answers_chair(record):
            raise BadArgs("an answer is for a question or task council's record; this one is a review's",
                          hint="drop the answer, or pass the tally record of a question or task council")
        if overall is None:
            raise BadArgs("an answer needs the chair's ANSWER standing beside it",
                          hint="pass overallVerdict Converged, Split or Insufficient too, as the chair gave it")
        facts["answer"] = answer
    elif not keep_verdict or overall is None:
        facts.pop("answer", None)  # a sentence never stands without its standing
    return build_verdict(record, decisions, overall_verdict=overall, run=facts or None)


def _finding(finding: Mapping[str, Any], decision: Mapping[str, Any], *, question: bool = False) -> VerdictFinding:
    override = decision.get("tierOverride") or finding.get("tierOverride") or None
    out: VerdictFinding = {
        "id": finding["id"],
        "raiser": finding.get("raiser"),
        "severity": finding.get("severity"),
        "tier": override["to"] if override else finding["tier"],
        "basis": finding["basis"],
        "confidence": finding["confidence"],
        "tierOverride": override,
        "duplicateOf": decision.get("duplicateOf"),
        "adjudications": finding.get("adjudications", []),
        "decision": decision.get("decision"),
        "applied": decision.get("applied", False),
    }
    if finding.get("raiserSeat") is not None:
        out["raiserSeat"] = finding["raiserSeat"]
    if finding.get("sameModelCorroboration") is True:
        out["sameModelCorroboration"] = True
    if finding.get("evidenceCheck") in EVIDENCE_CHECKS:  # emitted when checked: older verdicts are unchanged
        out["evidenceCheck"] = finding["evidenceCheck"]
        if isinstance(finding.get("evidenceLocation"), str):
            out["evidenceLocation"] = finding["evidenceLocation"]
    if finding.get("verification") in VERIFICATIONS:  # --verify: emitted when the verifier answered
        out["verification"] = finding["verification"]
    if isinstance(finding.get("debate"), dict):
        out["debate"] = finding["debate"]
    if question and isinstance(finding.get("claim"), str):  # a key claim is its own content: kept with it
        out["claim"] = finding["claim"]
    return out


def _street_cred_row(row: Mapping[str, Any]) -> VerdictStreetCred:
    out: VerdictStreetCred = {"model": row["model"], "withSelf": row.get("withSelf"), "peersOnly": row.get("peersOnly")}
    if row.get("seat") is not None:
        out["seat"] = row["seat"]
    return out


def _decisions_by_id(decisions: Sequence[Mapping[str, Any]], finding_ids: set[str]) -> dict[str, Mapping[str, Any]]:
    by_id: dict[str, Mapping[str, Any]] = {}
    for decision in decisions:
        if decision["id"] not in finding_ids:
            raise BadArgs(
                f"decision for '{decision['id']}' names no finding in the tally record",
                hint=f"finding ids in this record: {', '.join(sorted(finding_ids)) or '(none)'}",
            )
        if decision["id"] in by_id:
            raise BadArgs(f"two decisions for finding '{decision['id']}'", hint="keep one decision per finding")
        by_id[decision["id"]] = decision
    return by_id


def _check_record(record: Any) -> None:
    if isinstance(record, dict) and record.get("type") != "council-tally" and "adjudications" in record and "meta" in record:
        raise BadArgs(
            "this is a tally input, not a tally record",
            hint="run 'amicus council tally INPUT --json > tally.json' first and pass tally.json",
        )
    problems = schema_errors(record, "council-tally")
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise BadArgs(
            f"not a council-tally record: {'; '.join(problems[:3])}{more}",
            hint="pass the record printed by 'amicus council tally --json'",
        )
    for finding in record["findings"]:  # the schema leaves an override's shape open; the merge reads `to`
        override = finding.get("tierOverride")
        if override and override.get("to") not in TIERS:
            raise BadArgs(f"finding '{finding['id']}' has a tierOverride without a valid 'to' tier",
                          hint=f"an override names the tier it moves to: one of {', '.join(TIERS)}")


def render_verdict_summary(verdict: Verdict, out_path: str) -> str:
    """The human summary `amicus council verdict` prints."""
    counts: dict[str, int] = {}
    for finding in verdict["findings"]:
        label = finding["decision"] if finding["decision"] is not None else "undecided"
        counts[label] = counts.get(label, 0) + 1
    lines = [f"Verdict (schema v{verdict['schemaVersion']}, {verdict['runId']}) → {out_path}"]
    lines += [f"  {label} {n}" for label, n in counts.items()]
    if verdict.get("overallVerdict"):
        line = "ANSWER" if answers_chair(verdict) else "VERDICT"
        answer = f" — {verdict['answer']}" if isinstance(verdict.get("answer"), str) else ""
        lines.append(f"  chair: {line}: {verdict['overallVerdict']}{answer}")
    return "\n".join(lines)
