"""The verifier's read-only tools (issue 30 item 3): where the chair's model supports tool calling
(here: the fake server configured with `toolCalls: true`, as a local endpoint says so), a verify
leg is offered `read_file` and `search` in OpenRouter's `tools` format, each call is run inside the
project and answered as fenced untrusted text, the calls are recorded on the leg (run.json,
legs/<key>.json) and counted in the report. Whatever a naive model sends — a tool that does not
exist, malformed JSON, a path out of the project (`..`, absolute, a symlink), more calls than the
budget, calls that never stop — the run finishes, nothing outside the root is read, and the
finding gets a clear verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_helpers import load, member
from fakeprovider import (FakeProvider, chat, configure_fake, offered_tools, prompt_of, tool_call, tool_results,
                          tool_user, usage)
from test_evidence_run import BRIEF, CACHE, FAKE, REAL, seat

from amicus_mcp.engine import run_council
from amicus_mcp.engine.options import RunOptions

pytestmark = pytest.mark.anyio

SECRET = "the-outside-secret-line-42"


def answer_from_reads(body: Any) -> Any:
    """Refutes the finding when a tool result shows the real line and not the quoted one."""
    seen = "\n".join(tool_results(body))
    refuted = REAL in seen and FAKE not in seen
    block = {"answer": "refuted" if refuted else "unsure", "lines": ["src/cache.py:3"] if refuted else [],
             "reason": "read src/cache.py: line 3 clears the entries" if refuted else "could not read it"}
    return chat(f"Checked.\n\n```json\n{json.dumps(block)}\n```\n", usage=usage(10, 5))


async def verified_run(fake: FakeProvider, config_dir: Path, project: Path, run_dir: Path, plan: Any, *,
                       tools: bool = True, **options: Any) -> tuple[dict[str, Any], int]:
    if tools:
        configure_fake(config_dir, fake, toolCalls=True)
    (project / "src").mkdir()
    (project / "src" / "cache.py").write_text(CACHE, encoding="utf-8")
    (project / ".env").write_text(f"TOKEN={SECRET}\n", encoding="utf-8")
    outside = project.parent / "outside.txt"
    outside.write_text(SECRET + "\n", encoding="utf-8")
    (project / "src" / "link.txt").symlink_to(outside)
    (project / "src" / "settings.txt").symlink_to(project / ".env")  # a link inside the root, to a hidden file
    brief = project / "briefing.md"
    brief.write_text(BRIEF, encoding="utf-8")
    # b's blocker (a fabricated quote) is the only finding in scope.
    member(fake, "a", stage1=chat(seat("seat-a", severity="minor", location="src/cache.py:3", evidence=REAL)))
    member(fake, "b", stage1=chat(seat("seat-b", severity="blocker", location="src/cache.py:3", evidence=FAKE)))
    member(fake, "chair", verifier=tool_user(plan, answer_from_reads, usage=usage(10, 5)))
    opts = RunOptions(prompt_file=str(brief), models=["fake/a", "fake/b"], chair="fake/chair", project=str(project),
                      out_dir=str(run_dir), verify=True, **options)
    manifest, code = await run_council(opts)
    return manifest.to_doc(), code


def verifier_requests(fake: FakeProvider) -> list[Any]:
    return [r.body for r in fake.chat_requests("chair") if "# Verification of one finding" in prompt_of(r.body)]


def verify_legs(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [leg for leg in run["legs"] if leg["stage"] == "verify"]


def nothing_outside_was_sent(fake: FakeProvider) -> None:
    for request in fake.chat_requests():
        assert SECRET not in json.dumps(request.body), "a file outside the project (or a hidden one) reached a model"


async def test_a_verifier_with_tools_reads_the_file_itself_and_its_calls_are_recorded_and_counted(
        fake, config_dir, project, run_dir):
    def plan(body: Any, turn: int) -> Any:
        return {0: [tool_call("read_file", {"path": "src/cache.py", "first_line": 1, "last_line": 4})],
                1: [tool_call("search", {"text": "entries.clear"})]}.get(turn)

    run, code = await verified_run(fake, config_dir, project, run_dir, plan)
    assert (code, run["status"]) == (0, "complete"), run.get("error")
    requests = verifier_requests(fake)
    assert len(requests) == 3  # two calling turns, then the answer
    assert all(offered_tools(r) == ["read_file", "search"] for r in requests)
    assert "You have at most 6 tool calls" in prompt_of(requests[0])
    first, second = tool_results(requests[2])
    assert "src/cache.py lines 1-4 (untrusted file content" in first and f"    3          {REAL}" in first
    assert first.splitlines()[1] == "```text" and first.endswith("\n```")
    assert "src/cache.py:3: " in second
    [leg] = verify_legs(run)
    assert leg["toolCalls"] == [
        {"tool": "read_file", "arguments": '{"path": "src/cache.py", "first_line": 1, "last_line": 4}', "result": "ok"},
        {"tool": "search", "arguments": '{"text": "entries.clear"}', "result": "ok"}]
    assert leg["usage"]["tokens"]["input"] == 30  # three turns' usage summed (10 prompt tokens each)
    saved = [json.loads(p.read_text()) for p in (run_dir / "legs").glob("*.json")]
    assert [d["toolCalls"] for d in saved if d["stage"] == "verify"] == [leg["toolCalls"]]
    tally = load(run_dir, "tally.json")
    b1 = next(f for f in tally["findings"] if f["id"] == "B1")
    assert (b1["verification"], b1["verificationToolCalls"]) == ("refuted", 2)
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "verifier: <strong>refuted</strong> (2 tool calls)" in html
    nothing_outside_was_sent(fake)


async def test_where_the_model_does_not_support_tools_it_gets_the_cited_material_as_before(
        fake, config_dir, project, run_dir):
    run, code = await verified_run(fake, config_dir, project, run_dir, lambda body, turn: None, tools=False)
    assert (code, run["status"]) == (0, "complete"), run.get("error")
    [request] = verifier_requests(fake)
    assert "tools" not in request and "tool calls" not in prompt_of(request)
    assert "toolCalls" not in verify_legs(run)[0]
    assert "verificationToolCalls" not in next(f for f in load(run_dir, "tally.json")["findings"] if f["id"] == "B1")


async def test_naive_tool_calls_are_answered_with_errors_and_nothing_outside_the_root_is_read(
        fake, config_dir, project, run_dir):
    outside = str(project.parent / "outside.txt")

    def plan(body: Any, turn: int) -> Any:
        return {0: [tool_call("rm_rf", {"path": "/"}), tool_call("read_file", "{not json"),
                    tool_call("read_file", {"path": "../outside.txt"}), tool_call("read_file", {"path": outside})],
                1: [tool_call("read_file", {"path": "src/link.txt"}), tool_call("read_file", {"path": ".env"}),
                    tool_call("search", {"text": "outside-secret"}),
                    tool_call("read_file", {"path": "src/settings.txt"})]}.get(turn)

    run, code = await verified_run(fake, config_dir, project, run_dir, plan, verify_tool_calls=8)
    assert (code, run["status"]) == (0, "complete"), run.get("error")
    [leg] = verify_legs(run)
    assert [(c["tool"], c["result"]) for c in leg["toolCalls"]] == [
        ("rm_rf", "unknown-tool"), ("read_file", "bad-arguments"), ("read_file", "refused"), ("read_file", "refused"),
        ("read_file", "refused"), ("read_file", "refused"), ("search", "ok"), ("read_file", "refused")]
    results = tool_results(verifier_requests(fake)[-1])
    assert results[0].startswith('error: there is no tool named "rm_rf"')
    assert results[1] == "error: the arguments are not a JSON object"
    assert all(r.startswith("error: ") and "not a file inside the project" in r for r in results[2:5])
    assert results[5].startswith("error: ") and "hidden file" in results[5]
    assert "0 hit(s)" in results[6]  # the secret is in .env and outside: a search finds neither
    assert results[7].startswith("error: ") and "hidden file" in results[7]  # a link to .env is .env
    nothing_outside_was_sent(fake)
    b1 = next(f for f in load(run_dir, "tally.json")["findings"] if f["id"] == "B1")
    assert (b1["verification"], b1["verificationToolCalls"]) == ("unsure", 8)  # it read nothing useful: unsure


async def test_a_model_that_never_stops_calling_ends_unsure_when_its_budget_runs_out(
        fake, config_dir, project, run_dir):
    def plan(body: Any, turn: int) -> Any:  # five calls at once, then more on every turn, tools offered or not
        return [tool_call("search", {"text": f"entries {turn} {n}"}) for n in range(5)]

    run, code = await verified_run(fake, config_dir, project, run_dir, plan, verify_tool_calls=3)
    assert (code, run["status"]) == (0, "complete"), run.get("error")
    requests = verifier_requests(fake)
    assert len(requests) == 2  # the calling turn, then one asked for the answer without calling
    assert offered_tools(requests[0]) == ["read_file", "search"] and requests[0]["tool_choice"] == "auto"
    # The last turn holds the first one's tool calls, so it keeps the tools (an API may refuse
    # tool_calls in a conversation that offers none) and says tool_choice "none".
    assert offered_tools(requests[1]) == ["read_file", "search"] and requests[1]["tool_choice"] == "none"
    assert requests[1]["messages"][-1]["content"].startswith("You have used all 3 tool calls")
    results = tool_results(requests[1])
    assert len(results) == 5 and all(r.startswith("error: not run — the budget of 3") for r in results[3:])
    [leg] = verify_legs(run)
    assert [c["result"] for c in leg["toolCalls"]] == ["ok", "ok", "ok", "over-budget", "over-budget"]
    b1 = next(f for f in load(run_dir, "tally.json")["findings"] if f["id"] == "B1")
    assert b1["verification"] == "unsure"
    assert b1["verificationReason"].startswith("no answer: it used its 3 tool calls")
    verdict = load(run_dir, "verdict.json")
    assert any(n.startswith("the verifier of B1 is recorded unsure") for n in verdict["notices"])


async def test_each_tool_calling_turn_claims_room_and_the_launch_record_holds_every_turns_reservation(
        gateway, brief, run_dir, project):
    """Priced (the fake as OpenRouter, $1/$10 per Mtok) with a ceiling: a verifier with tools claims
    room again for each further turn, and its launch record is rewritten with what every turn has
    reserved so far — what a resume holds if the process dies mid-conversation — while run.json
    keeps the launch's own reservation."""
    from amicus_mcp.providers.catalog import ModelInfo, write_catalog
    from council_helpers import member as bench_member

    next(row for row in gateway.catalog if row["id"] == "vendor/chair")["supported_parameters"] = ["tools"]
    write_catalog([m for m in (ModelInfo.from_doc(row) for row in gateway.catalog) if m is not None])
    for name in ("vendor/a", "vendor/b"):
        bench_member(gateway, name, cost=0.001)
    plan = lambda body, turn: [tool_call("search", {"text": f"cache {turn}"})] if turn < 2 else None  # noqa: E731
    bench_member(gateway, "vendor/chair", cost=0.001, verifier=tool_user(plan, answer_from_reads,
                                                                            usage=usage(100, 50, cost=0.001)))
    opts = RunOptions(prompt_file=str(brief), models=["openrouter/vendor/a", "openrouter/vendor/b"],
                      chair="openrouter/vendor/chair", project=str(project), out_dir=str(run_dir), verify=True,
                      max_cost=5.0)
    manifest, code = await run_council(opts)
    run = manifest.to_doc()
    assert run["status"] in ("complete", "partial"), run.get("error")
    legs = verify_legs(run)
    assert legs and all(len(leg["toolCalls"]) == 2 for leg in legs)
    for leg in legs:
        [launch] = [json.loads(p.read_text()) for p in (run_dir / "legs").glob("*.launch")
                    if json.loads(p.read_text())["id"] == leg["id"]]
        # Three turns, each prompt larger than the last: more than three times the first turn's claim.
        assert launch["reserved"] > 3 * leg["reserved"] > 0, (launch, leg["reserved"])


@pytest.mark.parametrize("arguments", ["[" * 50_000 + "]" * 50_000, '{"path": NaN}', '{"path": "a", "n": 1e999}'],
                         ids=["too-deep", "nan", "infinite"])
def test_a_tool_calls_arguments_are_read_as_strict_bounded_json(tmp_path: Path, arguments: str) -> None:
    """A model's tool-call arguments are untrusted output, read as every input document is
    (fsio.loads_json): a nest too deep for Python's parser, NaN or an infinite number is a
    bad-arguments answer the model can read, never a crash of the leg."""
    from amicus_mcp.engine.source_tools import Toolbox
    from amicus_mcp.engine.sources import SourceReader
    from amicus_mcp.providers.base import ToolCall

    tools = Toolbox(SourceReader([tmp_path]), budget=3)
    assert tools.run(ToolCall("c1", "read_file", arguments)) == "error: the arguments are not a JSON object"
    assert tools.records[-1].result == "bad-arguments"
