"""Question councils end to end: the real engine against the loopback fake provider.

Every bench member answers a question council's prompts by their kind (council_helpers:
`question_member`): an answer in the answer contract, a judgement of the answers' bundle, a
chair synthesis ending with an ANSWER line. The fake also plays weak models here: one that
copies the example block it is shown, one that answers in a review's format, one whose chair
never writes the ANSWER line.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from council_helpers import (
    ALWAYS,
    OUTPUTS,
    QUESTION,
    answer_chair_text,
    answer_text,
    answers_labels,
    check_documents,
    degrade_channels,
    files,
    kind,
    kinds_asked,
    ledger,
    load,
    preflight_refused,
    question_judge,
    question_member,
    review,
    seed_ledger,
    u,
)
from council_prompts import example_block, question_debate
from fakeprovider import chat, copycat, error
from ranking_table import CLAIMS_1, ORDERS_1, TABLE_1, TIERS_1, VOTES_1

from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine import run_council
from amicus_mcp.engine.options import RunOptions

pytestmark = pytest.mark.anyio


@pytest.fixture
def question(tmp_path: Path) -> Path:
    path = tmp_path / "question.md"
    path.write_text(QUESTION, encoding="utf-8")
    return path


def run_cli(capsys: pytest.CaptureFixture[str], question: Path, run_dir: Path, project: Path, models: str,
            *extra: str) -> tuple[int, dict[str, Any]]:
    code = cli_main(["council", "run", "--intent", "question", "--models", models, "--chair", "fake/chair",
                     "--prompt-file", str(question), "--out-dir", str(run_dir), "--project", str(project), "--json",
                     *extra])
    return code, json.loads(capsys.readouterr().out)


async def ask(question: Path, run_dir: Path, project: Path, models: list[str], **options: Any) -> tuple[dict[str, Any], int]:
    opts = RunOptions(prompt_file=str(question), models=models, chair=options.pop("chair", "fake/chair"),
                      project=str(project), out_dir=str(run_dir), intent=options.pop("intent", "question"), **options)
    manifest, code = await run_council(opts)
    return manifest.to_doc(), code  # as run.json holds it


def h2s(page: str) -> list[str]:
    return re.findall(r"<h2>(.*?)</h2>", page)


# --------------------------------------------------------------------------- the whole run


def test_a_three_seat_question_council(fake, question, run_dir, project, config_dir, capsys):
    for name, tag in (("a", "north"), ("b", "south"), ("c", "east")):
        question_member(fake, name, tag=tag, claims=2,
                        question_judge=question_judge({"B2": "dispute"}, order=["A", "C", "B"], model=f"vendor/{name}-1",
                                                      usage=u()))
    question_member(fake, "chair")
    code, run = run_cli(capsys, question, run_dir, project, "fake/a,fake/b,fake/c")
    assert (code, run["status"], run["exitCode"]) == (0, "complete", 0)
    assert check_documents(run_dir) == run
    assert files(run_dir) == {*ALWAYS, *OUTPUTS, "answer-fake-a.md", "answer-fake-b.md", "answer-fake-c.md",
                              "judge-fake-a.md", "judge-fake-b.md", "judge-fake-c.md", "chair-packet.md",
                              "chair-output.md"}
    # The intent is on every document that records the run.
    assert run["intent"] == load(run_dir, "options.json")["intent"] == "question"
    assert load(run_dir, "tally.json")["meta"]["intent"] == load(run_dir, "verdict.json")["intent"] == "question"
    assert {row.get("intent") for row in ledger(config_dir)} == {"question"} and len(ledger(config_dir)) == 3

    # Stage 1: each seat answered the composed question briefing in the answer contract.
    briefing = (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")
    assert briefing.startswith("# Council question briefing") and QUESTION.strip() in briefing
    for name in "abc":
        assert kinds_asked(fake, name) == ["question", "question-judge"]
    # Stage 2: one anonymized bundle of answers, identical for every judge, no model names in it.
    bundle = (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    assert [p for p in fake.prompts() if kind(p) == "question-judge"] == [bundle] * 3
    assert answers_labels(bundle) == (["Answer A", "Answer B", "Answer C"], ["A1", "A2", "B1", "B2", "C1", "C2"])
    for name in ("fake/a", "fake/b", "fake/c", "vendor/a-1", "fake/chair"):
        assert name not in bundle
    assert "**Answer:** north answer: use Postgres" in bundle and "**Confidence:** medium" in bundle
    assert run["labelMap"] == {"Answer A": "fake/a", "Answer B": "fake/b", "Answer C": "fake/c"}

    # The tally: claims are the findings, tiered by the same cascade (B2 disputed by both its peers).
    tally = load(run_dir, "tally.json")
    assert [(f["id"], f["raiser"], f["tier"], f["basis"]) for f in tally["findings"]][2:4] == [
        ("B1", "fake/b", "Confirmed", {"a": 2, "d": 0, "n": 0}), ("B2", "fake/b", "Disputed", {"a": 0, "d": 2, "n": 0})]
    assert all(f["severity"] is None and "location" not in f for f in tally["findings"])
    assert run["tierCounts"] == {"Confirmed": 5, "Contested": 0, "Singleton": 0, "Disputed": 1}

    # The chair: an ANSWER line, and the dissent.
    assert (run["overallVerdict"], run["answer"]) == ("Converged", "Use Postgres for the session store.")
    verdict = load(run_dir, "verdict.json")
    assert (verdict["overallVerdict"], verdict["answer"]) == ("Converged", "Use Postgres for the session store.")
    assert verdict["dissent"] == ["One answer preferred DynamoDB for its scaling; the council does not adopt it."]
    assert "ANSWER: <Converged, Split or Insufficient>" in (run_dir / "chair-packet.md").read_text(encoding="utf-8")
    # Ranked answers: every judge put A first, C second, B last.
    assert [(r["rank"], r["model"], r["peersOnly"]) for r in verdict["ranking"]] == [
        (1, "fake/a", 1.0), (2, "fake/c", 2.0), (3, "fake/b", 3.0)]
    assert [(a["label"], a["model"], a["answer"], a["claims"]) for a in verdict["answers"]][1] == (
        "Answer B", "fake/b", "south answer: use Postgres", ["B1", "B2"])

    # The report: the answer first, then the dissent, the ranked answers, the claims.
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert h2s(page) == ["The chair&#x27;s answer", "Dissent", "Ranked answers", "Claim matrix", "Claims by tier", "Cost"]
    assert page.index("Use Postgres for the session store.") < page.index("<h2>The chair&#x27;s answer</h2>")
    assert "Answer: Converged" in page and "south claim 2" in page
    assert cli_main(["council", "report", str(run_dir / "verdict.json"), "--md"]) == 0
    md = capsys.readouterr().out
    # Issue 27: the question first, and the report titled by it (cut in the title when long).
    asked = " ".join(QUESTION.split())
    assert verdict["question"] == QUESTION.strip()
    title = asked if len(asked) <= 80 else asked[:79].rstrip() + "…"
    assert md.splitlines()[0] == f"# Council Answer — {title} ({run['runId']})"
    assert md.splitlines()[2] == f"**Question:** {asked}"
    assert "Council Answer — headless" not in md and "Council Answer — headless" not in page
    assert f'<p class="question"><strong>Question:</strong> {html.escape(asked)}</p>' in page
    assert page.index('<p class="question">') < page.index("Answer: Converged")
    assert md.splitlines()[6] == "**Answer (Converged):** Use Postgres for the session store."
    assert "| 1 | Answer A | fake/a | 1.00 | 1.00 | 1\\* | 1 | 1 | 2 Confirmed · 0 Disputed of 2 |" in md.replace("1*", "1\\*")
    assert "**Disputed claims:**\n\n- **B2** (made by fake/b) — a0/d2/n0\n  - south claim 2" in md
    # The human summary says it is a question and gives the answer.
    assert cli_main(["council", "run", "--intent", "question", "--models", "fake/a,fake/b,fake/c", "--chair",
                     "fake/chair", "--prompt-file", str(question), "--out-dir", str(run_dir.parent / "again"),
                     "--project", str(project)]) == 0
    human = capsys.readouterr().out
    assert "(question): complete (exit 0)" in human and "ANSWER: Converged — Use Postgres" in human


async def test_the_ranking_of_a_real_run_is_the_hand_computed_table(fake, question, run_dir, project):
    """Five seats whose judges rank and vote exactly as tests/ranking_table.py says: the run's
    verdict ranks the answers as the hand-computed table does."""
    for name in ORDERS_1:
        order = [[m.upper() for m in slot] if isinstance(slot, list) else slot.upper() for slot in ORDERS_1[name]]
        question_member(fake, name, claims=len(CLAIMS_1[name]),
                        question_judge=question_judge(VOTES_1[name], order=order))
    question_member(fake, "chair")
    run, code = await ask(question, run_dir, project, [f"fake/{m}" for m in ORDERS_1])
    assert code == 0
    check_documents(run_dir, run)
    verdict = load(run_dir, "verdict.json")
    assert {f["id"]: f["tier"] for f in verdict["findings"]} == TIERS_1
    got = [(r["rank"], r["model"].removeprefix("fake/"), round(r["peersOnly"], 4), round(r["withSelf"], 4), r["claims"],
            r["confirmedClaims"], r["disputedClaims"]) for r in verdict["ranking"]]
    assert got == TABLE_1
    # The chair read the same ranking, in that order, with its figures.
    packet = (run_dir / "chair-packet.md").read_text(encoding="utf-8")
    ranked = packet.split("## The answers, ranked by the council", 1)[1].split("##", 1)[0].strip().splitlines()
    assert [line.split(" — ")[0] for line in ranked] == ["1. fake/b", "2. fake/a", "3. fake/c", "4. fake/d", "5. fake/e"]


# --------------------------------------------------------------------------- the chair's ANSWER line


async def test_a_chair_without_an_answer_line_is_repaired(fake, question, run_dir, project):
    for name in "abc":
        question_member(fake, name)
    question_member(fake, "chair", question_chair=chat(answer_chair_text(None)))
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    assert kinds_asked(fake, "chair") == ["question-chair", "question-chair-repair"]
    assert "Postgres fits a 2 GB relational workload" in fake.prompts("chair")[1]  # the repair embeds the synthesis
    assert (run["overallVerdict"], run["answer"], run["chairConformance"]) == (
        "Split", "Postgres, though the council divided.", "repaired")
    verdict = load(run_dir, "verdict.json")
    assert verdict["synthesis"].startswith("Synthesis: the answers agree")  # the synthesis stays the chair's own
    assert (run_dir / "chair-repair-output.md").is_file()


async def test_a_chair_that_fails_twice_is_promoted(fake, question, run_dir, project, config_dir):
    seed_ledger(config_dir, [("fake/a", 1.0), ("fake/p", 1.5)])  # fake/a sits on the bench: never promoted
    for name in "abc":
        question_member(fake, name)
    question_member(fake, "chair", question_chair=error(400, "chair is down"))
    question_member(fake, "p", question_chair=chat(answer_chair_text("Insufficient", "The trace is cut off.")))
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    rid = run["runId"]
    assert [(a["waveId"], a["model"], a["outcome"]) for a in run["chairAttempts"]] == [
        (f"{rid}-ch1", "fake/chair", "error"), (f"{rid}-ch2", "fake/chair", "error"), (f"{rid}-ch3", "fake/p", "completed")]
    assert (run["chair"], run["overallVerdict"], run["answer"]) == ("fake/p", "Insufficient", "The trace is cut off.")
    assert kinds_asked(fake, "p") == ["question-chair"]


async def test_a_chair_walk_that_never_answers_ends_null(fake, question, run_dir, project, config_dir):
    seed_ledger(config_dir, [("fake/p", 1.5)])
    for name in "abc":
        question_member(fake, name)
    question_member(fake, "chair", question_chair=error(400, "chair is down"))
    question_member(fake, "p", question_chair=chat(answer_chair_text(None)), question_chair_repair=chat("No idea."))
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    assert [a["model"] for a in run["chairAttempts"]] == ["fake/chair", "fake/chair", "fake/p"]
    assert run["overallVerdict"] is None and "answer" not in run
    verdict = load(run_dir, "verdict.json")
    assert verdict["overallVerdict"] is None and "answer" not in verdict
    assert degrade_channels(run) == ["chair"]
    assert run["degrades"][0]["what"] == "no chair answer"
    assert "the chair's output has no ANSWER line, even after one repair" in run["degrades"][0]["why"]
    md = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "No chair answer" in md and "What was lost" in md


async def test_the_walk_gives_up_with_nobody_to_promote(fake, question, run_dir, project):
    for name in "abc":
        question_member(fake, name)
    question_member(fake, "chair", question_chair=error(400, "chair is down"))
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b", "fake/c"])
    assert (code, run["overallVerdict"]) == (2, None)
    assert "no promotion candidate exists" in run["degrades"][0]["why"]


# --------------------------------------------------------------------------- weak models


async def test_weak_models_copy_the_examples_and_answer_in_the_wrong_format(fake, question, run_dir, project):
    """a copies the answer contract's example block verbatim (a valid, if empty-headed, answer);
    b answers in a review's format and is repaired into the answer contract; c's block never reads,
    so its answer is judged as prose and its claims are lost. Every judge copies the judge
    example, which names this run's own labels and claim ids."""
    judge = copycat(example_block)
    question_member(fake, "a", question=copycat(example_block), question_judge=judge, judge_repair=judge)
    question_member(fake, "b", question=chat(review("south", 2)),
                    question_repair=chat("```json\n" + json.dumps({"answer": "Postgres", "claims": [], "assumptions": [],
                                                                   "confidence": "low"}) + "\n```\n"),
                    question_judge=judge, judge_repair=judge)
    question_member(fake, "c", question=chat("Postgres, obviously. ```json\n{broken"),
                    question_repair=chat("still broken"), question_judge=judge, judge_repair=judge)
    question_member(fake, "chair")
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b", "fake/c"])
    assert code == 2 and run["judged"] is True
    check_documents(run_dir, run)
    assert degrade_channels(run) == ["stage1"] and run["degrades"][0]["what"] == "seat fake/c's key claims were lost"
    verdict = load(run_dir, "verdict.json")
    answers = {a["model"]: a for a in verdict["answers"]}
    assert answers["fake/a"]["answer"] == "your answer to the question, in one to three sentences"
    assert (answers["fake/b"]["answer"], answers["fake/b"]["claims"]) == ("Postgres", [])
    assert answers["fake/c"]["structured"] is False and "answer" not in answers["fake/c"]
    assert kinds_asked(fake, "b")[:2] == ["question", "question-repair"]
    assert kinds_asked(fake, "c")[:3] == ["question", "question-repair", "question-repair"]  # two repairs, then kept
    rows = {(r["model"], r["role"]): r["conformance"] for r in load(run_dir, "tally.json")["runStats"]}
    assert (rows[("fake/a", "seat")], rows[("fake/b", "seat")], rows[("fake/c", "seat")]) == (
        "clean", "repaired", "unstructured")
    bundle = (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    assert "_This answer carries no readable answer block: judge it by its prose._" in bundle
    assert "Answer D" not in bundle and "A2" not in bundle  # the example is this run's own
    assert kinds_asked(fake, "a")[1] == "question-judge"  # the copied judge example parsed first time


async def test_a_repair_may_not_change_the_claims_count(fake, question, run_dir, project):
    """A repair that adds a claim is refused (a repair fixes form, never substance)."""
    broken = {"answer": "Postgres", "claims": [{"id": 1, "claim": "x"}, {"id": 3, "claim": "y"}],
              "assumptions": [], "confidence": "high"}
    padded = {**broken, "claims": [{"id": i, "claim": f"c{i}"} for i in (1, 2, 3)]}
    question_member(fake, "a", question=chat(answer_text("a", block=broken)),
                    question_repair=chat(answer_text("a", block=padded)))
    question_member(fake, "b")
    question_member(fake, "c")
    question_member(fake, "chair")
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b", "fake/c"])
    assert code == 2
    assert any("changed the key claims count (2 → 3); refused" in n for n in run["notices"])
    assert "seat fake/a's key claims were lost" in [d["what"] for d in run["degrades"]]


async def test_an_empty_answer_is_a_dead_seat(fake, question, run_dir, project):
    question_member(fake, "a", question=chat(""))
    question_member(fake, "b")
    question_member(fake, "c")
    question_member(fake, "chair")
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b", "fake/c"])
    assert code == 2 and run["degrades"][0]["what"] == "seat fake/a did not answer"
    assert kinds_asked(fake, "a") == ["question"]  # a repair has no question to answer: none is sent
    assert run["labelMap"] == {"Answer A": "fake/b", "Answer B": "fake/c"}


async def test_fewer_than_two_answers_is_no_quorum(fake, question, run_dir, project):
    question_member(fake, "a", question=error(400, "down"))
    question_member(fake, "b", question=error(400, "down"))
    question_member(fake, "c")
    question_member(fake, "chair")
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b", "fake/c"])
    assert (code, run["error"]["code"]) == (1, "COUNCIL_QUORUM")
    assert "produced a usable answer" in run["error"]["message"]


# --------------------------------------------------------------------------- optional elements


async def test_a_contrarian_critic_and_debate_work_for_questions(fake, question, run_dir, project):
    """The critic answers from the contrarian brief; a Disputed claim goes back to its maker, who
    defends it in the question's own words, and the disputers vote again."""
    judges = {name: question_judge({"A1": "dispute"}) for name in "bc"}
    question_member(fake, "a", claims=1)
    question_member(fake, "b", question_judge=judges["b"])
    question_member(fake, "c", question_judge=judges["c"])
    question_member(fake, "chair")
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b", "fake/c"], critic="fake/b", debate=True)
    assert code == 0
    check_documents(run_dir, run)
    critic = (run_dir / "briefing-stage1-critic.md").read_text(encoding="utf-8")
    assert critic.startswith("# Council question briefing") and "designated contrarian" in critic
    assert fake.prompts("b")[0] == critic
    defense = next(p for p in fake.prompts("a") if kind(p) == "defense")
    assert question_debate(defense) and "**A1** (key claim) — seat-a claim 1" in defense
    revotes = [p for p in fake.prompts() if kind(p) == "revote"]
    assert len(revotes) == 2 and all(question_debate(p) for p in revotes)
    assert run["debate"]["outcome"] == "ran" and run["debate"]["defended"] == 1
    verdict = load(run_dir, "verdict.json")
    assert verdict["findings"][0]["debate"] == {"action": "defended", "previousTier": "Disputed"}
    assert "Critic seat: fake/b" in (run_dir / "report.html").read_text(encoding="utf-8")


async def test_lenses_answer_through_their_lens(fake, question, run_dir, project, config_dir):
    for name in "abc":
        question_member(fake, name)
    question_member(fake, "chair")
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b", "fake/c"],
                          lenses=["database-engineer", "sre", "finance"])
    assert code == 0
    lens = (run_dir / "briefing-stage1-lens-sre.md").read_text(encoding="utf-8")
    assert "Answer the question strictly as a “sre” would" in lens
    assert ledger(config_dir) == []  # a lens run is never recorded, for a question either


