"""Who is who on a run, and what blind mode shows instead of each model name.

Reviews are labelled `Review A`, `Review B`, … in bench order over the seats that produced
a usable review (the engine's anonymizer); `run.json` keeps label → alias (`labelMap`). A
label is attributed to a seat only when that order and the aliases agree — otherwise the
label stays unattributed rather than guessed; Claude's own review, when the run judged one,
holds the last label under the reserved name `claude`. A seat without a label (dead in Stage 1, or
labels not assigned yet) reads `Seat <position>`, the chair `Chair`.

`masks` lists every model name the run's documents carry — seat ids, aliases, the chair
and each attempted chair, resolved model names, dropped members — with its blind-mode
replacement, longest first. The page applies them to every string it shows while blind
mode is on. Blind mode is a reading aid against anchoring, not a security control — so a seat
that is out of the council (no review to anchor on) keeps its name: its provider error then
reads as the provider wrote it ("failed for model 'x/y'"), not "failed for model 'Seat 3'".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ..council.seats import seat_file_stem
from ..documents.run import LegEntry, RunManifest, SeatRecord
from ..vocabulary import QUESTION

CHAIR_LABEL = "Chair"
CLAUDE = "claude"  # the reserved name of Claude's own review (`--claude-review`): never a seat
SHARED_LABEL = "[model]"
DROPPED_LABEL = "[dropped model]"


def seat_labels(run_dir: Path, doc: RunManifest, seats: Sequence[SeatRecord]) -> tuple[dict[str, str], list[str]]:
    """(seat id → review label, notes about labels that could not be attributed)."""
    label_map = doc.label_map
    if not label_map:
        return {}, []
    labels = sorted(label_map, key=lambda k: (len(k), k))
    usable = [s for s in seats if reviewed(run_dir, doc, s)]
    out: dict[str, str] = {}
    for label, seat in zip(labels, usable, strict=False):  # fewer labels: the rest were not labelled
        if label_map.get(label) != seat.alias:
            return out, [f"{label} could not be matched to a seat: the run's label map and its reviews disagree"]
        out[seat.id] = label
    missing = labels[len(out):]
    if len(missing) == 1 and label_map.get(missing[0]) == CLAUDE:  # Claude's own review: always the last label
        out[CLAUDE] = missing.pop()
    notes = [f"{', '.join(missing)} could not be matched to a seat"] if missing else []
    return out, notes


def stage1_prefix(doc: RunManifest) -> str:
    """The Stage-1 files' prefix: `review-<seat>.md`, or a question council's `answer-<seat>.md`."""
    return "answer" if doc.intent == QUESTION else "review"


def reviewed(run_dir: Path, doc: RunManifest, seat: SeatRecord) -> bool:
    """Whether the seat produced a usable Stage-1 review (or answer): its first leg completed
    and its review file holds text (exactly the seats the anonymizer labelled)."""
    primary = primary_leg(doc, seat.id)
    if primary is None or primary.status != "complete":
        return False
    path = run_dir / f"{stage1_prefix(doc)}-{seat_file_stem(seat.id)}.md"
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return bool(handle.read(4096).strip())
    except OSError:
        return False


def primary_leg(doc: RunManifest, seat_id: str) -> LegEntry | None:
    """The seat's first Stage-1 leg (its review), if it launched."""
    return next((leg for leg in doc.legs if leg.stage == "stage1" and leg.role == "seat" and leg.seat == seat_id), None)


def display_label(seat: SeatRecord, labels: Mapping[str, str]) -> str:
    return labels.get(seat.id) or f"Seat {seat.position}"


def masks(doc: RunManifest, seats: Sequence[SeatRecord], labels: Mapping[str, str],
          extra_models: Iterable[str] = (), *, unmasked: Iterable[str] = ()) -> list[list[str]]:
    """[[model name, blind label], …], longest name first. The seats in `unmasked` (out of the
    council: no review) are not masked, unless a name of theirs is also another's."""
    out = set(unmasked)
    free = {name for seat in seats if seat.id in out for name in (seat.id, seat_file_stem(seat.id), seat.alias)}
    free |= {leg.resolved_model for leg in doc.legs if leg.seat in out and leg.resolved_model}
    owners: dict[str, set[str]] = {}

    def own(name: object, label: str) -> None:
        if isinstance(name, str) and name.strip():
            owners.setdefault(name, set()).add(label)

    by_alias: dict[str, list[str]] = {}
    for seat in seats:
        if seat.id in out:
            continue
        label = display_label(seat, labels)
        own(seat.id, label)
        own(seat_file_stem(seat.id), label)  # file names carry it
        by_alias.setdefault(seat.alias, []).append(label)
    for alias, seat_labels_ in by_alias.items():
        own(alias, seat_labels_[0] if len(seat_labels_) == 1 else " / ".join(seat_labels_))
    if CLAUDE in labels:
        own(CLAUDE, labels[CLAUDE])
    for name in _chair_names(doc):
        own(name, CHAIR_LABEL)
    seat_label = {s.id: display_label(s, labels) for s in seats}
    for leg in doc.legs:
        if leg.seat:  # its `model` is the seat's alias, owned above
            if leg.seat not in out:
                own(leg.resolved_model, seat_label.get(leg.seat, SHARED_LABEL))
            continue
        owner = CHAIR_LABEL if leg.stage == "chair" else SHARED_LABEL
        own(leg.model, owner)
        own(leg.resolved_model, owner)
    for member in doc.dropped_members:
        own(member.member, DROPPED_LABEL)
    for name in extra_models:
        if name not in owners and name not in free:
            own(name, SHARED_LABEL)
    table = [[name, next(iter(found)) if len(found) == 1 else SHARED_LABEL] for name, found in owners.items()]
    return sorted(table, key=lambda pair: (-len(pair[0]), pair[0]))


def _chair_names(doc: RunManifest) -> list[str | None]:
    names: list[str | None] = [doc.chair]
    names += [a.model for a in doc.chair_attempts]
    names += [s.model for s in doc.stages if s.name == "chair"]
    return names
