"""No value shaped like a template placeholder is ever sent as a key, on any front (issue 27
item 24): Desktop's exact `${user_config.…}`, the same in capitals, without its closing brace,
and the other template shapes. The error names the variable that holds it, never the value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from council_helpers import member

from amicus_mcp.cli import main as cli_main
from amicus_mcp.doctor import check_keys
from amicus_mcp.envvars import looks_like_placeholder
from amicus_mcp.providers.keys import get_key, not_set

SHAPES = ["${user_config.openrouter_api_key}", "${USER_CONFIG.openrouter_api_key}", "${user_config.fake_key",
          "{{ FAKE_KEY }}", "$FAKE_KEY", "%FAKE_KEY%", "<your key here>", "$(pass show fake)"]
REAL = ["sk-or-v1-0123456789abcdef", "sk-proj-abc$def", "AIzaSy-real_key", "key{{not-a-template"]


@pytest.fixture
def fake_settings() -> dict[str, str]:
    return {"apiKeyEnv": "FAKE_KEY"}


@pytest.mark.parametrize("value", SHAPES)
def test_a_placeholder_is_not_a_key_in_the_environment_or_the_keys_file(value: str) -> None:
    assert looks_like_placeholder(value)
    assert get_key("FAKE_KEY", environ={"FAKE_KEY": value}, env_file={}) is None
    assert get_key("FAKE_KEY", environ={}, env_file={"FAKE_KEY": value}) is None
    assert get_key("FAKE_KEY", environ={"FAKE_KEY": value}, env_file={"FAKE_KEY": "sk-real-1"}).reveal() == "sk-real-1"


@pytest.mark.parametrize("value", REAL)
def test_a_real_key_is_still_a_key(value: str) -> None:
    assert not looks_like_placeholder(value)
    assert get_key("FAKE_KEY", environ={"FAKE_KEY": value}, env_file={}).reveal() == value


@pytest.mark.parametrize("value", SHAPES)
def test_the_cli_never_sends_a_placeholder_and_names_its_variable(
        value: str, fake, project: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("a", "b", "chair"):
        member(fake, name, cost=0.001)
    monkeypatch.setenv("FAKE_KEY", value)
    brief = tmp_path / "brief.md"
    brief.write_text("Review the cache.\n", encoding="utf-8")
    code = cli_main(["council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair", "--prompt-file",
                     str(brief), "--project", str(project), "--out-dir", str(tmp_path / "run"), "--json"])
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert (code, doc["error"]["code"]) == (1, "MISSING_KEY"), doc
    assert "FAKE_KEY holds a template placeholder in the environment, not a key" in doc["error"]["message"]
    assert value not in out.out + out.err
    assert not [r for r in fake.requests if value in json.dumps(r.headers)]
    assert not fake.chat_requests()


def test_doctor_says_which_variable_holds_a_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "${USER_CONFIG.openrouter_api_key}")
    check = check_keys()
    assert check.status == "warn" and check.detail.startswith("OPENROUTER_API_KEY holds a template placeholder")
    assert "USER_CONFIG" not in check.detail + (check.hint or "")
    monkeypatch.delenv("OPENROUTER_API_KEY")
    assert not_set("OPENROUTER_API_KEY") == "OPENROUTER_API_KEY is not set"
