"""The neutral report model: what a council report says, as named tuples (immutable records,
and about a tenth of a frozen dataclass's cost to define: a council run builds one report).

`report.build_model` builds it from a verdict; `report_md` and `report_html` render it. Kept
apart from both so the renderers and the builder import it, and not each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NamedTuple

from ..vocabulary import VOTES, CostSource, VoteVerdict

UNATTRIBUTED = "UNATTRIBUTED"
GLYPHS = {"agree": "✓", "dispute": "✗", "neutral": "–", "unknown": "?"}  # one glyph per vote, both renderers
VOTE_LEGEND = " · ".join(f"{GLYPHS[vote]} {vote}" for vote in VOTES)  # ✓ agree · ✗ dispute · – neutral
VOTES_IN_WORDS = f"{', '.join(VOTES[:-1])} or {VOTES[-1]}"  # agree, dispute or neutral
RESERVED_CLAUDE = "claude"
# Only these roles get a suffixed cost label; rebuttal/revote render unsuffixed (seed).
SUFFIXED_ROLES = frozenset({"judge", "chair-attempt", "repair", "superseded", "interrupted", "matcher"})

# Wording both renderers share (each adds its own markup).
THIN_VERDICT = "rests on fewer than two judges (judged: false)"
NO_CLAIMS_MADE = "No answer stated a key claim."
NO_CLAIM_DISPUTED = "No claim was Disputed."
NO_CHAIR_ANSWER = "No chair answer"
RANKING_LEGEND = ("ranked by the mean place peers gave each answer (lower is better; the author's own ranking, "
                  "marked *, is not counted), then by fewer Disputed claims, then by more Confirmed ones; "
                  "answers equal on all three share a rank")
NOTHING_LOST_TEXT = "Nothing was lost."
# A bench that raised nothing: said, never left blank (issue 28).
CLEAN_BENCH = "No findings were raised on this bench — a clean review is a valid review."
# Under a council run's tier table: what a tier does and does not mean.
TIER_QUALIFIER = "Tiers report peer concurrence, never verification."
# The cost table's last row: a wave's total (the seed's word, for a verdict of the skill path or
# one rendered with its wave document), else the council run's own total.
WAVE_TOTAL = "Wave total"
RUN_TOTAL = "Run total"
TITLE_QUESTION_CHARS = 80  # a question longer than this is cut (with …) in the title only
# The one voice of a loss: `Notice: <who> <what did not happen> — <why>`.
LOSS_PREFIX = "Notice: "
WITHDRAWN_BY_RAISER = "Withdrawn by raiser"
CLAIMS_UNAVAILABLE = ("Claims and locations are unavailable: this council run's verdict was rendered without its "
                      "tally record (tally.json beside verdict.json in the run directory), which holds what each "
                      "finding claims and where.")

VoteKind = Literal[VoteVerdict, "unknown"]


# --------------------------------------------------------------------------- model


class Header(NamedTuple):
    run_type: str
    run_id: str
    date: str
    chair: str
    council: tuple[str, ...]
    overall_verdict: str | None
    title: str = ""  # what the title names: the run type, `task`, or a question council's question (cut)
    question: str | None = None  # a question council's question in full (user text: renderers escape it)
    answer: str | None = None  # a task council: the sentence on the chair's ANSWER line

    @property
    def subject(self) -> str:
        return self.title or self.run_type


class TierCount(NamedTuple):
    tier: str
    total: int  # not `count`: that would shadow tuple.count


class Vote(NamedTuple):
    """One matrix cell. `kind` None means the column's judge did not vote."""

    kind: VoteKind | None
    raiser: bool


class Basis(NamedTuple):
    a: int | None
    d: int | None
    n: int | None

    @property
    def text(self) -> str:
        return f"a{_count(self.a)}/d{_count(self.d)}/n{_count(self.n)}"

    @property
    def thin(self) -> bool:
        # Workspace rule: at most one decisive peer vote means the tier rests on little.
        if self.a is None or self.d is None:
            return False
        return self.a + self.d <= 1


class Override(NamedTuple):
    from_tier: str
    to_tier: str
    reason: str


class DebateNote(NamedTuple):
    action: str
    previous_tier: str


class FindingView(NamedTuple):
    id: str
    severity: str
    raiser: str
    tier: str
    basis: Basis
    decision: str | None
    applied: bool
    override: Override | None
    duplicate_of: str | None
    debate: DebateNote | None
    same_model_only: bool
    votes: tuple[Vote, ...]
    claim: str | None = None  # from the tally record, when the caller has one
    location: str | None = None
    evidence: str | None = None  # the quote the finding rests on (the tally record's), model text
    evidence_check: str | None = None  # verified | moved | not-found | absent; None: never checked
    evidence_location: str | None = None  # where the check found the quote
    verification: str | None = None  # the verifier's answer (holds | refuted | unsure), when --verify ran
    verification_tool_calls: int | None = None  # the read-only tool calls its verifier made (None: offered none)

    @property
    def evidence_text(self) -> str | None:
        """`evidence not found in the material`, `… verified in the material (at app.py:12)`; None: unchecked."""
        from .evidence import check_phrase

        return check_phrase({"evidenceCheck": self.evidence_check, "evidenceLocation": self.evidence_location})


