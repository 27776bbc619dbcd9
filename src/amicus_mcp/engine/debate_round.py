"""Stage 2.5 (`--debate`): one rebuttal round between the cross-review and the final tally.

    provisional tally (no ledger)
      → nothing Contested/Disputed: outcome "nothing-to-debate"
      → the ceiling is already reached: outcome "skipped-cost-ceiling" (exit 2)
      → tally-provisional.json, the audit copy, written just before the first debate leg
        launches (so only when the round runs)
      → defense: one solo per raising seat (rebuttal-<seat>.md), DEFEND / AMEND / WITHDRAW
      → re-vote: one wave to the seats that disputed a defended or amended finding
        (revote-bundle.md, revote-<seat>.md)
      → the final tally input: amended claims, re-votes applied, findings decorated

The pure rules (who debates what, the briefs, the reassembly) are in `council/debate.py`.
Claude's own review never defends: its findings stand, as after a dead defense leg.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from ..council import debate
from ..council.anonymize import Anonymized, JudgeAnswer, tally_input
from ..council.parse import parse_defense, parse_revote
from ..council.seats import seat_file_stem
from ..council.tally import tally
from ..fsio import atomic_write_json
from ..providers.routing import Route

if TYPE_CHECKING:
    from .council_run import CouncilRun, LegResult

DEBATE_STAGE = 3  # runStats order: after Stage 2's rows, before the chair's


class DebateRound:
    def __init__(self, run: CouncilRun, anon: Anonymized, judges: Sequence[JudgeAnswer], provisional: dict[str, Any]):
        self.run_ = run
        self.anon = anon
        self.judges = judges
        self.provisional = provisional
        self.final_record = provisional
        self.outcome = debate.DebateOutcome()
        self.targets: list[debate.DebateTarget] = []

    # -- what the rest of the run reads -------------------------------------------------

    def reassemble(self, tally_input_doc: dict[str, Any]) -> dict[str, Any]:
        return debate.reassemble(tally_input_doc, self.provisional, self.outcome)

    def decisions(self) -> list[dict[str, Any]]:
        return debate.withdrawn_decisions(self.outcome)

    # -- the round ----------------------------------------------------------------------

    async def run(self) -> DebateRound:
        r, p = self.run_, self.run_.prep
        base = tally_input(meta=r.meta(p.chair), anonymized=self.anon, judges=self.judges, run_stats=r.run_stats)
        self.targets = debate.targets(base, self.provisional, r.judge_prose)
        if not self.targets:
            self.set_outcome("nothing-to-debate")
            return self
        if r.budget.exhausted:
            self.skip_for_cost("before the defense")
            return self

        # The debate artifacts exist only for a round that ran (seed, "Debate mode").
        atomic_write_json(p.run_dir / "tally-provisional.json", self.provisional)
        await self.defense()
        if not any(t.disputers for t in self.targets if self.answer(t) in ("defended", "amended")):
            return self.finish(base, revote_judges=0)
        if r.budget.exhausted:  # the defense ran: its answers stand and the round is on record
            r.degrade("debate", "debate round skipped", "the --max-cost ceiling was reached before the re-vote")
            return self.finish(base, revote_judges=0, outcome="skipped-cost-ceiling")
        judges = await self.revote()
        return self.finish(base, revote_judges=judges)

    def answer(self, target: debate.DebateTarget) -> str:
        return self.outcome.responses.get(target.finding["id"], {}).get("action", "no-response")

    def set_outcome(self, outcome: str) -> None:
        self.run_.state.doc["debate"] = {"enabled": True, "outcome": outcome}
        self.run_.state.checkpoint()

    def skip_for_cost(self, when: str) -> None:
        self.set_outcome("skipped-cost-ceiling")
        self.run_.degrade("debate", "debate round skipped", f"the --max-cost ceiling was reached {when}")

    def finish(self, base: dict[str, Any], *, revote_judges: int, outcome: str = "ran") -> DebateRound:
        r, p = self.run_, self.run_.prep
        self.final_record = tally(self.reassemble(base))
        summary = debate.summary(self.targets, self.outcome, self.provisional, self.final_record, revote_judges=revote_judges)
        summary["outcome"] = outcome
        r.state.doc["debate"] = summary
        atomic_write_json(p.run_dir / "debate.json", self.record(summary))
        r.state.checkpoint()
        return self

    def record(self, summary: dict[str, Any]) -> dict[str, Any]:
        """debate.json: the round finding by finding."""
        tiers = {f["id"]: f["tier"] for f in self.final_record["findings"]}
        rows = []
        for target in self.targets:
            fid = target.finding["id"]
            response = self.outcome.responses.get(fid, {"action": "no-response"})
            # In the disputers' (bench) order, whatever order their re-vote legs finished in.
            revotes = [{"judge": seat, **self.outcome.revotes[seat][fid]} for seat in target.disputers
                       if fid in self.outcome.revotes.get(seat, {})]
            row = {"id": fid, "raiser": target.finding.get("raiser"), "previousTier": target.tier,
                   "tier": tiers.get(fid), "action": response["action"], "disputers": target.disputers,
                   "revotes": revotes}
            for key in ("argument", "claim"):
                if key in response:
                    row[key] = response[key]
            rows.append(row)
        return {"schemaVersion": 2, "type": "council-debate", "runId": self.run_.prep.run_id,
                "summary": summary, "findings": rows}

    # -- defense ------------------------------------------------------------------------

    def raiser_seat(self, target: debate.DebateTarget) -> str:
        return target.finding.get("raiserSeat") or target.finding.get("raiser") or ""

    async def defense(self) -> None:
        r = self.run_
        r.state.stage("debate-defense", "running", waveId=f"{r.prep.run_id}-dr")
        by_raiser: dict[str, list[debate.DebateTarget]] = {}
        for target in self.targets:
            seat = self.raiser_seat(target)
            if seat == "claude":  # the reserved review never defends: its claims stand
                self.outcome.responses[target.finding["id"]] = {"action": "no-response"}
                continue
            by_raiser.setdefault(seat, []).append(target)
        r.plan(len(by_raiser))
        async with anyio.create_task_group() as group:
            for seat_id, owned in by_raiser.items():
                group.start_soon(self.defend, seat_id, owned)
        r.state.stage("debate-defense", "complete")

    async def defend(self, seat_id: str, owned: list[debate.DebateTarget]) -> None:
        ids = [t.finding["id"] for t in owned]
        parsed = await self.ask_once_repaired(seat_id, kind="defense", role="rebuttal", suffix="dr",
                                              prompt=debate.defense_brief(owned),
                                              file=f"rebuttal-{seat_file_stem(seat_id)}.md",
                                              parse=lambda text: parse_defense(text, ids),
                                              unusable=("defense", "its findings stand undefended"))
        for fid in ids:
            self.outcome.responses[fid] = dict(parsed["responses"].get(fid, {"action": "no-response"}))

    # -- re-vote ------------------------------------------------------------------------

    async def revote(self) -> int:
        r, p = self.run_, self.run_.prep
        r.state.stage("debate-revote", "running", waveId=f"{p.run_id}-rv")
        answered = {t.finding["id"]: t for t in self.targets if self.answer(t) in ("defended", "amended")}
        bundle = debate.revote_bundle(answered, self.outcome.responses)
        r.write("revote-bundle.md", bundle)
        asked: dict[str, list[str]] = {}
        for fid, target in answered.items():
            for seat in target.disputers:
                asked.setdefault(seat, []).append(fid)
        r.plan(len(asked))
        async with anyio.create_task_group() as group:
            for seat_id, ids in asked.items():
                group.start_soon(self.revote_one, seat_id, ids, bundle)
        r.state.stage("debate-revote", "complete")
        return len(asked)

    async def revote_one(self, seat_id: str, ids: list[str], bundle: str) -> None:
        parsed = await self.ask_once_repaired(seat_id, kind="revote", role="revote", suffix="rv", prompt=bundle,
                                              file=f"revote-{seat_file_stem(seat_id)}.md",
                                              parse=lambda text: parse_revote(text, ids),
                                              unusable=("re-vote", "its original verdicts stand"))
        self.outcome.revotes[seat_id] = {fid: dict(vote) for fid, vote in parsed["revotes"].items() if fid in ids}

    async def ask_once_repaired(self, seat_id: str, *, kind: str, role: str, suffix: str, prompt: str, file: str,
                                parse: Callable[[str], Any], unusable: tuple[str, str]) -> Any:
        """One debate answer with exactly one repair: the leg, its parse, the repair when the
        block is unreadable. An answer that never parses is recorded as a degrade; `parse`
        of an empty text gives the "originals stand" result the caller falls back on."""
        r = self.run_
        seat, route = r.seat_route(seat_id)
        text = await self.ask(seat, route, role=role, suffix=suffix, prompt=prompt, file=file)
        parsed = parse(text or "")
        if text is not None and not parsed["ok"]:
            repaired = await self.ask(seat, route, role="repair", suffix=f"{suffix}r",
                                      prompt=debate.debate_repair_prompt(text, parsed["errors"], kind),
                                      fixed=lambda answer: bool(parse(answer)["ok"]))
            parsed = parse(repaired or "")
        if not parsed["ok"] or text is None:
            what, effect = unusable
            r.degrade("debate", f"{what} by {seat_id} unusable", effect)
        return parsed

    # -- one debate leg -----------------------------------------------------------------

    async def ask(self, seat: dict[str, Any], route: Route, *, role: str, suffix: str, prompt: str,
                  file: str | None = None, fixed: Callable[[str], bool] | None = None) -> str | None:
        """One paid debate leg; its text, or None when it was refused or produced nothing.
        A repair leg (`fixed` given) is `repaired` only when its answer parses."""
        r = self.run_
        result: LegResult | None = await r.leg(leg_id=r.next_id(suffix), stage="debate", role=role, route=route,
                                               model=seat["alias"], seat_id=seat["id"], prompt=prompt)
        if result is None:
            return None
        conformance = "clean"
        if fixed is not None:
            conformance = "repaired" if result.usable and fixed(result.text or "") else "unstructured"
        r.stat_row(model=seat["alias"], role=role, result=result, conformance=conformance,
                   stage=DEBATE_STAGE, position=seat["position"])
        if file is not None and result.text:
            r.write(file, result.text)
        return result.text if result.usable else None
