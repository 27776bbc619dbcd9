"""Parsing model output after Stage 1: judge blocks, rankings, verdict lines, debate.

Every fenced-block read goes through `findings.read_last_json_block`, so all stages agree
on which ```json block counts (the last one that parses). Model text is untrusted data:
these functions never raise on any model text, and they never let model text pick a key
the caller did not expect (only caller mistakes raise: an unknown scale, a label with no
alias).

Stage 2 — `parse_judge_output(text, labels, finding_ids)`. The judge ends with
``{"ranking": [...], "adjudications": [{"id": "A1", "verdict": "agree"}, ...]}``. A ranking
slot is a label string or a non-empty array of labels (a tie group). Error codes:

- ``NO_FENCED_BLOCK`` / ``NOT_PARSEABLE``  no block / block is not JSON.
- ``BAD_RANKING``      ranking missing, not an array or empty; the body is not an object
                       (``null`` included — then ``BAD_ADJUDICATIONS`` too, as for ``{}``);
                       or a slot is neither a label string nor a non-empty array of labels.
- ``UNKNOWN_LABEL``    a label that is not in `labels` (matching is exact).
- ``DUPLICATE_LABEL``  a label ranked twice (also across tie groups).
- ``MISSING_LABEL``    a label that is never ranked. The judge must rank ALL reviews,
                       its own included; a partial ranking would skew street cred, so it
                       is an error (this code is ours; the JavaScript tool had none).
- ``BAD_ADJUDICATIONS`` adjudications missing or not an array (use ``[]`` when there are
                       no findings), or an entry that is not an object with a string id.
- ``UNKNOWN_FINDING_ID`` an id not in `finding_ids` (exact match).
- ``BAD_VERDICT``      a verdict that is not agree|dispute|neutral (exact lowercase).
- ``DUPLICATE_ADJUDICATION`` one id adjudicated twice with different verdicts; we never
                       pick between contradicting votes. An exact repeat (same verdict) is
                       harmless and collapses into one vote without an error.

Any error makes ``ok`` false and empties ``ranking`` and ``adjudications``. A judge need not
adjudicate every finding: an absent vote is simply not counted by the tally.

`salvage_judge_output` is the last resort once the repairs are spent: it keeps what is valid in
a refused block (a whole ranking once labels that name no review are set aside; each valid
vote) and says what it dropped, so one phantom id does not cost the run a whole judge.

`ranking_to_order` maps labels to aliases (and seat ids) for the tally input.
`parse_verdict_line` reads the chair's ``VERDICT:`` (or a question council's ``ANSWER:``) line;
`parse_answer_line` also reads the one-sentence answer after the ``ANSWER:`` standing.

Stage 2.5 (debate) — `parse_defense` / `parse_revote` read the raiser's and the judges'
json blocks. Only a block-level failure is an error (``NO_FENCED_BLOCK``, ``NOT_PARSEABLE``,
``BAD_RESPONSES`` / ``BAD_REVOTES``; the engine spends its one repair on it). A bad entry
is not an error: that id is simply not answered, so the original claim or verdict stands.
When one id is answered validly more than once, the last valid answer wins (a model
correcting itself further down); invalid entries never displace a valid one. Action and
verdict tokens are exact lowercase, as the briefing states them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, NotRequired, TypedDict, TypeVar

from amicus_mcp.council.findings import (
    ErrorEntry,
    json_type,
    make_error,
    read_last_json_block,
    show,
)
from amicus_mcp.vocabulary import ANSWER_MARKER, QUESTION, VERDICT_MARKER, VERDICT_SCALES, VOTES, DebateAction, VerdictScaleName

JUDGE_ERROR_CODES: tuple[str, ...] = (
    "NO_FENCED_BLOCK",
    "NOT_PARSEABLE",
    "BAD_RANKING",
    "UNKNOWN_LABEL",
    "DUPLICATE_LABEL",
    "MISSING_LABEL",
    "BAD_ADJUDICATIONS",
    "UNKNOWN_FINDING_ID",
    "BAD_VERDICT",
    "DUPLICATE_ADJUDICATION",
)
DEFENSE_ACTIONS: dict[str, DebateAction] = {
    "defend": "defended",
    "amend": "amended",
    "withdraw": "withdrawn",
}
NO_RESPONSE: DebateAction = "no-response"

RankingSlot = str | list[str]
_T = TypeVar("_T")


class Adjudication(TypedDict):
    id: str
    verdict: str


class JudgeResult(TypedDict):
    ok: bool
    ranking: list[RankingSlot]
    adjudications: list[Adjudication]
    errors: list[ErrorEntry]


class DefenseResponse(TypedDict):
    action: DebateAction
    argument: NotRequired[str]
    claim: NotRequired[str]


class DefenseResult(TypedDict):
    ok: bool
    errors: list[ErrorEntry]
    responses: dict[str, DefenseResponse]


class Revote(TypedDict):
    verdict: str
    reason: NotRequired[str]


class RevoteResult(TypedDict):
    ok: bool
    errors: list[ErrorEntry]
    revotes: dict[str, Revote]


# ---------------------------------------------------------------- Stage 2: judge output


def parse_judge_output(
    text: str, labels: Sequence[str], finding_ids: Collection[str]
) -> JudgeResult:
    """Validate a judge's trailing ``{ranking, adjudications}`` block (see module docstring)."""
    value, error = read_last_json_block(text)
    if error:
        return _judge_result([error], [], [])
    if not isinstance(value, dict):
        # Neither key can be read from it, so both are reported, exactly as for `{}`.
        what = f"the json block is {json_type(value)}, not an object"
        return _judge_result([make_error("BAD_RANKING", f"{what} with a ranking"),
                              make_error("BAD_ADJUDICATIONS", f"{what} with adjudications")], [], [])
    errors = _ranking_errors(value, labels)
    adjudication_errors, adjudications = _read_adjudications(value, frozenset(finding_ids))
    errors.extend(adjudication_errors)
    return _judge_result(errors, value.get("ranking", []), adjudications)


