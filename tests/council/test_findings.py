"""Stage-1 findings validation and the shared last-json-block extractor."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from amicus_mcp.council.findings import (
    FINDINGS_ERROR_CODES,
    count_attempted_findings,
    last_json_block,
    read_last_json_block,
    validate_document,
    validate_findings,
)
from amicus_mcp.schemas import schema_errors

FENCE = "```"


def fenced(body: Any, prose: str = "Prose review.\n\n") -> str:
    """A review: prose, then a ```json block holding `body` (a str is used verbatim)."""
    text = body if isinstance(body, str) else json.dumps(body, indent=2)
    return f"{prose}{FENCE}json\n{text}\n{FENCE}\n"


def finding(fid: Any = 1, **over: Any) -> dict[str, Any]:
    base = {
        "id": fid,
        "severity": "major",
        "claim": "The claim.",
        "location": "file.py:10",
        "rationale": "Because.",
    }
    base.update(over)
    return base


def codes(result: dict[str, Any]) -> list[str]:
    return [e["code"] for e in result["errors"]]


# ------------------------------------------------------------------ last_json_block


class TestLastJsonBlock:
    def test_single_block_body(self) -> None:
        assert last_json_block('x\n```json\n{"a": 1}\n```\n') == '{"a": 1}\n'

    def test_no_opener_is_none(self) -> None:
        assert last_json_block("just prose\n```\ncode\n```\n") is None

    def test_unclosed_opener_is_none(self) -> None:
        assert last_json_block('prose\n```json\n{"a": 1}\n') is None

    def test_opener_needs_a_newline(self) -> None:
        assert last_json_block('```json {"a": 1} ```') is None

    def test_opener_may_carry_trailing_spaces_and_crlf(self) -> None:
        assert json.loads(last_json_block('```json  \t\r\n{"a": 1}\r\n```\r\n')) == {"a": 1}

    def test_last_parseable_block_wins(self) -> None:
        text = fenced({"n": 1}) + fenced({"n": 2})
        assert json.loads(last_json_block(text)) == {"n": 2}

    def test_later_unparseable_block_falls_back_to_earlier_good_one(self) -> None:
        text = fenced({"n": 1}) + fenced("{not json")
        assert json.loads(last_json_block(text)) == {"n": 1}

    def test_truncated_last_block_falls_back_to_earlier_good_one(self) -> None:
        text = fenced({"n": 1}) + '```json\n{"n": 2, "cut'
        assert json.loads(last_json_block(text)) == {"n": 1}

    def test_none_parse_returns_last_openers_primary_body(self) -> None:
        text = fenced("{first bad") + fenced("{second bad")
        assert last_json_block(text) == "{second bad\n"

    def test_fence_inside_a_json_string_does_not_cut_the_block(self) -> None:
        body = {"claim": "wrap it in ``` fences", "n": 3}
        text = "```json\n" + json.dumps(body) + "\n```\n"
        assert json.loads(last_json_block(text)) == body

    def test_block_closed_mid_line_reads_via_any_fence(self) -> None:
        assert json.loads(last_json_block('```json\n{"a": 1}```\nmore prose\n')) == {"a": 1}

    def test_indented_block_reads_via_any_fence(self) -> None:
        text = '- item\n  ```json\n  {"a": 1}\n  ```\n'
        assert json.loads(last_json_block(text)) == {"a": 1}

    def test_unparseable_without_line_start_fence_returns_any_fence_body(self) -> None:
        assert last_json_block("```json\n{bad```") == "{bad"

    def test_javascript_incompatible_constants_do_not_parse(self) -> None:
        found = read_last_json_block(fenced('{"x": NaN}'))
        assert found.error is not None and found.error["code"] == "NOT_PARSEABLE"

    def test_read_reports_no_block(self) -> None:
        assert read_last_json_block("nothing").error == {
            "code": "NO_FENCED_BLOCK",
            "detail": "no ```json block found",
        }

    def test_read_decodes_value(self) -> None:
        found = read_last_json_block(fenced([1, 2]))
        assert found.error is None and found.value == [1, 2]

    def test_absurd_nesting_is_unparseable_not_a_crash(self) -> None:
        found = read_last_json_block(fenced("[" * 100_000 + "]" * 100_000))
        assert found.error is not None and found.error["code"] == "NOT_PARSEABLE"


# ---------------------------------------------------------------- validate_findings


SEED_OK = (
    '{ "ok": true, "findings": [ { "id": 1, "severity": "major", "claim": "The three-tier '
    'pricing table omits a monthly/annual toggle.", "location": "pricing-page.html, '
    '.pricing-table section", "rationale": "Users can\'t compare annual savings without it, '
    'and competitors all show one." } ], "errors": [] }'
)
SEED_NO_BLOCK = (
    '{ "ok": false, "findings": [], "errors": [ { "code": "NO_FENCED_BLOCK", "detail": '
    '"no ```json block found" } ] }'
)


