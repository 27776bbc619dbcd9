"""The workspace data layer: one snapshot of a real run directory, read-only and honest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from workspace_helpers import BENCH, MODEL_NAMES, Run
from fakeprovider import chat, error
from workspace_helpers import member, review, run_finished, tree_digest

from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine.control import ENGINE_DIED
from amicus_mcp.engine.run_dir import RunDir, write_pointer
from amicus_mcp.engine.store import SessionStore
from amicus_mcp.errors import BadArgs, BadSession
from amicus_mcp.workspace.matrix import MAX_ROWS, matrix_panel, revote_index
from amicus_mcp.workspace.snapshot import list_snapshot, run_snapshot


def snap_of(run: Run) -> dict:
    return run_snapshot(SessionStore(run.project), run.run_id)


def rows_by_id(snap: dict) -> dict[str, dict]:
    return {row["id"]: row for row in snap["matrix"]["rows"]}


def test_a_finished_run(finished: Run) -> None:
    snap = snap_of(finished)
    assert (snap["state"], snap["live"], snap["runDir"]) == ("ok", False, str(finished.run_dir))
    assert snap["resume"] is None  # a finished run is not resumed
    matrix = snap["matrix"]
    assert [c["key"] for c in matrix["columns"]] == BENCH
    assert [c["seat"] for c in matrix["columns"]] == BENCH
    rows = rows_by_id(snap)
    assert {i: (r["tier"], r["basis"], r["thin"]) for i, r in rows.items()} == {
        "A1": ("Disputed", "a0/d2/n0", False), "A2": ("Contested", "a1/d1/n0", False),
        "B1": ("Confirmed", "a2/d0/n0", False), "C1": ("Confirmed", "a1/d0/n1", True)}
    assert [(v["kind"], v["raiser"]) for v in rows["A1"]["votes"]] == [
        ("agree", True), ("dispute", False), ("dispute", False)]
    assert rows["A1"]["claim"].startswith("<img src=x onerror=") and rows["A1"]["location"] == "cache.py:10"
    assert (matrix["judges"], matrix["peersReduced"], matrix["total"], matrix["shown"]) == (3, False, 4, 4)

    seats = {s["key"]: s for s in snap["seats"]}
    assert list(seats) == [*BENCH, "chair"]
    assert [seats[k]["label"] for k in BENCH] == ["Review A", "Review B", "Review C"]
    assert all(seats[k]["calls"] == 2 and seats[k]["status"] == "complete" and not seats[k]["dead"] for k in BENCH)
    assert seats["fake/alpha"]["tokens"]["text"] == "3,200 in / 700 out"
    assert seats["fake/alpha"]["cost"]["text"] == "$0.0024"
    assert seats["chair"]["resolvedModels"] == ["vendor/chair-1"]
    assert snap["cost"]["total"]["text"] == "$0.0084" and snap["cost"]["maxCost"] is None

    assert [(r["seat"], r["label"], r["file"]) for r in snap["reviews"]] == [
        ("fake/alpha", "Review A", "review-fake-alpha.md"), ("fake/bravo", "Review B", "review-fake-bravo.md"),
        ("fake/charlie", "Review C", "review-fake-charlie.md")]
    assert "<script>window.__pwned" in snap["reviews"][0]["text"]
    assert snap["bundle"]["text"] == (finished.run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    assert [j["seat"] for j in snap["judges"]] == BENCH
    assert snap["chair"]["verdict"] == "Fix these first" and snap["chair"]["reason"] is None
    assert snap["chair"]["output"]["text"].startswith("Synthesis")
    assert [s["name"] for s in snap["streetCred"]] == BENCH
    assert snap["decisions"] == [] and snap["fold"] == {"folded": False, "available": True}
    assert [s["status"] for s in snap["stages"]] == ["complete"] * 5


def test_blind_masks_cover_every_model_name(finished: Run) -> None:
    masks = dict(snap_of(finished)["masks"])
    assert set(MODEL_NAMES) <= set(masks)
    assert masks["fake/alpha"] == masks["vendor/alpha-1"] == masks["fake-alpha"] == "Review A"
    assert masks["fake/charlie"] == "Review C"
    assert masks["fake/chair"] == masks["vendor/chair-1"] == "Chair"
    names = [name for name, _ in snap_of(finished)["masks"]]
    assert names == sorted(names, key=lambda n: (-len(n), n))  # longest first, so no name eats a longer one


def test_the_workspace_never_writes(finished: Run) -> None:
    before = tree_digest(finished.run_dir)
    store = SessionStore(finished.project)
    run_snapshot(store, finished.run_id)
    list_snapshot(store)
    assert tree_digest(finished.run_dir) == before


def test_a_dead_engine_is_shown_as_an_error_without_writing(finished: Run) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    doc = json.loads((finished.run_dir / "run.json").read_text(encoding="utf-8"))
    doc.update(status="running", pid=int(gone.stdout))
    (finished.run_dir / "run.json").write_text(json.dumps(doc), encoding="utf-8")
    before = tree_digest(finished.run_dir)
    snap = snap_of(finished)
    assert (snap["live"], snap["header"]["status"], snap["header"]["crashDetected"]) == (False, "error", True)
    assert snap["header"]["error"] == {"code": "INTERNAL", "message": ENGINE_DIED}
    assert snap["resume"] == f"amicus council resume {finished.run_dir}"  # a hint, never run
    assert tree_digest(finished.run_dir) == before


def fake_run(project: Path, run_id: str, run_dir: Path, manifest: str | None) -> None:
    run_dir.mkdir(parents=True)
    if manifest is not None:
        (run_dir / "run.json").write_text(manifest, encoding="utf-8")
    write_pointer(SessionStore(project), run_id, RunDir(run_dir))


def test_unreadable_and_other_schema_runs_are_reported_not_guessed(project: Path, tmp_path: Path) -> None:
    store = SessionStore(project)
    fake_run(project, "broken", tmp_path / "broken", "{not json")
    fake_run(project, "missing", tmp_path / "missing", None)
    fake_run(project, "future", tmp_path / "future",
             json.dumps({"schemaVersion": 3, "type": "council-run", "runId": "future", "createdAt": "2027-01-01T00:00:00Z"}))
    fake_run(project, "alien", tmp_path / "alien", json.dumps({"type": "wave"}))

    broken = run_snapshot(store, "broken")
    assert (broken["state"], broken["live"], broken["runDir"]) == ("unreadable", False, str(tmp_path / "broken"))
    assert "is not valid JSON" in broken["error"]
    assert "run.json is missing" in run_snapshot(store, "missing")["error"]
    assert "not a council-run manifest" in run_snapshot(store, "alien")["error"]
    future = run_snapshot(store, "future")
    assert (future["state"], future["schemaVersion"], future["expectedSchemaVersion"]) == ("schema-mismatch", 3, 2)
    assert "matrix" not in future and "seats" not in future

    listed = list_snapshot(store)
    assert {r["runId"]: r["state"] for r in listed["runs"]} == {
        "broken": "unreadable", "missing": "unreadable", "future": "schema-mismatch", "alien": "unreadable"}
    assert listed["runs"][0]["runId"] == "future"  # the only one with a date sorts first


def test_unknown_and_malformed_run_ids(project: Path) -> None:
    store = SessionStore(project)
    with pytest.raises(BadSession, match="no council run 'nope'"):
        run_snapshot(store, "nope")
    with pytest.raises(BadArgs, match="is not a run id"):
        run_snapshot(store, "../etc")


def test_files_come_from_the_seat_table_only(finished: Run) -> None:
    (finished.run_dir / "review-intruder.md").write_text("planted", encoding="utf-8")
    (finished.run_dir / "judge-chair.md").write_text("planted", encoding="utf-8")
    snap = snap_of(finished)
    assert [r["file"] for r in snap["reviews"]] == [f"review-fake-{n}.md" for n in ("alpha", "bravo", "charlie")]
    assert [j["file"] for j in snap["judges"]] == [f"judge-fake-{n}.md" for n in ("alpha", "bravo", "charlie")]

    doc = json.loads((finished.run_dir / "run.json").read_text(encoding="utf-8"))
    doc["seats"][1]["id"] = "fake#alpha"  # sanitizes onto fake/alpha's file stem
    (finished.run_dir / "run.json").write_text(json.dumps(doc), encoding="utf-8")
    snap = snap_of(finished)
    assert [r["seat"] for r in snap["reviews"]] == ["fake/charlie"]
    assert any("review-fake-alpha.md is claimed by seats fake/alpha, fake#alpha" in n for n in snap["banners"]["integrity"])


def test_no_chair_verdict_carries_the_engine_reason(fake, project: Path, brief: Path, tmp_path: Path) -> None:
    for name in ("alpha", "bravo"):
        member(fake, name, review_text=review(f"{name} prose", [("major", f"{name} claim", "x")]))
    member(fake, "chair", review_text="unused", chair=error(400, "chair is down"))
    doc = run_finished(project, tmp_path / "run", brief, ["fake/alpha", "fake/bravo"], run_id="nochair")
    assert doc["overallVerdict"] is None
    snap = run_snapshot(SessionStore(project), "nochair")
    assert snap["chair"]["verdict"] is None
    assert "no promotion candidate exists" in snap["chair"]["reason"]  # no fallback was ever launched
    assert [a["outcome"] for a in snap["chair"]["attempts"]] == ["error", "error"]


def test_a_dropped_judge_makes_the_tally_peers_reduced(fake, project: Path, brief: Path, tmp_path: Path) -> None:
    member(fake, "alpha", review_text=review("alpha prose", [("major", "alpha claim", "x")]))
    member(fake, "bravo", review_text=review("bravo prose", [("major", "bravo claim", "y")]),
           judge=chat("no block at all"), **{"other": chat("still no block")})
    member(fake, "chair", review_text="unused")
    run_finished(project, tmp_path / "run", brief, ["fake/alpha", "fake/bravo"], run_id="thin1")
    snap = run_snapshot(SessionStore(project), "thin1")
    assert (snap["matrix"]["peersReduced"], snap["matrix"]["judges"]) == (True, 1)
    seats = {s["key"]: s for s in snap["seats"]}
    assert (seats["fake/bravo"]["judgeDropped"], seats["fake/alpha"]["judgeDropped"]) == (True, False)
    assert seats["fake/bravo"]["retries"] == 2  # its two judge repairs
    assert any(d["channel"] == "stage2" for d in snap["banners"]["degrades"])


def test_a_dead_seat_is_flagged_with_its_reason(fake, project: Path, brief: Path, tmp_path: Path) -> None:
    for name in ("alpha", "bravo"):
        member(fake, name, review_text=review(f"{name} prose", [("major", f"{name} claim", "x")]))
    member(fake, "charlie", review_text="unused", stage1=error(400, "charlie cannot review"))
    member(fake, "chair", review_text="unused")
    run_finished(project, tmp_path / "run", brief, ["fake/alpha", "fake/bravo", "fake/charlie"], run_id="dead1")
    snap = run_snapshot(SessionStore(project), "dead1")
    seats = {s["key"]: s for s in snap["seats"]}
    assert seats["fake/charlie"]["dead"] and "charlie cannot review" in seats["fake/charlie"]["deadReason"]
    assert seats["fake/charlie"]["label"] == "Seat 3"  # never labelled: it wrote no review
    assert not seats["fake/alpha"]["dead"] and seats["fake/bravo"]["label"] == "Review B"
    # Out of the council, it has no review to anchor on: blind mode keeps its name, so its provider
    # error reads as written, never "failed for model 'Seat 3'".
    assert "fake/charlie" not in dict(snap["masks"]) and dict(snap["masks"])["fake/alpha"] == "Review A"


def test_a_lost_seat_is_shown_once(fake, project: Path, brief: Path, tmp_path: Path) -> None:
    """run.json notes each degrade as a notice too; the page's banners show it once, as the loss."""
    for name in ("alpha", "bravo"):
        member(fake, name, review_text=review(f"{name} prose", [("major", f"{name} claim", "x")]))
    member(fake, "charlie", review_text="unused", stage1=error(400, "charlie cannot review"))
    member(fake, "chair", review_text="unused")
    doc = run_finished(project, tmp_path / "run", brief, ["fake/alpha", "fake/bravo", "fake/charlie"], run_id="lost1")
    banners = run_snapshot(SessionStore(project), "lost1")["banners"]
    lost = [f"{d['what']}: {d['why']}" for d in banners["degrades"]]
    assert lost and set(lost) <= set(doc["notices"])  # run.json says it twice …
    assert not set(lost) & set(banners["notices"])  # … the page once


