"""Finished legs on disk, keyed by what was asked: what lets a resumed run re-send nothing.

Every leg the provider answered (complete, error or timeout) is written to
`<runDir>/legs/<key>.json` before run.json records it. The key is the sha256 of everything
that decides the answer — the provider and model, the seat asking, the prompt, the schema
actually sent, the stage's nominal output cap (not the cap a tight ceiling fitted, which a
resumed run may fit differently) — plus the ordinal of that content in the run (the chair's
retry repeats its first attempt word for word; it is the second occurrence, not the same
leg). Leg ids are no key: repair ids come from counters that follow finish order.

A run resumed from its directory asks the same things in the same order (its prompts are
byte-identical: same briefing, date and seats), so each finished leg is found by its key
and reused as is; a leg that was in flight when the process died has no file and is sent
again; so is a leg whose file is damaged (unreadable, not a council-leg document, or not this
leg's), and the run says so in a notice: it is paid for a second time.

Every launch is on disk too, before its request is sent: `<key>.<attempt>.launch` (`attempt` is
0 for the first, then one more per resume). A launch whose attempt never wrote the answer was in
flight when that attempt stopped — the provider probably finished and billed it — so a resumed
run counts it (`lost_launches`): its cost is unknown, and the ceiling keeps its reservation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..documents.legs import FinishedLeg, InterruptedLeg, LaunchRecord
from ..documents.run import LegEntry
from ..errors import AmicusError
from ..fsio import atomic_write_json, read_json
from ..providers.routing import Route
from ..vocabulary import LEG_OUTCOMES
from .run_dir import RunDir

if TYPE_CHECKING:
    from ..schemas import JsonSchema


def leg_key(route: Route, *, seat_id: str | None, prompt: str, schema: JsonSchema | None,
            max_tokens: int | None, ordinal: int, tools: object = None) -> str:
    """The content key of one leg (hex sha256). `tools`: what a tool-calling leg was offered
    (its tools and budget), in the key only when set, so every other leg's key is unchanged."""
    doc: dict[str, object] = {"provider": route.provider, "model": route.model, "seat": seat_id, "prompt": prompt,
                           "schema": schema, "maxTokens": max_tokens, "ordinal": ordinal}
    if tools is not None:
        doc["tools"] = tools
    material = json.dumps(doc, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def base_key(route: Route, *, seat_id: str | None, prompt: str, schema: JsonSchema | None,
             max_tokens: int | None, tools: object = None) -> str:
    """What counts as "the same leg" for the ordinal (the key without it)."""
    return leg_key(route, seat_id=seat_id, prompt=prompt, schema=schema, max_tokens=max_tokens, ordinal=-1,
                   tools=tools)


def read_finished(run_dir: RunDir, key: str, *, damaged: Callable[[str], None] | None = None) -> FinishedLeg | None:
    """The finished leg stored under `key`, or None (absent, unreadable or not finished). A file
    that is there but cannot be used is reported to `damaged` with why: that leg is sent again."""
    path = run_dir.legs_path / f"{key}.json"
    if not path.is_file():
        return None
    try:
        doc = read_json(path, what="finished leg")
    except AmicusError as err:
        _damaged(damaged, err.message)  # a leg to send again, never a reason to stop
        return None
    if not isinstance(doc, dict) or doc.get("type") != "council-leg" or doc.get("key") != key:
        _damaged(damaged, "it is not this leg's council-leg document")
        return None
    if doc.get("status") not in LEG_OUTCOMES:
        _damaged(damaged, f"its status is {doc.get('status')!r}, not a finished leg's")
        return None
    try:
        return FinishedLeg.parse(doc, what="council-leg document")
    except AmicusError as err:
        _damaged(damaged, err.message)
        return None


def _damaged(report: Callable[[str], None] | None, why: str) -> None:
    if report is not None:
        report(why)
    return None


def write_finished(run_dir: RunDir, leg: FinishedLeg) -> None:
    atomic_write_json(run_dir.legs_path / f"{leg.key}.json", leg.to_doc())


LAUNCH_SUFFIX = ".launch"


def write_launch(run_dir: RunDir, key: str, *, attempt: int, entry: LegEntry) -> None:
    """Record a launch (its run.json leg entry, with what it reserved) before it is sent."""
    doc = entry.to_doc()
    record = LaunchRecord.model_validate({"key": key, **{k: doc[k] for k in _LAUNCH_FIELDS if k in doc}})
    atomic_write_json(run_dir.legs_path / f"{key}.{attempt}{LAUNCH_SUFFIX}", record.to_doc())


_LAUNCH_FIELDS = ("id", "stage", "role", "model", "seat", "startedAt", "reserved")


def lost_launches(run_dir: RunDir) -> list[InterruptedLeg]:
    """Every launch of an earlier attempt whose answer that attempt never saved, oldest first."""
    lost: list[tuple[str, InterruptedLeg]] = []
    for path in sorted(run_dir.legs_path.glob(f"*{LAUNCH_SUFFIX}")):
        try:
            launch = LaunchRecord.parse(read_json(path, what="leg launch record"), what="leg launch record")
        except AmicusError:
            continue  # a torn record of a launch that may never have been sent: nothing to count
        finished = read_finished(run_dir, launch.key)
        if finished is not None and (finished.leg_id, finished.started_at) == (launch.id, launch.started_at):
            continue  # this launch's own answer
        doc = launch.to_doc()
        lost.append((str(launch.started_at), InterruptedLeg.model_validate({k: doc[k] for k in _LAUNCH_FIELDS if k in doc})))
    return [leg for _, leg in sorted(lost, key=lambda item: item[0])]


def finished_by_id(run_dir: RunDir, leg_id: str) -> FinishedLeg | None:
    """The finished leg a run recorded under the leg id `leg_id` (the last one, when a resumed
    run answered it again), or None. By id, not key, so it reads every file: for readers, never
    for the run itself."""
    found: list[FinishedLeg] = []
    for path in sorted(run_dir.legs_path.glob("*.json")):
        try:
            doc = read_json(path, what="finished leg")
            if isinstance(doc, dict) and doc.get("type") == "council-leg" and doc.get("legId") == leg_id:
                found.append(FinishedLeg.parse(doc, what="council-leg document"))
        except AmicusError:
            continue
    return max(found, key=lambda leg: leg.completed_at) if found else None
