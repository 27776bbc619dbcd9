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


def recall_vs_cost(models: Sequence[Mapping[str, Any]]) -> str:
    """Each model's measured recall against what its seats cost in these runs."""
    width, height, left, right, top, bottom = 640, 300, 56, 20, 16, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    costs = [m["cost"]["amount"] for m in models if m["cost"]["amount"] is not None]
    top_cost = max(costs) if costs and max(costs) > 0 else 1.0
    parts = [f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#d0d7de"/>']
    for tick in (0, 0.25, 0.5, 0.75, 1):
        y = top + plot_h * (1 - tick)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eaeef2"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#6e7781" font-size="11">'
                     f"{tick * 100:.0f}%</text>")
    for tick in (0, 0.5, 1):
        x = left + plot_w * tick
        parts.append(f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#6e7781" font-size="11">'
                     f"${top_cost * tick:.4f}</text>")
    parts.append(f'<text x="{left + plot_w / 2:.0f}" y="{height - 6}" text-anchor="middle" fill="currentColor">'
                 "known cost of the model's seats in this eval (USD)</text>")
    parts.append(f'<text x="14" y="{top + plot_h / 2:.0f}" text-anchor="middle" fill="currentColor" '
                 f'transform="rotate(-90 14 {top + plot_h / 2:.0f})">recall</text>')
    placed: list[tuple[float, float]] = []  # label positions so far: coinciding points get stacked labels
    for m in models:
        rate, amount = m["recall"]["rate"], m["cost"]["amount"]
        if rate is None:
            continue
        x = left + plot_w * ((amount or 0.0) / top_cost)
        y = top + plot_h * (1 - rate)
        label_y = y - 8
        while any(abs(px - x) < 60 and abs(py - label_y) < 14 for px, py in placed):
            label_y -= 14
        placed.append((x, label_y))
        hollow = amount is None or m["cost"]["unpricedLegs"]
        fill = "none" if hollow else BAR
        parts.append(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="6" fill="{fill}" stroke="{BAR}" '
                     f'stroke-width="2"><title>{_e(m["model"])}: {_pct(rate)}</title></circle>')
        anchor = "end" if x > left + plot_w * 0.7 else "start"
        dx = -10 if anchor == "end" else 10
        parts.append(f'<text x="{x + dx:.1f}" y="{label_y:.1f}" text-anchor="{anchor}" fill="currentColor">'
                     f'{_e(m["model"])}</text>')
    return _svg(width, height, "Recall against cost, per model (a hollow point: its cost is not fully known)",
                "".join(parts), "recall-vs-cost")


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
