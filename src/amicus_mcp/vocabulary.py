"""The council's vocabulary, defined once: every fixed set of words a document, a prompt, a flag,
an MCP argument or a schema enum spells.

Each set is a `Literal` type (for signatures, pydantic models and MCP argument types) and a
tuple of its words read off that type, so a word is written in exactly one place. Tuples keep
the order the shipped schemas list them in; where a set has a second order (the report's tier
order) it is named here too. Add a new word or set here, then import it: the fronts (argparse
choices, MCP `Literal` arguments), the prompts that spell a scale, and the pure council all read
this module, and tests/test_vocabulary.py checks every shipped schema enum against it and that
no second copy of a set appears under `src/`.

This module imports nothing from the package, so any module at any layer may import it.
"""

from __future__ import annotations

from typing import Literal, TypeVar, get_args

W = TypeVar("W", bound=str)


def word_in(value: object, words: tuple[W, ...]) -> W | None:
    """`value` as a word of the set `words`, typed as the set's own `Literal`; None when it is none."""
    return next((word for word in words if word == value), None)

# --- what a council is asked --------------------------------------------------------------
# A review council judges an artifact; a question council answers a question (each seat answers,
# the judges rank the answers and vote on their key claims). `review` is every run's default,
# and the only intent a document leaves unsaid (a review's documents carry no `intent` key).

# A task council (the original tool's third intent) is asked to do or decide something: its
# seats review the briefing as a review's do (findings, cross-review, tiers), its chair closes on
# an ANSWER line as a question's does, and its runs write no reliability rows.
Intent = Literal["review", "question", "task"]
INTENTS: tuple[Intent, ...] = get_args(Intent)
REVIEW, QUESTION, TASK = INTENTS
# The intents whose chair closes on an ANSWER line: the only ones a run's documents spell.
AnsweringIntent = Literal["question", "task"]
ANSWERING_INTENTS: tuple[AnsweringIntent, ...] = get_args(AnsweringIntent)
# What a briefing template frames: a review's Stage-1 work or a question's (a task council is
# framed as a review: its seats review what the briefing asks them to do or decide).
FramedIntent = Literal["review", "question"]
FRAMED_INTENTS: tuple[FramedIntent, ...] = get_args(FramedIntent)

# --- the chair's closing line ------------------------------------------------------------
# A review council's chair ends with `VERDICT: <phrase>`; a question council's with
# `ANSWER: <standing> — <the answer in one sentence>` (the original tool's `task` intent).
# Both scales run from the best outcome to the worst.

OverallVerdict = Literal["Ship it", "Fix these first", "Fundamental rethink"]
VERDICT_SCALE: tuple[OverallVerdict, ...] = get_args(OverallVerdict)
# The phrases code names: the best, the one the fix-these-first gate starts at, the worst (named
# each on its own, so a phrase added to the scale is no edit here).
SHIP_IT: OverallVerdict = "Ship it"
FIX_THESE_FIRST: OverallVerdict = "Fix these first"
FUNDAMENTAL_RETHINK: OverallVerdict = "Fundamental rethink"

# How a question council's answers relate: they agree; they disagree and the chair took a side;
# the material does not let the council answer.
AnswerStanding = Literal["Converged", "Split", "Insufficient"]
ANSWER_SCALE: tuple[AnswerStanding, ...] = get_args(AnswerStanding)
# Either closing line's phrase: what `overallVerdict` may hold.
ChairLine = Literal[OverallVerdict, AnswerStanding]
CHAIR_LINES: tuple[ChairLine, ...] = get_args(ChairLine)
# What each verdict means, as the review chair's brief says it (prompts/chair-verdict-scale.md,
# `$verdict_meanings`): a verdict added to the scale brings its meaning here, and nowhere else.
# (The ANSWER standings mean one thing to a question's chair and another to a task's: their
# briefs say it.)
VERDICT_MEANINGS: dict[OverallVerdict, str] = {
    "Ship it": "solid, nothing blocking.",
    "Fix these first": "specific gaps must be closed before the material is useful — name them.",
    "Fundamental rethink": "problems at the foundation that cannot be patched — say what they are.",
}
# How a report and the workspace colour a phrase: the best outcome, one to act on, the worst.
VerdictTone = Literal["good", "warn", "bad"]
VERDICT_TONES: tuple[VerdictTone, ...] = get_args(VerdictTone)
CHAIR_LINE_TONES: dict[ChairLine, VerdictTone] = {
    "Ship it": "good", "Fix these first": "warn", "Fundamental rethink": "bad",
    "Converged": "good", "Split": "warn", "Insufficient": "bad",
}

