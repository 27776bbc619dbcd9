"""What masking keys costs on the hot paths: every JSON write, every MCP result, every print.

Times `secrets.redact_text` (a document's text, as `fsio.dumps_json` masks it) and
`secrets.redact_tree` (a result's tree, as the MCP result builder masks it) with three keys
configured, on documents from a 2 KB tool result to a 1 MB briefing and this repository's
own docs and sources, none holding a key (the common case) and each again quoting pieces of
a key (the case the masking is for). Each figure is
the best of several rounds, and is printed as a ratio to the same call of the redaction at a
git ref (default `main`), loaded from that ref's `src/amicus_mcp/secrets.py` and measured in
the same run (machines here are noisy; ratios are what to compare). The ratio to
`json.dumps` of the same document says what redaction adds to a write.

    python bench/redaction_cost.py [--vs main] [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def random_key(prefix: str, alphabet: str, length: int, seed: int) -> str:
    rnd = random.Random(seed)
    return prefix + "".join(rnd.choice(alphabet) for _ in range(length))


HEX = "0123456789abcdef"
KEYS = {
    "OPENROUTER_API_KEY": random_key("sk-or-v1-", HEX, 64, 1),
    "ANTHROPIC_API_KEY": random_key("sk-ant-api03-", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-", 93, 2),
    "DEEPSEEK_API_KEY": random_key("sk-", HEX, 32, 3),
}
WORDS = ("the cache evicts entries before their time-to-live because the clock is read twice; "
         "reviewers disagree on whether internationalization matters for the configuration loader. "
         "def refresh(self, key: str) -> None: self._entries.pop(key, None)  # see RFC-7234 section 4.2.1\n").split(" ")


def prose(size: int, seed: int) -> str:
    rnd = random.Random(seed)
    out: list[str] = []
    total = 0
    while total < size:
        word = rnd.choice(WORDS)
        out.append(word)
        total += len(word) + 1
    return " ".join(out)


def result_doc(findings: int, seed: int) -> dict[str, Any]:
    """A council-ish document: many short strings, as a tool result or run.json holds."""
    rnd = random.Random(seed)
    return {"schemaVersion": 2, "type": "council-run", "runId": "council-7f3a9c21", "status": "complete",
            "legs": [{"taskId": f"council-7f3a9c21-s1-{i}", "model": f"vendor/model-{i}", "status": "complete",
                      "durationMs": rnd.randint(1000, 90000), "usage": {"inputTokens": 1200, "outputTokens": 800}}
                     for i in range(6)],
            "findings": [{"id": f"A{i}", "severity": rnd.choice(("major", "minor")), "claim": prose(160, seed + i),
                          "location": f"src/cache.py:{rnd.randint(1, 900)}"} for i in range(findings)]}


def repo_text() -> str:
    """Real text: this repository's docs, skills and sources."""
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "skills").rglob("*.md")),
             *sorted((ROOT / "src").rglob("*.py"))]
    return "\n".join(p.read_text(encoding="utf-8") for p in paths if p.is_file())


def leaky(text: str) -> str:
    """`text` with pieces of a configured key quoted in it, as a careless provider does."""
    key = KEYS["OPENROUTER_API_KEY"]
    return text[: len(text) // 2] + f" key {key[9:29]}…{key[-3:]} is invalid " + text[len(text) // 2:]


def baseline_module(ref: str) -> types.ModuleType | None:
    try:
        source = subprocess.run(["git", "show", f"{ref}:src/amicus_mcp/secrets.py"], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    name = "amicus_mcp._secrets_at_" + "".join(c if c.isalnum() else "_" for c in ref)
    module = types.ModuleType(name)
    module.__package__ = "amicus_mcp"
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source, f"{ref}:secrets.py", "exec"), module.__dict__)  # noqa: S102 - our own file at a ref
    return module


def best(fn: Callable[[], Any], rounds: int) -> float:
    fn()  # warm caches (compiled patterns, the keys file's stat)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vs", default="main", help="the git ref whose redaction is the baseline (default main)")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    os.environ.update(KEYS)
    os.environ.setdefault("AMICUS_CONFIG_DIR", str(ROOT / ".bench-config-none"))  # no keys file
    from amicus_mcp import secrets

    base = baseline_module(args.vs)
    texts = {
        "tool result 2 KB": json.dumps(result_doc(8, 1), indent=2),
        "run.json 40 KB": json.dumps(result_doc(200, 2), indent=2),
        "review 200 KB": prose(200_000, 3),
        "briefing 1 MB": prose(1_000_000, 4),
        "repo docs+code": repo_text(),
    }
    cases: list[tuple[str, str]] = [(name, text) for name, text in texts.items()]
    cases += [(f"{name}, leaky", leaky(text)) for name, text in texts.items()]
    trees = {"tool result tree": result_doc(8, 1), "run.json tree": result_doc(200, 2)}

    # The new masking must mask what it is for; the baseline is measured as it is.
    assert KEYS["OPENROUTER_API_KEY"][9:29] not in secrets.redact_text(cases[-1][1])

    print(f"baseline: redaction at '{args.vs}'" if base else f"baseline: '{args.vs}' not loadable (ratio column empty)")
    print(f"{'case':<28} {'µs':>10} {'baseline µs':>12} {'ratio':>7} {'× json.dumps':>13}")
    for name, text in cases:
        now = best(lambda: secrets.redact_text(text), args.rounds)
        then = best(lambda: base.redact_text(text), args.rounds) if base else None
        dump = best(lambda: json.dumps(text), args.rounds)
        print(f"{name:<28} {now * 1e6:>10.1f} {then * 1e6 if then else float('nan'):>12.1f} "
              f"{now / then if then else float('nan'):>7.2f} {now / dump:>13.2f}")
    for name, tree in trees.items():
        now = best(lambda: secrets.redact_tree(tree), args.rounds)
        then = best(lambda: base.redact_tree(tree), args.rounds) if base else None
        dump = best(lambda: json.dumps(tree), args.rounds)
        print(f"{name:<28} {now * 1e6:>10.1f} {then * 1e6 if then else float('nan'):>12.1f} "
              f"{now / then if then else float('nan'):>7.2f} {now / dump:>13.2f}")


if __name__ == "__main__":
    main()
