"""Ask, parse, repair, degrade: the one routine every stage's model answers go through.

A stage describes one kind of answer as a `Contract` — how to read it, how to ask again
when it cannot be read, how a repaired answer joins the original — and calls `ask()`. The
routine owns everything else, the same way for every stage:

- the first leg and every repair leg go through `RunContext.leg` (budget claims, run.json);
- at most `max_repairs` repairs, none once the cost ceiling is reached;
- a repair the contract refuses (Stage 1: one that changes the findings count — a repair
  fixes form, never substance) is noted and does not count as a fix;
- a structured reply the schema refused is read like any other reply, and its parse carries the
  schema's reason (`SCHEMA_MISMATCH`) in place of the parser's complaint about the bare JSON
  (`NO_FENCED_BLOCK`), so the repair prompt, the stage's notice and run.json say what was wrong;
- the stat rows: one per repair leg, labelled `repaired` only when that repair fixed the
  answer (else `unstructured`), and the answer's own row with its final conformance
  (`clean`, `repaired` or `unstructured`; a dead leg has nothing to conform and stays `clean`).

What an unusable answer means — a dead seat, a dropped judge, a chair to promote past, an
undefended finding — is the stage's call: `ask()` reports, the stage degrades.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..providers.routing import Route
from ..schemas import JsonObject, JsonSchema
from .context import RunContext
from .legs import LegResult, Row
from .source_tools import Toolbox

# At least {"ok": bool, "errors": [{code, detail}]}: each contract's parser returns its own TypedDict.
Parsed = Mapping[str, Any]
SCHEMA_MISMATCH = "SCHEMA_MISMATCH"
# What a parser says of a structured reply's bare JSON (no fence): true, and beside the point.
_BLOCK_READ_ERRORS = frozenset({"NO_FENCED_BLOCK", "NOT_PARSEABLE"})


class Contract(NamedTuple):
    """One kind of answer: how it is read, and how the run asks again when it cannot be."""

    stage: str  # the legs' stage in run.json
    parse: Callable[[str], Parsed]
    repair_prompt: Callable[[str, Parsed], str]  # (the failing answer, its parse) → the repair prompt
    repair_id: Callable[[], str]  # the next repair leg's id
    max_repairs: int = 2
    schema: JsonSchema | None = None  # sent wherever the model's profile honours it
    to_text: Callable[[JsonObject], str] | None = None  # a structured answer as its document
    repair_empty: bool = False  # an empty reply is asked again too (else it is a dead leg)
    refuse: Callable[[str, Parsed], str | None] = lambda failing, fixed: None  # why a parsed repair is refused
    merge: Callable[[str, str, Parsed], str] = lambda original, repair, parsed: repair


@dataclass
class Answer:
    first: LegResult | None  # None: the launch was refused for cost
    text: str  # the answer as the run keeps it (a merged repair included)
    parsed: Parsed  # the accepted parse, else the failing one
    conformance: str  # clean | repaired | unstructured
    dead: bool = False  # the model gave nothing to parse: refused for cost, failed, or empty
    repairs: list[LegResult] = field(default_factory=list)
    repair_refused: bool = False

    @property
    def ok(self) -> bool:
        return bool(self.parsed.get("ok"))

    def reason(self, most: int = 3) -> str:
        """Why the answer does not conform: its first errors as `CODE: detail`."""
        return "; ".join(f"{e['code']}: {e['detail']}" for e in self.parsed.get("errors", [])[:most])


def read(contract: Contract, result: LegResult) -> Parsed:
    """A leg's reply parsed by the contract; a schema mismatch the provider found is the reason."""
    parsed = contract.parse(result.text or "") if result.usable else contract.parse("")
    if result.schema_mismatch and not parsed.get("ok"):
        others = [e for e in parsed.get("errors", []) if e["code"] not in _BLOCK_READ_ERRORS]
        parsed = {**parsed, "errors": [{"code": SCHEMA_MISMATCH, "detail": result.schema_mismatch}, *others]}
    return parsed


async def ask(ctx: RunContext, contract: Contract, *, leg_id: str, role: str, route: Route, row: Row,
              prompt: str, seat_id: str | None = None, dead_row: Row | None = None,
              tools: Toolbox | None = None) -> Answer:
    """The first leg, its parse, then bounded repairs; records every stat row of the answer.
    `seat_id` names the seat on the legs; `dead_row`, when given, is the row of a leg that
    gave nothing to parse; `tools`, read-only tools the first leg is offered (a repair fixes
    form, so it is offered none)."""
    # What every leg of this answer shares, the first and its repairs.
    launch = functools.partial(ctx.leg, stage=contract.stage, route=route, model=row.model, seat_id=seat_id,
                               schema=contract.schema, to_text=contract.to_text)
    first = await launch(leg_id=leg_id, role=role, prompt=prompt, tools=tools)
    if first is None:
        return Answer(None, "", contract.parse(""), "clean", dead=True)
    if first.status != "complete" or (not first.usable and not contract.repair_empty):
        ctx.stat_row(dead_row or row, first)
        return Answer(first, first.text or "", contract.parse(""), "clean", dead=True)

    answer = Answer(first, first.text or "", read(contract, first), "clean")
    if not answer.ok:
        await _repair(ctx, contract, answer, route=route, row=row, launch=launch)
    ctx.stat_row(row, first, answer.conformance, repair_refused=answer.repair_refused)
    return answer


async def _repair(ctx: RunContext, contract: Contract, answer: Answer, *, route: Route, row: Row,
                  launch: Callable[..., Awaitable[LegResult | None]]) -> None:
    failing_text, failing = answer.text, answer.parsed
    repair_row = row._replace(role="repair", seat_id=None, was_chair=False)
    for _ in range(contract.max_repairs):
        if ctx.exhausted:
            break
        repair = await launch(leg_id=contract.repair_id(), role="repair",
                              prompt=contract.repair_prompt(failing_text, failing))
        if repair is None:
            break
        answer.repairs.append(repair)
        fixed = read(contract, repair)
        refusal = contract.refuse(failing_text, fixed) if fixed["ok"] else None
        ctx.stat_row(repair_row, repair, "repaired" if fixed["ok"] and refusal is None else "unstructured")
        if refusal is not None:
            answer.repair_refused = True
            ctx.notice(refusal)
            continue
        if fixed["ok"]:
            answer.text = contract.merge(failing_text, repair.text or "", fixed)
            answer.parsed, answer.conformance = fixed, "repaired"
            return
    answer.conformance = "unstructured"
