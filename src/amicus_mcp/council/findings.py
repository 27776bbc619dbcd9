"""Stage-1 findings validation, and the one fenced-json extractor every parser shares.

A Stage-1 review is prose followed by a trailing fenced block::

    ```json
    {"overall": "...", "findings": [{"id": 1, "severity": "major", "claim": "...",
                                      "location": "...", "rationale": "..."}]}
    ```

`validate_findings` checks that block and returns ``{ok, findings, errors}`` where every
error is ``{code, detail}``. Codes, in the order the checks run:

- ``NO_FENCED_BLOCK``   no closed ```json block at all (detail: "no ```json block found").
- ``NOT_PARSEABLE``     the block is not JSON, or it holds no findings object at all: a body
                        that parses to null (or another JSON falsy scalar: false, 0, "" — the
                        original's `!parsed`). It returns before the empty-set rule, so a
                        broken emit is never mistaken for "I found nothing".
- ``EMPTY_FINDINGS``    the block parses to a value but has no findings array: it is not an
                        object (123, "text", true, an array, ...), or ``findings`` is missing or not an
                        array; or an empty array while ``overall`` is missing, blank or not a
                        string. An empty array with a real ``overall`` is a clean review, and
                        clean reviews are valid.
- per finding, in position order (every finding is checked, every error reported):
  ``DUPLICATE_ID`` (the id repeats an earlier finding's id), else ``NON_SEQUENTIAL_ID``
  (the id is not the integer equal to its 1-based position; a boolean or a float such as
  1.0 is not an integer), then ``BAD_SEVERITY`` (not blocker|major|minor|nit, exact case),
  then ``MISSING_FIELD`` for each of claim, location, rationale that is not a non-empty
  string. A finding that is not an object at all yields one ``MISSING_FIELD``.

``findings`` is echoed exactly as parsed when ``ok``, and is ``[]`` otherwise. The CLI
``council validate --json`` document is ``validate_document(result)``.

`last_json_block` implements the shared rule for "the last fenced json block" (amicus-facts
§5.1); the judge, debate and re-vote parsers in `parse.py` read blocks only through
`read_last_json_block`, so every stage agrees on which block counts.

Pure: no I/O. Model text is untrusted data; nothing here raises on any input string.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TypedDict

from ..errors import BadArgs
from ..fsio import loads_json
from ..schemas import JsonObject
from ..vocabulary import FINDINGS_ERROR_CODES, SEVERITIES, word_in

if TYPE_CHECKING:  # the document's declaration (schemas/council-validate.schema.json is generated from it)
    from ..documents.validate import ReviewProblem, ReviewValidation

TEXT_FIELDS: tuple[str, ...] = ("claim", "location", "rationale")
VALIDATE_SCHEMA_VERSION: Final = 2
NO_BLOCK_DETAIL = "no ```json block found"
BLOCK = "the last ```json block"  # what a NOT_PARSEABLE detail says could not be read

# An opener is ```json plus optional spaces/tabs and a newline; it need not start a line.
_OPENER = re.compile(r"```json[ \t]*\r?\n")
_LINE_START_FENCE = re.compile(r"^```", re.MULTILINE)
_ANY_FENCE = re.compile(r"```")
_SHOW_LIMIT = 60  # model-supplied values quoted in details are cut to this many characters


class ErrorEntry(TypedDict):
    code: str
    detail: str


class FindingsResult(TypedDict):
    ok: bool
    findings: list[Any]
    errors: list[ErrorEntry]


class BlockRead(NamedTuple):
    """The decoded last json block: `value` is meaningful only when `error` is None."""

    value: Any
    error: ErrorEntry | None


class _Unparseable(Exception):
    pass


def make_error(code: str, detail: str) -> ErrorEntry:
    return {"code": code, "detail": detail}


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, for error details."""
    if value is None:
        return "null"
    if isinstance(value, bool):  # before int: bool is an int subclass
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def show(value: Any) -> str:
    """A short, single-line rendering of a model-supplied value for an error detail."""
    try:
        text = f"'{value}'" if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError):  # pathological nesting: name the type instead
        text = f"<{json_type(value)}>"
    text = " ".join(text.split())  # keep details on one line whatever the model sent
    return text if len(text) <= _SHOW_LIMIT else text[: _SHOW_LIMIT - 3] + "..."


def is_json_integer(value: Any) -> bool:
    # JSON-level integers only: true/false and 1.0 decode to bool/float and are refused.
    return isinstance(value, int) and not isinstance(value, bool)


