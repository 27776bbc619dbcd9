"""eval.md: the eval document as Markdown, for a terminal, a PR comment or a step summary.

Pure. Model-written text (finding claims, locations, matcher reasons) is made one line,
stripped of control characters and table pipes, and capped, so it cannot break the layout.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from ..providers.cost import format_cost
from ..vocabulary import TIERS

SHOWN_MAX = 220


def flat(text: Any, limit: int = SHOWN_MAX) -> str:
    """Untrusted text as one safe Markdown line."""
    cleaned = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in str(text))
    one = " ".join(cleaned.split()).replace("|", "\\|").replace("`", "'")
    return one if len(one) <= limit else one[: limit - 1] + "…"


def counted(count: int, word: str, plural: str | None = None) -> str:
    """`1 case`, `2 cases`: a count with its noun in the right number."""
    return f"{count} {word if count == 1 else plural or word + 's'}"


def pct(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:.1f}%"


def is_floor(ratio: Mapping[str, Any]) -> bool:
    """A recall the matcher's undecided findings might have raised: a floor, not a measurement."""
    return bool(ratio.get("undecided"))


def recall_pct(ratio: Mapping[str, Any]) -> str:
    """A recall as a percentage, marked `≥` when it is only a floor."""
    shown = pct(ratio.get("rate"))
    return f"≥{shown}" if is_floor(ratio) and ratio.get("rate") is not None else shown


def recall_count(ratio: Mapping[str, Any]) -> str:
    """found/planted, marked `≥` when only a floor."""
    return ("≥" if is_floor(ratio) else "") + f"{ratio['found']}/{ratio['planted']}"


def money(block: Mapping[str, Any]) -> str:
    amount = block.get("amount")
    text = format_cost(amount, "reported" if amount is not None else "unknown")
    unpriced = block.get("unpricedLegs") or 0
    if unpriced:
        text = (f"at least {text}" if amount is not None else "unknown") + f" (+{unpriced} unpriced)"
    return text


def duration(ms: int | None) -> str:
    if ms is None:
        return "—"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}m{rest:02d}s"


