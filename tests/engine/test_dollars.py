"""A sum of dollars as typed (issue 27 item 25): `--max-cost`, AMICUS_DEFAULT_MAX_COST and a
string `maxCost` are read by one reader, `options.parse_dollars` — a plain decimal of ASCII
digits. float() would read `1e-400` as 0 (no ceiling), `-0` as 0, `1_000` as 1000 and an
Arabic-Indic digit as a number; none of them is a ceiling anyone typed."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine.defaults import apply_env_defaults
from amicus_mcp.engine.options import RunOptions, parse_dollars
from amicus_mcp.errors import BadArgs

PLAIN = re.compile(r"[0-9]+(\.[0-9]+)?", re.ASCII)
HOLES = ["1e-400", "-0", "1_000", "\u0663", "\u0661.5", "0x10", "inf", "nan", "+2", "2.", ".5", "1e3",
         "0." + "0" * 400 + "1", "9" * 400]


@given(st.text(alphabet=st.sampled_from("0123456789._-+eE \u0663\u0966x"), max_size=12) | st.text(max_size=8))
def test_only_a_plain_decimal_is_a_sum_of_dollars(text: str) -> None:
    if not PLAIN.fullmatch(text.strip()):
        with pytest.raises(ValueError):
            parse_dollars(text)
        return
    try:
        value = parse_dollars(text)
    except ValueError:  # only a literal too small or too large for a float
        exact = Decimal(text.strip())
        assert exact != 0 and (float(exact) == 0 or float(exact) == float("inf"))
        return
    assert value == float(Decimal(text.strip()))
    assert (value == 0) == (Decimal(text.strip()) == 0)  # a non-zero literal never reads as 0


@pytest.mark.parametrize("text", HOLES)
def test_the_installations_ceiling_refuses_every_hole(text: str) -> None:
    with pytest.raises(BadArgs) as refused:
        apply_env_defaults(RunOptions(), {"AMICUS_DEFAULT_MAX_COST": text})
    assert refused.value.message.startswith("AMICUS_DEFAULT_MAX_COST ")


@pytest.mark.parametrize("text, ceiling", [("0", None), ("0.00", None), ("2", 2.0), ("0.5", 0.5)])
def test_only_a_literal_zero_is_no_ceiling(text: str, ceiling: float | None) -> None:
    assert apply_env_defaults(RunOptions(), {"AMICUS_DEFAULT_MAX_COST": text}).max_cost == ceiling


@pytest.mark.parametrize("text", HOLES)
def test_the_flag_refuses_every_hole(text: str, tmp_path, capsys) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("Review it.\n", encoding="utf-8")
    code = cli_main(["council", "run", "--models", "x/a,x/b", "--prompt-file", str(brief),
                     f"--max-cost={text}", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert (code, doc["error"]["code"]) == (1, "BAD_ARGS"), doc
    assert doc["error"]["message"].startswith("--max-cost ")


@pytest.mark.parametrize("value", ["1_000", "\u0663", "1e-400", "inf", float("inf"), float("nan")])
def test_a_tool_argument_or_pack_value_is_held_to_the_same_reader(value: object) -> None:
    with pytest.raises(BadArgs) as refused:
        RunOptions.given(max_cost=value)
    assert refused.value.message.startswith("--max-cost ")
    assert RunOptions.given(max_cost="2.5").max_cost == 2.5
