"""What the provider layer costs on top of a bare HTTP call, and how a shared client fans out.

Runs against the fake OpenAI-compatible server (tests/fakeprovider.py) on 127.0.0.1, so
the figures are the client's own work: building the body, timeouts and the retry wrapper,
decoding, jsonschema validation and usage/cost parsing. Prints per-call times and the
ratio to a bare `httpx` POST of the same body measured in the same run (machines here are
noisy; ratios are what to compare), then wall time for N concurrent legs on one client.

    python bench/provider_overhead.py [--calls 300]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import anyio
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakeprovider import FakeProvider, ask, structured, usage  # noqa: E402

from amicus_mcp.providers.openai_compat import OpenAICompatibleProvider, build_payload  # noqa: E402

MODEL = "bench/model"
SCHEMA = {"type": "object", "properties": {"findings": {"type": "array"}}, "required": ["findings"]}
REPLY = {"findings": [{"id": i, "claim": "x" * 80} for i in range(20)]}


async def bare_calls(fake: FakeProvider, client: httpx.AsyncClient, calls: int) -> float:
    body = build_payload(ask(MODEL, json_schema=SCHEMA))
    start = time.perf_counter()
    for _ in range(calls):
        response = await client.post(f"{fake.base_url}/chat/completions", json=body)
        response.json()
    return (time.perf_counter() - start) / calls


async def provider_calls(provider: OpenAICompatibleProvider, calls: int) -> float:
    request = ask(MODEL, json_schema=SCHEMA)
    start = time.perf_counter()
    for _ in range(calls):
        await provider.complete(request)
    return (time.perf_counter() - start) / calls


async def concurrent_wall(provider: OpenAICompatibleProvider, legs: int) -> float:
    request = ask(MODEL, json_schema=SCHEMA)
    start = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for _ in range(legs):
            tg.start_soon(provider.complete, request)
    return time.perf_counter() - start


async def run(calls: int) -> None:
    with FakeProvider() as fake:
        fake.script(MODEL, structured(REPLY, usage=usage(2000, 400, reasoning=100, cached=500)))
        async with httpx.AsyncClient() as client:
            provider = OpenAICompatibleProvider("bench", fake.base_url, "sk-bench", client=client, cost_mode="local")
            await provider_calls(provider, 10)  # warm the connection pool
            bare = await bare_calls(fake, client, calls)
            ours = await provider_calls(provider, calls)
            print(f"{'path':>10} {'µs/call':>9} {'ratio':>6}")
            print(f"{'bare httpx':>10} {bare * 1e6:>9.0f} {1.0:>6.2f}")
            print(f"{'provider':>10} {ours * 1e6:>9.0f} {ours / bare:>6.2f}")
            print()
            print(f"{'legs':>5} {'wall ms':>8} {'ms/leg':>7}")
            for legs in (1, 4, 16, 64):
                wall = await concurrent_wall(provider, legs)
                print(f"{legs:>5} {wall * 1e3:>8.1f} {wall * 1e3 / legs:>7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    anyio.run(run, args.calls)


if __name__ == "__main__":
    main()
