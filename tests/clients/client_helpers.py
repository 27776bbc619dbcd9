"""Finding the npm-installed clients, and reading what they print."""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
    why = f"{name} is not installed: run `npm ci --prefix {NODE.relative_to(REPO)}` (.ci/run does)"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def installed_version(package: str) -> str:
    import json

    return json.loads((NODE / "node_modules" / package / "package.json").read_text(encoding="utf-8"))["version"]
