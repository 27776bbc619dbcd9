"""Waiting on another process's on-disk state, for tests that drive the CLI as a subprocess."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def wait_for(predicate: Callable[[], Any], *, timeout: float = 20, what: str = "condition") -> Any:
    """Poll `predicate` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def read_run_json(run_dir: Path) -> dict[str, Any] | None:
    """run.json as it is on disk right now, or None while it is absent or being replaced."""
    try:
        return json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
