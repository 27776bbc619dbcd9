"""The Council Workspace in real headless Chromium, against runs the real engine produced.

Finished runs come from an in-process council on the fake provider; the live run is the
CLI `council run` in a subprocess with one seat scripted to hang. The page is served by the
real workspace server; nothing is mocked between the browser and the run directory.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from workspace_helpers import BENCH, MODEL_NAMES, Run
from fakeprovider import chat, error, hang
from workspace_helpers import member, read_run, review, run_finished, start_live_run, wait_for

from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine.run_dir import RunDir, write_pointer
from amicus_mcp.engine.store import SessionStore

SCREENSHOT_COPY = Path("/tmp/workspace-detail.png")


def expect(locator: Any) -> Any:
    """Playwright's auto-waiting assertions (imported here: without Playwright the `browser`
    fixture reports why, instead of this module failing to import)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def open_run(page: Any, served: Any) -> None:
    page.goto(served.url)
    page.wait_for_selector("#seats table")


def texts(page: Any, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_inner_texts()]


def data_requests(page: Any, run_id: str) -> int:
    return sum(1 for url in page.requests if url.endswith(f"/api/runs/{run_id}"))


def test_a_finished_run_renders_and_is_screenshotted(page: Any, finished: Run, serve: Any, tmp_path: Path) -> None:
    served = serve(finished.project, "done1")
    open_run(page, served)
    page.wait_for_selector("#matrix tbody tr")
    assert texts(page, "#matrix thead th") == ["Finding", "Sev", "Tier", "Basis", *BENCH, "Claim"]
    rows = page.locator("#matrix tbody tr")
    assert [r.split("\n")[0] for r in rows.all_inner_texts()] == ["A1", "A2", "B1", "C1"]  # (grid rows: a cell a line)
    assert [rows.nth(i).get_attribute("class") for i in range(4)] == [
        "tier-disputed", "tier-contested", "tier-confirmed", "tier-confirmed"]
    assert texts(page, "#matrix tbody tr:nth-child(1) td.vote") == ["✓*", "✗", "✗"]
    assert texts(page, "#matrix tbody tr:nth-child(1) td.basis") == ["a0/d2/n0"]
    assert texts(page, "#matrix .badge.thin") == ["thin"]  # only C1: a+d <= 1
    assert page.locator("#matrix tbody tr:nth-child(4) .badge.thin").count() == 1

    seat_rows = page.locator("#seats tbody tr")
    assert [seat_rows.nth(i).locator("td").first.inner_text().split(" →")[0] for i in range(4)] == [*BENCH, "fake/chair"]
    assert texts(page, "#seats tbody tr:nth-child(1) td")[1:8] == ["seat", "complete", "stage2", "2", "3,200 in / 700 out",
                                                                   "$0.0024", texts(page, "#seats tbody tr:nth-child(1) td")[7]]
    assert texts(page, "#stage-rail li") == [f"✓ {s} — complete" for s in ("stage1", "stage2", "tally", "chair", "verdict")]
    assert "VERDICT: Fix these first" in page.inner_text("#chair")
    assert texts(page, "#cost tr.total td")[-1] == "$0.0084"
    assert "No --max-cost ceiling on this run." in page.inner_text("#cost")
    assert len(texts(page, "#reviews article")) == 3 and len(texts(page, "#judges article")) == 3
    assert page.text_content("#bundle pre") == (finished.run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    assert page.get_attribute("#blind-toggle", "aria-pressed") == "false"  # a finished run opens unblinded
    assert page.is_visible("#fold-button") and not page.is_visible("#abort-button")
    assert page.errors == []

    shot = tmp_path / "workspace-detail.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    shutil.copyfile(shot, SCREENSHOT_COPY)


def test_blind_mode_hides_every_model_name(page: Any, finished: Run, serve: Any) -> None:
    served = serve(finished.project, "done1")
    open_run(page, served)
    assert "fake/alpha" in page.content()
    page.click("#blind-toggle")
    assert page.get_attribute("#blind-toggle", "aria-pressed") == "true"
    assert "reading aid against anchoring bias, not a security control" in page.inner_text("#blind-note")
    dom = page.content()
    assert [name for name in MODEL_NAMES if name in dom] == []
    assert texts(page, "#matrix thead th")[4:7] == ["Review A", "Review B", "Review C"]
    assert [t.split("\n")[0] for t in texts(page, "#seats tbody tr")] == ["Review A", "Review B", "Review C", "Chair"]
    assert texts(page, "#street-cred tbody tr td:first-child") == ["Review A", "Review B", "Review C"]
    assert texts(page, "#cost tbody tr td:first-child")[:4] == ["Review A", "Review B", "Review C", "Chair"]
    assert texts(page, "#chips .chip.seat") == ["Review A", "Review B", "Review C"]
    assert texts(page, "#chips .chip.chair") == ["chair: Chair"]
    page.click("#blind-toggle")
    assert "fake/alpha" in page.content() and page.get_attribute("#blind-toggle", "aria-pressed") == "false"


def test_hostile_review_text_is_inert(page: Any, finished: Run, serve: Any, sentinel: Any) -> None:
    served = serve(finished.project, "done1")
    open_run(page, served)
    review_text = page.inner_text("#reviews article:first-child pre")
    assert "<script>window.__pwned = 'script'; fetch('" + sentinel.origin + "/script')</script>" in review_text
    assert '<img src="' + sentinel.origin + '/img.png" onerror="window.__pwned = \'img\'">' in review_text
    assert "[read more](javascript:window.__pwned='link')" in review_text
    assert "<a href=\"javascript:window.__pwned='a'\">click</a>" in review_text
    assert "<img src=x onerror=\"window.__pwned='claim'\"> the cache evicts on write" in page.inner_text("#matrix")
    page.locator("#reviews article:first-child pre").click()
    page.wait_for_timeout(1000)  # give any stray load a chance to happen
    assert page.evaluate("window.__pwned === undefined")
    assert page.locator("main script, main img, main iframe, main style, main a, main object, main embed").count() == 0
    assert sentinel.hits == []
    origin = f"http://127.0.0.1:{served.server.port}/"
    assert page.requests and all(url.startswith(origin) for url in page.requests)
    assert page.errors == []


def test_the_csp_holds_in_the_browser(page: Any, finished: Run, serve: Any, sentinel: Any) -> None:
    served = serve(finished.project, "done1")
    open_run(page, served)
    outcome = page.evaluate("""() => { try { document.body.innerHTML = '<b>x</b>'; return 'parsed'; }
                                        catch (e) { return e.name; } }""")
    assert outcome == "TypeError"  # Trusted Types: no string is ever parsed as markup
    fetched = page.evaluate("(url) => fetch(url).then(() => 'reached', () => 'blocked')", sentinel.origin + "/probe")
    assert fetched == "blocked" and sentinel.hits == []


def test_dissent_drill_in_opens_the_judges_prose(page: Any, finished: Run, serve: Any) -> None:
    served = serve(finished.project, "done1")
    open_run(page, served)
    a1 = page.locator("#matrix tbody tr").first
    assert a1.locator("button.cell-btn").count() == 2  # the two ✗; agreement is not a drill-in
    assert not page.is_visible("#drill-panel")
    a1.locator("button.cell-btn").first.click()
    page.wait_for_selector("#drill-panel:not([hidden])")
    assert page.inner_text("#drill-title") == "Dissent: fake/bravo on A1"
    assert "A1 is wrong: the cache only evicts on overflow" in page.inner_text("#drill pre")
    marks = texts(page, "#drill mark")
    assert marks and set(marks) == {"A1"}
    page.click("#drill button")
    assert not page.is_visible("#drill-panel")


def test_a_revoted_cell_opens_the_revote_and_its_reason(page: Any, debated: Run, serve: Any) -> None:
    served = serve(debated.project, "debate1")
    open_run(page, served)
    a1 = page.locator("#matrix tbody tr").first
    assert texts(page, "#matrix tbody tr:nth-child(1) td.vote") == ["✓*", "✓ ↺", "✗ ↺"]
    assert "debate: defended" in a1.inner_text()
    a1.locator("td.vote").nth(1).locator("button").click()
    assert page.inner_text("#drill-title") == "Re-vote by fake/bravo on A1"
    assert page.inner_text("#drill .reason") == "Re-voted agree (was dispute) — reason: the defense showed the write path"
    assert page.text_content("#drill pre") == (debated.run_dir / "revote-fake-bravo.md").read_text(encoding="utf-8")
    assert set(texts(page, "#drill mark")) == {"A1"}


def test_fold_writes_once(page: Any, finished: Run, serve: Any) -> None:
    served = serve(finished.project, "done1")
    open_run(page, served)
    page.click("#fold-button")
    expect(page.locator("#action-status")).to_have_text(re.compile(r"^Folded: the block is in fold\.md"))
    block = (finished.run_dir / "fold.md").read_text(encoding="utf-8")
    assert "VERDICT: Fix these first" in block and served.out.getvalue() == block
    page.click("#fold-button")
    expect(page.locator("#action-status")).to_have_text("Already folded (fold.md); nothing written.")
    assert served.out.getvalue() == block and (finished.run_dir / "fold.md").read_text(encoding="utf-8") == block


def test_abort_really_aborts_a_live_run(page: Any, fake: Any, brief: Path, project: Path, tmp_path: Path, serve: Any) -> None:
    member(fake, "alpha", review_text=review("alpha prose", [("major", "alpha claim", "x")]))
    member(fake, "bravo", review_text="unused", stage1=hang(60))
    member(fake, "chair", review_text="unused")
    run_dir = tmp_path / "live"
    proc = start_live_run(brief, run_dir, project, "fake/alpha,fake/bravo", "live1")
    try:
        wait_for(lambda: fake.prompts("bravo"), what="the hanging seat's request")
        wait_for(lambda: any(leg["status"] == "complete" for leg in (read_run(run_dir) or {}).get("legs", [])),
                 what="alpha's review")
        served = serve(project, "live1", stall_after_s=1.0)
        open_run(page, served)
        assert page.get_attribute("#blind-toggle", "aria-pressed") == "true"  # blind by default while live
        assert [n for n in ("fake/alpha", "fake/bravo", "fake/chair") if n in page.content()] == []
        assert "● stage1 — running" in texts(page, "#stage-rail li")
        page.wait_for_selector(".banner.stall")
        assert "⏳ stalled" in page.inner_text("#seats tbody tr:nth-child(2) td.flag")
        assert texts(page, "#seats tbody tr td:nth-child(3)") == ["complete", "running"]

        polled = data_requests(page, "live1")
        page.wait_for_timeout(3400)  # (a plain sleep would not let Playwright deliver the request events)
        assert data_requests(page, "live1") - polled >= 2  # every 1.5 s while visible and focused

        page.click("#abort-button")
        assert page.is_visible("#confirm")
        page.click("#confirm-no")
        assert not page.is_visible("#confirm") and read_run(run_dir)["status"] == "running"

        page.click(".banner.stall button")
        page.click("#confirm-yes")
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    run = read_run(run_dir)
    assert (run["status"], run["exitCode"]) == ("aborted", 143) and "abortRequestedAt" in run
    assert json.loads(out)["status"] == "aborted"

    page.wait_for_selector("#chips .chip.status-aborted")
    assert page.inner_text(".banner.resume code") == f"amicus council resume {run_dir}"  # printed, never run
    assert page.is_visible("#fold-button") and not page.is_visible("#abort-button")
    assert page.get_attribute("#blind-toggle", "aria-pressed") == "false"  # off once terminal
    assert "fake/alpha" in page.content()
    settled = data_requests(page, "live1")
    page.wait_for_timeout(3500)
    assert data_requests(page, "live1") == settled  # polling stops at a terminal status


def make_live(run: Run) -> None:
    """Mark a finished run as still running under a live process (this one)."""
    doc = json.loads((run.run_dir / "run.json").read_text(encoding="utf-8"))
    doc.update(status="running", pid=os.getpid())
    doc["stages"] = [s for s in doc["stages"] if s["name"] != "verdict"]  # not started yet: it is pending
    for stage in doc["stages"][3:]:
        stage["status"] = "running"  # the chair
    (run.run_dir / "run.json").write_text(json.dumps(doc), encoding="utf-8")


def test_a_failed_read_keeps_the_last_panels(page: Any, finished: Run, serve: Any) -> None:
    make_live(finished)
    served = serve(finished.project, "done1")
    open_run(page, served)
    page.wait_for_selector("#matrix tbody tr")
    served.server.shutdown()
    page.wait_for_selector(".banner.warn >> text=Live data unavailable", timeout=15000)
    assert page.locator("#seats tbody tr").count() == 4 and page.locator("#matrix tbody tr").count() == 4
    assert "Showing the last data received; retrying." in page.inner_text("#banners")


def test_degraded_states_are_shown_honestly(page: Any, fake: Any, project: Path, brief: Path, tmp_path: Path,
                                            serve: Any) -> None:
    member(fake, "alpha", review_text=review("alpha prose", [("major", "alpha claim", "x")]))
    member(fake, "bravo", review_text=review("bravo prose", [("major", "bravo claim", "y")]),
           judge=chat("no block at all"), other=chat("still no block"))
    member(fake, "charlie", review_text="unused", stage1=error(400, "charlie cannot review"))
    member(fake, "chair", review_text="unused", chair=error(400, "chair is down"))
    run_finished(project, tmp_path / "degraded", brief, ["fake/alpha", "fake/bravo", "fake/charlie"], run_id="deg1",
                 max_cost=0.5)
    served = serve(project)
    page.goto(served.base + "?run=deg1")
    page.wait_for_selector("#matrix table")
    note = page.locator("#matrix > *").first
    assert "peers-reduced: only 1 judge(s) completed" in note.inner_text()  # above the matrix
    assert "No chair verdict — degraded" not in page.inner_text("#chair")
    assert ("No chair verdict — no chair verdict: the chair fake/chair and its retry failed, and no promotion "
            "candidate exists" in page.inner_text("#chair"))
    dead = page.locator("#seats tbody tr.muted")
    assert dead.count() == 1 and "✗ out: PROVIDER_REJECTED: " in dead.inner_text()
    assert "charlie cannot review" in dead.inner_text()
    assert "judge dropped" in page.inner_text("#seats tbody tr:nth-child(2) td.flag")
    assert "Degraded (stage1): seat fake/charlie did not review" in page.inner_text("#banners")
    assert page.locator("#cost meter.gauge").get_attribute("value") is not None
    assert "of the $0.5000 --max-cost ceiling (1%)" in page.inner_text("#cost .gauge-line")

    broken, future = tmp_path / "broken", tmp_path / "future"
    broken.mkdir()
    future.mkdir()
    (broken / "run.json").write_text("{not json", encoding="utf-8")
    (future / "run.json").write_text(json.dumps({"schemaVersion": 3, "type": "council-run", "runId": "future"}), encoding="utf-8")
    write_pointer(SessionStore(project), "broken", RunDir(broken))
    write_pointer(SessionStore(project), "future", RunDir(future))
    page.goto(served.base + "?run=broken")
    banner = page.wait_for_selector(".banner.error")
    assert "This run cannot be read:" in banner.inner_text() and "is not valid JSON" in banner.inner_text()
    assert f"run directory: {broken}" in banner.inner_text()
    assert not page.is_visible("#run-view") and not page.is_visible("#fold-button")
    page.goto(served.base + "?run=future")
    banner = page.wait_for_selector(".banner.error")
    assert "different amicus schema version (found 3, this workspace reads 2); it is not rendered" in banner.inner_text()
    page.goto(served.base + "?run=nope")
    assert "no council run 'nope'" in page.wait_for_selector(".banner.error").inner_text()


def test_the_run_list(page: Any, finished: Run, brief: Path, tmp_path: Path, serve: Any) -> None:
    run_finished(finished.project, tmp_path / "second", brief, BENCH, run_id="done2")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "run.json").write_text("[]", encoding="utf-8")
    write_pointer(SessionStore(finished.project), "broken", RunDir(broken))
    served = serve(finished.project)
    page.goto(served.url)
    page.wait_for_selector("#run-list tbody tr")
    rows = [r.split("\t") for r in texts(page, "#run-list tbody tr")]
    assert [r[0] for r in rows] == ["done2", "done1", "broken"]
    assert [(r[2], r[3], r[4]) for r in rows[:2]] == [("complete", "Fix these first", "$0.0084")] * 2
    assert rows[2][2] == "unreadable"
    assert not page.is_visible("#blind-toggle")
    page.click("#run-list a >> text=done1")
    page.wait_for_selector("#matrix tbody tr")
    assert page.url.endswith("/?run=done1") and page.inner_text("#run-title") == "Run done1"