def _judge_result(
    errors: list[ErrorEntry], ranking: list[RankingSlot], adjudications: list[Adjudication]
) -> JudgeResult:
    ok = not errors
    return {
        "ok": ok,
        "ranking": ranking if ok else [],
        "adjudications": adjudications if ok else [],
        "errors": errors,
    }


def _ranking_errors(block: Mapping[str, Any], labels: Sequence[str]) -> list[ErrorEntry]:
    if "ranking" not in block:
        return [make_error("BAD_RANKING", "ranking is missing; rank every review")]
    ranking = block["ranking"]
    if not isinstance(ranking, list):
        return [make_error("BAD_RANKING", f"ranking must be an array, got {json_type(ranking)}")]
    if not ranking:
        return [make_error("BAD_RANKING", "ranking is empty; rank every review")]
    errors: list[ErrorEntry] = []
    ranked: set[str] = set()
    for pos, slot in enumerate(ranking, start=1):
        errors.extend(_slot_errors(pos, slot, labels, ranked))
    missing = [label for label in dict.fromkeys(labels) if label not in ranked]
    if missing:
        detail = f"ranking leaves out {', '.join(missing)}; rank every review, your own included"
        errors.append(make_error("MISSING_LABEL", detail))
    return errors


def _slot_members(slot: Any) -> list[str] | None:
    """The labels in one ranking slot, or None when the slot is malformed."""
    if isinstance(slot, str):
        return [slot]
    if isinstance(slot, list) and slot and all(isinstance(m, str) for m in slot):
        return slot
    return None


def _slot_errors(pos: int, slot: Any, labels: Sequence[str], ranked: set[str]) -> list[ErrorEntry]:
    members = _slot_members(slot)
    if members is None:
        detail = f"ranking slot {pos}: {show(slot)} is not a label or a non-empty array of labels"
        return [make_error("BAD_RANKING", detail)]
    errors = []
    for label in members:
        if label not in labels:
            detail = f"ranking slot {pos}: {show(label)} is not one of {', '.join(labels)}"
            errors.append(make_error("UNKNOWN_LABEL", detail))
        elif label in ranked:
            detail = f"ranking slot {pos}: '{label}' is ranked twice"
            errors.append(make_error("DUPLICATE_LABEL", detail))
        ranked.add(label)
    return errors


def _read_adjudications(
    block: Mapping[str, Any], finding_ids: frozenset[str]
) -> tuple[list[ErrorEntry], list[Adjudication]]:
    if "adjudications" not in block:
        detail = "adjudications is missing (use [] when there are no findings)"
        return [make_error("BAD_ADJUDICATIONS", detail)], []
    entries = block["adjudications"]
    if not isinstance(entries, list):
        detail = f"adjudications must be an array, got {json_type(entries)}"
        return [make_error("BAD_ADJUDICATIONS", detail)], []
    errors: list[ErrorEntry] = []
    votes: dict[str, str] = {}  # insertion order = first-seen order of each finding id
    for pos, entry in enumerate(entries, start=1):
        errors.extend(_adjudication_errors(pos, entry, finding_ids, votes))
    return errors, [{"id": fid, "verdict": verdict} for fid, verdict in votes.items()]


