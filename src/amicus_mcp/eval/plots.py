"""The eval report's pictures, as inline SVG: pure functions of the eval document's figures.

    recall_per_seat    one horizontal bar per seat, and one for the council (any seat found it)
    recall_vs_cost     one point per model: known cost (x) against measured recall (y)
    tier_distribution  the planted flaws as one stacked bar: the strongest tier each reached

Every text that may come from a user or a model (seat and model names) is escaped; nothing is
loaded from anywhere (no fonts, no images, no scripts), and colours come from fixed tables.
Each picture carries a <title> and an aria-label, so it reads without being seen.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..vocabulary import TIERS

TIER_COLOURS = {"Confirmed": "#1a7f37", "Contested": "#9a6700", "Singleton": "#6e7781", "Disputed": "#cf222e",
                "Missed": "#d0d7de"}
BAR = "#0969da"
COUNCIL_BAR = "#8250df"
FONT = 'font-family="system-ui,-apple-system,Segoe UI,Roboto,Arial,sans-serif"'


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _pct(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:.0f}%"


def _svg(width: int, height: int, title: str, body: str, cls: str) -> str:
    return (f'<svg class="plot {cls}" xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" aria-label="{_e(title)}" {FONT} font-size="13">'
            f"<title>{_e(title)}</title>{body}</svg>")


def recall_per_seat(seats: Sequence[Mapping[str, Any]], council: Mapping[str, Any]) -> str:
    """Bars of recall per seat, the council's last; each labelled found/planted and %."""
    rows = [(s["seat"], s["recall"], BAR) for s in seats] + [("council (any seat)", council, COUNCIL_BAR)]
    label_w, bar_w, row_h, top = 190, 380, 28, 10
    width, height = label_w + bar_w + 110, top + row_h * len(rows) + 26
    parts = []
    for i, (name, ratio, colour) in enumerate(rows):
        y = top + i * row_h
        rate = ratio.get("rate")
        floor = "≥" if ratio.get("undecided") else ""  # a floor: undecided findings might have found more
        w = 0 if rate is None else max(1.0, rate * bar_w)
        parts.append(f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end" fill="currentColor">{_e(name)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 4}" width="{bar_w}" height="18" fill="#eaeef2" rx="3"/>')
        parts.append(f'<rect class="bar" x="{label_w}" y="{y + 4}" width="{w:.1f}" height="18" fill="{colour}" rx="3"/>')
        parts.append(f'<text x="{label_w + bar_w + 8}" y="{y + 17}" fill="currentColor">'
                     f'{floor}{_pct(rate)} ({floor}{ratio.get("found", 0)}/{ratio.get("planted", 0)})</text>')
    axis_y = top + row_h * len(rows) + 4
    for tick in (0, 0.5, 1):
        x = label_w + tick * bar_w
        parts.append(f'<text x="{x:.0f}" y="{axis_y + 14}" text-anchor="middle" fill="#6e7781" font-size="11">'
                     f"{tick * 100:.0f}%</text>")
    return _svg(width, height, "Recall per seat: planted flaws found", "".join(parts), "recall-per-seat")


def _nice_ticks(top: float) -> list[float]:
    """0 and up to five round steps (1, 2, 2.5 or 5 × 10^k) whose last is at or past `top`."""
    if top <= 0:
        return [0.0, 1.0]
    rough = top / 4
    power = 10 ** math.floor(math.log10(rough))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= rough - 1e-15)
    count = math.ceil(top / step - 1e-9)
    return [round(i * step, 12) for i in range(count + 1)]


def _money_tick(value: float, step: float) -> str:
    places = max(2, min(6, -math.floor(math.log10(step)) + 1)) if step > 0 else 2
    return f"${value:.{places}f}"


CHAR_W, LINE_H = 7.2, 14  # a label's box at font-size 13: enough to keep two labels apart


