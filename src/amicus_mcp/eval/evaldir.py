"""The eval directory: its layout, reading what an eval recorded, and re-scoring it.

    <evalDir>/eval-options.json          what the eval was asked to do (eval-run-options)
    <evalDir>/eval-run.json              the manifest: status, pid, cases (eval-run)
    <evalDir>/suite.json                 a copy of the suite's suite.json …
    <evalDir>/cases/<id>/case.json       … and of every case it ran, with its artifact, so the
    <evalDir>/cases/<id>/<artifact>        directory re-scores on its own
    <evalDir>/cases/<id>/briefing.md     the case's briefing as its council read it
    <evalDir>/cases/<id>/council/        the case's council run directory (run.json, tally.json …)
    <evalDir>/cases/<id>/matches.json    every matcher decision of the case (eval-matches)
    <evalDir>/cases/<id>/matcher-*.md    the matcher's prompts and replies, as sent and received
    <evalDir>/eval.json, eval.md, eval.html

Re-scoring reads only this directory and calls no model. A case whose council produced a
tally must have its decisions: a decision file that is missing, unreadable, not an
`eval-matches` document, about another case or another tally, or that leaves a finding
undecided by omission is an error naming the file — it is never re-matched quietly.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import ValidationError

from ..documents.run import RunManifest
from ..engine import RunDir
from ..errors import AmicusError, BadSession
from ..fsio import atomic_write_json, atomic_write_text, dumps_json, read_json
from ..schemas import JsonObject
from .documents import EvalDocument, EvalManifest, EvalRunOptions, MatchesDocument
from .scoring import CaseInputs, eval_json, score
from .suite import Case, Suite, load_suite

if TYPE_CHECKING:
    from ..documents.council import TallyRecord

OPTIONS_FILE = "eval-options.json"
MANIFEST_FILE = "eval-run.json"
EVAL_JSON, EVAL_MD, EVAL_HTML = "eval.json", "eval.md", "eval.html"
CASES_DIR = "cases"
COUNCIL_DIR = "council"
MATCHES_FILE = "matches.json"
BRIEFING_FILE = "briefing.md"


class EvalDir(NamedTuple):
    path: Path

    @property
    def manifest(self) -> Path:
        return self.path / MANIFEST_FILE

    @property
    def options(self) -> Path:
        return self.path / OPTIONS_FILE

    def case_dir(self, case_id: str) -> Path:
        return self.path / CASES_DIR / case_id

    def council_dir(self, case_id: str) -> Path:
        return self.case_dir(case_id) / COUNCIL_DIR

    def matches(self, case_id: str) -> Path:
        return self.case_dir(case_id) / MATCHES_FILE

    def report(self, name: str) -> Path:
        return self.path / name


def locate(ref: str | Path) -> EvalDir:
    """An eval directory named by its path; BadSession when it holds no eval."""
    path = Path(ref).expanduser().resolve()
    if not (path / MANIFEST_FILE).is_file():
        raise BadSession(f"'{ref}' is not an eval directory (no {MANIFEST_FILE})",
                         hint="name the folder 'amicus eval run' wrote (its eval-run.json is inside)")
    return EvalDir(path)


def read_manifest(d: EvalDir) -> EvalManifest:
    return _model(EvalManifest, d.manifest, "eval manifest")


def read_options(d: EvalDir) -> EvalRunOptions:
    return _model(EvalRunOptions, d.options, "eval options")


def _model(model: type[Any], path: Path, what: str) -> Any:
    try:
        doc = read_json(path, what=what)
    except AmicusError as err:
        raise BadSession(f"{path}: {err.message}", hint="the file may have been edited or damaged") from None
    try:
        return model.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise BadSession(f"{path}: not a valid {what}: {where}: {first['msg']}",
                         hint="the file may have been edited or damaged") from None


def write_manifest(d: EvalDir, manifest: EvalManifest) -> None:
    running = manifest.status == "running"  # compact while going (it is rewritten as cases finish)
    atomic_write_json(d.manifest, manifest.model_dump(mode="json"), indent=None if running else 2)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _optional_tally(council: RunDir) -> TallyRecord | None:
    """The case's council tally.json, when it wrote one (checked against its declaration)."""
    if not council.tally_path.is_file():
        return None
    try:
        return council.read_tally()
    except AmicusError as err:
        raise BadSession(f"{council.tally_path}: {err.message}", hint="the council's file is damaged: re-run the eval") from None


def _optional_run(council: Path) -> RunManifest | None:
    """The case's council run.json, when it wrote one."""
    run_dir = RunDir(council)
    if not run_dir.holds_run():
        return None
    try:
        return run_dir.read()
    except AmicusError as err:
        raise BadSession(f"{run_dir.manifest_path}: {err.message}", hint="the council's file is damaged: re-run the eval") from None


