"""Finding the npm-installed clients, and reading what they print."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import NoReturn

import pytest

NODE = Path(__file__).resolve().parent / "node"
BIN = NODE / "node_modules" / ".bin"
REPO = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "amicus_mcp.mcp"]  # this checkout's server, as a real stdio subprocess


def client_binary(name: str) -> Path:
    """The installed client's executable; a skip outside CI, a failure under CI, when absent."""
    path = BIN / name
    if path.exists() and os.access(path, os.X_OK):
        return path
    missing(name)


def missing(what: str) -> NoReturn:
    why = f"{what} is not installed: run `npm ci --prefix {NODE.relative_to(REPO)}` (.ci/run does)"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def package_command(package: str, name: str) -> list[str]:
    """The command that runs bin `name` of `package` itself. The two MCP Inspectors here both
    ship a `mcp-inspector` bin, so node_modules/.bin cannot say which one it is."""
    manifest = NODE / "node_modules" / package / "package.json"
    if not manifest.exists():
        missing(package)
    bins = json.loads(manifest.read_text(encoding="utf-8"))["bin"]
    path = (manifest.parent / bins[name]).resolve()
    return [shutil.which("node") or "node", str(path)] if path.suffix == ".js" else [str(path)]


def installed_version(package: str) -> str:
    return json.loads((NODE / "node_modules" / package / "package.json").read_text(encoding="utf-8"))["version"]


def pinned_version(pin: str) -> str:
    """The version a package.json dependency pins, an `npm:NAME@VERSION` alias included."""
    return pin.rsplit("@", 1)[1] if pin.startswith("npm:") else pin
