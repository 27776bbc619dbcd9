"""`amicus eval compare A B`: two evals side by side — a bench against another, or a prompt or
tally change against the last run. Pure: two eval documents in, one `eval-compare` out.

The headline figures are compared as numbers (B − A). Seats are paired by seat id; planted
flaws by case and flaw id, listing those one eval found and the other missed. Evals of
different suites (or different versions of one) are compared all the same, and said to be.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .documents import EvalComparison
from .report_md import flat, pct

METRICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("council recall", ("council", "recall", "rate")),
    ("blocker recall", ("council", "bySeverity", "blocker", "rate")),
    ("major recall", ("council", "bySeverity", "major", "rate")),
    ("flaws ending Confirmed", ("council", "byTier", "Confirmed")),
    ("flaws missed", ("council", "byTier", "Missed")),
    ("Confirmed-tier precision", ("precision", "confirmed", "rate")),
    ("unmatched Confirmed findings", ("precision", "confirmed", "unmatched")),
    ("false alarms on clean cases", ("falseAlarms", "findings")),
    ("chair verdict accuracy", ("verdicts", "accuracy")),
    ("cost (USD)", ("totals", "cost", "amount")),
    ("wall time (s)", ("totals", "wallMs")),
)
RATES = {"council recall", "blocker recall", "major recall", "Confirmed-tier precision", "chair verdict accuracy"}


def _get(doc: Mapping[str, Any], path: tuple[str, ...]) -> float | None:
    value: Any = doc
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value / 1000 if path[-1] == "wallMs" else float(value)


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 6)


def _side(doc: Mapping[str, Any], where: str) -> dict[str, Any]:
    return {"evalId": doc["evalId"], "dir": where, "suite": f"{doc['suite']['name']} v{doc['suite']['version']}",
            "models": [s["model"] for s in doc["bench"]["seats"]], "chair": doc["bench"]["chair"]}


def _found(doc: Mapping[str, Any]) -> dict[tuple[str, str], bool]:
    return {(c["caseId"], f["id"]): bool(f["findings"]) for c in doc["cases"] if c["scored"] for f in c["flaws"]}


def compare(a: Mapping[str, Any], b: Mapping[str, Any], *, a_dir: str, b_dir: str) -> dict[str, Any]:
    rows = [{"metric": name, "a": _get(a, path), "b": _get(b, path), "delta": _delta(_get(a, path), _get(b, path))}
            for name, path in METRICS]
    seats_a = {s["seat"]: s for s in a["seats"]}
    seats_b = {s["seat"]: s for s in b["seats"]}
    seats = [{"seat": seat,
              "a": seats_a[seat]["recall"]["rate"] if seat in seats_a else None,
              "b": seats_b[seat]["recall"]["rate"] if seat in seats_b else None,
              "delta": _delta(seats_a[seat]["recall"]["rate"] if seat in seats_a else None,
                              seats_b[seat]["recall"]["rate"] if seat in seats_b else None)}
             for seat in dict.fromkeys([*seats_a, *seats_b])]
    found_a, found_b = _found(a), _found(b)
    flaws = [{"caseId": case, "flaw": flaw, "foundBy": "a" if found_a[(case, flaw)] else "b"}
             for case, flaw in found_a if (case, flaw) in found_b and found_a[(case, flaw)] != found_b[(case, flaw)]]
    same = a["suite"]["sha256"] == b["suite"]["sha256"]
    notes = [] if same else ["the two evals ran different suites (or different versions of one): compare with care"]
    if a["casesLost"] or b["casesLost"]:
        notes.append(f"lost cases: A {a['casesLost']}, B {b['casesLost']} — each is left out of its own eval's figures")
    doc = {"schemaVersion": 2, "type": "eval-compare", "a": _side(a, a_dir), "b": _side(b, b_dir), "sameSuite": same,
           "rows": rows, "seats": seats, "flaws": flaws, "notes": notes}
    return EvalComparison.model_validate(doc).model_dump(mode="json")


def render_compare(doc: Mapping[str, Any]) -> str:
    def cell(name: str, value: float | None, *, signed: bool = False) -> str:
        if value is None:
            return "—"
        if name in RATES:
            return ("+" if signed and value > 0 else "") + (f"{value * 100:.1f} pt" if signed else pct(value))
        return f"{value:+.4g}" if signed else f"{value:.4g}"

    a, b = doc["a"], doc["b"]
    lines = [f"# Eval {a['evalId']} (A) vs {b['evalId']} (B)", "",
             f"- A: {flat(a['suite'], 80)} · {', '.join(flat(m, 60) for m in a['models'])} · chair {flat(a['chair'] or '—', 60)}",
             f"- B: {flat(b['suite'], 80)} · {', '.join(flat(m, 60) for m in b['models'])} · chair {flat(b['chair'] or '—', 60)}",
             "", "| metric | A | B | B − A |", "|---|---|---|---|"]
    lines += [f"| {r['metric']} | {cell(r['metric'], r['a'])} | {cell(r['metric'], r['b'])} | "
              f"{cell(r['metric'], r['delta'], signed=True)} |" for r in doc["rows"]]
    lines += ["", "| seat | recall A | recall B | B − A |", "|---|---|---|---|"]
    lines += [f"| {flat(s['seat'], 60)} | {pct(s['a'])} | {pct(s['b'])} | "
              f"{cell('council recall', s['delta'], signed=True)} |" for s in doc["seats"]]
    if doc["flaws"]:
        lines += ["", "Planted flaws only one eval found:", ""]
        lines += [f"- {f['caseId']} {f['flaw']}: found by {f['foundBy'].upper()} only" for f in doc["flaws"]]
    if doc["notes"]:
        lines += ["", *[f"Note: {n}" for n in doc["notes"]]]
    return "\n".join(lines) + "\n"