def test_stage4_decisions_and_overrides(finished: Run, capsys: pytest.CaptureFixture[str]) -> None:
    decisions = finished.run_dir.parent / "decisions.json"
    decisions.write_text(json.dumps([{"id": "A2", "decision": "accepted", "applied": True,
                                      "tierOverride": {"from": "Contested", "to": "Confirmed", "reason": "checked by hand"}},
                                     {"id": "A1", "decision": "denied"}]), encoding="utf-8")
    code = cli_main(["council", "verdict", str(finished.run_dir / "tally.json"), "--decisions", str(decisions),
                     "--overall-verdict", "Fix these first", "-o", str(finished.run_dir / "verdict.json")])
    capsys.readouterr()
    assert code == 0
    snap = snap_of(finished)
    a2 = rows_by_id(snap)["A2"]
    assert (a2["tier"], a2["override"]) == ("Confirmed", {"from": "Contested", "to": "Confirmed", "reason": "checked by hand"})
    assert [(d["id"], d["decision"], d["applied"]) for d in snap["decisions"]] == [
        ("A1", "denied", False), ("A2", "accepted", True)]


def test_a_missing_verdict_is_rebuilt_from_the_tally(finished: Run) -> None:
    (finished.run_dir / "verdict.json").write_text("{broken", encoding="utf-8")
    snap = snap_of(finished)
    assert rows_by_id(snap)["A1"]["tier"] == "Disputed"
    assert any("verdict.json could not be read" in n for n in snap["banners"]["integrity"])


