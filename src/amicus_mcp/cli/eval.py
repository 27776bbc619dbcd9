"""`amicus eval …` — measure a bench on a planted-flaw suite: run, score, compare.

The bench flags are `council run`'s own, bar one run's briefing and identity (`option_flags.BENCH`,
derived from the options model); the work is `amicus_mcp.eval`'s.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import EXIT_OK
from ..fsio import dumps_json
from .option_flags import BENCH
from .output import say

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from ..eval.documents import EvalManifest
    from ..schemas import JsonObject


def register(commands: argparse._SubParsersAction) -> None:
    ev = commands.add_parser("eval", help="measure a bench on a planted-flaw suite: run, score, compare")
    sub = ev.add_subparsers(dest="eval_command", metavar="SUBCOMMAND", parser_class=type(ev))
    sub.required = True

    p = sub.add_parser("run", help="one council per case of a suite, every finding matched to the planted flaws, "
                                   "the scores in eval.json / eval.md / eval.html")
    BENCH.add_to(p)
    p.add_argument("--matcher", help="the model that decides which planted flaw each finding identifies (required)")
    p.add_argument("--suite", help="a suite folder in the same format (default: the shipped suite 'planted')")
    p.add_argument("--case", action="append", metavar="ID", help="run only this case (repeatable)")
    p.add_argument("--out-dir", help="the eval directory (default ./eval-<evalId>)")
    p.add_argument("--estimate", action="store_true", help="print the whole suite's cost estimate and stop (nothing is sent)")
    p.add_argument("--json", action="store_true", help="print eval.json (or eval-estimate / the error envelope)")
    p.add_argument("--quiet", action="store_true", help="no estimate line and no live progress on stderr")
    p.set_defaults(handler=cmd_run)

    p = sub.add_parser("score", help="re-score an eval directory from its recorded decisions (no model is called)")
    p.add_argument("dir", metavar="EVAL_DIR", help="the eval directory 'amicus eval run' wrote")
    p.add_argument("--json", action="store_true", help="print eval.json")
    p.set_defaults(handler=cmd_score)

    p = sub.add_parser("compare", help="two evals side by side (a bench against another, a change against the last)")
    p.add_argument("a", metavar="EVAL_DIR_A")
    p.add_argument("b", metavar="EVAL_DIR_B")
    p.add_argument("--json", action="store_true", help="print the eval-compare document")
    p.set_defaults(handler=cmd_compare)


def cmd_run(args: argparse.Namespace) -> int:
    import anyio

    from ..eval.runner import describe_estimate, prepare_eval, run_eval
    from .progress import ProgressLine, wanted, with_progress

    bench = BENCH.options(args)
    plan = anyio.run(lambda: prepare_eval(bench, suite=args.suite, matcher=args.matcher, cases=args.case,
                                          out_dir=args.out_dir))
    if args.estimate:
        say(dumps_json(plan.estimate.model_dump(mode="json")) if args.json else describe_estimate(plan.estimate))
        return EXIT_OK
    if not args.json and not args.quiet:
        say(describe_estimate(plan.estimate), err=True)
        for notice in plan.notices:
            say(f"Notice: {notice}", err=True)
    line = ProgressLine(eval_line(plan.directory.manifest), sys.stderr) if wanted(args) else None
    manifest, code = anyio.run(lambda: with_progress(lambda: run_eval(plan), line))
    return _finish(args, manifest, code)


def _finish(args: argparse.Namespace, manifest: EvalManifest, code: int) -> int:
    from ..errors import AmicusError
    from ..eval.evaldir import EVAL_JSON, EvalDir, read_scores
    from ..vocabulary import ERROR_CODES

    d = EvalDir(Path(manifest.evalDir))
    if code == 1 and manifest.error is not None:
        err = AmicusError(manifest.error["message"], hint=f"the eval directory is {d.path}", command="eval run")
        code_word = manifest.error["code"]
        if code_word in ERROR_CODES:  # the engine's own word, as the eval recorded it
            err.code = code_word
        raise err
    scored = d.report(EVAL_JSON)
    doc = read_scores(d.path) if scored.is_file() and manifest.stage == "done" else None
    if args.json:
        say(dumps_json(doc if doc is not None else manifest.model_dump(mode="json")))
    else:
        say(render_result(manifest, doc, code))
    return code


def render_result(manifest: EvalManifest, doc: JsonObject | None, code: int) -> str:
    """The eval's outcome; `code` is the exit code this command ends with (the line says it).
    `doc` is eval.json as JSON (the eval's own renderers read it so, as eval.md does)."""
    from ..eval.report_md import counted, headline, is_floor, recall_count, recall_pct
    from ..eval.scoring import UNMATCHED_NOTE

    suite = manifest.suite
    lines = [f"Eval {manifest.id}: {manifest.status} (exit {code}) — suite {suite.name} "
             f"v{suite.version}, {counted(manifest.casesTotal, 'case')}"]
    if doc is not None:
        lines += [f"  {line}" for line in headline(doc)]
        for seat in _objects(doc.get("seats")):
            recall = _object(seat.get("recall"))
            lines.append(f"  seat {seat['seat']}: recall {recall_pct(recall)} ({recall_count(recall)})"
                         + (" — a floor" if is_floor(recall) else ""))
        lines += [f"  note: {n}" for n in _items(doc.get("notes")) if n != UNMATCHED_NOTE]
    lines += [f"  notice: {n}" for n in manifest.notices]
    if manifest.report:
        lines.append(f"  report: {manifest.report}")
    return "\n".join(lines)


def _items(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _object(value: object) -> JsonObject:
    return value if isinstance(value, dict) else {}


def _objects(value: object) -> list[JsonObject]:
    return [v for v in _items(value) if isinstance(v, dict)]


def render_eval_status(doc: JsonObject) -> str:
    """`amicus status EVAL_ID`: where an eval is, case by case. `doc` is its job manifest
    (eval-run.json), as the engine reads a job of the layer above: JSON."""
    # The stage only while it matters: a finished eval's is `done`, and "partial — done" reads as a contradiction.
    stage = f" — stage {doc['stage']}" if doc.get("stage") and doc["stage"] != "done" else ""
    total = doc["casesTotal"]
    lines = [f"Eval {doc['id']}: {doc['status']}{stage} ({doc['casesDone']}/{_cases(total) if isinstance(total, int) else total} done)"]
    lines += [f"  {c['caseId']!s:<32} {c['status']!s:<9} run {c['runId']}" for c in _objects(doc.get("cases"))]
    error = doc.get("error")
    if isinstance(error, dict) and error:
        lines.append(f"  error: {error['code']}: {error['message']}")
    if doc.get("report"):
        lines.append(f"  report: {doc['report']}")
    return "\n".join(lines)


def _cases(count: int) -> str:
    from ..eval.report_md import counted

    return counted(count, "case")


def eval_line(manifest_path: Path) -> Callable[[datetime], str | None]:
    """The live progress line, rendered from eval-run.json (what `amicus status` reads too)."""
    from datetime import datetime

    from ..engine import parse_iso
    from ..eval.evaldir import EvalDir, read_manifest

    def render(now: datetime) -> str | None:
        doc = read_manifest(EvalDir(manifest_path.parent))  # the eval's one checking reader of eval-run.json
        running = sum(1 for c in doc.cases if c.status == "running")
        elapsed = int((now - parse_iso(doc.createdAt)).total_seconds())
        cost = "cost unknown so far" if doc.cost is None else f"${doc.cost:.4f} so far"
        return (f"eval {doc.id}: {doc.stage} · {doc.casesDone}/{_cases(doc.casesTotal)} done · {running} running · "
                f"{cost} · {elapsed // 60}m{elapsed % 60:02d}s")

    return render


def cmd_score(args: argparse.Namespace) -> int:
    from ..eval.evaldir import locate, read_manifest, rescore, score_exit, write_reports
    from ..eval.scoring import eval_json

    d = locate(args.dir)
    manifest = read_manifest(d)
    scores = rescore(d, manifest)
    paths = write_reports(d, scores)
    doc = eval_json(scores)
    code = score_exit(manifest)
    if args.json:
        say(dumps_json(doc))
    else:
        say(render_result(manifest.model_copy(update={"report": str(paths["eval.html"])}), doc, code))
    return code


def cmd_compare(args: argparse.Namespace) -> int:
    from ..eval.compare import compare, render_compare
    from ..eval.evaldir import read_scores

    a, b = read_scores(args.a), read_scores(args.b)
    doc = compare(a, b, a_dir=args.a, b_dir=args.b)
    say(dumps_json(doc) if args.json else render_compare(doc), end="\n" if args.json else "")
    return EXIT_OK