def same_tokens(doc: Any, seed_text: str) -> bool:
    """Pretty-printed `doc` equals the seed's (whitespace-collapsed) rendering."""
    return " ".join(json.dumps(doc, indent=2).split()) == " ".join(seed_text.split())


class TestSeedExamples:
    def test_valid_review_output_matches_seed(self) -> None:
        seed_findings = json.loads(SEED_OK)["findings"]
        review = fenced({"overall": "One real gap.", "findings": seed_findings})
        result = validate_findings(review)
        assert same_tokens(result, SEED_OK)

    def test_no_block_output_matches_seed(self) -> None:
        result = validate_findings("A review with no fenced block at all.")
        assert same_tokens(result, SEED_NO_BLOCK)


class TestValidateFindings:
    def test_valid_findings_are_echoed_as_parsed(self) -> None:
        items = [finding(1, extra="kept"), finding(2, severity="nit")]
        result = validate_findings(fenced({"overall": "Two issues.", "findings": items}))
        assert result == {"ok": True, "findings": items, "errors": []}

    def test_clean_review_is_valid(self) -> None:
        result = validate_findings(fenced({"overall": "Read it all; nothing wrong.", "findings": []}))
        assert result == {"ok": True, "findings": [], "errors": []}

    def test_nonempty_findings_do_not_need_overall(self) -> None:
        assert validate_findings(fenced({"findings": [finding()]}))["ok"]

    def test_no_fenced_block(self) -> None:
        result = validate_findings("prose\n```python\nx = 1\n```\n")
        assert result["errors"] == [{"code": "NO_FENCED_BLOCK", "detail": "no ```json block found"}]

    def test_not_parseable(self) -> None:
        result = validate_findings(fenced('{"findings": [}'))
        assert codes(result) == ["NOT_PARSEABLE"]
        assert result["errors"][0]["detail"].startswith("the last ```json block is not valid JSON: ")

    @pytest.mark.parametrize("body", ["null", "false", "0", '""'])
    def test_a_null_body_holds_no_findings_object(self, body: str) -> None:
        # Issue 28 (the original's `!parsed`): a block that is literally null holds nothing to read.
        result = validate_findings(fenced(body))
        assert codes(result) == ["NOT_PARSEABLE"]
        assert result["errors"][0]["detail"] == f"the last ```json block is {body}: it holds no object"

    @pytest.mark.parametrize("body", ["123", "[]", '"text"', "true", "[1]"])
    def test_non_object_bodies_have_no_findings_array(self, body: str) -> None:
        # Seed 000 (issue 12): it parses to a value, so not NOT_PARSEABLE; it has no findings array.
        result = validate_findings(fenced(body))
        assert codes(result) == ["EMPTY_FINDINGS"]
        assert "not an object with a findings array" in result["errors"][0]["detail"]

    def test_missing_findings_key(self) -> None:
        result = validate_findings(fenced({"overall": "fine"}))
        assert codes(result) == ["EMPTY_FINDINGS"]
        assert "findings is missing" in result["errors"][0]["detail"]

    def test_empty_object_is_empty_findings(self) -> None:
        assert codes(validate_findings(fenced({}))) == ["EMPTY_FINDINGS"]

    @pytest.mark.parametrize("value, word", [({}, "object"), ("none", "string"), (None, "null")])
    def test_findings_not_an_array(self, value: Any, word: str) -> None:
        result = validate_findings(fenced({"overall": "x", "findings": value}))
        assert result["errors"] == [
            {"code": "EMPTY_FINDINGS", "detail": f"findings must be an array, got {word}"}
        ]

    @pytest.mark.parametrize(
        "overall, why",
        [(None, "missing"), ("", "blank"), ("  \n\t", "blank"), (7, "number, not a string"),
         (["a"], "array, not a string")],
    )
    def test_empty_findings_need_a_real_overall(self, overall: Any, why: str) -> None:
        block: dict[str, Any] = {"findings": []}
        if overall is not None:
            block["overall"] = overall
        result = validate_findings(fenced(block))
        assert codes(result) == ["EMPTY_FINDINGS"]
        assert f"overall is {why};" in result["errors"][0]["detail"]

    def test_explicit_null_overall_is_not_a_string(self) -> None:
        result = validate_findings(fenced({"findings": [], "overall": None}))
        assert "overall is null, not a string" in result["errors"][0]["detail"]

    def test_non_sequential_id(self) -> None:
        result = validate_findings(fenced({"findings": [finding(1), finding(3)]}))
        assert result["errors"] == [
            {"code": "NON_SEQUENTIAL_ID", "detail": "finding 2: id 3 should be 2 (ids run 1..n in order)"}
        ]
        assert result["findings"] == []

    def test_ids_must_start_at_one(self) -> None:
        assert codes(validate_findings(fenced({"findings": [finding(0)]}))) == ["NON_SEQUENTIAL_ID"]

    @pytest.mark.parametrize("fid, shown", [(True, "true"), (1.0, "1.0"), ("1", "'1'"), (None, "null")])
    def test_id_must_be_a_json_integer(self, fid: Any, shown: str) -> None:
        result = validate_findings(fenced({"findings": [finding(fid)]}))
        assert result["errors"] == [
            {"code": "NON_SEQUENTIAL_ID", "detail": f"finding 1: id {shown} is not an integer (expected 1)"}
        ]

    def test_missing_id(self) -> None:
        item = finding()
        del item["id"]
        result = validate_findings(fenced({"findings": [item]}))
        assert result["errors"] == [
            {"code": "NON_SEQUENTIAL_ID", "detail": "finding 1: id is missing (expected 1)"}
        ]

    def test_duplicate_id(self) -> None:
        result = validate_findings(fenced({"findings": [finding(1), finding(2), finding(2)]}))
        assert result["errors"] == [
            {"code": "DUPLICATE_ID", "detail": "finding 3: id 2 is already used by finding 2"}
        ]

    def test_duplicate_detection_is_type_exact(self) -> None:
        # true and 1 are different JSON values: the second is wrong, not a repeat.
        result = validate_findings(fenced({"findings": [finding(1), finding(True)]}))
        assert codes(result) == ["NON_SEQUENTIAL_ID"]

    def test_bad_severity_detail(self) -> None:
        result = validate_findings(fenced({"findings": [finding(1), finding(2, severity="high")]}))
        assert result["errors"] == [
            {
                "code": "BAD_SEVERITY",
                "detail": "finding 2: severity 'high' is not one of blocker, major, minor, nit",
            }
        ]

    @pytest.mark.parametrize("severity", ["Major", "MAJOR", " major", 3, None, ["major"]])
    def test_severity_is_exact(self, severity: Any) -> None:
        result = validate_findings(fenced({"findings": [finding(severity=severity)]}))
        assert codes(result) == ["BAD_SEVERITY"]

    def test_missing_severity(self) -> None:
        item = finding()
        del item["severity"]
        result = validate_findings(fenced({"findings": [item]}))
        assert result["errors"][0]["detail"] == (
            "finding 1: severity is missing (one of blocker, major, minor, nit)"
        )

    @pytest.mark.parametrize("field", ["claim", "location", "rationale"])
    def test_missing_field(self, field: str) -> None:
        item = finding()
        del item[field]
        result = validate_findings(fenced({"findings": [item]}))
        assert result["errors"] == [{"code": "MISSING_FIELD", "detail": f"finding 1: {field} is missing"}]

    @pytest.mark.parametrize(
        "value, why", [("", "is blank"), ("   ", "is blank"), (5, "must be a string, got number"),
                       (None, "must be a string, got null")]
    )
    def test_field_must_be_non_empty_string(self, value: Any, why: str) -> None:
        result = validate_findings(fenced({"findings": [finding(claim=value)]}))
        assert result["errors"] == [{"code": "MISSING_FIELD", "detail": f"finding 1: claim {why}"}]

    def test_non_object_finding(self) -> None:
        result = validate_findings(fenced({"findings": [finding(1), "just a string"]}))
        assert result["errors"] == [
            {
                "code": "MISSING_FIELD",
                "detail": "finding 2: is string, not an object with id, severity, claim, location, rationale",
            }
        ]

    def test_every_error_reported_in_finding_then_check_order(self) -> None:
        items = [
            finding(1, severity="bad", claim=""),
            finding(5, location=None),
            finding(5, rationale=" "),
        ]
        result = validate_findings(fenced({"findings": items}))
        assert [(e["code"], e["detail"].split(":")[0]) for e in result["errors"]] == [
            ("BAD_SEVERITY", "finding 1"),
            ("MISSING_FIELD", "finding 1"),
            ("NON_SEQUENTIAL_ID", "finding 2"),
            ("MISSING_FIELD", "finding 2"),
            ("DUPLICATE_ID", "finding 3"),
            ("MISSING_FIELD", "finding 3"),
        ]
        assert result["ok"] is False and result["findings"] == []

    def test_long_model_values_are_cut_in_details(self) -> None:
        result = validate_findings(fenced({"findings": [finding(severity="x" * 500)]}))
        assert len(result["errors"][0]["detail"]) < 150

    def test_last_block_wins_over_an_earlier_invalid_one(self) -> None:
        text = fenced({"findings": [finding(9)]}) + fenced({"findings": [finding(1)]})
        assert validate_findings(text)["ok"]

    def test_later_unparseable_block_does_not_hide_the_good_one(self) -> None:
        text = fenced({"findings": [finding(1)]}) + fenced('{"findings": [oops]}')
        assert validate_findings(text)["findings"] == [finding(1)]


