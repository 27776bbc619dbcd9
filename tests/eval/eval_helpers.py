"""Helpers the eval tests share: the fake bench of known recall, the CLI, the shipped eval's record.

(Not in conftest.py: test modules import these by name, and every test folder has a conftest.)
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_truth import BENCH, CHAIR, MATCHER, Truth, expected, titles, truth
from fakeprovider import FakeProvider, KnownRecall, configure_fake

from amicus_mcp.cli import main as cli_main
from amicus_mcp.eval.suite import Suite, load_suite

LEG_COST = 0.001  # what the fake bills for every call (usage.cost, reported)
CLOSED_LOOPBACK = "http://127.0.0.1:9/api/v1"
CLEARED = ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
           "GEMINI_API_KEY", "ANTHROPIC_API_KEY", "AMICUS_ENV_DIR", "AMICUS_PROJECT_DIR", "AMICUS_FANOUT_MAX_LEGS")


@dataclass
class ShippedEval:
    suite: Suite
    truth: Truth
    expected: dict[str, Any]
    directory: Path
    project: Path
    config: Path
    code: int
    printed: dict[str, Any]
    chat_requests: int
    matcher_requests: int


def known_bench(fake: FakeProvider, suite: Suite, t: Truth) -> KnownRecall:
    bench = KnownRecall(t.reviews, bench=BENCH, titles=titles(suite), verdicts=t.verdicts,
                        usage={"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150, "cost": LEG_COST})
    bench.install(fake, chair=CHAIR, matcher=MATCHER)
    return bench


def eval_argv(out_dir: Path, project: Path, *extra: str) -> list[str]:
    return ["eval", "run", "--models", ",".join(BENCH), "--chair", CHAIR, "--matcher", MATCHER,
            "--out-dir", str(out_dir), "--project", str(project), *extra]


def run_cli(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = cli_main(argv)
    return code, out.getvalue()


def run_shipped_eval(root: Path, *extra: str) -> ShippedEval:
    """`amicus eval run` over the whole shipped suite against the known-recall bench, in a config
    dir and project of its own; the environment exists only while it runs."""
    import pytest

    config, project = root / "config", root / "project"
    config.mkdir()
    project.mkdir()
    suite = load_suite()
    t = truth(suite)
    with pytest.MonkeyPatch.context() as mp, FakeProvider() as fake:
        for name in CLEARED:
            mp.delenv(name, raising=False)
        mp.setenv("AMICUS_CONFIG_DIR", str(config))
        mp.setenv("AMICUS_OPENROUTER_BASE_URL", CLOSED_LOOPBACK)
        configure_fake(config, fake, cost="reported")
        known_bench(fake, suite, t)
        code, out = run_cli(eval_argv(root / "eval", project, "--json", *extra))
        return ShippedEval(suite=suite, truth=t, expected=expected(suite, t), directory=root / "eval", project=project,
                           config=config, code=code, printed=json.loads(out), chat_requests=len(fake.chat_requests()),
                           matcher_requests=len(fake.chat_requests("matcher")))
