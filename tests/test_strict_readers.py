"""Issue 19 item 19: every JSON reader goes through the one strict reader (`fsio.loads_json`).

A 5,000-digit integer (past Python's 4,300-digit conversion limit) in any document amicus
reads is a clear BAD_ARGS naming the document — never INTERNAL, never a traceback — or, where
the document is only advisory (a ledger row, the catalog cache), it is skipped as unreadable.
One case per reader kind: pack, template front matter, decisions file, tally input, verdict,
run.json, options.json, config.json, ledger rows, catalog cache, a review's findings block, a
provider's reply.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_harness import check_contract, run_cli
from fakeprovider import FakeProvider, Reply, ask

from amicus_mcp.providers.catalog import read_cached_catalog
from amicus_mcp.providers.errors import MalformedReply
from amicus_mcp.providers.openai_compat import OpenAICompatibleProvider

ROOT = Path(__file__).resolve().parents[1]
TALLY = ROOT / "tests" / "fixtures" / "worked-example" / "tally.json"
VERDICT = ROOT / "tests" / "fixtures" / "worked-example" / "verdict.json"
TALLY_INPUT = ROOT / "examples" / "worked-example" / "tally-input.json"
HUGE = "7" * 5000  # a JSON integer Python's int() refuses to convert by default


def with_huge(doc: Any, key: str = "note") -> str:
    """`doc` as JSON text with `"<key>": <5,000 digits>` added to its (first) object."""
    target = doc[0] if isinstance(doc, list) else doc
    target[key] = "HUGE"
    return json.dumps(doc).replace('"HUGE"', HUGE, 1)


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def refused(result: Any, *words: str, as_json: bool = True) -> str:
    """The BAD_ARGS message of a refused command, checked against the CLI's contract."""
    check_contract(result, as_json=as_json)
    if as_json:
        error = result.envelope()["error"]
        assert (result.code, error["code"]) == (1, "BAD_ARGS"), error
        message = error["message"]
    else:
        assert result.code == 1 and result.err.startswith("Error: "), result
        message = result.err
    assert "out of range" in message and HUGE[:40] not in message
    for word in words:
        assert word in message, message
    return message


def test_a_pack(tmp_path: Path, config_dir: Path) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(with_huge({"name": "p", "models": ["fake/a", "fake/b"]}, "maxCost"), encoding="utf-8")
    refused(run_cli("council", "pack", "show", str(pack), "--json"), "pack")
    brief = tmp_path / "brief.md"
    brief.write_text("Review the cache.\n", encoding="utf-8")
    refused(run_cli("council", "run", "--pack", str(pack), "--prompt-file", str(brief), "--json"), "pack")


def test_a_templates_front_matter(tmp_path: Path, config_dir: Path) -> None:
    template = tmp_path / "mine.md"
    front = with_huge({"title": "t", "description": "d", "variables": {"goal": {"description": "g"}}}, "version")
    template.write_text(f"---\n{front}\n---\nReview $artifact for $goal.\n", encoding="utf-8")
    refused(run_cli("council", "template", "show", str(template), "--json"), "front matter")


def test_a_decisions_file(tmp_path: Path, config_dir: Path) -> None:
    decisions = tmp_path / "d.json"
    decisions.write_text(with_huge([{"id": "A1", "decision": "accepted"}]), encoding="utf-8")
    refused(run_cli("council", "verdict", str(TALLY), "--decisions", str(decisions), "-o", str(tmp_path / "v.json"),
                    "--json"), "decisions file")
    assert not (tmp_path / "v.json").exists()


