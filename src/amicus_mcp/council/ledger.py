"""The reliability ledger: rows appended per tally, and the stats derived from them.

This is the only `amicus_mcp.council` module that touches files. Everything except
`append_ledger` and `read_ledger` is a pure function of its arguments.

Ledger rows (`council-ledger-row.schema.json`, one JSON object per line of the append-only
`<configDir>/council-ledger.jsonl`) are produced from a tally RECORD by `ledger_rows`:

* One block per distinct alias of `meta.models`, blocks ordered by each alias's LAST index
  (the original tool's order); non-string and empty aliases are not models and are skipped.
* Within a block, one row per distinct `resolvedModel` among the alias's JOINABLE
  `runStats` rows, or a single row when none is resolved. Joinable roles form a fail-closed
  allowlist: seat, critic, chair, claude, council, redteam, `lens:*`, or no role at all
  (missing, null or ""). judge / chair-attempt / repair / superseded / rebuttal / revote and
  any other label never reach the ledger.
* Joinable rows WITHOUT a resolvedModel (dead seats, a give-up chair, the claude row) are
  folded into the block's first row: their resolution is unknowable and must not be
  invented, and a separate unresolved row would create a phantom alias-keyed "legacy"
  group in the stats.
* The block's first row is the executable that did the reviewing: the resolvedModel of
  the first resolved joinable row whose role is not `chair` (a chair that is also a bench
  model but was served by a different executable must not take the alias's review
  figures); failing that, the first resolvedModel seen. That row anchors the alias's
  findings figures — findingsRaised, bySeverity, confirmRate, factErrorRate — and the other
  rows carry 0 / null (and their own conformance), so `council stats` never counts one
  alias's findings twice. An alias with no legs at all (a record from before legs were
  kept) is one row, which anchors them.
* Street cred is kept per row, not concentrated on the anchor: each row carries the mean of
  the streetCred rows of the seats its legs served (a runStats row's `seat`, else the alias
  itself), so a twin bench split across two executables credits each with its own seat's
  ranks. A row whose legs name no reviewing seat (no legs at all; a chair-only executable)
  carries the alias's street cred when it is the anchor, and null otherwise.
* Per row: role = the last folded joinable row that names a role (default "council");
  wasChair = any folded row's wasChair; conformance = worst of clean < repaired <
  unstructured (default clean; unknown labels ignored).
* Street cred only when `judged` (else null). On a twin bench the alias has one streetCred
  row per seat; a ledger row takes the MEAN of its seats' non-null values.
* confirmRate / factErrorRate = the Confirmed / Disputed share (by computed `tier`) of the
  findings whose `raiser` is this alias; null when not judged or nothing was raised.
* runId is copied when it is a string or a finite number, date / runType when they are
  strings; anything else (absent included) is written as null so every row has every key.
* resolvedModel appears only when known (emit-when-set, never derived from the alias).
* A task council's record (`meta.intent: "task"`) contributes no rows at all: the council
  was asked to do or decide something, which says nothing comparable about its seats.
* intent is `"question"` on every row of a question council's record (its findings are the
  answers' key claims, its street-cred the answers' ranks) and absent on a review's, so a
  review's rows are byte-identical to those written before question councils existed.

`derive_stats` folds rows into `{schemaVersion:2, type:"council-stats", models:[...]}`
(`council-stats.schema.json`): one entry per `resolvedModel or model`, in order of first
appearance in the ledger. See its docstring for the per-field rules.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, NamedTuple

from typing_extensions import NotRequired, TypedDict

from .. import config, fsio
from ..errors import BadArgs
from ..schemas import JsonObject
from ..vocabulary import CONFORMANCES, QUESTION, SEVERITIES, TASK, Conformance

if TYPE_CHECKING:  # the declarations only: this module builds plain dicts, and loads no pydantic
    from ..documents.council import BySeverity, ConformanceCounts, LedgerRow, Measured, ModelStats, Stats, TallyRecord

LEDGER_SCHEMA_VERSION: Final = 2
STATS_SCHEMA_VERSION: Final = 2

# A task council (asked to do or decide something) is not a measure of its seats' reliability.
TASK_NO_LEDGER = ("task council: not recorded in the reliability ledger (a task council writes no reliability "
                  "rows)")

JOINABLE_ROLES = frozenset({"seat", "critic", "chair", "claude", "council", "redteam"})
DEFAULT_ROLE = "council"
LOW_N_THRESHOLD = 3

STATS_COLUMNS = ("model", "runs", "avg-cred", "confirm", "fact-err", "notes")
MEASURED_COLUMNS = ("evals", "recall", "false-alarm")  # shown once the eval ledger has measured a model
NULL_CELL = "—"

# The ledger reads a record, and its own file, defensively: a hand-assembled record or a
# hand-edited row is read field by field, each value narrowed before use (never trusted whole).
View = Mapping[str, object]


# ---------------------------------------------------------------------------
# small value helpers


def _number(value: object) -> float | int | None:
    """`value` when it is a real, finite JSON number; otherwise None.

    bool is excluded (it is an int in Python but not a number in JSON), and NaN/inf are
    excluded because they cannot be written as JSON.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _text(value: object) -> str | None:
    """`value` when it is a non-empty string; otherwise None."""
    return value if isinstance(value, str) and value else None