VerdictScaleName = Intent  # each intent's chair closes on its own scale
VERDICT_MARKER = "VERDICT"
ANSWER_MARKER = "ANSWER"
# scale name → (the line's marker, its phrases)
VERDICT_SCALES: dict[str, tuple[str, tuple[str, ...]]] = {
    REVIEW: (VERDICT_MARKER, VERDICT_SCALE),
    QUESTION: (ANSWER_MARKER, ANSWER_SCALE),
    TASK: (ANSWER_MARKER, ANSWER_SCALE),
}

# --- a question council's answers ---------------------------------------------------------

# How likely a seat holds its own answer is to be right (the answer contract's `confidence`).
AnswerConfidence = Literal["high", "medium", "low"]
ANSWER_CONFIDENCES: tuple[AnswerConfidence, ...] = get_args(AnswerConfidence)

# --- findings -----------------------------------------------------------------------------

Severity = Literal["blocker", "major", "minor", "nit"]
SEVERITIES: tuple[Severity, ...] = get_args(Severity)  # most severe first

# What the deterministic evidence check found for a finding's `evidence` quote (council/evidence.py):
# found at the stated location (or where the location was too vague to say otherwise); found, but
# elsewhere (the location is corrected); not in the material the run read; no quote given.
EvidenceCheck = Literal["verified", "moved", "not-found", "absent"]
EVIDENCE_CHECKS: tuple[EvidenceCheck, ...] = get_args(EvidenceCheck)
VERIFIED, MOVED, NOT_FOUND, ABSENT = EVIDENCE_CHECKS
# The checks a finding is "unverified" under: `council gate --require-evidence` does not let it block.
UNVERIFIED_CHECKS: tuple[EvidenceCheck, ...] = (NOT_FOUND, ABSENT)
# The checks that found the quote in the material.
FOUND_CHECKS: tuple[EvidenceCheck, ...] = (VERIFIED, MOVED)

# What a verifier (`--verify`) answered on a finding it checked against the source.
Verification = Literal["holds", "refuted", "unsure"]
VERIFICATIONS: tuple[Verification, ...] = get_args(Verification)
HOLDS, REFUTED, UNSURE = VERIFICATIONS
# The read-only tools a verifier is offered where its model supports tool calling
# (engine/source_tools.py), and how each call it made ended (its leg's `toolCalls`).
VerifierTool = Literal["read_file", "search"]
VERIFIER_TOOLS: tuple[VerifierTool, ...] = get_args(VerifierTool)
ToolCallResult = Literal["ok", "refused", "unknown-tool", "bad-arguments", "over-budget"]
TOOL_CALL_RESULTS: tuple[ToolCallResult, ...] = get_args(ToolCallResult)

# A judge's vote on one finding (Stage 2 and the debate's re-vote).
VoteVerdict = Literal["agree", "dispute", "neutral"]  # a vote's `verdict`
VOTES: tuple[VoteVerdict, ...] = get_args(VoteVerdict)

# The tally's tiers, by how well the bench supported the finding, strongest first (the
# council-tally schema's order).
Tier = Literal["Confirmed", "Contested", "Singleton", "Disputed"]
TIERS: tuple[Tier, ...] = get_args(Tier)
# How reports, summaries and terminals list them: the findings that need a look first.
TIER_DISPLAY_ORDER: tuple[Tier, ...] = ("Disputed", "Contested", "Confirmed", "Singleton")
# The tiers a debate round takes back to the raiser.
DebatedTier = Literal["Contested", "Disputed"]
DEBATED_TIERS: tuple[DebatedTier, ...] = get_args(DebatedTier)
# What `--verify` checks: the findings the votes would act on, where being wrong costs most.
VERIFIED_TIERS: tuple[Tier, ...] = ("Confirmed", "Contested")
VERIFIED_SEVERITIES: tuple[Severity, ...] = ("blocker", "major")

Confidence = Literal["thin", "solid"]
CONFIDENCES: tuple[Confidence, ...] = get_args(Confidence)

