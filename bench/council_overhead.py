"""Council overhead: headless councils of 3, 8 and 16 seats against the loopback fake provider.

Every model call is delayed by a fixed latency L. A council has three sequential model
stages — Stage 1 (every seat reviews, in parallel), Stage 2 (every seat judges, in parallel)
and the chair — so a perfectly parallel run takes 3·L whatever its size. wall / (3·L) is
the figure: 1.0 is perfect, and what is above it is the engine's own cost (pre-flight,
prompt composition, validation, anonymization, the tally, the report, the atomic run.json
checkpoints after every leg, and the HTTP round trips).

    python bench/council_overhead.py [--latency 0.5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakeprovider import FakeProvider, Reply, by_prompt, chat, prompt_of, usage  # noqa: E402
from council_prompts import kind  # noqa: E402

from amicus_mcp.engine.council_run import RunOptions, run_council  # noqa: E402

SIZES = (3, 8, 16)
SEQUENTIAL_STAGES = 3  # Stage 1, Stage 2, the chair



def review(name: str) -> str:
    block = {"overall": f"{name} overall", "findings": [
        {"id": i, "severity": "major", "claim": f"{name} claim {i}", "location": "section 1", "rationale": "because"}
        for i in (1, 2)]}
    return f"The {name} review.\n\n```json\n{json.dumps(block)}\n```\n"


def judge(latency: float):  # type: ignore[no-untyped-def]
    def answer(body: Any) -> Reply:
        prompt = prompt_of(body)
        labels = re.findall(r"^### (Review [A-Z])$", prompt, re.M)
        index = prompt.split("## Findings index", 1)[1].split("## The reviews", 1)[0]
        ids = re.findall(r"^- \*\*([A-Z]\d+)\*\*", index, re.M)
        block = {"ranking": labels, "adjudications": [{"id": i, "verdict": "agree"} for i in ids]}
        return chat(f"Reasoning.\n\n```json\n{json.dumps(block)}\n```\n", usage=usage(100, 50), delay_s=latency)

    return answer


def script_council(fake: FakeProvider, size: int, latency: float) -> list[str]:
    names = [f"seat{i}" for i in range(1, size + 1)]
    for name in names:
        fake.respond(name, by_prompt(kind, {
            "stage1": chat(review(name), usage=usage(100, 50), delay_s=latency),
            "judge": judge(latency),
        }))
    fake.respond("chair", by_prompt(kind, {
        "chair": chat("Synthesis.\n\nVERDICT: Fix these first", usage=usage(100, 50), delay_s=latency)}))
    return [f"fake/{n}" for n in names]


async def one_run(models: list[str], brief: Path, project: Path, out: Path) -> float:
    start = time.perf_counter()
    run, code = await run_council(RunOptions(prompt_file=str(brief), models=models, chair="fake/chair",
                                             project=str(project), out_dir=str(out)))
    elapsed = time.perf_counter() - start
    assert (code, run["status"]) == (0, "complete"), (code, run["status"], run.get("notices"))
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="per-call latency L in seconds")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
        root = Path(tmp)
        config = root / "config"
        config.mkdir()
        (config / "config.json").write_text(json.dumps({"providers": {"fake": {"baseUrl": fake.base_url}}}))
        os.environ["AMICUS_CONFIG_DIR"] = str(config)
        os.environ["AMICUS_FANOUT_MAX_LEGS"] = str(max(SIZES) * 2)
        project = root / "project"
        project.mkdir()
        brief = root / "briefing.md"
        brief.write_text("Review the design of the widget cache.\n")

        ideal = SEQUENTIAL_STAGES * args.latency
        print(f"L = {args.latency:.3f} s, sequential model stages = {SEQUENTIAL_STAGES} (ideal {ideal:.3f} s), "
              f"best of {args.repeats}")
        print(f"{'seats':>5} {'calls':>6} {'wall s':>8} {'wall/(3L)':>10} {'overhead s':>11}")
        for size in SIZES:
            models = script_council(fake, size, args.latency)
            times = []
            for n in range(args.repeats):
                times.append(anyio.run(one_run, models, brief, project, root / f"run-{size}-{n}"))
            best = min(times)
            print(f"{size:>5} {2 * size + 1:>6} {best:>8.3f} {best / ideal:>10.3f} {best - ideal:>11.3f}")


if __name__ == "__main__":
    main()