def _label_box(x: float, y: float, text: str, anchor: str) -> tuple[float, float, float, float]:
    width = len(text) * CHAR_W
    x0 = x - width if anchor == "end" else x
    return (x0, y - LINE_H + 3, x0 + width, y + 3)


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def recall_vs_cost(models: Sequence[Mapping[str, Any]]) -> str:
    """Each model's measured recall against what its seats cost in these runs.

    The points sit inside the frame (a margin on every side: a 0 % or a 100 % recall, the
    cheapest or the dearest model, is never drawn on the border), the cost axis ends on a
    round tick that holds the dearest model, and every label is placed where it overlaps no
    other (above, below, right, left of its point); models at the same spot share one label.
    A model whose cost is not known is drawn in its own band left of $0, never at $0, and a
    recall that is only a floor (undecided findings) is labelled `≥`."""
    width, height, left, right, top, bottom = 680, 320, 64, 56, 24, 48
    plot_w, plot_h = width - left - right, height - top - bottom
    pad = 16  # the data area's margin inside the frame
    shown = [m for m in models if m["recall"]["rate"] is not None]
    unknown = [m for m in shown if m["cost"]["amount"] is None]
    band = 76 if unknown else 0  # the lane of models whose cost is not known
    costs = [m["cost"]["amount"] for m in shown if m["cost"]["amount"] is not None]
    ticks = _nice_ticks(max(costs) if costs else 0.0)
    step = ticks[1] - ticks[0]
    x0, x1 = left + band + pad, left + plot_w - pad
    y0, y1 = top + pad, top + plot_h - pad

    def at_x(amount: float) -> float:
        return x0 + (x1 - x0) * (amount / ticks[-1])

    def at_y(rate: float) -> float:
        return y1 - (y1 - y0) * rate

    parts = [f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#d0d7de"/>']
    if band:
        parts.append(f'<rect class="unknown-cost" x="{left}" y="{top}" width="{band}" height="{plot_h}" fill="#f6f8fa"/>')
        parts.append(f'<text x="{left + band / 2:.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#6e7781" '
                     'font-size="11">unknown</text>')
    for tick in (0, 0.25, 0.5, 0.75, 1):
        y = at_y(tick)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eaeef2"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#6e7781" font-size="11">'
                     f"{tick * 100:.0f}%</text>")
    for tick in ticks:
        x = at_x(tick)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + plot_h}" stroke="#eaeef2"/>')
        parts.append(f'<text class="tick" x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#6e7781" '
                     f'font-size="11">{_money_tick(tick, step)}</text>')
    parts.append(f'<text x="{left + plot_w / 2:.0f}" y="{height - 8}" text-anchor="middle" fill="currentColor">'
                 "known cost of the model's seats in this eval (USD)</text>")
    parts.append(f'<text x="14" y="{top + plot_h / 2:.0f}" text-anchor="middle" fill="currentColor" '
                 f'transform="rotate(-90 14 {top + plot_h / 2:.0f})">recall</text>')
    spots: dict[tuple[int, int], list[Mapping[str, Any]]] = {}  # models drawn at the same place share a label
    for m in shown:
        amount = m["cost"]["amount"]
        x = left + band / 2 if amount is None else at_x(amount)
        spots.setdefault((round(x), round(at_y(m["recall"]["rate"]))), []).append(m)
    placed: list[tuple[float, float, float, float]] = []
    labels = []
    for (x, y), members in spots.items():
        for m in members:
            hollow = m["cost"]["amount"] is None or m["cost"]["unpricedLegs"]
            floor = "≥" if m["recall"].get("undecided") else ""
            parts.append(f'<circle class="point" cx="{x}" cy="{y}" r="6" fill="{"none" if hollow else BAR}" '
                         f'stroke="{BAR}" stroke-width="2"><title>{_e(m["model"])}: {floor}{_pct(m["recall"]["rate"])}'
                         "</title></circle>")
        placed.append((x - 7, y - 7, x + 7, y + 7))
        text = ", ".join(("≥ " if m["recall"].get("undecided") else "") + str(m["model"]) for m in members)
        labels.append((x, y, text))
    for x, y, text in labels:
        options = [(x + 10, y - 8, "start"), (x + 10, y + 18, "start"), (x - 10, y - 8, "end"),
                   (x - 10, y + 18, "end"), (x + 12, y + 5, "start"), (x - 12, y + 5, "end")]
        inside = [o for o in options if _label_box(*o[:2], text, o[2])[0] >= 2
                  and _label_box(*o[:2], text, o[2])[2] <= width - 2 and _label_box(*o[:2], text, o[2])[1] >= 0
                  and _label_box(*o[:2], text, o[2])[3] <= top + plot_h]
        choice = next((o for o in inside if not any(_overlaps(_label_box(o[0], o[1], text, o[2]), b) for b in placed)),
                      (inside or options)[0])
        placed.append(_label_box(choice[0], choice[1], text, choice[2]))
        parts.append(f'<text class="label" x="{choice[0]:.1f}" y="{choice[1]:.1f}" text-anchor="{choice[2]}" '
                     f'fill="currentColor">{_e(text)}</text>')
    return _svg(width, height, "Recall against cost, per model (a hollow point: its cost is not fully known; "
                "≥: a recall that is only a floor)", "".join(parts), "recall-vs-cost")


def tier_distribution(by_tier: Mapping[str, int]) -> str:
    """The planted flaws as one stacked bar, by the strongest tier a matching finding reached."""
    order = [*TIERS, "Missed"]
    total = sum(int(by_tier.get(t, 0)) for t in order)
    width, bar_w, left = 640, 600, 20
    parts, x = [], float(left)
    for tier in order:
        count = int(by_tier.get(tier, 0))
        if not count:
            continue
        w = bar_w * count / total
        parts.append(f'<rect class="segment" x="{x:.1f}" y="10" width="{w:.1f}" height="30" fill="{TIER_COLOURS[tier]}">'
                     f"<title>{tier}: {count}</title></rect>")
        if w > 24:
            fg = "#1f2328" if tier == "Missed" else "#ffffff"
            parts.append(f'<text x="{x + w / 2:.1f}" y="30" text-anchor="middle" fill="{fg}">{count}</text>')
        x += w
    if not total:
        parts.append(f'<rect x="{left}" y="10" width="{bar_w}" height="30" fill="#eaeef2"/>')
    for i, tier in enumerate(order):
        lx = left + i * 122
        parts.append(f'<rect x="{lx}" y="54" width="12" height="12" fill="{TIER_COLOURS[tier]}"/>')
        parts.append(f'<text x="{lx + 17}" y="64" fill="currentColor">{tier} {int(by_tier.get(tier, 0))}</text>')
    return _svg(width, 78, f"Planted flaws by the strongest tier they reached ({total} flaws)", "".join(parts),
                "tier-distribution")
