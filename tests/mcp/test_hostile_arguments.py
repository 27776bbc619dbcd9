"""Issue 27 item 22 over MCP (in-process client): a NUL byte or a control character in any
argument that becomes a path or an id is BAD_ARGS naming the argument — never INTERNAL
("ValueError: embedded null byte"), never a traceback — and nothing is started or written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_script import council
from fakeprovider import FakeProvider
from mcp import Client
from mcp.client.extension import advertise
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID
from mcp_helpers import info

from amicus_mcp.mcp.server import build_server

pytestmark = pytest.mark.anyio

HOSTILE = {"nul": "abc\x00def", "soh": "abc\x01def", "esc": "abc\x1b[2Jdef", "newline": "abc\ndef",
           "c1": "abc\x9bdef", "del": "abc\x7fdef"}

# (tool, the argument under test, the other arguments it needs to get that far)
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("amicus_status", "id", {}),
    ("amicus_wait", "id", {"timeoutSeconds": 0.1}),
    ("amicus_read", "id", {}),
    ("amicus_read", "file", {"id": "abcd1234"}),
    ("amicus_abort", "id", {}),
    ("amicus_view_snapshot", "id", {}),
    ("amicus_council_resume", "id", {}),
    ("amicus_status", "project", {"id": "abcd1234"}),
    ("amicus_list", "project", {}),
    ("amicus_council_run", "briefingFile", {"council": True}),
    ("amicus_council_run", "outDir", {"briefingFile": "briefing.md", "council": True}),
    ("amicus_council_run", "project", {"briefingFile": "briefing.md", "council": True}),
    ("amicus_council_run", "artifact", {"briefingFile": "briefing.md", "council": True}),
    ("amicus_council_run", "claudeReviewFile", {"briefingFile": "briefing.md", "council": True}),
    ("amicus_fanout", "promptFile", {"models": ["fake/a"]}),
    ("amicus_fanout", "project", {"prompt": "hello", "models": ["fake/a"]}),
    ("amicus_eval", "suite", {"estimateOnly": True, "matcher": "fake/chair"}),
    ("amicus_eval", "outDir", {"estimateOnly": True, "matcher": "fake/chair"}),
    ("amicus_verdict", "outDir", {"record": {}, "render": True}),
]


def _arguments(tool: str, name: str, value: str, extra: dict[str, Any], fake: FakeProvider,
               project: Path) -> dict[str, Any]:
    args = {**extra, name: value}
    if args.pop("council", False) or tool == "amicus_eval":
        args.update(council(fake))
    if name != "project":
        args.setdefault("project", str(project))
    return args


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize(("tool", "name", "extra"), CASES, ids=[f"{t}-{n}" for t, n, _ in CASES])
async def test_a_control_character_in_a_path_or_id_is_bad_args(
        tool: str, name: str, extra: dict[str, Any], kind: str, fake: FakeProvider, project: Path,
        briefing: Path) -> None:
    before = sorted(p.name for p in project.iterdir())
    apps = [advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})]  # the view snapshot is an app's tool
    async with Client(build_server(views=True), mode="auto", client_info=info("claude-ai"),  # type: ignore[arg-type]
                      extensions=apps) as client:
        result = await client.call_tool(tool, _arguments(tool, name, HOSTILE[kind], extra, fake, project))
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    envelope = json.loads(result.content[1].text)  # type: ignore[union-attr]
    assert envelope["error"]["code"] == "BAD_ARGS", text
    assert name in envelope["error"]["message"], text
    assert "Traceback" not in text and "embedded null byte" not in text
    assert not any(ch in text for ch in "\x00\x01\x1b\x7f\x9b"), text  # the value is shown escaped
    assert sorted(p.name for p in project.iterdir()) == before  # nothing was started or written


@pytest.mark.parametrize(("name", "value", "allowed"), [("verifyTiers", ["Confirmed", "Certain"], "'Contested'"),
                                                        ("verifySeverities", ["critical"], "'blocker'")])
async def test_a_verify_scope_word_outside_the_vocabulary_is_bad_args_naming_the_argument(
        name: str, value: list[str], allowed: str, fake: FakeProvider, project: Path, briefing: Path) -> None:
    before = sorted(p.name for p in project.iterdir())
    async with Client(build_server(), mode="auto", client_info=info("claude-ai")) as client:  # type: ignore[arg-type]
        result = await client.call_tool("amicus_council_run", {**council(fake), "briefingFile": "briefing.md",
                                                               "project": str(project), "verify": True, name: value})
    assert result.is_error
    envelope = json.loads(result.content[1].text)  # type: ignore[union-attr]
    assert envelope["error"]["code"] == "BAD_ARGS", envelope
    # The argument (and the item) named, with the words it takes.
    assert name in envelope["error"]["message"] and allowed in envelope["error"]["message"], envelope
    assert sorted(p.name for p in project.iterdir()) == before  # nothing was started or written
