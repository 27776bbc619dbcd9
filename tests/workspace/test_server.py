"""The workspace server over real HTTP: the token, the host check, the headers, the actions."""

from __future__ import annotations

import http.client
import json
import os
import threading
from typing import Any

import pytest
from polling import wait_for
from workspace_helpers import Run

from amicus_mcp.workspace.server import CSP

ROUTES = [("GET", ""), ("GET", "app.js"), ("GET", "app.css"), ("GET", "api/runs"), ("GET", "api/runs/done1"),
          ("GET", "api/ping"), ("POST", "api/runs/done1/abort"), ("POST", "api/runs/done1/fold")]


def request(port: int, method: str, path: str, *, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        sent = {"Host": f"127.0.0.1:{port}", **(headers or {})}
        conn.request(method, path, body=b"{}" if method == "POST" else None, headers=sent)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def test_binds_loopback_only(finished: Run, serve) -> None:
    served = serve(finished.project, "done1")
    assert served.server.httpd.server_address[0] == "127.0.0.1"
    assert served.url == f"http://127.0.0.1:{served.server.port}/{served.workspace.token}/?run=done1"
    assert len(served.workspace.token) >= 32


@pytest.mark.parametrize("method, route", ROUTES)
def test_every_request_needs_the_token(finished: Run, serve, method: str, route: str) -> None:
    served = serve(finished.project, "done1")
    port, token = served.server.port, served.workspace.token
    wrong_last = "y" if token.endswith("x") else "x"  # a one-character change, never the token itself
    for bad in (f"/{route}", f"/{token[:-1]}{wrong_last}/{route}", f"/{token.swapcase()}/{route}", f"/x/{token}/{route}"):
        status, headers, body = request(port, method, bad)
        assert (status, body) == (403, b"forbidden\n"), bad
        assert headers["content-security-policy"] == CSP
    assert not (finished.run_dir / "fold.md").exists()
    status, _, _ = request(port, method, f"/{token}/{route}")
    assert status == 200


def test_a_foreign_host_or_origin_is_refused(finished: Run, serve) -> None:
    served = serve(finished.project, "done1")
    port, token = served.server.port, served.workspace.token
    assert request(port, "GET", f"/{token}/api/runs/done1", headers={"Host": f"evil.example:{port}"})[0] == 403
    assert request(port, "GET", f"/{token}/api/runs/done1", headers={"Host": f"localhost:{port}"})[0] == 200
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}):
        assert request(port, "POST", f"/{token}/api/runs/done1/fold", headers=headers)[0] == 403
    assert not (finished.run_dir / "fold.md").exists()
    ok = {"Origin": f"http://127.0.0.1:{port}", "Sec-Fetch-Site": "same-origin"}
    assert request(port, "POST", f"/{token}/api/runs/done1/fold", headers=ok)[0] == 200


def test_security_headers(finished: Run, serve) -> None:
    served = serve(finished.project, "done1")
    status, headers, body = request(served.server.port, "GET", f"/{served.workspace.token}/")
    assert status == 200 and b'<script src="app.js" defer></script>' in body
    policy = dict(part.strip().split(" ", 1) for part in headers["content-security-policy"].split(";"))
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == policy["style-src"] == policy["connect-src"] == "'self'"
    assert policy["require-trusted-types-for"] == "'script'" and policy["trusted-types"] == "'none'"
    assert not any("http" in value or "*" in value or "unsafe" in value for value in policy.values())
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer" and headers["cache-control"] == "no-store"
    assert headers["x-frame-options"] == "DENY"


def test_data_endpoints(finished: Run, serve) -> None:
    served = serve(finished.project, "done1")
    port, token = served.server.port, served.workspace.token
    status, headers, body = request(port, "GET", f"/{token}/api/runs/done1")
    assert status == 200 and headers["content-type"].startswith("application/json")
    assert json.loads(body)["matrix"]["total"] == 4
    status, _, body = request(port, "GET", f"/{token}/api/runs/nope")
    assert (status, json.loads(body)["error"]["code"]) == (404, "BAD_SESSION")
    status, _, body = request(port, "GET", f"/{token}/api/runs/..%2Fx")
    assert (status, json.loads(body)["error"]["code"]) == (400, "BAD_ARGS")
    assert request(port, "GET", f"/{token}/api/nothing")[0] == 404
    assert request(port, "PUT", f"/{token}/api/runs")[0] == 405
    assert [r["runId"] for r in json.loads(request(port, "GET", f"/{token}/api/runs")[2])["runs"]] == ["done1"]


