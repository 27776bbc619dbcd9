"""Markdown renderer for the council report (owns the Markdown string format).

Input is the neutral `ReportModel` from `report.py`; output is one string ending in a
single newline. The worked example in seed "amicus council report" must reproduce byte
for byte, so the layout here is deliberately literal.

Model-derived text is untrusted: every such string passes through `_inline` (newlines
collapsed, so a value cannot start a heading or a new table row) and, inside a table,
through `_cell` (backslashes and pipes escaped, so it cannot add or shift a column). Model
prose (claims, locations, the chair's synthesis and questions) goes through `prose`, which
also escapes every inline Markdown marker, so it reads as text and never as structure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from amicus_mcp.council.report_model import (
    CLAIMS_UNAVAILABLE,
    CLEAN_BENCH,
    TIER_QUALIFIER,
    GLYPHS,
    NO_CHAIR_ANSWER,
    NO_CLAIM_DISPUTED,
    NO_CLAIMS_MADE,
    NOTHING_LOST_TEXT,
    RANKING_LEGEND,
    THIN_VERDICT,
    VOTES_IN_WORDS,
    VOTE_LEGEND,
    CostRow,
    DebateSummary,
    FindingView,
    Header,
    Matrix,
    QuestionView,
    ReportModel,
    StreetCredRow,
    TierCount,
    TierGroup,
    Vote,
)

LEGEND = f"_Legend: {VOTE_LEGEND} · `*` raiser's own vote_"
CLAIM_LEGEND = f"_Legend: {VOTE_LEGEND} · `*` the author's own vote (not counted)_"  # a question council's claim matrix
LEGEND_UNKNOWN = f"_`?` a vote whose verdict is not {VOTES_IN_WORDS}_"
LEGEND_DAGGER = "_`†` corroborated only by another seat running the same model_"
LEGEND_UNATTRIBUTED = "_`UNATTRIBUTED` votes whose judge names no column on this bench (last vote wins per finding)_"
NO_FINDINGS = "_No findings._"
NONE_RAISED = f"_{CLEAN_BENCH}_"
NOTHING_LOST = f"_{NOTHING_LOST_TEXT}_"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def render_markdown(model: ReportModel) -> str:
    """Render the whole report; sections are separated by one blank line."""
    if model.question is not None:
        return render_question_markdown(model, model.question)
    blocks = [
        _header(model.header, thin=model.thin_verdict),
        _summary(model.tier_counts, qualified=model.qualified),
        *([_lost(model.losses, model.run_notes)] if model.losses or model.run_notes else []),
        *([_chair(model.synthesis, model.hard_questions)] if model.synthesis or model.hard_questions else []),
        _matrix(model.matrix),
        _street_cred(model.street_cred),
        _findings(model.tier_groups, claims_unavailable=model.claims_unavailable),
        *([_debate(model.debate)] if model.debate is not None else []),
        *([_notes(model.notes)] if model.notes else []),
        _cost(model.cost_rows, model.wave_total, model.total_label),
        *_pr_loop(model),
    ]
    return "\n\n".join(blocks) + "\n"


def _pr_loop(model: ReportModel) -> list[str]:
    """The re-review against the baseline run and the previously dismissed findings, when the run has them."""
    return [*([rereview_summary(model.rereview).rstrip()] if model.rereview is not None else []),
            *([dismissed_summary(model.dismissed).rstrip()] if model.dismissed is not None else [])]


def _lost(losses: Sequence[str], notes: Sequence[str]) -> str:
    blocks = ["## What was lost"]
    blocks.append("\n".join(f"- {prose(line)}" for line in losses) if losses else NOTHING_LOST)
    if notes:
        blocks += ["**Notes:**", "\n".join(f"- {prose(n)}" for n in notes)]
    return "\n\n".join(blocks)


def _chair(synthesis: Sequence[str], questions: Sequence[str]) -> str:
    blocks = ["## Chair's synthesis", *(f"> {prose(p)}" for p in synthesis)]
    if questions:
        blocks += ["### Hard questions", "\n".join(f"{i}. {prose(q)}" for i, q in enumerate(questions, 1))]
    return "\n\n".join(blocks)


def _debate(d: DebateSummary) -> str:
    lines = [f"- {_inline(fact)}" for fact in d.facts]
    lines += [f"- **{_inline(r.id)}**: {_inline(r.said)} — {_inline(r.change)}" for r in d.rows]
    return "## Debate round\n\n" + "\n".join(lines)


def _notes(notes: Sequence[str]) -> str:
    return "## About this run\n\n" + "\n".join(f"- {_inline(n)}" for n in notes)


# --------------------------------------------------------------------------- escaping


def _inline(text: str) -> str:
    """One line of Markdown: a newline in model text must not start a new block."""
    return _LINE_BREAK.sub(" ", text)


# Model prose (claims, locations, the chair's words) is neutralised, not just kept on one line:
# every character that could open Markdown structure inside a line (emphasis, code, links,
# images, raw HTML, table cells) is backslash-escaped, and so is a leading block marker.
_MD_INLINE = re.compile(r"([\\`*_\[\]<>|~])")
_MD_BLOCK_START = re.compile(r"^([#>+=-]|\d+[.)])")


def prose(text: str) -> str:
    one_line = " ".join(text.split())
    escaped = _MD_INLINE.sub(r"\\\1", one_line)
    return _MD_BLOCK_START.sub(r"\\\1", escaped)


def _cell(text: str) -> str:
    # Backslash first, else an input `\|` would become `\\|` = literal `\` + column break.
    return _inline(text).replace("\\", "\\\\").replace("|", "\\|")


def _row(cells: Sequence[str]) -> str:
    """A table row from already-escaped cells; an empty cell renders as `| |`."""
    return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = [_row(headers), "|" + "---|" * len(headers)]
    lines.extend(_row(r) for r in rows)
    return "\n".join(lines)


# --------------------------------------------------------------------------- sections


def _header(h: Header, *, thin: bool = False) -> str:
    council = ", ".join(_inline(m) for m in h.council)
    lines = [
        f"# Council Report — {_subject(h)} ({_inline(h.run_id)})",
        "",
        f"_{_inline(h.date)} · chair: {_inline(h.chair)} · council: {council}_",
    ]
    if h.overall_verdict is not None:
        rests = f" — _{THIN_VERDICT}_" if thin else ""
        line = "Chair answer" if h.title == "task" else "Chair verdict"  # a task's chair closes on an ANSWER line
        answer = f" {prose(h.answer)}" if h.answer is not None else ""
        lines += ["", f"**{line}: {_inline(h.overall_verdict)}**{answer}{rests}"]
    return "\n".join(lines)


def _subject(h: Header) -> str:
    """What the title names: a question (user text, escaped) or the task word, else the run type."""
    return prose(h.title) if h.title else _inline(h.run_type)


def _summary(counts: Sequence[TierCount], *, qualified: bool = False) -> str:
    table = "## Verdict summary\n\n" + _table(["Tier", "Count"], [[c.tier, str(c.total)] for c in counts])
    return table + (f"\n\n_{TIER_QUALIFIER}_" if qualified else "")


def _vote(v: Vote) -> str:
    if v.kind is None:
        return ""
    return GLYPHS[v.kind] + ("*" if v.raiser else "")


def _tier_cell(f: FindingView) -> str:
    return _cell(f.tier) + (" (override)" if f.override else "")


def _matrix_row(f: FindingView, dagger: bool) -> list[str]:
    fid = _cell(f.id) + ("†" if dagger and f.same_model_only else "")
    votes = [_vote(v) for v in f.votes]
    decision = _cell(f.decision) if f.decision is not None else ""
    return [fid, _cell(f.severity), _cell(f.raiser), *votes, _tier_cell(f), decision]


def _matrix(m: Matrix) -> str:
    title = "## Adjudication matrix"
    if not m.rows:
        return f"{title}\n\n{NO_FINDINGS}"
    headers = ["Finding", "Sev", "Raiser", *(_cell(c) for c in m.columns), "Tier", "Decision"]
    table = _table(headers, [_matrix_row(f, m.has_dagger) for f in m.rows])
    return "\n\n".join([title, table, *_legend(m, LEGEND)])


def _legend(m: Matrix, first: str) -> list[str]:
    """The matrix legend's lines; each is its own paragraph so it stays on its own line when rendered."""
    legend = [first]
    if m.has_unknown_vote:
        legend.append(LEGEND_UNKNOWN)
    if m.has_dagger:
        legend.append(LEGEND_DAGGER)
    if m.has_unattributed:
        legend.append(LEGEND_UNATTRIBUTED)
    return legend