def _adjudication_errors(
    pos: int, entry: Any, finding_ids: frozenset[str], votes: dict[str, str]
) -> list[ErrorEntry]:
    """Check one entry; a clean entry's vote is recorded in `votes`."""
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
        detail = f"adjudication {pos}: {show(entry)} is not an object with a string id"
        return [make_error("BAD_ADJUDICATIONS", detail)]
    fid, verdict = entry["id"], entry.get("verdict")
    errors = []
    if fid not in finding_ids:
        detail = f"adjudication {pos}: finding id {show(fid)} is not in the findings index"
        errors.append(make_error("UNKNOWN_FINDING_ID", detail))
    if not isinstance(verdict, str) or verdict not in VOTES:
        allowed = ", ".join(VOTES)
        if "verdict" not in entry:
            problem = f"is missing (one of {allowed})"
        else:
            problem = f"{show(verdict)} is not one of {allowed}"
        detail = f"adjudication {pos} ({show(fid)}): verdict {problem}"
        errors.append(make_error("BAD_VERDICT", detail))
        return errors
    if errors:
        return errors
    if fid in votes and votes[fid] != verdict:
        detail = f"adjudication {pos}: {fid} is adjudicated both '{votes[fid]}' and '{verdict}'"
        return [make_error("DUPLICATE_ADJUDICATION", detail)]
    votes.setdefault(fid, verdict)
    return []


class Salvage(NamedTuple):
    """What a judge's block still says once everything invalid in it is set aside
    (`salvage_judge_output`): its ranking ([] when none survives), its valid votes, a sentence
    per thing dropped, and whether any of it named something real (its ranking, or a vote on a
    finding in the index) rather than nothing at all."""

    ranking: list[RankingSlot]
    adjudications: list[Adjudication]
    dropped: list[str]
    lost_real: bool = False


def salvage_judge_output(
    text: str, labels: Sequence[str], finding_ids: Collection[str]
) -> Salvage | None:
    """The valid part of a judge's block that `parse_judge_output` refuses: the engine's last
    resort once the repairs are spent, so one phantom label or finding id does not drop a
    whole judge. None when the block cannot be read at all (nothing to keep).

    - The ranking loses the labels that name no review ("Review D" on a three-review bench);
      what remains is kept only when it is a whole ranking by the rules above (every review
      exactly once) — a partial ranking would skew street cred, so it is dropped instead.
    - Votes are kept one by one: an entry for an id not in the findings index, with a bad
      verdict, or malformed is dropped; an id voted both ways loses both (we never pick).
    """
    value, error = read_last_json_block(text)
    if error or not isinstance(value, dict):
        return None
    dropped: list[str] = []
    ranking = _salvage_ranking(value, labels, dropped)
    adjudications, votes_lost = _salvage_votes(value, frozenset(finding_ids), dropped)
    return Salvage(ranking, adjudications, dropped, lost_real=not ranking or votes_lost)


def _salvage_ranking(block: Mapping[str, Any], labels: Sequence[str], dropped: list[str]) -> list[RankingSlot]:
    raw = block.get("ranking")
    kept: list[RankingSlot] = []
    phantoms: list[str] = []
    if isinstance(raw, list):
        for slot in raw:
            members = _slot_members(slot)
            if members is None:
                kept.append(slot)  # malformed: left for the ranking check below to refuse
                continue
            real = [label for label in members if label in labels]
            phantoms += [show(label) for label in members if label not in labels]
            if real:
                kept.append(real[0] if isinstance(slot, str) or len(real) == 1 else real)
    if phantoms:
        dropped.append(f"ranking entries that name no review: {', '.join(phantoms)}")
    errors = _ranking_errors({"ranking": kept} if isinstance(raw, list) else block, labels)
    if errors:
        dropped.append(f"its ranking ({'; '.join(e['detail'] for e in errors)})")
        return []
    return kept


