"""The MCP Bundle (`.mcpb`) for Claude Desktop, with the real `mcpb` CLI (npm @anthropic-ai/mcpb).

`scripts/build-mcpb.sh` builds the bundle; `mcpb unpack` unpacks it as an install would; the
server command is the manifest's `mcp_config` with the settings form's values substituted by
mcpb's own `getMcpConfigForManifest` (the function Desktop's bundle runtime is built on: an
optional field never set stays a literal `${user_config.…}`); and that command — `uv run` in
the unpacked bundle — is started by the MCP Inspector CLI, which drives a whole council
against the loopback fake OpenRouter. The key exists only in the settings values.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from client_helpers import NODE, REPO, client_binary, package_command
from council_script import VERDICT, chair, member
from fakeprovider import FakeProvider

from amicus_mcp import __version__

KEY = "sk-or-v1-BUNDLEKEY0123456789abcdef"
BENCH = ["vendor/a", "vendor/b", "google/gemini-fake"]  # google/…: direct only if a Google key were set
PLUMBING = ("AMICUS_CONFIG_DIR", "AMICUS_OPENROUTER_BASE_URL", "AMICUS_PROJECT_ROOTS")  # the test's own world


def mcpb(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(client_binary("mcpb")), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def uv_on_path() -> None:
    """Desktop runs `uv` by name; this test's uv is the test extra's, next to this interpreter."""
    from shutil import which

    beside = Path(sys.executable).with_name("uv")
    if beside.exists() and which("uv") != str(beside):
        os.environ["PATH"] = f"{beside.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    if which("uv") is None:
        why = "uv is not installed (it is in the test extra: pip install -e '.[test]')"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)


def desktop_config(extension: Path, user_config: dict[str, Any]) -> dict[str, Any]:
    """The command Desktop starts: mcpb's own substitution of the manifest's mcp_config."""
    script = """
import { readFileSync } from 'node:fs';
import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';
const [dir, values] = [process.argv[1], JSON.parse(process.argv[2])];
const manifest = JSON.parse(readFileSync(dir + '/manifest.json', 'utf8'));
const config = await getMcpConfigForManifest({ manifest, extensionPath: dir, userConfig: values,
  systemDirs: { HOME: process.env.HOME }, pathSeparator: '/' });
