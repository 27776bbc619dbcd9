"""Issue 19, money and pre-flight: every model a run calls passes the same checks, a ceiling
fits the run or is refused before anything is spent, and a run bigger than the models can read
is refused before anything is sent.

End to end through `amicus council run` (in-process CLI, `--json`) against the loopback fake
as OpenRouter (the `gateway` fixture: $1/$10 per million prompt/completion tokens). Where a
test says "before any request", the model catalog is cached first, so the fake's request
counter — the catalog listing included — stays at 0.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from council_helpers import check_documents, kind, member, preflight_refused, review, seed_ledger, u, verdict_text
from fakeprovider import FakeProvider, Reply, catalog_row, chat, context_too_long, error

from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine.budget import OUTPUT_CAPS
from amicus_mcp.providers.catalog import ModelInfo, write_catalog
from amicus_mcp.schemas import schema_errors

SEATS = ["openrouter/vendor/a", "openrouter/vendor/b", "openrouter/vendor/c"]
CHAIR = "openrouter/vendor/chair"


def args(brief: Path, run_dir: Path, project: Path, *extra: str, models: list[str] = SEATS,
         chair: str = CHAIR) -> list[str]:
    return ["--models", ",".join(models), "--chair", chair, "--prompt-file", str(brief), "--out-dir", str(run_dir),
            "--project", str(project), *extra]


def cache_catalog(fake: FakeProvider) -> None:
    """The fake's catalog as the cached one, so a run reads it without a request."""
    write_catalog([m for m in (ModelInfo.from_doc(row) for row in fake.catalog) if m is not None])


