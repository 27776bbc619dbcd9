"""The keys file loader, key lookup precedence, Secret and redact."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from amicus_mcp.keysfile import load_env_file, parse_env_text
from amicus_mcp.places import env_file_path
from amicus_mcp.providers.keys import Secret, get_key, redact

ENV_TEXT = """\
# amicus keys
OPENROUTER_API_KEY=sk-or-plain

export OPENAI_API_KEY="sk-quoted value"
DEEPSEEK_API_KEY='sk-single'
GOOGLE_GENERATIVE_AI_API_KEY=g-key # trailing comment
this line is broken sk-should-not-leak
EMPTY=
OPENROUTER_API_KEY=sk-or-later-wins
"""


def test_parse_env_text() -> None:
    values = parse_env_text(ENV_TEXT)
    assert values == {
        "OPENROUTER_API_KEY": "sk-or-later-wins",
        "OPENAI_API_KEY": "sk-quoted value",
        "DEEPSEEK_API_KEY": "sk-single",
        "GOOGLE_GENERATIVE_AI_API_KEY": "g-key",
        "EMPTY": "",
    }


def test_a_malformed_line_is_reported_by_number_without_its_content(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        parse_env_text(ENV_TEXT, source="keys")
    assert "keys line 7 is not KEY=value" in caplog.text
    assert "sk-" not in caplog.text


def test_load_env_file_from_the_config_dir(config_dir: Path) -> None:
    assert load_env_file() == {}  # no file yet
    (config_dir / ".env").write_bytes(b"\xef\xbb\xbfOPENAI_API_KEY=sk-bom\r\n")  # a BOM and CRLF from a Windows editor
    assert env_file_path() == config_dir / ".env"
    assert load_env_file() == {"OPENAI_API_KEY": "sk-bom"}


def test_amicus_env_dir_moves_the_keys_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_ENV_DIR", str(tmp_path / "elsewhere"))
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / ".env").write_text("DEEPSEEK_API_KEY=sk-elsewhere\n", encoding="utf-8")
    assert get_key("DEEPSEEK_API_KEY") == Secret("sk-elsewhere")


def test_an_unreadable_keys_file_is_ignored(config_dir: Path) -> None:
    (config_dir / ".env").mkdir(parents=True)  # a directory where the file should be
    assert load_env_file() == {}


def test_process_env_wins_and_empty_values_do_not_count(config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (config_dir / ".env").write_text("OPENAI_API_KEY=sk-file\nGEMINI_API_KEY=g-file\n", encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert get_key("OPENAI_API_KEY") == Secret("sk-env")
    monkeypatch.setenv("OPENAI_API_KEY", "  ")
    assert get_key("OPENAI_API_KEY") == Secret("sk-file")
    assert get_key("GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY") == Secret("g-file")
    assert get_key("ANTHROPIC_API_KEY") is None


def test_earlier_names_win_in_the_environment_before_the_file(config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (config_dir / ".env").write_text("GOOGLE_GENERATIVE_AI_API_KEY=g-file\n", encoding="utf-8")
    monkeypatch.setenv("GEMINI_API_KEY", "g-env")
    assert get_key("GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY") == Secret("g-env")


def test_secret_never_shows_itself() -> None:
    secret = Secret("sk-very-secret-value")
    for shown in (repr(secret), str(secret), f"{secret}", f"{secret!r}", repr([secret]), repr({"k": secret})):
        assert "sk-very-secret-value" not in shown
    assert secret.reveal() == "sk-very-secret-value"
    assert bool(Secret("")) is False


def test_redact() -> None:
    text = "Incorrect API key provided: sk-abcdef123456. Use sk-abcdef123456 again?"
    assert redact(text, [Secret("sk-abcdef123456"), None]) == "Incorrect API key provided: ***. Use *** again?"
    assert redact("a b c", ["a"]) == "a b c"  # too short to be a key: left alone