def _street_cred(rows: Sequence[StreetCredRow]) -> str:
    title = "## Street-cred (peers-only; lower = better)"
    if not rows:
        return f"{title}\n\n_No street-cred rows._"
    body = [[_cell(r.label), r.peers_only, r.with_self] for r in rows]
    return f"{title}\n\n" + _table(["Model", "peers-only", "with-self"], body)


def finding_line(f: FindingView) -> str:
    """`- **B2** (blocker, raiser gpt) — a0/d1/n0 — accepted (applied)` plus annotations,
    and, when the report has the run's record, the claim and its location beneath."""
    line = _finding_head(f)
    if f.claim is not None:
        line += f"\n  - {prose(f.claim)}"
    if f.location is not None:
        line += f"\n  - location: {prose(f.location)}"
    return line + evidence_lines(f)


def evidence_lines(f: FindingView) -> str:
    """The finding's quote and what the evidence check found (and the verifier, with --verify);
    nothing for a finding that was never checked, so an older verdict renders as it did."""
    out = ""
    if f.evidence is not None:
        out += f"\n  - evidence: {prose(f.evidence)}"
    if f.evidence_text is not None:
        out += f"\n  - evidence check: **{f.evidence_check}** — {prose(f.evidence_text)}"
    if f.verification is not None:
        out += f"\n  - verifier: **{f.verification}**"
        if f.verification_tool_calls is not None:
            out += f" ({f.verification_tool_calls} tool call{'' if f.verification_tool_calls == 1 else 's'})"
    return out