class TestCountAttemptedFindings:
    def test_counts_entries_valid_or_not(self) -> None:
        assert count_attempted_findings(fenced({"findings": [finding(1), "junk", {}]})) == 3

    def test_clean_review_counts_zero(self) -> None:
        assert count_attempted_findings(fenced({"overall": "ok", "findings": []})) == 0

    @pytest.mark.parametrize(
        "text",
        ["no block", fenced("{broken"), fenced({"overall": "x"}), fenced({"findings": {}}),
         fenced("null"), fenced("[1, 2]")],
    )
    def test_none_without_a_findings_array(self, text: str) -> None:
        assert count_attempted_findings(text) is None


class TestValidateDocument:
    def test_wraps_with_family_header(self) -> None:
        result = validate_findings(fenced({"findings": [finding()]}))
        doc = validate_document(result)
        assert list(doc) == ["schemaVersion", "type", "ok", "findings", "errors"]
        assert doc["schemaVersion"] == 2 and doc["type"] == "council-validate"
        assert schema_errors(doc, "council-validate") == []

    @pytest.mark.parametrize(
        "text",
        ["nothing", fenced("{x"), fenced({"overall": "clean", "findings": []}),
         fenced({"findings": [finding(2, severity="bad", claim="")]})],
    )
    def test_every_outcome_matches_the_schema(self, text: str) -> None:
        assert schema_errors(validate_document(validate_findings(text)), "council-validate") == []

    @pytest.mark.parametrize(
        "patch",
        [
            {"ok": True, "errors": [{"code": "NOT_PARSEABLE", "detail": "x"}]},
            {"ok": False, "errors": []},
            {"ok": False, "findings": [finding()], "errors": [{"code": "DUPLICATE_ID", "detail": "x"}]},
            {"ok": False, "errors": [{"code": "MADE_UP", "detail": "x"}]},
            {"findings": [finding(severity="high")]},
            {"findings": [finding(claim=" ")]},
            {"schemaVersion": 1},
            {"type": "council-tally"},
        ],
    )
    def test_schema_rejects_inconsistent_documents(self, patch: dict[str, Any]) -> None:
        doc = validate_document(validate_findings(fenced({"findings": [finding()]})))
        doc.update(patch)
        assert schema_errors(doc, "council-validate") != []


