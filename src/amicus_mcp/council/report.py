"""Council report: one neutral model of a verdict document, two string renderers.

`build_report(verdict, fmt=..., wave=..., record=...)` is the whole public surface the fronts
need (`amicus council report`, `amicus_verdict` with `render`, the engine's report.html). It
is pure: it reads the verdict dict (optionally a wave dict, used only for the wave's total
cost, and the run's tally record, used only for each finding's claim and location), builds a
`ReportModel` of frozen dataclasses, and hands it to `report_md.render_markdown` or
`report_html.render_html`, which own the string formats.

What a council run knew beyond the tally rides on the verdict (all optional, emitted only
when set — see `verdict.RUN_FACT_KEYS`): `degrades` ([{kind, channel, what, why}], run.json's
shape) become "What was lost", one `What — why` line each; `notices` (strings) are listed
under **Notes:** there; `judged: false` is said next to the chair verdict; `synthesis` and
`hardQuestions` are the chair's section; `debate` (run.json's summary) is the "Debate round"
section, which is otherwise counted from the findings' `debate` stamps. A verdict with none of
them — the seed's worked example — renders byte for byte as before.

Every figure (durations, costs, street-cred scores) is formatted HERE, once, so the two
renderers can never disagree about a number; they own structure and escaping only.
Strings in the model are still raw model-derived text: escaping is the renderers' job,
because what is "safe" differs between Markdown and HTML.

A question council's verdict (`intent: "question"`) renders the same model with a `question`
view, and the renderers lead with the answer: the chair's ANSWER line, its synthesis, the
dissent (the chair's, and every Disputed claim), the answers in the council's aggregate
ranking with who ranked what, the claim matrix, the claims by tier, then the rest as for a
review. Nothing a review renders changes.

Decisions where the contract (seed "amicus council report", v4.8) is silent:

* An empty `seats` list, or a seat with an empty-string `id`, does not count as a usable
  seat table, so the matrix stays in alias space (an empty seat column could never
  receive a vote — the join refuses the empty key).
* Alias space de-duplicates `council` (first occurrence wins the position); a repeated
  alias with no seat table cannot be told apart anyway, and two identical headers would
  only show the same last-wins vote twice.
* A vote whose `verdict` is not agree/dispute/neutral renders `?` (a vote exists, its
  meaning is unknown) and the legend explains `?` only when one occurs.
* The raiser's `*` decorates a vote; an empty cell stays empty even in the raiser's column.
* The cost label is `seat || model` (same rule as street-cred) so twin-bench rows differ.
* A cost row with `usage: null`, or a `cost.amount` that is not a number, is unknown
  (`?`). Without a wave document the total is the sum of the known amounts, prefixed
  `at least ` when any row is unknown (a leg lost in flight by a killed attempt included) and `?` when nothing is known; `~` marks a total that
  includes an estimated amount (wave source `estimated`/`mixed` likewise).
* Tier groups for a tier outside the four known ones are kept (after Singleton, in
  first-seen order) rather than silently dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, Literal

from amicus_mcp.errors import BadArgs

from amicus_mcp.council.report_html import render_html
from amicus_mcp.council.report_md import render_markdown
from amicus_mcp.council.report_model import (
    Basis,
    CostRow,
    DebateNote,
    DebateRow,
    DebateSummary,
    FindingView,
    Header,
    LOSS_PREFIX,
    Matrix,
    Override,
    QuestionView,
    RESERVED_CLAUDE,
    RankedAnswer,
    RUN_TOTAL,
    ReportModel,
    SUFFIXED_ROLES,
    TITLE_QUESTION_CHARS,
    StreetCredRow,
    TierCount,
    TierGroup,
    UNATTRIBUTED,
    Vote,
    VoteKind,
    WAVE_TOTAL,
)
from amicus_mcp.council.evidence import EVIDENCE_FIELDS
from amicus_mcp.vocabulary import (AGENT_PREFIX, ANSWERING_INTENTS, ESTIMATED_COST_SOURCES, EVIDENCE_CHECKS, QUESTION,
                                   SUBSCRIPTION, TASK, TIER_DISPLAY_ORDER, VERIFICATIONS, VOTES)

if TYPE_CHECKING:  # the declarations only: this module builds plain dicts, and loads no pydantic
    from amicus_mcp.documents.council import TallyRecord, Verdict


# --------------------------------------------------------------------------- public API


def build_report(
    verdict: Verdict,
    *,
    fmt: Literal["md", "html"] = "md",
    wave: Mapping[str, object] | None = None,
    record: TallyRecord | None = None,
    rereview: Mapping[str, Any] | None = None,
    dismissed: Mapping[str, Any] | None = None,
    run_lines: Sequence[str] = (),
) -> str:
    """Render a council-verdict document as Markdown (`md`) or a self-contained HTML page.

    `verdict` may be one assembled by hand (the skill path): it is read field by field, as the
    decisions above say. `record` is a tally record as the tally wrote it (RunDir.read_tally()
    or the tally's own output); `wave` a wave document as read, of which only `usage.cost` is used.

    `record` (the run's tally record) supplies what each finding claims and where: the verdict
    is a closed projection without them, so a bare verdict renders exactly as the seed shows.
    A council run's verdict (`runType: headless`) rendered without its record says that the
    claims are unavailable rather than leaving them out in silence. `rereview` and `dismissed`
    (a run's rereview.json and dismissed.json) add the pull-request loop's sections; `run_lines`
    (documents.run.reported_lines of its run.json) go under "About this run"."""
    model = build_model(verdict, wave=wave, record=record)._replace(rereview=rereview, dismissed=dismissed)
    if run_lines:  # the run.json fields its declaration marks as reported (documents/run.py `Reported`)
        model = model._replace(notes=(*model.notes, *run_lines))
    if fmt == "md":
        return render_markdown(model)
    if fmt == "html":
        return render_html(model)
    raise BadArgs(f"unknown report format {fmt!r}", hint="use 'md' or 'html'")


def build_model(verdict: Verdict, *, wave: Mapping[str, object] | None = None,
                record: TallyRecord | None = None) -> ReportModel:
    """Project a verdict document (+ optional wave and tally record) onto the neutral report model."""
    if not isinstance(verdict, Mapping):
        raise BadArgs("a council verdict must be a JSON object")
    if wave is not None and not isinstance(wave, Mapping):
        raise BadArgs("a wave document must be a JSON object")
    if record is not None and not isinstance(record, Mapping):
        raise BadArgs("a tally record must be a JSON object")
    findings = [f for f in _list(verdict.get("findings")) if isinstance(f, Mapping)]
    claims = _claims(record["findings"] if record is not None else [])
    if verdict.get("intent") == QUESTION:  # a question's verdict carries its claims itself
        claims = {**_claims(findings), **claims}
    matrix = _build_matrix(verdict, findings, claims, _evidence(record))
    stats = [r for r in _list(verdict.get("runStats")) if isinstance(r, Mapping)]
    losses, info = _build_losses(verdict, stats)
    # A council run's report (the engine's, a question's or a task's) qualifies its tiers and
    # totals the run; a verdict of the skill path (the seed's worked example) renders as the seed shows.
    council_run = verdict.get("runType") == HEADLESS or verdict.get("intent") in ANSWERING_INTENTS
    return ReportModel(
        header=_build_header(verdict),
        tier_counts=_build_tier_counts(verdict.get("tierCounts"), matrix.rows),
        matrix=matrix,
        street_cred=tuple(_street_cred_row(r) for r in _list(verdict.get("streetCred")) if isinstance(r, Mapping)),
        tier_groups=_group_by_tier(matrix.rows),
        cost_rows=tuple(_cost_row(r) for r in stats),
        wave_total=_wave_total(stats, wave),
        notes=_build_notes(verdict, findings, stats),
        losses=losses,
        run_notes=(*info, *(_text(n) for n in _list(verdict.get("notices")) if isinstance(n, str) and n.strip())),
        thin_verdict=verdict.get("judged") is False,
        synthesis=_paragraphs(verdict.get("synthesis")),
        hard_questions=tuple(q for q in (_text(q).strip() for q in _list(verdict.get("hardQuestions"))) if q),
        debate=_build_debate(verdict.get("debate"), matrix.rows),
        claims_unavailable=record is None and verdict.get("runType") == HEADLESS and bool(findings)
        and verdict.get("intent") != QUESTION,
        question=_build_question(verdict, matrix) if verdict.get("intent") == QUESTION else None,
        qualified=council_run,
        total_label=RUN_TOTAL if council_run and wave is None else WAVE_TOTAL,
    )


# --------------------------------------------------------------------------- a question council


def _build_question(verdict: Mapping[str, Any], matrix: Matrix) -> QuestionView:
    judges = tuple(c for c in matrix.columns if c != UNATTRIBUTED)
    by_who = {}
    for entry in _list(verdict.get("answers")):
        if isinstance(entry, Mapping):
            by_who[_text(entry.get("seat") or entry.get("model"))] = entry
    ranked = tuple(_ranked_answer(row, judges, by_who) for row in _list(verdict.get("ranking")) if isinstance(row, Mapping))
    overall = verdict.get("overallVerdict")
    answer = verdict.get("answer")
    return QuestionView(
        standing=_text(overall) if isinstance(overall, str) else None,
        answer=_text(answer) if isinstance(answer, str) and answer.strip() else None,
        judges=judges,
        ranked=ranked,
        dissent=tuple(d for d in (_text(d).strip() for d in _list(verdict.get("dissent"))) if d),
        disputed=tuple(r for r in matrix.rows if r.tier == "Disputed"),
    )


def _ranked_answer(row: Mapping[str, Any], judges: Sequence[str], answers: Mapping[str, Mapping[str, Any]]) -> RankedAnswer:
    who = _text(row.get("seat") or row.get("model"), "?")
    places = raw if isinstance(raw := row.get("perJudgeRank"), Mapping) else {}
    cells = tuple(_place(places.get(judge)) + ("*" if judge == who and judge in places else "") for judge in judges)
    entry = answers.get(who, {})
    claims = (f"{_int_or_none(row.get('confirmedClaims')) or 0} Confirmed · "
              f"{_int_or_none(row.get('disputedClaims')) or 0} Disputed of {_int_or_none(row.get('claims')) or 0}")
    rank = _int_or_none(row.get("rank"))
    answer, confidence = entry.get("answer"), entry.get("confidence")
    return RankedAnswer(
        rank=rank if rank is not None else 0,
        label=_text(entry.get("label")),
        who=who,
        peers_only=format_score(row.get("peersOnly")),
        with_self=format_score(row.get("withSelf")),
        per_judge=cells,
        claims=claims,
        answer=_text(answer) if isinstance(answer, str) else None,
        confidence=_text(confidence) if isinstance(confidence, str) else None,
        assumptions=tuple(_text(a) for a in _list(entry.get("assumptions")) if isinstance(a, str) and a.strip()),
        unstructured=entry.get("structured") is False,
    )


def _place(value: Any) -> str:
    """A place under one judge: 1, 2, 1.5 for a tie; "—" when that judge did not rank it."""
    if not _is_number(value):
        return "—"
    return f"{Decimal(str(value)).normalize():f}"


# The runType a council run (`amicus council run`) pins on its documents (seed 000).
HEADLESS = "headless"

# --------------------------------------------------------------------------- what the run lost

THIN_CROSS_REVIEW = ("cross-review is thin — fewer than two judges produced a usable judgement, "
                     "so the tiers and street-cred rest on thin cross-review (judged: false)")


def _build_losses(verdict: Mapping[str, Any], stats: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(losses, notes): every degrade the run recorded, each one `Notice: <what> — <why>` bullet.

    A degrade record's `kind` sorts it: `degrade` — or no kind at all (an older version's
    record), or a kind this version does not know — is a loss; `info` lost nothing and is a
    note; `heal` (a retry that succeeded, an optional helper that was not needed) is not shown."""
    losses: list[str] = []
    notes: list[str] = []
    for entry in _list(verdict.get("degrades")):
        if not isinstance(entry, Mapping):
            continue
        what, why = _text(entry.get("what")).strip(), _text(entry.get("why")).strip()
        kind = entry.get("kind")
        if not what or kind == "heal":
            continue
        line = what + (f" — {why}" if why else "")
        if kind == "info":
            notes.append(what[:1].upper() + line[1:])
        else:
            losses.append(LOSS_PREFIX + line)
    for row in stats:
        if row.get("findingsUnverified") is True:
            who = _text(row.get("seat") or row.get("model"), "?")
            losses.append(f"{LOSS_PREFIX}seat {who}'s findings came from a repair of a response with no findings "
                          "block — nothing verified them against a first reply, so they stand on the repair alone")
    # A verdict assembled by hand carries no degrades, but its judged:false is still a loss.
    if verdict.get("judged") is False and not any("judged: false" in line or "judged:false" in line for line in losses):
        losses.append(LOSS_PREFIX + THIN_CROSS_REVIEW)
    return tuple(losses), tuple(notes)


def _paragraphs(text: Any) -> tuple[str, ...]:
    if not isinstance(text, str):
        return ()
    return tuple(p for p in (" ".join(block.split()) for block in re.split(r"\n\s*\n", text)) if p)


def _build_debate(raw: Any, rows: Sequence[FindingView]) -> DebateSummary | None:
    debated = tuple(DebateRow(r.id, r.debate.action, r.debate.previous_tier, r.tier) for r in rows if r.debate is not None)
    summary = raw if isinstance(raw, Mapping) else None
    if summary is None and not debated:
        return None
    actions = [r.action for r in debated]

    def count(key: str, action: str) -> int:
        value = summary.get(key) if summary is not None else None
        return value if isinstance(value, int) and not isinstance(value, bool) else actions.count(action)

    changes = summary.get("verdictChanges") if summary is not None else None
    if not isinstance(changes, int) or isinstance(changes, bool):
        changes = sum(1 for r in debated if r.previous_tier and r.previous_tier != r.tier)
    outcome = summary.get("outcome") if summary is not None else None
    return DebateSummary(
        outcome=_text(outcome) if outcome is not None else None,
        defended=count("defended", "defended"),
        amended=count("amended", "amended"),
        withdrawn=count("withdrawn", "withdrawn"),
        no_response=count("noResponse", "no-response"),
        verdict_changes=changes,
        rows=debated,
    )


def _claims(findings: Sequence[Mapping[str, object]]) -> dict[str, tuple[str | None, str | None]]:
    """finding id → (claim, location) from a tally record's findings, or a question verdict's
    (read field by field: a hand-assembled verdict's may lack them; model text, raw)."""
    out: dict[str, tuple[str | None, str | None]] = {}
    for f in findings:
        fid, claim, location = f.get("id"), f.get("claim"), f.get("location")
        if isinstance(fid, str):
            out[fid] = (claim if isinstance(claim, str) and claim.strip() else None,
                        location if isinstance(location, str) and location.strip() else None)
    return out


def _build_notes(verdict: Mapping[str, Any], findings: Sequence[Mapping[str, Any]],
                 stats: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """What a reader must know to weigh this run: the optional elements it used and their caveats."""
    notes: list[str] = []
    roles = [role for r in stats if isinstance(role := r.get("role"), str)]
    critics = [str(r.get("seat") or r.get("model")) for r in stats if r.get("role") == "critic"]
    if critics:
        notes.append(f"Critic seat: {', '.join(critics)} reviewed with the adversarial brief. It can recognise its own "
                     "review in the anonymized bundle by its shape, so self-bias washes out less for that seat.")
    lenses = sorted({role.removeprefix("lens:") for role in roles if role.startswith("lens:")})
    if lenses:
        notes.append(f"Expert lenses: each seat reviewed through one lens ({', '.join(lenses)}). A judge can spot its "
                     "own lens-flavoured review, so anonymity was weaker; street-cred is not comparable across lenses; "
                     "and the run was not recorded in the reliability ledger.")
    if verdict.get("claudeInCouncil") is True and "claude" in _list(verdict.get("council")):
        notes.append(_claude_readout(verdict, findings))
    withdrawn = [str(f.get("id")) for f in findings if isinstance(f.get("debate"), Mapping) and f["debate"].get("action") == "withdrawn"]
    if withdrawn:
        notes.append(f"Withdrawn by the raiser in the debate round (recorded as denied): {', '.join(withdrawn)}.")
    return tuple(notes)


def _claude_readout(verdict: Mapping[str, Any], findings: Sequence[Mapping[str, Any]]) -> str:
    """How Claude's review fared: its peers-only rank among the reviews, and its tier split."""
    rows = [r for r in _list(verdict.get("streetCred")) if isinstance(r, Mapping)]
    scored = sorted((r["peersOnly"], str(r.get("seat") or r.get("model"))) for r in rows
                    if isinstance(r.get("peersOnly"), (int, float)) and not isinstance(r.get("peersOnly"), bool))
    place = next((i for i, (_, who) in enumerate(scored, 1) if who == "claude"), None)
    cred = (f"street-cred {format_score(scored[place - 1][0])}, rank {place} of {len(scored)}" if place
            else "no peer ranked it")
    own = [f for f in findings if f.get("raiser") == "claude"]
    split = " · ".join(f"{tier} {sum(1 for f in own if f.get('tier') == tier)}" for tier in TIER_DISPLAY_ORDER)
    return f"How Claude's review fared: {cred}; its {len(own)} finding(s): {split}."


# --------------------------------------------------------------------------- formatting


def round_half_up(value: int | float | Decimal, places: int) -> Decimal:
    """Round like a person would (2.5 → 3), not like binary floats / banker's rounding do."""
    # str() first: Decimal(0.052) would carry the float's binary error into the rounding.
    exact = value if isinstance(value, Decimal) else Decimal(str(value))
    return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def format_duration(duration_ms: Any) -> str:
    """Whole seconds, half-up (37810 ms → "38s"); under a second, tenths (412 ms → "0.4s", below
    0.05 s "<0.1s": a leg that took time never reads "0s"); anything not a number → "—"."""
    if not _is_number(duration_ms):
        return "—"
    seconds = Decimal(str(duration_ms)) / 1000
    if 0 < seconds < 1:
        tenths = round_half_up(seconds, 1)
        return f"{tenths}s" if tenths > 0 else "<0.1s"
    return f"{round_half_up(seconds, 0)}s"


def format_money(amount: int | float | Decimal) -> str:
    """USD per amicus-facts §3.4: under $1 four decimals, otherwise two."""
    places = 4 if Decimal(str(amount)) < 1 else 2
    return f"${round_half_up(amount, places)}"


def format_score(value: Any) -> str:
    """Street-cred score with two decimals; null (never judged) → "—"."""
    if not _is_number(value):
        return "—"
    return str(round_half_up(value, 2))


# --------------------------------------------------------------------------- header


def _build_header(verdict: Mapping[str, Any]) -> Header:
    council = tuple(_text(m) for m in _list(verdict.get("council")))
    overall = verdict.get("overallVerdict")
    run_type = _text(verdict.get("runType"), "—")
    question = verdict.get("question")
    question = " ".join(question.split()) if isinstance(question, str) and question.strip() else None
    title = ""
    if verdict.get("intent") == TASK:
        title = TASK  # the title's word forks: a council asked to do or decide something
    elif verdict.get("intent") == QUESTION and question is not None:
        title = question if len(question) <= TITLE_QUESTION_CHARS else question[: TITLE_QUESTION_CHARS - 1].rstrip() + "…"
    answer = verdict.get("answer")
    return Header(
        run_type=run_type,
        run_id=_text(verdict.get("runId"), "—"),
        date=_text(verdict.get("date"), "—"),
        chair=_text(verdict.get("chair"), "—"),
        council=council,
        overall_verdict=_text(overall) if overall is not None else None,
        title=title,
        question=question if verdict.get("intent") == QUESTION else None,
        answer=_text(answer) if verdict.get("intent") == TASK and isinstance(answer, str) and answer.strip() else None,
    )


def _build_tier_counts(raw: Any, rows: Sequence[FindingView]) -> tuple[TierCount, ...]:
    counts = raw if isinstance(raw, Mapping) else {}
    out = []
    for tier in TIER_DISPLAY_ORDER:
        value = counts.get(tier)
        if not isinstance(value, int) or isinstance(value, bool):
            # Derived from the findings themselves, never guessed.
            value = sum(1 for r in rows if r.tier == tier)
        out.append(TierCount(tier, value))
    return tuple(out)


# --------------------------------------------------------------------------- matrix


def _usable_seats(seats: Any) -> list[str] | None:
    """Seat ids when `seats` is a usable seat table, else None (→ alias space)."""
    if not isinstance(seats, list) or not seats:
        return None
    if not all(isinstance(s, Mapping) and isinstance(s.get("id"), str) and s["id"] for s in seats):
        return None
    return _dedupe([s["id"] for s in seats])


def _alias_columns(council: Any) -> list[str]:
    # `claude` never votes, so it is not a judge column (its votes, if any, fold).
    return _dedupe([m for m in _list(council) if isinstance(m, str) and m and m != RESERVED_CLAUDE])


def _vote_key(adjudication: Mapping[str, Any], seat_space: bool) -> Any:
    if seat_space and adjudication.get("seat") is not None:
        return adjudication.get("seat")
    return adjudication.get("judge")


def _raiser_key(finding: Mapping[str, Any], seat_space: bool) -> str:
    seat = finding.get("raiserSeat")
    if seat_space and isinstance(seat, str) and seat:
        return seat
    return _text(finding.get("raiser"))


def _join_votes(
    finding: Mapping[str, Any], columns: Sequence[str], seat_space: bool
) -> tuple[dict[str, VoteKind], bool]:
    """Map column → vote (last wins); refused keys fold into UNATTRIBUTED."""
    known = set(columns)
    cells: dict[str, VoteKind] = {}
    folded = False
    for adj in _list(finding.get("adjudications")):
        if not isinstance(adj, Mapping):
            continue
        key = _vote_key(adj, seat_space)
        if not (isinstance(key, str) and key in known):
            key, folded = UNATTRIBUTED, True
        cells[key] = _vote_kind(adj.get("verdict"))
    return cells, folded


def _vote_kind(raw: Any) -> VoteKind:
    return raw if isinstance(raw, str) and raw in VOTES else "unknown"


def _build_matrix(verdict: Mapping[str, Any], findings: Sequence[Mapping[str, Any]],
                  claims: Mapping[str, tuple[str | None, str | None]],
                  evidence: Mapping[str, Mapping[str, Any]] | None = None) -> Matrix:
    seat_ids = _usable_seats(verdict.get("seats"))
    seat_space = seat_ids is not None
    columns = seat_ids if seat_ids is not None else _alias_columns(verdict.get("council"))
    joined = [_join_votes(f, columns, seat_space) for f in findings]
    # The extra column exists only when a vote folds, and never doubles a real
    # bench column literally named UNATTRIBUTED (seed: disclosed residual).
    if any(folded for _, folded in joined) and UNATTRIBUTED not in columns:
        columns = [*columns, UNATTRIBUTED]
    rows = tuple(
        _finding_view(f, cells, columns, seat_space, claims, evidence or {}) for f, (cells, _) in zip(findings, joined, strict=True)
    )
    return Matrix(
        columns=tuple(columns),
        rows=rows,
        has_unattributed=UNATTRIBUTED in columns and any(folded for _, folded in joined),
        has_dagger=any(r.same_model_only for r in rows),
        has_unknown_vote=any(v.kind == "unknown" for r in rows for v in r.votes),
    )


def _finding_view(
    finding: Mapping[str, Any], cells: Mapping[str, VoteKind], columns: Sequence[str], seat_space: bool,
    claims: Mapping[str, tuple[str | None, str | None]],
    evidence: Mapping[str, Mapping[str, Any]],
) -> FindingView:
    raiser = _raiser_key(finding, seat_space)
    votes = tuple(Vote(cells.get(col), cells.get(col) is not None and col == raiser) for col in columns)
    override = _override(finding.get("tierOverride"))
    decision = finding.get("decision")
    duplicate = finding.get("duplicateOf")
    fid = finding.get("id")
    claim, location = claims.get(fid, (None, None)) if isinstance(fid, str) else (None, None)
    quoted = evidence.get(fid) if isinstance(fid, str) else None
    check = finding.get("evidenceCheck") if finding.get("evidenceCheck") in EVIDENCE_CHECKS else None
    where = finding.get("evidenceLocation")
    if quoted is not None:  # the record's, when the verdict was rendered with one
        check = check or quoted.get("evidenceCheck")
        where = where if isinstance(where, str) else quoted.get("evidenceLocation")
    text = quoted.get("evidence") if quoted is not None else None
    calls = quoted.get("verificationToolCalls") if quoted is not None else None
    verification = finding.get("verification")
    return FindingView(
        id=_text(finding.get("id"), "?"),
        severity=_text(finding.get("severity")),
        raiser=raiser,
        tier=override.to_tier if override else _text(finding.get("tier"), "?"),
        basis=_basis(finding.get("basis")),
        decision=_text(decision) if decision is not None else None,
        applied=finding.get("applied") is True,
        override=override,
        duplicate_of=_text(duplicate) if duplicate not in (None, "") else None,
        debate=_debate(finding.get("debate")),
        same_model_only=finding.get("sameModelCorroboration") is True,
        votes=votes,
        claim=claim,
        location=location,
        evidence=text if isinstance(text, str) and text.strip() else None,
        evidence_check=check if check in EVIDENCE_CHECKS else None,
        evidence_location=where if isinstance(where, str) else None,
        verification=verification if verification in VERIFICATIONS else None,
        verification_tool_calls=calls if isinstance(calls, int) and verification in VERIFICATIONS else None,
    )


def _evidence(record: TallyRecord | None) -> dict[str, Mapping[str, object]]:
    """finding id → its evidence fields, from a tally record (model text, raw)."""
    out: dict[str, Mapping[str, object]] = {}
    for scored in record["findings"] if record is not None else []:
        f: Mapping[str, object] = scored  # verificationToolCalls rides along undeclared (the tally input's)
        fid = scored["id"]
        if any(k in f for k in EVIDENCE_FIELDS):
            out[fid] = {k: v for k in EVIDENCE_FIELDS if isinstance(v := f.get(k), str)}
        calls = f.get("verificationToolCalls")
        if isinstance(calls, int) and not isinstance(calls, bool) and calls >= 0:
            out[fid] = {**out.get(fid, {}), "verificationToolCalls": calls}
    return out


def _basis(raw: Any) -> Basis:
    b = raw if isinstance(raw, Mapping) else {}
    return Basis(_int_or_none(b.get("a")), _int_or_none(b.get("d")), _int_or_none(b.get("n")))


def _override(raw: Any) -> Override | None:
    if not isinstance(raw, Mapping) or raw.get("to") in (None, ""):
        return None
    return Override(_text(raw.get("from"), "?"), _text(raw.get("to")), _text(raw.get("reason")))


def _debate(raw: Any) -> DebateNote | None:
    if not isinstance(raw, Mapping) or raw.get("action") in (None, ""):
        return None
    return DebateNote(_text(raw.get("action")), _text(raw.get("previousTier")))


def _group_by_tier(rows: Sequence[FindingView]) -> tuple[TierGroup, ...]:
    extra = _dedupe([r.tier for r in rows if r.tier not in TIER_DISPLAY_ORDER])
    groups = (TierGroup(t, tuple(r for r in rows if r.tier == t)) for t in (*TIER_DISPLAY_ORDER, *extra))
    return tuple(g for g in groups if g.findings)


# --------------------------------------------------------------------------- street-cred


def _street_cred_row(row: Mapping[str, Any]) -> StreetCredRow:
    seat = row.get("seat")
    label = seat if isinstance(seat, str) and seat else _text(row.get("model"), "?")
    return StreetCredRow(label, format_score(row.get("peersOnly")), format_score(row.get("withSelf")))


# --------------------------------------------------------------------------- cost


def _known_cost(row: Mapping[str, Any]) -> tuple[Decimal | None, bool]:
    """(amount, estimated) for a runStats row; amount None when the cost is unknown."""
    usage = row.get("usage")
    cost = usage.get("cost") if isinstance(usage, Mapping) else None
    if not isinstance(cost, Mapping) or not _is_number(cost.get("amount")):
        return None, False
    return Decimal(str(cost["amount"])), cost.get("source") == "estimated"


def _cost_row(row: Mapping[str, Any]) -> CostRow:
    seat = row.get("seat")
    label = seat if isinstance(seat, str) and seat else _text(row.get("model"), "?")
    role = row.get("role")
    if isinstance(role, str) and role in SUFFIXED_ROLES:
        label = f"{label} ({role})"
    status, duration = _text(row.get("status"), "—"), format_duration(row.get("durationMs"))
    amount, estimated = _known_cost(row)
    if amount is None:
        # An agent seat bills its own subscription: no dollar figure, and not a mystery either.
        model = row.get("model")
        agent = isinstance(model, str) and model.startswith(AGENT_PREFIX)
        return CostRow(label, status, duration, SUBSCRIPTION if agent else "?", "unknown")
    if estimated:
        return CostRow(label, status, duration, "~" + format_money(amount), "estimated")
    return CostRow(label, status, duration, format_money(amount), "reported")


def _wave_total(stats: Sequence[Mapping[str, Any]], wave: Mapping[str, Any] | None) -> str:
    if wave is not None:
        usage = wave.get("usage")
        cost = usage.get("cost") if isinstance(usage, Mapping) else None
        if not isinstance(cost, Mapping) or not _is_number(cost.get("amount")):
            return "?"
        approx = "~" if cost.get("source") in ESTIMATED_COST_SOURCES else ""
        return approx + format_money(Decimal(str(cost["amount"])))
    known = [_known_cost(r) for r in stats]
    amounts = [a for a, _ in known if a is not None]
    if not amounts:
        return "?"
    lower_bound = "at least " if len(amounts) < len(known) else ""
    approx = "~" if any(est for _, est in known) else ""
    return lower_bound + approx + format_money(sum(amounts, Decimal(0)))


# --------------------------------------------------------------------------- helpers


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dedupe(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _is_number(value: Any) -> bool:
    # bool is an int subclass in Python; a JSON `true` is not a figure.
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return False
    try:
        return Decimal(str(value)).is_finite()
    except InvalidOperation:
        return False


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any, missing: str = "") -> str:
    """Display text for a document value; raw (unescaped) — renderers escape."""
    if value is None:
        return missing
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)