def _finding_head(f: FindingView) -> str:
    parts = [f"- **{_inline(f.id)}** ({_inline(f.severity)}, raiser {_inline(f.raiser)})", f.basis.text]
    if f.decision is not None:
        parts.append(_inline(f.decision) + (" (applied)" if f.applied else ""))
    if f.override is not None:
        o = f.override
        reason = f": {_inline(o.reason)}" if o.reason else ""
        parts.append(f"tier overridden {_inline(o.from_tier)} → {_inline(o.to_tier)}{reason}")
    if f.debate is not None:
        was = f" (was {_inline(f.debate.previous_tier)})" if f.debate.previous_tier else ""
        parts.append(f"debate: {_inline(f.debate.action)}{was}")
    if f.duplicate_of is not None:
        parts.append(f"duplicate of {_inline(f.duplicate_of)}")
    return " — ".join(parts)


def _findings(groups: Sequence[TierGroup], *, claims_unavailable: bool = False, title: str = "## Findings by tier",
              empty: str = NONE_RAISED, line: Callable[[FindingView], str] | None = None) -> str:
    """The findings (a question council's: its claims, `claim_line`) grouped by tier."""
    if not groups:
        return f"{title}\n\n{empty}"
    blocks = [title, *([f"_{CLAIMS_UNAVAILABLE}_"] if claims_unavailable else [])]
    for g in groups:
        blocks.append(f"### {_inline(g.tier)}")
        blocks.append("\n".join((line or finding_line)(f) for f in g.findings))
    return "\n\n".join(blocks)


def _cost(rows: Sequence[CostRow], wave_total: str, label: str) -> str:
    body = [[_cell(r.label), _cell(r.status), r.duration, r.cost] for r in rows]
    body.append([f"**{label}**", "", "", wave_total])
    return "## Cost\n\n" + _table(["Model", "Status", "Duration", "Cost"], body)


