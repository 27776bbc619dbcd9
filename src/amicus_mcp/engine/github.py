"""GitHub's REST API, for the pull-request loop: a pull request's head and files (which lines its
diff shows), and posting one review.

The API's base URL is GITHUB_API_URL, as in Actions (default https://api.github.com). The token
is GITHUB_TOKEN from the environment only — never an argument or a file — and it is sent only as
the Authorization header: no message, hint or log line here ever holds it. A refusal is a
GitHubRefused error naming the permission the token lacks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from typing_extensions import NotRequired

from ..errors import BadArgs, GitHubRefused

if TYPE_CHECKING:
    from ..schemas import JsonObject

API_URL_ENV = "GITHUB_API_URL"
TOKEN_ENV = "GITHUB_TOKEN"
DEFAULT_API_URL = "https://api.github.com"
MAX_FILE_PAGES = 30  # GitHub lists at most 3,000 files of a pull request (30 pages of 100)
TIMEOUT_S = 30.0
_REPO = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")

READ_PERMISSION = "'pull-requests: read' (and 'contents: read' for a private repository)"
WRITE_PERMISSION = "'pull-requests: write'"


def check_repo(repo: str) -> str:
    if not _REPO.match(repo) or repo.split("/")[1] in (".", ".."):
        raise BadArgs(f"--repo '{repo}' is not OWNER/NAME", hint="e.g. --repo octo-org/widgets")
    return repo


class PullFile(TypedDict):
    """One file of GitHub's pull-request file list, the fields read (GitHub sends more)."""

    filename: str
    patch: NotRequired[str | None]  # absent for a binary file or a diff too large to show


class GitHub:
    """One repository's pull requests, through the REST API."""

    def __init__(self, repo: str, env: Mapping[str, str], *, need_token: bool) -> None:
        self.repo = check_repo(repo)
        self.base = (env.get(API_URL_ENV) or DEFAULT_API_URL).rstrip("/")
        if not self.base.startswith(("https://", "http://127.0.0.1", "http://localhost")):
            raise BadArgs(f"{API_URL_ENV} must be an https URL", hint=f"unset it for {DEFAULT_API_URL}")
        self._token = env.get(TOKEN_ENV) or None
        if need_token and self._token is None:
            raise BadArgs(f"posting a review needs a token in {TOKEN_ENV}",
                          hint=f"export {TOKEN_ENV} (in a workflow: env: GITHUB_TOKEN: ${{{{ secrets.GITHUB_TOKEN }}}} "
                               f"with permissions: pull-requests: write); it is read from the environment only")

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
                   "User-Agent": "amicus-mcp"}
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        return headers

    def _call(self, method: str, path: str, *, what: str, permission: str, pr: int,
              params: Mapping[str, Any] | None = None, body: Any = None) -> Any:
        import httpx

        url = f"{self.base}/repos/{self.repo}{path}"
        try:
            with httpx.Client(timeout=TIMEOUT_S, follow_redirects=False) as client:
                response = client.request(method, url, headers=self._headers(), params=params, json=body)
        except httpx.HTTPError as exc:
            raise GitHubRefused(f"could not reach GitHub's API at {self.base} to {what}: {type(exc).__name__}",
                                hint=f"check the network and {API_URL_ENV}") from None
        if response.status_code >= 400:
            raise self._refusal(response, what=what, permission=permission, pr=pr)
        try:
            return response.json()
        except ValueError:
            raise GitHubRefused(f"GitHub's answer to {what} was not JSON (HTTP {response.status_code})",
                                hint=f"check {API_URL_ENV}") from None

    def _refusal(self, response: Any, *, what: str, permission: str, pr: int) -> GitHubRefused:
        status = response.status_code
        said = _github_message(response)
        target = f"{self.repo} pull request #{pr}"
        if status == 401:
            return GitHubRefused(f"GitHub refused the token in {TOKEN_ENV} (401{said}) when asked to {what}",
                                 hint=f"set {TOKEN_ENV} to a valid token")
        if status == 403:
            return GitHubRefused(f"GitHub forbade {what} on {target} (403{said}): the token lacks {permission}",
                                 hint=f"grant the workflow or token {permission}; a pull request from a fork gets a "
                                      "read-only token, so post from a pull_request_target or workflow_run job")
        if status == 404:
            return GitHubRefused(f"GitHub found no {target} (404{said}), or the token cannot see it",
                                 hint=f"check --repo and --pr; the token needs {READ_PERMISSION}")
        if status == 422:
            return GitHubRefused(f"GitHub rejected {what} on {target} as unprocessable (422{said})",
                                 hint="a comment may sit on a line the diff no longer shows (new commits since the "
                                      "run?) — re-run pr-review against the pull request's current head")
        return GitHubRefused(f"GitHub answered HTTP {status}{said} when asked to {what} on {target}",
                             hint="try again later; GitHub's status page says whether the API is degraded")

    def head_sha(self, pr: int) -> str:
        doc = self._call("GET", f"/pulls/{pr}", what="read the pull request", permission=READ_PERMISSION, pr=pr)
        sha = doc.get("head", {}).get("sha") if isinstance(doc, dict) else None
        if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{40}", sha):
            raise GitHubRefused(f"GitHub's pull request #{pr} names no head commit", hint="check --pr")
        return sha

    def files(self, pr: int) -> list[PullFile]:
        """The pull request's files ({filename, patch?}), every page."""
        out: list[PullFile] = []
        for page in range(1, MAX_FILE_PAGES + 1):
            batch = self._call("GET", f"/pulls/{pr}/files", what="list the pull request's files",
                               permission=READ_PERMISSION, pr=pr, params={"per_page": 100, "page": page})
            if not isinstance(batch, list):
                raise GitHubRefused(f"GitHub's file list for pull request #{pr} is not a list", hint="check --pr")
            out.extend(PullFile(filename=f["filename"], patch=patch if isinstance(patch := f.get("patch"), str) else None)
                       for f in batch if isinstance(f, dict) and isinstance(f.get("filename"), str))
            if len(batch) < 100:
                break
        return out

    def post_review(self, pr: int, review: JsonObject) -> JsonObject:
        """GitHub's answer (its review object: a foreign document, read by the keys wanted)."""
        doc = self._call("POST", f"/pulls/{pr}/reviews", what="post a review", permission=WRITE_PERMISSION,
                         pr=pr, body=dict(review))
        return doc if isinstance(doc, dict) else {}


def _github_message(response: Any) -> str:
    """GitHub's own one-line reason, bounded and printable (it is a remote's text)."""
    try:
        doc = response.json()
    except ValueError:
        return ""
    message = doc.get("message") if isinstance(doc, dict) else None
    if not isinstance(message, str) or not message.strip():
        return ""
    clean = "".join(ch if ch.isprintable() else " " for ch in message)[:200].strip()
    return f": {clean}"