def test_fold_writes_once(finished: Run, serve) -> None:
    served = serve(finished.project, "done1")
    port, token = served.server.port, served.workspace.token
    status, _, body = request(port, "POST", f"/{token}/api/runs/done1/fold")
    assert (status, json.loads(body)) == (200, {"folded": True, "alreadyFolded": False, "file": "fold.md", "refused": None})
    block = (finished.run_dir / "fold.md").read_text(encoding="utf-8")
    lines = block.splitlines()
    nonce = lines[0].removeprefix("[AMICUS_FOLD:").removesuffix("]")
    assert len(nonce) == 16 and lines[-1] == f"[/AMICUS_FOLD:{nonce}]"
    assert "VERDICT: Fix these first" in lines
    assert "Tiers: Disputed 1 · Contested 1 · Confirmed 2 · Singleton 0" in lines
    assert lines[lines.index("Confirmed (2):") + 1] == "- B1 [major] no metrics on hit rate — metrics.py (a2/d0/n0)"
    assert lines[lines.index("Contested (1):") + 1] == "- A2 [minor] eviction is not logged — cache.py:22 (a1/d1/n0)"
    assert "A1" not in block  # Disputed findings are not folded
    assert served.out.getvalue() == block

    status, _, body = request(port, "POST", f"/{token}/api/runs/done1/fold")
    assert (status, json.loads(body)["alreadyFolded"], json.loads(body)["folded"]) == (200, True, False)
    assert (finished.run_dir / "fold.md").read_text(encoding="utf-8") == block
    assert served.out.getvalue() == block  # nothing printed the second time


def test_concurrent_folds_write_once(finished: Run, serve) -> None:
    served = serve(finished.project, "done1")
    results: list[dict[str, Any]] = []

    def fold() -> None:
        results.append(json.loads(request(served.server.port, "POST", f"/{served.workspace.token}/api/runs/done1/fold")[2]))

    threads = [threading.Thread(target=fold) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r["folded"] for r in results) == [False] * 5 + [True]
    assert served.out.getvalue().count("[AMICUS_FOLD:") == 1


def test_fold_makes_model_text_terminal_safe(finished: Run, serve) -> None:
    tally_path = finished.run_dir / "tally.json"
    tally = json.loads(tally_path.read_text(encoding="utf-8"))
    next(f for f in tally["findings"] if f["id"] == "B1")["claim"] = "evil\x1b[2J\x1b]0;pwned\x07 claim\nsecond line"
    tally_path.write_text(json.dumps(tally), encoding="utf-8")
    served = serve(finished.project, "done1")
    assert request(served.server.port, "POST", f"/{served.workspace.token}/api/runs/done1/fold")[0] == 200
    printed = served.out.getvalue()
    assert "\x1b" not in printed and "\x07" not in printed
    assert "- B1 [major] evil?[2J?]0;pwned? claim second line — metrics.py (a2/d0/n0)" in printed


def test_fold_refuses_a_live_run(finished: Run, serve) -> None:
    doc = json.loads((finished.run_dir / "run.json").read_text(encoding="utf-8"))
    doc.update(status="running", pid=os.getpid())
    (finished.run_dir / "run.json").write_text(json.dumps(doc), encoding="utf-8")
    served = serve(finished.project, "done1")
    status, _, body = request(served.server.port, "POST", f"/{served.workspace.token}/api/runs/done1/fold")
    assert (status, json.loads(body)["error"]["code"]) == (409, "LIVE")
    assert not (finished.run_dir / "fold.md").exists()


class Clock:
    """A clock the test moves: the workspace is idle for as long as the test says, at once."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_exits_when_finished_and_idle_but_not_while_live(finished: Run, serve) -> None:
    run_json = finished.run_dir / "run.json"
    done = run_json.read_text(encoding="utf-8")
    live = json.loads(done)
    live.update(status="running", pid=os.getpid())
    run_json.write_text(json.dumps(live), encoding="utf-8")
    clock = Clock()
    served = serve(finished.project, "done1", idle_exit_s=0.3, clock=clock)
    clock.now += 60  # idle far longer than idle_exit_s
    looks: list[bool] = []
    decide = served.workspace.finished
    served.workspace.finished = lambda: looks.append(decide()) or looks[-1]  # type: ignore[method-assign]
    wait_for(lambda: len(looks) >= 2, what="the idle watcher's second look")
    assert not any(looks) and served.thread.is_alive(), "a live run keeps its workspace up"
    run_json.write_text(done, encoding="utf-8")
    served.thread.join(timeout=5)
    assert not served.thread.is_alive(), "idle with nothing live: the server exits by itself"


def test_requests_keep_a_finished_runs_server_alive(finished: Run, serve) -> None:
    clock = Clock()
    served = serve(finished.project, None, idle_exit_s=0.6, clock=clock)
    workspace = served.workspace
    for _ in range(3):  # 1.5 s in all, each step shorter than idle_exit_s: every request starts it again
        clock.now += 0.5
        assert not workspace.finished()
        assert request(served.server.port, "GET", f"/{workspace.token}/api/ping")[0] == 200
    clock.now += 0.5
    assert not workspace.finished()
    clock.now += 0.2  # now idle for longer than idle_exit_s
    assert workspace.finished()
    served.thread.join(timeout=5)
    assert not served.thread.is_alive(), "the idle watcher stops the server too"
