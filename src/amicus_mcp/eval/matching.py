"""The matcher: its prompt, the schema its reply is held to, and how its reply is read.

One matcher call per case asks, for every finding the pre-filter could place, which planted
flaw it identifies, if any. The prompt shows the case's planted flaws (id, severity, class,
lines, description) and each finding (its run-global id, severity, location, claim and
rationale) with the candidate flaws it may be matched to. It never shows who raised a finding:
no seat, model or alias appears in it, so the matcher cannot favour one reviewer.

A reply names, for each finding asked about, one candidate flaw or null, with a one-line
reason. `read_reply` keeps every well-formed entry and reports the rest, so the runner can ask
again once for what is missing; whatever is still unanswered is recorded `undecided`, never
guessed. Everything here is pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..council.findings import read_last_json_block
from ..schemas import JsonSchema
from .suite import Case

REASON_MAX = 300


class Question(NamedTuple):
    """One finding to match, and the flaws it may be matched to."""

    finding: str  # the tally's run-global finding id (A1, B2 …)
    severity: str
    location: str
    claim: str
    rationale: str
    candidates: tuple[str, ...]


@dataclass
class Reading:
    """What a matcher reply answered: finding id → (flaw id or None, reason); and its problems."""

    answers: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def _lines(ranges: Sequence[tuple[int, int]]) -> str:
    return ", ".join(f"line {a}" if a == b else f"lines {a}-{b}" for a, b in ranges)


def prompt(case: Case, questions: Sequence[Question]) -> str:
    """The matcher's prompt for one case (every finding it should answer about)."""
    flaws = "\n".join(
        f"- **{f.id}** ({f.severity}, {f.flaw_class}; {_lines(f.location.ranges())}): {_one_line(f.description)}"
        for f in case.doc.plantedFlaws)
    items = "\n\n".join(
        f"### {q.finding} ({q.severity})\n"
        f"- location: {_one_line(q.location)}\n"
        f"- claim: {_one_line(q.claim)}\n"
        f"- rationale: {_one_line(q.rationale)}\n"
        f"- may be matched to: {', '.join(q.candidates)}"
        for q in questions)
    example = json.dumps({"matches": [{"finding": questions[0].finding, "flaw": questions[0].candidates[0],
                                       "reason": "names the same defect at the same place"}]} if questions else
                         {"matches": []}, indent=2)
    return f"""# Matching review findings to known flaws

You are checking a review tool against an answer key. The artifact below, "{_one_line(case.doc.title)}"
({case.doc.kind}), had flaws planted in it on purpose; they are listed under *Planted flaws*.
Reviewers then wrote the findings listed under *Findings*. For each finding, decide which planted
flaw it identifies, or none.

A finding identifies a planted flaw when it points at the same underlying problem — the same
defect, in substance, at the place the flaw is — even in other words, with another severity or
another suggested fix. It identifies none when it is about something else, is too vague to tell,
or only touches the same lines for a different reason. A finding names at most one flaw: pick
the closest. Several findings may name the same flaw. A finding may only be matched to the
flaws listed after "may be matched to"; the others sit elsewhere in the artifact.

## Planted flaws

{flaws}

## Findings

{items}

## Your answer

End your reply with exactly one fenced `json` block, nothing after it, with one entry per finding
above: `finding` is its id, `flaw` a planted flaw id or null, `reason` one short line. For example:

```json
{example}
```
"""


def reply_schema(questions: Sequence[Question], flaw_ids: Sequence[str]) -> JsonSchema:
    """The JSON Schema a structured-output matcher is held to."""
    return {
        "title": "eval_matches",
        "type": "object",
        "required": ["matches"],
        "additionalProperties": False,
        "properties": {"matches": {"type": "array", "items": {
            "type": "object",
            "required": ["finding", "flaw", "reason"],
            "additionalProperties": False,
            "properties": {
                "finding": {"enum": [q.finding for q in questions] or [""]},
                "flaw": {"anyOf": [{"enum": list(flaw_ids) or [""]}, {"type": "null"}]},
                "reason": {"type": "string"},
            },
        }}},
    }


def read_reply(text: str, structured: Any, questions: Sequence[Question]) -> Reading:
    """The answers a reply gives (its structured value when the provider held it to the schema,
    else the last json block of its text), and what is wrong with the rest."""
    reading = Reading()
    value = structured
    if not isinstance(value, Mapping):
        block = read_last_json_block(text or "")
        if block.error is not None:
            reading.problems.append(f"{block.error['code']}: {block.error['detail']}")
            return reading
        value = block.value
    entries = value.get("matches") if isinstance(value, Mapping) else None
    if not isinstance(entries, list):
        reading.problems.append("the json block has no `matches` array")
        return reading
    asked = {q.finding: q for q in questions}
    for position, entry in enumerate(entries):
        problem = _entry_problem(entry, asked, reading.answers)
        if problem:
            reading.problems.append(f"matches[{position}]: {problem}")
            continue
        reason = _one_line(entry.get("reason", ""))[:REASON_MAX]
        reading.answers[entry["finding"]] = (entry["flaw"], reason)
    missing = [q.finding for q in questions if q.finding not in reading.answers]
    if missing:
        reading.problems.append(f"no answer for {', '.join(missing)}")
    return reading


def _entry_problem(entry: Any, asked: Mapping[str, Question], answered: Mapping[str, Any]) -> str | None:
    if not isinstance(entry, Mapping):
        return "not an object"
    finding, flaw, reason = entry.get("finding"), entry.get("flaw", "missing"), entry.get("reason")
    if not isinstance(finding, str) or finding not in asked:
        return f"`finding` {json.dumps(finding)[:40]} is not one of the findings asked about"
    if finding in answered:
        return f"{finding} is answered twice"
    if flaw is not None and (not isinstance(flaw, str) or flaw not in asked[finding].candidates):
        return f"`flaw` for {finding} must be one of {', '.join(asked[finding].candidates)} or null"
    if not isinstance(reason, str):
        return f"`reason` for {finding} must be a string"
    return None


def repair_prompt(case: Case, problems: Sequence[str], unanswered: Sequence[Question]) -> str:
    """Ask once more, only about the findings the last reply did not answer well."""
    listed = "\n".join(f"- {p}" for p in problems[:10])
    return (f"{prompt(case, unanswered)}\nYour previous answer could not be used:\n\n{listed}\n\n"
            "Answer again, for the findings above only.\n")
