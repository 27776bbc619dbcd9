"""`amicus eval compare A B`: two evals side by side — a bench against another, or a prompt or
tally change against the last run. Pure: two eval documents in, one `eval-compare` out.

Every figure is computed again over the cases both evals scored (`cases.common`), from each
eval's per-case results, so an eval of 16 cases and one of a single case compare on that
one case, never 70 planted flaws against 5. How many cases each ran and scored is said, and
so is every option that differs (bench, chair, matcher, critic, lenses, debate, suite
version). The figures are B − A. Seats are paired by seat id; planted flaws by case and flaw
id, listing those one eval found and the other missed. A recall that the matcher's undecided
findings might have raised is only a floor, and marked so (`aFloor` / `bFloor`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..vocabulary import ABSENT, FOUND_CHECKS, HOLDS, NOT_FOUND, REFUTED
from ..schemas import JsonObject
from .documents import CompareSide, EvalComparison
from .report_md import counted, flat, pct
from .scoring import ALARM_SEVERITIES, rate

# The grounded figures (issue 30): rows only when either eval's runs recorded evidence checks or
# verifier answers, so a comparison of evals before evidence reads as it did.
EVIDENCE_ROWS = {"Confirmed precision, evidence found": FOUND_CHECKS,
                 "Confirmed precision, evidence not-found": (NOT_FOUND,), "Confirmed precision, evidence absent": (ABSENT,)}
VERIFY_ROWS = {"Confirmed precision, verifier holds": HOLDS, "Confirmed precision, verifier refuted": REFUTED}
UNREFUTED_RECALL = "council recall, unrefuted findings only"
RATES = {"council recall", "blocker recall", "major recall", "Confirmed-tier precision", "chair verdict accuracy",
         *EVIDENCE_ROWS, *VERIFY_ROWS, UNREFUTED_RECALL}
MONEY = {"cost (USD)"}
SECONDS = {"time (s, summed over the cases)"}
FLOORED = {"council recall", "blocker recall", "major recall"}  # figures undecided findings may raise


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 6)


def _common(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The case ids both evals scored, in A's order."""
    scored_b = {c["caseId"] for c in b["cases"] if c["scored"]}
    return [c["caseId"] for c in a["cases"] if c["scored"] and c["caseId"] in scored_b]


def _cases(doc: Mapping[str, Any], ids: Sequence[str]) -> list[Mapping[str, Any]]:
    by_id = {c["caseId"]: c for c in doc["cases"]}
    return [by_id[i] for i in ids]


def _open(case: Mapping[str, Any], flaw_ok: Any) -> int:
    """Undecided findings of a flawed case while a flaw `flaw_ok` accepts was missed: a floor."""
    if case["clean"] or not any(not f["findings"] and flaw_ok(f) for f in case["flaws"]):
        return 0
    return sum(1 for f in case["findings"] if f["by"] == "undecided")


def _figures(cases: Sequence[Mapping[str, Any]]) -> dict[str, tuple[float | None, bool]]:
    """metric → (value, only a floor) over `cases`."""
    flaws = [f for c in cases if not c["clean"] for f in c["flaws"]]
    found = [f for f in flaws if f["findings"]]

    def recall(severity: str | None) -> tuple[float | None, bool]:
        wanted = [f for f in flaws if severity is None or f["severity"] == severity]
        hit = sum(1 for f in wanted if f["findings"])
        floor = any(_open(c, lambda f: severity is None or f["severity"] == severity) for c in cases)
        return rate(hit, len(wanted)), floor

    confirmed = [f for c in cases for f in c["findings"] if f["tier"] == "Confirmed" and f["by"] != "undecided"]
    matched = sum(1 for f in confirmed if f["flaw"] is not None)
    verdicts = [c["verdictCorrect"] for c in cases]
    costs = [c["cost"]["amount"] for c in cases]
    walls = [c["wallMs"] for c in cases]
    return {**_base_figures(cases, flaws, found, recall, confirmed, matched, verdicts, costs, walls),
            **_grounded_figures(cases, flaws, confirmed)}


def _grounded_figures(cases: Sequence[Mapping[str, Any]], flaws: Sequence[Mapping[str, Any]],
                      confirmed: Sequence[Mapping[str, Any]]) -> dict[str, tuple[float | None, bool]]:
    findings = [f for c in cases for f in c["findings"]]
    out: dict[str, tuple[float | None, bool]] = {}
    if any(f.get("evidenceCheck") for f in findings):
        for name, checks in EVIDENCE_ROWS.items():
            group = [f for f in confirmed if f.get("evidenceCheck") in checks]
            out[name] = (rate(sum(1 for f in group if f["flaw"] is not None), len(group)), False)
        alarms = [f for c in cases if c["clean"] for f in c["findings"] if f["severity"] in ALARM_SEVERITIES]
        out["false alarms, evidence not-found"] = (float(sum(1 for f in alarms if f.get("evidenceCheck") == NOT_FOUND)),
                                                   False)
    if any(f.get("verification") for f in findings):
        for name, answer in VERIFY_ROWS.items():
            group = [f for f in confirmed if f.get("verification") == answer]
            out[name] = (rate(sum(1 for f in group if f["flaw"] is not None), len(group)), False)
        kept = {(c["caseId"], f["flaw"]) for c in cases for f in c["findings"]
                if f["flaw"] is not None and f.get("verification") != REFUTED}
        hit = sum(1 for c in cases if not c["clean"] for f in c["flaws"] if (c["caseId"], f["id"]) in kept)
        out[UNREFUTED_RECALL] = (rate(hit, len(flaws)), False)
    return out