class Matrix(NamedTuple):
    columns: tuple[str, ...]
    rows: tuple[FindingView, ...]
    has_unattributed: bool
    has_dagger: bool
    has_unknown_vote: bool


class StreetCredRow(NamedTuple):
    label: str
    peers_only: str
    with_self: str


class TierGroup(NamedTuple):
    tier: str
    findings: tuple[FindingView, ...]


class CostRow(NamedTuple):
    label: str
    status: str
    duration: str
    cost: str
    kind: CostSource


class DebateRow(NamedTuple):
    id: str
    action: str
    previous_tier: str
    tier: str

    @property
    def said(self) -> str:
        """The raiser's action in the debate, as the report words it."""
        return {"withdrawn": WITHDRAWN_BY_RAISER, "no-response": "no response"}.get(self.action, self.action)

    @property
    def change(self) -> str:
        """The revote's tier movement: `Disputed → Contested`, or where the finding stayed."""
        if not self.previous_tier:
            return f"now {self.tier}"
        return f"{self.previous_tier} → {self.tier}" if self.previous_tier != self.tier else f"stays {self.tier}"


class DebateSummary(NamedTuple):
    """What the one debate round did: the run's own summary when the verdict carries it,
    else counted from the findings' `debate` stamps (then `outcome` is unknown: None)."""

    outcome: str | None
    defended: int
    amended: int
    withdrawn: int
    no_response: int
    verdict_changes: int
    rows: tuple[DebateRow, ...]

    @property
    def facts(self) -> tuple[str, ...]:
        """The round's figures, worded once for both renderers."""
        outcome = () if self.outcome is None else (f"Outcome: {self.outcome}",)
        return (*outcome,
                f"Defended {self.defended} · amended {self.amended} · withdrawn {self.withdrawn} · no response {self.no_response}",
                f"Verdict changes: {self.verdict_changes}")


class RankedAnswer(NamedTuple):
    """One answer of a question council in the aggregate ranking (`council/ranking.py`)."""

    rank: int
    label: str  # "Answer B", or "" when the verdict does not say
    who: str  # the seat (twin benches) or the model
    peers_only: str
    with_self: str
    per_judge: tuple[str, ...]  # one cell per judge column: its place, `*` when it is the author's own
    claims: str  # "2 Confirmed · 1 Disputed of 3"
    answer: str | None = None  # the answer as its seat gave it, when the verdict carries it
    confidence: str | None = None
    assumptions: tuple[str, ...] = ()
    unstructured: bool = False  # its answer block never read: the judges ranked its prose


class QuestionView(NamedTuple):
    """What a question council's report adds: the answer first, the ranking, the dissent."""

    standing: str | None  # the chair's ANSWER standing (Converged | Split | Insufficient)
    answer: str | None  # the sentence on the chair's ANSWER line
    judges: tuple[str, ...]  # the ranking table's judge columns
    ranked: tuple[RankedAnswer, ...]
    dissent: tuple[str, ...]  # the chair's dissent, item by item
    disputed: tuple[FindingView, ...]  # the claims the council put in the Disputed tier


class ReportModel(NamedTuple):
    header: Header
    tier_counts: tuple[TierCount, ...]
    matrix: Matrix
    street_cred: tuple[StreetCredRow, ...]
    tier_groups: tuple[TierGroup, ...]
    cost_rows: tuple[CostRow, ...]
    wave_total: str
    notes: tuple[str, ...] = ()  # "About this run": disclosures and readouts, only when they apply
    losses: tuple[str, ...] = ()  # "What was lost": one line per degrade, in one voice
    run_notes: tuple[str, ...] = ()  # the run's informational notices ("**Notes:**" under the losses)
    thin_verdict: bool = False  # judged:false — the verdict rests on fewer than two judges
    synthesis: tuple[str, ...] = ()  # the chair's synthesis, paragraph by paragraph
    hard_questions: tuple[str, ...] = ()
    debate: DebateSummary | None = None
    claims_unavailable: bool = False  # a council run's findings, rendered without the run's tally record
    question: QuestionView | None = None  # a question council's report (None: a review's)
    qualified: bool = False  # a council run's tier table carries TIER_QUALIFIER (the seed's example does not)
    total_label: str = WAVE_TOTAL
    # A run with --baseline: its rereview.json; one whose findings match a dismissed one: its
    # dismissed.json (validated documents, rendered as they are: council/rereview.py)
    rereview: Mapping[str, object] | None = None
    dismissed: Mapping[str, object] | None = None


def _count(value: int | None) -> str:
    return "?" if value is None else str(value)