def _mean(values: Iterable[float | int]) -> float | None:
    items = list(values)
    return math.fsum(items) / len(items) if items else None


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _dict(value: object) -> View:
    return value if isinstance(value, dict) else {}


# ---------------------------------------------------------------------------
# ledger rows (pure)


def is_joinable_role(role: object) -> bool:
    """Whether a runStats row with this role may feed the ledger (fail-closed allowlist)."""
    if role is None or role == "":
        return True  # legacy / hand-assembled rows that never set a role
    if not isinstance(role, str):
        return False
    return role in JOINABLE_ROLES or role.startswith("lens:")


def _bench_aliases(models: list[object]) -> list[str]:
    """Distinct aliases ordered by their last index in meta.models."""
    last_index: dict[str, int] = {}
    for index, alias in enumerate(models):
        if isinstance(alias, str) and alias:
            last_index[alias] = index
    return sorted(last_index, key=last_index.__getitem__)


def _buckets(joinable: list[View]) -> list[list[View]]:
    """Split an alias's joinable runStats rows into one bucket per resolvedModel.

    Unresolved rows join the primary (first) bucket; with no resolved row at all there is
    a single bucket (possibly empty, when the alias has no joinable row).
    """
    by_resolved: dict[str, list[View]] = {}
    primary_key: str | None = None
    for row in joinable:
        resolved = _text(row.get("resolvedModel"))
        if resolved is None:
            continue
        by_resolved.setdefault(resolved, [])
        # The reviewing executable leads the block; a chair-only executable never does.
        if primary_key is None and row.get("role") != "chair":
            primary_key = resolved
    if not by_resolved:
        return [list(joinable)]
    order = list(by_resolved)
    if primary_key is not None:
        order.remove(primary_key)
        order.insert(0, primary_key)
    for row in joinable:
        resolved = _text(row.get("resolvedModel"))
        by_resolved[resolved if resolved is not None else order[0]].append(row)
    return [by_resolved[key] for key in order]


class _Folded(NamedTuple):
    role: str
    was_chair: bool
    conformance: Conformance
    resolved_model: str | None


def _fold_run_stats(rows: list[View]) -> _Folded:
    """role / wasChair / conformance / resolvedModel of one ledger row."""
    role = DEFAULT_ROLE
    worst = 0
    for row in rows:
        named = _text(row.get("role"))
        if named is not None:
            role = named
        conformance = row.get("conformance")
        if isinstance(conformance, str) and conformance in CONFORMANCES:
            worst = max(worst, CONFORMANCES.index(conformance))
    resolved = next((r for r in (_text(row.get("resolvedModel")) for row in rows) if r), None)
    return _Folded(role, any(row.get("wasChair") is True for row in rows), CONFORMANCES[worst], resolved)


def _street_cred(record: View, alias: str, judged: bool,
                 seats: set[str] | None = None) -> tuple[float | None, float | None]:
    """(withSelf, peersOnly) for an alias — over `seats` only, when given: the mean over those
    seats' non-null values (a seat is a streetCred row's `seat`, else its model)."""
    if not judged:
        return None, None
    rows = [_dict(r) for r in _list(record.get("streetCred")) if _dict(r).get("model") == alias]
    if seats is not None:
        rows = [r for r in rows if (_text(r.get("seat")) or alias) in seats]
    with_self = _mean(v for v in (_number(s.get("withSelf")) for s in rows) if v is not None)
    peers_only = _mean(v for v in (_number(s.get("peersOnly")) for s in rows) if v is not None)
    return with_self, peers_only


