"""amicus_verdict remembers the accept / deny decisions (and reasons) for the project it is given,
the memory `amicus decisions list` shows and a later run reads (issue 32 §4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp_fixtures import project  # noqa: F401 - the fixture
from mcp_helpers import REPO, body, in_process

from amicus_mcp.engine.decisions import list_decisions
from amicus_mcp.schemas import schema_errors

FIXTURES = REPO / "tests" / "fixtures" / "worked-example"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.anyio
async def test_amicus_verdict_remembers_a_denied_finding_with_its_reason(project: Path) -> None:
    record = load(FIXTURES / "tally.json")
    decisions = [{"id": "A1", "decision": "denied", "reason": "a toggle is out of scope for v1"},
                 {"id": "B1", "decision": "deferred"}]
    async with in_process("auto") as client:
        result = body(await client.call_tool("amicus_verdict", {"record": record, "decisions": decisions,
                                                                "project": str(project)}))
    assert result["verdict"]["findings"][0]["decision"] == "denied"
    doc = list_decisions(project.resolve())
    assert schema_errors({k: v for k, v in doc.items()}, "council-decisions") == []
    (entry,) = doc["decisions"]  # the deferred one is not remembered
    assert (entry["findingId"], entry["decision"], entry["reason"]) == ("A1", "denied", "a toggle is out of scope for v1")
    assert entry["claim"] == "The three-tier pricing table omits a monthly/annual toggle."
    assert entry["runId"] == "pricing-page-council"
