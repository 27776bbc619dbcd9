"""Where long work keeps its state: the per-project sessions directory.

All state lives on disk so every front (CLI, MCP server, workspace) and every process sees the
same truth, and a wave or run survives the process that started it:

    <project>/.claude/amicus_sessions/
        <waveId>/wave.json          the wave document, rewritten atomically as legs finish
        <waveId>/briefing.md        the prompt every leg received
        <waveId>-<n>/run.json       each leg's run document
        <waveId>-<n>/output.md      the leg's output text, as the model wrote it

Ids are 8 lowercase hex characters (leg ids add `-<n>`); nothing model-written ever names a
file here.
"""

from __future__ import annotations

import os
import re
import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadArgs, BadSession
from ..fsio import atomic_write_json, atomic_write_text, checked_name, pid_alive, read_json, sweep_temp_files
from ..places import PROJECT_ENV
from .run_dir import BRIEFING, LEG_FILE

if TYPE_CHECKING:
    from ..documents.legs import LegRun
    from ..documents.wave import Wave

__all__ = ["SESSIONS_DIR", "SessionStore", "new_id", "now_iso", "pid_alive", "resolve_project"]

SESSIONS_DIR = Path(".claude") / "amicus_sessions"
WAVE = "wave.json"
# A wave leg's own document (documents.legs.LegRun) in its leg directory. Not a council run's
# manifest (run_dir.MANIFEST), though it has the same file name: the sessions users already have
# keep it, so the name stays and only the Python name tells the two apart.
ID_SHAPE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # a council run's, a wave's, a leg's or an eval run's id


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(text: str) -> datetime:
    """A timestamp `now_iso` wrote, back as an aware datetime (ValueError when it is not one)."""
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if when.tzinfo is None:
        raise ValueError(f"'{text}' has no time zone")
    return when


def new_id() -> str:
    """A fresh id for a council run, a wave or an eval run (eight hex digits)."""
    return secrets.token_hex(4)


def resolve_project(project: str | os.PathLike[str] | None = None) -> Path:
    """The project a command works in — its sessions dir indexes the run, and a run directory
    no one named goes inside it: the argument (`--project`), else $AMICUS_PROJECT_DIR, else the
    current directory. The MCP server's tools follow the same order, with the client's root
    before the server's directory (mcp/paths.py), so a run either front starts the other finds."""
    from ..envvars import setting
    from ..front import setting as named

    if project:
        checked_name(os.fspath(project), "--project")
    from_env = None if project else setting(PROJECT_ENV)
    raw = project or from_env or os.getcwd()
    path = Path(raw).expanduser().resolve()
    if not path.is_dir():
        hint = (f"set {named(PROJECT_ENV)} to an existing folder" if from_env
                else "pass --project DIR with an existing folder")
        raise BadArgs(f"project '{raw}'{f' ({named(PROJECT_ENV)})' if from_env else ''} is not a directory", hint=hint)
    return path


class SessionStore:
    def __init__(self, project: Path):
        self.project = project
        self.root = project / SESSIONS_DIR

    def session_dir(self, session_id: str) -> Path:
        if not ID_SHAPE.match(session_id):
            raise BadSession(f"'{session_id}' is not a valid id", hint="ids are letters, digits, '-' and '_' (at most 64)")
        return self.root / session_id

    # -- waves --------------------------------------------------------------------------

    def wave_path(self, wave_id: str) -> Path:
        return self.session_dir(wave_id) / WAVE

    def write_wave(self, wave: Wave) -> None:
        atomic_write_json(self.wave_path(wave.wave_id), wave.to_doc())

    def read_wave(self, wave_id: str) -> Wave:
        path = self.wave_path(wave_id)
        if not path.exists():
            raise BadSession(f"no wave '{wave_id}' in {self.root}", hint="check the id, or pass the project it ran in with --project")
        return _wave(read_json(path, what="wave document"), path)

    def write_briefing(self, wave_id: str, text: str) -> Path:
        return atomic_write_text(self.session_dir(wave_id) / BRIEFING, text)

    # -- legs ---------------------------------------------------------------------------

    def leg_path(self, leg_id: str) -> Path:
        return self.session_dir(leg_id) / LEG_FILE

    def write_leg(self, leg: LegRun, output: str | None = None) -> None:
        leg_dir = self.session_dir(leg.leg_id)
        if output is not None:
            atomic_write_text(leg_dir / "output.md", output)
        atomic_write_json(leg_dir / LEG_FILE, leg.to_doc())

    def read_leg(self, leg_id: str) -> LegRun:
        from ..documents.legs import LegRun

        path = self.leg_path(leg_id)
        if not path.exists():
            raise BadSession(f"no leg '{leg_id}' in {self.root}", hint="check the id, or pass the project it ran in with --project")
        doc = read_json(path, what="leg run document")
        if not isinstance(doc, dict) or doc.get("type") != "run":
            raise BadSession(f"'{path}' is not a leg run document", hint="the file may have been edited by hand")
        return LegRun.parse(doc, what="leg run document", where=path)

    def list_waves(self) -> list[Wave]:
        """Every readable wave document, newest first."""
        if not self.root.is_dir():
            return []
        waves = []
        for child in self.root.iterdir():
            path = child / WAVE
            if path.is_file():
                try:
                    waves.append(_wave(read_json(path, what="wave document"), path))
                except (BadArgs, BadSession):
                    continue
        return sorted(waves, key=lambda w: w.created_at, reverse=True)

    def sweep(self, session_id: str) -> None:
        """Remove what an interrupted write left in a wave's or leg's directory."""
        sweep_temp_files(self.session_dir(session_id))


def _wave(doc: Any, path: Path) -> Wave:
    from ..documents.wave import Wave

    if not isinstance(doc, dict) or doc.get("type") != "wave":
        raise BadSession(f"'{path}' is not a wave document", hint="the file may have been edited by hand")
    return Wave.parse(doc, what="wave document", where=path)