# --------------------------------------------------------------------------- a question council


def render_question_markdown(model: ReportModel, q: QuestionView) -> str:
    """A question council's report: the answer first, then why, who ranked what, the claims."""
    blocks = [
        _answer_header(model.header, q, thin=model.thin_verdict),
        *([_lost(model.losses, model.run_notes)] if model.losses or model.run_notes else []),
        *([_chair_answer(model.synthesis)] if model.synthesis else []),
        _dissent(q),
        _ranked(q),
        _claim_matrix(model.matrix),
        _claims(model.tier_groups, claims_unavailable=model.claims_unavailable),
        *([_debate(model.debate)] if model.debate is not None else []),
        *([_notes(model.notes)] if model.notes else []),
        _cost(model.cost_rows, model.wave_total, model.total_label),
        *_pr_loop(model),
    ]
    return "\n\n".join(blocks) + "\n"


def _answer_header(h: Header, q: QuestionView, *, thin: bool) -> str:
    council = ", ".join(_inline(m) for m in h.council)
    lines = [f"# Council Answer — {_subject(h)} ({_inline(h.run_id)})", ""]
    if h.question is not None:  # the question first: the answer below means nothing without it
        lines += [f"**Question:** {prose(h.question)}", ""]
    lines += [f"_{_inline(h.date)} · chair: {_inline(h.chair)} · council: {council}_", ""]
    rests = f" — _{THIN_VERDICT}_" if thin else ""
    if q.standing is None:
        lines.append(f"**{NO_CHAIR_ANSWER}**{rests}")
    elif q.answer is None:
        lines.append(f"**Answer: {_inline(q.standing)}**{rests}")
    else:
        lines.append(f"**Answer ({_inline(q.standing)}):** {prose(q.answer)}{rests}")
    return "\n".join(lines)


def _chair_answer(synthesis: Sequence[str]) -> str:
    return "\n\n".join(["## The chair's answer", *(f"> {prose(p)}" for p in synthesis)])


def _dissent(q: QuestionView) -> str:
    blocks = ["## Dissent"]
    if q.dissent:
        blocks.append("\n".join(f"- {prose(d)}" for d in q.dissent))
    blocks.append("**Disputed claims:**")
    blocks.append("\n".join(claim_line(f) for f in q.disputed) if q.disputed else f"_{NO_CLAIM_DISPUTED}_")
    return "\n\n".join(blocks)


