"""Stage-2 judge parsing, ranking translation, FINAL RANKING, verdict lines, debate."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amicus_mcp.council.parse import (
    JUDGE_ERROR_CODES,
    apply_revotes,
    finding_id_sort_key,
    parse_defense,
    parse_judge_output,
    parse_revote,
    parse_verdict_line,
    ranking_to_order,
    salvage_judge_output,
)
from amicus_mcp.vocabulary import ANSWER_SCALE as QUESTION_ANSWERS
from amicus_mcp.vocabulary import VERDICT_SCALE as REVIEW_VERDICTS

FENCE = "```"
LABELS = ["Review A", "Review B", "Review C"]
IDS = ["A1", "A2", "B1", "C1"]


def fenced(body: Any) -> str:
    text = body if isinstance(body, str) else json.dumps(body)
    return f"My reasoning about the reviews.\n\n{FENCE}json\n{text}\n{FENCE}\n"


def judge(ranking: Any = ..., adjudications: Any = ...) -> str:
    block: dict[str, Any] = {}
    block["ranking"] = ["Review B", ["Review A", "Review C"]] if ranking is ... else ranking
    if adjudications is ...:
        adjudications = [{"id": fid, "verdict": "agree"} for fid in IDS]
    block["adjudications"] = adjudications
    return fenced(block)


def codes(result: dict[str, Any]) -> list[str]:
    return [e["code"] for e in result["errors"]]


# ---------------------------------------------------------------- parse_judge_output


class TestJudgeOutput:
    def test_valid_with_tie_group(self) -> None:
        result = parse_judge_output(judge(), LABELS, IDS)
        assert result == {
            "ok": True,
            "ranking": ["Review B", ["Review A", "Review C"]],
            "adjudications": [{"id": fid, "verdict": "agree"} for fid in IDS],
            "errors": [],
        }

    def test_adjudication_extras_are_dropped(self) -> None:
        adj = [{"id": "A1", "verdict": "dispute", "reason": "wrong file"}]
        result = parse_judge_output(judge(adjudications=adj), LABELS, IDS)
        assert result["adjudications"] == [{"id": "A1", "verdict": "dispute"}]

    def test_partial_adjudication_is_allowed(self) -> None:
        adj = [{"id": "B1", "verdict": "neutral"}]
        assert parse_judge_output(judge(adjudications=adj), LABELS, IDS)["ok"]

    def test_empty_findings_index_takes_empty_adjudications(self) -> None:
        result = parse_judge_output(judge(adjudications=[]), LABELS, [])
        assert result["ok"] and result["adjudications"] == []

    def test_no_fenced_block(self) -> None:
        result = parse_judge_output("FINAL RANKING:\n1. Review A", LABELS, IDS)
        assert result == {
            "ok": False,
            "ranking": [],
            "adjudications": [],
            "errors": [{"code": "NO_FENCED_BLOCK", "detail": "no ```json block found"}],
        }

    def test_not_parseable(self) -> None:
        assert codes(parse_judge_output(fenced('{"ranking": [}'), LABELS, IDS)) == ["NOT_PARSEABLE"]

    @pytest.mark.parametrize("body", ["null", "[]", '["Review A"]', "3", '"x"'])
    def test_non_object_body_is_bad_ranking_and_bad_adjudications(self, body: str) -> None:
        # Like `{}`: neither key can be read (issue 12).
        assert codes(parse_judge_output(fenced(body), LABELS, IDS)) == ["BAD_RANKING", "BAD_ADJUDICATIONS"]
        assert codes(parse_judge_output(fenced({}), LABELS, IDS)) == ["BAD_RANKING", "BAD_ADJUDICATIONS"]

    def test_missing_ranking(self) -> None:
        text = fenced({"adjudications": []})
        result = parse_judge_output(text, LABELS, IDS)
        assert result["errors"] == [{"code": "BAD_RANKING", "detail": "ranking is missing; rank every review"}]

    @pytest.mark.parametrize("ranking", [{}, "Review A", None, []])
    def test_ranking_not_a_non_empty_array(self, ranking: Any) -> None:
        assert codes(parse_judge_output(judge(ranking=ranking), LABELS, IDS)) == ["BAD_RANKING"]

    @pytest.mark.parametrize("slot", [[], 1, None, ["Review C", 2], ["Review C", ["Review D"]], {"a": 1}])
    def test_malformed_slot(self, slot: Any) -> None:
        result = parse_judge_output(judge(ranking=["Review A", "Review B", slot]), LABELS, IDS)
        assert codes(result) == ["BAD_RANKING", "MISSING_LABEL"]
        assert result["errors"][0]["detail"].startswith("ranking slot 3: ")

    def test_single_member_tie_group_is_kept(self) -> None:
        result = parse_judge_output(judge(ranking=[["Review A"], "Review B", "Review C"]), LABELS, IDS)
        assert result["ranking"] == [["Review A"], "Review B", "Review C"]

    def test_unknown_label(self) -> None:
        result = parse_judge_output(judge(ranking=["Review A", "review b", "Review C"]), LABELS, IDS)
        assert result["errors"] == [
            {"code": "UNKNOWN_LABEL",
             "detail": "ranking slot 2: 'review b' is not one of Review A, Review B, Review C"},
            {"code": "MISSING_LABEL",
             "detail": "ranking leaves out Review B; rank every review, your own included"},
        ]

    def test_duplicate_label_across_tie_group(self) -> None:
        result = parse_judge_output(
            judge(ranking=["Review A", ["Review B", "Review A"], "Review C"]), LABELS, IDS
        )
        assert result["errors"] == [
            {"code": "DUPLICATE_LABEL", "detail": "ranking slot 2: 'Review A' is ranked twice"}
        ]

    def test_missing_label(self) -> None:
        result = parse_judge_output(judge(ranking=["Review C"]), LABELS, IDS)
        assert result["errors"] == [
            {"code": "MISSING_LABEL",
             "detail": "ranking leaves out Review A, Review B; rank every review, your own included"}
        ]

    def test_missing_adjudications(self) -> None:
        result = parse_judge_output(fenced({"ranking": LABELS}), LABELS, IDS)
        assert codes(result) == ["BAD_ADJUDICATIONS"]

    @pytest.mark.parametrize("adj", [{}, "A1: agree", None])
    def test_adjudications_not_an_array(self, adj: Any) -> None:
        assert codes(parse_judge_output(judge(adjudications=adj), LABELS, IDS)) == ["BAD_ADJUDICATIONS"]

    @pytest.mark.parametrize("entry", ["A1", {"verdict": "agree"}, {"id": 1, "verdict": "agree"}, None])
    def test_adjudication_entry_without_string_id(self, entry: Any) -> None:
        adj = [{"id": "A1", "verdict": "agree"}, entry]
        result = parse_judge_output(judge(adjudications=adj), LABELS, IDS)
        assert codes(result) == ["BAD_ADJUDICATIONS"]
        assert result["errors"][0]["detail"].startswith("adjudication 2: ")

    def test_unknown_finding_id(self) -> None:
        result = parse_judge_output(judge(adjudications=[{"id": "Z9", "verdict": "agree"}]), LABELS, IDS)
        assert result["errors"] == [
            {"code": "UNKNOWN_FINDING_ID",
             "detail": "adjudication 1: finding id 'Z9' is not in the findings index"}
        ]

    @pytest.mark.parametrize("verdict", ["Agree", "disagree", "", 1, None])
    def test_bad_verdict(self, verdict: Any) -> None:
        result = parse_judge_output(judge(adjudications=[{"id": "A1", "verdict": verdict}]), LABELS, IDS)
        assert codes(result) == ["BAD_VERDICT"]
        assert result["errors"][0]["detail"].startswith("adjudication 1 ('A1'): verdict ")

    def test_missing_verdict(self) -> None:
        result = parse_judge_output(judge(adjudications=[{"id": "A1"}]), LABELS, IDS)
        assert result["errors"][0]["detail"] == (
            "adjudication 1 ('A1'): verdict is missing (one of agree, dispute, neutral)"
        )

    def test_unknown_id_and_bad_verdict_both_reported(self) -> None:
        result = parse_judge_output(judge(adjudications=[{"id": "Q1", "verdict": "yes"}]), LABELS, IDS)
        assert codes(result) == ["UNKNOWN_FINDING_ID", "BAD_VERDICT"]

    def test_conflicting_duplicate_adjudication_is_an_error(self) -> None:
        adj = [{"id": "A1", "verdict": "agree"}, {"id": "A1", "verdict": "dispute"}]
        result = parse_judge_output(judge(adjudications=adj), LABELS, IDS)
        assert result["errors"] == [
            {"code": "DUPLICATE_ADJUDICATION",
             "detail": "adjudication 2: A1 is adjudicated both 'agree' and 'dispute'"}
        ]

    def test_identical_duplicate_adjudication_collapses(self) -> None:
        adj = [{"id": "A1", "verdict": "agree"}, {"id": "B1", "verdict": "neutral"},
               {"id": "A1", "verdict": "agree"}]
        result = parse_judge_output(judge(adjudications=adj), LABELS, IDS)
        assert result["ok"]
        assert result["adjudications"] == [{"id": "A1", "verdict": "agree"}, {"id": "B1", "verdict": "neutral"}]

    def test_errors_in_ranking_then_adjudication_order_and_empty_outputs(self) -> None:
        text = judge(ranking=["Review X", "Review A", "Review A"], adjudications=[{"id": "A1", "verdict": "no"}])
        result = parse_judge_output(text, LABELS, IDS)
        assert codes(result) == ["UNKNOWN_LABEL", "DUPLICATE_LABEL", "MISSING_LABEL", "BAD_VERDICT"]
        assert result["ranking"] == [] and result["adjudications"] == []

    def test_last_block_wins(self) -> None:
        draft = judge(ranking=["Review A"])
        final = judge(ranking=["Review C", "Review B", "Review A"])
        assert parse_judge_output(draft + final, LABELS, IDS)["ranking"] == ["Review C", "Review B", "Review A"]

    def test_later_broken_block_falls_back_to_earlier_good_one(self) -> None:
        text = judge() + fenced('{"ranking": ["Review A",')
        assert parse_judge_output(text, LABELS, IDS)["ok"]

    def test_every_code_is_declared(self) -> None:
        assert set(JUDGE_ERROR_CODES) >= {
            "NO_FENCED_BLOCK", "NOT_PARSEABLE", "BAD_RANKING", "UNKNOWN_LABEL", "DUPLICATE_LABEL",
            "MISSING_LABEL", "BAD_ADJUDICATIONS", "UNKNOWN_FINDING_ID", "BAD_VERDICT",
            "DUPLICATE_ADJUDICATION",
        }


# ------------------------------------------------------------------ ranking_to_order

LABEL_MAP = {"Review A": "gpt", "Review B": "deepseek", "Review C": "gpt"}


class TestRankingToOrder:
    def test_labels_become_aliases_and_ties_stay_nested(self) -> None:
        order, seats = ranking_to_order(["Review B", ["Review A", "Review C"]], LABEL_MAP)
        assert order == ["deepseek", ["gpt", "gpt"]]
        assert seats is None

    def test_seat_channel_is_slot_for_slot_with_nulls(self) -> None:
        seat_map = {"Review A": "gpt#1", "Review C": "gpt#2"}
        order, seats = ranking_to_order(["Review B", ["Review A", "Review C"]], LABEL_MAP, seat_map)
        assert order == ["deepseek", ["gpt", "gpt"]]
        assert seats == [None, ["gpt#1", "gpt#2"]]

    def test_all_null_seats_are_omitted(self) -> None:
        assert ranking_to_order(["Review A", ["Review B"]], LABEL_MAP, {})[1] is None

    def test_label_missing_from_label_map_raises(self) -> None:
        with pytest.raises(ValueError, match="Review D"):
            ranking_to_order(["Review D"], LABEL_MAP)

    def test_inputs_are_not_mutated(self) -> None:
        ranking: list[Any] = ["Review B", ["Review A", "Review C"]]
        ranking_to_order(ranking, LABEL_MAP, {"Review A": "s"})
        assert ranking == ["Review B", ["Review A", "Review C"]]


# ---------------------------------------------------------------- parse_verdict_line


class TestVerdictLine:
    @pytest.mark.parametrize("phrase", REVIEW_VERDICTS)
    def test_each_canonical_phrase(self, phrase: str) -> None:
        assert parse_verdict_line(f"Synthesis.\n\nVERDICT: {phrase}\n") == phrase

    def test_last_matching_line_wins(self) -> None:
        text = "VERDICT: Fundamental rethink\n...\nVERDICT: Fix these first\n"
        assert parse_verdict_line(text) == "Fix these first"

    def test_later_non_matching_line_does_not_override(self) -> None:
        text = "VERDICT: Ship it\nVERDICT: maybe later\n"
        assert parse_verdict_line(text) == "Ship it"

    @pytest.mark.parametrize(
        "line", ["VERDICT: Ship it.", "VERDICT: Ship it — with nits", "VERDICT: Ship it!",
                 "   VERDICT: Ship it", "\tVERDICT: Ship it  ", "VERDICT:Ship it", "VERDICT: Ship it\r"]
    )
    def test_matching_forms(self, line: str) -> None:
        assert parse_verdict_line(f"intro\n{line}\n") == "Ship it"

    @pytest.mark.parametrize(
        "line", ["VERDICT: Ship itself", "VERDICT: ship it", "verdict: Ship it", "Verdict: Ship it",
                 "**VERDICT: Ship it**", "The VERDICT: Ship it", "VERDICT: **Ship it**",
                 "VERDICT: Ship it2", "VERDICT: Fix these", "VERDICT:"]
    )
    def test_non_matching_forms(self, line: str) -> None:
        assert parse_verdict_line(f"intro\n{line}\n") is None

    def test_absent(self) -> None:
        assert parse_verdict_line("No verdict at all.") is None

    @pytest.mark.parametrize("phrase", QUESTION_ANSWERS)
    def test_task_scale_reads_answer_lines(self, phrase: str) -> None:
        assert parse_verdict_line(f"ANSWER: {phrase}\n", scale="question") == phrase

    def test_scales_do_not_mix(self) -> None:
        text = "VERDICT: Ship it\nANSWER: Split\n"
        assert parse_verdict_line(text, scale="question") == "Split"
        assert parse_verdict_line(text) == "Ship it"
        assert parse_verdict_line("ANSWER: Ship it", scale="question") is None
        assert parse_verdict_line("ANSWER: Splitting hairs", scale="question") is None

    def test_unknown_scale_is_a_caller_error(self) -> None:
        with pytest.raises(ValueError):
            parse_verdict_line("VERDICT: Ship it", scale="other")  # type: ignore[arg-type]


# ------------------------------------------------------------------- debate: defense


def defense(*responses: Any) -> str:
    return fenced({"responses": list(responses)})


class TestDefense:
    def test_all_actions(self) -> None:
        text = defense(
            {"id": "A1", "action": "defend", "argument": "  Line 10 does it.  "},
            {"id": "A2", "action": "amend", "claim": "Narrower claim.", "argument": "Was too broad."},
            {"id": "A10", "action": "withdraw", "argument": "ignored"},
        )
        result = parse_defense(text, ["A10", "A1", "A2"])
        assert result == {
            "ok": True,
            "errors": [],
            "responses": {
                "A1": {"action": "defended", "argument": "Line 10 does it."},
                "A2": {"action": "amended", "claim": "Narrower claim.", "argument": "Was too broad."},
                "A10": {"action": "withdrawn"},
            },
        }
        assert list(result["responses"]) == ["A1", "A2", "A10"]

    @pytest.mark.parametrize(
        "entry",
        [
            {"id": "A1", "action": "defend"},
            {"id": "A1", "action": "defend", "argument": "   "},
            {"id": "A1", "action": "amend", "argument": "no claim"},
            {"id": "A1", "action": "amend", "claim": 5},
            {"id": "A1", "action": "DEFEND", "argument": "x"},
            {"id": "A1", "action": "ignore"},
            {"id": 1, "action": "withdraw"},
            "A1: WITHDRAW",
        ],
    )
    def test_invalid_answer_is_no_response(self, entry: Any) -> None:
        result = parse_defense(defense(entry), ["A1"])
        assert result == {"ok": True, "errors": [], "responses": {"A1": {"action": "no-response"}}}

    def test_unknown_ids_ignored_and_unanswered_ids_no_response(self) -> None:
        result = parse_defense(defense({"id": "Z9", "action": "withdraw"}), ["A1", "B2"])
        assert result["responses"] == {"A1": {"action": "no-response"}, "B2": {"action": "no-response"}}

    def test_last_valid_answer_wins_and_invalid_does_not_displace(self) -> None:
        text = defense(
            {"id": "A1", "action": "defend", "argument": "first"},
            {"id": "A1", "action": "withdraw"},
            {"id": "A1", "action": "amend"},
        )
        assert parse_defense(text, ["A1"])["responses"]["A1"] == {"action": "withdrawn"}

    @pytest.mark.parametrize(
        "text, code",
        [
            ("A1: DEFEND — it is right", "NO_FENCED_BLOCK"),
            (fenced("{responses: []}"), "NOT_PARSEABLE"),
            (fenced("null"), "BAD_RESPONSES"),
            (fenced({"response": []}), "BAD_RESPONSES"),
            (fenced({"responses": {"A1": "defend"}}), "BAD_RESPONSES"),
        ],
    )
    def test_block_failure_means_all_no_response(self, text: str, code: str) -> None:
        result = parse_defense(text, ["B1", "A1"])
        assert result["ok"] is False and codes(result) == [code]
        assert result["responses"] == {"A1": {"action": "no-response"}, "B1": {"action": "no-response"}}


# -------------------------------------------------------------------- debate: revote


def revote(*entries: Any) -> str:
    return fenced({"revotes": list(entries)})


class TestRevote:
    def test_valid_revotes(self) -> None:
        text = revote({"id": "B1", "verdict": "agree", "reason": " convinced "}, {"id": "A1", "verdict": "dispute"})
        assert parse_revote(text, ["A1", "B1"]) == {
            "ok": True,
            "errors": [],
            "revotes": {"A1": {"verdict": "dispute"}, "B1": {"verdict": "agree", "reason": "convinced"}},
        }

    @pytest.mark.parametrize(
        "entry",
        [{"id": "A1", "verdict": "Agree"}, {"id": "A1"}, {"id": "A1", "verdict": None},
         {"id": "Z1", "verdict": "agree"}, {"verdict": "agree"}, ["A1", "agree"]],
    )
    def test_invalid_or_unexpected_entries_are_absent(self, entry: Any) -> None:
        assert parse_revote(revote(entry), ["A1"]) == {"ok": True, "errors": [], "revotes": {}}

    def test_last_valid_revote_wins(self) -> None:
        text = revote({"id": "A1", "verdict": "agree"}, {"id": "A1", "verdict": "neutral"},
                      {"id": "A1", "verdict": "??"})
        assert parse_revote(text, ["A1"])["revotes"] == {"A1": {"verdict": "neutral"}}

    @pytest.mark.parametrize(
        "text, code",
        [("A1: agree — fine", "NO_FENCED_BLOCK"), (fenced("{revotes"), "NOT_PARSEABLE"),
         (fenced("[]"), "BAD_REVOTES"), (fenced({"revotes": "A1 agree"}), "BAD_REVOTES"),
         (fenced({}), "BAD_REVOTES")],
    )
    def test_block_failures(self, text: str, code: str) -> None:
        result = parse_revote(text, ["A1"])
        assert result["ok"] is False and codes(result) == [code] and result["revotes"] == {}


class TestApplyRevotes:
    def test_original_stands_unless_validly_revoted(self) -> None:
        original = {"A1": "dispute", "B1": "dispute", "C1": "dispute"}
        revotes = {"A1": {"verdict": "agree"}, "B1": {"verdict": "maybe"}, "Z9": {"verdict": "agree"}}
        assert apply_revotes(original, revotes) == {"A1": "agree", "B1": "dispute", "C1": "dispute"}

    def test_end_to_end_with_failed_block(self) -> None:
        original = {"A1": "dispute"}
        parsed = parse_revote("I now agree with A1.", ["A1"])
        assert apply_revotes(original, parsed["revotes"]) == original

    def test_does_not_mutate_original(self) -> None:
        original = {"A1": "dispute"}
        apply_revotes(original, {"A1": {"verdict": "agree"}})
        assert original == {"A1": "dispute"}


def test_finding_id_natural_order() -> None:
    assert sorted(["B1", "A10", "A2", "weird", "A1"], key=finding_id_sort_key) == [
        "A1", "A2", "A10", "B1", "weird"
    ]


# ---------------------------------------------------------------- property tests

_labels = [f"Review {c}" for c in "ABCDEF"]


@st.composite
def rankings(draw: st.DrawFn) -> tuple[list[str], list[Any]]:
    """A permutation of some labels, cut into slots (some tie groups)."""
    n = draw(st.integers(min_value=1, max_value=len(_labels)))
    labels = _labels[:n]
    perm = draw(st.permutations(labels))
    slots: list[Any] = []
    i = 0
    while i < n:
        size = draw(st.integers(min_value=1, max_value=n - i))
        group = list(perm[i : i + size])
        slots.append(group[0] if size == 1 and draw(st.booleans()) else group)
        i += size
    return labels, slots


@given(rankings(), st.lists(st.sampled_from(["agree", "dispute", "neutral"]), max_size=5))
def test_generated_valid_judgement_parses(case: tuple[list[str], list[Any]], verdicts: list[str]) -> None:
    labels, ranking = case
    ids = [f"A{i}" for i in range(1, len(verdicts) + 1)]
    adj = [{"id": fid, "verdict": v} for fid, v in zip(ids, verdicts)]
    result = parse_judge_output(fenced({"ranking": ranking, "adjudications": adj}), labels, ids)
    assert result == {"ok": True, "ranking": ranking, "adjudications": adj, "errors": []}
    order, seats = ranking_to_order(ranking, {lb: lb.lower() for lb in labels}, {lb: lb for lb in labels})
    assert seats == ranking  # identity seat map: the seat channel mirrors the ranking's shape
    assert [type(s) for s in order] == [type(s) for s in ranking]


_noise = st.lists(
    st.sampled_from(["```json\n", "```\n", "\n", "{", "}", "[", "]", '"ranking"', '"responses"',
                     '"revotes"', ":", ",", "VERDICT: ", "FINAL RANKING:\n", "1. ", "Review A"])
    | st.text(max_size=10),
    max_size=16,
).map("".join)


@settings(max_examples=300)
@given(st.one_of(st.text(), _noise))
def test_parsers_never_raise(text: str) -> None:
    judged = parse_judge_output(text, LABELS, IDS)
    assert judged["ok"] == (judged["errors"] == [])
    assert all(e["code"] in JUDGE_ERROR_CODES for e in judged["errors"])
    assert parse_verdict_line(text) in (None, *REVIEW_VERDICTS)
    defended = parse_defense(text, ["A1", "B1"])
    assert set(defended["responses"]) == {"A1", "B1"}
    assert set(parse_revote(text, ["A1"])["revotes"]) <= {"A1"}


# --------------------------------------------------------------- the chair's sections (issue 12)

class TestChairSections:
    def test_synthesis_then_numbered_questions_then_the_verdict(self) -> None:
        from amicus_mcp.council.parse import chair_sections

        text = "## Synthesis\n\nFix eviction.\n\nThen ship.\n\n**Hard questions**\n\n1. Why evict?\n2. Who\n   reads it?\n\nVERDICT: Fix these first\n"
        synthesis, questions = chair_sections(text)
        assert synthesis == "Synthesis\n\nFix eviction.\n\nThen ship."
        assert questions == ["Why evict?", "Who reads it?"]

    def test_structured_chair_output_round_trips(self) -> None:
        from amicus_mcp.council.briefings import chair_from_structured
        from amicus_mcp.council.parse import chair_sections

        text = chair_from_structured({"synthesis": "S.", "hardQuestions": ["a?", "b?", "c?"], "verdict": "Ship it"})
        assert chair_sections(text) == ("S.", ["a?", "b?", "c?"])

    @pytest.mark.parametrize("text", ["", "VERDICT: Ship it", "\n\n"])
    def test_nothing_to_read(self, text: str) -> None:
        from amicus_mcp.council.parse import chair_sections

        assert chair_sections(text) == (None, [])

    def test_bounded(self) -> None:
        from amicus_mcp.council.parse import MAX_HARD_QUESTIONS, MAX_SYNTHESIS_CHARS, chair_sections

        text = "x" * (MAX_SYNTHESIS_CHARS * 2) + "\n## Hard questions\n" + "\n".join(f"- q{i}" for i in range(50))
        synthesis, questions = chair_sections(text)
        assert len(synthesis or "") == MAX_SYNTHESIS_CHARS and len(questions) == MAX_HARD_QUESTIONS


# --- issue 27 item 26: after the repairs, a judge keeps what is valid in its block ----------------

def test_salvage_sets_aside_a_phantom_label_and_a_phantom_id_and_keeps_the_rest() -> None:
    votes = [{"id": "A1", "verdict": "agree"}, {"id": "Z9", "verdict": "dispute"}, {"id": "B1", "verdict": "dispute"}]
    text = judge(["Review B", ["Review A", "Review D"], "Review C"], votes)
    assert not parse_judge_output(text, LABELS, IDS)["ok"]  # the strict reading still refuses it
    kept = salvage_judge_output(text, LABELS, IDS)
    assert kept is not None
    assert kept.ranking == ["Review B", "Review A", "Review C"]  # the tie group lost only its phantom
    assert kept.adjudications == [{"id": "A1", "verdict": "agree"}, {"id": "B1", "verdict": "dispute"}]
    assert kept.dropped == ["ranking entries that name no review: 'Review D'",
                            "votes on ids not in the findings index: 'Z9'"]
    assert kept.lost_real is False  # only what named nothing went


def test_a_ranking_left_partial_is_dropped_and_the_votes_stay() -> None:
    # "Response C" stands for Review C: set aside, it leaves a ranking without Review C, which
    # would skew street cred (every review must be ranked), so only the votes survive.
    text = judge(["Review B", "Review A", "Response C"])
    kept = salvage_judge_output(text, LABELS, IDS)
    assert kept is not None and kept.ranking == []
    assert kept.adjudications == [{"id": fid, "verdict": "agree"} for fid in IDS]
    assert kept.dropped[0] == "ranking entries that name no review: 'Response C'"
    assert kept.dropped[1].startswith("its ranking (ranking leaves out Review C")
    assert kept.lost_real is True


def test_salvage_drops_bad_votes_one_by_one_and_never_picks_between_contradictions() -> None:
    votes = [{"id": "A1", "verdict": "agree"}, {"id": "A2", "verdict": "maybe"}, "B1",
             {"id": "C1", "verdict": "agree"}, {"id": "C1", "verdict": "dispute"}, {"id": "A1", "verdict": "agree"}]
    kept = salvage_judge_output(judge(adjudications=votes), LABELS, IDS)
    assert kept is not None and kept.ranking == ["Review B", ["Review A", "Review C"]]
    assert kept.adjudications == [{"id": "A1", "verdict": "agree"}]
    assert len(kept.dropped) == 3 and kept.dropped[-1] == "both votes on C1, adjudicated both ways"
    assert kept.lost_real is True  # real findings lost their votes


@pytest.mark.parametrize("text", ["no block at all", fenced("{not json"), fenced([1, 2]), fenced("null")])
def test_an_unreadable_block_has_nothing_to_salvage(text: str) -> None:
    assert salvage_judge_output(text, LABELS, IDS) is None


@settings(max_examples=300, deadline=None, derandomize=True)
@given(ranking=st.lists(st.one_of(st.sampled_from([*LABELS, "Review D", "Response C", ""]),
                                  st.lists(st.sampled_from([*LABELS, "Review Z"]), max_size=3), st.integers(-5, 5)),
                        max_size=5),
       votes=st.lists(st.one_of(st.fixed_dictionaries({"id": st.sampled_from([*IDS, "Z9", "a1"]),
                                                       "verdict": st.sampled_from(["agree", "dispute", "neutral", "no"])}),
                                st.integers(-5, 5), st.none()), max_size=6))
def test_what_salvage_keeps_always_parses(ranking: list[Any], votes: list[Any]) -> None:
    """Whatever survives is itself a valid judgement (or an empty ranking): the tally never
    sees a label or an id that names nothing."""
    kept = salvage_judge_output(judge(ranking, votes), LABELS, IDS)
    assert kept is not None
    if kept.ranking:
        assert parse_judge_output(judge(kept.ranking, kept.adjudications), LABELS, IDS)["ok"]
    assert all(v["id"] in IDS for v in kept.adjudications)
    if parse_judge_output(judge(ranking, votes), LABELS, IDS)["ok"]:
        assert (kept.ranking, kept.dropped) == (ranking, [])
