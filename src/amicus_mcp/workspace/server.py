"""The workspace's HTTP server: 127.0.0.1 only, a per-launch secret token on every request.

Every URL is `http://127.0.0.1:<port>/<token>/…` — the page, its script and stylesheet, the
data endpoints and the two actions alike. A request whose first path segment is not the
token (compared in constant time), or whose Host header is not this server (DNS
rebinding), is refused with 403 before anything is read. POSTs must also come from the
page's own origin. Every response carries a strict Content-Security-Policy (`default-src
'none'`, only same-origin script, style and fetch, Trusted Types enforced so no string can
ever be parsed as markup), `nosniff`, `no-referrer` and `no-store`.

    GET  /<token>/                      the page (run list, or `?run=<id>` for one run)
    GET  /<token>/app.js | app.css      its assets (files shipped in the package)
    GET  /<token>/api/runs              the run-list snapshot
    GET  /<token>/api/runs/<id>         one run's snapshot
    GET  /<token>/api/ping              a visible page's heartbeat
    POST /<token>/api/runs/<id>/abort   the engine's abort (`engine.control.abort`)
    POST /<token>/api/runs/<id>/fold    the write-once fold block

The server exits on its own once the run it was opened for (every run, for the run list) is
terminal and no request has arrived for `idle_exit_s` seconds.
"""

from __future__ import annotations

import hmac
import json
import secrets
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, TextIO
from urllib.parse import unquote, urlsplit

from ..engine import abort
from ..engine import SessionStore
from ..errors import AmicusError, BadArgs, BadSession
from . import DEFAULT_IDLE_EXIT_S, DEFAULT_STALL_S, content_security_policy
from .fold import fold_run, terminal_safe
from .rundir import check_run_id, locate_run, observed, read_manifest
from .snapshot import list_snapshot, live_status, run_snapshot

HOST = "127.0.0.1"
CSP = content_security_policy()
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
ASSETS = {"": ("index.html", "text/html; charset=utf-8"),
          "app.js": ("app.js", "text/javascript; charset=utf-8"),
          "app.css": ("app.css", "text/css; charset=utf-8")}


def load_assets() -> dict[str, tuple[bytes, str]]:
    static = resources.files("amicus_mcp.workspace") / "static"
    return {route: ((static / name).read_bytes(), kind) for route, (name, kind) in ASSETS.items()}


@dataclass
class Response:
    status: int
    body: bytes
    content_type: str = "application/json; charset=utf-8"

    @classmethod
    def json(cls, doc: Any, status: int = 200) -> Response:
        return cls(status, json.dumps(doc, ensure_ascii=False).encode("utf-8"))

    @classmethod
    def error(cls, status: int, code: str, message: str) -> Response:
        return cls.json({"error": {"code": code, "message": message}}, status)


FORBIDDEN = Response(403, b"forbidden\n", "text/plain; charset=utf-8")


@dataclass
class Workspace:
    """What the handlers serve: one project's runs, with the launch options."""

    store: SessionStore
    run_id: str | None = None
    stall_after_s: float = DEFAULT_STALL_S
    idle_exit_s: float = DEFAULT_IDLE_EXIT_S
    out: TextIO = field(default_factory=lambda: sys.stdout)
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    assets: dict[str, tuple[bytes, str]] = field(default_factory=load_assets)
    clock: Callable[[], float] = time.monotonic  # what idleness is measured by (a test's own clock)
    last_request: float = field(init=False)
    print_lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.last_request = self.clock()

    # -- routes -------------------------------------------------------------------------

    def get(self, route: str) -> Response:
        if route in self.assets:
            body, kind = self.assets[route]
            return Response(200, body, kind)
        if route == "api/ping":
            return Response.json({"ok": True})
        if route == "api/runs":
            return Response.json(list_snapshot(self.store))
        run_id = _run_route(route, "")
        if run_id is not None:
            return self.guarded(lambda: Response.json(run_snapshot(self.store, run_id, stall_after_s=self.stall_after_s)))
        return Response.error(404, "NOT_FOUND", "no such page")

    def post(self, route: str) -> Response:
        actions: dict[str, Callable[[str], Response]] = {"abort": self.abort, "fold": self.fold}
        action = route.rsplit("/", 1)[-1]
        run_id = _run_route(route, action) if action in actions else None
        if run_id is None:
            return Response.error(404, "NOT_FOUND", "no such action")
        return self.guarded(lambda: actions[action](run_id))

    def abort(self, run_id: str) -> Response:
        check_run_id(run_id)
        return Response.json(abort(self.store, run_id))

    def fold(self, run_id: str) -> Response:
        run_dir = locate_run(self.store, run_id)
        manifest = read_manifest(run_dir)
        if manifest.doc is None:
            return Response.error(409, "UNREADABLE", manifest.error or "run.json is of another schema version")
        result = fold_run(run_dir, observed(run_dir, manifest.doc)[0])
        if result.refused:
            return Response.error(409, "LIVE", result.refused)
        if result.block is not None:
            with self.print_lock:
                self.out.write(terminal_safe(result.block))
                self.out.flush()
        return Response.json(result.to_doc())

    @staticmethod
    def guarded(action: Callable[[], Response]) -> Response:
        try:
            return action()
        except BadSession as err:
            return Response.error(404, err.code, err.message)
        except AmicusError as err:
            return Response.error(400 if isinstance(err, BadArgs) else 500, err.code, err.message)

    # -- lifetime -----------------------------------------------------------------------

    def touch(self) -> None:
        self.last_request = self.clock()

    def finished(self) -> bool:
        """Idle long enough, with nothing left live to watch."""
        if self.clock() - self.last_request < self.idle_exit_s:
            return False
        return not live_status(self.store, self.run_id)