def _ranked(q: QuestionView) -> str:
    title = "## Ranked answers"
    if not q.ranked:
        return f"{title}\n\n_No answer was ranked._"
    labelled = any(r.label for r in q.ranked)  # a hand-assembled verdict knows no labels
    headers = ["Rank", *(["Answer"] if labelled else []), "Model", "peers-only", "with-self",
               *(_cell(j) for j in q.judges), "Claims"]
    rows = [[str(r.rank), *([_cell(r.label)] if labelled else []), _cell(r.who), r.peers_only, r.with_self,
             *r.per_judge, r.claims] for r in q.ranked]
    blocks = [title, _table(headers, rows), f"_Legend: {RANKING_LEGEND}._"]
    for r in q.ranked:
        if r.answer is None and not r.unstructured:
            continue  # the verdict does not carry this answer's words (a hand-assembled one)
        name = f"{_inline(r.label)} — {_inline(r.who)}" if r.label else _inline(r.who)
        lines = [f"### {r.rank}. {name}"]
        if r.answer is not None:
            confidence = f" _(confidence: {_inline(r.confidence)})_" if r.confidence else ""
            lines += ["", f"{prose(r.answer)}{confidence}"]
            if r.assumptions:
                lines += ["", *(f"- assumes: {prose(a)}" for a in r.assumptions)]
        elif r.unstructured:
            lines += ["", "_Its answer block never read: the judges ranked its prose._"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _claim_matrix(m: Matrix) -> str:
    title = "## Claim matrix"
    if not m.rows:
        return f"{title}\n\n_{NO_CLAIMS_MADE}_"
    headers = ["Claim", "Made by", *(_cell(c) for c in m.columns), "Tier"]
    rows = [[_cell(f.id) + ("†" if m.has_dagger and f.same_model_only else ""), _cell(f.raiser),
             *(_vote(v) for v in f.votes), _tier_cell(f)] for f in m.rows]
    return "\n\n".join([title, _table(headers, rows), *_legend(m, CLAIM_LEGEND)])


def claim_line(f: FindingView) -> str:
    """`- **B2** (made by gpt) — a0/d2/n0` and the claim beneath, as the tier lists show it."""
    parts = [f"- **{_inline(f.id)}** (made by {_inline(f.raiser)})", f.basis.text]
    if f.decision is not None:
        parts.append(_inline(f.decision) + (" (applied)" if f.applied else ""))
    if f.override is not None:
        parts.append(f"tier overridden {_inline(f.override.from_tier)} → {_inline(f.override.to_tier)}")
    if f.debate is not None:
        was = f" (was {_inline(f.debate.previous_tier)})" if f.debate.previous_tier else ""
        parts.append(f"debate: {_inline(f.debate.action)}{was}")
    line = " — ".join(parts)
    if f.claim is not None:
        line += f"\n  - {prose(f.claim)}"
    return line + evidence_lines(f)


def _claims(groups: Sequence[TierGroup], *, claims_unavailable: bool) -> str:
    return _findings(groups, claims_unavailable=claims_unavailable, title="## Claims by tier",
                     empty=f"_{NO_CLAIMS_MADE}_", line=claim_line)


def rereview_summary(doc: Mapping[str, Any]) -> str:
    """The re-review as Markdown (the Action's step summary): the counts, then what was resolved.
    Claims are model text: escaped as the report escapes them."""
    from .rereview import rereview_line

    lines = [f"## {rereview_line(doc)}", ""]
    statuses: dict[str, list[str]] = {"new": [], "still-open": []}
    for d in doc.get("decisions") or []:
        statuses.setdefault(str(d.get("status")), []).append(str(d.get("id")))
    lines.append(f"- new: {', '.join(statuses['new']) or 'none'}")
    lines.append(f"- still open: {', '.join(statuses['still-open']) or 'none'}")
    resolved = doc.get("resolved") or []
    lines.append(f"- resolved: {len(resolved) or 'none'}")
    for r in resolved:
        where = f" ({prose(str(r.get('location')))})" if r.get("location") else ""
        lines.append(f"  - **{prose(str(r.get('baselineId')))}** {r.get('severity')} — {prose(str(r.get('claim') or ''))}{where}")
    lines += _matcher_lines(doc)
    return "\n".join(lines)


def _matcher_lines(doc: Mapping[str, Any]) -> list[str]:
    """The matcher's part (--matcher): what it did, each decision with its reason (model output,
    escaped as a claim is), and what it could not do."""
    from .rereview import matcher_decisions, matcher_line

    line = matcher_line(doc)
    if line is None:
        return []
    out = [f"- {prose(line)}"]
    for fid, baseline, reason in matcher_decisions(doc):
        said = f"still open as **{prose(baseline)}**" if baseline else "new (no baseline finding)"
        out.append(f"  - **{prose(fid)}** {said} — the matcher: {prose(reason) or 'no reason given'}")
    for loss in (doc.get("matcher") or {}).get("losses") or []:
        out.append(f"  - lost: {prose(str(loss))}")
    return out


def dismissed_summary(doc: Mapping[str, Any]) -> str:
    """The run's findings that match one the user dismissed before, as Markdown."""
    lines = ["## Previously dismissed", "",
             "These findings match one the user denied in an earlier run; the gate does not count them "
             "unless they come back Confirmed with verified evidence.", ""]
    for m in doc.get("findings") or []:
        reason = prose(str(m.get("reason"))) if m.get("reason") else "no reason given"
        lines.append(f"- **{prose(str(m.get('id')))}** — dismissed in run {prose(str(m.get('dismissedIn')))}: {reason}")
    return "\n".join(lines)