def test_the_matrix_is_capped() -> None:
    findings = [{"id": f"A{i}", "raiser": "a", "severity": "minor", "tier": "Confirmed", "basis": {"a": 1, "d": 0, "n": 0},
                 "confidence": "thin", "tierOverride": None, "adjudications": [{"judge": "b", "verdict": "agree"}]}
                for i in range(1, MAX_ROWS + 101)]
    panel = matrix_panel({"council": ["a", "b"], "findings": findings}, None, [], None, {})
    assert (panel["total"], panel["shown"], len(panel["rows"])) == (600, 500, 500)
    assert panel["peersReduced"] is True and panel["judges"] == 1


def test_debate_revotes_attach_to_their_cells(debated: Run) -> None:
    snap = snap_of(debated)
    a1 = rows_by_id(snap)["A1"]
    assert (a1["tier"], a1["debate"]) == ("Contested", {"action": "defended", "previousTier": "Disputed"})
    assert [(v["kind"], (v["revote"] or {}).get("reason")) for v in a1["votes"]] == [
        ("agree", None), ("agree", "the defense showed the write path"), ("dispute", "unconvinced")]
    assert a1["votes"][1]["revote"] == {"verdict": "agree", "reason": "the defense showed the write path",
                                        "seat": "fake/bravo", "previousVerdict": "dispute"}
    assert [r["seat"] for r in snap["revotes"]] == ["fake/bravo", "fake/charlie"]
    assert snap["revotes"][0]["text"].startswith("A1: the defense convinced me.")
    assert snap["debate"]["outcome"] == "ran"
    assert revote_index({"findings": ["junk", {"id": "B1", "revotes": [{"verdict": "agree"}, "junk"]}]}) == {}


