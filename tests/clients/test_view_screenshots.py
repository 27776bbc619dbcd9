"""Screenshots of the inline council view for the Claude directory's listing (docs/screenshots/).

Three pictures of the view as a real MCP Apps host renders it (the host of test_mcp_app.py,
in Chromium, over the real server on stdio), from a real council run against the loopback fake
provider: Stage 1 running, seats anonymous; the reviews in and the judges at work (Stage 2);
the chair's verdict with the adjudication matrix and the cost. `docs/view-screenshots.sh` makes them (this module
with AMICUS_SCREENSHOTS=1); every other run only checks that they are there and were made
from the view the server serves now (the SHA-256 of that page, recorded beside them).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from client_helpers import REPO
from fakeprovider import FakeProvider, chat, usage
from test_mcp_app import APP_INFO, expect, held, host_script, priced, relay  # noqa: F401 - fixtures
from workspace_helpers import judge, member, review

from amicus_mcp.mcp.app_view import page as view_page
from amicus_mcp.mcp.bundle import SCREENSHOTS

SHOTS = REPO / "docs" / "screenshots"
NAMES = ("view-1-stage1.png", "view-2-stage2.png", "view-3-verdict.png")
STAMP = SHOTS / "view.sha256"  # the served view's SHA-256 when the pictures were made
MAKING = os.environ.get("AMICUS_SCREENSHOTS") == "1"


def view_digest() -> str:
    return hashlib.sha256(view_page().encode("utf-8")).hexdigest()


def test_the_screenshots_are_there_and_show_the_current_view() -> None:
    if MAKING:
        pytest.skip("making them (AMICUS_SCREENSHOTS=1)")
    for name in NAMES:
        data = (SHOTS / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, name  # a real picture, not a blank
    assert SCREENSHOTS == [f"docs/screenshots/{name}" for name in NAMES]  # the bundle's manifest lists these
    assert STAMP.read_text(encoding="utf-8").strip() == view_digest(), (
        "the inline view changed since its screenshots were made: run bash docs/view-screenshots.sh")


def bench(fake: FakeProvider, gate: threading.Event) -> dict[str, Any]:
    """Three seats on a plausible review; the first is held in Stage 1 until `gate` opens, the
    judges and the chair take a moment each, so each stage can be photographed."""
    slow = {"judge": judge("Reasoning: the reviews agree on the cache.", {}, delay_s=3.0, usage=usage(2000, 300, cost=0.002)),
            "chair": chat("Synthesis: fix the eviction policy first; the metrics gap can follow.\n\n"
                          "VERDICT: Fix these first\n", delay_s=3.0, usage=usage(3000, 500, cost=0.003))}
    findings = {
        "alpha": [("major", "The cache evicts on every write, so hot keys are refetched", "cache.py:42"),
                  ("minor", "Eviction is not logged, so a miss storm is invisible", "cache.py:88")],
        "bravo": [("major", "No metric counts evictions per second", "metrics.py:12")],
        "charlie": [("minor", "The TTL default is undocumented", "README.md")],
    }
    member(fake, "alpha", review_text="unused",
           stage1=held(fake, gate, chat(review("alpha's review of the cache", findings["alpha"]),
                                        usage=usage(1200, 400, cost=0.0012))), **slow)
    for name in ("bravo", "charlie"):
        member(fake, name, review_text=review(f"{name}'s review of the cache", findings[name]), **slow)
    member(fake, "chair", review_text="unused", **slow)
    return {"models": ["fake/alpha", "fake/bravo", "fake/charlie"], "chair": "fake/chair"}


@pytest.mark.skipif(not MAKING, reason="docs/view-screenshots.sh makes the screenshots (AMICUS_SCREENSHOTS=1)")
def test_make_the_screenshots(page: Any, relay: Any, priced: FakeProvider, project: Path, briefing: Path) -> None:  # noqa: F811
    gate = threading.Event()
    args = bench(priced, gate)
    page.set_viewport_size({"width": 1100, "height": 900})
    page.goto(relay.origin + "/")
    page.wait_for_function("window.host !== undefined")
    page.evaluate("(info) => host.connect(info)", APP_INFO)
    started = page.evaluate("(args) => host.run('amicus_council_run', args)", {"briefingFile": "briefing.md", **args})
    view = page.frame_locator(f"#{started['frame']}")
    frame = page.locator(f"#{started['frame']}")
    SHOTS.mkdir(parents=True, exist_ok=True)

    expect(view.locator("#stage-rail li", has_text="stage1 — running")).to_be_visible(timeout=20000)
    page.wait_for_timeout(1500)
    frame.screenshot(path=str(SHOTS / NAMES[0]))
    gate.set()
    expect(view.locator("#stage-rail li", has_text="stage2 — running")).to_be_visible(timeout=30000)
    page.wait_for_timeout(1500)
    frame.screenshot(path=str(SHOTS / NAMES[1]))
    expect(view.locator("#chair .verdict")).to_have_text("VERDICT: Fix these first", timeout=30000)
    deadline = time.monotonic() + 10
    while view.locator("#blind-toggle").get_attribute("aria-pressed") != "false" and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    page.wait_for_timeout(500)
    frame.screenshot(path=str(SHOTS / NAMES[2]))
    STAMP.write_text(view_digest() + "\n", encoding="utf-8")
    assert page.errors == []
