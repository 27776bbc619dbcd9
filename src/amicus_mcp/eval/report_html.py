"""eval.html: one self-contained page — the council's figures, three pictures, the tables.

Like the council report it loads nothing (inline styles and inline SVG only, a `default-src
'none'` Content-Security-Policy) and every string that a model or a user wrote goes through
`html.escape` before it touches markup. Pure: a function of the eval document.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from . import plots
from .report_md import counted, cred, duration, headline, is_floor, money, pct, recall_count, recall_pct

CSS = """
:root{color-scheme:light dark;--bg:#fbfbfa;--fg:#1f2328;--muted:#59636e;--border:#d0d7de;--head:#f0f2f4;
--card:#fff;--good:#1a7f37;--bad:#cf222e}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--border:#30363d;
--head:#161b22;--card:#11161d;--good:#56d364;--bad:#ff7b72}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
main{max-width:1000px;margin:0 auto;padding:32px 24px 48px}
h1{font-size:1.6rem;margin:0 0 6px} h2{font-size:1.15rem;margin:32px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--border)}
.meta{color:var(--muted);margin:0}
ul.headline{list-style:none;padding:0;margin:14px 0;display:grid;gap:6px}
ul.headline li{background:var(--card);border:1px solid var(--border);border-radius:8px;padding:8px 12px}
figure{margin:12px 0 20px;background:var(--card);border:1px solid var(--border);border-radius:8px;padding:12px;overflow-x:auto}
figcaption{color:var(--muted);font-size:.9rem;margin-top:6px}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;background:var(--card);font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--border);padding:6px 10px;text-align:left;vertical-align:top}
th{background:var(--head);white-space:nowrap} td.num{text-align:right}
.ok{color:var(--good)} .no{color:var(--bad)} .muted{color:var(--muted)}
ul.items li{margin:4px 0} .note{color:var(--muted)}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: frozenset[int] | set[int] = frozenset()) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                     for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _section(title: str, content: str) -> str:
    return f"<section><h2>{_e(title)}</h2>\n{content}\n</section>"


def render_html(doc: Mapping[str, Any]) -> str:
    suite, bench = doc["suite"], doc["bench"]
    title = f"Eval {doc['evalId']} — {suite['name']} v{suite['version']}"
    seats = ", ".join(s["seat"] for s in bench["seats"])
    meta = (f"Status {doc['status']} · {counted(suite['cases'], 'case')} ({suite['cleanCases']} clean) · "
            f"{counted(suite['plantedFlaws'], 'planted flaw')} · kinds: {', '.join(suite['kinds'])} · bench: {seats} · "
            f"chair {bench['chair'] or '—'} · matcher {bench['matcher']}")
    body = "\n".join([
        f"<header><h1>{_e(title)}</h1><p class=\"meta\">{_e(meta)}</p></header>",
        '<ul class="headline">' + "".join(f"<li>{_e(line)}</li>" for line in headline(doc)) + "</ul>",
        _section("Pictures", _pictures(doc)),
        _section("Seats", _seats(doc)),
        _section("Models: measured recall beside street-cred", _models(doc)),
        _section("Recall by severity", _table(
            ["severity", "found", "planted", "recall"],
            [[_e(sev), _e(("≥" if is_floor(r) else "") + str(r["found"])), str(r["planted"]), _e(recall_pct(r))]
             for sev, r in doc["council"]["bySeverity"].items() if r["planted"]], {1, 2, 3})),
        _section("Precision by tier", _table(
            ["tier", "findings", "matched", "unmatched", "undecided", "matched share"],
            [[_e(t), str(p["findings"]), str(p["matched"]), str(p["unmatched"]), str(p["undecided"]), _e(pct(p["rate"]))]
             for t, p in doc["precision"]["byTier"].items()], {1, 2, 3, 4, 5})
            + f'<p class="note">{_e(doc["precision"]["note"])}</p>'),
        _section("Cases", _cases(doc)),
        *([_section("Missed flaws", missed)] if (missed := _missed(doc)) else []),
        *([_section("Unmatched Confirmed findings", unmatched)] if (unmatched := _unmatched(doc)) else []),
        *([_section("Notes", "<ul class=\"items\">" + "".join(f"<li>{_e(n)}</li>" for n in doc["notes"]) + "</ul>")]
          if doc["notes"] else []),
    ])
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )


