"""An installation's defaults for council runs (AMICUS_DEFAULT_BENCH / _CHAIR / _MAX_COST): they
fill only what a run left unset after its pack, and "not set" has three spellings — absent,
empty, and the `${user_config.…}` placeholder Claude Desktop leaves for a field never filled."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_helpers import member

from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine.defaults import apply_env_defaults
from amicus_mcp.engine.options import RunOptions
from amicus_mcp.envvars import scrub_placeholders, setting
from amicus_mcp.errors import BadArgs
from amicus_mcp.desktop import SETTING_NAMES
from amicus_mcp.providers.keys import set_key_hint

UNSET = ["", "   ", "${user_config.default_bench}", " ${user_config.max_cost} "]


def bench(fake: Any) -> None:
    for name in ("a", "b", "c", "chair"):
        member(fake, name, cost=0.001)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = cli_main(["council", "run", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_run_that_names_no_bench_chair_or_ceiling_takes_the_installations(
        fake, run_dir: Path, project: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    bench(fake)
    brief = tmp_path / "brief.md"
    brief.write_text("Review the cache.\n", encoding="utf-8")
    monkeypatch.setenv("AMICUS_DEFAULT_BENCH", "fake/a, fake/b")
    monkeypatch.setenv("AMICUS_DEFAULT_CHAIR", "fake/chair")
    monkeypatch.setenv("AMICUS_DEFAULT_MAX_COST", "2")
    code, doc = run(capsys, "--prompt-file", str(brief), "--out-dir", str(run_dir), "--project", str(project))
    assert code == 0, doc
    assert (doc["bench"], doc["chair"], doc["options"]["maxCost"]) == (["fake/a", "fake/b"], "fake/chair", 2)
    options = json.loads((run_dir / "options.json").read_text(encoding="utf-8"))
    assert (options["models"], options["chair"], options["maxCost"]) == (["fake/a", "fake/b"], "fake/chair", 2)


@pytest.mark.parametrize("value", UNSET)
def test_unset_in_every_spelling_leaves_the_run_as_typed(value: str) -> None:
    env = {"AMICUS_DEFAULT_BENCH": value, "AMICUS_DEFAULT_CHAIR": value, "AMICUS_DEFAULT_MAX_COST": value}
    options = RunOptions(prompt_file="b.md")
    assert apply_env_defaults(options, env) == options
    assert setting("AMICUS_DEFAULT_BENCH", env) is None


def test_typed_values_and_the_pack_beat_the_installation() -> None:
    env = {"AMICUS_DEFAULT_BENCH": "budget", "AMICUS_DEFAULT_CHAIR": "gpt", "AMICUS_DEFAULT_MAX_COST": "0"}
    assert apply_env_defaults(RunOptions(), env).council == "budget"  # one name: a council
    typed = RunOptions(models=["x/a", "x/b"], chair="deepseek", max_cost=1.0)
    assert apply_env_defaults(typed, env) == typed
    assert apply_env_defaults(RunOptions(council="mine"), env).council == "mine"
    assert apply_env_defaults(RunOptions(), env).max_cost is None  # 0: no ceiling


@pytest.mark.parametrize("value", ["two dollars", "-1", "inf", "nan"])
def test_a_bad_ceiling_is_refused_by_its_variables_name(value: str) -> None:
    with pytest.raises(BadArgs) as refused:
        apply_env_defaults(RunOptions(), {"AMICUS_DEFAULT_MAX_COST": value})
    assert refused.value.message.startswith("AMICUS_DEFAULT_MAX_COST must be a plain decimal number of dollars")


def test_start_up_scrubs_what_desktop_left_unfilled() -> None:
    env = {"OPENAI_API_KEY": "${user_config.openai_api_key}", "AMICUS_DEFAULT_MAX_COST": "",
           "OPENROUTER_API_KEY": "sk-or-v1-kept", "UNRELATED": "", "AMICUS_PROJECT_DIR": "/p"}
    assert scrub_placeholders(env, SETTING_NAMES) == ["AMICUS_DEFAULT_MAX_COST", "OPENAI_API_KEY"]
    assert env == {"OPENROUTER_API_KEY": "sk-or-v1-kept", "UNRELATED": "", "AMICUS_PROJECT_DIR": "/p"}


def test_a_missing_key_hint_points_a_bundle_user_at_the_form(monkeypatch: pytest.MonkeyPatch) -> None:
    assert set_key_hint("OPENROUTER_API_KEY").startswith("amicus keys set OPENROUTER_API_KEY")
    monkeypatch.setenv("AMICUS_INSTALL", "claude-desktop-bundle")
    assert set_key_hint("OPENROUTER_API_KEY") == ("paste the key into the amicus extension's settings in Claude "
                                                  "Desktop (it sets OPENROUTER_API_KEY)")