def test_overrides_decisions_and_the_row_cap(page: Any, finished: Run, serve: Any, capsys: Any) -> None:
    decisions = finished.run_dir.parent / "decisions.json"
    decisions.write_text(json.dumps([{"id": "A2", "decision": "accepted", "applied": True, "tierOverride":
                                      {"from": "Contested", "to": "Confirmed", "reason": "checked by hand"}}]), encoding="utf-8")
    assert cli_main(["council", "verdict", str(finished.run_dir / "tally.json"), "--decisions", str(decisions),
                     "-o", str(finished.run_dir / "verdict.json")]) == 0
    capsys.readouterr()
    served = serve(finished.project, "done1")
    open_run(page, served)
    assert texts(page, "#matrix .badge.override") == ["override Contested → Confirmed"]
    assert page.get_attribute("#matrix tbody tr:nth-child(2)", "class") == "tier-confirmed"
    assert texts(page, "#decisions tbody tr") == ["A2\taccepted\tyes\t—\tContested → Confirmed (checked by hand)"]

    verdict = json.loads((finished.run_dir / "verdict.json").read_text(encoding="utf-8"))
    template = verdict["findings"][2]
    verdict["findings"] = [{**template, "id": f"B{i}"} for i in range(1, 601)]
    (finished.run_dir / "verdict.json").write_text(json.dumps(verdict), encoding="utf-8")
    page.reload()
    page.wait_for_selector("#matrix .cap")
    assert page.inner_text("#matrix .cap") == "Showing 500 of 600 findings."
    assert page.locator("#matrix tbody tr").count() == 500


def test_the_evidence_check_is_shown_beside_every_finding(page: Any, finished: Run, serve: Any) -> None:
    """Issue 30: this bench's reviews quote nothing, so every finding reads `absent`, as text."""
    served = serve(finished.project, "done1")
    open_run(page, served)
    page.wait_for_selector("#matrix tbody tr")
    assert texts(page, "#matrix td.claim .evidence-check") == ["evidence check: absent — no evidence given"] * 4
    assert page.locator("#matrix td.claim .evidence-check.check-absent").count() == 4
    assert page.errors == []
