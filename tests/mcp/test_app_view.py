"""The inline council view (MCP Apps) over the in-process client: a client that negotiated the
extension gets the view, its resource and its app-only tool; a client that did not gets the
server exactly as it is without them — the same initialize answer, tools/list and results."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from council_script import VERDICT, council, member, wave
from fakeprovider import FakeProvider
from mcp import Client, MCPError
from mcp.client.extension import advertise
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID
from mcp.types import METHOD_NOT_FOUND
from mcp_helpers import body, error_of, info, wait_until_terminal

from amicus_mcp.mcp.app_view import SNAPSHOT_TOOL, VIEW_TOOLS, VIEW_URI, page
from amicus_mcp.mcp.server import build_server

pytestmark = pytest.mark.anyio

MODES = pytest.mark.parametrize("mode", ["legacy", "auto"])
APPS = [advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})]
CANARY = "sk-or-v1-VIEWCANARY1234567890"


@asynccontextmanager
async def connected(mode: str, *, apps: bool, views: bool = True, name: str = "claude-ai") -> AsyncIterator[Client]:
    server = build_server(views=views)
    async with Client(server, mode=mode, client_info=info(name), extensions=APPS if apps else None) as client:  # type: ignore[arg-type]
        yield client


def dumped(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json", by_alias=True), sort_keys=True)


async def transcript(client: Client, run_id: str, project: Path, tally_input: dict[str, Any]) -> list[str]:
    """Everything a client sees of the server, in order, as JSON text."""
    seen = [json.dumps(client.server_capabilities.model_dump(mode="json", by_alias=True), sort_keys=True),
            dumped(client.server_info), dumped(await client.list_tools())]
    for method in (client.list_resources, lambda: client.read_resource(VIEW_URI)):
        with pytest.raises(MCPError) as refused:
            await method()
        seen.append(f"{refused.value.code} {refused.value.message}")
    args = {"id": run_id, "project": str(project)}
    for tool, arguments in ((SNAPSHOT_TOOL, args), ("amicus_status", args), ("amicus_read", args),
                            ("amicus_list", {"project": str(project)}), ("amicus_council_tally", tally_input),
                            ("amicus_council_stats", {})):
        seen.append(dumped(await client.call_tool(tool, arguments)))
    return seen


@MODES
async def test_a_client_without_apps_gets_todays_server_unchanged(mode: str, fake: FakeProvider, project: Path,
                                                                 briefing: Path) -> None:
    tally_input = {"meta": {"runId": "t1", "models": ["a", "b"]}, "noLedger": True,
                   "findings": [{"id": "A1", "raiser": "a", "severity": "major", "claim": "x"}],
                   "adjudications": [{"findingId": "A1", "judge": "b", "verdict": "agree"}],
                   "rankings": [{"judge": "b", "order": ["a"]}]}
    started: dict[bool, dict[str, Any]] = {}
    seen: dict[bool, list[str]] = {}
    for views in (False, True):  # views=False is the server as it was before the view existed
        async with connected(mode, apps=False, views=views) as client:
            result = await client.call_tool("amicus_council_run", {"briefingFile": "briefing.md", **council(fake),
                                                                   "project": str(project)})
            started[views] = json.loads(dumped(result))
            await wait_until_terminal(client, body(result)["runId"], project=str(project))
    for views in (False, True):
        async with connected(mode, apps=False, views=views) as client:
            seen[views] = await transcript(client, started[False]["structuredContent"]["runId"], project, tally_input)
    assert seen[True] == seen[False]
    assert SNAPSHOT_TOOL not in seen[True][2] and "ui://" not in seen[True][2]
    assert seen[True][3] == seen[True][4] == f"{METHOD_NOT_FOUND} Method not found"
    assert seen[True][5].count(f"BAD_ARGS: unknown tool '{SNAPSHOT_TOOL}'") == 1  # as any unknown tool
    one, other = started[False], started[True]
    a, b = one["structuredContent"]["runId"], other["structuredContent"]["runId"]
    assert json.dumps(other).replace(b, a) == json.dumps(one)  # the same result, bar the run's own id
    assert one["structuredContent"]["workspaceOpenReason"] == "no-browser"  # (the test machine has none)


def as_read(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot without what depends on the moment it was read (its time, the idle seconds)."""
    kept = {k: v for k, v in snapshot.items() if k not in ("runId", "generatedAt")}
    if isinstance(kept.get("stall"), dict):
        kept["stall"] = {k: v for k, v in kept["stall"].items() if k != "idleSeconds"}
    return kept


