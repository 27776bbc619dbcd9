"""`amicus council …` — the deterministic subcommands. None of them calls a model."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import EXIT_DEGRADED, EXIT_OK, BadArgs
from ..fsio import atomic_write_json, atomic_write_text, dumps_json, read_json, read_text
from ..places import PROJECT_DEFAULT
from ..vocabulary import ANSWERING_INTENTS, CHAIR_LINES, ESTIMATED_COST_SOURCES, INTENTS, QUESTION, TIER_DISPLAY_ORDER
from .option_flags import RUN
from .output import say

if TYPE_CHECKING:
    from ..documents.council import TallyRecord, Verdict
    from ..documents.run import RunManifest
    from ..documents.validate import ValidateDocument


def register(commands: argparse._SubParsersAction) -> None:
    from ..vocabulary import REVIEW_EVENTS, REVIEW_MIN_SEVERITY, REVIEW_MIN_TIER, SARIF_MIN_SEVERITY, SARIF_MIN_TIER

    council = commands.add_parser("council", help="council runs and documents: run, resume, validate, tally, verdict, report, pr-review, stats, presets, templates, packs, gate")
    sub = council.add_subparsers(dest="council_command", metavar="SUBCOMMAND", parser_class=type(council))
    sub.required = True

    p = sub.add_parser("run", help="the headless council: reviews, cross-review, tally, chair, verdict, report")
    RUN.add_to(p)  # every run option (engine/options.py)
    p.add_argument("--json", action="store_true", help="print run.json (or the error envelope)")
    p.add_argument("--quiet", action="store_true", help="no live progress line on stderr (it is shown only at a terminal)")
    p.set_defaults(handler=cmd_run)

    p = sub.add_parser("resume", help="continue a crashed, killed or aborted run; nothing it finished is sent again")
    p.add_argument("run", metavar="RUN_ID_OR_DIR", help="the run's id (amicus list) or its run directory")
    p.add_argument("--project", help="the project whose sessions dir indexes the run (" + PROJECT_DEFAULT + ")")
    p.add_argument("--max-cost", type=float, metavar="USD",
                   help="raise the run's --max-cost ceiling (a run its ceiling stopped resumes with a higher one)")
    p.add_argument("--json", action="store_true", help="print run.json (or the error envelope)")
    p.add_argument("--quiet", action="store_true", help="no live progress line on stderr (it is shown only at a terminal)")
    p.set_defaults(handler=cmd_resume)

    p = sub.add_parser("validate", help="check a Stage-1 review's findings block (exit 0 ok, 2 invalid, 1 bad args)")
    p.add_argument("file", help="the review file (prose + trailing ```json block)")
    p.add_argument("--intent", choices=INTENTS, default="review",
                   help="question: check a question council's answer block instead (answer, claims, assumptions, confidence)")
    p.add_argument("--json", action="store_true", help="print the council-validate document")
    p.set_defaults(handler=cmd_validate)

    p = sub.add_parser("tally", help="compute the deterministic tally record and append the ledger")
    p.add_argument("file", help="the tally-input JSON file")
    p.add_argument("--json", action="store_true", help="print the full council-tally record")
    p.add_argument("--no-ledger", action="store_true", help="do not append to the reliability ledger (re-tallies, debate provisional, lens runs)")
    p.set_defaults(handler=cmd_tally)

    p = sub.add_parser("verdict", help="merge a tally record with Stage-4 decisions into verdict.json")
    p.add_argument("file", help="the tally record (tally.json from 'council tally --json')")
    p.add_argument("--decisions", help="JSON array of {id, decision, applied?, duplicateOf?, tierOverride?, reason?}")
    p.add_argument("-o", "--out", default="verdict.json", help="where to write the verdict (default ./verdict.json)")
    chair = p.add_mutually_exclusive_group()
    chair.add_argument("--overall-verdict", choices=CHAIR_LINES,
                       help="the chair's VERDICT line (a question council: its ANSWER standing), carried through "
                            "verbatim (never invented); by default a re-decided run keeps the verdict its chair gave")
    chair.add_argument("--no-overall-verdict", action="store_true",
                       help="write overallVerdict null even when the run's chair gave one")
    p.add_argument("--answer", help="a question council: the sentence on the chair's ANSWER line, verbatim "
                                    "(by default a re-decided run keeps the one its chair gave)")
    p.add_argument("--render", action="store_true",
                   help="also refresh report.html next to the verdict (in a run directory, a verdict other than "
                        "its verdict.json gets its own NAME.html: the run's report stays the run's)")
    p.add_argument("--project", help="the project whose decisions memory keeps the accept / deny decisions and their "
                                      f"reasons ({PROJECT_DEFAULT}; 'amicus decisions list')")
    p.add_argument("--json", action="store_true", help="print the verdict document")
    p.set_defaults(handler=cmd_verdict)

    p = sub.add_parser("report", help="render verdict.json as Markdown (default) or a self-contained HTML page")
    p.add_argument("file", help="the verdict.json to render (--sarif: or the run directory holding it)")
    p.add_argument("--wave", help="a wave.json whose usage total is the cost table's total")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--md", dest="fmt", action="store_const", const="md", help="Markdown (default)")
    fmt.add_argument("--html", dest="fmt", action="store_const", const="html", help="self-contained HTML")
    fmt.add_argument("--sarif", dest="fmt", action="store_const", const="sarif",
                     help="a SARIF 2.1.0 log for code scanning: one result per finding at or above --min-severity and --min-tier")
    add_finding_thresholds(p, severity=SARIF_MIN_SEVERITY, tier=SARIF_MIN_TIER, what="--sarif: the results")
    p.add_argument("-o", "--out", help="write to this file (atomically) instead of stdout")
    p.set_defaults(handler=cmd_report, fmt="md")

    p = sub.add_parser("stats", help="reviewer reliability across all past runs, from the ledger")
    p.add_argument("--tag", help="only the runs started with this --tag")
    p.add_argument("--json", action="store_true", help="print the council-stats document")
    p.set_defaults(handler=cmd_stats)

    p = sub.add_parser("save", help="save a named council (a --models list) in config.json")
    p.add_argument("name")
    p.add_argument("--models", required=True, help="comma-separated aliases or vendor/model ids (at least 2)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_save)

    p = sub.add_parser("list", help="saved councils and the built-in benches")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_list)

    p = sub.add_parser("show", help="resolve a council name the way --council does, against the model catalog")
    p.add_argument("name")
    p.add_argument("--offline", action="store_true",
                   help="check against the cached model catalog only (never fetch it); says when none is cached")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("pr-review", help="a run's findings as one pull-request review: a preview, posted only with --post")
    p.add_argument("run", metavar="RUN_ID_OR_DIR", help="the run's id (amicus list), its run directory or its verdict.json")
    p.add_argument("--repo", required=True, help="the repository, OWNER/NAME")
    p.add_argument("--pr", required=True, type=int, help="the pull request's number")
    add_finding_thresholds(p, severity=REVIEW_MIN_SEVERITY, tier=REVIEW_MIN_TIER,
                           what="the review's comments and body")
    p.add_argument("--event", choices=REVIEW_EVENTS, default="COMMENT",
                   help="the review's event (default COMMENT: the review never approves or blocks unless told to)")
    p.add_argument("--post", action="store_true",
                   help="post the review through GitHub's REST API (token: GITHUB_TOKEN from the environment; "
                        "API: GITHUB_API_URL, default https://api.github.com); without it nothing is posted")
    p.add_argument("--project", help="the project whose sessions dir indexes the run (" + PROJECT_DEFAULT + ")")
    p.add_argument("--json", action="store_true", help="print the council-pr-review document")
    p.set_defaults(handler=cmd_pr_review)

    from .council_ci import register_ci

    register_ci(sub)


def _print_json(doc: Any) -> None:
    say(dumps_json(doc))


def cmd_run(args: argparse.Namespace) -> int:
    import anyio

    from ..engine import run_council
    from ..engine import new_id
    from .progress import ProgressLine, council_line, wanted, with_progress

    options = RUN.options(args)
    # The id is fixed here so the progress line can find the run as soon as it exists.
    options.run_id = args.run_id or new_id()
    line = ProgressLine(council_line(args.project, options.run_id), sys.stderr) if wanted(args) else None
    run, code = anyio.run(lambda: with_progress(lambda: run_council(options), line))
    return _finish_run(args, run, code, command="council run")


def cmd_resume(args: argparse.Namespace) -> int:
    import anyio

    from ..engine import resume_council
    from ..engine import find_run
    from ..engine import SessionStore, resolve_project
    from .progress import ProgressLine, council_line, wanted, with_progress

    store = SessionStore(resolve_project(args.project))
    run_dir = find_run(store, args.run)
    if run_dir is None:
        raise BadArgs(f"no council run '{args.run}' in {store.root} and no run directory there",
                      hint="pass the run id (amicus list) with the project it ran in, or its run directory")
    run_id = run_dir.read().run_id
    line = ProgressLine(council_line(args.project, run_id), sys.stderr) if wanted(args) else None
    run, code = anyio.run(lambda: with_progress(lambda: resume_council(run_dir, max_cost=args.max_cost), line))
    return _finish_run(args, run, code, command="council resume")


def _finish_run(args: argparse.Namespace, run: RunManifest, code: int, *, command: str) -> int:
    from ..errors import AmicusError
    from ..vocabulary import ERROR_CODES, word_in

    out_dir = run.options.out_dir if run.options is not None else None
    if code == 1 and run.error is not None:
        err = AmicusError(run.error.message, hint=f"the run directory is {out_dir}", command=command)
        # A run records the code of the AmicusError that ended it; the envelope holds only those.
        err.code = word_in(run.error.code, ERROR_CODES) or "INTERNAL"
        raise err
    if args.json:
        _print_json(run.to_doc())
    else:
        if run.dropped_members:
            from ..engine import dropped_notice

            say(f"Notice: {dropped_notice([d.to_doc() for d in run.dropped_members])}", err=True)
        say(render_run(run))
    return code


def render_run(run: RunManifest) -> str:
    from ..engine import RUN_FILES

    question = run.intent in ANSWERING_INTENTS  # the chair closes on an ANSWER line
    lines = [f"Council run {run.run_id}{f' ({run.intent})' if question else ''}: {run.status} (exit {run.exit_code})"]
    verdict = run.overall_verdict
    if question:
        answer = f" — {run.answer}" if run.answer is not None else ""
        lines.append(f"  chair: {run.chair} — ANSWER: {verdict}{answer}" if verdict
                     else f"  chair: {run.chair} — no chair answer")
    else:
        lines.append(f"  chair: {run.chair} — VERDICT: {verdict}" if verdict else f"  chair: {run.chair} — no chair verdict")
    counts = run.tier_counts or {}
    if counts:
        lines.append("  tiers: " + " · ".join(f"{t} {counts.get(t, 0)}" for t in TIER_DISPLAY_ORDER))
    lines.append(f"  cost: {cost_text(run)}")
    lines += [f"  notice: {n}" for n in run.notices]
    report = Path(run.options.out_dir if run.options is not None else ".") / RUN_FILES.report
    if report.is_file():  # an aborted or failed run may never have written one
        lines.append(f"  report: {report}")
    return "\n".join(lines)


def cost_text(run: RunManifest) -> str:
    """A run's cost as `council run` and `status` print it, against its ceiling when it has one."""
    cost = run.usage.cost if run.usage is not None else None
    unknown = run.usage.unknown_legs if run.usage is not None else 0
    shown = cost_phrase(cost, unknown)
    ceiling = run.options.max_cost if run.options is not None else None
    if ceiling is None:
        return shown
    # The legs lost in flight, maybe billed: interrupted by a resume, or crashed with their process.
    held = (sum(float(leg.reserved or 0.0) for leg in run.interrupted_legs)
            + sum(float(leg.reserved or 0.0) for leg in run.legs if leg.status == "crashed"))
    counted = f", with ${held:.4f} reserved by legs lost in flight counting against it" if held else ""
    return f"{shown} of the ${ceiling} --max-cost ceiling{counted}"


