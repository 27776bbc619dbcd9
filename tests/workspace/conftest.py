"""Workspace fixtures: the fake provider as a configured server, finished and live council
runs made by the real engine, an in-process workspace server, and headless Chromium.

Browser tests drive Debian's Chromium (/usr/bin/chromium, or $AMICUS_CHROMIUM) through
Playwright's Python driver — the browser is never downloaded. Without Playwright or
Chromium the browser tests fail under CI (CI=true) and are skipped elsewhere, with the reason.
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browsers import browser, page  # noqa: E402,F401 - headless Chromium, shared with tests/clients
from fakeprovider import FakeProvider, chat  # noqa: E402
from workspace_helpers import BENCH, BRIEF, Run, Sentinel, fenced, member, review, run_finished  # noqa: E402

from amicus_mcp.engine.store import SessionStore  # noqa: E402
from amicus_mcp.workspace.server import Workspace, WorkspaceServer  # noqa: E402







@pytest.fixture
def fake_settings() -> dict[str, Any]:
    """The workspace's fake bills what its replies' `usage.cost` says (the shown cost is exact)."""
    return {"cost": "reported"}


@pytest.fixture
def brief(tmp_path: Path) -> Path:
    path = tmp_path / "briefing.md"
    path.write_text(BRIEF, encoding="utf-8")
    return path


@pytest.fixture
def sentinel() -> Iterator[Sentinel]:
    with Sentinel() as server:
        yield server


def hostile_prose(origin: str) -> str:
    """Review prose that would run script or reach the network if it were ever parsed as markup."""
    return (
        "The cache is wrong. <script>window.__pwned = 'script'; fetch('" + origin + "/script')</script>\n"
        "<img src=\"" + origin + "/img.png\" onerror=\"window.__pwned = 'img'\">\n"
        "[read more](javascript:window.__pwned='link') and <a href=\"javascript:window.__pwned='a'\">click</a>\n"
        "<iframe src=\"" + origin + "/frame\"></iframe><style>body{background:url(" + origin + "/css)}</style>\n"
    )




def script_council(fake: FakeProvider, origin: str) -> None:
    """Review A is hostile markup; A1 ends Disputed, A2 Contested, B1 and C1 Confirmed (C1
    thin); the chair says "Fix these first". In a debate round alpha defends A1 and A2, bravo
    comes round on A1 and charlie does not."""
    member(fake, "alpha", review_text=review(hostile_prose(origin), [
        ("major", "<img src=x onerror=\"window.__pwned='claim'\"> the cache evicts on write", "cache.py:10"),
        ("minor", "eviction is not logged", "cache.py:22")]),
        judge_prose="A1 and A2 both hold.",
        defense=chat(fenced({"responses": [{"id": "A1", "action": "defend", "argument": "cache.py:10 evicts in put()"},
                                           {"id": "A2", "action": "defend", "argument": "the log is empty"}]})))
    member(fake, "bravo", review_text=review("Bravo's take: eviction policy is fine, logging is not.",
                                             [("major", "no metrics on hit rate", "metrics.py")]),
           votes={"A1": "dispute", "A2": "dispute", "C1": "neutral"},
           judge_prose="A1 is wrong: the cache only evicts on overflow, never on write.\nA2 is a nit.",
           revote=chat("A1: the defense convinced me.\n\n" + fenced({"revotes": [
               {"id": "A1", "verdict": "agree", "reason": "the defense showed the write path"},
               {"id": "A2", "verdict": "dispute", "reason": "still a nit"}]})))
    member(fake, "charlie", review_text=review("Charlie: the design is mostly sound.",
                                               [("nit", "naming of evict()", "cache.py:3")]),
           votes={"A1": "dispute", "C1": "agree"},
           judge_prose="A1 misreads the code. B1 stands.",
           revote=chat(fenced({"revotes": [{"id": "A1", "verdict": "dispute", "reason": "unconvinced"}]})))
    member(fake, "chair", review_text="unused")


@pytest.fixture
def finished(fake: FakeProvider, project: Path, brief: Path, tmp_path: Path, sentinel: Sentinel) -> Run:
    """A complete three-seat council (see `script_council`)."""
    script_council(fake, sentinel.origin)
    run_dir = tmp_path / "runs" / "council-done"
    doc = run_finished(project, run_dir, brief, BENCH, run_id="done1")
    assert doc["status"] == "complete", doc
    return Run("done1", run_dir, project, doc)


@pytest.fixture
def debated(fake: FakeProvider, project: Path, brief: Path, tmp_path: Path, sentinel: Sentinel) -> Run:
    """The same council with `--debate`: after the round A1 is Contested (bravo re-voted agree)."""
    script_council(fake, sentinel.origin)
    run_dir = tmp_path / "runs" / "council-debate"
    doc = run_finished(project, run_dir, brief, BENCH, run_id="debate1", debate=True)
    assert doc["status"] == "complete" and doc["debate"]["outcome"] == "ran", doc
    return Run("debate1", run_dir, project, doc)


@dataclass
class Served:
    server: WorkspaceServer
    workspace: Workspace
    out: io.StringIO
    thread: threading.Thread

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/{self.workspace.token}/"


@pytest.fixture
def serve() -> Iterator[Callable[..., Served]]:
    """`serve(project, run_id=None, **workspace options)` → a running in-process server."""
    started: list[tuple[WorkspaceServer, threading.Thread]] = []

    def start(project: Path, run_id: str | None = None, **options: Any) -> Served:
        out = io.StringIO()
        options.setdefault("idle_exit_s", 300.0)
        workspace = Workspace(SessionStore(project), run_id=run_id, out=out, **options)
        server = WorkspaceServer(workspace)
        thread = threading.Thread(target=server.serve, daemon=True)
        thread.start()
        started.append((server, thread))
        return Served(server, workspace, out, thread)

    yield start
    for server, thread in started:
        if thread.is_alive():
            server.shutdown()
        thread.join(timeout=10)
