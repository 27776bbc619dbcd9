"""The MCP Bundle manifest (`manifest.json`): generated from the server itself, so its tools,
version and description cannot drift from what the server offers.

    python -m amicus_mcp.contracts --write     rewrite manifest.json at the repository root
    python -m amicus_mcp.contracts --check     exit 1 when it (or another generated file) is stale

Server type `uv` (manifest_version 0.4): the bundle carries pyproject.toml, its lock and the
source, and Desktop's own uv provides Python and installs the dependencies on first start.
amicus-mcp depends on compiled wheels (pydantic-core, via the MCP SDK), which a `python`
bundle cannot carry portably: one bundle would fit one platform and one Python version, and
still need a Python installed. `scripts/build-mcpb.sh` stages the files, locks, validates and
packs with the real `mcpb` CLI.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import TypedDict

from .. import HOMEPAGE, __version__
from ..desktop import DESKTOP_BUNDLE, INSTALL_ENV, SETTINGS
from ..schemas import JsonObject

REPO = Path(__file__).resolve().parents[3]
MANIFEST = REPO / "manifest.json"
ICON = "src/amicus_mcp/mcp/icons/amicus.png"  # relative to the bundle root, which carries src/ (scripts/build-mcpb.sh)
LONG_DESCRIPTION = (
    "Ask a council of other LLMs for an independent second opinion on a design, a PR or a document. Each "
    "model reviews on its own; every model then ranks and votes on every review without knowing who wrote "
    "it; a deterministic tally sorts the findings into tiers; and a chair that did not sit on the bench gives "
    "the verdict. In Claude Desktop the council runs live inside the conversation: seats, stages, the "
    "adjudication matrix, cost and the verdict. Cloud models need one OpenRouter key (or a vendor's own)."
)
# The inline view in a real MCP Apps host (docs/view-screenshots.sh makes them; a test keeps them
# current with the view's code); the bundle carries them at the same paths (scripts/build-mcpb.sh).
SCREENSHOTS = [f"docs/screenshots/view-{name}.png" for name in ("1-stage1", "2-stage2", "3-verdict")]
KEYWORDS = ["council", "review", "second-opinion", "llm", "mcp", "openrouter"]
# uv runs the project from the unpacked bundle: the lock the bundle carries, no dev extras.
# manifest.json is the MCPB format's document (its manifest_version's schema, not ours): open JSON.
MCP_CONFIG: JsonObject = {"command": "uv", "args": ["run", "--directory", "${__dirname}", "--frozen", "amicus-mcp"]}
SERVER: JsonObject = {"type": "uv", "entry_point": "src/amicus_mcp/mcp/__main__.py", "mcp_config": MCP_CONFIG}


class ProjectUrls(TypedDict):
    Homepage: str
    Issues: str
    Privacy: str


# pyproject.toml's [project] table, the keys the bundle and the registry entry read of it
# (`requires-python` is not a name: the functional form).
ProjectTable = TypedDict("ProjectTable", {"name": str, "description": str, "license": str,
                                          "requires-python": str, "urls": ProjectUrls})


def project_metadata(pyproject: Path = REPO / "pyproject.toml") -> ProjectTable:
    table: ProjectTable = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]  # our own pyproject
    return table


def manifest() -> JsonObject:
    from .server import SERVER_TITLE, build_tools
    from .state import ServerState

    project = project_metadata()
    urls = project["urls"]
    if urls["Homepage"] != HOMEPAGE:
        raise SystemExit(f"pyproject.toml's Homepage is {urls['Homepage']}, amicus_mcp.HOMEPAGE {HOMEPAGE}")
    env = {s.env: f"${{user_config.{s.key}}}" for s in SETTINGS}
    return {
        "manifest_version": "0.4",
        "name": "amicus-mcp",
        "display_name": SERVER_TITLE,
        "version": __version__,
        "description": project["description"],
        "long_description": LONG_DESCRIPTION,
        "author": {"name": "amicus-mcp maintainers", "url": HOMEPAGE},
        "repository": {"type": "git", "url": f"{HOMEPAGE}.git"},
        "homepage": HOMEPAGE,
        "documentation": f"{HOMEPAGE}#readme",
        "support": urls["Issues"],
        "icon": ICON,
        "icons": [{"src": ICON, "size": "128x128"}],
        "license": project["license"],
        "screenshots": SCREENSHOTS,
        "keywords": KEYWORDS,
        "privacy_policies": [urls["Privacy"]],
        "server": {**SERVER, "mcp_config": {**MCP_CONFIG, "env": {**env, INSTALL_ENV: DESKTOP_BUNDLE}}},
        "tools": [{"name": t.name, "description": t.description} for t in build_tools(ServerState())],
        "tools_generated": False,
        "compatibility": {"platforms": ["darwin", "win32", "linux"],
                          "runtimes": {"python": project["requires-python"]}},
        "user_config": {s.key: s.field() for s in SETTINGS},
    }


def render() -> str:
    return json.dumps(manifest(), indent=2, ensure_ascii=False) + "\n"