def _run_route(route: str, action: str) -> str | None:
    """The run id of `api/runs/<id>` (action "") or `api/runs/<id>/<action>`, else None."""
    parts = route.split("/")
    if len(parts) == (3 if not action else 4) and parts[:2] == ["api", "runs"] and (not action or parts[3] == action):
        return unquote(parts[2])
    return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    workspace: Workspace


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "amicus-workspace"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return

    def do_GET(self) -> None:
        route = self._authorized()
        self._send(FORBIDDEN if route is None else self.server.workspace.get(route))

    def do_POST(self) -> None:
        route = self._authorized()
        if route is None or not self._same_origin():
            self._send(FORBIDDEN)
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > 4096:
            self._send(Response.error(413, "TOO_LARGE", "actions take no body"))
            return
        self.rfile.read(length)
        self._send(self.server.workspace.post(route))

    def do_PUT(self) -> None:
        self._send(Response.error(405, "METHOD", "method not allowed"))

    do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = do_PUT

    def _authorized(self) -> str | None:
        """The route below the token, or None when the token or the Host header is wrong."""
        workspace = self.server.workspace
        if self.headers.get("Host") not in self._hosts():
            return None
        path = urlsplit(self.path).path
        parts = path.split("/", 2)
        if len(parts) < 3 or parts[0] != "" or not hmac.compare_digest(parts[1].encode(), workspace.token.encode()):
            return None
        workspace.touch()
        return parts[2]

    def _hosts(self) -> tuple[str, str]:
        port = self.server.server_address[1]
        return f"{HOST}:{port}", f"localhost:{port}"

    def _same_origin(self) -> bool:
        origin = self.headers.get("Origin")
        site = self.headers.get("Sec-Fetch-Site")
        if origin is not None and origin not in {f"http://{h}" for h in self._hosts()}:
            return False
        return site in (None, "same-origin")

    def _send(self, response: Response) -> None:
        self.send_response(response.status)
        for name, value in {**SECURITY_HEADERS, "Content-Type": response.content_type}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.send_header("Connection", "close")  # no keep-alive: a stopped server is gone at once
        self.end_headers()
        self.close_connection = True
        self.wfile.write(response.body)


class WorkspaceServer:
    """The bound server and its idle watcher. `serve()` blocks until it is finished."""

    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        self.httpd = _Server((HOST, 0), _Handler)
        self.httpd.workspace = workspace
        self._stop = threading.Event()

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        query = f"?run={self.workspace.run_id}" if self.workspace.run_id else ""
        return f"http://{HOST}:{self.port}/{self.workspace.token}/{query}"

    def serve(self) -> None:
        watcher = threading.Thread(target=self._watch, name="workspace-idle", daemon=True)
        watcher.start()
        try:
            self.httpd.serve_forever(poll_interval=0.2)
        finally:
            self._stop.set()
            self.httpd.server_close()

    def shutdown(self) -> None:
        self._stop.set()
        self.httpd.shutdown()

    def _watch(self) -> None:
        step = max(0.1, min(1.0, self.workspace.idle_exit_s / 4))
        while not self._stop.wait(step):
            if self.workspace.finished():
                self.httpd.shutdown()
                return