def _base_figures(cases: Sequence[Mapping[str, Any]], flaws: Sequence[Mapping[str, Any]],
                  found: Sequence[Mapping[str, Any]], recall: Any, confirmed: Sequence[Mapping[str, Any]],
                  matched: int, verdicts: Sequence[Any], costs: Sequence[Any],
                  walls: Sequence[Any]) -> dict[str, tuple[float | None, bool]]:
    return {
        "council recall": recall(None),
        "blocker recall": recall("blocker"),
        "major recall": recall("major"),
        "flaws ending Confirmed": (float(sum(1 for f in flaws if f["tier"] == "Confirmed")), False),
        "flaws missed": (float(len(flaws) - len(found)), False),
        "Confirmed-tier precision": (rate(matched, len(confirmed)), False),
        "unmatched Confirmed findings": (float(len(confirmed) - matched), False),
        "false alarms on clean cases": (float(sum(c["falseAlarms"] for c in cases if c["clean"])), False),
        "chair verdict accuracy": (rate(sum(1 for v in verdicts if v is True), len(cases)), False),
        # A sum is known only when every part is: an unknown cost or time is never taken as 0.
        "cost (USD)": ((round(math.fsum(costs), 6) if costs and None not in costs
                        and not any(c["cost"]["unpricedLegs"] for c in cases) else None), False),
        "time (s, summed over the cases)": ((round(sum(walls) / 1000, 3) if walls and None not in walls else None),
                                            False),
    }


def _seat_recall(cases: Sequence[Mapping[str, Any]], seat: str) -> tuple[float | None, bool]:
    flaws = [f for c in cases if not c["clean"] for f in c["flaws"]]
    hit = sum(1 for f in flaws if seat in f["foundBy"])
    floor = any(not c["clean"] and any(not set(f["foundBy"]) & {seat} for f in c["flaws"])
                and any(g["by"] == "undecided" and g["seat"] == seat for g in c["findings"]) for c in cases)
    return rate(hit, len(flaws)), floor


def _side(doc: Mapping[str, Any], where: str) -> CompareSide:
    return CompareSide(evalId=doc["evalId"], dir=where, suite=f"{doc['suite']['name']} v{doc['suite']['version']}",
                       models=[s["model"] for s in doc["bench"]["seats"]], chair=doc["bench"]["chair"],
                       cases=len(doc["cases"]), casesScored=doc["casesScored"])


def _options(doc: Mapping[str, Any]) -> dict[str, object]:
    """Each option an eval ran with, by the name a difference is listed under (its value as run)."""
    bench = doc["bench"]
    return {"suite": f"{doc['suite']['name']} v{doc['suite']['version']}",
            "bench": ", ".join(s["model"] for s in bench["seats"]), "chair": bench["chair"],
            "matcher": bench["matcher"], "critic": bench["critic"],
            "lenses": ", ".join(bench["lenses"]) if bench["lenses"] else None, "debate": bench["debate"],
            "ceiling (USD)": bench["maxCost"]}


def _found(cases: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], bool]:
    return {(c["caseId"], f["id"]): bool(f["findings"]) for c in cases for f in c["flaws"]}