def bench(fake: FakeProvider, cost: float = 0.001, *names: str) -> None:
    for name in names or ("vendor/a", "vendor/b", "vendor/c", "vendor/chair"):
        member(fake, name, cost=cost)


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, Any]]:
    code = cli_main(["council", "run", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def nothing_sent(fake: FakeProvider, run_dir: Path) -> None:
    assert fake.requests == [] and not run_dir.exists()


# --------------------------------------------------------------------------- item 1: the chair


def test_a_chair_missing_from_the_catalog_is_refused_before_anything_is_spent(gateway, brief, run_dir, project,
                                                                              capsys):
    """A bench of your own servers and a typo'd OpenRouter chair: the catalog is read for the
    chair alone, and the chair is refused before Stage 1 (it used to run stages 1 and 2 first)."""
    bench(gateway)
    for name in "abc":
        member(gateway, name)
    err = preflight_refused(capsys, args(brief, run_dir, project, models=["fake/a", "fake/b", "fake/c"],
                                         chair="openrouter/zeta/c"))
    assert err["code"] == "BAD_MODEL"
    assert err["message"] == "--chair: Model 'zeta/c' is not in the OpenRouter model catalog"
    assert gateway.chat_requests() == [] and not run_dir.exists()


def test_a_chair_above_the_cost_gate_is_refused_like_the_same_model_as_a_seat(gateway, brief, run_dir, project,
                                                                              capsys):
    gateway.catalog.append(catalog_row("vendor/pricey", completion="0.0001"))  # $100 per million tokens
    cache_catalog(gateway)
    bench(gateway, 0.001, "vendor/a", "vendor/b", "vendor/c", "vendor/pricey")
    as_seat = preflight_refused(capsys, args(brief, run_dir, project, models=[SEATS[0], "openrouter/vendor/pricey"]))
    as_chair = preflight_refused(capsys, args(brief, run_dir, project, chair="openrouter/vendor/pricey"))
    as_critic = preflight_refused(capsys, args(brief, run_dir, project, "--critic", "openrouter/vendor/pricey",
                                               models=[SEATS[0], "openrouter/vendor/pricey"]))
    assert as_seat["code"] == as_chair["code"] == as_critic["code"] == "BUDGET_EXCEEDED"
    assert as_chair["message"] == ("--chair: " + as_seat["message"]) == (
        "--chair: Model 'openrouter/vendor/pricey' costs $100.00 per million tokens, above the $60.00/Mtok cost gate")
    nothing_sent(gateway, run_dir)
    code, run = run_json(capsys, args(brief, run_dir, project, "--no-cost-gate", chair="openrouter/vendor/pricey"))
    assert (code, run["status"], run["chair"]) == (0, "complete", "openrouter/vendor/pricey")


def test_a_chair_whose_key_is_not_set_is_refused(gateway, brief, run_dir, project, capsys, monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY")
    for name in "abc":
        member(gateway, name)
    err = preflight_refused(capsys, args(brief, run_dir, project, models=["fake/a", "fake/b", "fake/c"]))
    assert err["code"] == "MISSING_KEY" and err["message"].startswith("--chair: 'openrouter/vendor/chair' runs through")
    nothing_sent(gateway, run_dir)


def test_a_promoted_chair_passes_the_checks_the_requested_chair_passed(gateway, council, run_dir, config_dir):
    """The ledger's best model off the bench is over the cost gate: the walk skips it and
    promotes the next one, and the over-priced model is never called."""
    gateway.catalog += [catalog_row("vendor/pricey", completion="0.0001"), catalog_row("vendor/p")]
    seed_ledger(config_dir, [("openrouter/vendor/pricey", 1.0), ("openrouter/vendor/p", 1.5)])
    bench(gateway, 0.001, "vendor/a", "vendor/b", "vendor/c", "vendor/pricey")
    member(gateway, "vendor/chair", chair=error(400, "the chair is down"))
    member(gateway, "vendor/p", chair=chat(verdict_text("Ship it"), model="vendor/p-1", usage=u(0.001)))
    run, code = await_run(council, SEATS)
    assert (code, run["chair"], run["overallVerdict"]) == (0, "openrouter/vendor/p", "Ship it")
    assert [a["model"] for a in run["chairAttempts"]] == [CHAIR, CHAIR, "openrouter/vendor/p"]
    assert gateway.prompts("vendor/pricey") == []


def await_run(council: Any, models: list[str], **options: Any) -> tuple[dict[str, Any], int]:
    import anyio

    return anyio.run(lambda: council(models, chair=CHAIR, **options))


# --------------------------------------------------------------------------- item 2: a ceiling that fits


def test_a_ceiling_ten_times_the_real_cost_lets_the_run_run(gateway, brief, tmp_path, project, capsys):
    """The issue's case: a run that really costs about a cent, under a ceiling ten times that.
    Each review used to reserve its whole 16,000-token cap (~$0.16, more than the ceiling), so
    every seat was refused and the run ended COUNCIL_QUORUM. Now the legs share the room: each
    is sent with the cap its share pays for, and the run completes, inside the ceiling."""
    bench(gateway, 0.0015)
    code, reference = run_json(capsys, args(brief, tmp_path / "reference", project))
    real = reference["usage"]["cost"]["amount"]
    assert (code, real) == (0, pytest.approx(0.0105))
    ceiling = round(10 * real, 4)
    run_dir = tmp_path / "ceiling"
    code, run = run_json(capsys, args(brief, run_dir, project, "--max-cost", str(ceiling)))
    assert (code, run["status"]) == (0, "complete"), run.get("degrades")
    check_documents(run_dir, run)
    assert "budgetRefusals" not in run and "degrades" not in run
    assert run["usage"]["cost"]["amount"] == pytest.approx(real) and run["usage"]["costExact"] is True
    reviews = [leg for leg in run["legs"] if leg["stage"] == "stage1"]
    assert all(1_000 <= leg["maxTokens"] < OUTPUT_CAPS[("stage1", "review")] for leg in reviews)
    # Never overshooting: Stage 1's claims, made at once, fit the ceiling with the floors of the
    # judges and the chair held back; every request carried the cap it reserved.
    assert sum(leg["reserved"] for leg in reviews) <= ceiling
    sent = [r.body["max_tokens"] for r in gateway.chat_requests() if kind(r.body["messages"][-1]["content"]) == "stage1"]
    assert sorted(sent[-3:]) == sorted(leg["maxTokens"] for leg in reviews)
    print(f"\nreal cost ${real:.4f}; ceiling ${ceiling}; review caps {[leg['maxTokens'] for leg in reviews]}; "
          f"judge caps {[leg['maxTokens'] for leg in run['legs'] if leg['stage'] == 'stage2']}")


def test_a_ceiling_that_cannot_hold_the_run_is_refused_before_any_request(gateway, brief, run_dir, project, capsys):
    cache_catalog(gateway)
    bench(gateway)
    err = preflight_refused(capsys, args(brief, run_dir, project, "--max-cost", "0.02"))
    assert err["code"] == "COST_CEILING_TOO_LOW"
    assert err["message"] == (
        "the --max-cost $0.02 ceiling cannot hold this run even with every answer at its smallest output cap: it "
        "reserves Stage 1 3 leg(s) of up to $0.0105 each (1,000-token answers); Stage 2 3 leg(s) of up to $0.0127 "
        "each (750-token answers); the chair 1 leg(s) of up to $0.0127 each (750-token answers), $0.0821 in all. "
        "The smallest ceiling that fits is $0.0822")
    assert err["hint"] == "raise --max-cost to at least 0.0822, or pick cheaper models or fewer seats"
    nothing_sent(gateway, run_dir)
    code = cli_main(["council", "run", *args(brief, run_dir, project, "--max-cost", "0.02")])
    assert code == 1 and "Error: the --max-cost $0.02 ceiling cannot hold" in capsys.readouterr().err


# --------------------------------------------------------------------------- item 4: context windows


@pytest.mark.parametrize("who, window, what, tokens", [
    ("vendor/a", 1_200, "the Stage-1 briefing", 490),  # its findings contract asks for evidence (issue 30)
    ("vendor/b", 5_000, "the Stage-2 bundle (the briefing and 3 reviews, each at its 1,000-token floor)", 5_162),
    ("vendor/chair", 5_000, "the chair packet (the briefing and 3 reviews, each at its 1,000-token floor)", 5_185),
])
def test_a_prompt_longer_than_a_window_is_refused_before_any_request(gateway, brief, run_dir, project, capsys,
                                                                     who, window, what, tokens):
    next(row for row in gateway.catalog if row["id"] == who)["context_length"] = window
    cache_catalog(gateway)
    bench(gateway)
    err = preflight_refused(capsys, args(brief, run_dir, project))
    floor = {"vendor/a": 1_000, "vendor/b": 750, "vendor/chair": 750}[who]
    assert err["code"] == "CONTEXT_LENGTH_EXCEEDED"
    assert err["message"] == (f"'openrouter/{who}' has a {window:,}-token context window, and {what} is about "
                              f"{tokens:,} tokens, plus at least {floor:,} for its answer")
    assert "context window" in err["hint"]
    nothing_sent(gateway, run_dir)


def test_a_window_that_holds_the_bundle_only_with_shorter_reviews_gets_them(gateway, brief, run_dir, project, capsys):
    """A judge with a 20,000-token window can read three reviews of ~4,100 tokens, not of 16,000:
    every review is asked for with that cap, so the run fits instead of failing at Stage 2."""
    next(row for row in gateway.catalog if row["id"] == "vendor/c")["context_length"] = 20_000
    bench(gateway)
    code, run = run_json(capsys, args(brief, run_dir, project))
    assert (code, run["status"]) == (0, "complete")
    caps = {leg["maxTokens"] for leg in run["legs"] if leg["stage"] == "stage1"}
    assert caps == {4_130}
    judge_c = next(leg for leg in run["legs"] if leg["stage"] == "stage2" and leg["model"] == SEATS[2])
    assert judge_c["maxTokens"] == OUTPUT_CAPS[("stage2", "judge")]  # its real bundle left room for the whole cap


def test_a_lowered_review_cap_is_said_and_a_review_it_cut_is_a_loss(gateway, brief, run_dir, project, capsys):
    """Issue 27 item 18: the judge's window that lowered every review's cap is named in a notice
    before anything is lost, and a review cut at that lower cap is in the run's degrades (the
    report's "What was lost"), not only a notice."""
    next(row for row in gateway.catalog if row["id"] == "vendor/c")["context_length"] = 20_000
    bench(gateway)
    member(gateway, "vendor/a", stage1=chat(review("north"), model="vendor/a-1", usage=u(0.001), finish="length"))
    code, run = run_json(capsys, args(brief, run_dir, project))
    check_documents(run_dir, run)
    reason = ("Stage-1 reviews are capped at 4,130 tokens instead of 16,000 so that the judge openrouter/vendor/c, "
              "with a 20,000-token context window, can read every review")
    assert f"{reason}; a review that needs more is cut at the lower cap" in run["notices"]
    assert (code, run["status"]) == (2, "partial")
    cut = next(d for d in run["degrades"] if d["channel"] == "stage1")
    assert cut["what"] == "the review of openrouter/vendor/a was cut at 4,130 tokens"
    assert cut["why"] == f"{reason} (leg {run['runId']}-s1-1); its reply is incomplete"
    assert "review of openrouter/vendor/a was cut at 4,130 tokens" in (run_dir / "report.html").read_text(encoding="utf-8")


def test_a_large_prompt_to_a_model_of_unknown_window_is_said(fake, tmp_path, run_dir, project, capsys):
    """Issue 27 item 18: no window is known for your own servers; a ~40,000-token briefing is
    still sent, and the run says so rather than nothing."""
    big = tmp_path / "big.md"
    big.write_text("Review the design of the widget cache.\n\n" + "The cache evicts entries on every write. " * 4_000,
                   encoding="utf-8")
    for name in ("a", "b", "chair"):
        member(fake, name)
    code, run = run_json(capsys, args(big, run_dir, project, models=["fake/a", "fake/b"], chair="fake/chair"))
    assert code == 0
    unchecked = [n for n in run["notices"] if "without a context-window check" in n]
    assert [n.split(" is sent")[0] for n in unchecked] == ["fake/a", "fake/b", "fake/chair"]
    assert re.fullmatch(r"fake/a is sent the briefing \(about [\d,]+ tokens; the reviews add to it after Stage 1\) "
                        r"without a context-window check: its provider is not in the model catalog, and amicus knows "
                        r"no window for it; if its window is smaller, that leg fails", unchecked[0])
    # A small briefing fits every window in use: nothing is said of it.
    small = tmp_path / "small.md"
    small.write_text("Review the design of the widget cache.\n", encoding="utf-8")
    code, run = run_json(capsys, args(small, run_dir.parent / "small-run", project, models=["fake/a", "fake/b"],
                                      chair="fake/chair"))
    assert code == 0 and not [n for n in run.get("notices", []) if "context-window check" in n]


def test_a_catalog_entry_without_a_window_is_named_as_such(gateway, tmp_path, run_dir, project, capsys):
    """The issue's case: OpenRouter models whose catalog rows give no contextLength."""
    for row in gateway.catalog:
        row["context_length"] = None
    big = tmp_path / "big.md"
    big.write_text("Review the design of the widget cache.\n\n" + "The cache evicts entries on every write. " * 4_000,
                   encoding="utf-8")
    bench(gateway)
    code, run = run_json(capsys, args(big, run_dir, project))
    assert code == 0
    said = next(n for n in run["notices"] if n.startswith("openrouter/vendor/a is sent the briefing"))
    assert "without a context-window check: the model catalog lists 'vendor/a' with no contextLength" in said


@pytest.mark.parametrize("reply", [
    context_too_long(), context_too_long(status=413),
    Reply(body={"error": {"message": "Input is too long for the model's context window"}}),  # no code at all
], ids=["400", "413", "in-a-200-body"])
def test_a_providers_context_length_answer_is_said_as_such(fake, brief, run_dir, project, capsys, reply):
    """Not a provider outage (no retry, no schema-less re-send) and not a bare rejection: the leg,
    the run's degrades and the report all say the prompt did not fit the window."""
    for name in ("a", "c", "chair"):
        member(fake, name)
    member(fake, "b", stage1=reply)
    code, run = run_json(capsys, args(brief, run_dir, project, models=["fake/a", "fake/b", "fake/c"],
                                      chair="fake/chair"))
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    leg = next(leg for leg in run["legs"] if leg["model"] == "fake/b" and leg["stage"] == "stage1")
    assert leg["error"]["code"] == "CONTEXT_LENGTH_EXCEEDED"
    assert "does not fit the model's context window" in leg["error"]["message"]
    assert [kind(p) for p in fake.prompts("b")] == ["stage1"]  # asked once: a retry would not fit either
    degrade = next(d for d in run["degrades"] if d["what"] == "seat fake/b did not review")
    assert degrade["why"].startswith("CONTEXT_LENGTH_EXCEEDED: ")
    assert "CONTEXT_LENGTH_EXCEEDED" in (run_dir / "report.html").read_text(encoding="utf-8")


def test_a_prompt_the_run_can_see_is_too_long_is_never_sent(gateway, council, run_dir):
    """At run time the judge bundle is known exactly. A model that answers past its cap (b's
    review is ~15,000 tokens where it was asked for ~3,000) makes a bundle the plan's bound did
    not foresee: the judge whose window cannot hold it is recorded as not sent, at a known $0."""
    bench(gateway)
    member(gateway, "vendor/b", stage1=chat("x " * 30_000 + "\n```json\n{\"overall\": \"o\", \"findings\": []}\n```",
                                             model="vendor/b-1", usage=u(0.001)))
    next(row for row in gateway.catalog if row["id"] == "vendor/c")["context_length"] = 15_000
    run, code = await_run(council, SEATS)
    judge = next(leg for leg in run["legs"] if leg["stage"] == "stage2" and leg["model"] == SEATS[2])
    assert judge["status"] == "error" and judge["error"]["code"] == "CONTEXT_LENGTH_EXCEEDED"
    assert judge["error"]["message"].startswith("not sent: the prompt is about")
    assert judge["usage"]["cost"] == {"amount": 0.0, "currency": "USD", "source": "reported"}
    assert [kind(p) for p in gateway.prompts("vendor/c")] == ["stage1"]  # never sent
    assert (code, run["judged"]) == (2, True)
    assert any(d["what"] == "judge openrouter/vendor/c produced no judgement" for d in run["degrades"])


def test_provider_context_errors_are_classified_in_every_shape() -> None:
    import httpx

    from amicus_mcp.providers.errors import ContextTooLong, ProviderDown
    from amicus_mcp.providers.openai_compat import error_for_status, error_from_body

    openai = json.dumps({"error": {"message": "This model's maximum context length is 8192 tokens.",
                                   "code": "context_length_exceeded"}}).encode()
    for status in (400, 413, 422, 500):
        assert isinstance(error_for_status(status, openai, httpx.Headers(), provider="p", model="m"), ContextTooLong)
    assert isinstance(error_from_body({"message": "prompt is too long: 210000 tokens > 200000 maximum"},
                                      provider="p", model="m"), ContextTooLong)
    assert isinstance(error_from_body({"message": "upstream stream broke"}, provider="p", model="m"), ProviderDown)
    other = json.dumps({"error": {"message": "temperature must be at most 2"}}).encode()
    assert not isinstance(error_for_status(400, other, httpx.Headers(), provider="p", model="m"), ContextTooLong)


def test_the_error_envelope_knows_the_new_codes(gateway, brief, run_dir, project, capsys):
    next(row for row in gateway.catalog if row["id"] == "vendor/a")["context_length"] = 1_000
    cache_catalog(gateway)
    code = cli_main(["council", "run", *args(brief, run_dir, project), "--json"])
    envelope = json.loads(capsys.readouterr().out)
    assert code == 1 and schema_errors(envelope, "error") == []
    assert envelope["error"]["code"] == "CONTEXT_LENGTH_EXCEEDED"


def test_with_verify_a_chair_window_too_small_for_a_verifier_prompt_is_refused_before_any_request(
        gateway, brief, run_dir, project, capsys):
    """Issue 30: the verifier runs on the chair's model; on a two-seat bench its prompt (one finding
    and up to 12,000 characters of source) is the longest the chair reads, so --verify is checked
    against the chair's window before anything is sent — and without --verify the same run fits."""
    from amicus_mcp.engine.limits import verify_prompt_bound

    next(row for row in gateway.catalog if row["id"] == "vendor/chair")["context_length"] = 5_000
    cache_catalog(gateway)
    bench(gateway)
    two = ["openrouter/vendor/a", "openrouter/vendor/b"]
    err = preflight_refused(capsys, args(brief, run_dir, project, "--verify", models=two))
    tokens = verify_prompt_bound(datetime.now(timezone.utc).strftime("%Y-%m-%d"))
    assert err["code"] == "CONTEXT_LENGTH_EXCEEDED"
    assert err["message"] == (f"'openrouter/vendor/chair' has a 5,000-token context window, and a verifier prompt "
                              f"(one finding and its source excerpts) is about {tokens:,} tokens, plus at least 250 "
                              "for its answer")
    nothing_sent(gateway, run_dir)
    code, run = run_json(capsys, args(brief, run_dir, project, models=two))
    assert code == 0 and run["status"] == "complete"


def test_with_verify_and_a_ceiling_preflight_bounds_the_verifier_legs_and_refuses_before_any_request(
        gateway, brief, run_dir, project, capsys):
    """Issue 30: how many findings --verify checks is known only after the votes, so pre-flight
    bounds it — --verify-max findings, each leg at its floor (and, for a chair whose model takes
    tools, one turn per tool call and its answer) — and a ceiling that holds the run but not that
    bound is refused before anything is sent."""
    from amicus_mcp.engine.limits import tool_reads_bound, verify_prompt_bound

    cache_catalog(gateway)
    bench(gateway)
    prompt = verify_prompt_bound(datetime.now(timezone.utc).strftime("%Y-%m-%d"))
    per_leg = prompt * 1e-6 + 250 * 1e-5
    err = preflight_refused(capsys, args(brief, run_dir, project, "--max-cost", "0.0822", "--verify"))
    assert err["code"] == "COST_CEILING_TOO_LOW"
    assert (f"the verifier up to 12 leg(s) (--verify-max 12), ${12 * per_leg:.4f} in all (250-token answers); "
            "the chair 1 leg(s)") in err["message"]
    assert err["hint"].endswith("(or a lower --verify-max or --verify-tool-calls)")
    nothing_sent(gateway, run_dir)
    # A lower cap fits a smaller bound: the same ceiling plus one leg's floor passes pre-flight.
    ceiling = f"{0.0822 + per_leg + 0.0001:.4f}"
    err = preflight_refused(capsys, args(brief, run_dir, project, "--max-cost", ceiling, "--verify"))
    assert err["code"] == "COST_CEILING_TOO_LOW"
    code, run = run_json(capsys, args(brief, run_dir, project, "--max-cost", ceiling, "--verify", "--verify-max", "1"))
    assert code in (0, 2) and run["status"] in ("complete", "partial"), run
    # A chair whose model takes tools: each leg may take one turn per call and one to answer.
    next(row for row in gateway.catalog if row["id"] == "vendor/chair")["supported_parameters"] = ["tools"]
    cache_catalog(gateway)
    per_turn = (prompt + tool_reads_bound(2)) * 1e-6 + 250 * 1e-5
    err = preflight_refused(capsys, args(brief, run_dir.parent / "r2", project, "--max-cost", ceiling, "--verify",
                                         "--verify-max", "1", "--verify-tool-calls", "2"))
    assert (f"the verifier up to 1 leg(s) of up to 3 turns each (--verify-max 1), ${3 * per_turn:.4f} in all"
            in err["message"]), err