def _salvage_votes(block: Mapping[str, Any], finding_ids: frozenset[str],
                   dropped: list[str]) -> tuple[list[Adjudication], bool]:
    """The valid votes, and whether a dropped one was about a real finding (or unreadable)."""
    entries = block.get("adjudications")
    if not isinstance(entries, list):
        dropped.append(f"its votes ({_read_adjudications(block, finding_ids)[0][0]['detail']})")
        return [], True
    votes: dict[str, str] = {}
    contradicted: set[str] = set()
    phantoms: list[str] = []
    lost = False
    for pos, entry in enumerate(entries, start=1):
        problems = _adjudication_errors(pos, entry, finding_ids, votes)
        codes = {e["code"] for e in problems}
        if codes == {"UNKNOWN_FINDING_ID"}:
            phantoms.append(show(entry["id"]))
        elif "DUPLICATE_ADJUDICATION" in codes:
            contradicted.add(entry["id"])
        elif problems:
            dropped.append("; ".join(e["detail"] for e in problems))
            lost = True
    if phantoms:
        dropped.append(f"votes on ids not in the findings index: {', '.join(phantoms)}")
    for fid in sorted(contradicted, key=finding_id_sort_key):
        dropped.append(f"both votes on {fid}, adjudicated both ways")
    kept: list[Adjudication] = [{"id": fid, "verdict": verdict} for fid, verdict in votes.items()
                                if fid not in contradicted]
    return kept, lost or bool(contradicted)


def ranking_to_order(
    ranking: Sequence[RankingSlot],
    label_map: Mapping[str, str],
    seat_map: Mapping[str, str] | None = None,
) -> tuple[list[RankingSlot], list[Any] | None]:
    """Translate a validated ranking to the tally's ``order`` and ``orderSeats``.

    Labels map to aliases through `label_map`; a tie group stays a nested list. The seat
    channel is the slot-for-slot parallel through `seat_map`, with ``None`` where a label
    has no seat; it is None altogether when there is no `seat_map` or every slot is null
    (the tally input emits ``orderSeats`` only when some slot is known). A label missing
    from `label_map` is a caller bug (the ranking was validated against the same labels),
    so it raises ValueError rather than inventing an alias.
    """
    order = [_map_slot(slot, lambda label: _alias(label_map, label)) for slot in ranking]
    if seat_map is None:
        return order, None
    seats = [_map_slot(slot, seat_map.get) for slot in ranking]
    known = any(seat is not None for seat in _flatten(seats))
    return order, (seats if known else None)


def _alias(label_map: Mapping[str, str], label: str) -> str:
    if label not in label_map:
        raise ValueError(f"ranking label {label!r} has no entry in label_map")
    return label_map[label]


def _map_slot(slot: RankingSlot, fn: Callable[[str], Any]) -> Any:
    return [fn(label) for label in slot] if isinstance(slot, list) else fn(slot)


def _flatten(slots: Iterable[Any]) -> list[Any]:
    return [m for slot in slots for m in (slot if isinstance(slot, list) else [slot])]


# ------------------------------------------------------------------- chair verdict line


def parse_verdict_line(text: str, scale: VerdictScaleName = "review") -> str | None:
    """The canonical phrase on the LAST matching ``VERDICT:`` line (``ANSWER:`` for questions).

    A line matches when, after optional leading spaces/tabs, it reads ``VERDICT: <rest>``
    and the trimmed rest equals a canonical phrase or starts with one followed by a
    non-alphanumeric character ("Ship it." matches, "Ship itself" does not). Matching is
    case-sensitive. None when no line matches.
    """
    if scale not in VERDICT_SCALES:
        expected = ", ".join(VERDICT_SCALES)
        raise ValueError(f"unknown verdict scale {scale!r}; expected one of {expected}")
    prefix, phrases = VERDICT_SCALES[scale]
    verdict = None
    for line in text.split("\n"):
        phrase = _line_phrase(line, prefix + ":", phrases)
        if phrase is not None:
            verdict = phrase  # keep scanning: the last matching line wins
    return verdict


def _starts_with_phrase(rest: str, phrase: str) -> bool:
    # The boundary keeps "Ship itself" from reading as "Ship it" (Unicode-aware isalnum).
    return rest.startswith(phrase) and (len(rest) == len(phrase) or not rest[len(phrase)].isalnum())


def _line_phrase(line: str, marker: str, phrases: Sequence[str]) -> str | None:
    stripped = line.lstrip(" \t")
    if not stripped.startswith(marker):
        return None
    rest = stripped[len(marker) :].strip()
    return next((p for p in phrases if _starts_with_phrase(rest, p)), None)


MAX_ANSWER_CHARS = 600
_ANSWER_SEPARATOR = re.compile(r"^[\s—–:-]+")


