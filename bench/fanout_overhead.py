"""Fanout overhead: waves of 1, 8 and 32 legs against the loopback fake provider.

Every leg's reply is delayed by a fixed latency L. A perfectly parallel wave takes L whatever
its size, so wall time / L is the figure: 1.0 is perfect, and what is above it is the
engine's own cost (routing, HTTP, atomic writes of wave.json and each leg's documents).

    python bench/fanout_overhead.py [--latency 0.5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakeprovider import FakeProvider, chat, usage  # noqa: E402

from amicus_mcp.engine.store import SessionStore, new_task_id  # noqa: E402
from amicus_mcp.engine.waves import WavePlan, run_wave  # noqa: E402
from amicus_mcp.providers.base import Message  # noqa: E402
from amicus_mcp.providers.routing import ProviderRegistry  # noqa: E402

SIZES = (1, 8, 32)


async def one_wave(size: int, store: SessionStore) -> float:
    plan = WavePlan(
        wave_id=new_task_id(),
        models=["fake/model"] * size,
        messages=(Message("user", "Review this."),),
        timeout_s=60,
        prompt_meta={"source": "inline", "file": None, "chars": 12},
    )
    async with ProviderRegistry() as registry:
        start = time.perf_counter()
        wave = await run_wave(plan, store, registry)
        elapsed = time.perf_counter() - start
    assert wave["status"] == "complete", wave["status"]
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="per-leg latency L in seconds")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
        config = Path(tmp) / "config"
        config.mkdir()
        (config / "config.json").write_text(json.dumps({"providers": {"fake": {"baseUrl": fake.base_url}}}))
        os.environ["AMICUS_CONFIG_DIR"] = str(config)
        fake.script("model", chat("A review.", usage=usage(100, 50), delay_s=args.latency))
        project = Path(tmp) / "project"
        project.mkdir()
        store = SessionStore(project)

        print(f"L = {args.latency:.3f} s, best of {args.repeats}")
        print(f"{'legs':>5} {'wall s':>8} {'wall/L':>7}")
        for size in SIZES:
            best = min(anyio.run(one_wave, size, store) for _ in range(args.repeats))
            print(f"{size:>5} {best:>8.3f} {best / args.latency:>7.2f}")


if __name__ == "__main__":
    main()
