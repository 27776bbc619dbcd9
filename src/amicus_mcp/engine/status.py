"""Reading where a wave or leg is, from disk — and noticing when its process died.

A wave document that says `running` while the process that wrote it is gone is not running:
it is rewritten as `crashed` (with every unfinished leg), so every reader sees the truth.
"""

from __future__ import annotations

from typing import Any

from ..errors import BadSession
from .store import SessionStore, now_iso, pid_alive

CRASH_REASON = "the fan-out process exited unexpectedly"
LEG_KILLED = "the fan-out process was killed before this leg finished"


def status_of(store: SessionStore, task_id: str) -> dict[str, Any]:
    if store.wave_path(task_id).exists():
        return wave_status(store, task_id)
    if (store.task_dir(task_id) / "run.json").exists():
        return leg_status(store, task_id)
    raise BadSession(f"no wave or leg '{task_id}' in {store.root}", hint="check the id, or pass the project it ran in with --project")


def wave_status(store: SessionStore, wave_id: str) -> dict[str, Any]:
    wave = store.read_wave(wave_id)
    view = observed_wave(wave)
    return wave if view is None else record_crash(store, view)


def leg_status(store: SessionStore, leg_id: str) -> dict[str, Any]:
    leg = store.read_leg(leg_id)
    wave_id = leg.get("waveId")
    if leg.get("status") == "running" and isinstance(wave_id, str) and store.wave_path(wave_id).exists():
        wave = wave_status(store, wave_id)
        leg = next((l for l in wave["legs"] if l["taskId"] == leg_id), leg)
    return leg


def observed_wave(wave: dict[str, Any]) -> dict[str, Any] | None:
    """The wave as a reader must see it when its process is gone (crashed, with every unfinished
    leg); None when the document tells the truth. Nothing is written here."""
    if wave.get("status") != "running" or "pid" not in wave or pid_alive(wave["pid"]):
        return None
    legs = [{**leg, "status": "crashed", "completedAt": None, "error": {"code": "CRASHED", "message": LEG_KILLED}}
            if leg.get("status") == "running" else leg for leg in wave.get("legs") or []]
    return {**wave, "legs": legs, "status": "crashed",
            "error": {"code": "CRASHED", "message": CRASH_REASON, "detectedAt": now_iso()}}


def record_crash(store: SessionStore, wave: dict[str, Any]) -> dict[str, Any]:
    """Write a crashed wave (`observed_wave`'s view) and its crashed legs back."""
    for leg in wave["legs"]:
        if leg.get("status") == "crashed":
            store.write_leg(leg)
    store.write_wave(wave)
    for task_id in (wave["waveId"], *(leg["taskId"] for leg in wave["legs"])):
        store.sweep(task_id)  # its writer is dead: no temp file of its will ever be renamed
    return wave
