"""Agent seats' price in wall time: one council of three agent seats (the real Claude Code,
Codex CLI and Gemini CLI from tests/clients/node, each on a loopback fake of its model API)
against the same council on three model seats of the loopback fake provider, both with a model
chair and the same replies, measured alternately in one process, best of `--repeats`.

The fakes answer at once, so the difference is what the CLIs themselves cost: starting a node
(or native) process per leg, loading their own configuration and tools, and their own
side requests. A council has two agent stages (review, judge) with every seat in parallel, so
the gap is about two of the slowest CLI's start-ups. Also printed: one leg of each CLI alone.

    python bench/agent_council.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in ("tests", "tests/clients", "tests/engine", "tests/agents"):
    sys.path.insert(0, str(ROOT / folder))

import anyio  # noqa: E402
from agent_fakes import NODE_BIN, SeatAnthropic, SeatGemini, SeatResponses, codex_home  # noqa: E402
from conftest import gemini_home  # noqa: E402  (tests/agents: the Gemini CLI's API-key login)
from council_helpers import BRIEF, member  # noqa: E402
from fakeprovider import FakeProvider, configure_fake  # noqa: E402

from amicus_mcp.engine.council_run import RunOptions, run_council  # noqa: E402
from amicus_mcp.providers.agents import make_agent_provider  # noqa: E402
from amicus_mcp.providers.base import CompletionRequest, Message  # noqa: E402

AGENTS = ["cli:claude", "cli:codex", "cli:gemini"]
MODELS = ["fake/c", "fake/x", "fake/g"]


def setup(tmp: Path, fake: FakeProvider, claude: SeatAnthropic, codex: SeatResponses, gemini: SeatGemini) -> None:
    home = tmp / "home"
    home.mkdir()
    config = tmp / "config"
    config.mkdir()
    configure_fake(config, fake)
    gemini_home(home)
    env = {"HOME": str(home), "PATH": f"{NODE_BIN}{os.pathsep}{os.environ['PATH']}", "AMICUS_CONFIG_DIR": str(config),
           "CLAUDE_CONFIG_DIR": str(home / ".claude"), "ANTHROPIC_BASE_URL": claude.base_url,
           "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
           "GOOGLE_GEMINI_BASE_URL": gemini.base_url, "GEMINI_API_KEY": "test-not-a-key",
           "CODEX_HOME": str(codex_home(home, codex.base_url)), "OPENAI_API_KEY": "sk-test-not-a-key"}
    os.environ.update(env)
    subprocess.run([str(NODE_BIN / "codex"), "login", "--with-api-key"], input="sk-test-not-a-key", text=True,
                   capture_output=True, check=True)


async def council(tmp: Path, models: list[str], n: int) -> float:
    (tmp / "briefing.md").write_text(BRIEF, encoding="utf-8")
    project = tmp / f"project{n}"
    project.mkdir()
    options = RunOptions(prompt_file=str(tmp / "briefing.md"), models=models, chair="fake/chair",
                         project=str(project), out_dir=str(tmp / f"run{n}"))
    started = time.perf_counter()
    manifest, code = await run_council(options)
    wall = time.perf_counter() - started
    assert (code, manifest.to_doc()["status"]) == (0, "complete"), manifest.to_doc().get("degrades")
    return wall


async def one_leg(name: str, project: Path) -> float:
    provider = make_agent_provider(name, {}, project)
    started = time.perf_counter()
    await provider.complete(CompletionRequest(model="", timeout_s=120, messages=(
        Message("user", "# Council review briefing\n\nReview the cache module."),)))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, FakeProvider() as fake, SeatAnthropic("c") as claude, \
            SeatResponses("x") as codex, SeatGemini("g") as gemini:
        tmp = Path(folder)
        for name in ("c", "x", "g", "chair"):
            member(fake, name)
        setup(tmp, fake, claude, codex, gemini)
        legs = {name: min(anyio.run(one_leg, name, tmp) for _ in range(args.repeats)) for name in AGENTS}
        agents: list[float] = []
        models: list[float] = []
        for i in range(args.repeats):
            models.append(anyio.run(council, tmp, MODELS, 2 * i))
            agents.append(anyio.run(council, tmp, AGENTS, 2 * i + 1))
    for name, wall in legs.items():
        print(f"one {name} leg alone:          {wall:6.2f} s")
    print(f"council, 3 model seats:         {min(models):6.2f} s (best of {args.repeats})")
    print(f"council, 3 agent seats:         {min(agents):6.2f} s (best of {args.repeats})")
    print(f"agent seats' price:             {min(agents) - min(models):6.2f} s")


if __name__ == "__main__":
    main()
