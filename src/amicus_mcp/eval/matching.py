"""The eval's matching: a case's planted flaws as the matcher's targets (council/matching.py).

One matcher call per case asks, for every finding the pre-filter could place, which planted
flaw it identifies, if any; several findings may name the same flaw. The prompt, the reply's
schema, its reading and the repair are council/matching.py's, shared with the re-review
(`council run --baseline --matcher`); this module says only what the eval's targets are and
how its prompt frames them. Everything here is pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..council import matching
from ..council.matching import Question, Reading
from ..schemas import JsonSchema
from .suite import Case

__all__ = ["Question", "Reading", "frame", "targets", "prompt", "reply_schema", "read_reply", "repair_prompt"]


def _lines(ranges: Sequence[tuple[int, int]]) -> str:
    return ", ".join(f"line {a}" if a == b else f"lines {a}-{b}" for a, b in ranges)


def frame(case: Case) -> matching.Frame:
    return matching.Frame(
        title="Matching review findings to known flaws",
        intro=(f'You are checking a review tool against an answer key. The artifact below, '
               f'"{matching.one_line(case.doc.title)}"\n({case.doc.kind}), had flaws planted in it on purpose; they '
               "are listed under *Planted flaws*.\nReviewers then wrote the findings listed under *Findings*. For "
               "each finding, decide which planted\nflaw it identifies, or none."),
        rule=("A finding identifies a planted flaw when it points at the same underlying problem — the same\n"
              "defect, in substance, at the place the flaw is — even in other words, with another severity or\n"
              "another suggested fix. It identifies none when it is about something else, is too vague to tell,\n"
              "or only touches the same lines for a different reason. A finding names at most one flaw: pick\n"
              "the closest. Several findings may name the same flaw. A finding may only be matched to the\n"
              'flaws listed after "may be matched to"; the others sit elsewhere in the artifact.'),
        targets_heading="Planted flaws", key="flaw", noun="planted flaw", schema_title="eval_matches")


def targets(case: Case) -> list[matching.Target]:
    return [matching.Target(f.id, f"{f.severity}, {f.flaw_class}; {_lines(f.location.ranges())}", f.description)
            for f in case.doc.plantedFlaws]


def prompt(case: Case, questions: Sequence[Question]) -> str:
    """The matcher's prompt for one case (every finding it should answer about)."""
    return matching.prompt(frame(case), targets(case), questions)


def reply_schema(questions: Sequence[Question], flaw_ids: Sequence[str]) -> JsonSchema:
    """The JSON Schema a structured-output matcher is held to (the eval's key is `flaw`)."""
    return matching.reply_schema(_SCHEMA_FRAME, questions, flaw_ids)


def read_reply(text: str, structured: object, questions: Sequence[Question]) -> Reading:
    return matching.read_reply(_SCHEMA_FRAME, text, structured, questions)


def repair_prompt(case: Case, problems: Sequence[str], unanswered: Sequence[Question]) -> str:
    """Ask once more, only about the findings the last reply did not answer well."""
    return matching.repair_prompt(frame(case), targets(case), problems, unanswered)


# The parts of the eval's frame the reply is held to (they do not depend on the case).
_SCHEMA_FRAME = matching.Frame(title="", intro="", rule="", targets_heading="", key="flaw", noun="planted flaw",
                               schema_title="eval_matches")
