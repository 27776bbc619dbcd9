"""A run's findings as one pull-request review: inline comments on the diff's lines, the verdict
as the review's body.

A finding at or above the thresholds whose location names a file of the pull request and a line
its diff shows becomes a comment on that line (the first cited line the diff shows). Every other
finding at or above them — no file, no line, or a line outside the diff — is listed in the body,
so nothing is lost. Model text is neutralised the way the Markdown report does it, and `@` is
written as an entity so a claim can never mention (notify) anyone.

Everything here is a pure function of its arguments; engine/github.py fetches and posts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from typing_extensions import NotRequired, TypedDict

from ..errors import BadArgs
from ..vocabulary import REVIEW_EVENTS, REVIEW_MIN_SEVERITY, REVIEW_MIN_TIER, TIERS
from .locations import physical_location
from .report_md import prose
from .sarif import select_findings

if TYPE_CHECKING:  # the declarations only: this module builds plain dicts, and loads no pydantic
    from ..documents.council import Verdict

DEFAULT_MIN_SEVERITY = REVIEW_MIN_SEVERITY
DEFAULT_MIN_TIER = REVIEW_MIN_TIER
MAX_BODY = 60_000  # GitHub refuses a review body over 65,536 characters



# The review as built, in the keys GitHub's API takes; the engine validates it into
# documents/pr_loop.py's PrReviewDocument (ReviewBody, ReviewComment) before it is written or posted.
class Comment(TypedDict):
    path: str
    line: int
    side: Literal["RIGHT"]
    body: str


class Review(TypedDict):
    event: str
    body: str
    comments: list[Comment]
    commit_id: NotRequired[str]


class BuiltReview(TypedDict):
    review: Review
    inline: list[str]  # the ids of the findings commented inline
    inBody: list[str]  # the ids of the findings listed in the body (for the preview, never posted)


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def diff_lines(patch: str | None) -> set[int]:
    """The new-file lines a unified-diff `patch` (one file's, as GitHub's files API gives it) shows:
    the added and context lines of its hunks — the lines a review comment may sit on."""
    shown: set[int] = set()
    line: int | None = None
    for row in (patch or "").splitlines():
        hunk = _HUNK.match(row)
        if hunk:
            line = int(hunk.group(1))
        elif line is None or row.startswith("\\"):
            continue
        elif row.startswith("-"):
            continue
        else:  # "+" added or " " context
            shown.add(line)
            line += 1
    return shown


def text(value: Any) -> str:
    """Model text as inert Markdown for GitHub: escaped, on one line, mentioning no one."""
    return prose(str(value or "")).replace("@", "&#64;")


def _agreement(finding: Mapping[str, Any]) -> str:
    basis = raw if isinstance(raw := finding.get("basis"), Mapping) else {}
    return f"{basis.get('a', 0)} agree / {basis.get('d', 0)} dispute / {basis.get('n', 0)} neutral"


def comment_body(finding: Mapping[str, Any], run_id: Any) -> str:
    status = {"new": " · new since the last run", "still-open": " · still open since the last run"}.get(
        str(finding.get("reReview")), "")
    lines = [f"**{finding.get('severity')}** · {finding.get('tier')} ({_agreement(finding)}){status} — "
             f"{text(finding.get('claim'))}"]
    if finding.get("rationale"):
        lines += ["", text(finding["rationale"])]
    if finding.get("evidenceCheck"):
        lines += ["", f"Evidence check: {text(finding['evidenceCheck'])}"]
    if finding.get("dismissed"):
        lines += ["", f"Raised again{_dismissed_note(finding)}"]
    lines += ["", f"<sub>amicus council run {text(run_id)}, finding {text(finding.get('id'))}</sub>"]
    return "\n".join(lines)


def held_back(finding: Mapping[str, Any]) -> bool:
    """A finding the user dismissed before goes in the body, not on a line, unless it came back
    Confirmed with verified evidence."""
    return bool(finding.get("dismissed")) and not (finding.get("tier") == "Confirmed"
                                                    and finding.get("evidenceCheck") == "verified")


def _dismissed_note(finding: Mapping[str, Any]) -> str:
    dismissed = finding.get("dismissed")
    if not isinstance(dismissed, Mapping):
        return ""
    reason = f": {text(dismissed.get('reason'))}" if dismissed.get("reason") else ""
    return f" — previously dismissed in run {text(dismissed.get('dismissedIn'))}{reason}"


def _placed(finding: Mapping[str, Any], files: Mapping[str, set[int]]) -> tuple[str, int] | None:
    where = physical_location(str(finding.get("location") or ""))
    if where.path is None or where.start is None or where.path not in files:
        return None
    shown = files[where.path]
    for line in range(where.start, (where.end or where.start) + 1):
        if line in shown:
            return where.path, line
    return None


def build_review(verdict: Verdict, findings: Sequence[Mapping[str, Any]], files: Mapping[str, set[int]], *,
                 min_severity: str = DEFAULT_MIN_SEVERITY, min_tier: str = DEFAULT_MIN_TIER,
                 event: str = "COMMENT", commit_id: str | None = None) -> BuiltReview:
    """The review to post: {event, body, comments[{path, line, side, body}]}, plus (for the
    preview only, never posted) which findings went inline and which into the body."""
    if event not in REVIEW_EVENTS:
        raise BadArgs(f"--event '{event}' is not a review event", hint=f"one of: {', '.join(REVIEW_EVENTS)}")
    run_id = verdict.get("runId")
    comments: list[Comment] = []
    inline: list[str] = []
    outside: list[Mapping[str, Any]] = []
    for finding in select_findings(findings, min_severity, min_tier):
        placed = None if held_back(finding) else _placed(finding, files)
        if placed is None:
            outside.append(finding)
            continue
        comments.append({"path": placed[0], "line": placed[1], "side": "RIGHT", "body": comment_body(finding, run_id)})
        inline.append(str(finding.get("id")))
    body = review_body(verdict, outside, inline_count=len(comments), min_severity=min_severity, min_tier=min_tier)
    review: Review = {"event": event, "body": body, "comments": comments}
    if commit_id:
        review["commit_id"] = commit_id
    return {"review": review, "inline": inline, "inBody": [str(f.get("id")) for f in outside]}


def review_body(verdict: Verdict, outside: Sequence[Mapping[str, Any]], *, inline_count: int,
                min_severity: str, min_tier: str) -> str:
    counts = verdict.get("tierCounts") or {}
    overall = verdict.get("overallVerdict")
    lines = [f"## Council review: {text(overall) if overall else 'no chair verdict'}", "",
             f"Run {text(verdict.get('runId'))} · bench {text(', '.join(map(str, verdict.get('council') or [])))} · "
             f"chair {text(verdict.get('chair'))}",
             "Tiers: " + ", ".join(f"{tier} {counts.get(tier, 0)}" for tier in TIERS),
             "", f"{inline_count} finding(s) at or above {min_severity} / {min_tier} commented on the diff's lines."]
    if outside:
        lines += ["", "### Findings not on the diff's lines", ""]
        for finding in outside:
            where = f" ({text(finding.get('location'))})" if finding.get("location") else ""
            lines.append(f"- **{text(finding.get('id'))}** {finding.get('severity')} · {finding.get('tier')} "
                         f"({_agreement(finding)}) — {text(finding.get('claim'))}{where}{_dismissed_note(finding)}")
    body = "\n".join(lines)
    return body if len(body) <= MAX_BODY else body[:MAX_BODY] + "\n\n… (cut: the review body's limit)"


def render_preview(built: BuiltReview, *, repo: str, pr: int, posted: bool = False) -> str:
    """What `pr-review` posts (or would post), as Markdown (the terminal and the Action's step summary)."""
    review = built["review"]
    state = "posted" if posted else "not posted — --post posts it"
    lines = [f"# Review {'posted' if posted else 'preview'} for {repo}#{pr} (event {review['event']}; {state})", "",
             review["body"], ""]
    if review["comments"]:
        lines += ["## Inline comments", ""]
        for comment in review["comments"]:
            lines += [f"### {comment['path']}:{comment['line']}", "", comment["body"], ""]
    return "\n".join(lines).rstrip() + "\n"
