"""manifest.json, the MCP Bundle's manifest, is the server's own: generated from its tools, its
version and its package description (`python -m amicus_mcp.contracts --write`), and checked
here so that it cannot drift. (tests/clients/test_bundle.py validates and packs it with mcpb.)"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from mcp_helpers import REPO, in_process

from amicus_mcp import __version__
from amicus_mcp.mcp import bundle
from amicus_mcp.desktop import SETTINGS

MANIFEST = json.loads((REPO / "manifest.json").read_text(encoding="utf-8"))
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_manifest_in_the_repository_is_the_generated_one() -> None:
    assert (REPO / "manifest.json").read_text(encoding="utf-8") == bundle.render(), (
        "manifest.json is stale: run python -m amicus_mcp.contracts --write")


@pytest.mark.anyio
async def test_its_tools_version_and_description_are_the_servers(project: Path) -> None:
    async with in_process("legacy", name="claude-ai") as client:  # a client without MCP Apps: what a model sees
        tools = (await client.list_tools()).tools
    assert MANIFEST["tools"] == [{"name": t.name, "description": t.description} for t in tools]
    assert MANIFEST["version"] == __version__ and PROJECT["dynamic"] == ["version"]  # one source: tests/test_release.py
    assert MANIFEST["description"] == PROJECT["description"]
    assert MANIFEST["compatibility"]["runtimes"]["python"] == PROJECT["requires-python"]


def test_the_form_keeps_keys_secret_and_every_setting_reaches_the_server() -> None:
    form, env = MANIFEST["user_config"], MANIFEST["server"]["mcp_config"]["env"]
    assert set(form) == {s.key for s in SETTINGS}
    for setting in SETTINGS:
        assert env[setting.env] == f"${{user_config.{setting.key}}}"
        assert form[setting.key].get("sensitive", False) is setting.env.endswith("_API_KEY")
    assert form["project_dir"]["type"] == "directory" and form["project_dir"]["required"] is True
    assert [k for k, f in form.items() if f["required"]] == ["project_dir"]  # everything else may stay empty
    assert form["max_cost"]["type"] == "number" and form["max_cost"]["min"] == 0
    assert MANIFEST["server"]["type"] == "uv" and MANIFEST["manifest_version"] == "0.4"
    assert "${__dirname}" in MANIFEST["server"]["mcp_config"]["args"]  # nothing for the user to type


def test_what_a_directory_listing_reads_is_there() -> None:
    """The Claude directory's asks of a bundle: a privacy policy, a homepage, support, keywords
    and an icon (a PNG file inside the bundle, which carries src/)."""
    from amicus_mcp import HOMEPAGE

    urls = PROJECT["urls"]
    assert MANIFEST["homepage"] == urls["Homepage"] == HOMEPAGE
    assert MANIFEST["support"] == urls["Issues"] and MANIFEST["privacy_policies"] == [urls["Privacy"]]
    assert urls["Privacy"].endswith("/docs/privacy.md") and (REPO / "docs" / "privacy.md").is_file()
    assert set(MANIFEST["keywords"]) >= {"mcp", "council", "review"}
    icon = REPO / MANIFEST["icon"]
    assert MANIFEST["icon"].startswith("src/") and icon.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert MANIFEST["icons"] == [{"src": MANIFEST["icon"], "size": "128x128"}]


def test_the_bench_and_chair_fields_say_what_an_agent_seat_needs() -> None:
    """The Desktop form's help for the defaults names the `cli:` seats and what each needs:
    its CLI installed (the npm package) and logged in."""
    fields = MANIFEST["user_config"]
    bench, chair = fields["default_bench"]["description"], fields["default_chair"]["description"]
    assert "cli:codex,cli:gemini,cli:claude" in bench and "logged in" in bench
    for package in ("@openai/codex", "@google/gemini-cli", "@anthropic-ai/claude-code"):
        assert package in bench
    assert "cli:gemini" in chair and "logged in" in chair