def _row_street_cred(record: View, alias: str, judged: bool, bucket: list[View],
                     anchor: bool) -> tuple[float | None, float | None]:
    """One ledger row's street cred: its own seats' (see the module docstring)."""
    seats = {_text(r.get("seat")) or alias for r in bucket if r.get("role") != "chair"}
    if not seats:
        return _street_cred(record, alias, judged) if anchor else (None, None)
    return _street_cred(record, alias, judged, seats)


class _FindingsStats(TypedDict):
    """A ledger row's findings figures (LedgerRow's keys, in its order)."""

    findingsRaised: int
    bySeverity: BySeverity
    confirmRate: float | None
    factErrorRate: float | None


class _RunFields(TypedDict):
    """The keys every row of one run shares, leading the row (LedgerRow's keys, in its order)."""

    schemaVersion: Literal[2]
    runId: str | int | float | None
    date: str | None
    runType: str | None
    intent: NotRequired[Literal["question"]]


class _RowEnd(TypedDict):
    """The keys closing a row (LedgerRow's keys, in its order; a run's tag is appended after)."""

    conformance: Conformance
    resolvedModel: NotRequired[str]
    tag: NotRequired[str]


def _by_severity(raised: list[View]) -> BySeverity:
    def count(severity: str) -> int:
        return sum(1 for f in raised if f.get("severity") == severity)

    blocker, major, minor, nit = SEVERITIES  # BySeverity's keys, in the vocabulary's order
    return {"blocker": count(blocker), "major": count(major), "minor": count(minor), "nit": count(nit)}


def _findings_stats(record: View, alias: str, judged: bool) -> _FindingsStats:
    raised = [_dict(f) for f in _list(record.get("findings")) if _dict(f).get("raiser") == alias]
    rated = judged and len(raised) > 0
    return {
        "findingsRaised": len(raised),
        "bySeverity": _by_severity(raised),
        "confirmRate": sum(f.get("tier") == "Confirmed" for f in raised) / len(raised) if rated else None,
        "factErrorRate": sum(f.get("tier") == "Disputed" for f in raised) / len(raised) if rated else None,
    }


def _empty_findings_stats() -> _FindingsStats:
    return {
        "findingsRaised": 0,
        "bySeverity": _by_severity([]),
        "confirmRate": None,
        "factErrorRate": None,
    }


def _run_fields(meta: View) -> _RunFields:
    run_id = meta.get("runId")
    date, run_type = meta.get("date"), meta.get("runType")
    run: _RunFields = {
        "schemaVersion": LEDGER_SCHEMA_VERSION,
        "runId": run_id if isinstance(run_id, str) else _number(run_id),
        "date": date if isinstance(date, str) else None,
        "runType": run_type if isinstance(run_type, str) else None,
    }
    if meta.get("intent") == QUESTION:
        run["intent"] = "question"
    return run


def _alias_rows(record: View, alias: str, run: _RunFields) -> list[LedgerRow]:
    judged = record.get("judged") is True
    joinable = [
        _dict(r)
        for r in _list(record.get("runStats"))
        if _dict(r).get("model") == alias and is_joinable_role(_dict(r).get("role"))
    ]
    out = []
    for position, bucket in enumerate(_buckets(joinable)):
        folded = _fold_run_stats(bucket)
        primary = position == 0
        with_self, peers_only = _row_street_cred(record, alias, judged, bucket, primary)
        end: _RowEnd = {"conformance": folded.conformance}
        if folded.resolved_model is not None:
            end["resolvedModel"] = folded.resolved_model
        row: LedgerRow = {
            **run,
            "model": alias,
            "role": folded.role,
            "wasChair": folded.was_chair,
            "judged": judged,
            "streetCredWithSelf": with_self,
            "streetCredPeersOnly": peers_only,
            **(_findings_stats(record, alias, judged) if primary else _empty_findings_stats()),
            **end,
        }
        out.append(row)
    return out


