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


def test_the_recall_against_cost_plot_keeps_points_ticks_and_labels_clear(shipped_eval: ShippedEval, browser: Any,
                                                                          tmp_path: Path) -> None:
    """Points at 0 % and 100 %, the cheapest and the dearest, two at one spot, one of unknown cost."""
    doc = json.loads((shipped_eval.directory / "eval.json").read_text(encoding="utf-8"))

    def model(name: str, rate: float, amount: float | None, undecided: int = 0) -> dict[str, Any]:
        return {**doc["models"][0], "model": name, "resolvedModel": None,
                "recall": {"found": 1, "planted": 2, "rate": rate, "undecided": undecided},
                "cost": {"amount": amount, "unpricedLegs": 0 if amount is not None else 3}}

    doc["models"] = [model("vendor/very-long-model-name-alpha", 1.0, 0.0), model("vendor/beta", 0.0, 0.0123),
                     model("vendor/gamma", 0.5, 0.006, undecided=2), model("vendor/delta", 0.5, 0.006),
                     model("vendor/epsilon", 0.52, None), model("vendor/zeta", 0.51, 0.0061)]
    page_file = tmp_path / "plot.html"
    page_file.write_text(render_html(doc), encoding="utf-8")
    page = open_page(browser, page_file)
    svg = page.locator("svg.recall-vs-cost")
    outer = svg.bounding_box()
    frame = svg.locator("rect").first.bounding_box()
    points = [svg.locator("circle.point").nth(i).bounding_box() for i in range(6)]
    for box in points:  # wholly inside the frame, never on its border
        assert frame["x"] + 2 < box["x"] and box["x"] + box["width"] < frame["x"] + frame["width"] - 2, box
        assert frame["y"] + 2 < box["y"] and box["y"] + box["height"] < frame["y"] + frame["height"] - 2, box
    texts = svg.locator("text")
    for i in range(texts.count()):  # no tick or label is clipped by the picture's edge
        box = texts.nth(i).bounding_box()
        assert outer["x"] <= box["x"] and box["x"] + box["width"] <= outer["x"] + outer["width"], texts.nth(i).text_content()
        assert outer["y"] <= box["y"] and box["y"] + box["height"] <= outer["y"] + outer["height"]
    labels = svg.locator("text.label")
    boxes = [labels.nth(i).bounding_box() for i in range(labels.count())]
    names = [labels.nth(i).text_content() for i in range(labels.count())]
    assert "≥ vendor/gamma, vendor/delta" in names and len(names) == 5  # one label for the two at one spot
    for i, a in enumerate(boxes):  # no label overlaps another, or a point
        for b in boxes[i + 1:] + points:
            apart = (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                     or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])
            assert apart, (names[i], a, b)
    # The unknown cost is drawn in its own band, left of $0: never at $0.
    ticks = svg.locator("text.tick")
    zero = ticks.first.bounding_box()
    unknown = points[4]
    assert ticks.first.text_content() == "$0.0000" and unknown["x"] + unknown["width"] < zero["x"]
    assert ticks.last.text_content() == "$0.0150"  # a round last tick that holds the dearest model
    page.screenshot(path=str(tmp_path / "plot.png"))
    page.context.close()