def cost_phrase(cost: Any, unknown: int) -> str:
    """A cost in one honest phrase. With legs of unknown cost the known part is a floor —
    "at least $X" for a reported one; an estimated one says so in words, not with a second
    qualifier ("at least ~$X" says neither clearly)."""
    from ..providers.cost import format_cost

    amount, source = (cost.amount, cost.source) if cost is not None else (None, "unknown")
    if not unknown:
        return format_cost(amount, source)
    legs = f"{unknown} leg(s) of unknown cost"
    if amount is None:
        return f"? ({legs})"
    figure = format_cost(amount, "reported")
    if source in ESTIMATED_COST_SOURCES:
        return f"at least {figure}, {'partly ' if source == 'mixed' else ''}estimated ({legs})"
    return f"at least {figure} ({legs})"


def cmd_validate(args: argparse.Namespace) -> int:
    from ..council import answers
    from ..council.findings import validate_document, validate_findings

    doc: ValidateDocument
    if args.intent == QUESTION:  # a question council's answer block
        answer = answers.validate_answer(read_text(args.file, what="answer file"))
        ok, errors = answer["ok"], answer["errors"]
        doc, found = answers.validate_document(answer), f"an answer with {len(answer['claims'])} key claim(s)"
    else:
        review = validate_findings(read_text(args.file, what="review file"))
        ok, errors = review["ok"], review["errors"]
        doc, found = validate_document(review), f"{len(review['findings'])} finding(s)"
    if args.json:
        _print_json(doc)
    elif ok:
        say(f"ok: {found} — {args.file}")
    else:
        say(f"invalid: {args.file}")
        for err in errors:
            say(f"  {err['code']}: {err['detail']}")
    return EXIT_OK if ok else EXIT_DEGRADED