@MODES
async def test_an_apps_client_gets_the_view_and_its_app_only_tool(mode: str, fake: FakeProvider, project: Path,
                                                                 briefing: Path) -> None:
    args = council(fake)
    async with connected(mode, apps=True) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        resources = (await client.list_resources()).resources
        read = await client.read_resource(VIEW_URI)
        started = body(await client.call_tool("amicus_council_run", {"briefingFile": "briefing.md", **args,
                                                                      "project": str(project)}))
        live = body(await client.call_tool(SNAPSHOT_TOOL, {"id": started["runId"], "project": str(project)}))
        done, _ = await wait_until_terminal(client, started["runId"], project=str(project))
        final = body(await client.call_tool(SNAPSHOT_TOOL, {"id": started["runId"], "project": str(project)}))
        by_dir = body(await client.call_tool(SNAPSHOT_TOOL, {"id": started["runDir"], "project": str(project)}))
        missing = error_of(await client.call_tool(SNAPSHOT_TOOL, {"id": "nosuchid1", "project": str(project)}))
    for name in VIEW_TOOLS:
        assert tools[name].meta == {"ui": {"resourceUri": VIEW_URI}}
    assert tools[SNAPSHOT_TOOL].meta == {"ui": {"resourceUri": VIEW_URI, "visibility": ["app"]}}
    # no other tool points at the view (amicus_read and amicus_verdict carry only a result-size hint)
    assert all("ui" not in (t.meta or {}) for t in tools.values() if t.name not in {*VIEW_TOOLS, SNAPSHOT_TOOL})
    assert [str(r.uri) for r in resources] == [VIEW_URI] and resources[0].mime_type == APP_MIME_TYPE
    content = read.contents[0]
    assert content.mime_type == APP_MIME_TYPE and content.text == page()  # type: ignore[union-attr]
    assert content.meta == {"ui": {"csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": []},
                                   "prefersBorder": True}}
    assert (started["workspaceOpened"], started["workspaceOpenReason"]) == (False, "inline-view")
    assert live["type"] == "workspace-run" and live["runId"] == started["runId"]
    assert {"seats", "stages", "header", "cost", "masks", "chair"} <= set(live)
    assert done["overallVerdict"] == VERDICT
    assert final["live"] is False and final["header"]["overallVerdict"] == VERDICT
    assert final["matrix"]["rows"] and final["chair"]["verdict"] == VERDICT
    assert as_read(by_dir) == as_read(final)  # a run directory reads the same
    assert all("text" not in entry for entry in final["reviews"] + final["judges"])  # no prose inline
    assert missing.startswith("BAD_SESSION:") or missing.startswith("BAD_ARGS:")


