"""Tests for the council report (model + Markdown and HTML renderers)."""

from __future__ import annotations

import copy
import json
import re
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from amicus_mcp.council.report_model import UNATTRIBUTED
from amicus_mcp.council.report import (
    build_report,
    format_duration,
    format_money,
    format_score,
    round_half_up,
)
from amicus_mcp.errors import BadArgs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
VERDICT_PATH = FIXTURES / "worked-example" / "verdict.json"
SEED_PATH = FIXTURES / "worked_example_seed.json"

GOLDEN = """\
# Council Report — design-review (pricing-page-council)

_2026-07-02T18:00:00Z · chair: deepseek · council: deepseek, gpt_

## Verdict summary

| Tier | Count |
|---|---|
| Disputed | 0 |
| Contested | 1 |
| Confirmed | 1 |
| Singleton | 1 |

## Adjudication matrix

| Finding | Sev | Raiser | deepseek | gpt | Tier | Decision |
|---|---|---|---|---|---|---|
| A1 | major | deepseek | ✓* | ✓ | Confirmed | accepted |
| B1 | minor | gpt | – | ✓* | Singleton | deferred |
| B2 | blocker | gpt | ✗ | ✓* | Contested | accepted |

_Legend: ✓ agree · ✗ dispute · – neutral · `*` raiser's own vote_

## Street-cred (peers-only; lower = better)

| Model | peers-only | with-self |
|---|---|---|
| deepseek | 2.00 | 2.00 |
| gpt | 1.00 | 1.00 |

## Findings by tier

### Contested

- **B2** (blocker, raiser gpt) — a0/d1/n0 — accepted (applied)

### Confirmed

- **A1** (major, raiser deepseek) — a1/d0/n0 — accepted (applied)

### Singleton

- **B1** (minor, raiser gpt) — a0/d0/n1 — deferred

## Cost

| Model | Status | Duration | Cost |
|---|---|---|---|
| deepseek | complete | 41s | $0.0380 |
| gpt | complete | 38s | $0.0520 |
| **Wave total** | | | $0.0900 |
"""

DAGGER_LINE = "_`†` corroborated only by another seat running the same model_"


# --------------------------------------------------------------------------- helpers


def worked() -> dict[str, Any]:
    return json.loads(VERDICT_PATH.read_text(encoding="utf-8"))


def finding(fid: str, raiser: str, votes: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": fid,
        "raiser": raiser,
        "severity": "major",
        "tier": "Confirmed",
        "basis": {"a": 1, "d": 0, "n": 0},
        "confidence": "thin",
        "tierOverride": None,
        "duplicateOf": None,
        "adjudications": votes,
        "decision": None,
        "applied": False,
    }
    base.update(extra)
    return base