process.stdout.write(JSON.stringify(config ?? null));
"""
    done = subprocess.run(["node", "--input-type=module", "-e", script, str(extension), json.dumps(user_config)],
                          cwd=NODE, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def inspector(config: dict[str, Any], cwd: Path, *args: str) -> dict[str, Any]:
    """One Inspector CLI call against a fresh server started from the bundle (the command, its
    arguments and its environment handed over as an `mcpServers` config, as Desktop keeps them)."""
    servers = cwd / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"amicus": config}}), encoding="utf-8")
    # The Inspector 0.15 itself: node_modules/.bin/mcp-inspector may be either installed Inspector.
    command = [*package_command("@modelcontextprotocol/inspector", "mcp-inspector"), "--cli", "--config", str(servers),
               "--server", "amicus", *args]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


def call(config: dict[str, Any], cwd: Path, tool: str, **arguments: Any) -> dict[str, Any]:
    args = ["--method", "tools/call", "--tool-name", tool]
    for key, value in arguments.items():
        args += ["--tool-arg", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    result = inspector(config, cwd, *args)
    assert not result.get("isError"), result["content"][0]["text"]
    return result["structuredContent"]


def test_mcpb_validates_the_manifest_in_the_repository() -> None:
    done = mcpb("validate", "manifest.json")
    assert done.returncode == 0 and "Manifest schema validation passes!" in done.stdout, done.stdout + done.stderr


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    client_binary("mcpb")
    uv_on_path()
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(["bash", str(REPO / "scripts" / "build-mcpb.sh"), "--out", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    path = Path(done.stdout.strip().splitlines()[-1])
    assert path == out / f"amicus-mcp-{__version__}.mcpb" and path.is_file()
    return path


def test_the_bundle_holds_what_it_runs_from(bundle: Path) -> None:
    names = set(zipfile.ZipFile(bundle).namelist())
    assert {"manifest.json", "pyproject.toml", "uv.lock", "README.md", "src/amicus_mcp/mcp/server.py",
            "src/amicus_mcp/workspace/static/mcp-app.js", "src/amicus_mcp/schemas/council-tally.schema.json"} <= names
    assert not [n for n in names if "__pycache__" in n or n.startswith((".venv", "tests/", ".git"))]
    shipped = json.loads(zipfile.ZipFile(bundle).read("manifest.json"))
    assert shipped == json.loads((REPO / "manifest.json").read_text(encoding="utf-8"))
    assert shipped["icon"] in names and {icon["src"] for icon in shipped["icons"]} <= names  # what Desktop shows
    assert len(shipped["screenshots"]) == 3 and set(shipped["screenshots"]) <= names  # what a directory lists


def test_the_unpacked_bundle_runs_a_council_with_the_key_from_the_form_only(
        bundle: Path, fake: FakeProvider, project: Path, briefing: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)  # the fake is OpenRouter
    fake.catalog = [{"id": m, "name": m, "context_length": 100000, "pricing": {"prompt": "0.000001", "completion": "0.00001"}}
                    for m in (*BENCH, "vendor/chair")]
    for model in BENCH:
        member(fake, model)
    chair(fake, "vendor/chair")
    assert not [n for n in os.environ if n.endswith("_API_KEY")]  # no key anywhere but the form
    extension = tmp_path / "extension"
    unpacked = mcpb("unpack", str(bundle), str(extension))
    assert unpacked.returncode == 0, unpacked.stdout + unpacked.stderr

    # The form as a user fills it: the key pasted, the folder picked, a default bench and chair
    # typed, the ceiling cleared (""), the other keys never touched.
    config = desktop_config(extension, {"openrouter_api_key": KEY, "project_dir": str(project),
                                        "default_bench": ",".join(BENCH), "default_chair": "vendor/chair",
                                        "max_cost": ""})
    assert config["command"] == "uv" and config["args"] == ["run", "--directory", str(extension), "--frozen", "amicus-mcp"]
    env = config["env"]
    assert env["OPENROUTER_API_KEY"] == KEY and env["AMICUS_PROJECT_DIR"] == str(project)
    assert env["GOOGLE_GENERATIVE_AI_API_KEY"] == "${user_config.google_api_key}"  # never set: left as is
    assert env["AMICUS_DEFAULT_MAX_COST"] == ""

    elsewhere = tmp_path / "desktop-cwd"  # Desktop's working directory is not the project
    elsewhere.mkdir()
    listed = inspector(config, elsewhere, "--method", "tools/list")
    assert len(listed["tools"]) == len(json.loads((REPO / "manifest.json").read_text(encoding="utf-8"))["tools"])
    started = call(config, elsewhere, "amicus_council_run", briefingFile="briefing.md")
    deadline = time.monotonic() + 120
    while not (waited := call(config, elsewhere, "amicus_wait", id=started["runId"], timeoutSeconds=20))["terminal"]:
        assert time.monotonic() < deadline, waited
    assert (waited["status"], waited["overallVerdict"], waited["exitCode"]) == ("complete", VERDICT, 0), waited

    run = json.loads((Path(started["runDir"]) / "run.json").read_text(encoding="utf-8"))
    assert Path(started["runDir"]).parent == project  # the folder from the form
    assert [seat["id"] for seat in run["seats"]] == BENCH and run["chair"] == "vendor/chair"  # the form's defaults
    options = json.loads((Path(started["runDir"]) / "options.json").read_text(encoding="utf-8"))
    assert options.get("maxCost") is None  # the cleared ceiling is no ceiling
    chats = [r for r in fake.requests if r.path.endswith("/chat/completions")]
    assert len(chats) >= 6 and {r.headers.get("authorization") for r in chats} == {f"Bearer {KEY}"}
    assert {r.body["model"] for r in chats} >= set(BENCH)  # google/… went through OpenRouter: no Google key
    for path in project.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(encoding="utf-8", errors="replace"), path
