"""The CI gate: a council verdict's outcome as a pass or a fail.

`amicus council gate RUN_ID_OR_DIR --fail-on LEVEL` exits 0 when the gate passes and 4
when it fails (1 stays "error", 2 "degraded"). The levels, from lenient to strict within
each family:

    never                the gate always passes (report only)
    fundamental-rethink  fails when the chair's verdict is "Fundamental rethink"
    fix-these-first      fails when the chair's verdict is "Fix these first" or any
                         harsher phrase of the scale (vocabulary.VERDICT_SCALE)
    confirmed-blocker    fails when a blocker-severity finding sits in the Confirmed tier
                         (the bench agreed it is real)
    disputed-blocker     fails when a blocker-severity finding sits in the Disputed tier *or
                         any stronger one*. Tiers rank by how well the bench supported the
                         finding — Confirmed, Contested, Singleton, Disputed — and Disputed is
                         the weakest, so this level fails on any blocker at all, even one the
                         bench disputed. It is the strictest blocker level.

A question council's verdict (`intent: question`) has an answer, not a verdict or blocker
findings: every level but `never` refuses it (BAD_ARGS) rather than pass it by default. A task
council's verdict (`intent: task`) has findings but an ANSWER, not a verdict: the blocker
levels gate it, the two chair levels refuse it.

The two chair levels need a chair verdict: a verdict with `overallVerdict: null` (the chair
failed, or a cost ceiling skipped it) fails them unless `allow_no_verdict`, because "no
verdict" must never read as "ship it". The blocker levels read the findings' tiers (after
any recorded tier override) and need no chair. Stage-4 decisions are not consulted: the
engine's verdict is undecided, and a gate is a statement about what the council found.

Every level but `never` also needs a cross-reviewed run: on a verdict with `judged: false`
(fewer than two judges gave a usable judgement) every finding is a Singleton, so a blocker
level would pass by default. Such a run fails the gate with its own reason unless
`allow_unjudged` (`--allow-unjudged`) says the caller accepts it.

Pure: takes the verdict document, returns the `council-gate` document.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import EXIT_GATE_FAILED, BadArgs
from ..vocabulary import (FIX_THESE_FIRST, FUNDAMENTAL_RETHINK, GATE_LEVELS, QUESTION, REFUTED, TASK, TIERS,
                          UNVERIFIED_CHECKS, VERDICT_SCALE)

if TYPE_CHECKING:
    from ..documents.council import GateBlocker, GateRecord, ReReview

# The chair's verdicts that fail each verdict level: its own phrase and every harsher one.
VERDICT_LEVELS = {"fundamental-rethink": VERDICT_SCALE[VERDICT_SCALE.index(FUNDAMENTAL_RETHINK):],
                  "fix-these-first": VERDICT_SCALE[VERDICT_SCALE.index(FIX_THESE_FIRST):]}
# The tiers a blocker fails each blocker level in: its own tier and every stronger one.
BLOCKER_LEVELS = {"confirmed-blocker": TIERS[:TIERS.index("Confirmed") + 1],
                  "disputed-blocker": TIERS[:TIERS.index("Disputed") + 1]}
BLOCKER_SCOPE = {"confirmed-blocker": "the Confirmed tier", "disputed-blocker": "any tier"}


def evaluate_gate(verdict: Mapping[str, Any], level: str, *, allow_no_verdict: bool = False,
                  allow_unjudged: bool = False, require_evidence: bool = False, source: str | None = None,
                  rereview: Mapping[str, ReReview] | None = None,
                  dismissed: Mapping[str, Mapping[str, Any]] | None = None) -> GateRecord:
    """The council-gate document for `verdict` at `level` (`passed`, `exitCode`, `reason`).

    `require_evidence`: a blocker whose quoted evidence is not-found or absent does not block on
    its own (a refuted one never does); both are reported as `heldBack`.
    `rereview` (finding id → new | still-open, from a re-review's rereview.json) is `--gate-on
    new`: the blocker levels then count only the blockers that are new since the baseline.
    `dismissed` (finding id → its match in dismissed.json) are the findings that match one the
    user denied before: such a blocker is not counted unless it is Confirmed again with verified
    evidence (its `evidenceCheck`)."""
    from .verdict import verdict_scale  # here, not at import: the CLI builds its parser from GATE_LEVELS

    if level not in GATE_LEVELS:
        raise BadArgs(f"--fail-on '{level}' is not a gate level", hint=f"one of: {', '.join(GATE_LEVELS)}")
    if not isinstance(verdict, Mapping) or verdict.get("type") != "council-verdict":
        raise BadArgs("the gate reads a council-verdict document", hint="pass a run directory or its verdict.json")
    if verdict.get("intent") == QUESTION and level != "never":
        # A question council answers; it finds no blockers and gives no verdict to pass or fail.
        raise BadArgs(f"run {verdict.get('runId')} is a question council: it has an answer, not a verdict "
                      f"or blocker findings, so --fail-on {level} cannot gate it",
                      hint="gate a review council's run; --fail-on never still reports a question council")
    if verdict.get("intent") == TASK and level in VERDICT_LEVELS:
        raise BadArgs(f"run {verdict.get('runId')} is a task council: its chair gave an ANSWER, not a verdict, so "
                      f"--fail-on {level} cannot gate it",
                      hint="gate its findings with --fail-on disputed-blocker or confirmed-blocker")
    overall = verdict.get("overallVerdict")
    scale = verdict_scale(verdict)
    if overall is not None and overall not in scale:
        raise BadArgs(f"overallVerdict '{overall}' is not one of: {', '.join(scale)}",
                      hint="the verdict document is damaged: re-run 'amicus council verdict'")
    blockers = [_blocker(f) for f in verdict.get("findings") or [] if isinstance(f, Mapping) and f.get("severity") == "blocker"]
    counted = blockers
    if rereview is not None:
        for row in blockers:
            row["reReview"] = rereview.get(str(row["id"]), "new")  # a finding the re-review never saw counts
        counted = [b for b in blockers if b["reReview"] == "new"]
    if dismissed:
        # The evidence check where the verdict carries it, else where the caller found it (the run's tally).
        evidence = {str(f.get("id")): f.get("evidenceCheck") for f in verdict.get("findings") or [] if isinstance(f, Mapping)}
        evidence.update({fid: m["evidenceCheck"] for fid, m in dismissed.items()
                         if isinstance(m, Mapping) and not evidence.get(fid) and m.get("evidenceCheck")})
        for row in blockers:
            if str(row["id"]) in dismissed:
                row["previouslyDismissed"] = True
        counted = [b for b in counted if not b.get("previouslyDismissed")
                   or (b["tier"] == "Confirmed" and evidence.get(str(b["id"])) == "verified")]
    judged = verdict.get("judged") is not False
    held = [b for b in blockers if _held_back(b, require_evidence)]
    counted = [b for b in counted if b not in held]
    if judged or level == "never":
        failed, reason = _decide(level, overall, counted, allow_no_verdict, held=held)
    elif allow_unjudged:
        failed, reason = _decide(level, overall, counted, allow_no_verdict, held=held)
        reason += "; the run was never cross-reviewed (judged: false), allowed by --allow-unjudged"
    else:
        failed, reason = True, (f"gate fails: the run was never cross-reviewed (judged: false — fewer than two judges "
                                f"gave a usable judgement), so its tiers cannot pass --fail-on {level}; "
                                "--allow-unjudged gates it anyway")
    doc: GateRecord = {
        "schemaVersion": 2,
        "type": "council-gate",
        "failOn": level,
        "passed": not failed,
        "exitCode": EXIT_GATE_FAILED if failed else 0,
        "reason": reason,
        "runId": verdict.get("runId"),
        "overallVerdict": overall,
        "allowNoVerdict": allow_no_verdict,
        "judged": judged,
        "allowUnjudged": allow_unjudged,
        "tierCounts": dict(verdict.get("tierCounts") or {}),
        "blockers": blockers,
    }
    if rereview is not None:
        doc["gateOn"] = "new"
        still_open = sum(b.get("reReview") == "still-open" for b in blockers)
        if level in BLOCKER_LEVELS and still_open:
            doc["reason"] += f"; --gate-on new: {still_open} still-open blocker(s) not counted"
    set_aside = [b for b in blockers if b.get("previouslyDismissed") and b not in counted and b not in held]
    if set_aside and level in BLOCKER_LEVELS:
        doc["reason"] += (f"; {len(set_aside)} previously dismissed blocker(s) not counted: "
                          + ", ".join(str(b["id"]) for b in set_aside))
    if require_evidence:  # emitted when asked for, so a gate document without it is unchanged
        doc["requireEvidence"] = True
    if held:
        doc["heldBack"] = [b["id"] for b in held]
    if source is not None:
        doc["source"] = source
    return doc


def _blocker(finding: Mapping[str, Any]) -> GateBlocker:
    row: GateBlocker = {"id": finding.get("id"), "tier": finding.get("tier")}
    if finding.get("raiser") is not None:
        row["raiser"] = finding["raiser"]
    # Emitted when the run checked or verified it.
    if isinstance(finding.get("evidenceCheck"), str):
        row["evidenceCheck"] = finding["evidenceCheck"]
    if isinstance(finding.get("verification"), str):
        row["verification"] = finding["verification"]
    return row


def _held_back(blocker: GateBlocker, require_evidence: bool) -> bool:
    """A blocker that does not block on its own: a verifier refuted it, or (`--require-evidence`)
    its quoted evidence is not in the material or was never given. It is still reported."""
    if blocker.get("verification") == REFUTED:
        return True
    return require_evidence and blocker.get("evidenceCheck") in UNVERIFIED_CHECKS


def _held_text(held: list[GateBlocker]) -> str:
    if not held:
        return ""
    parts = [f"{b['id']} ({'refuted by the verifier' if b.get('verification') == REFUTED else 'evidence ' + str(b.get('evidenceCheck'))})"
             for b in held]
    return f"; {len(held)} blocker(s) do not block on their own: {', '.join(parts)}"


def _decide(level: str, overall: str | None, blockers: list[GateBlocker], allow_no_verdict: bool, *,
            held: list[GateBlocker] | None = None) -> tuple[bool, str]:
    failed, reason = _decide_counted(level, overall, blockers, allow_no_verdict)
    return failed, reason + (_held_text(held or []) if level in BLOCKER_LEVELS else "")


def _decide_counted(level: str, overall: str | None, blockers: list[GateBlocker],
                    allow_no_verdict: bool) -> tuple[bool, str]:
    if level == "never":
        return False, "gate passes: --fail-on never (report only)"
    if level in VERDICT_LEVELS:
        if overall is None:
            if allow_no_verdict:
                return False, "gate passes: no chair verdict, allowed by --allow-no-verdict"
            return True, f"gate fails: no chair verdict (overallVerdict is null), and --fail-on {level} needs one"
        if overall in VERDICT_LEVELS[level]:
            return True, f"gate fails: the chair's verdict is '{overall}' (--fail-on {level})"
        return False, f"gate passes: the chair's verdict is '{overall}' (--fail-on {level})"
    hits = [b for b in blockers if b["tier"] in BLOCKER_LEVELS[level]]
    scope = BLOCKER_SCOPE[level]
    if hits:
        listed = ", ".join(f"{b['id']} ({b['tier']})" for b in hits)
        return True, f"gate fails: {len(hits)} blocker finding(s) in {scope}: {listed} (--fail-on {level})"
    return False, f"gate passes: no blocker finding in {scope} ({len(blockers)} blocker(s) in all; --fail-on {level})"