# What a raiser did with a debated finding (a dead or unparseable defense is `no-response`).
DebateAction = Literal["defended", "amended", "withdrawn", "no-response"]
DEBATE_ACTIONS: tuple[DebateAction, ...] = get_args(DebateAction)
# The raiser stood by the finding, so the judges that disputed it vote again.
REVOTED_ACTIONS: tuple[DebateAction, ...] = ("defended", "amended")

# How a seat's structured answer came in: as asked, after the one repair, or not at all.
Conformance = Literal["clean", "repaired", "unstructured"]
CONFORMANCES: tuple[Conformance, ...] = get_args(Conformance)  # worst last

# --- a council run's stages --------------------------------------------------------------

# The stages a leg (one model call) belongs to, in the order a run launches their waves (the
# council-leg document's and run.json `legs[].stage`): the reviews, the cross-review, the debate
# (its defenses and re-votes), the verifier's checks and the chair.
LegStage = Literal["stage1", "stage2", "debate", "verify", "chair"]
LEG_STAGES: tuple[LegStage, ...] = get_args(LegStage)
STAGE1, STAGE2, DEBATE, VERIFY, CHAIR = LEG_STAGES
# The waves whose floors pre-flight holds back before a run starts (a debate's legs depend on the
# tally, so they are not planned ahead; a verifier's are held at --verify-max).
PLANNED_STAGES: tuple[LegStage, ...] = (STAGE1, STAGE2, VERIFY, CHAIR)
# What run.json `stages[]` names, in run order: the waves and the steps between them (the tally,
# provisional when a debate follows; the debate's two waves; the verdict the chair's line becomes).
StageName = Literal["stage1", "stage2", "tally", "tally-provisional", "debate-defense", "debate-revote", "verify",
                    "chair", "verdict"]
STAGE_NAMES: tuple[StageName, ...] = get_args(StageName)
# The stages every run records (the rest only with --debate or --verify), in run order.
CORE_STAGE_NAMES: tuple[StageName, ...] = ("stage1", "stage2", "tally", "chair", "verdict")

# --- routing and cost ---------------------------------------------------------------------

# How a `vendor/model` id is routed (`--gateway`): the vendor's own API when its key is set, else
# OpenRouter; only the vendor's own API; always OpenRouter.
GatewayMode = Literal["auto", "direct", "openrouter"]
GATEWAY_MODES: tuple[GatewayMode, ...] = get_args(GatewayMode)

# Where one leg's cost figure came from: the provider's bill, catalog prices times the reply's
# tokens, or nowhere (the figure is null, never 0).
CostSource = Literal["reported", "estimated", "unknown"]
COST_SOURCES: tuple[CostSource, ...] = get_args(CostSource)
# The sources under which a leg's figure is known.
PRICED_COST_SOURCES: tuple[CostSource, ...] = ("reported", "estimated")
# A pre-flight estimate's (cost-estimate.schema.json): nothing is billed before a run.
PreflightCostSource = Literal["estimated", "unknown"]
PREFLIGHT_COST_SOURCES: tuple[PreflightCostSource, ...] = get_args(PreflightCostSource)
# A sum over legs (a wave's, a run's): `mixed` when some were billed and some estimated.
RolledCostSource = Literal["reported", "estimated", "mixed", "unknown"]
ROLLED_COST_SOURCES: tuple[RolledCostSource, ...] = get_args(RolledCostSource)
# The sources a figure is shown as an estimate under (`~$0.12`, "partly estimated").
ESTIMATED_COST_SOURCES: tuple[RolledCostSource, ...] = ("estimated", "mixed")

# How a provider prices a reply (a configured server's `cost`, providers/openai_compat.py):
#   reported — the reply's `usage.cost` (OpenRouter), else a catalog estimate, else unknown
#   catalog  — a catalog estimate from the reply's tokens, else unknown (direct APIs)
#   local    — 0.0 when tokens are known (your own hardware sends no bill), else unknown
#   none     — always unknown
CostMode = Literal["reported", "catalog", "local", "none"]
COST_MODES: tuple[CostMode, ...] = get_args(CostMode)
# The modes that fall back to a catalog estimate.
CATALOG_PRICED_MODES: tuple[CostMode, ...] = ("reported", "catalog")

# --- errors -------------------------------------------------------------------------------

