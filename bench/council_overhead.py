"""Council overhead: whole `amicus council run` processes of 3, 8 and 16 seats against the
loopback fake provider, beside a baseline measured in the same run.

Every model call is delayed by a fixed latency L. A council has three sequential model
stages — Stage 1 (every seat reviews, in parallel), Stage 2 (every seat judges, in parallel)
and the chair — so a perfectly parallel run takes 3·L whatever its size. The figure is
wall / (3·L) for the whole process: interpreter start-up, imports, pre-flight, prompt
composition, validation, anonymization, the tally, the report, the run.json checkpoints and
the HTTP round trips. 1.0 is perfect.

The baseline is the floor any engine pays on this machine at that moment: a fresh Python
process that imports httpx and anyio and makes the same three sequential rounds of parallel
requests (N, N, 1) to the same fake server, with no engine at all. These machines are noisy,
so the two are measured alternately, best of `--repeats` each.

    python bench/council_overhead.py [--latency 2.0] [--repeats 3] [--python PY] [--compare PY]

`--python` runs the engine under another interpreter (another checkout's venv); `--compare`
adds a second engine measured alternately with the first, so two versions of the engine are
compared under the same load in one sitting.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from processes import FakeProvider, add_interpreters, environment, fake_config, interpreters, timed

from council_prompts import kind
from fakeprovider import Reply, by_prompt, chat, prompt_of, usage

SIZES = (3, 8, 16)
SEQUENTIAL_STAGES = 3  # Stage 1, Stage 2, the chair

BASELINE = r"""
import sys, anyio, httpx
url, size = sys.argv[1], int(sys.argv[2])
body = {"model": "base", "messages": [{"role": "user", "content": "x" * 2000}]}

async def main():
    async with httpx.AsyncClient(timeout=60) as client:
        async def call():
            (await client.post(url, json=body)).raise_for_status()

        for n in (size, size, 1):
            async with anyio.create_task_group() as group:
                for _ in range(n):
                    group.start_soon(call)

anyio.run(main)
"""


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
    fake.script("base", chat("ok", usage=usage(100, 50), delay_s=latency))
    return [f"fake/{n}" for n in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=2.0, help="per-call latency L in seconds")
    parser.add_argument("--repeats", type=int, default=3)
    add_interpreters(parser, "the engine")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
        root = Path(tmp)
        env = environment(AMICUS_CONFIG_DIR=str(fake_config(root, fake)), AMICUS_FANOUT_MAX_LEGS=str(max(SIZES) * 2))
        project = root / "project"
        project.mkdir()
        brief = root / "briefing.md"
        brief.write_text("Review the design of the widget cache.\n\n" + "The cache evicts on every write.\n" * 50)

        ideal = SEQUENTIAL_STAGES * args.latency
        engines = interpreters(args)
        print(f"L = {args.latency:.3f} s, {SEQUENTIAL_STAGES} sequential model stages (ideal {ideal:.3f} s), "
              f"whole processes, best of {args.repeats}")
        for n, python in enumerate(engines, 1):
            print(f"  engine {n}: {python}")
        print(f"{'seats':>5} {'calls':>6} {'engine':>6} {'wall s':>8} {'wall/(3L)':>10} {'baseline/(3L)':>14} "
              f"{'over baseline s':>16}")
        for size in SIZES:
            models = script_council(fake, size, args.latency)
            walls: list[list[float]] = [[] for _ in engines]
            baseline: list[float] = []
            for n in range(args.repeats):
                for index, python in enumerate(engines):
                    out = root / f"run-{size}-{n}-{index}"
                    walls[index].append(timed([python, "-m", "amicus_mcp.cli", "council", "run", "--models",
                                               ",".join(models), "--chair", "fake/chair", "--prompt-file", str(brief),
                                               "--out-dir", str(out), "--project", str(project), "--json"], env))
                baseline.append(timed([sys.executable, "-c", BASELINE, f"{fake.base_url}/chat/completions", str(size)],
                                      env))
            b = min(baseline)
            for index in range(len(engines)):
                e = min(walls[index])
                print(f"{size:>5} {2 * size + 1:>6} {index + 1:>6} {e:>8.3f} {e / ideal:>10.3f} {b / ideal:>14.3f} "
                      f"{e - b:>16.3f}")

if __name__ == "__main__":
    main()
