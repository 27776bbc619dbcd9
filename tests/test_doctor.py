"""`amicus doctor`: every check reports what it saw, never a key's value, and --fix repairs."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from fakeprovider import FakeProvider

from amicus_mcp.doctor import check_catalog, check_config_dir, check_keys, run_checks
from amicus_mcp.schemas import schema_errors

KEYS = ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY")


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "config"
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(folder))
    monkeypatch.delenv("AMICUS_ENV_DIR", raising=False)
    return folder


def test_keys_are_named_never_shown(config, monkeypatch):
    assert check_keys().status == "warn"
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-very-secret")
    check = check_keys()
    assert (check.status, check.detail) == ("ok", "set: OPENROUTER_API_KEY")
    assert "very-secret" not in json.dumps(run_checks(offline=True))


def test_catalog_reachable_and_unreachable(config, monkeypatch):
    with FakeProvider() as fake:
        fake.catalog = [{"id": "vendor/model-a", "name": "A", "pricing": {"prompt": "0.000001", "completion": "0.000002"}}]
        monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
        assert check_catalog().status == "ok"
    # A fresh config dir, and nothing listening: cannot validate, which is a warning, not a failure.
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(config.parent / "other"))
    check = check_catalog()
    assert check.status == "warn" and "cannot be validated" in check.detail


def test_config_dir_fix_makes_the_keys_file_private(config):
    assert check_config_dir().status == "ok"  # absent: created on first use
    config.mkdir(parents=True)
    env = config / ".env"
    env.write_text("OPENROUTER_API_KEY=sk-x\n", encoding="utf-8")
    env.chmod(0o644)
    assert check_config_dir().status == "warn"
    assert check_config_dir(fix=True).status == "ok"
    assert stat.S_IMODE(env.stat().st_mode) == 0o600


def test_broken_config_fails_and_exits_1(config):
    config.mkdir(parents=True)
    (config / "config.json").write_text("{ not json", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", "doctor", "--offline", "--json"],
                            capture_output=True, text=True, env=os.environ.copy(), timeout=60)
    assert result.returncode == 1
    doc = json.loads(result.stdout)
    assert schema_errors(doc, "doctor") == []
    assert [c["status"] for c in doc["checks"] if c["name"] == "config dir"] == ["fail"]


def test_human_output_has_a_hint_for_every_problem(config):
    result = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", "doctor", "--offline"],
                            capture_output=True, text=True, env=os.environ.copy(), timeout=60)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("! ") or line.startswith("✗ "):
            assert lines[i + 1].startswith("    → ")


def test_doctor_without_fix_writes_nothing(config, monkeypatch, tmp_path):
    """Issue 27 item 20: a check must not write — no config dir, no catalog cache; only --fix does."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from cli_harness import check_contract, run_cli

    with FakeProvider() as fake:
        fake.catalog = [{"id": "vendor/model-a", "name": "A", "pricing": {"prompt": "0.000001", "completion": "0.000002"}}]
        monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
        checked = run_cli("doctor", "--json")
        check_contract(checked, as_json=True)
        catalog = next(c for c in json.loads(checked.out)["checks"] if c["name"] == "catalog")
        assert catalog["status"] == "ok" and "1 models (fresh" in catalog["detail"]
        assert not config.exists()  # neither the config dir nor the catalog cache was written
        fixed = run_cli("doctor", "--fix", "--json")
        check_contract(fixed, as_json=True)
        assert (config / "model-catalog.json").is_file()