def cred(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def headline(doc: Mapping[str, Any]) -> list[str]:
    """The council's figures in a few lines (also what `amicus eval run` prints)."""
    council, precision, alarms, verdicts, totals = (doc["council"], doc["precision"]["confirmed"], doc["falseAlarms"],
                                                     doc["verdicts"], doc["totals"])
    tiers = council["byTier"]
    recall = council["recall"]
    if is_floor(recall):
        recall_line = (f"Recall (a floor): at least {recall['found']} of {counted(recall['planted'], 'planted flaw')} "
                       f"found by the council ({recall_pct(recall)}); the matcher left "
                       f"{counted(recall['undecided'], 'finding')} undecided that might have found more")
    else:
        recall_line = (f"Recall: {recall['found']} of {counted(recall['planted'], 'planted flaw')} found by the "
                       f"council ({recall_pct(recall)})")
    return [
        recall_line,
        *grounded_lines(doc),
        "By tier: " + " · ".join(f"{t} {tiers[t]}" for t in (*TIERS, "Missed")),
        f"Confirmed-tier precision: {precision['matched']} matched, {precision['unmatched']} unmatched "
        f"({pct(precision['rate'])}) — an unmatched finding may be a real flaw nobody planted",
        f"False alarms: {counted(alarms['findings'], 'blocker/major finding')} on {alarms['casesWithAlarm']} of "
        f"{counted(alarms['cleanCases'], 'clean case')} ({alarms['confirmed']} Confirmed)",
        f"Chair verdicts: {verdicts['correct']} of {verdicts['cases']} as expected ({pct(verdicts['accuracy'])}); "
        f"{verdicts['wrong']} other, {verdicts['noVerdict']} without a verdict",
        f"Cost: {money(totals['cost'])} (councils {money(totals['councils'])}, matching {money(totals['matching'])}) · "
        f"wall time {duration(totals['wallMs'])}",
    ]


def grounded_lines(doc: Mapping[str, Any]) -> list[str]:
    """What the evidence check and the verifier buy (issue 30), when the runs recorded them."""
    lines = []
    unrefuted = doc["council"].get("recallUnrefuted")
    if unrefuted:
        lines.append(f"Recall over findings the verifier did not refute: {unrefuted['found']} of "
                     f"{counted(unrefuted['planted'], 'planted flaw')} ({recall_pct(unrefuted)})")
    for key, title in (("confirmedByEvidence", "by evidence check"), ("confirmedByVerification", "by verifier answer")):
        split = doc["precision"].get(key)
        if split:
            lines.append(f"Confirmed-tier precision {title}: " + " · ".join(
                f"{name} {p['matched']}/{p['matched'] + p['unmatched']} ({pct(p['rate'])})"
                for name, p in split.items() if p["findings"]))
    for key, title in (("byEvidence", "by evidence check"), ("byVerification", "by verifier answer")):
        split = doc["falseAlarms"].get(key)
        if split:
            lines.append(f"False alarms {title}: " + " · ".join(f"{name} {n}" for name, n in split.items() if n))
    return lines


def render_md(doc: Mapping[str, Any]) -> str:
    suite, bench = doc["suite"], doc["bench"]
    seats = ", ".join(flat(s["seat"], 80) for s in bench["seats"])
    lines = [
        f"# Eval {doc['evalId']}: suite {flat(suite['name'], 80)} v{suite['version']}",
        "",
        f"Status **{doc['status']}**. {counted(suite['cases'], 'case')} ({suite['cleanCases']} clean), "
        f"{counted(suite['plantedFlaws'], 'planted flaw')}; kinds: {', '.join(suite['kinds'])}. Bench: {seats} · chair {flat(bench['chair'] or '—', 80)} "
        f"· matcher {flat(bench['matcher'], 80)}" + (" · debate" if bench["debate"] else "")
        + (f" · critic {flat(bench['critic'], 80)}" if bench["critic"] else "")
        + (f" · lenses {', '.join(flat(x, 40) for x in bench['lenses'])}" if bench["lenses"] else "") + ".",
        "",
        "## The council",
        "",
        *[f"- {line}" for line in headline(doc)],
        "",
        "## Seats",
        "",
        "Street-cred is the mean peers-only rank the other judges gave the seat in these runs (1 is best): "
        "it is agreement. Recall is what the seat actually found.",
        "",
        *_table(["seat", "model", "recall", "found", "false alarms (clean cases)", "street-cred", "findings matched",
                 "cost"],
                [[flat(s["seat"], 80), flat(s["resolvedModel"] or s["model"], 80), recall_pct(s["recall"]),
                  recall_count(s["recall"]),
                  f"{s['falseAlarms']} on {s['cleanCasesWithAlarm']}/{s['cleanCases']}", cred(s["streetCredPeersOnly"]),
                  f"{s['findings']['matched']}/{s['findings']['total']}", money(s["cost"])] for s in doc["seats"]]),
        "",
        "## Recall by severity",
        "",
        *_table(["severity", "found", "planted", "recall"],
                [[sev, ("≥" if is_floor(r) else "") + str(r["found"]), str(r["planted"]), recall_pct(r)]
                 for sev, r in doc["council"]["bySeverity"].items() if r["planted"]]),
        "",
        "## Precision by tier",
        "",
        *_table(["tier", "findings", "matched", "unmatched", "undecided", "matched share"],
                [[tier, str(p["findings"]), str(p["matched"]), str(p["unmatched"]), str(p["undecided"]), pct(p["rate"])]
                 for tier, p in doc["precision"]["byTier"].items()]),
        "",
        doc["precision"]["note"],
        "",
        "## Cases",
        "",
        *_table(["case", "kind", "found", "verdict (expected)", "false alarms", "cost", "time"],
                [[c["caseId"], c["kind"], "lost" if not c["scored"] else f"{c['found']}/{c['plantedFlaws']}",
                  _verdict_cell(c), str(c["falseAlarms"]) if c["clean"] else "—", money(c["cost"]), duration(c["wallMs"])]
                 for c in doc["cases"]]),
        "",
    ]
    lines += _missed(doc) + _unmatched_confirmed(doc)
    if doc["notes"]:
        lines += ["## Notes", "", *[f"- {flat(n, 600)}" for n in doc["notes"]], ""]
    return "\n".join(lines).rstrip() + "\n"


def _verdict_cell(case: Mapping[str, Any]) -> str:
    if not case["scored"]:
        return f"— ({case['expectedVerdict']})"
    mark = "✓" if case["verdictCorrect"] else "✗"
    return f"{mark} {case['verdict'] or 'no verdict'} ({case['expectedVerdict']})"


def _missed(doc: Mapping[str, Any]) -> list[str]:
    rows = [f"- {c['caseId']} **{f['id']}** ({f['severity']}, {f['class']})"
            for c in doc["cases"] if c["scored"] for f in c["flaws"] if not f["findings"]]
    return ["## Missed flaws", "", *rows, ""] if rows else []


def _unmatched_confirmed(doc: Mapping[str, Any]) -> list[str]:
    rows = [f"- {c['caseId']} **{f['id']}** ({f['severity']}, {flat(f['seat'], 60)}): {flat(f['claim'])} — "
            f"_{flat(f['location'], 80)}_"
            for c in doc["cases"] if c["scored"] for f in c["findings"]
            if f["tier"] == "Confirmed" and f["flaw"] is None and f["by"] != "undecided"]
    if not rows:
        return []
    return ["## Unmatched Confirmed findings", "",
            "The bench agreed on these, and no planted flaw matches them: read each — it may be a real flaw nobody "
            "planted.", "", *rows, ""]
