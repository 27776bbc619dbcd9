"""`amicus_council_run` with a pack, a template, an artifact and vars: the detached child
composes the same briefing and records the same pack, template and artifact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_script import VERDICT, council
from fakeprovider import FakeProvider
from mcp_helpers import body, error_of, in_process, wait_until_terminal

from amicus_mcp.schemas import schema_errors

pytestmark = pytest.mark.anyio

DESIGN = "# Widget cache\n\nThe cache evicts every entry on every write.\n"


def write_pack(project: Path, **settings: Any) -> Path:
    path = project / ".github" / "council-pack.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"schemaVersion": 2, "type": "council-pack", "name": "house", "version": 4, **settings}),
                    encoding="utf-8")
    return path


async def test_a_pack_template_run_through_the_mcp_tool(fake: FakeProvider, project: Path) -> None:
    bench = council(fake)
    (project / "design.md").write_text(DESIGN, encoding="utf-8")
    pack = write_pack(project, models=bench["models"], chair=bench["chair"], template="design-doc",
                      vars={"audience": "SREs", "focus": "failover"}, timeout=9)
    async with in_process("legacy") as client:
        started = body(await client.call_tool("amicus_council_run", {
            "pack": ".github/council-pack.json", "artifact": "design.md", "vars": {"focus": "latency"},
            "project": str(project), "ui": False}))
        done, _ = await wait_until_terminal(client, started["runId"], project=str(project), slice_s=0.5)
    run_dir = Path(started["runDir"])
    assert (done["status"], done["overallVerdict"]) == ("complete", VERDICT)
    run = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert schema_errors(run, "council-run") == []
    assert run["pack"]["name"] == "house" and run["pack"]["version"] == 4 and run["pack"]["path"] == str(pack)
    assert run["template"]["name"] == "design-doc" and run["artifact"]["path"] == str(project / "design.md")
    assert run["options"]["timeout"] == 9
    briefing = (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")
    assert "Its audience is SREs." in briefing and "Weigh most: latency." in briefing  # typed var wins per key
    assert DESIGN.strip() in briefing
    assert fake.prompts("a")[0] == briefing


async def test_mcp_pack_and_template_mistakes_fail_before_anything_starts(fake: FakeProvider, project: Path,
                                                                          tmp_path: Path) -> None:
    council(fake)
    (project / "design.md").write_text(DESIGN, encoding="utf-8")
    write_pack(project, models=["fake/a", "fake/b"], chair="fake/a")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("---\n{}\n---\n", encoding="utf-8")
    async with in_process("legacy") as client:
        clash = await client.call_tool("amicus_council_run", {
            "pack": ".github/council-pack.json", "template": "essay", "artifact": "design.md",
            "project": str(project), "ui": False})
        escape = await client.call_tool("amicus_council_run", {
            "models": ["fake/a", "fake/b"], "chair": "fake/chair", "template": str(outside), "artifact": "design.md",
            "project": str(project), "ui": False})
        missing = await client.call_tool("amicus_council_run", {
            "models": ["fake/a", "fake/b"], "chair": "fake/chair", "template": "plan", "artifact": "design.md",
            "project": str(project), "ui": False})
    assert error_of(clash).startswith("BAD_ARGS: the chair 'fake/a' is also a bench seat (set by pack 'house')")
    assert "outside the allowed project roots" in error_of(escape)
    assert "needs variable(s) goal" in error_of(missing)
    # Issue 19 item 15: the hint names the tool's own argument, in the tool's own shape.
    assert '\nHint: pass vars: {"goal": "…"}; ' in error_of(missing) and "--var" not in error_of(missing)
    assert "MCP tool" not in error_of(missing)
    assert fake.requests == [] and not list(project.glob("council-*"))
