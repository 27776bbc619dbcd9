"""Stage-1 answers of a question council: the answer block, validated like a findings block.

A question council's seat answers the question in prose (its reasoning), then ends with one
fenced block::

    ```json
    {"answer": "Postgres: the workload is relational and small.",
     "claims": [{"id": 1, "claim": "The workload needs multi-row transactions."}],
     "assumptions": ["The team already runs Postgres."],
     "confidence": "medium"}
    ```

`validate_answer` checks that block and returns ``{ok, answer, claims, assumptions,
confidence, errors}``. The key claims are the question council's findings: each is a short
checkable statement with a sequential id, judged agree / dispute / neutral by every judge and
tiered by the same tally. Codes, in the order the checks run:

- ``NO_FENCED_BLOCK`` / ``NOT_PARSEABLE``  as for a review (one extractor for every stage).
- ``MISSING_ANSWER``   the block is not an object, or ``answer`` is missing, not a string or blank.
- ``BAD_CLAIMS``       ``claims`` is missing or not an array (``[]`` is allowed: an answer that
                       rests on nothing checkable says so by listing none).
- per claim, in position order: ``DUPLICATE_ID`` else ``NON_SEQUENTIAL_ID`` (the same rules
  as a finding's id), then ``MISSING_FIELD`` when ``claim`` is not a non-empty string (a claim
  that is not an object at all yields one ``MISSING_FIELD``).
- ``BAD_ASSUMPTIONS``  ``assumptions`` is missing, or not an array of strings.
- ``BAD_CONFIDENCE``   ``confidence`` is not one of high, medium, low (exact lowercase).

Every error is reported at once (a repair fixes them together). The parts are echoed as
parsed only when ``ok``. Pure: no I/O; nothing here raises on any input string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from ..vocabulary import ANSWER_CONFIDENCES, ANSWER_ERROR_CODES, word_in
from .findings import ErrorEntry, id_error, json_type, make_error, read_object, show

if TYPE_CHECKING:  # the document's declaration (schemas/council-validate.schema.json is generated from it)
    from ..documents.validate import AnswerProblem, AnswerValidation

class Claim(TypedDict):
    """A key claim as validated (the model's other keys, if any, ride along unread)."""

    id: int
    claim: str


class AnswerResult(TypedDict):
    ok: bool
    answer: str | None
    claims: list[Claim]
    assumptions: list[str]
    confidence: str | None
    errors: list[ErrorEntry]


def validate_answer(text: str) -> AnswerResult:
    """Validate a Stage-1 answer's trailing block (see the module docstring)."""
    block, error = read_object(text, "MISSING_ANSWER", "an answer")
    if block is None:
        return _result([error] if error else [], block)
    errors = [e for e in (_answer_error(block),) if e]
    errors += _claims_errors(block)
    errors += [e for e in (_assumptions_error(block), _confidence_error(block)) if e]
    return _result(errors, block)


def _result(errors: list[ErrorEntry], block: Mapping[str, Any] | None) -> AnswerResult:
    if errors or block is None:
        return {"ok": False, "answer": None, "claims": [], "assumptions": [], "confidence": None, "errors": errors}
    return {"ok": True, "answer": block["answer"], "claims": list(block["claims"]),
            "assumptions": list(block["assumptions"]), "confidence": block["confidence"], "errors": []}


def _text_problem(item: Mapping[str, Any], key: str) -> str | None:
    """Why `item[key]` is not a non-empty string, or None when it is one."""
    value = item.get(key)
    if key not in item:
        return "is missing"
    if not isinstance(value, str):
        return f"must be a string, got {json_type(value)}"
    return "is blank" if not value.strip() else None


def _answer_error(block: Mapping[str, Any]) -> ErrorEntry | None:
    why = _text_problem(block, "answer")
    return make_error("MISSING_ANSWER", f"answer {why}; answer the question asked") if why else None


def _claims_errors(block: Mapping[str, Any]) -> list[ErrorEntry]:
    if "claims" not in block:
        return [make_error("BAD_CLAIMS", "claims is missing (use [] when the answer rests on nothing checkable)")]
    claims = block["claims"]
    if not isinstance(claims, list):
        return [make_error("BAD_CLAIMS", f"claims must be an array, got {json_type(claims)}")]
    errors: list[ErrorEntry] = []
    seen: dict[str, int] = {}
    for pos, claim in enumerate(claims, start=1):
        if not isinstance(claim, dict):
            errors.append(make_error("MISSING_FIELD", f"claim {pos}: is {json_type(claim)}, not an object with id, claim"))
            continue
        err = id_error(pos, claim, seen, noun="claim")
        if err:
            errors.append(err)
        why = _text_problem(claim, "claim")
        if why:
            errors.append(make_error("MISSING_FIELD", f"claim {pos}: claim {why}"))
    return errors


def _assumptions_error(block: Mapping[str, Any]) -> ErrorEntry | None:
    if "assumptions" not in block:
        return make_error("BAD_ASSUMPTIONS", "assumptions is missing (use [] when you assumed nothing)")
    value = block["assumptions"]
    if not isinstance(value, list):
        return make_error("BAD_ASSUMPTIONS", f"assumptions must be an array of strings, got {json_type(value)}")
    bad = next((item for item in value if not isinstance(item, str)), None)
    if bad is not None or any(not item.strip() for item in value if isinstance(item, str)):
        shown = show(bad) if bad is not None else "a blank string"
        return make_error("BAD_ASSUMPTIONS", f"assumptions holds {shown}; each assumption is a non-empty string")
    return None


def _confidence_error(block: Mapping[str, Any]) -> ErrorEntry | None:
    value = block.get("confidence")
    if isinstance(value, str) and value in ANSWER_CONFIDENCES:
        return None
    allowed = ", ".join(ANSWER_CONFIDENCES)
    problem = f"is missing (one of {allowed})" if "confidence" not in block else f"{show(value)} is not one of {allowed}"
    return make_error("BAD_CONFIDENCE", f"confidence {problem}")


def count_attempted_claims(text: str) -> int | None:
    """How many claims the block declares (valid or not); None without a claims array. A repair
    is checked against this count: it may fix the claims' form, never add or drop one."""
    block, _ = read_object(text, "MISSING_ANSWER", "an answer")
    claims = block.get("claims") if block is not None else None
    return len(claims) if isinstance(claims, list) else None


class AnswerDetails(TypedDict):
    """What the judges and the chair read of a valid answer besides its claims."""

    answer: str | None
    assumptions: list[str]
    confidence: str | None


def answer_details(parsed: AnswerResult) -> AnswerDetails:
    """What the judges and the chair read of a valid answer besides its claims."""
    return {"answer": parsed["answer"], "assumptions": list(parsed["assumptions"]), "confidence": parsed["confidence"]}


def validate_document(result: AnswerResult) -> AnswerValidation:
    """The `council validate --intent question --json` document (the council-validate family:
    `findings` holds the answer's claims, `answer` the rest when it is valid)."""
    doc: AnswerValidation = {
        "schemaVersion": 2,
        "type": "council-validate",
        "ok": bool(result["ok"]),
        "findings": list(result["claims"]),
        "errors": [_answer_problem(e) for e in result["errors"]],
        "intent": "question",
    }
    answer, confidence = result["answer"], word_in(result["confidence"], ANSWER_CONFIDENCES)
    if result["ok"] and answer is not None and confidence is not None:  # a valid answer has both
        doc["answer"] = {"answer": answer, "assumptions": list(result["assumptions"]), "confidence": confidence}
    return doc


def _answer_problem(entry: ErrorEntry) -> AnswerProblem:
    code = word_in(entry["code"], ANSWER_ERROR_CODES)
    if code is None:  # every code above is one: a new one must join vocabulary.AnswerErrorCode
        raise ValueError(f"'{entry['code']}' is not an answer error code")
    return {"code": code, "detail": entry["detail"]}
