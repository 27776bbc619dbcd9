"""Grounded findings end to end (issue 30): a council whose seat fabricates its quote, over the
loopback fake. The check runs after Stage 1 against the material the run read (the briefing and
the project file it names); the fabricated finding reads `not-found` in the tally input,
tally.json, verdict.json, the judges' bundle, the chair's packet and both reports; and the gate
with `--require-evidence` does not let it block."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli
from council_helpers import check_documents, finding, load, member, review
from fakeprovider import chat, prompt_of

from amicus_mcp.council.report import build_report
from amicus_mcp.engine import run_council
from amicus_mcp.engine.options import RunOptions

pytestmark = pytest.mark.anyio

CACHE = ("class Cache:\n"
         "    def put(self, key, value):\n"
         "        self.entries.clear()  # evict everything on write\n"
         "        self.entries[key] = value\n")
BRIEF = "Review the widget cache in src/cache.py: it evicts every entry on every write.\n"
REAL = "self.entries.clear()  # evict everything on write"
FAKE = "self.entries.evict_all(force=True)"


def seat(tag: str, **fields: Any) -> str:
    return review(tag, block={"overall": f"{tag} take", "findings": [finding(1, tag, **fields)]})


def fake_verifier(body: Any) -> Any:
    """Refutes a finding whose quote the check could not find, upholds the rest, citing a line."""
    prompt = prompt_of(body)
    refuted = "evidence check (a mechanical lookup of that quote in the material): evidence not found" in prompt
    block = {"answer": "refuted" if refuted else "holds", "lines": ["src/cache.py:3"],
             "reason": "line 3 clears the entries; no evict_all exists" if refuted else "line 3 clears every entry"}
    return chat(f"Checked against the source.\n\n```json\n{json.dumps(block)}\n```\n")


async def grounded_run(fake: Any, project: Path, run_dir: Path, **options: Any) -> tuple[dict[str, Any], int]:
    (project / "src").mkdir()
    (project / "src" / "cache.py").write_text(CACHE, encoding="utf-8")
    brief = project / "briefing.md"
    brief.write_text(BRIEF, encoding="utf-8")
    # a quotes the file at the right line; b fabricates its quote (the only blocker); c quotes a real
    # line at the wrong place; d gives no quote at all.
    member(fake, "a", stage1=chat(seat("seat-a", severity="major", location="src/cache.py:3", evidence=REAL)))
    member(fake, "b", stage1=chat(seat("seat-b", severity="blocker", location="src/cache.py:3", evidence=FAKE)))
    member(fake, "c", stage1=chat(seat("seat-c", severity="minor", location="src/cache.py:40",
                                       evidence="self.entries[key] = value")))
    member(fake, "d", stage1=chat(seat("seat-d", severity="minor")))
    member(fake, "chair", verifier=fake_verifier)
    opts = RunOptions(prompt_file=str(brief), models=["fake/a", "fake/b", "fake/c", "fake/d"], chair="fake/chair",
                      project=str(project), out_dir=str(run_dir), **options)
    manifest, code = await run_council(opts)
    return manifest.to_doc(), code


async def test_a_fabricated_quote_reads_not_found_everywhere_and_does_not_block_with_require_evidence(
        fake, project, run_dir):
    run, code = await grounded_run(fake, project, run_dir)
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    expected = {"A1": ("verified", "src/cache.py:3"), "B1": ("not-found", None),
                "C1": ("moved", "src/cache.py:4"), "D1": ("absent", None)}

    for name in ("tally-input.json", "tally.json"):
        found = {f["id"]: (f.get("evidenceCheck"), f.get("evidenceLocation")) for f in load(run_dir, name)["findings"]}
        assert found == expected, name
    assert load(run_dir, "tally.json")["findings"][1]["evidence"] == FAKE
    verdict = load(run_dir, "verdict.json")
    assert {f["id"]: f.get("evidenceCheck") for f in verdict["findings"]} == {k: v[0] for k, v in expected.items()}
    assert {f["id"]: f["tier"] for f in verdict["findings"]}["B1"] == "Confirmed"  # the votes alone confirm it

    # The judges voted knowing the check; the chair read it too, marked.
    bundle = (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    b1 = bundle.split("- **B1** (blocker)", 2)[2]  # its block under Review B (the first is the index line)
    assert f"  - evidence: “{FAKE}”\n  - evidence check: evidence not found in the material\n" in b1
    assert "  - evidence check: evidence verified in the material (at src/cache.py:3)" in bundle
    assert "  - evidence check: no evidence given" in bundle
    packet = (run_dir / "chair-packet.md").read_text(encoding="utf-8")
    assert "evidence check: evidence not found in the material — UNVERIFIED" in packet
    assert "evidence check: no evidence given — UNVERIFIED" in packet
    assert "found elsewhere in the material (at src/cache.py:4)\n" in packet  # moved: not marked unverified

    # Both reports show it beside the finding.
    record = load(run_dir, "tally.json")
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert 'evidence check: <strong>not-found</strong> — evidence not found in the material' in html
    assert f"evidence: <q>{FAKE}</q>" in html
    md = build_report(verdict, fmt="md", record=record)
    assert "  - evidence check: **not-found** — evidence not found in the material" in md
    assert "  - evidence check: **moved** — evidence found elsewhere in the material (at src/cache.py:4)" in md

    # amicus_read's report (the run's Markdown rendered with its record) and the workspace / inline
    # view's snapshot (both render the matrix rows through app.js) carry it too.
    from amicus_mcp.mcp.reading import _run_source
    from amicus_mcp.workspace.snapshot import snapshot_of

    read = _run_source(run_dir, run["runId"], None).text
    assert "  - evidence check: **not-found** — evidence not found in the material" in read
    rows = {r["id"]: r for r in snapshot_of(run_dir, run["runId"])["matrix"]["rows"]}
    assert (rows["B1"]["evidenceCheck"], rows["B1"]["evidence"]) == ("not-found", FAKE)
    assert rows["B1"]["evidenceText"] == "evidence not found in the material"
    assert rows["C1"]["evidenceText"] == "evidence found elsewhere in the material (at src/cache.py:4)"

    # The gate: the fabricated blocker fails confirmed-blocker on votes alone, and does not block
    # on its own with --require-evidence (it is still reported).
    plain = run_cli("council", "gate", str(run_dir), "--fail-on", "confirmed-blocker", "--json")
    assert plain.code == 4, plain
    held = run_cli("council", "gate", str(run_dir), "--fail-on", "confirmed-blocker", "--require-evidence", "--json")
    doc = json.loads(held.out)
    assert held.code == 0 and doc["passed"] is True, held
    assert doc["requireEvidence"] is True and doc["heldBack"] == ["B1"]
    assert doc["blockers"] == [{"id": "B1", "tier": "Confirmed", "raiser": "fake/b", "evidenceCheck": "not-found"}]
    assert "B1 (evidence not-found)" in doc["reason"]


async def test_with_verify_a_model_that_raised_nothing_refutes_the_fabricated_blocker_and_the_gate_passes(
        fake, project, run_dir):
    run, code = await grounded_run(fake, project, run_dir, verify=True)
    assert (code, run["status"]) == (0, "complete"), run.get("error")
    check_documents(run_dir, run)
    # Confirmed/Contested blocker or major findings only: A1 (major) and B1 (blocker), on the chair's model.
    legs = [(leg["id"].rsplit("-", 1)[1], leg["stage"], leg["role"], leg["model"]) for leg in run["legs"]
            if leg["stage"] == "verify"]
    assert sorted(legs) == [("vf1", "verify", "verifier", "fake/chair"), ("vf2", "verify", "verifier", "fake/chair")]
    assert [s["status"] for s in run["stages"] if s["name"] == "verify"] == ["complete"]
    tally = load(run_dir, "tally.json")
    found = {f["id"]: f.get("verification") for f in tally["findings"]}
    assert found == {"A1": "holds", "B1": "refuted", "C1": None, "D1": None}
    assert {f["id"]: f["tier"] for f in tally["findings"]}["B1"] == "Confirmed"  # the seed's tiers stay the seed's
    assert [r["role"] for r in tally["runStats"]].count("verifier") == 2  # in the cost table
    verdict = load(run_dir, "verdict.json")
    assert {f["id"]: f.get("verification") for f in verdict["findings"]}["B1"] == "refuted"
    assert any(n.startswith("the verifier refuted B1 (blocker, Confirmed)") for n in verdict["notices"])
    packet = (run_dir / "chair-packet.md").read_text(encoding="utf-8")
    assert "evidence check: evidence not found in the material — REFUTED by the verifier\n" \
           "  - verifier: refuted — line 3 clears the entries; no evict_all exists" in packet
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert 'verifier: <strong>refuted</strong>' in html and "the verifier refuted B1" in html
    # A refuted blocker leaves the blocking set: the gate passes, with --require-evidence too.
    for extra in ((), ("--require-evidence",)):
        gate = run_cli("council", "gate", str(run_dir), "--fail-on", "confirmed-blocker", *extra, "--json")
        doc = json.loads(gate.out)
        assert gate.code == 0 and doc["heldBack"] == ["B1"] and "B1 (refuted by the verifier)" in doc["reason"], gate


async def test_the_verified_scope_is_a_run_option_and_the_cap_says_what_it_left_unverified(fake, project, run_dir):
    # Only blockers: B1 alone is checked; A1 (major) is out of scope, which is no loss.
    run, code = await grounded_run(fake, project, run_dir, verify=True, verify_severities=["blocker"])
    assert (code, run["status"]) == (0, "complete"), run.get("error")
    assert [leg["id"].rsplit("-", 1)[1] for leg in run["legs"] if leg["stage"] == "verify"] == ["vf1"]
    assert {f["id"]: f.get("verification") for f in load(run_dir, "tally.json")["findings"]} == \
        {"A1": None, "B1": "refuted", "C1": None, "D1": None}
    options = load(run_dir, "options.json")
    assert options["verifySeverities"] == ["blocker"] and "verifyTiers" not in options and "verifyMax" not in options


async def test_a_verify_cap_checks_the_most_severe_and_the_run_says_what_it_cut(fake, project, run_dir):
    run, code = await grounded_run(fake, project, run_dir, verify=True, verify_max=1)
    # The blocker is checked; the major one the cap left out is a loss the run names (exit 2).
    assert (code, run["status"]) == (2, "partial"), run.get("error")
    assert [leg["id"].rsplit("-", 1)[1] for leg in run["legs"] if leg["stage"] == "verify"] == ["vf1"]
    assert {f["id"]: f.get("verification") for f in load(run_dir, "tally.json")["findings"]}["B1"] == "refuted"
    [loss] = [d for d in run["degrades"] if d["channel"] == "verify"]
    assert loss["what"] == "1 finding(s) in scope were not verified (A1)"
    assert "--verify-max 1" in loss["why"]
    assert "1 finding(s) in scope were not verified (A1)" in (run_dir / "report.html").read_text(encoding="utf-8")


def test_a_word_outside_the_vocabulary_is_bad_args_naming_the_flag(project):
    brief = project / "briefing.md"
    brief.write_text(BRIEF, encoding="utf-8")
    for flag, value in (("--verify-tiers", "Confirmed,Certain"), ("--verify-severities", "blocker,critical")):
        done = run_cli("council", "run", "--prompt-file", str(brief), "--models", "fake/a,fake/b", "--verify",
                       flag, value, "--project", str(project), "--json")
        assert done.code == 1 and "Traceback" not in done.err, done
        error = done.envelope()["error"]
        assert error["code"] == "BAD_ARGS" and error["message"].startswith(f"{flag} "), error
        assert value.split(",")[1] in error["message"], error
