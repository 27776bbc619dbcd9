"""The evidence check (council/evidence.py): a finding's quote looked up in the material, no model call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amicus_mcp.council.evidence import annotate, check_evidence, diff_sources, text_source
from amicus_mcp.council.findings import validate_findings
from amicus_mcp.council.tally import tally
from amicus_mcp.schemas import schema_errors

DIFF = """diff --git a/src/app.py b/src/app.py
--- a/src/app.py
+++ b/src/app.py
@@ -10,4 +10,5 @@ def f():
 def handler(req):
-    token = req.args["t"]
+    token = req.args.get("t")
+    query = "SELECT * FROM users WHERE id = " + token
     return run(query)
"""
CACHE = "class Cache:\n    def put(self, key, value):\n        self.entries.clear()  # evict everything\n" \
        "        self.entries[key] = value\n"


def material():
    return [*diff_sources(DIFF), text_source("src/cache.py", CACHE), text_source("briefing", "Review it.\n" + DIFF)]


@pytest.mark.parametrize("evidence, location, expected", [
    # at the stated file and line, whitespace and curly quotes normalised, a diff marker kept
    ('query = "SELECT * FROM users WHERE id = " + token', "src/app.py:12", ("verified", "src/app.py:12")),
    ("+    query = “SELECT * FROM users WHERE id = ” + token", "app.py line 12", ("verified", "src/app.py:12")),
    # the old side of the diff, numbered by the hunk header
    ('token = req.args["t"]', "src/app.py:11", ("verified", "src/app.py (old side):11")),
    # within LINE_SLACK of the stated line
    ("self.entries.clear()", "cache.py:5", ("verified", "src/cache.py:3")),
    # a location with no file and no line: verified where it is
    ("self.entries.clear()", "the put method", ("verified", "src/cache.py:3")),
    # across lines, with an ellipsis
    ("def put(self, key, value): ... self.entries[key] = value", "src/cache.py:2-4", ("verified", "src/cache.py:2-4")),
    # the right file, the wrong lines: moved, the location corrected
    ("self.entries.clear()", "src/cache.py:40", ("moved", "src/cache.py:3")),
    # the wrong file: moved to the file it is in
    ("self.entries.clear()", "src/app.py:11", ("moved", "src/cache.py:3")),
    # not in the material: a fabricated quote
    ("self.entries.evict_all()", "src/cache.py:3", ("not-found", None)),
    ("", "src/cache.py:3", ("absent", None)),
    (None, "src/cache.py:3", ("absent", None)),
    ("```\n```", "x", ("absent", None)),
])
def test_the_check_finds_places_or_refuses_a_quote(evidence, location, expected):
    result = check_evidence(evidence, location, material())
    assert (result.check, result.at) == expected


def test_a_removed_line_that_reads_like_a_header_stays_a_line():
    diff = "--- a/x.sql\n+++ b/x.sql\n@@ -1,2 +1,1 @@\n--- drop me\n keep\n"
    sides = {s.label: s.lines for s in diff_sources(diff)}
    assert sides == {"x.sql": ((1, "keep"),), "x.sql (old side)": ((1, "-- drop me"), (2, "keep"))}


def test_annotate_sets_the_fields_and_a_question_claim_without_a_quote_is_left_alone():
    findings = [{"id": "A1", "evidence": "self.entries.clear()", "location": "src/cache.py:40"},
                {"id": "A2", "location": "x"}]
    annotate(findings, material())
    assert findings[0]["evidenceCheck"] == "moved" and findings[0]["evidenceLocation"] == "src/cache.py:3"
    assert findings[1]["evidenceCheck"] == "absent" and "evidenceLocation" not in findings[1]
    claims = [{"id": "A1", "claim": "c"}]
    annotate(claims, material(), only_quoted=True)
    assert claims == [{"id": "A1", "claim": "c"}]


def test_evidence_is_optional_when_parsing_a_review():
    block = {"overall": "o", "findings": [
        {"id": 1, "severity": "major", "claim": "c", "location": "l", "rationale": "r"},
        {"id": 2, "severity": "minor", "claim": "c", "location": "l", "rationale": "r", "evidence": "q"}]}
    result = validate_findings(f"prose\n\n```json\n{json.dumps(block)}\n```\n")
    assert result["ok"] and result["findings"][1]["evidence"] == "q"


def test_the_tally_echoes_the_evidence_fields_and_its_document_still_matches_the_seed_schema():
    """The seed's council-tally schema closes only `debate`; a finding's item is open, so the
    evidence fields sit on the finding itself (no companion document is needed)."""
    doc = {"meta": {"runId": "r", "models": ["a", "b"]},
           "findings": [{"id": "A1", "raiser": "a", "severity": "blocker", "claim": "c", "evidence": "q",
                         "evidenceCheck": "not-found"},
                        {"id": "A2", "raiser": "a", "severity": "minor", "claim": "c"}],
           "adjudications": [{"findingId": "A1", "judge": "b", "verdict": "agree"}],
           "rankings": []}
    assert schema_errors(doc, "council-tally-input") == []
    record = tally(doc)
    assert schema_errors(record, "council-tally") == []
    first, second = record["findings"]
    assert (first["evidence"], first["evidenceCheck"]) == ("q", "not-found")
    assert not any(k.startswith("evidence") for k in second)  # emit-when-set: an older input is unchanged
    # The seed schema leaves finding items open: nothing needed declaring.
    seed = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "council-tally.schema.json").read_text())
    assert "additionalProperties" not in seed["properties"]["findings"]["items"]


def test_a_question_councils_quoted_claim_is_checked_and_the_judges_see_it():
    from amicus_mcp.council.question_briefings import answers_bundle

    claims = [{"id": "A1", "label": "Answer A", "claim": "put clears the cache", "evidence": "self.entries.clear()"},
              {"id": "A2", "label": "Answer A", "claim": "it is thread-safe"}]
    annotate(claims, material(), only_quoted=True)
    assert claims[0]["evidenceCheck"] == "verified" and "evidenceCheck" not in claims[1]
    bundle = answers_bundle(briefing="Q?", date="2026-12-02", answers=[("Answer A", "prose"), ("Answer B", "p")],
                            details={}, claims=claims)
    assert ("- **A1** put clears the cache\n  - evidence: “self.entries.clear()”\n"
            "  - evidence check: evidence verified in the material (at src/cache.py:3)\n- **A2** it is thread-safe") in bundle