def verdict_with(findings: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    doc = worked()
    doc["findings"] = findings
    doc.update(extra)
    return doc


def split_row(line: str) -> list[str]:
    """Split a GFM table row the way GFM does: a backslash escapes the next character."""
    assert line.startswith("|") and line.endswith("|"), line
    cells, cur, i, body = [], "", 0, line[1:-1]
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            cur += body[i : i + 2]
            i += 2
            continue
        if ch == "|":
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    cells.append(cur.strip())
    return cells


def md_table(md: str, heading: str) -> list[list[str]]:
    """Rows (header first, separator dropped) of the first table after `heading`."""
    lines = md.split("\n")
    start = lines.index(heading)
    rows: list[list[str]] = []
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            if not line.startswith("|---"):
                rows.append(split_row(line))
        elif rows:
            break
    return rows


def twin_verdict() -> dict[str, Any]:
    """A bench that repeats `deepseek`: seats deepseek#1, deepseek#2, gpt."""
    seats = [
        {"id": "deepseek#1", "alias": "deepseek", "role": "seat", "lens": None, "position": 1},
        {"id": "deepseek#2", "alias": "deepseek", "role": "seat", "lens": None, "position": 2},
        {"id": "gpt", "alias": "gpt", "role": "seat", "lens": None, "position": 3},
    ]
    a1 = finding(
        "A1",
        "deepseek",
        [
            {"judge": "deepseek", "seat": "deepseek#1", "verdict": "agree"},
            {"judge": "deepseek", "seat": "deepseek#2", "verdict": "dispute"},
            {"judge": "gpt", "verdict": "neutral"},
        ],
        raiserSeat="deepseek#1",
        tier="Contested",
        basis={"a": 0, "d": 1, "n": 1},
    )
    b1 = finding(
        "B1",
        "gpt",
        [
            {"judge": "deepseek", "seat": "deepseek#1", "verdict": "agree"},
            {"judge": "deepseek", "seat": "deepseek#2", "verdict": "agree"},
            {"judge": "gpt", "verdict": "agree"},
        ],
        basis={"a": 2, "d": 0, "n": 0},
        sameModelCorroboration=True,
    )
    doc = verdict_with([a1, b1], seats=seats, council=["deepseek", "deepseek", "gpt"])
    doc["streetCred"] = [
        {"model": "deepseek", "withSelf": 1.5, "peersOnly": 1.25, "seat": "deepseek#1"},
        {"model": "deepseek", "withSelf": 2, "peersOnly": 2.5, "seat": "deepseek#2"},
        {"model": "gpt", "withSelf": 2.5, "peersOnly": None},
    ]
    return doc


class TagCollector(HTMLParser):
    """Collects every start tag with its attributes, plus the text of <style> elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.style_text = ""
        self._in_style = False
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style_text += data
        else:
            self.text += data


def parse_html(page: str) -> TagCollector:
    parser = TagCollector()
    parser.feed(page)
    parser.close()
    return parser


ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "main", "header", "section", "h1", "h2",
    "h3", "p", "span", "strong", "code", "div", "table", "thead", "tbody", "tr", "th", "td",
    "ul", "li",
}  # fmt: skip


def assert_self_contained(page: str) -> None:
    """No external reference of any kind, by text scan and by parse."""
    lowered = page.lower()
    for needle in ("src=", "href=", "url(", "@import", "<script", "<link", "<img", "<iframe"):
        assert needle not in lowered, needle
    parsed = parse_html(page)
    for tag, attrs in parsed.tags:
        assert tag in ALLOWED_TAGS, tag
        for name in attrs:
            assert not name.startswith("on"), (tag, name)
            assert name not in ("src", "href", "srcset", "action", "formaction", "background"), name
    assert "url(" not in parsed.style_text and "@import" not in parsed.style_text


# --------------------------------------------------------------------------- golden


def test_worked_example_markdown_is_byte_exact() -> None:
    assert build_report(worked(), fmt="md") == GOLDEN


def test_default_format_is_markdown() -> None:
    assert build_report(worked()) == GOLDEN


def test_worked_example_matches_seed_text_whitespace_collapsed() -> None:
    seed = json.loads(SEED_PATH.read_text(encoding="utf-8"))["report_md"]
    assert " ".join(build_report(worked()).split()) == seed


def test_report_does_not_mutate_its_inputs() -> None:
    doc, wave = twin_verdict(), {"usage": {"cost": {"amount": 0.5, "source": "reported"}}}
    before = (copy.deepcopy(doc), copy.deepcopy(wave))
    build_report(doc, fmt="md", wave=wave)
    build_report(doc, fmt="html", wave=wave)
    assert (doc, wave) == before


def test_rejects_unknown_format_and_non_object_documents() -> None:
    with pytest.raises(BadArgs):
        build_report(worked(), fmt="pdf")  # type: ignore[arg-type]
    with pytest.raises(BadArgs):
        build_report([], fmt="md")  # type: ignore[arg-type]
    with pytest.raises(BadArgs):
        build_report(worked(), wave=[1, 2])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- rounding


@pytest.mark.parametrize(
    ("ms", "text"),
    [(37810, "38s"), (41230, "41s"), (1000, "1s"), (1499, "1s"), (1500, "2s"), (2500, "3s"),
     (3500.0, "4s"), (0, "0s"), (None, "—"), ("41230", "—"), (True, "—"),
     # Sub-second legs show tenths, never a "0s" that reads as no time at all (issue 19).
     (412, "0.4s"), (499, "0.5s"), (500, "0.5s"), (950, "1.0s"), (50, "0.1s"), (49, "<0.1s"), (1, "<0.1s")],
)  # fmt: skip
def test_duration_rounds_half_up(ms: Any, text: str) -> None:
    assert format_duration(ms) == text


@pytest.mark.parametrize(
    ("amount", "text"),
    [(0.052, "$0.0520"), (0.038, "$0.0380"), (0.00005, "$0.0001"), (0.00015, "$0.0002"),
     (0.00025, "$0.0003"), (0, "$0.0000"), (0.99, "$0.9900"), (1, "$1.00"), (1.005, "$1.01"),
     (2.675, "$2.68"), (12.345, "$12.35"), (Decimal("0.09"), "$0.0900")],
)  # fmt: skip
def test_money_rounds_half_up_with_threshold(amount: Any, text: str) -> None:
    assert format_money(amount) == text


@pytest.mark.parametrize(
    ("score", "text"),
    [(2, "2.00"), (1.005, "1.01"), (2.675, "2.68"), (0.125, "0.13"), (1.0049, "1.00"), (None, "—"), (True, "—")],
)
def test_street_cred_score_two_decimals(score: Any, text: str) -> None:
    assert format_score(score) == text


def test_round_half_up_is_not_bankers_rounding() -> None:
    assert round(2.5) == 2  # the trap this helper exists to avoid
    assert round_half_up(2.5, 0) == Decimal(3)
    assert round_half_up(0.125, 2) == Decimal("0.13")


# --------------------------------------------------------------------------- header / chair verdict


def test_chair_verdict_sits_right_under_the_header() -> None:
    doc = worked()
    doc["overallVerdict"] = "Fix these first"
    md = build_report(doc)
    head = "_2026-07-02T18:00:00Z · chair: deepseek · council: deepseek, gpt_"
    assert f"{head}\n\n**Chair verdict: Fix these first**\n\n## Verdict summary\n" in md
    # Everything else is unchanged.
    assert md.replace("**Chair verdict: Fix these first**\n\n", "") == GOLDEN

    page = build_report(doc, fmt="html")
    verdict_at = page.index("Chair verdict: Fix these first")
    assert page.index("<h1>") < verdict_at < page.index("Verdict summary</h2>")
    assert 'class="chair-verdict warn"' in page


def test_null_chair_verdict_renders_nothing() -> None:
    assert "Chair verdict" not in build_report(worked())
    assert "Chair verdict" not in build_report(worked(), fmt="html")


# --------------------------------------------------------------------------- matrix: seats


def test_twin_bench_matrix_is_keyed_by_seat() -> None:
    md = build_report(twin_verdict())
    rows = md_table(md, "## Adjudication matrix")
    assert rows[0] == ["Finding", "Sev", "Raiser", "deepseek#1", "deepseek#2", "gpt", "Tier", "Decision"]
    a1 = rows[1]
    assert a1[:3] == ["A1", "major", "deepseek#1"]
    # The old alias key was last-wins and would have shown two agreements, both starred.
    assert a1[3:6] == ["✓*", "✗", "–"]


def test_twin_bench_star_marks_only_the_raiser_seat_and_row_agrees_with_basis() -> None:
    doc = twin_verdict()
    rows = md_table(build_report(doc), "## Adjudication matrix")
    header = rows[0]
    judge_cols = range(3, len(header) - 2)
    for row, f in zip(rows[1:], doc["findings"], strict=True):
        starred = [header[i] for i in judge_cols if row[i].endswith("*")]
        expected_star = [f.get("raiserSeat", f["raiser"])]
        assert starred == expected_star
        peer_marks = [row[i] for i in judge_cols if row[i] and not row[i].endswith("*")]
        basis = f["basis"]
        assert peer_marks.count("✓") == basis["a"]
        assert peer_marks.count("✗") == basis["d"]
        assert peer_marks.count("–") == basis["n"]


def test_twin_bench_html_has_seat_columns_and_one_star_per_row() -> None:
    page = build_report(twin_verdict(), fmt="html")
    for seat in ("deepseek#1", "deepseek#2"):
        assert f'<th class="judge">{seat}</th>' in page
    rows = re.findall(r"<tr class=\"tier-[a-z]+\"><td><strong>(A1|B1)</strong>.*?</tr>", page)
    assert rows == ["A1", "B1"]
    for row in re.findall(r"<tr class=\"tier-[a-z]+\"><td><strong>[AB]1</strong>.*?</tr>", page):
        assert row.count('class="star"') == 1


@pytest.mark.parametrize("seats", [None, "deepseek#1", ["deepseek#1", "gpt"], [], [{"id": 3}], [{"id": ""}]])
def test_unusable_seats_fall_back_to_alias_space(seats: Any) -> None:
    doc = worked()
    if seats is not None:
        doc["seats"] = seats
    doc["findings"][0]["adjudications"][0]["seat"] = "deepseek#1"  # ignored in alias space
    assert md_table(build_report(doc), "## Adjudication matrix") == md_table(GOLDEN, "## Adjudication matrix")


def test_street_cred_labels_use_seat_independently_of_seats_table() -> None:
    doc = twin_verdict()
    del doc["seats"]  # matrix falls back to alias space; street-cred still shows seats
    md = build_report(doc)
    assert md_table(md, "## Street-cred (peers-only; lower = better)")[1:] == [
        ["deepseek#1", "1.25", "1.50"],
        ["deepseek#2", "2.50", "2.00"],
        ["gpt", "—", "2.50"],
    ]
    # Alias space: deduplicated council aliases; seat-stamped votes fall back to `judge`.
    assert md_table(md, "## Adjudication matrix")[0][3:-2] == ["deepseek", "gpt"]


# --------------------------------------------------------------------------- matrix: UNATTRIBUTED


def test_no_unattributed_column_when_every_vote_lands() -> None:
    assert UNATTRIBUTED not in build_report(worked())
    assert UNATTRIBUTED not in build_report(twin_verdict())
    assert UNATTRIBUTED not in build_report(worked(), fmt="html")


@pytest.mark.parametrize(
    "vote",
    [
        {"judge": "", "verdict": "dispute"},
        {"verdict": "dispute"},
        {"judge": None, "verdict": "dispute"},
        {"judge": 42, "verdict": "dispute"},
        {"judge": "mistral", "verdict": "dispute"},
        {"judge": "claude", "verdict": "dispute"},
    ],
)
def test_refused_vote_keys_fold_into_one_last_column(vote: dict[str, Any]) -> None:
    doc = worked()
    doc["council"] = ["deepseek", "gpt", "claude"]  # claude is a member, never a column
    doc["findings"][1]["adjudications"].append(vote)
    md = build_report(doc)
    rows = md_table(md, "## Adjudication matrix")
    assert rows[0] == ["Finding", "Sev", "Raiser", "deepseek", "gpt", UNATTRIBUTED, "Tier", "Decision"]
    assert [r[5] for r in rows[1:]] == ["", "✗", ""]
    assert "council: deepseek, gpt, claude" in md  # the header still lists every member
    assert "UNATTRIBUTED` votes whose judge names no column" in md


def test_seat_space_folds_a_bare_alias_and_an_unknown_seat() -> None:
    doc = twin_verdict()
    # An unbound twin: no seat id, so its alias names no column in seat space.
    doc["findings"][0]["adjudications"].append({"judge": "deepseek", "verdict": "agree"})
    doc["findings"][1]["adjudications"].append({"judge": "deepseek", "seat": "deepseek#9", "verdict": "neutral"})
    rows = md_table(build_report(doc), "## Adjudication matrix")
    assert rows[0][3:7] == ["deepseek#1", "deepseek#2", "gpt", UNATTRIBUTED]
    assert [r[6] for r in rows[1:]] == ["✓", "–"]


def test_folded_votes_on_one_finding_are_last_wins() -> None:
    doc = worked()
    doc["findings"][0]["adjudications"] += [
        {"judge": "x", "verdict": "dispute"},
        {"judge": "", "verdict": "neutral"},
    ]
    rows = md_table(build_report(doc), "## Adjudication matrix")
    assert [r[5] for r in rows[1:]] == ["–", "", ""]


def test_bench_seat_literally_named_unattributed_receives_folded_votes() -> None:
    doc = worked()
    doc["council"] = ["deepseek", UNATTRIBUTED]
    doc["findings"][0]["adjudications"] = [{"judge": "", "verdict": "dispute"}]
    rows = md_table(build_report(doc), "## Adjudication matrix")
    assert rows[0].count(UNATTRIBUTED) == 1
    assert rows[1][3:5] == ["", "✗"]


def test_unattributed_html_column_only_when_folded() -> None:
    doc = worked()
    doc["findings"][2]["adjudications"].append({"judge": "ghost", "verdict": "agree"})
    page = build_report(doc, fmt="html")
    assert f'<th class="judge unattributed">{UNATTRIBUTED}</th>' in page


# --------------------------------------------------------------------------- matrix: legend, tiers


def test_dagger_and_its_legend_only_when_a_finding_carries_it() -> None:
    md = build_report(twin_verdict())
    rows = md_table(md, "## Adjudication matrix")
    assert [r[0] for r in rows[1:]] == ["A1", "B1†"]
    assert DAGGER_LINE in md
    assert "†" not in build_report(worked())
    page = build_report(twin_verdict(), fmt="html")
    assert "corroborated only by another seat running the same model" in page
    assert "†" not in build_report(worked(), fmt="html")


def test_unknown_vote_verdict_renders_question_mark_with_legend() -> None:
    doc = worked()
    doc["findings"][0]["adjudications"][1]["verdict"] = "abstain"
    md = build_report(doc)
    assert md_table(md, "## Adjudication matrix")[1][4] == "?"
    assert "_`?` a vote whose verdict is not agree, dispute or neutral_" in md
    assert "`?`" not in GOLDEN


def test_tier_override_shows_effective_tier_and_badge() -> None:
    doc = worked()
    b2 = doc["findings"][2]
    b2["tierOverride"] = {"from": "Contested", "to": "Confirmed", "reason": "fixed upstream"}
    b2["tier"] = "Contested"  # a stale tier must not win over the override
    md = build_report(doc)
    rows = md_table(md, "## Adjudication matrix")
    assert rows[3][-2] == "Confirmed (override)"
    assert "### Contested" not in md
    assert (
        "- **B2** (blocker, raiser gpt) — a0/d1/n0 — accepted (applied) — "
        "tier overridden Contested → Confirmed: fixed upstream" in md
    )
    page = build_report(doc, fmt="html")
    row = re.search(r"<tr class=\"(tier-[a-z]+)\"><td><strong>B2</strong>.*?</tr>", page)
    assert row is not None and row.group(1) == "tier-confirmed"
    assert '<span class="badge override" title="tier overridden from Contested">override</span>' in row.group(0)


def test_thin_badge_follows_a_plus_d() -> None:
    doc = worked()
    doc["findings"][0]["basis"] = {"a": 2, "d": 0, "n": 0}
    page = build_report(doc, fmt="html")
    rows = dict(re.findall(r"<td><strong>(A1|B1|B2)</strong>(.*?)</tr>", page))
    assert "badge thin" not in rows["A1"]
    assert "badge thin" in rows["B1"] and "badge thin" in rows["B2"]
    assert "thin" not in build_report(doc)  # Markdown stays as in the seed


def test_findings_grouped_disputed_first_and_empty_tiers_omitted() -> None:
    doc = worked()
    doc["findings"][0]["tier"] = "Disputed"
    doc["findings"].append(finding("C1", "gpt", [], tier="Mystery"))
    md = build_report(doc)
    headings = [line for line in md.split("\n") if line.startswith("### ")]
    assert headings == ["### Disputed", "### Contested", "### Singleton", "### Mystery"]


def test_finding_line_annotations() -> None:
    doc = worked()
    doc["findings"][1].update(
        decision=None,
        duplicateOf="A1",
        debate={"action": "defended", "previousTier": "Contested"},
        raiserSeat="gpt#2",
    )
    md = build_report(doc)
    assert "- **B1** (minor, raiser gpt) — a0/d0/n1 — debate: defended (was Contested) — duplicate of A1\n" in md
    assert md_table(md, "## Adjudication matrix")[2][-1] == ""


# --------------------------------------------------------------------------- zero findings


def test_zero_findings_render_cleanly() -> None:
    doc = verdict_with([], tierCounts={"Confirmed": 0, "Contested": 0, "Singleton": 0, "Disputed": 0})
    md = build_report(doc)
    assert md.count("_No findings._") == 1
    assert "###" not in md and "Legend" not in md and "| Finding |" not in md
    assert "## Adjudication matrix\n\n_No findings._\n\n## Street-cred" in md
    # An all-clean bench says so under Findings by tier, before the cost (issues 12, 28).
    assert ("## Findings by tier\n\n_No findings were raised on this bench — a clean review is a valid review._"
            "\n\n## Cost") in md
    assert md.endswith("\n") and not md.endswith("\n\n")
    page = build_report(doc, fmt="html")
    assert page.count('<p class="empty">No findings.</p>') == 1
    assert page.count('<p class="empty">No findings were raised on this bench — a clean review is a valid review.</p>') == 1
    assert "<h3" not in page and 'class="matrix"' not in page
    assert_self_contained(page)


def test_missing_tier_counts_are_derived_from_findings() -> None:
    doc = worked()
    del doc["tierCounts"]
    assert build_report(doc) == GOLDEN


# --------------------------------------------------------------------------- cost


def cost_rows(md: str) -> list[list[str]]:
    return md_table(md, "## Cost")[1:]


def test_cost_unknown_estimated_and_role_suffixes() -> None:
    doc = worked()
    doc["runStats"] = [
        {"model": "deepseek", "role": "council", "status": "complete", "durationMs": 1500,
         "usage": {"cost": {"amount": 1.234, "currency": "USD", "source": "estimated"}}},
        {"model": "gpt", "role": "judge", "status": "error", "durationMs": None,
         "usage": {"cost": {"amount": None, "currency": "USD", "source": "unknown"}}},
        {"model": "deepseek", "role": "chair-attempt", "status": "timeout", "durationMs": 2500, "usage": None},
        {"model": "gpt", "role": "repair", "status": "complete", "durationMs": 10,
         "usage": {"cost": {"amount": 0.001, "source": "reported"}}},
        {"model": "gpt", "role": "superseded", "status": "error", "durationMs": 5, "usage": None},
        {"model": "gpt", "role": "rebuttal", "status": "complete", "durationMs": 5,
         "usage": {"cost": {"amount": 0.01, "source": "reported"}}},
        {"model": "gpt", "role": "revote", "status": "complete", "durationMs": 5,
         "usage": {"cost": {"amount": 0.02, "source": "reported"}}},
        {"model": "deepseek", "seat": "deepseek#2", "role": "seat", "status": "complete", "durationMs": 5,
         "usage": {"cost": {"amount": 0, "source": "estimated"}}},
    ]  # fmt: skip
    rows = cost_rows(build_report(doc))
    assert rows == [
        ["deepseek", "complete", "2s", "~$1.23"],
        ["gpt (judge)", "error", "—", "?"],
        ["deepseek (chair-attempt)", "timeout", "3s", "?"],
        ["gpt (repair)", "complete", "<0.1s", "$0.0010"],
        ["gpt (superseded)", "error", "<0.1s", "?"],
        ["gpt", "complete", "<0.1s", "$0.0100"],
        ["gpt", "complete", "<0.1s", "$0.0200"],
        ["deepseek#2", "complete", "<0.1s", "~$0.0000"],
        # 1.234 + 0.001 + 0.01 + 0.02 + 0 known; three rows unknown → a lower bound.
        ["**Wave total**", "", "", "at least ~$1.27"],
    ]


def test_total_is_unknown_when_no_amount_is_known() -> None:
    doc = worked()
    for row in doc["runStats"]:
        row["usage"] = None
    assert cost_rows(build_report(doc))[-1] == ["**Wave total**", "", "", "?"]
    doc["runStats"] = []
    assert cost_rows(build_report(doc)) == [["**Wave total**", "", "", "?"]]


@pytest.mark.parametrize(
    ("cost", "text"),
    [
        ({"amount": 0.5, "source": "reported"}, "$0.5000"),
        ({"amount": 12.345, "source": "reported"}, "$12.35"),
        ({"amount": 0.09, "source": "mixed"}, "~$0.0900"),
        ({"amount": 0.2, "source": "estimated"}, "~$0.2000"),
        ({"amount": None, "source": "unknown"}, "?"),
    ],
)
def test_wave_total_comes_from_the_wave_document(cost: dict[str, Any], text: str) -> None:
    wave = {"schemaVersion": 2, "type": "wave", "waveId": "w1", "usage": {"cost": {**cost, "currency": "USD"}}}
    md = build_report(worked(), wave=wave)
    assert cost_rows(md)[-1] == ["**Wave total**", "", "", text]
    assert f'<td class="num">{text}</td></tr>' in build_report(worked(), fmt="html", wave=wave)


def test_wave_without_usage_is_unknown_not_the_runstats_sum() -> None:
    assert cost_rows(build_report(worked(), wave={"type": "wave"}))[-1][-1] == "?"


# --------------------------------------------------------------------------- markdown safety


MD_NASTY = "x|y\\|z\n## pwned\r\n| a | b |"


def test_markdown_cells_cannot_break_table_structure() -> None:
    doc = twin_verdict()
    doc["seats"][1]["id"] = "deep|seek"
    for f in doc["findings"]:
        f["adjudications"][1]["seat"] = "deep|seek"
    doc["findings"][0].update(id=MD_NASTY, severity=MD_NASTY, decision=MD_NASTY, raiserSeat=MD_NASTY)
    doc["streetCred"][0]["seat"] = MD_NASTY
    doc["runStats"][0].update(model=MD_NASTY, status=MD_NASTY)
    md = build_report(doc)
    assert "\n## pwned" not in md and "\r" not in md
    for heading, width in (
        ("## Adjudication matrix", 8),
        ("## Street-cred (peers-only; lower = better)", 3),
        ("## Cost", 4),
    ):
        rows = md_table(md, heading)
        assert rows and all(len(r) == width for r in rows), (heading, rows)
    matrix = md_table(md, "## Adjudication matrix")
    assert matrix[0][4] == "deep\\|seek"
    assert matrix[1][4] == "✗"  # the escaped header still joins its vote
    headings = [line for line in md.split("\n") if line.startswith("#")]
    assert headings == [
        "# Council Report — design-review (pricing-page-council)",
        "## Verdict summary",
        "## Adjudication matrix",
        "## Street-cred (peers-only; lower = better)",
        "## Findings by tier",
        "### Contested",
        "### Confirmed",
        "## Cost",
    ]


# --------------------------------------------------------------------------- html


def test_worked_example_html_structure_and_cells() -> None:
    page = build_report(worked(), fmt="html")
    assert page.startswith("<!doctype html>\n")
    assert '<meta charset="utf-8">' in page
    assert "<title>Council Report — design-review (pricing-page-council)</title>" in page
    assert page.count("<style>") == 1 and "prefers-color-scheme:dark" in page
    assert '<th class="judge">deepseek</th><th class="judge">gpt</th>' in page
    assert (
        '<tr class="tier-contested"><td><strong>B2</strong></td><td>blocker</td><td>gpt</td>'
        '<td class="vote dispute" title="dispute">✗</td>'
        "<td class=\"vote agree\" title=\"agree\">✓<span class=\"star\" title=\"raiser's own vote\">*</span></td>"
        in page
    )
    assert '<td class="vote neutral" title="neutral">–</td>' in page
    for cls in ("tier-confirmed", "tier-singleton", "tier-contested"):
        assert f'<tr class="{cls}"><td><strong>' in page
    assert page.count('class="badge thin"') == 6  # every worked-example finding is thin (matrix + list)
    assert '<td class="num cost reported">$0.0520</td>' in page
    assert '<td class="num">$0.0900</td>' in page
    assert '<td class="num">2.00</td>' in page and '<td class="num">38s</td>' in page
    assert "accepted (applied)" in page
    assert_self_contained(page)


def test_html_has_same_sections_in_same_order_as_markdown() -> None:
    doc = worked()
    doc["overallVerdict"] = "Ship it"
    md_h2 = [line[3:] for line in build_report(doc).split("\n") if line.startswith("## ")]
    html_h2 = re.findall(r"<h2>(.*?)</h2>", build_report(doc, fmt="html"))
    assert html_h2 == md_h2
    md_h3 = [line[4:] for line in build_report(doc).split("\n") if line.startswith("### ")]
    assert re.findall(r"<h3[^>]*>(.*?)</h3>", build_report(doc, fmt="html")) == md_h3


SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
PAYLOADS = (SCRIPT, IMG, "' onmouseover='alert(1)", "</style><script>alert(2)</script>")


def hostile_verdict() -> dict[str, Any]:
    doc = twin_verdict()
    p = iter(PAYLOADS * 20)
    doc.update(runId=SCRIPT, runType=IMG, date=next(p), chair=IMG, overallVerdict=SCRIPT)
    doc["council"] = [SCRIPT, IMG, "gpt"]
    doc["seats"][0]["id"] = IMG
    for f in doc["findings"]:
        f.update(
            id=next(p),
            raiser=next(p),
            raiserSeat=IMG,
            severity=next(p),
            decision=next(p),
            duplicateOf=next(p),
            tier=next(p),
            tierOverride={"from": next(p), "to": next(p), "reason": next(p)},
            debate={"action": next(p), "previousTier": next(p)},
        )
        f["adjudications"][0]["seat"] = IMG
        f["adjudications"].append({"judge": SCRIPT, "verdict": IMG})
    doc["streetCred"][0].update(seat=SCRIPT, model=IMG)
    doc["streetCred"][2].update(model=IMG)
    doc["runStats"][0].update(model=SCRIPT, status=IMG, seat=IMG)
    doc["runStats"][1].update(model=IMG, role=SCRIPT)
    return doc


def test_html_escapes_every_model_derived_string() -> None:
    page = build_report(hostile_verdict(), fmt="html")
    for payload in PAYLOADS:
        assert payload not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&#x27; onmouseover=&#x27;alert(1)" in page
    parsed = parse_html(page)
    tags = [t for t, _ in parsed.tags]
    assert "script" not in tags and "img" not in tags
    assert tags.count("style") == 1 and tags.count("title") == 1
    for tag, attrs in parsed.tags:
        assert tag in ALLOWED_TAGS
        assert not any(name.startswith("on") or name in ("src", "href") for name in attrs), (tag, attrs)
    # The payloads survive as visible text, which is the point of escaping rather than dropping.
    assert SCRIPT in parsed.text and IMG in parsed.text
    assert "url(" not in parsed.style_text and "@import" not in parsed.style_text


def test_html_title_and_class_attributes_never_carry_raw_model_text() -> None:
    parsed = parse_html(build_report(hostile_verdict(), fmt="html"))
    allowed_classes = re.compile(r"^[a-z0-9 -]*$")
    for _, attrs in parsed.tags:
        assert allowed_classes.match(attrs.get("class") or ""), attrs


def test_markdown_of_hostile_verdict_keeps_its_shape() -> None:
    md = build_report(hostile_verdict())
    assert all(len(r) == 9 for r in md_table(md, "## Adjudication matrix"))
    assert md.startswith("# Council Report — ")


def test_the_pull_request_loop_sections_are_escaped_model_text_in_both_formats() -> None:
    """A re-review's resolved claims and a dismissal's reason are model and user text: escaped in
    the HTML page, and the page without them is the page it always was."""
    verdict = json.loads(VERDICT_PATH.read_text(encoding="utf-8"))
    rereview = {"schemaVersion": 2, "type": "council-rereview", "runId": "r2", "baselineRunId": "r1", "baseline": "v.json",
                "decisions": [{"id": "A1", "status": "new", "baselineId": None, "by": None, "score": None}],
                "resolved": [{"baselineId": "B7", "severity": "major", "tier": "Confirmed",
                              "claim": "<script>alert(1)</script> leaks", "location": "a.py:1"}],
                "counts": {"new": 1, "still-open": 0, "resolved": 1}}
    dismissed = {"schemaVersion": 2, "type": "council-dismissed", "runId": "r2", "project": "/p",
                 "findings": [{"id": "A1", "decisionId": "D1", "dismissedIn": "r1", "reason": "<img src=x> by design",
                               "by": "claim", "score": 0.9}]}
    page = build_report(verdict, fmt="html", rereview=rereview, dismissed=dismissed)
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; leaks" in page and "&lt;img src=x&gt; by design" in page
    assert "<h2>Re-review against run r1</h2>" in page and "<h2>Previously dismissed</h2>" in page
    text = build_report(verdict, fmt="md", rereview=rereview, dismissed=dismissed)
    assert text.startswith(build_report(verdict, fmt="md").rstrip("\n"))
    assert "## Re-review against run r1: 1 new, 0 still open, 1 resolved" in text and "## Previously dismissed" in text
    assert "<script>" not in text
    assert build_report(verdict, fmt="html") == build_report(verdict, fmt="html", rereview=None, dismissed=None)
