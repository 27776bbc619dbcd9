"""A loopback fake of the GitHub REST API's pull-request endpoints the review loop uses.

A real HTTP server on 127.0.0.1: `amicus council pr-review` reaches it through GITHUB_API_URL, as
in Actions. It serves one repository's pull requests (their head sha and files with patches),
checks every review POSTed to it the way GitHub does — the shape of the body, the event, each
comment's path/line/side and that the line is one the file's diff shows (else 422) — and records
every request (method, path, query, lower-cased headers, JSON body) for the test to assert on.

    with FakeGitHub(token="ghs_test") as gh:
        gh.add_pr("octo/widgets", 7, files=[{"filename": "src/cache.py", "patch": "@@ -1,2 +1,3 @@\n a\n+b\n c"}])
        ... GITHUB_API_URL=gh.base_url ...
        gh.reviews("octo/widgets", 7)  # what was posted

`gh.refuse["POST reviews"] = 403` (or "GET pulls", "GET files") makes that call answer the status.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from amicus_mcp.council.pr_review import diff_lines

EVENTS = ("COMMENT", "APPROVE", "REQUEST_CHANGES")
REVIEW_KEYS = {"commit_id", "body", "event", "comments"}
COMMENT_KEYS = {"path", "line", "side", "body", "start_line", "start_side"}
_ROUTE = re.compile(r"^/repos/([^/]+/[^/]+)/pulls/(\d+)(/files|/reviews)?$")


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class PullRequest:
    head: str
    files: list[dict[str, Any]]
    reviews: list[dict[str, Any]] = field(default_factory=list)


class FakeGitHub:
    def __init__(self, *, token: str | None = None) -> None:
        self.token = token
        self.pulls: dict[tuple[str, int], PullRequest] = {}
        self.requests: list[Request] = []
        self.refuse: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add_pr(self, repo: str, number: int, *, files: list[dict[str, Any]], head: str = "a" * 40) -> None:
        self.pulls[(repo, number)] = PullRequest(head, files)

    def reviews(self, repo: str, number: int) -> list[dict[str, Any]]:
        return self.pulls[(repo, number)].reviews

    def posts(self) -> list[Request]:
        return [r for r in self.requests if r.method != "GET"]

    # ------------------------------------------------------------------ the server

    def _answer(self, method: str, path: str, query: dict[str, list[str]], headers: dict[str, str],
                body: Any) -> tuple[int, Any]:
        if self.token is not None and headers.get("authorization") not in (None, f"Bearer {self.token}"):
            return 401, {"message": "Bad credentials"}
        route = _ROUTE.match(path)
        if route is None:
            return 404, {"message": "Not Found"}
        repo, number, tail = route.group(1), int(route.group(2)), route.group(3) or ""
        name = f"{method} {({'': 'pulls', '/files': 'files', '/reviews': 'reviews'})[tail]}"
        if name in self.refuse:
            return self.refuse[name], {"message": {403: "Resource not accessible by integration",
                                                   404: "Not Found", 422: "Unprocessable Entity"}.get(self.refuse[name], "error")}
        pull = self.pulls.get((repo, number))
        if pull is None:
            return 404, {"message": "Not Found"}
        if name == "GET pulls":
            return 200, {"number": number, "head": {"sha": pull.head}}
        if name == "GET files":
            page, per = int(query.get("page", ["1"])[0]), int(query.get("per_page", ["30"])[0])
            return 200, pull.files[(page - 1) * per: page * per]
        if name == "POST reviews":
            if headers.get("authorization") is None:
                return 401, {"message": "Requires authentication"}
            problem = self._check_review(pull, body)
            if problem:
                return 422, {"message": "Unprocessable Entity", "errors": [problem]}
            pull.reviews.append(body)
            return 200, {"id": len(pull.reviews), "html_url": f"https://github.example/{repo}/pull/{number}#review"}
        return 404, {"message": "Not Found"}

    @staticmethod
    def _check_review(pull: PullRequest, body: Any) -> str | None:
        if not isinstance(body, dict) or not set(body) <= REVIEW_KEYS:
            return f"unexpected review keys: {sorted(set(body) - REVIEW_KEYS) if isinstance(body, dict) else body!r}"
        if body.get("event") not in EVENTS or not isinstance(body.get("body"), str):
            return "event or body invalid"
        if body.get("commit_id") not in (None, pull.head):
            return "commit_id is not the head"
        shown = {f["filename"]: diff_lines(f.get("patch")) for f in pull.files}
        for comment in body.get("comments") or []:
            if not isinstance(comment, dict) or not set(comment) <= COMMENT_KEYS:
                return f"unexpected comment keys: {comment!r}"
            if comment.get("side") != "RIGHT" or not isinstance(comment.get("body"), str):
                return "comment side/body invalid"
            if comment.get("line") not in shown.get(comment.get("path"), set()):
                return f"pull_request_review_thread.line must be part of the diff: {comment.get('path')}:{comment.get('line')}"
        return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _serve(self, method: str) -> None:
                url = urlsplit(self.path)
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                headers = {k.lower(): v for k, v in self.headers.items()}
                query = parse_qs(url.query)
                with fake._lock:
                    fake.requests.append(Request(method, url.path, query, headers, body))
                    status, doc = fake._answer(method, url.path, query, headers, body)
                data = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

        return Handler