async def test_the_view_snapshot_masks_every_key(fake: FakeProvider, project: Path, briefing: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", CANARY)
    args = council(fake)
    block = {"overall": "ok", "findings": [{"id": 1, "severity": "major", "claim": f"the key {CANARY} is in the log",
                                            "location": "log.py", "rationale": "r"}]}
    member(fake, "a", review_text=f"The key is {CANARY}.\n\n```json\n{json.dumps(block)}\n```\n")
    async with connected("legacy", apps=True) as client:
        started = body(await client.call_tool("amicus_council_run", {"briefingFile": "briefing.md", **args,
                                                                      "project": str(project)}))
        await wait_until_terminal(client, started["runId"], project=str(project))
        result = await client.call_tool(SNAPSHOT_TOOL, {"id": started["runId"], "project": str(project)})
    shown = json.dumps(result.structured_content) + "".join(getattr(c, "text", "") for c in result.content)
    assert "VIEWCANARY" not in shown and "the key *** is in the log" in shown


async def test_a_wave_has_its_own_inline_snapshot(fake: FakeProvider, project: Path) -> None:
    wave(fake, "w1", "w2")
    async with connected("legacy", apps=True) as client:
        started = body(await client.call_tool("amicus_fanout", {"models": ["fake/w1", "fake/w2"], "prompt": "hello",
                                                                 "project": str(project)}))
        await wait_until_terminal(client, started["waveId"], project=str(project))
        snap = body(await client.call_tool(SNAPSHOT_TOOL, {"id": started["waveId"], "project": str(project)}))
    assert (snap["type"], snap["kind"], snap["live"], snap["status"]) == ("workspace-wave", "wave", False, "complete")
    assert len(snap["legs"]) == snap["legsDone"] == 2 and {leg["status"] for leg in snap["legs"]} == {"complete"}


def test_the_page_pins_its_inline_code_and_reaches_nowhere() -> None:
    html = page()
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html).group(1)  # type: ignore[union-attr]
    directives = dict(part.split(" ", 1) for part in policy.split("; "))
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, re.S)

    def pinned(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    assert len(scripts) == 2 and len(styles) == 1
    assert directives["script-src"] == " ".join(pinned(s) for s in scripts)
    assert directives["style-src"] == pinned(styles[0])
    assert directives["default-src"] == directives["connect-src"] == directives["img-src"] == "'none'"
    assert directives["require-trusted-types-for"] == "'script'" and directives["trusted-types"] == "'none'"
    assert "frame-ancestors" not in directives  # a <meta> policy cannot carry it
    assert not re.search(r"(src|href)=", html.replace('href="./"', ""))  # no file, no URL: everything is inline
    assert html.index("Content-Security-Policy") < html.index("<style>") < html.index("<script>")
    assert "globalThis.amicusSource" in scripts[0] and "amicusSource" in scripts[1]


async def test_the_matrix_is_in_the_snapshot_while_the_chair_runs(fake: FakeProvider, project: Path,
                                                                   briefing: Path) -> None:
    """The tally is written when Stage 2 ends: the view's snapshot carries the matrix through the
    chair's wait (the longest one with real models), with no note about a missing verdict."""
    import anyio

    from council_script import chair as chair_member
    from council_script import member as bench_member
    from fakeprovider import by_prompt, chat, usage
    from council_prompts import kind

    gate = threading.Event()
    bench_member(fake, "a", findings=1)
    bench_member(fake, "b", findings=2)
    chair_member(fake)

    def held(body: Any) -> Any:
        while not gate.is_set() and not fake.stopping.is_set():
            gate.wait(timeout=0.05)
        return chat(f"Synthesis.\n\nVERDICT: {VERDICT}\n", usage=usage(200, 80, cost=0.003))

    fake.respond("chair", by_prompt(kind, {"chair": held}))
    async with connected("legacy", apps=True) as client:
        started = body(await client.call_tool("amicus_council_run", {"briefingFile": "briefing.md", "models": ["fake/a", "fake/b"],
                                                                      "chair": "fake/chair", "project": str(project)}))
        args = {"id": started["runId"], "project": str(project)}
        with anyio.fail_after(60):
            while True:
                snap = body(await client.call_tool(SNAPSHOT_TOOL, args))
                if any(s["name"] == "chair" and s["status"] == "running" for s in snap["stages"]):
                    break
                await anyio.sleep(0.1)
        gate.set()
        await wait_until_terminal(client, started["runId"], project=str(project))
    assert snap["live"] is True and snap["chair"]["verdict"] is None
    assert [row["id"] for row in snap["matrix"]["rows"]] == ["A1", "B1", "B2"]
    assert snap["matrixNote"] is None and snap["banners"]["integrity"] == []


def test_the_view_snapshot_names_the_tool_arguments_not_cli_flags() -> None:
    """The view runs only inside an MCP host: the engine's notes it shows say `maxCost`, not
    `--max-cost`; what a model wrote is left as written."""
    from amicus_mcp.mcp.app_view import in_tool_terms

    doc = {"type": "workspace-run", "header": {"error": {"code": "COST_EXCEEDED", "message": "known spend reached the "
                                                         "$0.5 --max-cost ceiling after Stage 1", "hint": "raise --max-cost"}},
           "banners": {"degrades": [{"channel": "budget", "what": "stage2 launch for x/y refused",
                                     "why": "the --max-cost ceiling has no room left for it"}],
                       "notices": ["lens run: pass --lenses again to compare"], "integrity": []},
           "seats": [{"key": "x/y", "deadReason": "its review was refused by the --max-cost ceiling", "error": None}],
           "chair": {"reason": "the chair has not run yet", "verdict": None},
           "matrix": {"rows": [{"id": "A1", "claim": "the CLI ignores --max-cost when --debate is set"}]}}
    shown = in_tool_terms(doc)
    assert shown["header"]["error"] == {"code": "COST_EXCEEDED", "hint": "raise maxCost",
                                        "message": "known spend reached the $0.5 maxCost ceiling after Stage 1"}
    assert shown["banners"]["degrades"][0]["why"] == "the maxCost ceiling has no room left for it"
    assert shown["banners"]["notices"] == ["lens run: pass lenses again to compare"]
    assert shown["seats"][0]["deadReason"] == "its review was refused by the maxCost ceiling"
    assert shown["matrix"] == doc["matrix"]  # a model's claim, verbatim
    assert "--max-cost" in json.dumps(doc)  # (the input is not changed in place)
