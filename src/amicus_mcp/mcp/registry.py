"""`server.json`, the MCP Registry's entry for this server: generated, like the bundle manifest,
from the package itself, so its name, version, description and settings cannot drift.

    python -m amicus_mcp.contracts --write                  rewrite server.json (every generated file) at the root
    python -m amicus_mcp.contracts --check                  exit 1 when it (or another generated file) is stale
    python -m amicus_mcp.mcp.registry --mcpb-sha256 HEX     print the release's entry: the .mcpb's checksum filled in

It names two packages: the PyPI package (`uvx amicus-mcp`) and the `.mcpb` a release attaches.
The registry requires an `.mcpb`'s SHA-256, which exists only once the release has built it, so
the file in the repository leaves it out and the release workflow prints the entry with it
(`--mcpb-sha256`) before publishing. tests/test_release.py validates both against the
registry's published schema (vendored under tests/vendor/mcp-registry/).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from .. import HOMEPAGE, __version__
from .bundle import REPO, project_metadata
from ..desktop import SETTINGS
from ..schemas import JsonObject

SERVER_JSON = REPO / "server.json"
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
# The registry checks that a PyPI package is this server's by this line in its README.
NAME = "io.github.amicus-mcp/amicus-mcp"
DESCRIPTION = "A council of other LLMs reviews an artifact: independent reviews, blind cross-review, a verdict."
ICON_URL = f"{HOMEPAGE.replace('github.com', 'raw.githubusercontent.com')}/main/src/amicus_mcp/mcp/icons/amicus.png"
_FORMATS = {"string": "string", "number": "number", "directory": "filepath"}


def mcpb_url(version: str = __version__) -> str:
    """Where the release attaches the bundle (.github/workflows/release.yml names it the same)."""
    return f"{HOMEPAGE}/releases/download/v{version}/amicus-mcp-{version}.mcpb"


def _environment() -> list[JsonObject]:
    """The settings the server reads from its environment; none is required outside Desktop
    (there the project comes from the client's roots or the working directory)."""
    return [{"name": s.env, "description": s.description, "format": _FORMATS[s.kind], "isRequired": False,
             "isSecret": s.sensitive} for s in SETTINGS]


def server_json(*, mcpb_sha256: str | None = None) -> JsonObject:
    """server.json: the MCP registry's document (its $schema, not ours), as open JSON."""
    from .server import SERVER_TITLE

    project = project_metadata()
    mcpb: JsonObject = {"registryType": "mcpb", "identifier": mcpb_url(), "version": __version__,
                            "transport": {"type": "stdio"}}
    if mcpb_sha256 is not None:
        if not re.fullmatch(r"[0-9a-f]{64}", mcpb_sha256):
            raise SystemExit(f"--mcpb-sha256 wants 64 lowercase hex digits, got {mcpb_sha256!r}")
        mcpb["fileSha256"] = mcpb_sha256
    return {
        "$schema": SCHEMA_URL,
        "name": NAME,
        "title": SERVER_TITLE,
        "description": DESCRIPTION,
        "version": __version__,
        "websiteUrl": project["urls"]["Homepage"],
        "repository": {"url": HOMEPAGE, "source": "github"},
        "icons": [{"src": ICON_URL, "mimeType": "image/png", "sizes": ["128x128"]}],
        "packages": [
            {"registryType": "pypi", "registryBaseUrl": "https://pypi.org", "identifier": project["name"],
             "version": __version__, "runtimeHint": "uvx", "transport": {"type": "stdio"},
             "environmentVariables": _environment()},
            mcpb,
        ],
    }


def render(**kwargs: Any) -> str:
    return json.dumps(server_json(**kwargs), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "--mcpb-sha256":
        sys.stdout.write(render(mcpb_sha256=args[1]))
        return 0
    if args:
        print("usage: python -m amicus_mcp.mcp.registry --mcpb-sha256 HEX  (server.json itself: "
              "python -m amicus_mcp.contracts --write)", file=sys.stderr)
        return 2
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