def ledger_rows(record: TallyRecord, *, tag: str | None = None) -> list[LedgerRow]:
    """The ledger rows one tally record contributes (pure; see the module docstring); a run's
    tag, when it has one, on every row (emit-when-set: untagged rows are as they always were)."""
    view = _dict(record)  # read defensively: a hand-assembled record may lack what the declaration says
    meta = _dict(view.get("meta"))
    if meta.get("intent") == TASK:
        return []  # a task council writes no reliability rows
    run = _run_fields(meta)
    rows: list[LedgerRow] = []
    for alias in _bench_aliases(_list(meta.get("models"))):
        rows.extend(_alias_rows(view, alias, run))
    if tag:
        for row in rows:
            row["tag"] = tag  # last, after resolvedModel
    return rows


# ---------------------------------------------------------------------------
# file I/O (the only file access in amicus_mcp.council)


def append_ledger(record: TallyRecord, path: Path | None = None, *, tag: str | None = None) -> str | None:
    """Append `ledger_rows(record, tag=tag)` to the ledger; best effort.

    Returns None on success (or when there is nothing to append) and a one-line warning
    on ANY failure — a ledger problem must never fail the tally that triggered it. The
    warning names the exception type, the OS reason and the path only: exception messages
    can echo record content, so they are never copied.
    """
    target: Path | None = None
    try:
        target = Path(path) if path is not None else config.ledger_path()
        rows = ledger_rows(record, tag=tag)
        if rows:
            fsio.append_jsonl(target, rows)
        return None
    except Exception as exc:  # noqa: BLE001 — best effort by contract
        return _append_warning(exc, target)


def _append_warning(exc: Exception, target: Path | None, what: str = "council ledger",
                    unaffected: str = "the tally") -> str:
    reason = type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        reason = f"{reason}: {exc.strerror}"
    where = f" ({target})" if target is not None else ""
    return " ".join(f"{what} append failed{where}: {reason}; {unaffected} itself is unaffected".split())


def append_rows(rows: Sequence[JsonObject], path: Path, *, what: str) -> str | None:
    """Append already-built rows (the eval ledger's) to `path`; best effort, like append_ledger."""
    try:
        if rows:
            fsio.append_jsonl(path, rows)
        return None
    except Exception as exc:  # noqa: BLE001 — best effort by contract
        return _append_warning(exc, path, what, "the eval")


def read_ledger(path: Path | None = None) -> list[JsonObject]:
    """Every readable object row of the ledger, in file order.

    A missing ledger is empty. Lines that are blank, not UTF-8, not JSON, or not a JSON
    object (e.g. a line torn by a crash mid-write) are skipped. A ledger that exists but
    cannot be read at all (a directory, no permission) raises BadArgs.
    """
    target = Path(path) if path is not None else config.ledger_path()
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        return []
    except IsADirectoryError:
        raise BadArgs(f"council ledger '{target}' is a directory, not a file", hint="move it aside") from None
    except OSError as exc:
        raise BadArgs(
            f"cannot read council ledger '{target}': {exc.strerror or type(exc).__name__}",
            hint="check the file's permissions",
        ) from None
    return [row for row in (_parse_line(line) for line in raw.split(b"\n")) if row is not None]


def _parse_line(line: bytes) -> JsonObject | None:
    """A ledger row, unchecked (stats read each field defensively), or None for a line that is not one (a torn write, hand edits): skipped."""
    try:
        text = line.decode("utf-8").lstrip("\ufeff").strip()
        doc = fsio.loads_json(text, what="ledger row") if text else None
    except (UnicodeDecodeError, BadArgs):
        return None
    return doc if isinstance(doc, dict) else None


# ---------------------------------------------------------------------------
# stats (pure)


def _group_key(row: View) -> str:
    return _text(row.get("resolvedModel")) or str(row["model"])  # a row without a text model is never grouped


def _count_runs(rows: list[View]) -> int:
    """Distinct non-empty string runIds, plus one per row without such an id.

    A re-tally of the same run repeats its runId and so does not inflate `runs`; an empty
    or numeric runId is not an identity, so each such row counts on its own.
    """
    named = {row["runId"] for row in rows if _text(row.get("runId")) is not None}
    anonymous = sum(1 for row in rows if _text(row.get("runId")) is None)
    return len(named) + anonymous


