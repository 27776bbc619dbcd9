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

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, cast

import anyio

from ..council import debate
from ..council.anonymize import Anonymized, JudgeAnswer
from ..council.parse import parse_defense, parse_revote
from ..council.seats import seat_file_stem
from ..council.tally import tally
from ..vocabulary import REVOTED_ACTIONS
from .asking import Contract, Parsed, ask
from .context import RunContext
from .legs import Row
from .run_dir import DEBATE, TALLY_PROVISIONAL

if TYPE_CHECKING:
    from ..documents.council import DebateFinding, DebateRecord, DebateRevote, JsonValue, TallyRecord
    from ..vocabulary import DebatedTier
    from ..documents.tally import Decision, TallyInput

DEBATE_STAGE = 3  # runStats order: after Stage 2's rows, before the chair's
# Each debate answer's schema (for models held to one) and its document form.
STRUCTURED = {
    "defense": (debate.defense_output_schema, debate.defense_from_structured),
    "revote": (debate.revote_output_schema, debate.revote_from_structured),
}


class DebateRound:
    def __init__(self, ctx: RunContext, anon: Anonymized, judges: Sequence[JudgeAnswer], provisional: TallyRecord,
                 base_input: TallyInput, judge_prose: Mapping[str, str]):
        self.ctx = ctx
        self.anon = anon
        self.judges = judges
        self.provisional = provisional
        self.base_input = base_input  # the provisional tally's input (runStats as of Stage 2)
        self.judge_prose = judge_prose
        self.final_record = provisional
        self.outcome = debate.DebateOutcome()
        self.targets: list[debate.DebateTarget] = []

    # -- what the rest of the run reads -------------------------------------------------

    def reassemble(self, tally_input_doc: TallyInput) -> TallyInput:
        return debate.reassemble(tally_input_doc, self.provisional, self.outcome)

    def decisions(self) -> list[Decision]:
        return debate.withdrawn_decisions(self.outcome)

    # -- the round ----------------------------------------------------------------------

    async def run(self) -> DebateRound:
        ctx = self.ctx
        self.targets = debate.targets(self.base_input, self.provisional, self.judge_prose)
        if not self.targets:
            self.set_outcome("nothing-to-debate")
            return self
        if ctx.exhausted:
            self.skip_for_cost("before the defense")
            return self

        # The debate artifacts exist only for a round that ran (seed, "Debate mode").
        ctx.write_json(TALLY_PROVISIONAL, self.provisional)
        await self.defense()
        if not any(t.disputers for t in self.targets if self.answer(t) in REVOTED_ACTIONS):
            return self.finish(revote_judges=0)
        if ctx.exhausted:  # the defense ran: its answers stand and the round is on record
            ctx.degrade("debate", "debate round skipped", "the --max-cost ceiling was reached before the re-vote")
            return self.finish(revote_judges=0, outcome="skipped-cost-ceiling")
        judges = await self.revote()
        return self.finish(revote_judges=judges)

    def answer(self, target: debate.DebateTarget) -> str:
        response = self.outcome.responses.get(target.finding["id"])
        return response["action"] if response is not None else "no-response"

    def set_outcome(self, outcome: str) -> None:
        self.ctx.state.set_debate({"enabled": True, "outcome": outcome})
        self.ctx.checkpoint()

    def skip_for_cost(self, when: str) -> None:
        self.set_outcome("skipped-cost-ceiling")
        self.ctx.degrade("debate", "debate round skipped", f"the --max-cost ceiling was reached {when}")

    def finish(self, *, revote_judges: int, outcome: str = "ran") -> DebateRound:
        self.final_record = tally(self.reassemble(self.base_input))
        summary = debate.summary(self.targets, self.outcome, self.provisional, self.final_record, revote_judges=revote_judges)
        summary["outcome"] = outcome
        self.ctx.state.set_debate(summary)
        self.ctx.write_json(DEBATE, self.record(summary))
        self.ctx.checkpoint()
        return self

    def record(self, summary: dict[str, JsonValue]) -> DebateRecord:
        """debate.json: the round finding by finding."""
        tiers = {f["id"]: f["tier"] for f in self.final_record["findings"]}
        rows: list[DebateFinding] = []
        for target in self.targets:
            fid = target.finding["id"]
            response = self.outcome.responses.get(fid, {"action": "no-response"})
            # In the disputers' (bench) order, whatever order their re-vote legs finished in.
            revotes = [{"judge": seat, **self.outcome.revotes[seat][fid]} for seat in target.disputers
                       if fid in self.outcome.revotes.get(seat, {})]
            # A target is Contested or Disputed (debate.targets); a re-vote's verdict one the parser took.
            row: DebateFinding = {"id": fid, "raiser": target.finding.get("raiser"),
                                  "previousTier": cast("DebatedTier", target.tier), "tier": tiers.get(fid),
                                  "action": response["action"], "disputers": target.disputers,
                                  "revotes": cast("list[DebateRevote]", revotes)}
            for key in ("argument", "claim"):
                if key in response:
                    row[key] = response[key]
            rows.append(row)
        return {"schemaVersion": 2, "type": "council-debate", "runId": self.ctx.run_id,
                "summary": summary, "findings": rows}

    # -- defense ------------------------------------------------------------------------

    def raiser_seat(self, target: debate.DebateTarget) -> str:
        return target.finding.get("raiserSeat") or target.finding.get("raiser") or ""

    async def defense(self) -> None:
        self.ctx.stage("debate-defense", "running", wave_id=f"{self.ctx.run_id}-dr")
        by_raiser: dict[str, list[debate.DebateTarget]] = {}
        for target in self.targets:
            seat = self.raiser_seat(target)
            if seat == "claude":  # the reserved review never defends: its claims stand
                self.outcome.responses[target.finding["id"]] = {"action": "no-response"}
                continue
            by_raiser.setdefault(seat, []).append(target)
        self.ctx.plan(len(by_raiser), wave="debate")
        async with anyio.create_task_group() as group:
            for seat_id, owned in by_raiser.items():
                group.start_soon(self.defend, seat_id, owned)
        self.ctx.stage("debate-defense", "complete")

    async def defend(self, seat_id: str, owned: list[debate.DebateTarget]) -> None:
        ids = [t.finding["id"] for t in owned]
        question = self.ctx.prep.options.question
        parsed = await self.ask(seat_id, kind="defense", role="rebuttal", suffix="dr", ids=ids,
                                prompt=debate.defense_brief(owned, question=question),
                                file=f"rebuttal-{seat_file_stem(seat_id)}.md", parse=lambda text: parse_defense(text, ids),
                                unusable=("defense", f"its {'key claims' if question else 'findings'} stand undefended"))
        for fid in ids:
            self.outcome.responses[fid] = parsed["responses"].get(fid, {"action": "no-response"})

    # -- re-vote ------------------------------------------------------------------------

    async def revote(self) -> int:
        ctx = self.ctx
        ctx.stage("debate-revote", "running", wave_id=f"{ctx.run_id}-rv")
        answered = {t.finding["id"]: t for t in self.targets if self.answer(t) in REVOTED_ACTIONS}
        bundle = debate.revote_bundle(answered, self.outcome.responses, question=ctx.prep.options.question)
        ctx.write("revote-bundle.md", bundle)
        asked: dict[str, list[str]] = {}
        for fid, target in answered.items():
            for seat in target.disputers:
                asked.setdefault(seat, []).append(fid)
        ctx.plan(len(asked), wave="debate")
        async with anyio.create_task_group() as group:
            for seat_id, ids in asked.items():
                group.start_soon(self.revote_one, seat_id, ids, bundle)
        ctx.stage("debate-revote", "complete")
        return len(asked)

    async def revote_one(self, seat_id: str, ids: list[str], bundle: str) -> None:
        parsed = await self.ask(seat_id, kind="revote", role="revote", suffix="rv", ids=ids, prompt=bundle,
                                file=f"revote-{seat_file_stem(seat_id)}.md", parse=lambda text: parse_revote(text, ids),
                                unusable=("re-vote", "its original verdicts stand"))
        self.outcome.revotes[seat_id] = {fid: vote for fid, vote in parsed["revotes"].items() if fid in ids}

    # -- one debate answer --------------------------------------------------------------

    async def ask(self, seat_id: str, *, kind: str, role: str, suffix: str, ids: list[str], prompt: str, file: str,
                  parse: Callable[[str], Parsed], unusable: tuple[str, str]) -> Parsed:
        """One debate answer with exactly one repair. An answer that never parses is a degrade,
        and its parse (of nothing) is the "originals stand" result the caller falls back on."""
        ctx = self.ctx
        seat, route = ctx.prep.seat_route(seat_id)
        schema, to_text = STRUCTURED[kind]
        contract = Contract(stage="debate", parse=parse, max_repairs=1,
                            repair_prompt=lambda failing, parsed: debate.debate_repair_prompt(
                                failing, parsed["errors"], kind, ids),
                            repair_id=lambda: ctx.next_id(f"{suffix}r"),
                            schema=schema(ids, compact=ctx.profile(route).compact), to_text=to_text)
        answer = await ask(ctx, contract, leg_id=ctx.next_id(suffix), role=role, route=route, prompt=prompt,
                           row=Row(model=seat["alias"], role=role, stage=DEBATE_STAGE, position=seat["position"]),
                           seat_id=seat_id)
        if answer.first is not None and answer.first.text and answer.first.usable:
            ctx.write(file, answer.first.text)
        if not answer.ok:
            what, effect = unusable
            ctx.degrade("debate", f"{what} by {seat_id} unusable", effect)
        return answer.parsed
