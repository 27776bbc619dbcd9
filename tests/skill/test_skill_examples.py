"""The skill's JSON examples are real: each validates against what it claims to be.

Every ```json block in the skill files must carry a check marker on the line before it:

    <!-- check: tool=amicus_fanout -->                 the arguments of that MCP tool
    <!-- check: schema=council-tally-input -->         a shipped JSON Schema
    <!-- check: decisions -->                          Stage-4 decisions the verdict accepts
    <!-- check: judge-block labels="…" ids="…" -->     a judge's block the engine's parser reads
    <!-- check: review-block -->                       a review's findings block that validates
    <!-- check: answer-block -->                       a question council's answer block that validates
    <!-- check: intent-examples -->                    requests the skill reads as questions or reviews

Tool arguments are checked against the live server's input schema with unknown arguments
forbidden. Decisions are merged for real with the record the skill's own tally-input example
produces, and the verdict that comes out must match its schema.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from skill_helpers import (
    COMMAND,
    README,
    REPO,
    SKILL,
    SKILL_FILES,
    Example,
    closed_input_schema,
    json_examples,
    tools,
)

from amicus_mcp.council import answers
from amicus_mcp.council.findings import validate_document, validate_findings
from amicus_mcp.council.parse import parse_judge_output
from amicus_mcp.council.report import build_report
from amicus_mcp.council.tally import tally
from amicus_mcp.council.verdict import build_verdict
from amicus_mcp.documents.tally import check_decisions, check_tally_input
from amicus_mcp.errors import AmicusError
from amicus_mcp.schemas import SCHEMA_NAMES, schema_errors

KINDS = {"tool", "schema", "decisions", "judge-block", "review-block", "answer-block", "intent-examples"}
OPTIONS = {"labels", "ids"}  # arguments of judge-block


def skill_examples() -> list[Example]:
    out = []
    for path in [*SKILL_FILES, COMMAND]:
        examples, problems = json_examples(path)
        assert problems == []
        out += examples
    return out


def tally_input_example() -> dict[str, Any]:
    found = [e.doc for e in skill_examples() if e.checks.get("schema") == "council-tally-input"]
    assert len(found) == 1, "SKILL.md needs exactly one tally-input example"
    return found[0]


def problems_of(example: Example) -> list[str]:
    """Every way an example fails its checks (empty when it passes all of them)."""
    checks = example.checks
    if not checks:
        return ["no <!-- check: … --> marker on the line before the block"]
    problems = [f"unknown check '{kind}'" for kind in checks if kind not in KINDS | OPTIONS]
    doc = example.doc
    if "tool" in checks:
        if checks["tool"] not in tools():
            problems.append(f"no tool {checks['tool']}")
        else:
            validator = jsonschema.Draft202012Validator(closed_input_schema(checks["tool"]))
            problems += [f"{checks['tool']}: {err.message}" for err in validator.iter_errors(doc)]
    if "schema" in checks:
        if checks["schema"] not in SCHEMA_NAMES:
            problems.append(f"no schema {checks['schema']}")
        else:
            problems += schema_errors(doc, checks["schema"])
            if checks["schema"] == "council-tally-input":
                try:
                    check_tally_input(doc)
                except AmicusError as err:
                    problems.append(err.message)
    if "decisions" in checks:
        try:
            check_decisions(doc)
            verdict = build_verdict(tally(tally_input_example()), doc, overall_verdict="Fix these first")
            problems += schema_errors(verdict, "council-verdict")
        except AmicusError as err:
            problems.append(err.message)
    if "judge-block" in checks:
        labels = [x.strip() for x in checks.get("labels", "").split(",") if x.strip()]
        ids = [x.strip() for x in checks.get("ids", "").split(",") if x.strip()]
        parsed = parse_judge_output(f"My reasoning.\n\n```json\n{json.dumps(doc)}\n```\n", labels, ids)
        problems += [f"{e['code']}: {e['detail']}" for e in parsed["errors"]]
        if len(parsed["adjudications"]) != len(ids):
            problems.append("the block does not vote on every finding id")
    if "review-block" in checks:
        result = validate_findings(f"My review.\n\n```json\n{json.dumps(doc)}\n```\n")
        problems += [f"{e['code']}: {e['detail']}" for e in result["errors"]]
        problems += schema_errors(validate_document(result), "council-validate")
    if "answer-block" in checks:
        answer = answers.validate_answer(f"My reasoning.\n\n```json\n{json.dumps(doc)}\n```\n")
        problems += [f"{e['code']}: {e['detail']}" for e in answer["errors"]]
        problems += schema_errors(answers.validate_document(answer), "council-validate")
    if "intent-examples" in checks:
        problems += intent_problems(doc)
    return problems


def question_triggers() -> list[str]:
    """The phrases SKILL.md says make a request a question ("what should we…" → "what should we")."""
    section = SKILL.read_text(encoding="utf-8").split("### First: a review, or a question?", 1)[1]
    bullet = section.split("- **A question**", 1)[1].split("\n\n", 1)[0]
    return [t.rstrip("…").strip().lower() for t in re.findall(r"\"([^\"]+…)\"", bullet)]


def intent_problems(doc: Any) -> list[str]:
    """Every example request the skill classifies against its own stated rule: a question starts
    with one of the question phrases (or offers a choice, "X or Y"), a review does neither."""
    if not isinstance(doc, dict) or set(doc) != {"question", "review"}:
        return ["intent examples are {question: [...], review: [...]}"]
    triggers = question_triggers()
    problems = []
    for text in doc["question"]:
        if not (any(text.lower().startswith(t) for t in triggers) or " or " in text):
            problems.append(f"{text!r} is listed as a question but matches none of {triggers}")
    for text in doc["review"]:
        if any(text.lower().startswith(t) for t in triggers):
            problems.append(f"{text!r} is listed as a review but reads as a question")
    return problems


@pytest.mark.parametrize("example", skill_examples(), ids=lambda e: e.where)
def test_every_skill_json_example_validates(example: Example) -> None:
    assert problems_of(example) == []


def test_the_skill_has_the_examples_it_promises() -> None:
    kinds = [(k, v) for e in skill_examples() for k, v in e.checks.items()]
    for wanted in [("tool", "amicus_council_run"), ("tool", "amicus_fanout"), ("tool", "amicus_council_tally"),
                   ("schema", "council-tally-input"), ("decisions", ""), ("judge-block", ""),
                   ("review-block", ""), ("answer-block", ""), ("intent-examples", "")]:
        assert any(k == wanted[0] and (not wanted[1] or v == wanted[1]) for k, v in kinds), wanted


def test_the_examples_fit_together() -> None:
    """The judge block votes on the tally example's findings; the decisions decide exactly them;
    the tally example yields a record, a verdict and a report."""
    examples = skill_examples()
    doc = tally_input_example()
    ids = [f["id"] for f in doc["findings"]]
    judge = next(e for e in examples if "judge-block" in e.checks)
    assert judge.checks["ids"].split(",") == ids
    decisions = next(e.doc for e in examples if "decisions" in e.checks)
    assert sorted(d["id"] for d in decisions) == sorted(ids)
    record = tally(doc)
    assert schema_errors(record, "council-tally") == []
    tiers = {f["id"]: f["tier"] for f in record["findings"]}
    for decision in decisions:  # an override starts from the tier the tally really gave
        if decision.get("tierOverride"):
            assert decision["tierOverride"]["from"] == tiers[decision["id"]]
            assert record["findings"][ids.index(decision["id"])]["confidence"] == "thin"
    verdict = build_verdict(record, decisions)
    assert "## Adjudication matrix" in build_report(verdict, fmt="md")


@pytest.mark.parametrize("bad, expected", [
    (Example({"briefingFile": "b.md", "bench": ["gpt"]}, {"tool": "amicus_council_run"}, "x"),
     "Additional properties are not allowed ('bench' was unexpected)"),
    # briefingFile became optional with templates (issue 16); a tool with a required argument stands in
    (Example({"meta": {"runId": "r", "models": ["gpt"]}}, {"tool": "amicus_council_tally"}, "x"),
     "'findings' is a required property"),
    (Example({"meta": {"runId": "r"}, "findings": [], "adjudications": [], "rankings": []},
             {"schema": "council-tally-input"}, "x"), "meta: 'models' is a required property"),
    (Example([{"id": "Z9", "decision": "accepted"}], {"decisions": ""}, "x"),
     "decision for 'Z9' names no finding in the tally record"),
    (Example({"ranking": ["Review A"], "adjudications": []}, {"judge-block": "", "labels": "Review A,Review B",
                                                            "ids": "A1"}, "x"), "MISSING_LABEL"),
    (Example({"overall": "ok", "findings": [{"id": 2, "severity": "major", "claim": "c", "location": "l",
                                             "rationale": "r"}]}, {"review-block": ""}, "x"), "NON_SEQUENTIAL_ID"),
    (Example({"a": 1}, {}, "x"), "no <!-- check: … --> marker on the line before the block"),
    (Example({"a": 1}, {"shape": ""}, "x"), "unknown check 'shape'"),
    (Example({"answer": "x", "claims": [], "assumptions": [], "confidence": "sure"}, {"answer-block": ""}, "x"),
     "BAD_CONFIDENCE"),
    (Example({"question": ["Review my plan."], "review": []}, {"intent-examples": ""}, "x"),
     "is listed as a question but matches none of"),
    (Example({"question": [], "review": ["Why does the cache miss?"]}, {"intent-examples": ""}, "x"),
     "is listed as a review but reads as a question"),
])
def test_a_wrong_example_is_reported(bad: Example, expected: str) -> None:
    assert any(expected in problem for problem in problems_of(bad)), problems_of(bad)


def test_readme_json_parses() -> None:
    examples, problems = json_examples(README)
    assert problems == []
    desktop = next(e.doc for e in examples if "mcpServers" in e.doc)
    assert desktop["mcpServers"]["amicus"]["command"].endswith("/amicus-mcp")


def test_examples_are_found_at_all() -> None:
    assert len(skill_examples()) >= 6
    assert all(str(SKILL.relative_to(REPO)) in e.where for e in skill_examples())


def test_the_skill_recognises_a_question_and_keeps_a_review_a_review() -> None:
    """The skill's description (what a client matches a request against) names the question
    phrases of issue 23, its recognition rule lists them, a question example reaches the engine
    as `intent: "question"` and no review example carries an intent."""
    head = SKILL.read_text(encoding="utf-8").split("---", 2)[1]
    for phrase in ("what should we…", "which is better…", "why does…"):
        assert phrase in head and phrase.rstrip("…") in question_triggers()
    runs = [e.doc for e in skill_examples() if e.checks.get("tool") == "amicus_council_run"]
    assert [run.get("intent") for run in runs].count("question") == 1
    assert all(run.get("intent") in (None, "question") for run in runs)
    assert "a question" in COMMAND.read_text(encoding="utf-8")  # /council passes a question on as one