def test_the_run_list_is_newest_first(finished: Run, brief: Path, tmp_path: Path) -> None:
    run_finished(finished.project, tmp_path / "second", brief, BENCH, run_id="done2")
    listed = list_snapshot(SessionStore(finished.project))
    assert [r["runId"] for r in listed["runs"]] == ["done2", "done1"]
    assert listed["live"] is False
    first = listed["runs"][1]
    assert (first["status"], first["overallVerdict"], first["cost"], first["state"]) == (
        "complete", "Fix these first", "$0.0084", "ok")


def test_the_cost_gauge_against_max_cost(fake, project: Path, brief: Path, tmp_path: Path) -> None:
    for name in ("alpha", "bravo"):
        member(fake, name, review_text=review(f"{name} prose", [("major", f"{name} claim", "x")]))
    member(fake, "chair", review_text="unused")
    run_finished(project, tmp_path / "run", brief, ["fake/alpha", "fake/bravo"], run_id="gauge1", max_cost=0.05)
    cost = run_snapshot(SessionStore(project), "gauge1")["cost"]
    assert (cost["maxCost"], cost["maxCostText"], cost["total"]["text"]) == (0.05, "$0.0500", "$0.0060")
    assert cost["fraction"] == pytest.approx(0.12)
    assert [(r["name"], r["cost"]["text"]) for r in cost["rows"]] == [
        ("fake/alpha", "$0.0024"), ("fake/bravo", "$0.0024"), ("fake/chair", "$0.0012")]


def test_claudes_own_review_holds_the_last_label(fake, project: Path, brief: Path, tmp_path: Path) -> None:
    for name in ("alpha", "bravo"):
        member(fake, name, review_text=review(f"{name} prose", [("major", f"{name} claim", "x")]))
    member(fake, "chair", review_text="unused")
    claude = tmp_path / "claude-review.md"
    claude.write_text(review("Claude's own view.", [("minor", "claude claim", "z")]), encoding="utf-8")
    run_finished(project, tmp_path / "run", brief, ["fake/alpha", "fake/bravo"], run_id="claude1",
                 claude_review=str(claude))
    snap = run_snapshot(SessionStore(project), "claude1")
    assert [(r["seat"], r["label"], r["file"]) for r in snap["reviews"]] == [
        ("fake/alpha", "Review A", "review-fake-alpha.md"), ("fake/bravo", "Review B", "review-fake-bravo.md"),
        ("claude", "Review C", "review-claude.md")]
    assert snap["banners"]["integrity"] == []
    assert dict(snap["masks"])["claude"] == "Review C"
    assert "C1" in rows_by_id(snap)