def cmd_tally(args: argparse.Namespace) -> int:
    from ..council.ledger import append_ledger
    from ..council.tally import render_tally_summary, tally

    record = tally(read_json(args.file, what="tally input"))
    # Render before the ledger is touched: a record that cannot be shown must not leave rows
    # behind (and a retry must not append them again).
    shown = dumps_json(record) if args.json else render_tally_summary(record)
    if not args.no_ledger:
        warning = append_ledger(record)
        if warning:
            say(f"Notice: {warning}", err=True)
    say(shown)
    return EXIT_OK


def cmd_verdict(args: argparse.Namespace) -> int:
    from ..council.verdict import render_verdict_summary
    from ..engine import redecide_run, report_target

    record = read_json(args.file, what="tally record")
    decisions = read_json(args.decisions, what="decisions file") if args.decisions else []
    out = Path(args.out)
    if out.is_dir():
        raise BadArgs(f"--out '{out}' is a directory", hint="name the verdict file, e.g. -o run/verdict.json")
    # Re-deciding a run keeps what it decided: its chair's verdict and what it lost.
    verdict, run_dir = redecide_run(record, decisions, near=(out.parent, Path(args.file).parent), out=out,
                                    overall_verdict=args.overall_verdict, keep_verdict=not args.no_overall_verdict,
                                    answer=args.answer)
    atomic_write_json(out, verdict)
    remember_decisions(verdict, record, decisions, args.project)
    target = report_target(out, run_dir) if args.render else None
    if target is not None:
        _render_next_to(verdict, out, record, target, run_dir)
    if args.json:
        _print_json(verdict)
    else:
        say(render_verdict_summary(verdict, args.out))
        if target is not None:
            say(f"  report → {target}")
    return EXIT_OK


