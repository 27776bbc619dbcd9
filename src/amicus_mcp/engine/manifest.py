"""A council run's first manifest, and the inputs a resume checks it against.

    initial_manifest   the `running` run.json a run starts from (the MCP handler seeds the same
                       document before its worker starts)
    write_inputs       options.json and the briefing copy: what a worker (or a resumed run)
                       reads back
    sha256_text, options_sha256
                       the hashes run.json records of those inputs (`briefingSha256`,
                       `optionsSha256`, `claudeReviewSha256`): a resume refuses inputs that
                       changed since

run.json's records of where the briefing came from (template, artifact, pack) are the
documents' own (`documents.run.input_records`, `records_of`): pre-flight, the worker and a
resume read them without the manifest's first form.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, TypedDict

from ..documents.run import DebateSummary, DroppedMember, OptionsRecord, RunManifest, SeatRecord
from ..vocabulary import ANSWERING_INTENTS, AnsweringIntent
from .options import RunOptions, write_options
from .run_dir import BRIEFING
from .store import now_iso

if TYPE_CHECKING:
    from .preflight import Prepared


class _Tag(TypedDict, total=False):
    tag: str


class _Intent(TypedDict, total=False):
    intent: AnsweringIntent


def initial_manifest(prep: Prepared) -> RunManifest:
    """The `running` run.json a run starts from."""
    options = prep.options
    assert options.timeout_min is not None  # pre-flight set the default
    # Emitted when set, in their place in the key order: a review's run.json has no intent.
    tag: _Tag = {"tag": options.tag} if options.tag else {}
    intent: _Intent = {"intent": options.intent} if options.intent in ANSWERING_INTENTS else {}
    manifest = RunManifest(
        run_id=prep.run_id, **tag, status="running", stages=[],
        bench=[seat["alias"] for seat in prep.seats], chair=prep.chair, **intent,
        critic=next((seat["alias"] for seat in prep.seats if seat["role"] == "critic"), None),
        lenses=sorted(seat["lens"] for seat in prep.seats if seat["lens"]) or None,
        label_map=None, seats=[SeatRecord.model_validate(dict(seat)) for seat in prep.seats],
        options=OptionsRecord(timeout=options.timeout_min, max_cost=options.max_cost,
                              gateway=options.gateway or "auto", out_dir=str(prep.run_dir)),  # type: ignore[arg-type]
        usage=None, legs=[],
        # The planned total from the start: every seat, every judge and the chair of a fixed bench.
        legs_planned=len(prep.plan.legs) if prep.plan is not None else len(prep.seats),
        chair_attempts=[], created_at=now_iso(),
        # What a resume checks before reusing anything: the inputs it would brief off again.
        briefing_sha256=sha256_text(prep.briefing), options_sha256=options_sha256(options),
    )
    if prep.claude_review is not None:
        manifest.claude_review_sha256 = sha256_text(prep.claude_review)
    if prep.dropped:
        manifest.dropped_members = [DroppedMember.model_validate(d) for d in prep.dropped]
    for name, record in prep.records.items():
        setattr(manifest, name, record)
    if options.debate:
        manifest.debate = DebateSummary(enabled=True, outcome="nothing-to-debate")
    return manifest


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def options_sha256(options: RunOptions) -> str:
    """The hash of the options document (key order aside), as options.json holds it."""
    return sha256_text(json.dumps(options.document(), sort_keys=True, ensure_ascii=False))


def write_inputs(prep: Prepared) -> None:
    """options.json and the briefing copy: what a worker (or a resumed run) reads back."""
    prep.run_dir.mkdir(parents=True, exist_ok=True)
    prep.dir.write_text(BRIEFING, prep.briefing)
    write_options(prep.run_dir, prep.options)
