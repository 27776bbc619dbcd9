"""What the whole-process benchmarks share: the interpreters they measure (`--python`, and
`--compare` for a second engine measured alternately with the first), an environment in which
bytecode is written and read as in any installed package, a config dir that routes
`fake/<model>` to the loopback fake provider, and timing one process."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakeprovider import FakeProvider, configure_fake  # noqa: E402


def add_interpreters(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--python", default=sys.executable, help=f"the interpreter that runs {what}")
    parser.add_argument("--compare", default=None, help=f"a second interpreter's {what}, measured alternately")


def interpreters(args: argparse.Namespace) -> list[str]:
    return [args.python] + ([args.compare] if args.compare else [])


def environment(**extra: str) -> dict[str, str]:
    """This process's environment with bytecode writing on (the first, unmeasured run writes
    what the measured ones read, as an installed package has it), plus `extra`."""
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, **extra}


def fake_config(root: Path, fake: FakeProvider, **settings: Any) -> Path:
    config = root / "config"
    config.mkdir()
    configure_fake(config, fake, **settings)
    return config


def timed(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> float:
    """Seconds one whole process takes; a failing one stops the benchmark with its output."""
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv[:4]} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return elapsed