def test_a_twin_bench_is_told_apart_by_seat(fake, project: Path, brief: Path, tmp_path: Path) -> None:
    for name in ("alpha", "bravo"):
        member(fake, name, review_text=review(f"{name} prose", [("major", f"{name} claim", "x")]))
    member(fake, "chair", review_text="unused")
    run_finished(project, tmp_path / "run", brief, ["fake/alpha", "fake/alpha", "fake/bravo"], run_id="twins1")
    snap = run_snapshot(SessionStore(project), "twins1")
    twins = ["fake/alpha#1", "fake/alpha#2", "fake/bravo"]
    assert [c["key"] for c in snap["matrix"]["columns"]] == twins
    assert [(r["seat"], r["label"], r["file"]) for r in snap["reviews"]] == [
        ("fake/alpha#1", "Review A", "review-fake-alpha-1.md"), ("fake/alpha#2", "Review B", "review-fake-alpha-2.md"),
        ("fake/bravo", "Review C", "review-fake-bravo.md")]
    masks = dict(snap["masks"])
    assert (masks["fake/alpha#1"], masks["fake/alpha#2"], masks["fake/alpha"]) == ("Review A", "Review B", "Review A / Review B")
    assert [s["key"] for s in snap["seats"]] == [*twins, "chair"]


def test_a_debated_runs_first_tally_shows_while_the_round_runs(fake, project: Path, brief: Path, tmp_path: Path) -> None:
    """The debate round (defense, re-vote) is a wait of its own: its first tally is on disk when
    it starts, so the matrix shows then, marked provisional; the run's own tally replaces it."""
    import os
    import threading

    from fakeprovider import Reply
    from workspace_helpers import fenced, wait_for

    gate = threading.Event()
    defense = chat(fenced({"responses": [{"id": "A1", "action": "defend", "argument": "cache.py:10 evicts in put()"}]}))

    def held(body: Any) -> Reply:
        while not gate.is_set() and not fake.stopping.is_set():
            gate.wait(timeout=0.05)
        return defense

    member(fake, "alpha", review_text=review("alpha", [("major", "the cache evicts on write", "cache.py:10")]), defense=held)
    member(fake, "bravo", review_text=review("bravo", [("major", "no metrics", "metrics.py")]), votes={"A1": "dispute"},
           revote=chat(fenced({"revotes": [{"id": "A1", "verdict": "agree", "reason": "convinced"}]})))
    member(fake, "chair", review_text="unused")
    run = subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", "council", "run", "--models", "fake/alpha,fake/bravo",
                            "--chair", "fake/chair", "--prompt-file", str(brief), "--out-dir", str(tmp_path / "live"),
                            "--project", str(project), "--run-id", "debating1", "--debate", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    store = SessionStore(project)
    try:
        def in_round() -> dict[str, Any] | None:
            try:
                snap = run_snapshot(store, "debating1")
            except (BadArgs, BadSession):
                return None
            stages = {s["name"]: s["status"] for s in snap.get("stages", [])}
            return snap if stages.get("debate-defense") == "running" else None

        live = wait_for(in_round, timeout=60, what="the debate round")
        gate.set()
        assert run.wait(timeout=60) in (0, 2), run.communicate()
    finally:
        gate.set()
        run.kill()
        run.communicate()
    assert live["live"] and live["matrix"]["provisional"] is True
    assert [r["id"] for r in live["matrix"]["rows"]] == ["A1", "B1"] and live["banners"]["integrity"] == []
    done = run_snapshot(store, "debating1")
    assert done["matrix"]["provisional"] is False and done["matrix"]["rows"][0]["debate"]["action"] == "defended"


def test_a_damaged_debate_record_is_said_and_not_used(debated: Run) -> None:
    """debate.json is read through its checking reader (RunDir.read_debate): a re-vote word the
    vocabulary does not have makes the record unusable — said among the integrity problems, and no
    cell shows a re-vote from it — rather than drawn as it is."""
    path = debated.run_dir / "debate.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["findings"][0]["revotes"][0]["verdict"] = "maybe"
    path.write_text(json.dumps(record), encoding="utf-8")
    snap = snap_of(debated)
    assert any(n.startswith("debate.json could not be read (") and "not a valid debate record" in n
               for n in snap["banners"]["integrity"]), snap["banners"]["integrity"]
    assert all(v["revote"] is None for v in rows_by_id(snap)["A1"]["votes"])