def test_a_tally_input(tmp_path: Path, config_dir: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text(with_huge(load(TALLY_INPUT)), encoding="utf-8")
    refused(run_cli("council", "tally", str(source), "--json"), "tally input")
    assert not (config_dir / "council-ledger.jsonl").exists()


def test_a_verdict(tmp_path: Path, config_dir: Path) -> None:
    verdict = tmp_path / "verdict.json"
    verdict.write_text(with_huge(load(VERDICT)), encoding="utf-8")
    refused(run_cli("council", "report", str(verdict)), "verdict file", as_json=False)


def aborted_run(run_dir: Path) -> dict[str, Any]:
    """The run.json of an aborted run that `council resume` would take up."""
    run_dir.mkdir()
    return {"schemaVersion": 2, "type": "council-run", "runId": "feed1234", "status": "aborted", "stages": [],
            "bench": ["fake/a", "fake/b"], "chair": "fake/chair", "briefingSha256": "0" * 64, "optionsSha256": "0" * 64}


def test_a_run_json(tmp_path: Path, config_dir: Path) -> None:
    run_dir = tmp_path / "run"
    (run_dir / "run.json").parent.mkdir()
    (run_dir / "run.json").write_text(with_huge(aborted_run(tmp_path / "other")), encoding="utf-8")
    refused(run_cli("council", "resume", str(run_dir), "--json"), "run manifest")


def test_an_options_json(tmp_path: Path, config_dir: Path) -> None:
    run_dir = tmp_path / "run"
    (run_dir / "run.json").parent.mkdir(exist_ok=True)
    doc = aborted_run(tmp_path / "other")
    (run_dir / "run.json").write_text(json.dumps(doc), encoding="utf-8")
    options = {"schemaVersion": 2, "type": "council-run-options", "promptFile": "b.md", "models": ["fake/a", "fake/b"]}
    (run_dir / "options.json").write_text(with_huge(options, "timeoutMinutes"), encoding="utf-8")
    refused(run_cli("council", "resume", str(run_dir), "--json"), "cannot be resumed", "run options")


def test_a_config_json(config_dir: Path) -> None:
    (config_dir / "config.json").write_text(with_huge({"councils": {}}), encoding="utf-8")
    refused(run_cli("council", "list", "--json"), "config file")


def test_ledger_rows(config_dir: Path) -> None:
    good = {"runId": "r1", "model": "deepseek", "date": "2026-01-01T00:00:00Z", "judged": True,
            "streetCredPeersOnly": 1.5, "confirmRate": 0.5, "factErrorRate": 0.0, "conformance": "clean"}
    rows = [json.dumps(good), with_huge({**good, "runId": "r2", "model": "gpt"}), "NaN", '{"runId": NaN}']
    (config_dir / "council-ledger.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = run_cli("council", "stats", "--json")
    check_contract(result, as_json=True)
    stats = json.loads(result.out)
    assert result.code == 0 and [m["aliases"][0] for m in stats["models"]] == ["deepseek"]  # the bad rows are skipped


def test_the_catalog_cache(config_dir: Path) -> None:
    cache = {"schemaVersion": 1, "type": "model-catalog", "fetchedAt": "2026-01-01T00:00:00Z",
             "models": [{"id": "vendor/a", "contextLength": 1000}]}
    (config_dir / "model-catalog.json").write_text(with_huge(cache), encoding="utf-8")
    assert read_cached_catalog().is_empty  # unreadable: the same as no cache (it is only advisory)
    result = run_cli("council", "show", "budget", "--offline", "--json")
    check_contract(result, as_json=True)
    assert result.code == 0 and json.loads(result.out)["catalog"]["checked"] is False


def test_a_reviews_findings_block(tmp_path: Path, config_dir: Path) -> None:
    for number in (HUGE, "1e999"):
        review = tmp_path / "review.md"
        review.write_text('The cache.\n\n```json\n{"overall": "o", "findings": [{"id": 1, "severity": "major", '
                          f'"claim": "c", "location": "l", "rationale": "r", "confidence": {number}}}]}}\n```\n',
                          encoding="utf-8")
        result = run_cli("council", "validate", str(review), "--json")
        check_contract(result, as_json=True)
        doc = json.loads(result.out)
        assert result.code == 2 and [e["code"] for e in doc["errors"]] == ["NOT_PARSEABLE"], doc
        assert "out of range" in doc["errors"][0]["detail"]


@pytest.mark.anyio
@pytest.mark.parametrize("where", ["reply", "structured reply", "error body"])
async def test_a_providers_reply(fake: FakeProvider, where: str) -> None:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": '{"findings": []}'},
                         "finish_reason": "stop"}]}
    reply = {
        "reply": Reply(body=with_huge(body, "created")),
        "structured reply": Reply(body={**body, "choices": [{**body["choices"][0], "message": {
            "role": "assistant", "content": '{"findings": [], "n": ' + HUGE + "}"}}]}),
        "error body": Reply(status=400, body=with_huge({"error": {"message": "bad request"}}, "code")),
    }[where]
    fake.script("m", reply)
    async with OpenAICompatibleProvider("fake", fake.base_url, None) as provider:
        schema = {"type": "object", "properties": {"findings": {"type": "array"}}, "required": ["findings"]}
        with pytest.raises(Exception) as info:
            await provider.complete(ask("m", json_schema=schema))
    if where == "error body":  # unreadable as JSON: shown as the text it is, cut
        assert type(info.value).__name__ == "ProviderRejected" and "HTTP 400" in str(info.value)
    else:
        assert isinstance(info.value, MalformedReply) and "out of range" in str(info.value)
