"""Finished legs on disk, keyed by what was asked: what lets a resumed run re-send nothing.

Every leg the provider answered (complete, error or timeout) is written to
`<runDir>/legs/<key>.json` before run.json records it. The key is the sha256 of everything
that decides the answer — the provider and model, the seat asking, the prompt, the schema
actually sent, the output cap — plus the ordinal of that content in the run (the chair's
retry repeats its first attempt word for word; it is the second occurrence, not the same
leg). Leg ids are no key: repair ids come from counters that follow finish order.

A run resumed from its directory asks the same things in the same order (its prompts are
byte-identical: same briefing, date and seats), so each finished leg is found by its key
and reused as is; a leg that was in flight when the process died has no file and is sent
again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..errors import AmicusError
from ..fsio import atomic_write_json, read_json
from ..providers.routing import Route

LEGS_DIR = "legs"
FINISHED = ("complete", "error", "timeout")
_FIELDS = ("status", "text", "usage", "resolvedModel", "durationMs", "error", "truncated", "startedAt", "completedAt")


def leg_key(route: Route, *, seat_id: str | None, prompt: str, schema: dict[str, Any] | None,
            max_tokens: int | None, ordinal: int) -> str:
    """The content key of one leg (hex sha256)."""
    material = json.dumps({"provider": route.provider, "model": route.model, "seat": seat_id, "prompt": prompt,
                           "schema": schema, "maxTokens": max_tokens, "ordinal": ordinal},
                          sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def base_key(route: Route, *, seat_id: str | None, prompt: str, schema: dict[str, Any] | None,
             max_tokens: int | None) -> str:
    """What counts as "the same leg" for the ordinal (the key without it)."""
    return leg_key(route, seat_id=seat_id, prompt=prompt, schema=schema, max_tokens=max_tokens, ordinal=-1)


def read_finished(run_dir: Path, key: str) -> dict[str, Any] | None:
    """The finished leg stored under `key`, or None (absent, unreadable or not finished)."""
    path = run_dir / LEGS_DIR / f"{key}.json"
    if not path.is_file():
        return None
    try:
        doc = read_json(path, what="finished leg")
    except AmicusError:
        return None  # a damaged file is a leg to send again, never a reason to stop
    if not isinstance(doc, dict) or doc.get("type") != "council-leg" or doc.get("key") != key:
        return None
    return doc if doc.get("status") in FINISHED else None


def write_finished(run_dir: Path, key: str, *, leg_id: str, stage: str, role: str, model: str,
                   result: dict[str, Any]) -> None:
    doc: dict[str, Any] = {"schemaVersion": 2, "type": "council-leg", "key": key, "legId": leg_id, "stage": stage,
                           "role": role, "model": model}
    doc.update({name: result.get(name) for name in _FIELDS})
    doc["truncated"] = bool(doc["truncated"])
    atomic_write_json(run_dir / LEGS_DIR / f"{key}.json", doc)


def finished_by_id(run_dir: Path, leg_id: str) -> dict[str, Any] | None:
    """The finished leg a run recorded under the leg id `leg_id` (the last one, when a resumed
    run answered it again), or None. By id, not key, so it reads every file: for readers, never
    for the run itself."""
    found: list[dict[str, Any]] = []
    for path in sorted((run_dir / LEGS_DIR).glob("*.json")):
        try:
            doc = read_json(path, what="finished leg")
        except AmicusError:
            continue
        if isinstance(doc, dict) and doc.get("type") == "council-leg" and doc.get("legId") == leg_id:
            found.append(doc)
    return max(found, key=lambda doc: str(doc.get("completedAt") or "")) if found else None
