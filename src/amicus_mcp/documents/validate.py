"""`council validate --json`: a Stage-1 block checked (schemas/council-validate.schema.json is
generated from these declarations). A review's findings block (council/findings.py) or, with
`--intent question`, a question council's answer block (council/answers.py): one document each,
told apart by `intent`. The writers import these for type checking only."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, with_config
from pydantic.json_schema import JsonDict
from typing_extensions import NotRequired, TypedDict

from ..vocabulary import AnswerConfidence, AnswerErrorCode, FindingsErrorCode, Severity

Text = Annotated[str, Field(pattern=r"\S")]  # model text that is not blank
Position = Annotated[int, Field(ge=1)]

# `ok` is true exactly when `errors` is empty; the findings are echoed only when ok.
_OK_RULE: JsonDict = {"if": {"properties": {"ok": {"const": True}}},
            "then": {"properties": {"errors": {"maxItems": 0}}},
            "else": {"properties": {"findings": {"maxItems": 0}, "errors": {"minItems": 1}}}}
_FINDINGS = ("The findings (an answer: its key claims) exactly as parsed from the last ```json block (extra keys kept). "
             "Ids run 1..n in order; the sequence rule is checked by the validator, not expressible here.")
_ERRORS = ("Every problem found, in check order: block-level codes stop the check; per-finding codes are listed "
           "finding by finding.")


class ReviewFinding(TypedDict):
    id: Position
    severity: Severity
    claim: Text
    location: Text
    rationale: Text


class ReviewProblem(TypedDict):
    code: FindingsErrorCode
    detail: Annotated[str, Field(min_length=1)]


@with_config(ConfigDict(json_schema_extra={
    "not": {"anyOf": [{"required": ["intent"]}, {"required": ["answer"]}]},  # those are an answer's
    "allOf": [_OK_RULE]}))
class ReviewValidation(TypedDict):
    """A review's findings block checked (`council validate FILE --json`)."""

    schemaVersion: Literal[2]
    type: Literal["council-validate"]
    ok: bool
    findings: Annotated[list[ReviewFinding], Field(description=_FINDINGS)]
    errors: Annotated[list[ReviewProblem], Field(description=_ERRORS)]


class AnswerClaim(TypedDict):
    id: Position
    claim: Text


class AnswerProblem(TypedDict):
    code: AnswerErrorCode
    detail: Annotated[str, Field(min_length=1)]


class ValidAnswer(TypedDict):
    answer: Text
    assumptions: list[str]
    confidence: AnswerConfidence


@with_config(ConfigDict(json_schema_extra={"allOf": [_OK_RULE]}))
class AnswerValidation(TypedDict):
    """A question council's answer block checked (`council validate FILE --intent question --json`)."""

    schemaVersion: Literal[2]
    type: Literal["council-validate"]
    ok: bool
    findings: Annotated[list[AnswerClaim], Field(description=_FINDINGS)]
    errors: Annotated[list[AnswerProblem], Field(description=_ERRORS)]
    intent: Annotated[Literal["question"], Field(
        description="present when the file was checked as a question council's answer")]
    answer: NotRequired[Annotated[ValidAnswer, Field(
        description="A valid answer's answer, assumptions and confidence (question only).")]]


ValidateDocument = ReviewValidation | AnswerValidation