def read_decisions(d: EvalDir, case: Case, tally: TallyRecord, tally_path: Path) -> MatchesDocument:
    """A case's recorded decisions, checked against the case and the tally they decide about."""
    path = d.matches(case.id)
    if not path.is_file():
        raise BadSession(f"{path}: the matcher decisions of case '{case.id}' are missing",
                         hint="re-scoring never matches again: restore the file, or run the eval again")
    matches: MatchesDocument = _model(MatchesDocument, path, "matcher decision file")
    if matches.caseId != case.id:
        raise BadSession(f"{path}: the decisions are about case '{matches.caseId}', not '{case.id}'",
                         hint="restore this case's own matches.json")
    if matches.tallySha256 != sha256_file(tally_path):
        raise BadSession(f"{path}: the decisions were made about another tally.json than the one in {tally_path.parent}",
                         hint="the council's tally changed since it was matched: run the eval again")
    ids = [str(f.get("id")) for f in tally.get("findings", []) if isinstance(f, dict)]
    decided = [dec.finding for dec in matches.decisions]
    if sorted(decided) != sorted(ids) or len(set(decided)) != len(decided):
        missing = sorted(set(ids) - set(decided))
        extra = sorted(set(decided) - set(ids))
        raise BadSession(f"{path}: the decisions do not cover the tally's findings exactly"
                         + (f" (no decision for {', '.join(missing)})" if missing else "")
                         + (f" (decisions for unknown findings {', '.join(extra)})" if extra else ""),
                         hint="restore the file; re-scoring never matches again")
    flaw_ids = {f.id for f in case.doc.plantedFlaws}
    for dec in matches.decisions:
        if dec.flaw is not None and (dec.flaw not in flaw_ids or dec.flaw not in dec.candidates):
            raise BadSession(f"{path}: decision for {dec.finding} names flaw '{dec.flaw}', which is not one of its candidates",
                             hint="restore the file; re-scoring never matches again")
    return matches


def collect(d: EvalDir, suite: Suite, manifest: EvalManifest) -> list[CaseInputs]:
    """Every case of the manifest with what it left on disk (decisions checked)."""
    inputs = []
    for progress in manifest.cases:
        case = suite.case(progress.caseId)
        council = d.council_dir(case.id)
        run = _optional_run(council)
        tally_path = RunDir(council).tally_path
        tally = _optional_tally(RunDir(council))
        matches = read_decisions(d, case, tally, tally_path) if isinstance(tally, dict) else None
        inputs.append(CaseInputs(case=case, run=run,
                                 tally=tally if isinstance(tally, dict) else None, matches=matches))
    return inputs


def load_recorded_suite(d: EvalDir, manifest: EvalManifest) -> Suite:
    """The suite as the eval copied it into its own directory."""
    try:
        suite = load_suite(d.path)
    except AmicusError as err:
        raise BadSession(f"the eval's copy of its suite is damaged: {err.message}",
                         hint="restore suite.json and cases/<id>/case.json in the eval directory") from None
    known = {c.id for c in suite.cases}
    missing = [p.caseId for p in manifest.cases if p.caseId not in known]
    if missing:
        raise BadSession(f"{d.path}: the eval's copy of case(s) {', '.join(missing)} is missing",
                         hint="restore cases/<id>/case.json in the eval directory")
    return suite


def rescore(d: EvalDir, manifest: EvalManifest | None = None) -> EvalDocument:
    """The eval document from what the directory recorded (no model call). The runner passes its
    own ending manifest: a waiter must not see the eval terminal before its reports exist."""
    manifest = manifest if manifest is not None else read_manifest(d)
    if manifest.status == "running":
        raise BadSession(f"eval {manifest.id} is still running", hint=f"wait for it: amicus wait {manifest.id}")
    if manifest.stage != "done" and manifest.status != "complete":
        matched = all(d.matches(p.caseId).is_file() or not RunDir(d.council_dir(p.caseId)).tally_path.is_file()
                      for p in manifest.cases)
        if not matched:
            raise BadSession(f"eval {manifest.id} ended {manifest.status} before its findings were matched",
                             hint="run the eval again; only a matched eval can be scored")
    options = read_options(d)
    suite = load_recorded_suite(d, manifest)
    return score(manifest, options, suite, collect(d, suite, manifest))


def score_exit(manifest: EvalManifest) -> int:
    """What re-scoring an eval ends with: 0 for a complete eval, 2 (degraded) for any other
    (partial, aborted, error), whose scores leave something out, as its status says."""
    from ..errors import EXIT_DEGRADED, EXIT_OK

    return EXIT_OK if manifest.status == "complete" else EXIT_DEGRADED


def write_reports(d: EvalDir, scores: EvalDocument) -> dict[str, Path]:
    """eval.json, eval.md and eval.html, each a pure rendering of `scores`."""
    from .report_html import render_html
    from .report_md import render_md

    doc = eval_json(scores)
    atomic_write_text(d.report(EVAL_JSON), dumps_json(doc) + "\n")
    atomic_write_text(d.report(EVAL_MD), render_md(doc))
    atomic_write_text(d.report(EVAL_HTML), render_html(doc))
    return {name: d.report(name) for name in (EVAL_JSON, EVAL_MD, EVAL_HTML)}


def read_scores(ref: str | Path) -> JsonObject:
    """An eval directory's eval.json, checked to be an `eval` document (EvalDocument), as JSON as
    it was written (`eval_json`): what `compare` reads key by key and `eval run --json` prints."""
    d = locate(ref)
    path = d.report(EVAL_JSON)
    if not path.is_file():
        raise BadSession(f"{d.path} has no {EVAL_JSON} yet", hint=f"score it first: amicus eval score {ref}")
    doc: EvalDocument = _model(EvalDocument, path, "eval document")
    return eval_json(doc)
