"""Eval tests: the shipped suite run end to end against fake models of known recall.

`shipped_eval` runs `amicus eval run` once per session (the whole shipped suite, through the real
engine and the loopback fake provider) in a config dir and project of its own; tests that change
what it wrote work on copies of its eval directory.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_helpers import ShippedEval, run_shipped_eval  # noqa: E402


@pytest.fixture(scope="session")
def shipped_eval(tmp_path_factory: pytest.TempPathFactory) -> ShippedEval:
    """One eval of the whole shipped suite for the session; its environment (config dir, the fake)
    exists only while it runs, so no other test sees it."""
    return run_shipped_eval(tmp_path_factory.mktemp("shipped-eval"))


@pytest.fixture(scope="session")
def verified_eval(tmp_path_factory: pytest.TempPathFactory) -> ShippedEval:
    """The same eval with `--verify` (issue 30): the chair's model checks the Confirmed/Contested
    blocker and major findings, refuting exactly those whose quote the fake fabricated."""
    return run_shipped_eval(tmp_path_factory.mktemp("verified-eval"), "--verify")


@pytest.fixture
def eval_copy(shipped_eval: ShippedEval, tmp_path: Path) -> Path:
    """A copy of the shipped eval's directory, to damage or re-score."""
    target = tmp_path / "eval-copy"
    shutil.copytree(shipped_eval.directory, target)
    return target
