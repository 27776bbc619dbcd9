"""Pointer files: how a project's sessions directory finds a run that lives elsewhere.

    <project>/.claude/amicus_sessions/council-<runId>.json   {"runId", "runDir"}
"""

from __future__ import annotations

from .base import Document


class RunPointer(Document):
    run_id: str
    run_dir: str