# The error envelope's `error.code` (error.schema.json): one per class of amicus_mcp/errors.py,
# which says what each means.
ErrorCode = Literal["BAD_ARGS", "MISSING_PROMPT", "BAD_MODEL", "MISSING_KEY", "BAD_SESSION", "BUDGET_EXCEEDED",
                    "INTERNAL", "COUNCIL_QUORUM", "COST_EXCEEDED", "COUNCIL_CLAUDE_REVIEW_INVALID",
                    "SECRET_IN_MATERIAL", "COST_CEILING_TOO_LOW", "CONTEXT_LENGTH_EXCEEDED",
                    "GITHUB_REFUSED", "AGENT_NOT_READY"]
ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)
# The --max-cost ceiling stopped a run mid-way, or refused it before it started.
CEILING_ERROR_CODES: tuple[ErrorCode, ...] = ("COST_EXCEEDED", "COST_CEILING_TOO_LOW")

# --- the CI gate (`council gate --fail-on`), from lenient to strict within each family -----

GateLevel = Literal["never", "fundamental-rethink", "fix-these-first", "disputed-blocker", "confirmed-blocker"]
GATE_LEVELS: tuple[GateLevel, ...] = get_args(GateLevel)

# --- the pull-request loop (SARIF, review comments) ---------------------------------------

# A pull-request review's event: COMMENT unless the user says otherwise (never approve or block by default).
ReviewEvent = Literal["COMMENT", "APPROVE", "REQUEST_CHANGES"]
REVIEW_EVENTS: tuple[ReviewEvent, ...] = get_args(ReviewEvent)
# Which findings each rendering carries by default: SARIF every one the bench did not dispute
# (code scanning filters by level itself); review comments only what is worth a reviewer's line.
SARIF_MIN_SEVERITY: Severity = "nit"
SARIF_MIN_TIER: Tier = "Singleton"
REVIEW_MIN_SEVERITY: Severity = "minor"
REVIEW_MIN_TIER: Tier = "Contested"
# The Stage-4 decisions the project's decisions memory keeps: a later run learns from them (a
# denied one marks a matching finding previously dismissed).
KeptDecision = Literal["accepted", "denied"]
KEPT_DECISIONS: tuple[KeptDecision, ...] = get_args(KeptDecision)
# How a re-review (and the dismissed-findings memory) matched a finding to an earlier one: the
# deterministic pass's location or claim, or the matcher model (`--matcher`, re-review only).
MatchedBy = Literal["location", "claim", "matcher"]
DeterministicMatch = Literal["location", "claim"]

# --- statuses -----------------------------------------------------------------------------

# A council run (run.json), and an eval run (eval-run.json, eval.json).
RunStatus = Literal["running", "complete", "partial", "error", "aborted"]
RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)
TERMINAL_RUN_STATUSES: tuple[RunStatus, ...] = RUN_STATUSES[1:]
# The status a run's exit code stands for (run.json's and eval-run.json's `status` at the end).
EXIT_RUN_STATUS: dict[int, RunStatus] = {0: "complete", 1: "error", 2: "partial", 130: "aborted", 143: "aborted"}


def exit_status(code: int) -> RunStatus:
    """EXIT_RUN_STATUS's word for `code`; `partial` for another code (a run that ended degraded)."""
    return EXIT_RUN_STATUS.get(code, "partial")


ResumableRunStatus = Literal["error", "aborted"]
RESUMABLE_RUN_STATUSES: tuple[ResumableRunStatus, ...] = get_args(ResumableRunStatus)
# `resumes[].fromStatus`: a resumable status, or `running` when the run's process was gone.
ResumedFromStatus = Literal["running", ResumableRunStatus]
RESUMED_FROM_STATUSES: tuple[ResumedFromStatus, ...] = get_args(ResumedFromStatus)

# One stage of a council run (run.json `stages[]`).
StageStatus = Literal["running", "complete", "skipped", "error", "aborted"]
STAGE_STATUSES: tuple[StageStatus, ...] = get_args(StageStatus)

# One leg (one model call): how a provider call fails, how a call that came back ended (the
# council-leg document; the leg cache keeps only these), and every status a leg can show.
LegFailure = Literal["error", "timeout"]
LEG_FAILURES: tuple[LegFailure, ...] = get_args(LegFailure)
LegOutcome = Literal["complete", LegFailure]
LEG_OUTCOMES: tuple[LegOutcome, ...] = get_args(LegOutcome)
# queued: launched, waiting for its agent CLI's slot (agents.<name>.concurrency); crashed: in flight when its process died
LegStatus = Literal["queued", "running", LegOutcome, "aborted", "crashed"]
LEG_STATUSES: tuple[LegStatus, ...] = get_args(LegStatus)
IN_FLIGHT_LEG_STATUSES: tuple[LegStatus, ...] = LEG_STATUSES[:2]
TERMINAL_LEG_STATUSES: tuple[LegStatus, ...] = LEG_STATUSES[2:]