# ---------------------------------------------------------------- property tests

_json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_words = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=20).filter(
    lambda s: s.strip() != ""
)


@st.composite
def noisy_reviews(draw: st.DrawFn) -> str:
    """Text built from prose, fences, openers and JSON fragments in any order."""
    pieces = st.sampled_from(["```json\n", "```\n", "```", "\n", "{", "}", '"', "[", "]", ","])
    parts = draw(
        st.lists(
            pieces | st.text(max_size=12) | _json_values.map(json.dumps), max_size=14
        )
    )
    return "".join(parts)


@settings(max_examples=300)
@given(st.one_of(st.text(), noisy_reviews()))
def test_validate_findings_never_raises_and_is_consistent(text: str) -> None:
    result = validate_findings(text)
    assert result["ok"] == (result["errors"] == [])
    assert all(e["code"] in FINDINGS_ERROR_CODES and e["detail"] for e in result["errors"])
    if not result["ok"]:
        assert result["findings"] == []
    assert schema_errors(validate_document(result), "council-validate") == []
    count = count_attempted_findings(text)
    assert count is None or count >= len(result["findings"])


@st.composite
def valid_blocks(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(min_value=0, max_value=6))
    items = [
        {
            "id": i,
            "severity": draw(st.sampled_from(["blocker", "major", "minor", "nit"])),
            "claim": draw(_words),
            "location": draw(_words),
            "rationale": draw(_words),
        }
        for i in range(1, n + 1)
    ]
    return {"overall": draw(_words), "findings": items}


@given(valid_blocks(), st.text(max_size=40).filter(lambda s: "```" not in s))
def test_generated_valid_block_always_validates(block: dict[str, Any], prose: str) -> None:
    result = validate_findings(fenced(block, prose=prose + "\n"))
    assert result == {"ok": True, "findings": block["findings"], "errors": []}
    assert count_attempted_findings(fenced(block)) == len(block["findings"])


@given(valid_blocks(), st.integers(min_value=0, max_value=5))
def test_swapping_an_id_is_always_caught(block: dict[str, Any], pick: int) -> None:
    items = block["findings"]
    assume(len(items) >= 2)
    i = pick % len(items)
    j = (i + 1) % len(items)
    items[i]["id"], items[j]["id"] = items[j]["id"], items[i]["id"]
    result = validate_findings(fenced(block))
    assert not result["ok"] and set(codes(result)) == {"NON_SEQUENTIAL_ID"}
