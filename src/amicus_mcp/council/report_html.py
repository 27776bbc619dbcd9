"""HTML renderer for the council report: one self-contained page, no external resources.

Input is the neutral `ReportModel` from `report.py`. The page carries its styles inline,
loads nothing (no scripts, links, images, fonts, `url(...)` or `@import`), and declares a
`default-src 'none'` Content-Security-Policy so that even a renderer bug could not make it
fetch or run anything. It reads in light and dark mode via `prefers-color-scheme`.

Model-derived text is untrusted: every string taken from the model goes through `_e`
(`html.escape(..., quote=True)`) before it touches markup, in text and attributes alike.
Class names are never built from model text — they come from fixed lookup tables.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence

from amicus_mcp.council.report_model import (
    CLAIMS_UNAVAILABLE,
    GLYPHS,
    NO_CHAIR_ANSWER,
    NO_CLAIM_DISPUTED,
    NO_CLAIMS_MADE,
    CLEAN_BENCH,
    NOTHING_LOST_TEXT,
    RANKING_LEGEND,
    THIN_VERDICT,
    TIER_QUALIFIER,
    UNATTRIBUTED,
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
from amicus_mcp.vocabulary import CHAIR_LINE_TONES, TIER_DISPLAY_ORDER

# Fixed class per known tier; an unknown tier gets none rather than a class built from text.
# Keyed by str: a report renders whatever tier or phrase its documents hold (an unknown one gets no class).
TIER_CLASS: dict[str, str] = {t: f"tier-{t.lower()}" for t in TIER_DISPLAY_ORDER}
# Fixed class per closing phrase: each scale runs from the best outcome to the worst.
VERDICT_CLASS: dict[str, str] = {phrase: tone for phrase, tone in CHAIR_LINE_TONES.items()}  # the chip's class: its phrase's tone
DAGGER_TEXT = "corroborated only by another seat running the same model"
UNATTRIBUTED_TEXT = "votes whose judge names no column on this bench (last vote wins per finding)"

CSS = """
:root{color-scheme:light dark;--bg:#fbfbfa;--fg:#1f2328;--muted:#59636e;--border:#d0d7de;
--head:#f0f2f4;--card:#ffffff;--bad:#cf222e;--bad-bg:#ffebe9;--warn:#9a6700;--warn-bg:#fff8c5;
--good:#1a7f37;--good-bg:#dafbe1;--single:#57606a;--single-bg:#f3f4f6;--accent:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;
--border:#30363d;--head:#161b22;--card:#11161d;--bad:#ff7b72;--bad-bg:rgba(248,81,73,.16);
--warn:#e3b341;--warn-bg:rgba(210,153,34,.16);--good:#56d364;--good-bg:rgba(46,160,67,.16);
--single:#9198a1;--single-bg:rgba(110,118,129,.14);--accent:#58a6ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:980px;margin:0 auto;padding:32px 24px 48px}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 6px}
h1 .run-id{color:var(--muted);font-weight:500}
h2{font-size:1.15rem;margin:34px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--border)}
h3{font-size:1rem;margin:18px 0 6px;padding-left:8px;border-left:4px solid var(--single)}
.meta{color:var(--muted);margin:0}
.chair-verdict{display:inline-block;margin:14px 0 0;padding:6px 14px;border-radius:999px;
border:1px solid var(--border);background:var(--card);font-weight:600}
.chair-verdict.good{color:var(--good);background:var(--good-bg);border-color:var(--good)}
.chair-verdict.warn{color:var(--warn);background:var(--warn-bg);border-color:var(--warn)}
.chair-verdict.bad{color:var(--bad);background:var(--bad-bg);border-color:var(--bad)}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;background:var(--card);font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--border);padding:6px 10px;text-align:left;vertical-align:top}
th{background:var(--head);font-weight:600;white-space:nowrap}
td.num{text-align:right}
td.vote{text-align:center;font-size:1.05rem;min-width:3.2em}
td.vote.agree{color:var(--good)} td.vote.dispute{color:var(--bad)} td.vote.neutral{color:var(--muted)}
.star{font-weight:700;color:var(--fg)}
th.unattributed{color:var(--muted);font-style:italic}
tr.tier-disputed td{background:var(--bad-bg)} tr.tier-disputed td:first-child{box-shadow:inset 4px 0 var(--bad)}
tr.tier-contested td{background:var(--warn-bg)} tr.tier-contested td:first-child{box-shadow:inset 4px 0 var(--warn)}
tr.tier-confirmed td{background:var(--good-bg)} tr.tier-confirmed td:first-child{box-shadow:inset 4px 0 var(--good)}
tr.tier-singleton td{background:var(--single-bg)} tr.tier-singleton td:first-child{box-shadow:inset 4px 0 var(--single)}
h3.tier-disputed{border-color:var(--bad)} h3.tier-contested{border-color:var(--warn)}
h3.tier-confirmed{border-color:var(--good)} h3.tier-singleton{border-color:var(--single)}
.badge{display:inline-block;margin-left:6px;padding:0 7px;border-radius:999px;font-size:.75rem;
line-height:1.6;font-weight:600;border:1px solid var(--border);color:var(--muted);vertical-align:1px}
.badge.override{color:var(--accent);border-color:var(--accent)}
.legend{color:var(--muted);font-size:.9rem;margin:8px 0 0}
.legend code{font-size:.85rem}
.empty{color:var(--muted);font-style:italic}
ul.findings{margin:0;padding-left:22px} ul.findings li{margin:3px 0}
.basis{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
.note{color:var(--muted)}
td.cost.unknown{color:var(--muted)} td.cost.estimated{font-style:italic}
tr.total td{font-weight:700;background:var(--head)}
.chair-verdict.degraded{border-style:dashed}
.chair-verdict .rests{font-weight:500}
ul.losses li{color:var(--bad)}
.notes-title{margin:12px 0 4px}
blockquote.synthesis{margin:8px 0;padding:4px 14px;border-left:4px solid var(--border);white-space:normal}
.claim{margin:2px 0 0}
.location{color:var(--muted);font-size:.9rem}
.evidence,.evidence-check,.verification{color:var(--muted);font-size:.9rem}
.check-not-found,.check-absent,.verify-refuted{color:#b3261e}
"""
# A question council's page only: a review's page keeps exactly its own styles, byte for byte.
QUESTION_CSS = """.answer-line{margin:14px 0 0;font-size:1.1rem}
.answer-line .chair-verdict{margin:0 8px 0 0}
.answered{margin:4px 0}
.assumptions{margin:2px 0 0;color:var(--muted)}
td.own{color:var(--muted)}
"""


def render_html(model: ReportModel) -> str:
    """Render the whole report as one self-contained HTML document."""
    h = model.header
    if model.question is not None:
        return _page(f"Council Answer — {h.subject} ({h.run_id})", _question_body(model, model.question),
                     css=CSS + QUESTION_CSS)
    title = f"Council Report — {h.subject} ({h.run_id})"
    body = "\n".join(
        [
            _header(h, thin=model.thin_verdict, degraded=bool(model.losses)),
            _summary(model.tier_counts, qualified=model.qualified),
            *([_lost(model.losses, model.run_notes)] if model.losses or model.run_notes else []),
            *([_chair(model.synthesis, model.hard_questions)] if model.synthesis or model.hard_questions else []),
            _matrix(model.matrix),
            _street_cred(model.street_cred),
            _findings(model.tier_groups, claims_unavailable=model.claims_unavailable),
            *([_rereview(model.rereview)] if model.rereview is not None else []),
            *([_dismissed(model.dismissed)] if model.dismissed is not None else []),
            *([_debate(model.debate)] if model.debate is not None else []),
            *([_notes(model.notes)] if model.notes else []),
            _cost(model.cost_rows, model.wave_total, model.total_label),
        ]
    )
    return _page(title, body)


def _page(title: str, body: str, css: str = CSS) -> str:
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        # Defence in depth: even an escaping bug could not load or run anything.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{_e(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n<main>\n"
        f"{body}\n</main>\n</body>\n</html>\n"
    )


# --------------------------------------------------------------------------- helpers


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _tr(cells: Sequence[str], cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<tr{attr}>" + "".join(cells) + "</tr>"


def _table(cls: str, headers: Sequence[str], rows: Sequence[str]) -> str:
    head = "<thead><tr>" + "".join(headers) + "</tr></thead>"
    body = "\n".join(rows)
    return f'<div class="table-wrap"><table class="{cls}">{head}<tbody>\n{body}\n</tbody></table></div>'


def _th(text: str, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<th{attr}>{_e(text)}</th>"


def _badge(text: str, cls: str = "", title: str = "") -> str:
    t = f' title="{_e(title)}"' if title else ""
    return f'<span class="badge {cls}"{t}>{_e(text)}</span>'


def _section(title: str, content: str) -> str:
    return f"<section>\n<h2>{_e(title)}</h2>\n{content}\n</section>"


def _empty(text: str) -> str:
    return f'<p class="empty">{_e(text)}</p>'


# --------------------------------------------------------------------------- sections


def _header(h: Header, *, thin: bool = False, degraded: bool = False) -> str:
    council = ", ".join(_e(m) for m in h.council)
    lines = [
        "<header>",
        f'<h1>Council Report — {_e(h.subject)} <span class="run-id">({_e(h.run_id)})</span></h1>',
        f'<p class="meta">{_e(h.date)} · chair: <strong>{_e(h.chair)}</strong> · council: {council}</p>',
    ]
    if h.overall_verdict is not None:
        cls = VERDICT_CLASS.get(h.overall_verdict, "")
        # A degraded run's chip is never the clean one: it points at what was lost.
        extra = " degraded" if degraded or thin else ""
        rests = f' <span class="rests">— {_e(THIN_VERDICT)}</span>' if thin else ""
        lost = ' <span class="rests">— see What was lost</span>' if degraded and not thin else ""
        line = "Chair answer" if h.title == "task" else "Chair verdict"  # a task's chair closes on an ANSWER line
        answer = f' <strong class="answer">{_e(h.answer)}</strong>' if h.answer is not None else ""
        lines.append(f'<p class="chair-verdict {cls}{extra}">{line}: {_e(h.overall_verdict)}{answer}{rests}{lost}</p>')
    lines.append("</header>")
    return "\n".join(lines)


def _summary(counts: Sequence[TierCount], *, qualified: bool = False) -> str:
    rows = [
        _tr([f"<td>{_e(c.tier)}</td>", f'<td class="num">{c.total}</td>'], TIER_CLASS.get(c.tier, ""))
        for c in counts
    ]
    qualifier = f'\n<p class="legend qualifier"><em>{_e(TIER_QUALIFIER)}</em></p>' if qualified else ""
    return _section("Verdict summary", _table("summary", [_th("Tier"), _th("Count")], rows) + qualifier)


def _vote_cell(v: Vote) -> str:
    if v.kind is None:
        return '<td class="vote"></td>'
    star = '<span class="star" title="raiser\'s own vote">*</span>' if v.raiser else ""
    return f'<td class="vote {v.kind}" title="{v.kind}">{GLYPHS[v.kind]}{star}</td>'


def _tier_badges(f: FindingView) -> str:
    out = ""
    if f.basis.thin:
        out += _badge("thin", "thin", "a+d ≤ 1: the tier rests on at most one decisive peer vote")
    if f.override is not None:
        out += _badge("override", "override", f"tier overridden from {f.override.from_tier}")
    return out


def _matrix_row(f: FindingView, dagger: bool) -> str:
    mark = f'<span class="dagger" title="{_e(DAGGER_TEXT)}">†</span>' if dagger and f.same_model_only else ""
    decision = _e(f.decision) if f.decision is not None else ""
    cells = [
        f"<td><strong>{_e(f.id)}</strong>{mark}</td>",
        f"<td>{_e(f.severity)}</td>",
        f"<td>{_e(f.raiser)}</td>",
        *(_vote_cell(v) for v in f.votes),
        f"<td>{_e(f.tier)}{_tier_badges(f)}</td>",
        f"<td>{decision}</td>",
    ]
    return _tr(cells, TIER_CLASS.get(f.tier, ""))


def _legend(m: Matrix, own: str = "raiser's own vote") -> str:
    lines = [f"Legend: {VOTE_LEGEND} · <code>*</code> {own}"]  # `own` is a fixed phrase, not model text
    if m.has_unknown_vote:
        lines.append(f"<code>?</code> a vote whose verdict is not {VOTES_IN_WORDS}")
    if m.has_dagger:
        lines.append(f"<code>†</code> {_e(DAGGER_TEXT)}")
    if m.has_unattributed:
        lines.append(f"<code>{UNATTRIBUTED}</code> {_e(UNATTRIBUTED_TEXT)}")
    return "\n".join(f'<p class="legend">{line}</p>' for line in lines)


def _matrix(m: Matrix) -> str:
    if not m.rows:
        return _section("Adjudication matrix", _empty("No findings."))
    judges = [_th(c, "judge unattributed" if c == UNATTRIBUTED and m.has_unattributed else "judge") for c in m.columns]
    headers = [_th("Finding"), _th("Sev"), _th("Raiser"), *judges, _th("Tier"), _th("Decision")]
    table = _table("matrix", headers, [_matrix_row(f, m.has_dagger) for f in m.rows])
    return _section("Adjudication matrix", table + "\n" + _legend(m))


def _street_cred(rows: Sequence[StreetCredRow]) -> str:
    title = "Street-cred (peers-only; lower = better)"
    if not rows:
        return _section(title, _empty("No street-cred rows."))
    body = [
        _tr(
            [
                f"<td>{_e(r.label)}</td>",
                f'<td class="num">{_e(r.peers_only)}</td>',
                f'<td class="num">{_e(r.with_self)}</td>',
            ]
        )
        for r in rows
    ]
    return _section(title, _table("street-cred", [_th("Model"), _th("peers-only"), _th("with-self")], body))


def _lost(losses: Sequence[str], notes: Sequence[str]) -> str:
    body = ('<ul class="losses">\n' + "\n".join(f"<li>{_e(line)}</li>" for line in losses) + "\n</ul>"
            if losses else _empty(NOTHING_LOST_TEXT))
    if notes:
        body += ('\n<p class="notes-title"><strong>Notes:</strong></p>\n<ul class="notes">\n'
                 + "\n".join(f"<li>{_e(n)}</li>" for n in notes) + "\n</ul>")
    return _section("What was lost", body)


def _chair(synthesis: Sequence[str], questions: Sequence[str]) -> str:
    body = "\n".join(f'<blockquote class="synthesis">{_e(p)}</blockquote>' for p in synthesis)
    if questions:
        body += "\n<h3>Hard questions</h3>\n<ol class=\"hard-questions\">\n" + \
            "\n".join(f"<li>{_e(q)}</li>" for q in questions) + "\n</ol>"
    return _section("Chair's synthesis", body.lstrip("\n"))


def _debate(d: DebateSummary) -> str:
    items = [_e(fact) for fact in d.facts]
    items += [f"<strong>{_e(r.id)}</strong>: {_e(r.said)} — {_e(r.change)}" for r in d.rows]
    return _section("Debate round", '<ul class="debate">\n' + "\n".join(f"<li>{i}</li>" for i in items) + "\n</ul>")


def _finding_item(f: FindingView) -> str:
    """Same text as the Markdown line, plus the thin / override badges."""
    parts = [
        f"<strong>{_e(f.id)}</strong> ({_e(f.severity)}, raiser {_e(f.raiser)})",
        f'<span class="basis">{_e(f.basis.text)}</span>' + (_badge("thin", "thin") if f.basis.thin else ""),
    ]
    if f.decision is not None:
        parts.append(_e(f.decision) + (" (applied)" if f.applied else ""))
    if f.override is not None:
        o = f.override
        reason = f": {_e(o.reason)}" if o.reason else ""
        note = f'<span class="note">{_e(o.from_tier)} → {_e(o.to_tier)}{reason}</span>'
        parts.append(_badge("override", "override") + " " + note)
    if f.debate is not None:
        was = f" (was {_e(f.debate.previous_tier)})" if f.debate.previous_tier else ""
        parts.append(f'<span class="note">debate: {_e(f.debate.action)}{was}</span>')
    if f.duplicate_of is not None:
        parts.append(f'<span class="note">duplicate of {_e(f.duplicate_of)}</span>')
    said = ""
    if f.claim is not None:
        said += f'<div class="claim">{_e(f.claim)}</div>'
    if f.location is not None:
        said += f'<div class="location">location: {_e(f.location)}</div>'
    said += _evidence(f)
    return "<li>" + " — ".join(parts) + said + "</li>"


def _evidence(f: FindingView) -> str:
    """The quote, the evidence check and the verifier's answer; nothing for an unchecked finding."""
    out = ""
    if f.evidence is not None:
        out += f'<div class="evidence">evidence: <q>{_e(f.evidence)}</q></div>'
    if f.evidence_text is not None:
        out += (f'<div class="evidence-check check-{_e(f.evidence_check or "")}">evidence check: '
                f'<strong>{_e(f.evidence_check or "")}</strong> — {_e(f.evidence_text)}</div>')
    if f.verification is not None:
        calls = f.verification_tool_calls
        read = "" if calls is None else f" ({calls} tool call{'' if calls == 1 else 's'})"
        out += (f'<div class="verification verify-{_e(f.verification)}">verifier: <strong>{_e(f.verification)}</strong>'
                f'{read}</div>')
    return out


def _rereview(doc: Mapping[str, object]) -> str:
    """The Markdown re-review's content (council/rereview.py), as a section: which findings are
    new, which are still open, and what the baseline raised that this run no longer does."""
    from .rereview import rereview_line

    status: dict[str, list[str]] = {"new": [], "still-open": []}
    for d in _rows(doc.get("decisions")):
        status.setdefault(str(d.get("status")), []).append(str(d.get("id")))
    items = [f"<li>new: {_e(', '.join(status['new']) or 'none')}</li>",
             f"<li>still open: {_e(', '.join(status['still-open']) or 'none')}</li>"]
    resolved = _rows(doc.get("resolved"))
    gone = "".join(
        f"<li><strong>{_e(str(r.get('baselineId')))}</strong> ({_e(str(r.get('severity')))}) — "
        f"{_e(str(r.get('claim') or ''))}"
        + (f'<div class="location">location: {_e(str(r.get("location")))}</div>' if r.get("location") else "")
        + "</li>" for r in resolved)
    items.append(f"<li>resolved: {len(resolved) or 'none'}" + (f'<ul class="findings">{gone}</ul>' if gone else "") + "</li>")
    items += _matcher_items(doc)
    line = rereview_line(doc)
    return _section(line.split(":", 1)[0], f'<p class="note">{_e(line)}</p>\n<ul class="rereview">{"".join(items)}</ul>')


def _matcher_items(doc: Mapping[str, object]) -> list[str]:
    """The matcher's part of a re-review (--matcher): its line, its decisions with their reasons
    (model output, escaped), and what it could not do."""
    from .rereview import matcher_decisions, matcher_line

    line = matcher_line(doc)
    if line is None:
        return []
    rows = [f"<li><strong>{_e(fid)}</strong> "
            + (f"still open as <strong>{_e(baseline)}</strong>" if baseline else "new (no baseline finding)")
            + f" — the matcher: {_e(reason or 'no reason given')}</li>" for fid, baseline, reason in matcher_decisions(doc)]
    part = doc.get("matcher")
    losses = part.get("losses") if isinstance(part, Mapping) else None
    rows += [f'<li class="loss">lost: {_e(str(loss))}</li>' for loss in (losses if isinstance(losses, list) else [])]
    return [f"<li>{_e(line)}" + (f'<ul class="matcher">{"".join(rows)}</ul>' if rows else "") + "</li>"]


def _dismissed(doc: Mapping[str, object]) -> str:
    rows = "".join(
        f"<li><strong>{_e(str(m.get('id')))}</strong> — dismissed in run {_e(str(m.get('dismissedIn')))}: "
        f"{_e(str(m.get('reason'))) if m.get('reason') else 'no reason given'}</li>" for m in _rows(doc.get("findings")))
    return _section("Previously dismissed", _empty("These findings match one the user denied in an earlier run; the gate "
                                                   "does not count them unless they come back Confirmed with verified "
                                                   "evidence.") + f'\n<ul class="dismissed">{rows}</ul>')


def _rows(value: object) -> list[Mapping[str, object]]:
    return [row for row in value if isinstance(row, Mapping)] if isinstance(value, list) else []


def _findings(groups: Sequence[TierGroup], *, claims_unavailable: bool = False, title: str = "Findings by tier",
              empty: str = CLEAN_BENCH, item: Callable[[FindingView], str] | None = None) -> str:
    """The findings (a question council's: its claims, `_claim_item`) grouped by tier."""
    if not groups:
        return _section(title, _empty(empty))
    blocks = [_empty(CLAIMS_UNAVAILABLE)] if claims_unavailable else []
    for g in groups:
        cls = TIER_CLASS.get(g.tier, "")
        blocks.append(f'<h3 class="{cls}">{_e(g.tier)}</h3>' if cls else f"<h3>{_e(g.tier)}</h3>")
        blocks.append('<ul class="findings">\n' + "\n".join((item or _finding_item)(f) for f in g.findings) + "\n</ul>")
    return _section(title, "\n".join(blocks))


def _notes(notes: Sequence[str]) -> str:
    return _section("About this run", '<ul class="notes">\n' + "\n".join(f"<li>{_e(n)}</li>" for n in notes) + "\n</ul>")


def _cost(rows: Sequence[CostRow], wave_total: str, label: str) -> str:
    body = [
        _tr(
            [
                f"<td>{_e(r.label)}</td>",
                f"<td>{_e(r.status)}</td>",
                f'<td class="num">{_e(r.duration)}</td>',
                f'<td class="num cost {r.kind}">{_e(r.cost)}</td>',
            ]
        )
        for r in rows
    ]
    total = f'<td class="num">{_e(wave_total)}</td>'
    body.append(_tr([f"<td>{_e(label)}</td>", "<td></td>", "<td></td>", total], "total"))
    headers = [_th("Model"), _th("Status"), _th("Duration"), _th("Cost")]
    return _section("Cost", _table("cost", headers, body))


# --------------------------------------------------------------------------- a question council


def _question_body(model: ReportModel, q: QuestionView) -> str:
    """A question council's report: the answer first, then why, who ranked what, the claims."""
    return "\n".join([
        _answer_header(model.header, q, thin=model.thin_verdict, degraded=bool(model.losses)),
        *([_lost(model.losses, model.run_notes)] if model.losses or model.run_notes else []),
        *([_section("The chair's answer", "\n".join(f'<blockquote class="synthesis">{_e(p)}</blockquote>'
                                                    for p in model.synthesis))] if model.synthesis else []),
        _dissent(q),
        _ranked(q),
        _claim_matrix(model.matrix),
        _claims(model.tier_groups, claims_unavailable=model.claims_unavailable),
        *([_debate(model.debate)] if model.debate is not None else []),
        *([_notes(model.notes)] if model.notes else []),
        _cost(model.cost_rows, model.wave_total, model.total_label),
    ])


def _answer_header(h: Header, q: QuestionView, *, thin: bool, degraded: bool) -> str:
    council = ", ".join(_e(m) for m in h.council)
    lines = [
        "<header>",
        f'<h1>Council Answer — {_e(h.subject)} <span class="run-id">({_e(h.run_id)})</span></h1>',
        *([f'<p class="question"><strong>Question:</strong> {_e(h.question)}</p>'] if h.question is not None else []),
        f'<p class="meta">{_e(h.date)} · chair: <strong>{_e(h.chair)}</strong> · council: {council}</p>',
    ]
    rests = f' <span class="rests">— {_e(THIN_VERDICT)}</span>' if thin else ""
    lost = ' <span class="rests">— see What was lost</span>' if degraded and not thin else ""
    if q.standing is None:
        lines.append(f'<p class="answer-line no-answer"><strong>{_e(NO_CHAIR_ANSWER)}</strong>{rests}{lost}</p>')
    else:
        extra = " degraded" if degraded or thin else ""
        chip = f'<span class="chair-verdict {VERDICT_CLASS.get(q.standing, "")}{extra}">Answer: {_e(q.standing)}</span>'
        sentence = f'<strong class="answer">{_e(q.answer)}</strong>' if q.answer is not None else ""
        lines.append(f'<p class="answer-line">{chip}{sentence}{rests}{lost}</p>')
    lines.append("</header>")
    return "\n".join(lines)


def _claim_item(f: FindingView) -> str:
    parts = [f"<strong>{_e(f.id)}</strong> (made by {_e(f.raiser)})",
             f'<span class="basis">{_e(f.basis.text)}</span>' + (_badge("thin", "thin") if f.basis.thin else "")]
    if f.decision is not None:
        parts.append(_e(f.decision) + (" (applied)" if f.applied else ""))
    if f.override is not None:
        parts.append(_badge("override", "override") + f' <span class="note">{_e(f.override.from_tier)} → {_e(f.override.to_tier)}</span>')
    if f.debate is not None:
        was = f" (was {_e(f.debate.previous_tier)})" if f.debate.previous_tier else ""
        parts.append(f'<span class="note">debate: {_e(f.debate.action)}{was}</span>')
    said = f'<div class="claim">{_e(f.claim)}</div>' if f.claim is not None else ""
    return "<li>" + " — ".join(parts) + said + _evidence(f) + "</li>"


def _dissent(q: QuestionView) -> str:
    body = ""
    if q.dissent:
        body += '<ul class="dissent">\n' + "\n".join(f"<li>{_e(d)}</li>" for d in q.dissent) + "\n</ul>\n"
    body += '<p class="notes-title"><strong>Disputed claims:</strong></p>\n'
    body += ('<ul class="findings disputed">\n' + "\n".join(_claim_item(f) for f in q.disputed) + "\n</ul>"
             if q.disputed else _empty(NO_CLAIM_DISPUTED))
    return _section("Dissent", body)


def _ranked(q: QuestionView) -> str:
    if not q.ranked:
        return _section("Ranked answers", _empty("No answer was ranked."))
    labelled = any(r.label for r in q.ranked)  # a hand-assembled verdict knows no labels
    headers = [_th("Rank"), *([_th("Answer")] if labelled else []), _th("Model"), _th("peers-only"), _th("with-self"),
               *(_th(j, "judge") for j in q.judges), _th("Claims")]
    rows = [_tr([f'<td class="num">{r.rank}</td>', *([f"<td>{_e(r.label)}</td>"] if labelled else []),
                 f"<td>{_e(r.who)}</td>",
                 f'<td class="num">{_e(r.peers_only)}</td>', f'<td class="num">{_e(r.with_self)}</td>',
                 *(f'<td class="num{" own" if c.endswith("*") else ""}">{_e(c)}</td>' for c in r.per_judge),
                 f"<td>{_e(r.claims)}</td>"]) for r in q.ranked]
    parts = [_table("ranking", headers, rows), f'<p class="legend">Legend: {_e(RANKING_LEGEND)}.</p>']
    for r in q.ranked:
        if r.answer is None and not r.unstructured:
            continue  # the verdict does not carry this answer's words (a hand-assembled one)
        name = f"{r.label} — {r.who}" if r.label else r.who
        parts.append(f"<h3>{r.rank}. {_e(name)}</h3>")
        if r.answer is not None:
            confidence = f' <span class="note">(confidence: {_e(r.confidence)})</span>' if r.confidence else ""
            parts.append(f'<p class="answered">{_e(r.answer)}{confidence}</p>')
            if r.assumptions:
                parts.append('<ul class="assumptions">\n' + "\n".join(f"<li>assumes: {_e(a)}</li>" for a in r.assumptions)
                             + "\n</ul>")
        elif r.unstructured:
            parts.append(_empty("Its answer block never read: the judges ranked its prose."))
    return _section("Ranked answers", "\n".join(parts))


def _claim_matrix(m: Matrix) -> str:
    if not m.rows:
        return _section("Claim matrix", _empty(NO_CLAIMS_MADE))
    judges = [_th(c, "judge unattributed" if c == UNATTRIBUTED and m.has_unattributed else "judge") for c in m.columns]
    headers = [_th("Claim"), _th("Made by"), *judges, _th("Tier")]
    rows = []
    for f in m.rows:
        mark = f'<span class="dagger" title="{_e(DAGGER_TEXT)}">†</span>' if m.has_dagger and f.same_model_only else ""
        rows.append(_tr([f"<td><strong>{_e(f.id)}</strong>{mark}</td>", f"<td>{_e(f.raiser)}</td>",
                         *(_vote_cell(v) for v in f.votes), f"<td>{_e(f.tier)}{_tier_badges(f)}</td>"],
                        TIER_CLASS.get(f.tier, "")))
    return _section("Claim matrix", _table("matrix", headers, rows) + "\n" + _legend(m, "the author's own vote (not counted)"))


def _claims(groups: Sequence[TierGroup], *, claims_unavailable: bool) -> str:
    return _findings(groups, claims_unavailable=claims_unavailable, title="Claims by tier", empty=NO_CLAIMS_MADE,
                     item=_claim_item)