class AnswerLine(NamedTuple):
    standing: str  # Converged | Split | Insufficient
    answer: str | None  # the sentence after it (None when the line gives only the standing)


def parse_answer_line(text: str) -> AnswerLine | None:
    """A question chair's LAST ``ANSWER:`` line, read exactly as `parse_verdict_line` reads it
    (same line rule, same last-wins), with the sentence after the standing: separators (`—`,
    `–`, `-`, `:`) and space trimmed, markdown emphasis markers around it dropped, cut at
    MAX_ANSWER_CHARS. None when no line matches."""
    prefix, phrases = VERDICT_SCALES[QUESTION]
    found: AnswerLine | None = None
    for line in text.split("\n"):
        standing = _line_phrase(line, prefix + ":", phrases)
        if standing is None:
            continue
        rest = line.lstrip(" \t")[len(prefix) + 1:].strip()[len(standing):]
        sentence = _ANSWER_SEPARATOR.sub("", rest).strip().strip("*_").strip()
        if len(sentence) > MAX_ANSWER_CHARS:
            sentence = sentence[: MAX_ANSWER_CHARS - 1] + "…"
        found = AnswerLine(standing, sentence or None)
    return found


# ------------------------------------------------------------------- chair sections

MAX_SYNTHESIS_CHARS = 12000
MAX_HARD_QUESTIONS = 10
MAX_QUESTION_CHARS = 600
_HARD_QUESTIONS_HEADING = re.compile(r"^[\s#*>_\d.)-]*hard questions\b[\s*_:—-]*$", re.I)
_LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_VERDICT_LINE = re.compile(rf"^[\s*_]*(?:{VERDICT_MARKER}|{ANSWER_MARKER}):", re.I)


class ChairSections(NamedTuple):
    synthesis: str | None
    hard_questions: list[str]


def chair_sections(text: str) -> ChairSections:
    """The chair's synthesis and its hard questions, read off its prose (model text: never
    raises; bounded). The synthesis is everything before a "Hard questions" heading, the
    questions are the list items after it; VERDICT lines belong to neither."""
    return ChairSections(*_synthesis_and_items(text, _HARD_QUESTIONS_HEADING))


_DISSENT_HEADING = re.compile(r"^[\s#*>_\d.)-]*dissent\b[\s*_:—-]*$", re.I)


def chair_dissent(text: str) -> ChairSections:
    """A question chair's synthesis and its dissent (the list items under a "Dissent"
    heading; a paragraph there counts as one item), read like `chair_sections`."""
    return ChairSections(*_synthesis_and_items(text, _DISSENT_HEADING, paragraphs=True))


def _synthesis_and_items(text: str, heading: re.Pattern[str], *,
                         paragraphs: bool = False) -> tuple[str | None, list[str]]:
    lines = [line for line in text.splitlines() if not _VERDICT_LINE.match(line)]
    cut = next((i for i, line in enumerate(lines) if heading.match(line)), None)
    before, after = (lines, []) if cut is None else (lines[:cut], lines[cut + 1:])
    synthesis = "\n".join(_HEADING.sub("", line) for line in before).strip()
    if len(synthesis) > MAX_SYNTHESIS_CHARS:
        synthesis = synthesis[: MAX_SYNTHESIS_CHARS - 1] + "…"
    items: list[str] = []
    open_item = False  # the last line continued an item (a wrapped list item or a paragraph)
    for line in after:
        if _LIST_ITEM.match(line):
            items.append(_LIST_ITEM.sub("", line).strip())
            open_item = True
        elif _HEADING.match(line):
            if items:
                break  # a later section: the items are over
        elif not line.strip():
            open_item = open_item and not paragraphs
        elif items and open_item:
            items[-1] = f"{items[-1]} {line.strip()}"  # a wrapped item
        elif paragraphs:
            items.append(line.strip())
            open_item = True
    items = [q if len(q) <= MAX_QUESTION_CHARS else q[: MAX_QUESTION_CHARS - 1] + "…" for q in items if q]
    return synthesis or None, items[:MAX_HARD_QUESTIONS]


# ------------------------------------------------------------ Stage 2.5: debate round