def _loads(body: str) -> Any:
    """The one strict JSON reader (NaN, Infinity, 1e999 and 5,000-digit integers refused, as
    for every document amicus reads); raises _Unparseable with its reason."""
    try:
        return loads_json(body, what=BLOCK)
    except BadArgs as exc:
        raise _Unparseable(exc.message) from None


def _readings(text: str, body_start: int) -> list[str]:
    """Both readings of one opener: up to the first line-start fence, then up to any fence."""
    out = []
    for fence in (_LINE_START_FENCE, _ANY_FENCE):
        match = fence.search(text, body_start)
        if match:
            out.append(text[body_start : match.start()])
    return out


class _Found(NamedTuple):
    body: str | None  # None when no opener was ever closed
    value: Any  # the decoded JSON when `failure` is None
    failure: str | None  # why the fallback body did not parse


def _find_last_block(text: str) -> _Found:
    """The §5.1 walk: last opener first, primary reading before the any-fence reading."""
    fallback: _Found | None = None
    for opener in reversed(list(_OPENER.finditer(text))):
        for body in _readings(text, opener.end()):
            try:
                return _Found(body, _loads(body), None)
            except _Unparseable as exc:
                # The last closed opener's first reading is what callers report on.
                if fallback is None:
                    fallback = _Found(body, None, str(exc))
    return fallback if fallback is not None else _Found(None, None, None)


def last_json_block(text: str) -> str | None:
    """The body of the last fenced json block (amicus-facts §5.1).

    Every ```json opener is read two ways: up to the first fence at a line start (primary)
    and up to the first fence anywhere (so a block closed mid-line still reads). Walking
    openers last to first, the first reading that parses as JSON wins; a ``` inside a JSON
    string therefore cannot truncate a block. When no reading parses, the last closed
    opener's primary body is returned (its any-fence body if it has no line-start fence)
    so the caller reports NOT_PARSEABLE; when no opener is ever closed, None.
    """
    return _find_last_block(text).body


def read_last_json_block(text: str) -> BlockRead:
    """The last json block decoded, or a NO_FENCED_BLOCK / NOT_PARSEABLE error."""
    found = _find_last_block(text)
    if found.body is None:
        return BlockRead(None, make_error("NO_FENCED_BLOCK", NO_BLOCK_DETAIL))
    if found.failure is not None:
        return BlockRead(None, make_error("NOT_PARSEABLE", found.failure))
    return BlockRead(found.value, None)


def read_object(text: str, code: str = "EMPTY_FINDINGS",
                what: str = "a findings array") -> tuple[JsonObject | None, ErrorEntry | None]:
    """The block as a JSON object. A block that parses to anything else (null, a scalar such
    as 123, an array) parsed fine but is not the object asked for: `code` (for a review,
    EMPTY_FINDINGS — seed 000)."""
    value, error = read_last_json_block(text)
    if error:
        return None, error
    if value is None or (value in (False, 0, "") and not isinstance(value, (list, dict))):
        # Nothing there at all (the original's `!parsed`): not a findings object, so unreadable.
        return None, make_error("NOT_PARSEABLE", f"the last ```json block is {json.dumps(value)}: it holds no object")
    if not isinstance(value, dict):
        detail = f"the last ```json block is {json_type(value)}, not an object with {what}"
        return None, make_error(code, detail)
    return value, None


def _empty_set_error(block: Mapping[str, Any]) -> ErrorEntry | None:
    """EMPTY_FINDINGS for a missing/non-array findings, or an empty one with no overall."""
    if "findings" not in block:
        return make_error("EMPTY_FINDINGS", "findings is missing (use [] for a clean review)")
    findings = block["findings"]
    if not isinstance(findings, list):
        return make_error("EMPTY_FINDINGS", f"findings must be an array, got {json_type(findings)}")
    if findings:
        return None
    overall = block.get("overall")
    if not isinstance(overall, str):
        why = "missing" if "overall" not in block else f"{json_type(overall)}, not a string"
    elif not overall.strip():
        why = "blank"
    else:
        return None
    detail = f"findings is empty and overall is {why}; a clean review must say so in overall"
    return make_error("EMPTY_FINDINGS", detail)


def _id_key(value: Any) -> str | None:
    """A type-exact identity for duplicate detection (so 1, 1.0 and true stay distinct)."""
    if value is None:
        return None  # a missing id is reported as non-sequential, not as a duplicate
    try:
        return json.dumps(value, sort_keys=True)
    except (ValueError, RecursionError):  # pathological nesting: still non-sequential
        return None


