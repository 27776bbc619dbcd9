"""The engine worker: `python -m amicus_mcp.engine.worker DIR` runs the council run or the
fanout wave whose inputs a front wrote to DIR (`options.json` and `briefing.md`); with
`--resume`, it continues the council run a front reopened there (engine/resume.py).

It is what a front starts detached (engine/spawn.py). It takes its run id from the seeded
run.json (or wave.json), briefs off the directory's own copy of the briefing, and prints the
final document as JSON to its log. A failure before the first stage — the bench no longer
resolves, say — is recorded in the run's own run.json, so the run never looks `running`
with nobody behind it. Exit codes are the CLI's: 0, 1, 2, 130/143.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import anyio

from ..errors import AmicusError
from ..fsio import dumps_json, read_text
from .options import RunOptions, WaveOptions, read_options
from .run_dir import BRIEFING, RunDir


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    resume = args[1:] == ["--resume"]
    if len(args) != 1 and not resume:
        print("usage: python -m amicus_mcp.engine.worker RUN_OR_WAVE_DIR [--resume]", file=sys.stderr)
        return 1
    directory = Path(args[0]).resolve()
    try:
        if resume:
            return resume_council_dir(RunDir(directory))
        options = read_options(directory)
        briefing = read_text(directory / BRIEFING, what="briefing copy")
        if isinstance(options, RunOptions):
            return run_council_dir(RunDir(directory), options, briefing)
        return run_wave_dir(directory, options, briefing)
    except AmicusError as err:
        print(dumps_json(err.to_envelope()), flush=True)
        return err.exit_code


def run_council_dir(run_dir: RunDir, options: RunOptions, briefing: str) -> int:
    from .council_run import run_council
    from ..documents.run import records_of

    seeded = run_dir.read()
    options = options.model_copy(update={"run_id": seeded.run_id, "out_dir": str(run_dir.path)})
    records = records_of(seeded)  # where the briefing came from
    try:
        manifest, code = anyio.run(lambda: run_council(options, briefing=briefing, records=records))
    except AmicusError as err:  # pre-flight refused what the front accepted: say so in run.json
        record_failure(run_dir, err)
        raise
    print(dumps_json(manifest.to_doc()), flush=True)
    return code


def resume_council_dir(run_dir: RunDir) -> int:
    """A run a front checked and reopened (engine/resume.py) continued to its end."""
    from .resume import resume_council

    try:
        manifest, code = anyio.run(lambda: resume_council(run_dir, reopened=True))
    except AmicusError as err:  # its inputs no longer pre-flight: say so in run.json
        record_failure(run_dir, err)
        raise
    print(dumps_json(manifest.to_doc()), flush=True)
    return code


def record_failure(run_dir: RunDir, err: AmicusError) -> None:
    """A worker that failed before its first stage ends its run `error`, saying why."""
    from .spawn import record_failure as record

    record(run_dir.read(), run_dir, code=err.code, message=err.message, exit_code=err.exit_code)


def run_wave_dir(wave_dir: Path, options: WaveOptions, briefing: str) -> int:
    from .fanout import fanout

    options = options.model_copy(update={"wave_id": wave_dir.name})
    wave, code = anyio.run(lambda: fanout(options, briefing=briefing))
    print(dumps_json(wave.to_doc()), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
