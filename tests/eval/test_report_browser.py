"""eval.html in real Chromium (Debian's /usr/bin/chromium through playwright's python package):
its three plots render, it loads nothing from anywhere, and model text stays text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from browsers import browser  # noqa: F401 - the shared Chromium fixture
from eval_helpers import ShippedEval

from amicus_mcp.eval.report_html import render_html

def open_page(browser: Any, path: Path) -> Any:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.requests, page.errors = [], []  # type: ignore[attr-defined]
    page.on("request", lambda r: page.requests.append(r.url))  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
    page.goto(path.as_uri())
    return page


def test_the_eval_report_renders_its_plots_in_chromium(shipped_eval: ShippedEval, browser: Any) -> None:
    page = open_page(browser, shipped_eval.directory / "eval.html")
    doc = json.loads((shipped_eval.directory / "eval.json").read_text(encoding="utf-8"))
    assert page.requests == [(shipped_eval.directory / "eval.html").as_uri()]  # nothing else is fetched
    assert page.errors == []
    assert page.title().startswith(f"Eval {doc['evalId']}")
    plots = page.locator("svg.plot")
    assert plots.count() == 3
    for cls in ("recall-per-seat", "recall-vs-cost", "tier-distribution"):
        box = page.locator(f"svg.{cls}").bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 60, cls
    # Recall per seat: one bar per seat and the council's, each as long as its recall.
    bars = page.locator("svg.recall-per-seat rect.bar")
    assert bars.count() == len(doc["seats"]) + 1
    widths = [bars.nth(i).bounding_box()["width"] for i in range(bars.count())]
    rates = [s["recall"]["rate"] for s in doc["seats"]] + [doc["council"]["recall"]["rate"]]
    assert sorted(range(len(rates)), key=widths.__getitem__) == sorted(range(len(rates)), key=rates.__getitem__)
    assert widths[-1] == max(widths)  # the council (any seat) found the most
    # Recall against cost: one point per model, higher recall drawn higher.
    points = page.locator("svg.recall-vs-cost circle.point")
    assert points.count() == len(doc["models"])
    ys = [points.nth(i).bounding_box()["y"] for i in range(points.count())]
    recalls = [m["recall"]["rate"] for m in doc["models"]]
    best, worst = recalls.index(max(recalls)), recalls.index(min(recalls))
    assert ys[best] < ys[worst]
    # The tier distribution: one segment per tier that has flaws, widths in proportion.
    segments = page.locator("svg.tier-distribution rect.segment")
    tiers = [t for t in ("Confirmed", "Contested", "Singleton", "Disputed", "Missed") if doc["council"]["byTier"][t]]
    assert segments.count() == len(tiers)
    total_w = sum(segments.nth(i).bounding_box()["width"] for i in range(segments.count()))
    confirmed_w = segments.nth(0).bounding_box()["width"]
    assert abs(confirmed_w / total_w - doc["council"]["byTier"]["Confirmed"] / 70) < 0.01
    page.context.close()


def test_model_text_in_the_report_is_escaped(shipped_eval: ShippedEval, browser: Any, tmp_path: Path) -> None:
    doc = json.loads((shipped_eval.directory / "eval.json").read_text(encoding="utf-8"))
    evil = '<img src="https://example.invalid/x.png" onerror="alert(1)"><script>alert(2)</script>'
    case = next(c for c in doc["cases"] if c["scored"] and any(f["tier"] == "Confirmed" and f["flaw"] is None
                                                              for f in c["findings"]))
    finding = next(f for f in case["findings"] if f["tier"] == "Confirmed" and f["flaw"] is None)
    finding["claim"], finding["location"], finding["seat"] = evil, evil, f"seat {evil}"
    doc["seats"][0]["seat"] = f"seat {evil}"
    doc["models"][0]["model"] = f"model {evil}"
    doc["bench"]["seats"][0]["seat"] = f"seat {evil}"
    page_file = tmp_path / "evil.html"
    page_file.write_text(render_html(doc), encoding="utf-8")
    page = open_page(browser, page_file)
    assert page.requests == [page_file.as_uri()]
    assert page.errors == []
    assert page.locator("script").count() == 0 and page.locator("img").count() == 0
    assert evil in page.locator("body").inner_text()  # shown as text, in the list and in the plots
    assert page.locator("svg.recall-per-seat text", has_text="<script>").count() == 1
    page.context.close()