def id_error(pos: int, item: Mapping[str, Any], seen: dict[str, int], noun: str = "finding") -> ErrorEntry | None:
    """DUPLICATE_ID when the id repeats an earlier one, else NON_SEQUENTIAL_ID if it is wrong.
    `noun` names the item in the detail (a review's finding, an answer's claim)."""
    fid = item.get("id")
    key = _id_key(fid)
    if key is not None and key in seen:
        detail = f"{noun} {pos}: id {show(fid)} is already used by {noun} {seen[key]}"
        return make_error("DUPLICATE_ID", detail)
    if key is not None:
        seen[key] = pos
    problem = _sequence_problem(pos, item)
    return make_error("NON_SEQUENTIAL_ID", f"{noun} {pos}: {problem}") if problem else None


def _sequence_problem(pos: int, finding: Mapping[str, Any]) -> str | None:
    if "id" not in finding:
        return f"id is missing (expected {pos})"
    fid = finding["id"]
    if not is_json_integer(fid):
        return f"id {show(fid)} is not an integer (expected {pos})"
    if fid != pos:
        return f"id {fid} should be {pos} (ids run 1..n in order)"
    return None


def _severity_error(pos: int, finding: Mapping[str, Any]) -> ErrorEntry | None:
    allowed = ", ".join(SEVERITIES)
    if "severity" not in finding:
        return make_error("BAD_SEVERITY", f"finding {pos}: severity is missing (one of {allowed})")
    severity = finding["severity"]
    if isinstance(severity, str) and severity in SEVERITIES:
        return None
    detail = f"finding {pos}: severity {show(severity)} is not one of {allowed}"
    return make_error("BAD_SEVERITY", detail)


def _field_errors(pos: int, finding: Mapping[str, Any]) -> list[ErrorEntry]:
    errors = []
    for name in TEXT_FIELDS:
        value = finding.get(name)
        if name not in finding:
            why = "is missing"
        elif not isinstance(value, str):
            why = f"must be a string, got {json_type(value)}"
        elif not value.strip():
            why = "is blank"
        else:
            continue
        errors.append(make_error("MISSING_FIELD", f"finding {pos}: {name} {why}"))
    return errors


def _not_object(finding: Any) -> str:
    fields = ", ".join(("id", "severity", *TEXT_FIELDS))
    return f"is {json_type(finding)}, not an object with {fields}"


def _finding_errors(findings: list[Any]) -> list[ErrorEntry]:
    errors: list[ErrorEntry] = []
    seen: dict[str, int] = {}
    for pos, finding in enumerate(findings, start=1):
        if not isinstance(finding, dict):
            errors.append(make_error("MISSING_FIELD", f"finding {pos}: {_not_object(finding)}"))
            continue
        for err in (id_error(pos, finding, seen), _severity_error(pos, finding)):
            if err:
                errors.append(err)
        errors.extend(_field_errors(pos, finding))
    return errors


def validate_findings(text: str) -> FindingsResult:
    """Validate a Stage-1 review's trailing findings block (see the module docstring)."""
    block, error = read_object(text)
    if block is None:
        return _result([error] if error else [], [])
    empty = _empty_set_error(block)
    if empty:
        return _result([empty], [])
    findings = block["findings"]
    assert isinstance(findings, list)  # _empty_set_error refused any other findings
    return _result(_finding_errors(findings), findings)


def _result(errors: list[ErrorEntry], findings: list[Any]) -> FindingsResult:
    ok = not errors
    return {"ok": ok, "findings": findings if ok else [], "errors": errors}


def count_attempted_findings(text: str) -> int | None:
    """How many findings the block declares (valid or not); None without a findings array.

    A repair is checked against this count: it may fix findings, never add or drop them.
    """
    block, _ = read_object(text)
    findings = block.get("findings") if block is not None else None
    return len(findings) if isinstance(findings, list) else None


def validate_document(result: FindingsResult) -> ReviewValidation:
    """The `council validate --json` document for a `validate_findings` result."""
    return {
        "schemaVersion": VALIDATE_SCHEMA_VERSION,
        "type": "council-validate",
        "ok": bool(result["ok"]),
        "findings": list(result["findings"]),
        "errors": [_review_problem(e) for e in result["errors"]],
    }


def _review_problem(entry: ErrorEntry) -> ReviewProblem:
    code = word_in(entry["code"], FINDINGS_ERROR_CODES)
    if code is None:  # every code above is one: a new one must join vocabulary.FindingsErrorCode
        raise ValueError(f"'{entry['code']}' is not a findings error code")
    return {"code": code, "detail": entry["detail"]}
