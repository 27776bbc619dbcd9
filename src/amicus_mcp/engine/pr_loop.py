"""The pull-request loop's engine side: a finished run found by id or path, rendered as a
pull-request review against the pull request's current diff, and posted only when asked.

The review is built from GitHub's own file list (which lines each file's diff shows), so a
comment never sits on a line GitHub would refuse; findings on other lines go into the body.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..documents.pr_loop import PR_LOOP_VERSION, PrReviewDocument
from ..errors import BadArgs
from .run_findings import run_findings_of


def pr_review(target: str, *, repo: str, pr: int, env: Mapping[str, str], min_severity: str, min_tier: str,
              event: str, post: bool, project: str | None = None) -> PrReviewDocument:
    """The council-pr-review document: the review built for `repo`#`pr` and, under `post`, GitHub's answer."""
    from ..council.pr_review import build_review, diff_lines, render_preview
    from .github import GitHub

    if pr < 1:
        raise BadArgs(f"--pr {pr} is not a pull request number", hint="e.g. --pr 42")
    run = run_findings_of(target, project)
    github = GitHub(repo, env, need_token=post)
    head = github.head_sha(pr)
    files = {f["filename"]: diff_lines(f.get("patch")) for f in github.files(pr)}
    built = build_review(run.verdict, run.findings, files, min_severity=min_severity, min_tier=min_tier,
                         event=event, commit_id=head)
    doc = PrReviewDocument.model_validate({
        "schemaVersion": PR_LOOP_VERSION,
        "type": "council-pr-review",
        "runId": run.verdict.get("runId"),
        "repo": repo,
        "pr": pr,
        "headSha": head,
        "minSeverity": min_severity,
        "minTier": min_tier,
        "review": built["review"],
        "inline": built["inline"],
        "inBody": built["inBody"],
        "preview": render_preview(built, repo=repo, pr=pr),
        "posted": False,
        "reviewId": None,
        "reviewUrl": None,
    })
    if post:
        answer = github.post_review(pr, doc.review.to_doc())
        review_id, url = answer.get("id"), answer.get("html_url")
        doc.posted = True
        doc.preview = render_preview(built, repo=repo, pr=pr, posted=True)
        doc.review_id = review_id if isinstance(review_id, int) else None
        doc.review_url = url if isinstance(url, str) else None
    return doc
