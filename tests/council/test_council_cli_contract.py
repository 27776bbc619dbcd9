"""`amicus council validate` on blocks without a findings array (seed 000, issue 12), through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amicus_mcp.cli import main as cli_main
from amicus_mcp.schemas import schema_errors


@pytest.mark.parametrize("body", ["123", '"text"', "[1, 2]", "true"])  # null: NOT_PARSEABLE (issue 28)
def test_a_block_that_is_not_an_object_reports_empty_findings(body: str, tmp_path: Path, capsys, config_dir) -> None:
    review = tmp_path / "review.md"
    review.write_text(f"Prose.\n\n```json\n{body}\n```\n", encoding="utf-8")
    code = cli_main(["council", "validate", str(review), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2
    assert [e["code"] for e in doc["errors"]] == ["EMPTY_FINDINGS"]
    assert schema_errors(doc, "council-validate") == []
