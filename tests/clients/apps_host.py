"""A real MCP Apps host in Chromium, wired to the real server over stdio.

The host page (tests/clients/node/apphost: the host side of npm `@modelcontextprotocol/ext-apps`
over the TypeScript MCP client, bundled with esbuild) cannot spawn a process, so `Relay` does
that part: it starts `amicus-mcp` as a subprocess and serves the page on 127.0.0.1. The page
POSTs each JSON-RPC message to /send, which writes it to the server's stdin, and reads every
line the server writes to stdout from /events (Server-Sent Events). The relay only moves
bytes; the handshake, the capabilities, the bridge and the view are the real ones.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any

from client_helpers import NODE, SERVER, client_binary

HOST_PAGE = NODE / "apphost" / "host.html"
HOST_SOURCE = NODE / "apphost" / "host.mjs"


def bundle_host(out_dir: Path) -> Path:
    """The host page's script, bundled for the browser by the pinned esbuild."""
    target = out_dir / "host.js"
    done = subprocess.run([str(client_binary("esbuild")), str(HOST_SOURCE), "--bundle", "--format=iife",
                           "--platform=browser", f"--outfile={target}", "--log-level=warning"],
                          cwd=NODE, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return target


class Relay:
    """`amicus-mcp` over stdio, reachable from the host page over loopback HTTP."""

    def __init__(self, *, cwd: Path, env: dict[str, str], script: Path, log: Path):
        self.log = log.open("wb")
        self.proc = subprocess.Popen(SERVER, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log)
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        self.sent: list[dict[str, Any]] = []  # every message the host sent the server
        self.lock = threading.Lock()
        self.assets = {"/": (HOST_PAGE.read_bytes(), "text/html; charset=utf-8"),
                       "/host.js": (script.read_bytes(), "text/javascript; charset=utf-8")}
        threading.Thread(target=self._pump, args=(self.proc.stdout,), daemon=True).start()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def tool_calls(self, name: str) -> int:
        with self.lock:
            return sum(1 for m in self.sent if m.get("method") == "tools/call" and (m.get("params") or {}).get("name") == name)

    def _pump(self, stdout: IO[bytes]) -> None:
        try:
            for line in stdout:
                if line.strip():
                    self.outbox.put(line.rstrip(b"\r\n"))
        except ValueError:  # closed by close() while reading
            pass
        self.outbox.put(None)

    def _deliver(self, body: bytes) -> None:
        message = json.loads(body)
        with self.lock:
            self.sent.append(message)
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        relay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
                return

            def do_GET(self) -> None:  # noqa: N802 - the base class's name
                if self.path == "/events":
                    self._stream()
                    return
                body, kind = relay.assets.get(self.path.split("?")[0], (b"not found\n", "text/plain"))
                self.send_response(200 if self.path.split("?")[0] in relay.assets else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    relay._deliver(body)
                except (OSError, ValueError):  # the server is gone (the test is tearing down)
                    self.send_response(503)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _stream(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(b": open\n\n")
                self.wfile.flush()
                while (line := relay.outbox.get()) is not None:
                    self.wfile.write(b"data: " + line + b"\n\n")
                    self.wfile.flush()
                self.close_connection = True

        return Handler

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self.outbox.put(None)
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.log.close()
