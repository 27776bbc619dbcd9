"""How the tally scales: synthetic councils from 10^3 to 2*10^5 adjudications.

Prints wall time per adjudication at each size and its ratio to the smallest size measured in
the same run (machines here are noisy; ratios are what to compare). Linear growth means the
per-adjudication time stays flat, i.e. ratios near 1.0.

    python bench/tally_scale.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import random
import time

from amicus_mcp.council.tally import tally

JUDGES = [f"model-{i}" for i in range(8)]
SIZES = (1_000, 5_000, 25_000, 100_000, 200_000)
VERDICTS = ("agree", "dispute", "neutral")
SEVERITIES = ("blocker", "major", "minor", "nit")


def synthetic_council(adjudications: int, seed: int = 7) -> dict:
    rnd = random.Random(seed)
    n_findings = adjudications // len(JUDGES)
    findings = [
        {"id": f"F{i}", "raiser": JUDGES[i % len(JUDGES)], "severity": rnd.choice(SEVERITIES), "claim": f"claim {i}"}
        for i in range(n_findings)
    ]
    votes = [
        {"findingId": f["id"], "judge": judge, "verdict": rnd.choice(VERDICTS)}
        for f in findings
        for judge in JUDGES
    ]
    rankings = [{"judge": judge, "order": rnd.sample(JUDGES, len(JUDGES))} for judge in JUDGES]
    return {
        "meta": {"runId": f"bench-{adjudications}", "models": JUDGES, "chair": "chair"},
        "findings": findings,
        "adjudications": votes,
        "rankings": rankings,
        "runStats": [{"model": j, "status": "complete"} for j in JUDGES],
    }


def best_time(doc: dict, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        tally(doc)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    print(f"{'adjudications':>14} {'findings':>9} {'best ms':>10} {'µs/adj':>8} {'ratio':>6}")
    baseline = None
    for size in SIZES:
        doc = synthetic_council(size)
        seconds = best_time(doc, args.repeats)
        per_adj = seconds / size * 1e6
        baseline = baseline or per_adj
        print(f"{size:>14,} {len(doc['findings']):>9,} {seconds * 1e3:>10.1f} {per_adj:>8.2f} {per_adj / baseline:>6.2f}")


if __name__ == "__main__":
    main()
