"""What hosts and directories read (issue 33 §2): every tool's title and annotations, the
server's icons, the result-size hint on the large reads and the resource link beside a report.

The annotations are checked on the tools as built (what a call runs), as listed before they
are built (`sdk.deferred`), and on the wire in both protocol eras. The Claude directory asks
for a title and a readOnlyHint or destructiveHint on every tool; every hint is set explicitly
here, because a missing one means its spec default (openWorldHint true, destructiveHint true).
"""

from __future__ import annotations

import base64
import importlib.util
import struct
from pathlib import Path

import pytest
from council_script import council
from fakeprovider import FakeProvider
from mcp import Client
from mcp.types import ResourceLink, ToolAnnotations
from mcp_helpers import REPO, body, in_process, info, stdio_params, unfenced, wait_until_terminal

from amicus_mcp import HOMEPAGE
from amicus_mcp.mcp.app_view import bind
from amicus_mcp.mcp.sdk import DeferredTool
from amicus_mcp.mcp.server import ICON_FILES, MAX_RESULT_META, SERVER_TITLE, build_server, build_tools, make_tool
from amicus_mcp.mcp.state import ServerState

pytestmark = pytest.mark.anyio

MODES = pytest.mark.parametrize("mode", ["legacy", "auto"])
ICONS = REPO / "src" / "amicus_mcp" / "mcp" / "icons"
HINTS = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")
PROVIDER_CALLERS = {"amicus_council_run", "amicus_council_resume", "amicus_fanout", "amicus_eval"}
READS = {"amicus_read", "amicus_list", "amicus_council_stats", "amicus_decisions", "amicus_view_snapshot"}
# Status and wait record a dead run as crashed (engine/control.py), so they are not read-only.
REMOVES = {"amicus_abort"}  # the one tool that stops work
LARGE = {"amicus_read", "amicus_verdict"}  # a page of a report, a rendered report


def tools() -> list:  # type: ignore[type-arg]
    state = ServerState()
    return bind(build_tools(state), state, make_tool)


def test_every_built_tool_has_a_title_and_every_hint_set() -> None:
    listed = tools()
    assert {t.name for t in listed} >= PROVIDER_CALLERS | READS | REMOVES
    for tool in listed:
        built = tool.built() if isinstance(tool, DeferredTool) else tool
        for face in (tool, built):  # listed before it is built, and what a call runs
            assert face.title and face.title != face.name, face.name
            hints = face.annotations
            assert isinstance(hints, ToolAnnotations), face.name
            assert all(getattr(hints, h) is not None for h in HINTS), f"{face.name}: {hints}"
        assert (tool.title, tool.annotations) == (built.title, built.annotations), tool.name
        hints = built.annotations
        assert hints.read_only_hint == (tool.name in READS), tool.name
        assert hints.destructive_hint == (tool.name in REMOVES), tool.name
        assert hints.open_world_hint == (tool.name in PROVIDER_CALLERS), tool.name
        assert not (hints.read_only_hint and hints.destructive_hint), tool.name
        if hints.read_only_hint:
            assert hints.idempotent_hint, tool.name  # reading twice reads the same
        # Claude Code's result-size hint, on exactly the tools whose result can pass its 50,000 characters
        assert ((tool.meta or {}).get("anthropic/maxResultSizeChars") is not None) == (tool.name in LARGE), tool.name


@MODES
async def test_titles_hints_and_icons_reach_the_client(mode: str, project: Path) -> None:
    async with in_process(mode) as client:
        listed = (await client.list_tools()).tools
        info = client.server_info
    for tool in listed:
        assert tool.title and tool.annotations is not None, tool.name
        wire = tool.annotations.model_dump(by_alias=True, exclude_none=True)
        assert {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} <= set(wire), tool.name
    by_name = {tool.name: tool for tool in listed}
    for name in LARGE:
        assert by_name[name].meta is not None
        assert by_name[name].meta["anthropic/maxResultSizeChars"] == MAX_RESULT_META["anthropic/maxResultSizeChars"]
    assert MAX_RESULT_META["anthropic/maxResultSizeChars"] <= 500_000  # the most Claude Code honours
    if mode == "legacy":  # the handshake era answers initialize with the server's info
        assert info is not None
        assert (info.name, info.title, info.website_url) == ("amicus", SERVER_TITLE, HOMEPAGE)
        icons = {icon.mime_type: icon for icon in info.icons or []}
        assert set(icons) == {"image/svg+xml", "image/png"}
        for name, mime, size in ICON_FILES:
            head, data = icons[mime].src.split(",", 1)
            assert head == f"data:{mime};base64" and icons[mime].sizes == [size]
            assert base64.b64decode(data) == (ICONS / name).read_bytes()


