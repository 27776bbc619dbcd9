"""Structured outputs on every model that supports them, end to end against the loopback fake.

A model whose profile says it honours a JSON-schema `response_format` gets one with every
request (Stage 1, Stage 2 and the chair); the fake answers such a request with JSON that is
valid for the schema it was sent — reading the labels and finding ids off the schema's enums,
as a constrained decoder would — so a clean run needs no repair leg at all. A model without
the capability gets plain prompts, and one that rejects the parameter is asked once more
without it and remembered.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from council_helpers import answer_for_schema, check_documents, load, member, member_responder
from council_prompts import kind
from fakeprovider import Reply, chat, configure_fake, error, prompt_of, usage

pytestmark = pytest.mark.anyio


def schema_of(body: Any) -> dict[str, Any] | None:
    fmt = body.get("response_format") if isinstance(body, dict) else None
    return fmt["json_schema"]["schema"] if isinstance(fmt, dict) else None


def schema_answer(body: Any, tag: str) -> dict[str, Any]:
    """A schema-valid answer for whatever the engine asked, read off the schema itself."""
    return answer_for_schema(schema_of(body), tag)  # type: ignore[arg-type]


def schema_member(fake: Any, name: str) -> None:
    """`fake/<name>` answers schema requests with schema-valid JSON and plain prompts in prose."""

    def answer(body: Any) -> Reply:
        if schema_of(body) is None:
            return chat("I answer only when held to a schema.", usage=usage(100, 50))
        return chat(json.dumps(schema_answer(body, name)), model=f"vendor/{name}-1", usage=usage(100, 50))

    fake.respond(name, answer)


async def test_a_structured_bench_sends_a_schema_with_every_request_and_repairs_nothing(
        fake, council, run_dir, config_dir):
    configure_fake(config_dir, fake, structuredOutputs=True)
    for name in ("a", "b", "c", "chair"):
        schema_member(fake, name)
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)

    requests = fake.chat_requests()
    assert len(requests) == 7  # three reviews, three judgements, one chair: nothing else
    for request in requests:
        fmt = request.body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        assert "maxLength" not in json.dumps(fmt)  # cloud models get the full schema, not the local caps
    assert [leg for leg in run["legs"] if leg["role"] == "repair"] == []
    assert {row["conformance"] for row in load(run_dir, "tally.json")["runStats"]} == {"clean"}

    # The run directory keeps its readable form: prose, then the trailing json block.
    review_a = (run_dir / "review-fake-a.md").read_text(encoding="utf-8")
    assert review_a.startswith("The a reviewer finds") and review_a.rstrip().endswith("```")
    assert (run_dir / "briefing-stage1-structured.md").exists()
    assert run["overallVerdict"] == "Fix these first"
    assert load(run_dir, "tally.json")["judged"] is True


async def test_a_structured_debate_round_needs_no_repair_either(fake, council, run_dir, config_dir):
    """b disputes a's finding, so the round runs: a defends it and b re-votes, all held to schemas."""
    configure_fake(config_dir, fake, structuredOutputs=True)

    def disputing(name: str) -> Any:
        def answer(body: Any) -> Reply:
            value = schema_answer(body, name)
            if "ranking" in value:
                value["adjudications"] = [{"id": a["id"], "verdict": "dispute" if a["id"] == "A1" else "agree"}
                                          for a in value["adjudications"]]
            return chat(json.dumps(value), usage=usage(100, 50))
        return answer

    schema_member(fake, "a")
    fake.respond("b", disputing("b"))
    schema_member(fake, "chair")
    run, code = await council(["fake/a", "fake/b"], debate=True)
    assert (code, run["status"]) == (0, "complete"), run.get("degrades")
    check_documents(run_dir, run)
    assert run["debate"]["outcome"] == "ran" and run["debate"]["defended"] == 1
    assert all(r.body["response_format"]["type"] == "json_schema" for r in fake.chat_requests())
    assert [leg for leg in run["legs"] if leg["role"] == "repair"] == []
    assert {leg["role"] for leg in run["legs"] if leg["stage"] == "debate"} == {"rebuttal", "revote"}
    rebuttal = (run_dir / "rebuttal-fake-a.md").read_text(encoding="utf-8")
    assert '"action": "defend"' in rebuttal and '"claim"' not in rebuttal  # the unused half is dropped


async def test_without_the_capability_no_schema_is_sent(fake, council, run_dir):
    for name in ("a", "b"):
        member(fake, name)
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b"])
    assert code == 0
    assert all("response_format" not in r.body for r in fake.chat_requests())


async def test_a_provider_that_rejects_the_schema_is_asked_again_without_it_and_remembered(
        fake, council, run_dir, config_dir):
    configure_fake(config_dir, fake, structuredOutputs=True)
    rejected: list[str] = []

    def picky(name: str) -> Any:
        plain = member_responder(name)

        def answer(body: Any) -> Reply:
            if schema_of(body) is not None:
                rejected.append(kind(prompt_of(body)))
                return error(400, "response_format is not supported by this model")
            return plain(body)
        return answer

    for name in ("a", "b", "chair"):
        fake.respond(name, picky(name))
    run, code = await council(["fake/a", "fake/b"])
    assert (code, run["status"]) == (0, "complete")
    # One refusal per model — each in its first stage — then plain prompts for the rest of the run.
    assert sorted(rejected) == ["chair", "stage1", "stage1"]
    stage2 = [r.body for r in fake.chat_requests() if kind(prompt_of(r.body)) == "judge"]
    assert len(stage2) == 2 and all("response_format" not in body for body in stage2)