def _rate(value: object) -> float | int | None:
    """A usable rate: a finite number within [0, 1] (anything else is a hand-edited value)."""
    number = _number(value)
    return number if number is not None and 0 <= number <= 1 else None


def _model_stats(key: str, rows: list[View]) -> ModelStats:
    def count(label: str) -> int:
        return sum(1 for row in rows if row.get("conformance") == label)

    clean, repaired, unstructured = CONFORMANCES  # ConformanceCounts' keys, in the vocabulary's order
    conformance: ConformanceCounts = {"clean": count(clean), "repaired": count(repaired), "unstructured": count(unstructured)}
    aliases: list[str] = []
    for row in reversed(rows):  # the ledger is append-only, so later lines are more recent
        if str(row["model"]) not in aliases:
            aliases.append(str(row["model"]))
    runs = _count_runs(rows)
    entry: ModelStats = {
        "model": key,
        "runs": runs,
        "lowN": runs < LOW_N_THRESHOLD,
        "avgStreetCredPeersOnly": _mean(v for v in (_number(r.get("streetCredPeersOnly")) for r in rows) if v is not None),
        "lifetimeConfirmRate": _mean(v for v in (_rate(r.get("confirmRate")) for r in rows) if v is not None),
        "lifetimeFactErrorRate": _mean(v for v in (_rate(r.get("factErrorRate")) for r in rows) if v is not None),
        "conformance": conformance,
        "aliases": aliases,
    }
    if not any(_text(row.get("resolvedModel")) for row in rows):
        entry["legacy"] = True
    return entry


def derive_stats(rows: Sequence[View], eval_rows: Sequence[View] | None = None, *,
                 tag: str | None = None) -> Stats:
    """Per-model reliability over ledger rows, as the `council-stats` envelope.

    With a `tag`, only the rows of runs and evals with that tag count, and the document says
    so (`tag`): an untagged eval's measurements never appear under a tag's heading.

    Rows are grouped by `resolvedModel or model`; groups appear in order of first
    appearance. Rows that are not objects or have no non-empty string `model` are not
    ledger rows and are ignored. Per group: `runs` (see `_count_runs`), `lowN` (runs < 3),
    `avgStreetCredPeersOnly` and the two lifetime rates (means over rows of their numeric
    values, null when there are none — so duplicated rows do not move them),
    `conformance` (counts of clean / repaired / unstructured; other labels are not
    counted), `aliases` (most recently seen first) and `legacy: true` only when no row of
    the group carries a resolvedModel.

    `eval_rows` (the eval ledger's `eval-ledger-row`s) add `measured` to each group that an
    eval measured — emit-when-set, so stats without evals are unchanged — and a group of its
    own (`runs: 0`) for a model measured but never recorded in a council run.
    """
    groups: dict[str, list[View]] = {}
    for row in rows:
        if tag is not None and (not isinstance(row, dict) or row.get("tag") != tag):
            continue
        if isinstance(row, dict) and _text(row.get("model")) is not None:
            groups.setdefault(_group_key(row), []).append(row)
    models = [_model_stats(key, members) for key, members in groups.items()]
    measured = _measured_groups([r for r in eval_rows or [] if tag is None or (isinstance(r, dict) and r.get("tag") == tag)])
    for entry in models:
        if entry["model"] in measured:
            entry["measured"] = measured.pop(entry["model"])[0]
    for key, (block, aliases) in measured.items():  # measured by an eval, never seen in a council run
        models.append({"model": key, "runs": 0, "lowN": True, "avgStreetCredPeersOnly": None,
                       "lifetimeConfirmRate": None, "lifetimeFactErrorRate": None,
                       "conformance": {"clean": 0, "repaired": 0, "unstructured": 0}, "aliases": aliases,
                       "measured": block})
    if tag is not None:
        return {"schemaVersion": STATS_SCHEMA_VERSION, "type": "council-stats", "tag": tag, "models": models}
    return {"schemaVersion": STATS_SCHEMA_VERSION, "type": "council-stats", "models": models}


