"""One-leg fanout start-up: a whole `amicus fanout` process of one leg on a zero-latency model,
beside a bare `python -c "import httpx, anyio, pydantic"` measured in the same run.

The model answers at once (the loopback fake provider, no delay), so what the fanout process
takes is what amicus itself costs a command: interpreter start-up, its imports, parsing the
command line, pre-flight, the one request, the wave's documents and the printed result. The
baseline is the floor any Python program built on the same libraries pays on this machine at
that moment. The two (and a second engine, with `--compare`) are run alternately, whole
processes each time, because these machines are noisy; the figures are medians and the ratio
is fanout / bare imports (target ≤ 1.6).

A third line, the library floor, is the least any program doing this job on the same libraries
pays: it parses a command line, validates a pydantic model, and sends the one request over
anyio and httpx (a client that loads no certificates: the request is plain HTTP) and prints
the reply as JSON — nothing of amicus. fanout / floor is amicus's own cost.

    python bench/fanout_startup.py [--repeats 15] [--python PY] [--compare PY]

`--python` runs the fanout under another interpreter (another checkout's venv); `--compare`
adds a second one measured alternately with the first, so two versions are compared under the
same load in one sitting.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from processes import FakeProvider, add_interpreters, environment, fake_config, timed

from fakeprovider import chat, usage

BARE = "import httpx, anyio, pydantic"
FLOOR = r"""
import argparse, json, ssl, sys
import anyio, httpx
from pydantic import BaseModel

class Options(BaseModel):
    models: list[str]
    timeout_min: float = 15.0

args = argparse.ArgumentParser().parse_args([])
options = Options(models=["model"])

async def main():
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # plain HTTP: no certificates to load
    async with httpx.AsyncClient(verify=tls) as client:
        body = {"model": options.models[0], "messages": [{"role": "user", "content": "Review this."}]}
        reply = await client.post(sys.argv[1], json=body, timeout=60)
        print(json.dumps(reply.json(), indent=2))

anyio.run(main)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    add_interpreters(parser, "the fanout")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
        root = Path(tmp)
        fake.script("model", chat("A review.", usage=usage(100, 50)))
        env = environment(AMICUS_CONFIG_DIR=str(fake_config(root, fake)))
        project = root / "project"
        project.mkdir()
        prompt = root / "prompt.md"
        prompt.write_text("Review the design of the widget cache.\n")

        def fanout(python: str) -> list[str]:
            return [python, "-m", "amicus_mcp.cli", "fanout", "--models", "fake/model", "--prompt-file", str(prompt),
                    "--project", str(project), "--json", "--quiet"]

        commands = {"bare imports": [sys.executable, "-c", BARE],
                    "library floor": [sys.executable, "-c", FLOOR, f"{fake.base_url}/chat/completions"],
                    "fanout": fanout(args.python)}
        if args.compare:
            commands["fanout (compare)"] = fanout(args.compare)
        for argv in commands.values():  # warm the OS file cache and bytecode caches once, unmeasured
            timed(argv, env, root)
        runs: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, argv in commands.items():
                runs[name].append(timed(argv, env, root))

    print(f"one-leg fanout on a zero-latency model vs `python -c \"{BARE}\"`, whole processes, alternated, "
          f"median of {args.repeats}")
    print(f"  fanout: {args.python}" + (f"\n  compare: {args.compare}" if args.compare else ""))
    floor = statistics.median(runs["bare imports"])
    print(f"{'command':<18} {'median s':>9} {'best s':>8} {'ratio':>7}")
    for name, times in runs.items():
        median = statistics.median(times)
        print(f"{name:<18} {median:>9.3f} {min(times):>8.3f} {median / floor:>6.2f}x")


if __name__ == "__main__":
    main()
