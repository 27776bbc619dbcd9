"""The verifier (`--verify`): after the votes, a model that did not raise the finding checks it
against its source.

Each Confirmed or Contested finding of severity blocker or major (council/verification.py) goes,
with the source lines it cites, to the run's chair model — never a bench seat, so never the
raiser — which answers holds / refuted / unsure with the lines it relied on. The source excerpts
come from the material the run read (the evidence check's) and, for a file the finding's location
names, from the one read-only, root-confined reader (engine/sources.py): nothing outside the
project roots is read. The legs are ordinary legs (`ask`: cached, resumable, under the ceiling,
in the cost table), one repair each; a verifier that gives no usable answer leaves its finding
unverified and the run says so (a degrade). Where the chair's model supports tool calling, the
verifier may also read the project itself through read-only tools (engine/source_tools.py: a file
or a line range, a search), at most `--verify-tool-calls` calls per finding; the calls are recorded
on its leg (`toolCalls`) and counted on the finding (`verificationToolCalls`). A verifier whose calls
ran out before it answered is recorded `unsure`, saying so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from ..council.anonymize import Anonymized
from ..council.evidence import Source, read_location
from ..council.verification import (MAX_EXCERPT_CHARS, parse_verification, to_verify, verifier_prompt,
                                     verifier_repair_prompt)
from ..vocabulary import REFUTED, UNSURE
from .asking import Contract, ask
from .context import RunContext
from .legs import Row
from .options import flag_of
from .source_tools import Toolbox
from .sources import Refused, SourceReader, referenced_names

STAGE = "verify"
ROW_STAGE = 3  # runStats order: after the debate's rows, before the chair's
CONTEXT_LINES = 8  # lines shown on each side of the cited ones
_AT = re.compile(r"^(?P<name>.+?)(?P<old> \(old side\))?:(?P<first>\d+)(?:-(?P<last>\d+))?$")


def excerpts(finding: Mapping[str, Any], material: Sequence[Source], reader: SourceReader) -> str:
    """The source lines a finding cites: where its quote was found, else what its location names
    (a file inside the project, read through the reader), else the head of the material."""
    windows: list[str] = []
    where = finding.get("evidenceLocation")
    match = _AT.match(where) if isinstance(where, str) else None
    if match:
        side = "old" if match.group("old") else None
        first = int(match.group("first"))
        last = int(match.group("last") or first)
        for source in material:
            if source.name == match.group("name") and (source.side == "old") == (side == "old"):
                windows.append(_window(source, first, last))
                break
    if not windows:
        stated = read_location(finding.get("location"), material)
        lines = stated.lines or (1, 1)
        for pos in sorted(stated.sources):
            windows.append(_window(material[pos], *lines))
        if not windows:
            for name in referenced_names(str(finding.get("location") or ""))[:2]:
                try:
                    rows = reader.read_lines(name, max(lines[0] - CONTEXT_LINES, 1), lines[1] + CONTEXT_LINES)
                except Refused:
                    continue
                if rows:
                    windows.append(_fence(rows[0].path, [(r.number, r.text) for r in rows]))
    if not windows and material:
        head = next((s for s in material if s.name != "briefing"), material[-1])
        windows.append(_fence(head.label, list(head.lines[:80])))
    text = "\n\n".join(windows)
    return text if len(text) <= MAX_EXCERPT_CHARS else text[:MAX_EXCERPT_CHARS] + "\n… (cut)"


def _window(source: Source, first: int, last: int) -> str:
    rows = [(n, t) for n, t in source.lines if first - CONTEXT_LINES <= n <= last + CONTEXT_LINES]
    return _fence(source.label, rows or list(source.lines[:40]))


def _fence(label: str, rows: Sequence[tuple[int, str]]) -> str:
    body = "\n".join(f"{n:>5}  {t}" for n, t in rows)
    fence = "````" if "```" in body else "```"
    return f"{label}\n{fence}\n{body}\n{fence}"


async def run_verify(ctx: RunContext, anon: Anonymized, record: Mapping[str, Any],
                     material: Sequence[Source]) -> None:
    """Verify the findings `to_verify` picks, in place on `anon.findings` (`verification`,
    `verificationLines`, `verificationReason`); a refuted one is said in the run's notices."""
    options = ctx.prep.options
    tiers, severities = options.verify_scope
    picked = to_verify(record, tiers=tiers, severities=severities, most=options.verify_cap)
    ids = picked.ids
    ctx.stage("verify", "running")
    if not ids:
        ctx.plan(0, wave="verify")  # nothing to check: the room pre-flight held for it is the chair's
    if picked.cut:
        flag = flag_of("verify_max")
        ctx.degrade("verify", f"{len(picked.cut)} finding(s) in scope were not verified ({', '.join(picked.cut)})",
                    f"{flag} {options.verify_cap} checks the {options.verify_cap} most severe; raise {flag} to "
                    "check them")
    if not ids:
        ctx.stage("verify", "complete")
        return
    prep = ctx.prep
    reader = SourceReader([prep.store.project])
    scored = {f["id"]: f for f in record["findings"]}
    by_id = {f["id"]: f for f in anon.findings}
    ctx.plan(len(ids), wave="verify")
    route = prep.chair_route
    # The read-only tools, where the chair's model supports tool calling (profiles.py) and the
    # run allows calls (--verify-tool-calls); otherwise the verifier reads the cited material only.
    calls = options.verify_calls if ctx.profile(route).tool_calls else 0

    async def one(index: int, fid: str) -> None:
        finding = by_id[fid]
        contract = Contract(stage=STAGE, parse=parse_verification, max_repairs=1,
                            repair_prompt=lambda failing, parsed: verifier_repair_prompt(parsed["errors"]),
                            repair_id=lambda: ctx.next_id("vfr"))
        prompt = verifier_prompt(finding, scored.get(fid, {}), excerpts(finding, material, reader), date=ctx.date,
                                 tool_calls=calls)
        row = Row(model=prep.chair, role="verifier", stage=ROW_STAGE, position=index + 1)
        toolbox = Toolbox(reader, calls) if calls else None
        answer = await ask(ctx, contract, leg_id=f"{ctx.run_id}-vf{index + 1}", role="verifier", route=route,
                           row=row, prompt=prompt, tools=toolbox)
        if toolbox is not None and answer.first is not None:
            finding["verificationToolCalls"] = len(toolbox.records)
        if not answer.ok and toolbox is not None and toolbox.out_of_room:
            # The money ran out mid-conversation: a loss, as a verifier the ceiling refused up front.
            ctx.degrade("verify", f"finding {fid} was not verified",
                        "the --max-cost ceiling had no room for another tool-calling turn")
            return
        if not answer.ok and toolbox is not None and toolbox.unanswered:
            # It looked, and its calls ran out before it answered: it could not settle it.
            why = f"it used its {toolbox.budget} tool calls and was still calling tools when it had to answer"
            finding["verification"], finding["verificationLines"] = UNSURE, []
            finding["verificationReason"] = f"no answer: {why}"
            ctx.notice(f"the verifier of {fid} is recorded unsure: {why}")
            return
        if not answer.ok:
            why = "the ceiling had no room for it" if answer.first is None else "its verifier gave no usable answer"
            ctx.degrade("verify", f"finding {fid} was not verified", why)
            return
        finding["verification"] = answer.parsed["answer"]
        finding["verificationLines"] = answer.parsed["lines"]
        if answer.parsed["reason"]:
            finding["verificationReason"] = answer.parsed["reason"]

    async with anyio.create_task_group() as group:
        for index, fid in enumerate(ids):
            group.start_soon(one, index, fid)
    for fid in ids:
        finding = by_id[fid]
        if finding.get("verification") == REFUTED:
            tier = scored.get(fid, {}).get("tier")
            reason = f": {finding['verificationReason']}" if finding.get("verificationReason") else ""
            ctx.notice(f"the verifier refuted {fid} ({finding.get('severity')}, {tier}) against the source{reason}; "
                       "it stays in its tier, is marked refuted, and does not block the gate on its own")
    ctx.stage("verify", "complete")
