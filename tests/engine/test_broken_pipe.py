"""Issue 12 item 12: a finished council run keeps its exit code when the reader of its output
has gone (`amicus council run … | head`): no traceback, no exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from council_helpers import member
from fakeprovider import chat


def test_a_degraded_run_piped_into_a_closed_reader_still_exits_2(fake, brief: Path, run_dir: Path,
                                                                 project: Path) -> None:
    member(fake, "a")
    member(fake, "b", stage1=chat(""))  # a dead seat: the run is degraded, exit 2
    member(fake, "c")
    member(fake, "chair")
    argv = [sys.executable, "-m", "amicus_mcp.cli", "council", "run", "--models", "fake/a,fake/b,fake/c",
            "--chair", "fake/chair", "--prompt-file", str(brief), "--out-dir", str(run_dir),
            "--project", str(project), "--json"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project) as child:
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()  # like `| head` that has already gone: every write is EPIPE
        err = child.stderr.read().decode("utf-8", "replace")
        code = child.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err
    assert code == 2
    assert '"status": "partial"' in (run_dir / "run.json").read_text(encoding="utf-8")
