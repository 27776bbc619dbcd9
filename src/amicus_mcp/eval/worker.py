"""The eval worker: `python -m amicus_mcp.eval.worker EVAL_DIR` runs the eval a front prepared
there (the MCP tool `amicus_eval` starts it detached, through engine.spawn).

It reads the eval's own `eval-options.json` and `eval-run.json` (no front's argv is rebuilt),
pre-flights again with the eval's id and its cases' run ids — the same checks the front made,
against the same suite copy — and runs it. A failure before the first council is recorded in
eval-run.json, so the eval never looks `running` with nobody behind it. Exit codes are the
CLI's: 0, 1, 2, 130/143.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import anyio

from ..errors import AmicusError
from ..fsio import dumps_json


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m amicus_mcp.eval.worker EVAL_DIR", file=sys.stderr)
        return 1
    try:
        return anyio.run(_run, Path(args[0]).resolve())
    except AmicusError as err:
        print(dumps_json(err.to_envelope()), flush=True)
        return err.exit_code


async def _run(directory: Path) -> int:
    from ..engine import run_options
    from .evaldir import EvalDir, read_manifest, read_options, write_manifest
    from .runner import prepare_eval, run_eval

    d = EvalDir(directory)
    manifest = read_manifest(d)
    options = read_options(d)
    try:
        plan = await prepare_eval(run_options(options.bench), suite=str(d.path), matcher=options.matcher,
                                  cases=[c.caseId for c in manifest.cases], eval_id=manifest.id, out_dir=str(d.path),
                                  run_ids={c.caseId: c.runId for c in manifest.cases})
    except AmicusError as err:  # pre-flight refused what the front accepted: say so in the manifest
        from ..engine import now_iso

        manifest.status, manifest.exitCode, manifest.completedAt = "error", err.exit_code, now_iso()
        manifest.error = {"code": err.code, "message": err.message}
        write_manifest(d, manifest)
        raise
    doc, code = await run_eval(plan, manifest=manifest)
    print(dumps_json(doc.model_dump(mode="json")), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