async def test_openrouter_models_get_a_schema_when_their_catalog_entry_lists_it(
        gateway, council, run_dir):
    gateway.catalog = [{"id": f"vendor/{n}", "name": n, "context_length": 100000,
                        "pricing": {"prompt": "0.000001", "completion": "0.00001"},
                        "supported_parameters": ["max_tokens", "response_format", "structured_outputs"]}
                       for n in ("a", "b")]
    gateway.catalog.append({"id": "vendor/chair", "name": "chair", "context_length": 100000,
                            "pricing": {"prompt": "0.000001", "completion": "0.00001"},
                            "supported_parameters": ["max_tokens", "temperature"]})
    for name in ("vendor/a", "vendor/b"):
        schema_member(gateway, name)
    member(gateway, "vendor/chair")
    run, code = await council(["openrouter/vendor/a", "openrouter/vendor/b"], chair="openrouter/vendor/chair")
    assert (code, run["status"]) == (0, "complete")
    for request in gateway.chat_requests():
        body = request.body
        if body["model"] == "vendor/chair":
            assert "response_format" not in body and "provider" not in body
        else:
            assert body["response_format"]["type"] == "json_schema"
            assert body["provider"] == {"require_parameters": True}
    assert [leg for leg in run["legs"] if leg["role"] == "repair"] == []


async def test_a_burst_of_leg_launches_is_written_once_and_every_finished_leg_at_once(
        fake, council, run_dir, monkeypatch):
    """run.json is checkpointed at every stage boundary and whenever a leg ends, but the eight
    launches of a stage are one write, not eight."""
    from amicus_mcp.engine import run_dir as run_dir_module  # where run.json is written

    writes: list[dict[str, Any]] = []
    real = run_dir_module.atomic_write_json

    def counting(path: Any, doc: Any, **kwargs: Any) -> Any:
        if str(path).endswith("run.json"):
            writes.append(json.loads(json.dumps(doc)))
        return real(path, doc, **kwargs)

    monkeypatch.setattr(run_dir_module, "atomic_write_json", counting)
    names = [f"s{i}" for i in range(8)]
    for name in names:
        member(fake, name)
    member(fake, "chair")
    run, code = await council([f"fake/{n}" for n in names])
    assert code == 0
    legs = len(run["legs"])  # 8 reviews, 8 judgements, 1 chair
    stage_events = sum(2 for _ in run["stages"])
    assert legs == 17 and len(writes) <= legs + stage_events + 6  # not 2 per leg
    # Every leg's end reached the disk the moment it ended: some write shows it complete
    # while a later leg was still running or not yet launched.
    ends = {leg["id"] for doc in writes for leg in doc["legs"] if leg["status"] == "complete"}
    assert ends == {leg["id"] for leg in run["legs"]}


def misnaming_judge(fake: Any, name: str) -> None:
    """`fake/<name>` answers every schema request validly, except that its judgements (and
    their repairs) rank "Response C" where the schema allows only "Review C"."""

    def answer(body: Any) -> Reply:
        reply = schema_answer(body, name)
        if "ranking" in reply:
            reply["ranking"] = [label.replace("Review C", "Response C") for label in reply["ranking"]]
        return chat(json.dumps(reply), model=f"vendor/{name}-1", usage=usage(100, 50))

    fake.respond(name, answer)


async def test_a_schema_mismatch_is_the_reason_everywhere_not_a_missing_fence(fake, council, run_dir, config_dir):
    """Issue 27 item 12: the schema's complaint reaches the repair prompt, run.json's leg and
    the notice, where the bare JSON used to be reported as NO_FENCED_BLOCK."""
    configure_fake(config_dir, fake, structuredOutputs=True)
    for name in ("a", "b", "chair"):
        schema_member(fake, name)
    misnaming_judge(fake, "c")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    check_documents(run_dir, run)
    reason = "is not one of ['Review A', 'Review B', 'Review C']"

    legs = [leg for leg in run["legs"] if leg["model"] == "fake/c" and leg["stage"] == "stage2"]
    assert [leg["role"] for leg in legs] == ["judge", "repair", "repair"]
    assert all("ranking/2: 'Response C' " + reason in leg["schemaMismatch"] for leg in legs)
    assert "schemaMismatch" not in next(leg for leg in run["legs"] if leg["model"] == "fake/a"
                                        and leg["stage"] == "stage2")
    repairs = [p for p in fake.prompts("c") if kind(p) == "judge-repair"]
    assert len(repairs) == 2 and all("- SCHEMA_MISMATCH: " in p and reason in p for p in repairs)
    assert not any("NO_FENCED_BLOCK" in p for p in repairs)

    # The judge's votes survive (item 26); the ranking naming a review that is not there does not.
    assert (code, run["status"]) == (2, "partial")
    degrade = next(d for d in run["degrades"] if d["what"] == "judge fake/c's ranking dropped")
    assert "SCHEMA_MISMATCH: " in degrade["why"] and reason in degrade["why"]
    assert "NO_FENCED_BLOCK" not in json.dumps(run)
    votes = {(f["id"], a["judge"]) for f in load(run_dir, "tally.json")["findings"] for a in f["adjudications"]}
    assert {("A1", "fake/c"), ("B1", "fake/c")} <= votes
