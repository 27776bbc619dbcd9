"""A default chair never clashes with the bench (issue 27 item 1): the form's own examples —
Default bench `budget` or `gemini,gpt,deepseek`, Default chair empty — ran into
`BAD_ARGS: the chair 'deepseek' is also a bench seat` on every run. A chair nobody typed
(none given, or AMICUS_DEFAULT_CHAIR / the bundle's "Default chair") that sits on the bench
gives way to the first of CHAIR_ORDER that does not, and a notice says which and why; a chair
the caller typed (or a pack set) on the bench is still refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_helpers import member

from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine.preflight import CHAIR_ORDER

# The built-in aliases, pointed at the loopback fake (config.json `aliases`), so the built-in
# `budget` bench and the fallback chairs run for real.
ALIASES = {"minimax": "fake/minimax", "qwen-coder": "fake/qwen-coder", "deepseek": "fake/deepseek",
           "gemini": "fake/gemini", "gpt": "fake/gpt", "kimi": "fake/kimi"}


@pytest.fixture
def fake_settings() -> dict[str, Any]:
    return {}


@pytest.fixture
def aliased(fake, config_dir: Path) -> Any:
    from fakeprovider import configure_fake

    configure_fake(config_dir, fake, extra={"aliases": ALIASES})
    for model in ALIASES.values():
        member(fake, model.removeprefix("fake/"), cost=0.001)
    return fake


def run(capsys: pytest.CaptureFixture[str], tmp_path: Path, project: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    brief = tmp_path / "brief.md"
    brief.write_text("Review the cache.\n", encoding="utf-8")
    code = cli_main(["council", "run", *argv, "--prompt-file", str(brief), "--project", str(project),
                     "--out-dir", str(tmp_path / "run"), "--json"])
    return code, json.loads(capsys.readouterr().out)


def notices(tmp_path: Path) -> list[str]:
    return json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8")).get("notices", [])


def test_the_budget_bench_with_no_chair_runs_and_says_which_chair_it_took(
        aliased, tmp_path: Path, project: Path, capsys) -> None:
    code, doc = run(capsys, tmp_path, project, "--council", "budget")
    assert code == 0, doc
    assert doc["chair"] == "gemini"
    said = [n for n in notices(tmp_path) if "default chair" in n]
    assert said == ["the default chair 'deepseek' is a bench seat, and the chair must be independent of the bench: "
                    f"'gemini' chairs instead (the first of {', '.join(CHAIR_ORDER)} that is not a bench seat)"]
    assert aliased.chat_requests("gemini")  # the chair that was named is the one that chaired


def test_the_forms_other_example_bench_takes_the_next_independent_chair(
        aliased, tmp_path: Path, project: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_DEFAULT_BENCH", "gemini,gpt,deepseek")
    code, doc = run(capsys, tmp_path, project)
    assert (code, doc["chair"]) == (0, "kimi"), doc


def test_an_installations_chair_on_the_bench_gives_way_naming_where_it_was_set(
        aliased, tmp_path: Path, project: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_DEFAULT_BENCH", "budget")
    monkeypatch.setenv("AMICUS_DEFAULT_CHAIR", "qwen-coder")
    code, doc = run(capsys, tmp_path, project)
    assert (code, doc["chair"]) == (0, "gemini"), doc
    assert any(n.startswith("the default chair 'qwen-coder' (AMICUS_DEFAULT_CHAIR) is a bench seat")
               for n in notices(tmp_path))


def test_under_desktop_the_notice_names_the_forms_field(
        aliased, tmp_path: Path, project: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_INSTALL", "claude-desktop-bundle")
    monkeypatch.setenv("AMICUS_DEFAULT_BENCH", "budget")
    monkeypatch.setenv("AMICUS_DEFAULT_CHAIR", "deepseek")
    code, doc = run(capsys, tmp_path, project)
    assert (code, doc["chair"]) == (0, "gemini"), doc
    assert any(n.startswith("the default chair 'deepseek' (the \"Default chair\" field in the amicus extension's "
                            "settings in Claude Desktop) is a bench seat") for n in notices(tmp_path))


def test_an_installations_chair_off_the_bench_is_the_runs_as_before(
        aliased, tmp_path: Path, project: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_DEFAULT_CHAIR", "kimi")
    code, doc = run(capsys, tmp_path, project, "--council", "budget")
    assert (code, doc["chair"]) == (0, "kimi"), doc
    assert not [n for n in notices(tmp_path) if "default chair" in n]
    options = json.loads((tmp_path / "run" / "options.json").read_text(encoding="utf-8"))
    assert options["chair"] == "kimi"


def test_a_typed_chair_on_the_bench_is_still_the_callers_to_fix(
        aliased, tmp_path: Path, project: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_DEFAULT_CHAIR", "kimi")  # a default never overrides what was typed
    code, doc = run(capsys, tmp_path, project, "--council", "budget", "--chair", "deepseek")
    assert (code, doc["error"]["code"]) == (1, "BAD_ARGS"), doc
    assert doc["error"]["message"] == "the chair 'deepseek' is also a bench seat"
    assert not aliased.chat_requests()