def remember_decisions(verdict: Mapping[str, Any], record: Any, decisions: Any, project: str | None) -> None:
    """Keep the accept / deny decisions (and reasons) in the project's decisions memory; a note says so."""
    from ..engine import remember
    from ..engine import resolve_project

    kept = remember(verdict, record, decisions, resolve_project(project))
    denied = sum(e["decision"] == "denied" for e in kept)
    if denied:
        say(f"Remembered {denied} dismissed finding(s): a later run marks a match as previously dismissed "
            "('amicus decisions list')", err=True)


def _render_next_to(verdict: Verdict, out: Path, record: TallyRecord, target: Path,
                    run_dir: Path | None) -> None:
    """Refresh the HTML report beside a freshly decided verdict; the verdict is already safe."""
    from ..engine import decided_report_html

    try:
        atomic_write_text(target, decided_report_html(verdict, record, target, run_dir))
    except OSError as exc:
        raise BadArgs(
            f"verdict written to {out}, but {target.name} could not be written: {exc.strerror or exc}",
            hint=f"re-run 'amicus council report {out} --html -o {target}'",
        ) from None


def cmd_report(args: argparse.Namespace) -> int:
    from ..documents.council import Verdict, check_document
    from ..engine import render_verdict

    if args.fmt == "sarif":  # SARIF reads the run beside the verdict too: a run directory will do
        text = sarif_text(args.file, min_severity=args.min_severity, min_tier=args.min_tier)
    else:
        verdict = read_json(args.file, what="verdict file")
        if not isinstance(verdict, dict) or verdict.get("type") != "council-verdict":
            raise BadArgs(f"'{args.file}' is not a council-verdict document", hint="render the verdict.json written by 'amicus council verdict'")
        wave = read_json(args.wave, what="wave file") if args.wave else None
        # Checked as RunDir.read_verdict checks a run's (a verdict assembled by hand renders when it is one).
        checked = check_document(Verdict, verdict, what="verdict", where=args.file)
        text = render_verdict(Path(args.file), checked, fmt=args.fmt, wave=wave)
    if args.out:
        atomic_write_text(args.out, text)
        say(f"Report written to {args.out}")
    else:
        say(text, end="")
    return EXIT_OK