def load_generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("make_icons", REPO / "scripts" / "make-icons.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_icons_are_the_generators_own(tmp_path: Path) -> None:
    made = load_generator().write(tmp_path)
    for path in made:
        assert path.read_bytes() == (ICONS / path.name).read_bytes(), f"run python scripts/make-icons.py ({path.name})"
    png = (ICONS / "amicus.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    assert struct.unpack(">II", png[16:24]) == (128, 128)
    svg = (ICONS / "amicus.svg").read_text(encoding="utf-8")
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and "<script" not in svg


def test_the_icons_are_legible_at_16_px() -> None:
    """Downscaled to 16 px, the seats still stand apart from the tile: some pixels are near
    white, many are the tile's blue, and the chair's amber shows."""
    small = load_generator().png(16)
    import zlib

    raw = zlib.decompress(small[small.index(b"IDAT") + 4:-12 - 4])  # one IDAT chunk, then IEND
    pixels = [raw[row * (16 * 4 + 1) + 1:(row + 1) * (16 * 4 + 1)] for row in range(16)]
    colours = [tuple(row[i:i + 4]) for row in pixels for i in range(0, 64, 4)]
    assert sum(1 for r, g, b, a in colours if min(r, g, b) > 200 and a == 255) >= 6   # the seats
    assert sum(1 for r, g, b, a in colours if b > r + 40 and a == 255) >= 60           # the tile
    assert any(r > 180 and b < 120 and a == 255 for r, g, b, a in colours)            # the chair


async def test_a_read_links_the_report_file_beside_its_text(fake: FakeProvider, project: Path, briefing: Path) -> None:
    async with in_process("auto") as client:
        run_id = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake)}))["runId"]
        done, _ = await wait_until_terminal(client, run_id, project=str(project), slice_s=1.0)
        report = await client.call_tool("amicus_read", {"id": run_id, "project": str(project)})
        run_json = await client.call_tool("amicus_read", {"id": run_id, "file": "run.json", "project": str(project)})
        wave_less = await client.call_tool("amicus_status", {"id": run_id, "project": str(project)})
    run_dir = Path(done["report"]).parent
    assert unfenced(body(report)["text"]).startswith("# Council Report")
    links = [block for block in report.content if isinstance(block, ResourceLink)]
    assert [(link.name, str(link.uri), link.mime_type) for link in links] == [
        ("report.html", (run_dir / "report.html").resolve().as_uri(), "text/html")]
    assert links[0].size == (run_dir / "report.html").stat().st_size
    assert [(b.name, str(b.uri)) for b in run_json.content if isinstance(b, ResourceLink)] == [
        ("run.json", (run_dir / "run.json").resolve().as_uri())]
    assert not [b for b in wave_less.content if isinstance(b, ResourceLink)]


# --------------------------------------------------------------------------- both protocol eras

ERAS = pytest.mark.parametrize(("mode", "negotiated"), [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")])


@ERAS
@pytest.mark.parametrize("transport", ["in-process", "stdio"])
async def test_each_protocol_era_lists_the_tools_and_finishes_a_council(
        mode: str, negotiated: str, transport: str, fake: FakeProvider, project: Path, briefing: Path) -> None:
    """The SDK's own client, pinned to one era: the 2025-11-25 handshake (what Claude Code's CLI
    speaks) or the stateless 2026-07-28 revision (what the desktop app's Code tab speaks)."""
    target = stdio_params(project) if transport == "stdio" else build_server()
    async with Client(target, mode=mode, client_info=info("claude-code")) as client:  # type: ignore[arg-type]
        assert client.protocol_version == negotiated
        names = {tool.name for tool in (await client.list_tools()).tools}
        run_id = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake)}))["runId"]
        done, _ = await wait_until_terminal(client, run_id, project=str(project), slice_s=1.0)
        report = body(await client.call_tool("amicus_read", {"id": run_id, "project": str(project)}))
    assert PROVIDER_CALLERS | {"amicus_wait", "amicus_read", "amicus_abort"} <= names
    assert done["status"] == "complete" and done["overallVerdict"]
    assert unfenced(report["text"]).startswith("# Council Report")
