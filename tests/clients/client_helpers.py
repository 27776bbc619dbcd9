"""Finding the npm-installed clients, and reading what they print."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import NoReturn

import pytest

NODE = Path(__file__).resolve().parent / "node"
BIN = NODE / "node_modules" / ".bin"
REPO = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "amicus_mcp.mcp"]  # this checkout's server, as a real stdio subprocess


def recording_server(log: Path) -> list[str]:
    """SERVER behind a tee of what the client writes to it (stdio framing: one JSON-RPC message
    per line), so a test can say which protocol era a real host spoke."""
    return ["bash", "-c", f'tee -a "$0" | exec {shlex.join(SERVER)}', str(log)]


def eras_spoken(log: Path) -> dict[str, list[str]]:
    """method → the protocol revision each of the client's requests named: the 2026-07-28 era's
    per-request envelope, or the handshake era's `initialize` (a request after it names none)."""
    spoken: dict[str, list[str]] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        message = json.loads(line)
        if "method" not in message or "id" not in message:
            continue  # a notification or a response
        params = message.get("params") or {}
        era = (params.get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion") or params.get("protocolVersion")
        spoken.setdefault(message["method"], []).append(era or "")
    return spoken


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
