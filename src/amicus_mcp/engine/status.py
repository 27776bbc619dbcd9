"""Reading where a wave or leg is, from disk — and noticing when its process died.

A wave document that says `running` while the process that wrote it is gone is not running:
it is rewritten as `crashed` (with every unfinished leg), so every reader sees the truth.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import BadSession
from .store import SessionStore, now_iso, pid_alive

if TYPE_CHECKING:
    from ..documents.legs import LegRun
    from ..documents.wave import Wave

CRASH_REASON = "the fan-out process exited unexpectedly"
LEG_KILLED = "the fan-out process was killed before this leg finished"


def status_of(store: SessionStore, target: str) -> Wave | LegRun:
    if store.wave_path(target).exists():
        return wave_status(store, target)
    if store.leg_path(target).exists():
        return leg_status(store, target)
    raise BadSession(f"no wave or leg '{target}' in {store.root}", hint="check the id, or pass the project it ran in with --project")


def wave_status(store: SessionStore, wave_id: str) -> Wave:
    wave = store.read_wave(wave_id)
    view = observed_wave(wave)
    return wave if view is None else record_crash(store, view)


def leg_status(store: SessionStore, leg_id: str) -> LegRun:
    leg = store.read_leg(leg_id)
    wave_id = leg.wave_id
    if leg.status == "running" and isinstance(wave_id, str) and store.wave_path(wave_id).exists():
        leg = wave_status(store, wave_id).leg_named(leg_id) or leg
    return leg


def observed_wave(wave: Wave) -> Wave | None:
    """The wave as a reader must see it when its process is gone (crashed, with every unfinished
    leg); None when the document tells the truth. Nothing is written here."""
    from ..documents.run import crash_in_flight
    from ..documents.wave import WaveError

    if wave.status != "running" or wave.pid is None or pid_alive(wave.pid):
        return None
    view = wave.copy_doc()
    crash_in_flight(view.legs, LEG_KILLED)
    view.status = "crashed"
    view.error = WaveError(code="CRASHED", message=CRASH_REASON, detected_at=now_iso())
    return view


def record_crash(store: SessionStore, wave: Wave) -> Wave:
    """Write a crashed wave (`observed_wave`'s view) and its crashed legs back."""
    for leg in wave.legs:
        if leg.status == "crashed":
            store.write_leg(leg)
    store.write_wave(wave)
    for session_id in (wave.wave_id, *(leg.leg_id for leg in wave.legs)):
        store.sweep(session_id)  # its writer is dead: no temp file of its will ever be renamed
    return wave