async def test_claudes_own_answer_is_judged_blind(fake, question, run_dir, project, tmp_path):
    mine = tmp_path / "claude-answer.md"
    mine.write_text(answer_text("mine", 1), encoding="utf-8")
    for name in "ab":
        question_member(fake, name)
    question_member(fake, "chair")
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b"], claude_review=str(mine))
    assert code == 0
    check_documents(run_dir, run)
    assert run["labelMap"]["Answer C"] == "claude" and (run_dir / "answer-claude.md").is_file()
    bundle = (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    assert "### Answer C\n\n**Answer:** mine answer: use Postgres" in bundle and "claude" not in bundle.lower()
    assert [k for k in kinds_asked(fake, "a")] == ["question", "question-judge"]  # claude never judges
    verdict = load(run_dir, "verdict.json")
    assert [r["model"] for r in verdict["ranking"] if r["model"] == "claude"] == ["claude"]


def test_claudes_answer_must_be_an_answer(fake, question, run_dir, project, config_dir, capsys, tmp_path):
    mine = tmp_path / "claude-answer.md"
    mine.write_text(review("claude", 1), encoding="utf-8")  # a review is not an answer
    err = preflight_refused(capsys, ["--intent", "question", "--models", "fake/a,fake/b", "--chair", "fake/chair",
                                     "--prompt-file", str(question), "--out-dir", str(run_dir), "--project",
                                     str(project), "--claude-review", str(mine)])
    assert err["code"] == "COUNCIL_CLAUDE_REVIEW_INVALID"
    assert "is not a valid answer: MISSING_ANSWER" in err["message"] and "--intent question" in err["hint"]
    assert fake.requests == []


# --------------------------------------------------------------------------- intent from a template or a pack


async def test_the_question_template_makes_a_question_council(fake, run_dir, project, tmp_path):
    trace = tmp_path / "trace.log"
    trace.write_text("12:00:01 GET /login 3021 ms\n", encoding="utf-8")
    for name in "ab":
        question_member(fake, name)
    question_member(fake, "chair")
    run, code = await run_council(RunOptions(template="question", artifact=str(trace), vars={
        "question": "Why does login take three seconds?"}, models=["fake/a", "fake/b"], chair="fake/chair",
        project=str(project), out_dir=str(run_dir)))
    run = run.to_doc()
    assert code == 0 and run["intent"] == "question"
    assert run["template"]["intent"] == "question" and load(run_dir, "options.json")["intent"] == "question"
    assert "Why does login take three seconds?" in (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")


def test_a_review_template_refuses_a_question(fake, run_dir, project, tmp_path, capsys):
    doc = tmp_path / "design.md"
    doc.write_text("# Design\n\nA cache.\n", encoding="utf-8")
    err = preflight_refused(capsys, ["--intent", "question", "--template", "design-doc", "--artifact", str(doc),
                                     "--var", "audience=ops", "--models", "fake/a,fake/b", "--chair", "fake/chair",
                                     "--out-dir", str(run_dir), "--project", str(project)])
    assert err["code"] == "BAD_ARGS"
    assert err["message"] == "--intent question does not fit template 'design-doc', which frames a review"
    assert fake.requests == []


async def test_a_pack_can_set_the_intent_and_a_typed_one_wins(fake, question, run_dir, project, tmp_path, capsys):
    assert cli_main(["council", "pack", "save", "asks", "--intent", "question", "--models", "fake/a,fake/b",
                     "--chair", "fake/chair", "--json"]) == 0
    saved = json.loads(capsys.readouterr().out)
    assert saved["pack"]["intent"] == "question"
    for name in "ab":
        question_member(fake, name)
    question_member(fake, "chair")
    run, code = await run_council(RunOptions(pack="asks", prompt_file=str(question), project=str(project),
                                             out_dir=str(run_dir)))
    run = run.to_doc()
    assert code == 0 and run["intent"] == "question" and run["pack"]["name"] == "asks"


# --------------------------------------------------------------------------- a review stays a review


async def test_an_explicit_review_intent_writes_exactly_what_no_intent_does(fake, brief, tmp_path, project):
    """`--intent review` is the default spelled out: the run's documents carry no intent key and
    options.json is the very document an untyped run writes."""
    from council_helpers import member

    for name in "ab":
        member(fake, name)
    member(fake, "chair")
    docs = []
    for intent in (None, "review"):
        out = tmp_path / f"run-{intent}"
        run, code = await run_council(RunOptions(prompt_file=str(brief), models=["fake/a", "fake/b"], chair="fake/chair",
                                                 project=str(project), out_dir=str(out), intent=intent, run_id="samerun1"
                                                 if intent is None else "samerun2"))
        assert code == 0 and "intent" not in run.to_doc()
        docs.append(out)
    for name in ("options.json",):
        assert (docs[0] / name).read_bytes() == (docs[1] / name).read_bytes()
    for name in ("tally.json", "verdict.json", "run.json", "tally-input.json"):
        assert "intent" not in load(docs[0], name) and "intent" not in load(docs[1], name)
        assert "intent" not in json.dumps(load(docs[1], name).get("meta", {}))
    assert (docs[0] / "bundle-stage2.md").read_text(encoding="utf-8") == (docs[1] / "bundle-stage2.md").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- structured outputs


def question_schema_answer(body: Any, tag: str) -> dict[str, Any] | None:
    """A schema-valid reply for whatever a question council asked, read off the schema itself."""
    fmt = body.get("response_format") if isinstance(body, dict) else None
    if not isinstance(fmt, dict):
        return None
    props = fmt["json_schema"]["schema"]["properties"]
    if "claims" in props:
        return {"reasoning": f"{tag} weighed both stores.", "answer": f"{tag}: Postgres",
                "claims": [{"id": 1, "claim": f"{tag} claim"}], "assumptions": [], "confidence": "high"}
    if "ranking" in props:
        ids = props["adjudications"]["items"]["properties"]["id"]["enum"]
        return {"analysis": "All sound.", "ranking": props["ranking"]["items"]["enum"],
                "adjudications": [{"id": i, "verdict": "agree"} for i in ids]}
    assert "standing" in props and "dissent" in props, props
    return {"synthesis": "They agree.", "dissent": ["None."], "standing": "Converged", "answer": "Postgres."}


async def test_a_structured_bench_is_held_to_the_answer_schemas(fake, question, run_dir, project, config_dir):
    from fakeprovider import configure_fake

    configure_fake(config_dir, fake, structuredOutputs=True)
    for name in ("a", "b", "chair"):
        fake.respond(name, lambda body, n=name: chat(json.dumps(question_schema_answer(body, n)), usage=u()))
    run, code = await ask(question, run_dir, project, ["fake/a", "fake/b"])
    assert (code, run["overallVerdict"], run["answer"]) == (0, "Converged", "Postgres.")
    check_documents(run_dir, run)
    requests = fake.chat_requests()
    assert len(requests) == 5 and all(r.body["response_format"]["json_schema"]["strict"] for r in requests)
    assert [leg for leg in run["legs"] if leg["role"] == "repair"] == []
    assert "```json" in (run_dir / "answer-fake-a.md").read_text(encoding="utf-8")  # kept in its readable form
    assert (run_dir / "briefing-stage1-structured.md").read_text(encoding="utf-8").count("`confidence`") == 1
    assert load(run_dir, "verdict.json")["dissent"] == ["None."]