def _measured_groups(rows: Sequence[View]) -> dict[str, tuple[Measured, list[str]]]:
    """Per model (resolvedModel or model): what the evals measured, pooled over them.

    recall = flaws found / planted over every eval of the model; falseAlarmRate = clean cases
    on which it raised a blocker or major finding / clean cases. Evals of different suites pool:
    `suites` names them."""
    groups: dict[str, list[View]] = {}
    for row in rows:
        if isinstance(row, dict) and row.get("type") == "eval-ledger-row" and _text(row.get("model")):
            groups.setdefault(_group_key(row), []).append(row)
    out: dict[str, tuple[Measured, list[str]]] = {}
    for key, members in groups.items():
        found = sum(int(_number(r.get("found")) or 0) for r in members)
        planted = sum(int(_number(r.get("plantedFlaws")) or 0) for r in members)
        clean = sum(int(_number(r.get("cleanCases")) or 0) for r in members)
        alarmed = sum(int(_number(r.get("cleanCasesWithAlarm")) or 0) for r in members)
        undecided = [int(n) for n in (_number(r.get("undecided")) for r in members) if n is not None]
        out[key] = ({
            "evals": len({r.get("evalId") for r in members}),
            "found": found, "planted": planted, "recall": found / planted if planted else None,
            # Findings the matcher left undecided might have found more: such a recall is a floor.
            "undecided": sum(undecided),
            "floorEvals": len({r.get("evalId") for r in members if (_number(r.get("undecided")) or 0) > 0}),
            "cleanCases": clean, "cleanCasesWithAlarm": alarmed,
            "falseAlarmRate": alarmed / clean if clean else None,
            "suites": sorted({str(r.get("suite")) for r in members if _text(r.get("suite"))}),
        }, list(dict.fromkeys(str(r["model"]) for r in reversed(members))))  # (what was measured, its aliases)
    return out


def _cell(text: str) -> str:
    """One table cell: control characters (a newline in a model id) cannot break a line."""
    return "".join("?" if unicodedata.category(ch) == "Cc" else ch for ch in text)


def _fixed(value: object) -> str:
    number = _number(value)
    return NULL_CELL if number is None else f"{number:.2f}"


def _stats_cells(entry: View, *, measured: bool = False) -> list[str]:
    notes = [label for label, on in (("low-N", entry.get("lowN") is True), ("legacy", entry.get("legacy") is True)) if on]
    cells = [
        _cell(str(entry.get("model", ""))),
        str(entry.get("runs", "")),
        _fixed(entry.get("avgStreetCredPeersOnly")),
        _fixed(entry.get("lifetimeConfirmRate")),
        _fixed(entry.get("lifetimeFactErrorRate")),
    ]
    if measured:  # what an eval measured, beside what peers agreed on
        block = _dict(entry.get("measured"))
        floor = "≥" if (_number(block.get("floorEvals")) or 0) > 0 and _number(block.get("recall")) is not None else ""
        cells += [str(block["evals"]) if block else NULL_CELL, floor + _fixed(block.get("recall")),
                  _fixed(block.get("falseAlarmRate"))]
        if not block:
            notes.append("agreement only")
        elif floor:
            notes.append("recall a floor")
    return [*cells, " ".join(notes)]


def render_stats(stats: Stats, ledger: Path | str | None = None) -> str:
    """The human table of `amicus council stats` (no trailing newline).

    Text columns (model, notes) are left-aligned, numeric columns right-aligned, columns
    separated by two spaces, trailing spaces stripped. An empty stats document renders a
    one-line notice naming the ledger path when one is given.
    """
    models = _list(_dict(stats).get("models"))
    tag = _text(_dict(stats).get("tag"))
    if not models:
        where = f" (ledger: {ledger})" if ledger is not None else ""
        tagged = f" tagged '{tag}'" if tag else ""
        return f"No council runs{tagged} recorded yet{where}."
    measured = any(_dict(entry).get("measured") for entry in models)
    columns = [*STATS_COLUMNS[:-1], *MEASURED_COLUMNS, STATS_COLUMNS[-1]] if measured else list(STATS_COLUMNS)
    table = [columns] + [_stats_cells(_dict(entry), measured=measured) for entry in models]
    widths = [max(len(row[col]) for row in table) for col in range(len(columns))]
    left_aligned = {0, len(columns) - 1}
    lines = []
    for row in table:
        cells = [
            cell.ljust(widths[col]) if col in left_aligned else cell.rjust(widths[col])
            for col, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join([f"Council runs tagged '{tag}':", *lines] if tag else lines)
