"""A fanout's start-up (bench/fanout_startup.py times it) loads none of the council's modules:
pre-flight names the re-review matcher's bound, but a fanout never re-reviews, so the council's
matching code stays unloaded until a council run asks for it."""

from __future__ import annotations

import subprocess
import sys


def test_the_fanout_path_loads_no_council_module() -> None:
    script = ("import sys; import amicus_mcp.cli, amicus_mcp.engine.preflight, amicus_mcp.engine.waves; "
              "print(sorted(m for m in sys.modules if m.startswith('amicus_mcp.council')))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]", done.stdout