def cmd_pr_review(args: argparse.Namespace) -> int:
    import os

    from ..engine import pr_review

    doc = pr_review(args.run, repo=args.repo, pr=args.pr, env=os.environ, min_severity=args.min_severity,
                    min_tier=args.min_tier, event=args.event, post=args.post, project=args.project)
    if args.json:
        _print_json(doc.to_doc())
        return EXIT_OK
    if doc.posted:
        where = f" → {doc.review_url}" if doc.review_url else ""
        say(f"Posted a {doc.review.event} review on {doc.repo}#{doc.pr}: "
            f"{len(doc.inline)} inline comment(s), {len(doc.in_body)} finding(s) in the body{where}")
    else:
        say(doc.preview, end="")
    return EXIT_OK


def add_finding_thresholds(p: argparse.ArgumentParser, *, severity: str, tier: str, what: str) -> None:
    """--min-severity / --min-tier: which findings a rendering for the pull request carries."""
    from ..vocabulary import SEVERITIES, TIERS

    p.add_argument("--min-severity", choices=SEVERITIES, default=severity,
                   help=f"{what} carry findings of this severity or worse (default {severity})")
    p.add_argument("--min-tier", choices=TIERS, default=tier,
                   help=f"{what} carry findings in this tier or a stronger one, Confirmed > Contested > Singleton > Disputed "
                        f"(default {tier})")


def sarif_text(path: str, *, min_severity: str, min_tier: str) -> str:
    from .. import __version__
    from ..council.sarif import build_sarif
    from ..engine import read_run_findings

    run = read_run_findings(path)
    return dumps_json(build_sarif(run.verdict, run.findings, tool_version=__version__,
                                  min_severity=min_severity, min_tier=min_tier,
                                  rereview=run.rereview.to_doc() if run.rereview is not None else None)) + "\n"


def cmd_stats(args: argparse.Namespace) -> int:
    from ..config import eval_ledger_path, ledger_path
    from ..council.ledger import derive_stats, read_ledger, render_stats
    from ..engine import check_tag

    tag = None if args.tag is None else check_tag(args.tag)
    path = ledger_path()
    stats = derive_stats(read_ledger(path), read_ledger(eval_ledger_path()), tag=tag)
    if args.json:
        _print_json(stats)
    else:
        say(render_stats(stats, path))
    return EXIT_OK


def cmd_save(args: argparse.Namespace) -> int:
    from ..presets import parse_models_arg, save_council

    doc = save_council(args.name, parse_models_arg(args.models))
    if args.json:
        _print_json(doc)
    else:
        verb = "Overwrote" if doc["overwritten"] else "Saved"
        say(f"{verb} council '{doc['name']}': {', '.join(doc['members'])}")
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from ..presets import list_councils

    doc = list_councils()
    if args.json:
        _print_json(doc)
        return EXIT_OK
    rows = doc["councils"]
    width = max(len(r["name"]) for r in rows)
    say("Councils:")
    for row in rows:
        if row["builtin"]:
            tag = "[built-in, shadowed]" if row.get("shadowed") else "[built-in]"
            say(f"  {row['name'].ljust(width)}  {tag}")
        else:
            say(f"  {row['name'].ljust(width)}  {', '.join(row['members'])}")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    import anyio

    from ..engine import preview_council

    doc = anyio.run(lambda: preview_council(args.name, offline=args.offline))
    if args.json:
        _print_json(doc)
        return EXIT_OK
    checked = doc["catalog"]
    if checked["note"] and checked["state"] is not None:  # said aside: stdout stays the seed's lines
        say(f"Notice: {checked['note']}", err=True)
    kind = " [built-in]" if doc["builtin"] else ""
    say(f"Council '{doc['name']}'{kind}")
    say(f"  members:  {', '.join(doc['members'])}")
    say(f"  resolved: {', '.join(doc['resolved']) or '(none)'}")
    if doc["dropped"]:
        say(f"  dropped:  {', '.join(d['member'] + ' (' + d['reason'] + ')' for d in doc['dropped'])}")
    if len(doc["resolved"]) < 2:
        say("  note: fewer than 2 usable members — a run with this council would be refused")
    return EXIT_OK