def parse_defense(text: str, expected_ids: Collection[str]) -> DefenseResult:
    """A raiser's DEFEND / AMEND / WITHDRAW answers, one per expected finding id.

    Reads ``{"responses": [{"id", "action": "defend"|"amend"|"withdraw", "argument"?,
    "claim"?}]}``. defend needs a non-empty argument, amend a non-empty claim (an amend's
    non-empty argument is kept too); texts are trimmed. Ids not expected are ignored, and
    every expected id without a valid answer is ``no-response`` (the claim stands
    undefended). Ids come out in natural order (A2 before A10) whatever the input order.
    """
    entries, error = _block_entries(text, "responses", "BAD_RESPONSES")
    ids = _ordered_ids(expected_ids)
    answered = _last_valid(entries, frozenset(ids), _defense_response)
    responses: dict[str, DefenseResponse] = {
        fid: answered.get(fid) or {"action": NO_RESPONSE} for fid in ids
    }
    return {"ok": error is None, "errors": [error] if error else [], "responses": responses}


def _defense_response(entry: Mapping[str, Any]) -> DefenseResponse | None:
    verb = entry.get("action")
    action = DEFENSE_ACTIONS.get(verb) if isinstance(verb, str) else None
    argument, claim = _text(entry.get("argument")), _text(entry.get("claim"))
    if action == "defended" and argument:
        return {"action": action, "argument": argument}
    if action == "amended" and claim:
        amended: DefenseResponse = {"action": action, "claim": claim}
        if argument:
            amended["argument"] = argument
        return amended
    if action == "withdrawn":
        return {"action": action}
    return None


def parse_revote(text: str, expected_ids: Collection[str]) -> RevoteResult:
    """A judge's re-votes: ``{"revotes": [{"id", "verdict", "reason"?}]}``.

    Only expected ids with a valid verdict appear in ``revotes`` (natural id order); an
    absent id means the judge's original verdict stands (see `apply_revotes`).
    """
    entries, error = _block_entries(text, "revotes", "BAD_REVOTES")
    ids = _ordered_ids(expected_ids)
    valid = _last_valid(entries, frozenset(ids), _revote)
    revotes = {fid: valid[fid] for fid in ids if fid in valid}
    return {"ok": error is None, "errors": [error] if error else [], "revotes": revotes}


def _revote(entry: Mapping[str, Any]) -> Revote | None:
    verdict = entry.get("verdict")
    if not isinstance(verdict, str) or verdict not in VOTES:
        return None
    revote: Revote = {"verdict": verdict}
    reason = _text(entry.get("reason"))
    if reason:
        revote["reason"] = reason
    return revote


def apply_revotes(
    original: Mapping[str, str], revotes: Mapping[str, Mapping[str, Any]]
) -> dict[str, str]:
    """One judge's verdicts by finding id after the re-vote round.

    A valid re-vote replaces the original verdict; a missing or unparseable one leaves the
    original standing. Re-votes on findings the judge never adjudicated are ignored: the
    round re-asks disputing judges, it does not create new votes.
    """
    merged = dict(original)
    for fid in merged:
        revote = revotes.get(fid)
        verdict = revote.get("verdict") if isinstance(revote, Mapping) else None
        if isinstance(verdict, str) and verdict in VOTES:
            merged[fid] = verdict
    return merged


def _block_entries(text: str, key: str, bad_code: str) -> tuple[list[Any], ErrorEntry | None]:
    """The block's `key` array, or a block-level error (and no entries)."""
    value, error = read_last_json_block(text)
    if error:
        return [], error
    if not isinstance(value, dict):
        detail = f"the json block is {json_type(value)}, not an object with {key}"
        return [], make_error(bad_code, detail)
    if not isinstance(value.get(key), list):
        got = "missing" if key not in value else f"{json_type(value[key])}, not an array"
        return [], make_error(bad_code, f"{key} is {got}")
    return value[key], None


def _last_valid(
    entries: list[Any], ids: frozenset[str], read: Callable[[Mapping[str, Any]], _T | None]
) -> dict[str, _T]:
    """id -> the last valid reading of an entry for that id; invalid entries are skipped."""
    out: dict[str, _T] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        if entry["id"] not in ids:
            continue
        parsed = read(entry)
        if parsed is not None:
            out[entry["id"]] = parsed
    return out


def _text(value: Any) -> str:
    """A trimmed string value, or "" for anything that is not a string."""
    return value.strip() if isinstance(value, str) else ""


def _ordered_ids(ids: Collection[str]) -> list[str]:
    return sorted(set(ids), key=finding_id_sort_key)


def finding_id_sort_key(fid: str) -> tuple[str, int, str]:
    """Natural order for run-global ids: A2 before A10 before B1; odd ids sort by text."""
    match = re.fullmatch(r"([A-Za-z]*)(\d+)", fid)
    if match:
        return match[1], int(match[2]), fid
    return fid, -1, fid