def compare(a: Mapping[str, Any], b: Mapping[str, Any], *, a_dir: str, b_dir: str) -> JsonObject:
    """The eval-compare document of two eval.json documents (`read_scores`), as JSON: checked by its
    declaration (EvalComparison) on the way out."""
    common = _common(a, b)
    cases_a, cases_b = _cases(a, common), _cases(b, common)
    fig_a, fig_b = _figures(cases_a), _figures(cases_b)
    unknown = (None, False)  # a grounded figure one side's runs did not record
    rows = [{"metric": name, "a": fig_a.get(name, unknown)[0], "b": fig_b.get(name, unknown)[0],
             "delta": _delta(fig_a.get(name, unknown)[0], fig_b.get(name, unknown)[0]),
             "aFloor": fig_a.get(name, unknown)[1], "bFloor": fig_b.get(name, unknown)[1]}
            for name in dict.fromkeys([*fig_a, *fig_b])]
    seats_a = [s["seat"] for s in a["seats"]]
    seats_b = [s["seat"] for s in b["seats"]]
    seats = []
    for seat in dict.fromkeys([*seats_a, *seats_b]):
        ra = _seat_recall(cases_a, seat) if seat in seats_a else (None, False)
        rb = _seat_recall(cases_b, seat) if seat in seats_b else (None, False)
        seats.append({"seat": seat, "a": ra[0], "b": rb[0], "delta": _delta(ra[0], rb[0]),
                      "aFloor": ra[1], "bFloor": rb[1]})
    found_a, found_b = _found(cases_a), _found(cases_b)
    flaws = [{"caseId": case, "flaw": flaw, "foundBy": "a" if found_a[(case, flaw)] else "b"}
             for case, flaw in found_a if (case, flaw) in found_b and found_a[(case, flaw)] != found_b[(case, flaw)]]
    options_a, options_b = _options(a), _options(b)
    differences = [{"option": key, "a": options_a[key], "b": options_b[key]}
                   for key in options_a if options_a[key] != options_b[key]]
    same = a["suite"]["sha256"] == b["suite"]["sha256"]
    notes = [] if same else ["the two evals ran different suites (or different versions of one): a case of the "
                             "same id may differ between them"]
    only_a = len(a["cases"]) - len(common)
    only_b = len(b["cases"]) - len(common)
    if only_a or only_b:
        notes.append(f"compared on the {counted(len(common), 'case')} both scored: A ran {counted(len(a['cases']), 'case')} "
                     f"({a['casesScored']} scored), B {counted(len(b['cases']), 'case')} ({b['casesScored']} scored); "
                     "the others are left out of every figure here")
    if any(r["aFloor"] or r["bFloor"] for r in rows):
        notes.append("a recall marked ≥ is only a floor: the matcher left findings undecided that might have found more")
    doc = {"schemaVersion": 2, "type": "eval-compare", "a": _side(a, a_dir), "b": _side(b, b_dir), "sameSuite": same,
           "cases": {"a": len(a["cases"]), "b": len(b["cases"]), "common": len(common)},
           "differences": differences, "rows": rows, "seats": seats, "flaws": flaws, "notes": notes}
    return EvalComparison.model_validate(doc).model_dump(mode="json")


def _cell(name: str, value: float | None, *, signed: bool = False, floor: bool = False) -> str:
    """One figure: rates in %, money in dollars to 1/100 cent, time in seconds, counts whole."""
    if value is None:
        return "—"
    sign = "+" if signed and value > 0 else ""
    if name in RATES:
        text = f"{sign}{value * 100:.1f} pt" if signed else pct(value)
    elif name in MONEY:
        text = f"{'-' if value < 0 else sign}${abs(value):.4f}"
    elif name in SECONDS:
        text = f"{sign}{value:.1f} s"
    else:
        text = f"{sign}{value:g}"
    return ("≥" if floor else "") + text


def _option(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "on" if value else "off"
    return flat(value, 120)


def render_compare(doc: Mapping[str, Any]) -> str:
    a, b = doc["a"], doc["b"]
    lines = [f"# Eval {a['evalId']} (A) vs {b['evalId']} (B)", "",
             f"- A: {flat(a['suite'], 80)} · {', '.join(flat(m, 60) for m in a['models'])} · chair "
             f"{flat(a['chair'] or '—', 60)} · {counted(a['cases'], 'case')} ({a['casesScored']} scored)",
             f"- B: {flat(b['suite'], 80)} · {', '.join(flat(m, 60) for m in b['models'])} · chair "
             f"{flat(b['chair'] or '—', 60)} · {counted(b['cases'], 'case')} ({b['casesScored']} scored)",
             f"- Compared on the {counted(doc['cases']['common'], 'case')} both scored."]
    if doc["differences"]:
        lines += ["", "| option | A | B |", "|---|---|---|"]
        lines += [f"| {d['option']} | {_option(d['a'])} | {_option(d['b'])} |" for d in doc["differences"]]
    lines += ["", "| metric | A | B | B − A |", "|---|---|---|---|"]
    lines += [f"| {r['metric']} | {_cell(r['metric'], r['a'], floor=r['aFloor'])} | "
              f"{_cell(r['metric'], r['b'], floor=r['bFloor'])} | "
              f"{_cell(r['metric'], r['delta'], signed=True)} |" for r in doc["rows"]]
    lines += ["", "| seat | recall A | recall B | B − A |", "|---|---|---|---|"]
    lines += [f"| {flat(s['seat'], 60)} | {_cell('council recall', s['a'], floor=s['aFloor'])} | "
              f"{_cell('council recall', s['b'], floor=s['bFloor'])} | "
              f"{_cell('council recall', s['delta'], signed=True)} |" for s in doc["seats"]]
    if doc["flaws"]:
        lines += ["", "Planted flaws only one eval found:", ""]
        lines += [f"- {f['caseId']} {f['flaw']}: found by {f['foundBy'].upper()} only" for f in doc["flaws"]]
    if doc["notes"]:
        lines += ["", *[f"Note: {n}" for n in doc["notes"]]]
    return "\n".join(lines) + "\n"