def _pictures(doc: Mapping[str, Any]) -> str:
    figures = [
        (plots.recall_per_seat(doc["seats"], doc["council"]["recall"]),
         "Recall per seat: the share of planted flaws each seat found; the council's bar counts a flaw any seat found."),
        (plots.recall_vs_cost(doc["models"]),
         "Recall against cost, one point per model: up is better, left is cheaper."),
        (plots.tier_distribution(doc["council"]["byTier"]),
         "Where the planted flaws ended: each at the strongest tier a matching finding reached, or missed."),
    ]
    return "\n".join(f"<figure>{svg}<figcaption>{_e(caption)}</figcaption></figure>" for svg, caption in figures)


def _seats(doc: Mapping[str, Any]) -> str:
    return _table(
        ["seat", "model", "recall", "found", "false alarms", "street-cred", "findings matched", "cost"],
        [[_e(s["seat"]), _e(s["resolvedModel"] or s["model"]), _e(recall_pct(s["recall"])),
          _e(recall_count(s["recall"])),
          f"{s['falseAlarms']} on {s['cleanCasesWithAlarm']}/{s['cleanCases']} clean",
          _e(cred(s["streetCredPeersOnly"])), f"{s['findings']['matched']}/{s['findings']['total']}", _e(money(s["cost"]))]
         for s in doc["seats"]])


def _models(doc: Mapping[str, Any]) -> str:
    table = _table(
        ["model", "recall", "false-alarm rate", "street-cred (peers only)", "cost"],
        [[_e(m["resolvedModel"] or m["model"]), _e(recall_pct(m["recall"])), _e(pct(m["falseAlarmRate"])),
          _e(cred(m["streetCredPeersOnly"])), _e(money(m["cost"]))] for m in doc["models"]])
    return (table + '<p class="note">Street-cred is the mean rank peers gave a model (1 is best): agreement, not '
            "correctness. Where it and recall disagree, trust recall.</p>")


def _cases(doc: Mapping[str, Any]) -> str:
    rows = []
    for c in doc["cases"]:
        if c["scored"]:
            mark = '<span class="ok">✓</span>' if c["verdictCorrect"] else '<span class="no">✗</span>'
            verdict = f"{mark} {_e(c['verdict'] or 'no verdict')} <span class=\"muted\">({_e(c['expectedVerdict'])})</span>"
            found = f"{c['found']}/{c['plantedFlaws']}"
        else:
            verdict, found = f"<span class=\"muted\">lost: {_e(c['lostReason'])}</span>", "—"
        rows.append([_e(c["caseId"]), _e(c["kind"]), found, verdict, str(c["falseAlarms"]) if c["clean"] else "—",
                     _e(money(c["cost"])), _e(duration(c["wallMs"]))])
    return _table(["case", "kind", "found", "verdict (expected)", "false alarms", "cost", "time"], rows)


def _missed(doc: Mapping[str, Any]) -> str:
    items = [f"<li>{_e(c['caseId'])} <strong>{_e(f['id'])}</strong> ({_e(f['severity'])}, {_e(f['class'])})</li>"
             for c in doc["cases"] if c["scored"] for f in c["flaws"] if not f["findings"]]
    return f'<ul class="items">{"".join(items)}</ul>' if items else ""


def _unmatched(doc: Mapping[str, Any]) -> str:
    items = [f"<li>{_e(c['caseId'])} <strong>{_e(f['id'])}</strong> ({_e(f['severity'])}, {_e(f['seat'])}): "
             f"{_e(f['claim'])} <span class=\"muted\">— {_e(f['location'])}</span></li>"
             for c in doc["cases"] if c["scored"] for f in c["findings"]
             if f["tier"] == "Confirmed" and f["flaw"] is None and f["by"] != "undecided"]
    if not items:
        return ""
    return ('<p class="note">The bench agreed on these and no planted flaw matches them: read each — it may be a real '
            f'flaw nobody planted.</p><ul class="items">{"".join(items)}</ul>')