# A fanout wave (wave.json).
WaveStatus = Literal[RunStatus, "crashed"]
WAVE_STATUSES: tuple[WaveStatus, ...] = get_args(WaveStatus)
TERMINAL_WAVE_STATUSES: tuple[WaveStatus, ...] = WAVE_STATUSES[1:]

# One case of an eval run: not started yet, a council run's status, or never started (a signal).
CaseStatus = Literal["pending", RunStatus, "skipped"]
CASE_STATUSES: tuple[CaseStatus, ...] = get_args(CaseStatus)


# --- `council validate`: what is wrong with a Stage-1 block ------------------------------
# A review's findings block, and a question council's answer block (council/findings.py,
# council/answers.py; the council-validate document's `errors[].code`).
FindingsErrorCode = Literal["NO_FENCED_BLOCK", "NOT_PARSEABLE", "EMPTY_FINDINGS", "NON_SEQUENTIAL_ID", "DUPLICATE_ID",
                            "BAD_SEVERITY", "MISSING_FIELD"]
FINDINGS_ERROR_CODES: tuple[FindingsErrorCode, ...] = get_args(FindingsErrorCode)
AnswerErrorCode = Literal["NO_FENCED_BLOCK", "NOT_PARSEABLE", "MISSING_ANSWER", "BAD_CLAIMS", "NON_SEQUENTIAL_ID",
                          "DUPLICATE_ID", "MISSING_FIELD", "BAD_ASSUMPTIONS", "BAD_CONFIDENCE"]
ANSWER_ERROR_CODES: tuple[AnswerErrorCode, ...] = get_args(AnswerErrorCode)


# --- what the CLI's own commands report (documents/commands.py) ----------------------------

# The agent CLIs a `cli:` seat names (providers/agents.py AGENT_CLIS holds one per word).
AgentSeat = Literal["cli:claude", "cli:codex", "cli:gemini"]
AGENT_SEATS: tuple[AgentSeat, ...] = get_args(AgentSeat)
# `amicus doctor`: what each check looks at, and how it came out (warn: it works, but something
# is missing or weaker than it should be; fail: something amicus needs is broken).
DoctorCheck = Literal["keys", "catalog", "local model", AgentSeat, "browser", "config dir"]
DOCTOR_CHECKS: tuple[DoctorCheck, ...] = get_args(DoctorCheck)
DoctorStatus = Literal["ok", "warn", "fail"]
DOCTOR_STATUSES: tuple[DoctorStatus, ...] = get_args(DoctorStatus)
# `amicus keys list`: where a key is set (the environment wins over the keys file).
KeySource = Literal["environment", "file"]
KEY_SOURCES: tuple[KeySource, ...] = get_args(KeySource)
# The OpenRouter model catalog as a command read it: just fetched, a cache younger than a day,
# an older cache, or none at all.
CatalogState = Literal["fresh", "cached", "stale", "unavailable"]
CATALOG_STATES: tuple[CatalogState, ...] = get_args(CatalogState)
# Where a briefing template or a policy pack came from.
TemplateSource = Literal["builtin", "user", "file"]
TEMPLATE_SOURCES: tuple[TemplateSource, ...] = get_args(TemplateSource)
PackSource = Literal["saved", "file"]
PACK_SOURCES: tuple[PackSource, ...] = get_args(PackSource)


# --- how an id is spelled -----------------------------------------------------------------
# The options model checks these, and the MCP tools publish them as argument patterns without
# importing the options model at start-up.

AGENT_PREFIX = "cli:"  # an agent seat's model id: `cli:<agent>[/<model>]`, a local agent CLI on its own subscription
SUBSCRIPTION = "subscription"  # what a report shows for an agent seat's leg instead of a dollar figure
MODEL_PATTERN = r"^[A-Za-z0-9_/.@:][A-Za-z0-9_/.@:-]{0,199}$"  # a model id or alias as a tool argument
TAG_PATTERN = r"^[A-Za-z0-9._-]{1,64}$"  # a run tag
