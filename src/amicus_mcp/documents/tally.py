"""Typed shapes of the documents amicus reads from users and other tools, checked by pydantic.

They validate *input* strictly (a string is not silently coerced to a number) and turn every
problem into one `BadArgs` that names the field. Whatever front the document came through
(a file, an MCP call), it is first checked to be plain strict JSON (`fsio.check_json_tree`:
finite numbers in range, bounded nesting, encodable strings). Extra keys are allowed, because the family
grows additively: an older reader must accept a newer document.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, with_config
from typing_extensions import NotRequired, TypedDict

from ..errors import BadArgs
from ..fsio import check_json_tree
from ..vocabulary import EvidenceCheck, Intent, Tier, Verification


# TypedDicts rather than BaseModels: validation builds no model instances, which keeps a
# 2*10^5-vote tally input cheap to check (the tally itself works on the plain dicts).
_OPEN = ConfigDict(extra="allow", strict=True)


@with_config(_OPEN)
class TallyMeta(TypedDict):
    runId: str
    models: Annotated[list[str], Field(min_length=1)]
    runType: NotRequired[str | None]
    date: NotRequired[str | None]
    chair: NotRequired[str | None]
    claudeInCouncil: NotRequired[bool | None]
    intent: NotRequired[Annotated[Intent, Field(description=(
        "question: a question council's tally, whose findings are the answers' key claims (severity and location "
        "may be absent). task: a task council's (findings as a review's; its chair closes on an ANSWER line; no "
        "ledger rows). Absent means review."))]]
    seats: NotRequired[Annotated[Any, Field(description=(  # deliberately unconstrained: consumers tolerate any shape
        "Optional seat table {id, alias, role, lens, position}[]; deliberately unconstrained."))]]


@with_config(_OPEN)
class TallyFinding(TypedDict):
    id: Annotated[str, Field(min_length=1)]
    raiser: NotRequired[str | None]
    severity: NotRequired[str | None]
    claim: NotRequired[str | None]
    location: NotRequired[str | None]
    raiserSeat: NotRequired[str | None]
    evidence: NotRequired[Annotated[str | None, Field(
        description="Optional: the verbatim quote from the material the finding rests on.")]]
    evidenceCheck: NotRequired[Annotated[EvidenceCheck | None, Field(  # council/evidence.py's check of that quote
        description="Optional: the deterministic check of `evidence` against the material the run read (verified, "
                    "moved, not-found, absent).")]]
    evidenceLocation: NotRequired[Annotated[str | None, Field(
        description="Optional: where the check found the quote (path:line or path:first-last).")]]
    verification: NotRequired[Annotated[Verification | None, Field(
        description="Optional (--verify): the verifier's answer after checking the finding against the source.")]]
    verificationLines: NotRequired[Annotated[list[str], Field(
        description="Optional (--verify): the source lines the verifier relied on.")]]
    verificationReason: NotRequired[Annotated[str | None, Field(
        description="Optional (--verify): the verifier's one-sentence reason (model text).")]]
    verificationToolCalls: NotRequired[Annotated[int, Field(ge=0, description=(
        "Optional (--verify, a verifier whose model supports tool calling): how many read-only tool calls it made "
        "(its leg's toolCalls in run.json)."))]]


@with_config(_OPEN)
class TallyVote(TypedDict):
    findingId: str
    judge: NotRequired[str | None]  # missing or "" is tolerated: such a vote is unattributable
    verdict: Annotated[str, Field(  # unknown verdict strings are ignored by the tally, not rejected
        description="agree | dispute | neutral; other strings are ignored by the tally")]
    seat: NotRequired[str | None]


RankSlot = str | list[str]
SeatSlot = str | None | list[str | None]


@with_config(_OPEN)
class TallyRanking(TypedDict):
    judge: NotRequired[str | None]
    order: list[RankSlot]
    seat: NotRequired[str | None]
    orderSeats: NotRequired[list[SeatSlot] | None]


@with_config(_OPEN)
class RunStat(TypedDict):
    model: str
    role: NotRequired[str | None]
    wasChair: NotRequired[bool | None]
    conformance: NotRequired[str | None]
    status: NotRequired[str | None]
    durationMs: NotRequired[int | float | None]
    usage: NotRequired[dict[str, object] | None]  # the leg's usage block (documents/usage.py), passed through as JSON
    waveId: NotRequired[str | None]
    resolvedModel: NotRequired[str | None]
    seat: NotRequired[str | None]


@with_config(_OPEN)
class TallyInput(TypedDict):
    meta: TallyMeta
    findings: list[TallyFinding]
    adjudications: list[TallyVote]
    rankings: list[TallyRanking]
    runStats: NotRequired[list[RunStat]]


# The functional form, as `from` is a keyword; `with_config` marks the class in place.
TierOverride = TypedDict("TierOverride", {"from": NotRequired[str | None], "to": Tier, "reason": NotRequired[str | None]})
with_config(_OPEN)(TierOverride)


@with_config(_OPEN)
class Decision(TypedDict):
    id: str
    decision: NotRequired[str | None]
    applied: NotRequired[bool]
    duplicateOf: NotRequired[str | None]
    tierOverride: NotRequired[TierOverride | None]
    reason: NotRequired[str | None]  # the user's why: kept with an accept / deny in the decisions memory


@cache
def _tally_input_adapter() -> TypeAdapter[TallyInput]:
    # Built on first use, not on import: a process that imports the tally and never checks an
    # input (the MCP server until its first tally call) does not pay for building the validator.
    return TypeAdapter(TallyInput)


@cache
def _decisions_adapter() -> TypeAdapter[list[Decision]]:
    return TypeAdapter(list[Decision])


def check_tally_input(doc: Any) -> None:
    """Raise BadArgs naming the first problems when `doc` is not a usable tally input."""
    if not isinstance(doc, dict):
        raise BadArgs(
            f"tally input must be a JSON object, got {_json_type(doc)}",
            hint="pass the five-key object {meta, findings, adjudications, rankings, runStats}",
        )
    check_json_tree(doc, what="tally input")
    _validate(_tally_input_adapter(), doc, "tally input")
    seen: set[str] = set()
    for finding in doc["findings"]:
        if finding["id"] in seen:
            raise BadArgs(f"tally input has two findings with id '{finding['id']}'", hint="finding ids are run-global and unique (A1, A2, B1, …)")
        seen.add(finding["id"])


def check_decisions(doc: Any) -> None:
    if not isinstance(doc, list):
        raise BadArgs(
            f"decisions must be a JSON array, got {_json_type(doc)}",
            hint='pass [{"id": "A1", "decision": "accepted", "applied": true}, …]',
        )
    check_json_tree(doc, what="decisions")
    _validate(_decisions_adapter(), doc, "decisions", root="decisions")


def _validate(adapter: TypeAdapter[Any], doc: Any, what: str, *, root: str = "") -> None:
    try:
        adapter.validate_python(doc)
    except ValidationError as exc:
        problems = exc.errors(include_url=False)
        first = "; ".join(_describe(p, root) for p in problems[:3])
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise BadArgs(f"{what} is invalid: {first}{more}", hint=f"see the {what} schema in schemas/") from None


def _describe(problem: Any, root: str) -> str:
    path = root
    for part in problem["loc"]:
        # pydantic reports union branches ('str', 'list[str]') in the location; they are noise.
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in ("str", "list[str]", "list[union[str,none]]", "none", "function-after", "union[str,none]"):
            continue
        else:
            path += f".{part}" if path else str(part)
    return f"{path or '(root)'}: {problem['msg']}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(type(value), type(value).__name__)
