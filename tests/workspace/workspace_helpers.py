"""Councils for the workspace tests: real engine runs against the loopback fake provider.

`member(fake, name, review=…, votes=…)` makes `fake/<name>` a bench member that answers a
Stage-1 briefing with `review` and a judge bundle with a judgement that votes `votes[id]`
(default agree) on every finding id the bundle actually lists. `run_finished` runs a whole
council in-process; `start_live_run` starts the CLI `council run` as a subprocess.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from typing import Any

import anyio
from fakeprovider import FakeProvider, Reply, by_prompt, chat, prompt_of, usage
from polling import read_run_json as read_run  # noqa: F401  (re-exported for the workspace tests)
from polling import wait_for  # noqa: F401  (re-exported for the workspace tests)
from council_prompts import kind

from amicus_mcp.engine import prepare
from amicus_mcp.engine.options import RunOptions
from amicus_mcp.engine.council_run import CouncilRun
from amicus_mcp.providers.routing import ProviderRegistry

BRIEF = "Review the design of the widget cache.\n\nThe cache evicts entries on every write.\n"



def fenced(block: Any) -> str:
    return f"```json\n{json.dumps(block)}\n```\n"


def review(prose: str, findings: list[tuple[str, str, str]]) -> str:
    """A Stage-1 review: prose, then a findings block of (severity, claim, location)."""
    block = {"overall": "see the prose", "findings": [
        {"id": i, "severity": sev, "claim": claim, "location": where, "rationale": f"rationale {i}"}
        for i, (sev, claim, where) in enumerate(findings, start=1)]}
    return f"{prose}\n\n```json\n{json.dumps(block)}\n```\n"


def bundle_labels(prompt: str) -> tuple[list[str], list[str]]:
    labels = re.findall(r"^### (Review [A-Z])$", prompt, re.M)
    index = prompt.split("## Findings index", 1)[1].split("## The reviews", 1)[0]
    return labels, re.findall(r"^- \*\*([A-Z]\d+)\*\*", index, re.M)


def judge(prose: str, votes: Mapping[str, str], **reply: Any) -> Callable[[Any], Reply]:
    def answer(body: Any) -> Reply:
        labels, ids = bundle_labels(prompt_of(body))
        block = {"ranking": labels, "adjudications": [{"id": i, "verdict": votes.get(i, "agree")} for i in ids]}
        return chat(f"{prose}\n\n```json\n{json.dumps(block)}\n```\n", **reply)

    return answer


def member(fake: FakeProvider, name: str, *, review_text: str, votes: Mapping[str, str] | None = None,
           judge_prose: str = "Reasoning: every review has merit.", cost: float | None = 0.0012,
           **overrides: Any) -> None:
    served = f"vendor/{name}-1"
    table: dict[str, Any] = {
        "stage1": chat(review_text, model=served, usage=usage(1200, 400, cost=cost)),
        "judge": judge(judge_prose, votes or {}, model=served, usage=usage(2000, 300, cost=cost)),
        "chair": chat("Synthesis: fix the eviction policy first.\n\nVERDICT: Fix these first\n", model=served,
                      usage=usage(3000, 500, cost=cost)),
    }
    table.update(overrides)
    fake.respond(name, by_prompt(kind, table))


def run_finished(project: Path, run_dir: Path, brief: Path, models: list[str], *, chair: str = "fake/chair",
                 run_id: str | None = None, max_cost: float | None = None, debate: bool = False,
                 claude_review: str | None = None, intent: str | None = None) -> dict[str, Any]:
    """A whole council run by the real engine, to its end. It runs on a worker thread with
    its own event loop: Playwright's sync API keeps one open on the main thread once the
    browser has started, and signal handling (the only part left out) needs the main thread."""
    options = RunOptions(prompt_file=str(brief), models=models, chair=chair, project=str(project),
                         out_dir=str(run_dir), run_id=run_id, max_cost=max_cost, debate=debate,
                         claude_review=claude_review, intent=intent)
    outcome: dict[str, Any] = {}

    async def go() -> dict[str, Any]:
        registry = ProviderRegistry()
        try:
            manifest, _ = await CouncilRun(await prepare(options), registry).run()
        finally:
            await registry.aclose()
        return manifest.to_doc()  # as run.json holds it

    def work() -> None:
        try:
            outcome["doc"] = anyio.run(go)
        except BaseException as exc:  # re-raised on the test's thread
            outcome["error"] = exc

    worker = Thread(target=work, name="council-run")
    worker.start()
    worker.join(timeout=120)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["doc"]


def start_live_run(brief: Path, run_dir: Path, project: Path, models: str, run_id: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "amicus_mcp.cli", "council", "run", "--models", models, "--chair", "fake/chair",
         "--prompt-file", str(brief), "--out-dir", str(run_dir), "--project", str(project), "--run-id", run_id, "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))




def tree_digest(root: Path) -> dict[str, str]:
    """name → sha256 of every file under `root` (to prove nothing was written)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


class Sentinel:
    """A loopback HTTP server that only counts what reaches it: nothing from the page may."""

    def __init__(self) -> None:
        hits: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the base class's name
                hits.append(self.path)
                self.send_response(204)
                self.end_headers()

            do_POST = do_GET  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

        self.hits = hits
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> Sentinel:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


BENCH = ["fake/alpha", "fake/bravo", "fake/charlie"]
MODEL_NAMES = [*BENCH, "fake/chair", "vendor/alpha-1", "vendor/bravo-1", "vendor/charlie-1", "vendor/chair-1",
               "fake-alpha", "fake-bravo", "fake-charlie"]


@dataclass
class Run:
    run_id: str
    run_dir: Path
    project: Path
    doc: dict[str, Any]
