"""`amicus council template | pack | gate` — councils as a repeatable review step.

    template list | show NAME      the briefing templates (built-in and user) and their variables
    pack save NAME … | list | show  policy packs: a run's defaults under one name
    gate PATH --fail-on LEVEL      a verdict's outcome as a CI result (exit 0 pass, 4 fail)

None of them calls a model.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine import RUN_FILES, RunDir
from ..errors import EXIT_OK, AmicusError, BadArgs
from ..fsio import dumps_json, read_json
from ..places import PROJECT_DEFAULT
from .option_flags import SETTINGS

if TYPE_CHECKING:
    from ..documents.council import ReReview, Verdict
    from ..schemas import JsonObject


def register_ci(sub: argparse._SubParsersAction) -> None:
    from ..vocabulary import GATE_LEVELS

    parser_class = type(sub.choices["run"])
    template = sub.add_parser("template", help="briefing templates: list, show")
    tsub = template.add_subparsers(dest="template_command", metavar="SUBCOMMAND", parser_class=parser_class)
    tsub.required = True
    _command(tsub, "list", "built-in and user templates with their variables", cmd_template_list, "council-template-list")
    _command(tsub, "show", "one template: what it reviews for, its variables and its text", cmd_template_show,
             "council-template", name="a template name, or a template file")

    pack = sub.add_parser("pack", help="policy packs: a run's defaults under one name (save, list, show)")
    psub = pack.add_subparsers(dest="pack_command", metavar="SUBCOMMAND", parser_class=parser_class)
    psub.required = True
    p = _command(psub, "save", "save the given run flags as pack NAME (overwriting bumps its version)", cmd_pack_save,
                 "council-pack-save", name="the pack's name")
    SETTINGS.add_to(p)  # what a pack may hold (engine/options.py)
    p.add_argument("--description", help="what the pack is for, shown by 'pack list'")
    _command(psub, "list", "the saved packs", cmd_pack_list, "council-pack-list")
    _command(psub, "show", "one pack, saved (by name) or a file (by path)", cmd_pack_show, "council-pack-show",
             name="a saved pack's name, or a pack file")

    p = _command(sub, "gate", "a verdict as a CI result: exit 0 pass, 4 fail (1 error)", cmd_gate, "council-gate")
    p.add_argument("path", metavar="RUN_ID_OR_DIR", help="a council run id, its run directory, or a verdict.json")
    p.add_argument("--project", help=f"the project a run id ran in ({PROJECT_DEFAULT})")
    p.add_argument("--fail-on", required=True, choices=GATE_LEVELS, help="what fails the gate (never … confirmed-blocker; see the README)")
    p.add_argument("--allow-no-verdict", action="store_true", help="pass a chair-verdict level when the run has no chair verdict")
    p.add_argument("--allow-unjudged", action="store_true",
                   help="gate a run that was never cross-reviewed (judged: false) instead of failing it")
    p.add_argument("--gate-on", choices=("all", "new"), default="all",
                   help="new: a re-review (council run --baseline) counts only the blockers new since its baseline")
    p.add_argument("--require-evidence", action="store_true",
                   help="a blocker whose quoted evidence is not in the material (not-found) or was never given "
                        "(absent) does not fail a blocker level on its own; it is still reported")


def _command(sub: argparse._SubParsersAction, command: str, help_text: str, handler: Callable[[argparse.Namespace], int],
             document: str, *, name: str | None = None) -> argparse.ArgumentParser:
    """A subcommand with an optional NAME positional and `--json` printing `document`."""
    p: argparse.ArgumentParser = sub.add_parser(command, help=help_text)
    if name is not None:
        p.add_argument("name", help=name)
    p.add_argument("--json", action="store_true", help=f"print the {document} document")
    p.set_defaults(handler=handler)
    return p


def printed_json(args: argparse.Namespace, doc: Mapping[str, object]) -> bool:
    """Under --json, print the document and say so (the caller then prints nothing else)."""
    if args.json:
        print(dumps_json(doc))
    return bool(args.json)


# --------------------------------------------------------------------------- templates

def cmd_template_list(args: argparse.Namespace) -> int:
    from ..engine import list_templates

    doc = list_templates()
    if printed_json(args, doc):
        return EXIT_OK
    print("Templates:")
    for row in doc["templates"]:
        tag = f"[{row['source']}{', shadowed' if row.get('shadowed') else ''}]"
        if "error" in row:
            print(f"  {row['name']}  {tag}  unreadable: {row['error']}")
            continue
        print(f"  {row['name']}  {tag}  {row['description']}")
        print(f"      variables: {_variables_line(row['variables'])}")
    return EXIT_OK


def _variables_line(variables: Sequence[Mapping[str, object]]) -> str:
    parts = [f"{v['name']} (required)" if v["required"] else f"{v['name']}" + (" (default)" if "default" in v else "")
             for v in variables]
    return ", ".join(parts) or "(none)"


def cmd_template_show(args: argparse.Namespace) -> int:
    from ..engine import show_template

    doc = show_template(args.name)
    if printed_json(args, doc):
        return EXIT_OK
    print(f"Template '{doc['name']}' [{doc['source']}] — {doc['title']}")
    print(f"  {doc['description']}")
    print(f"  source: {doc['path']} ({doc['hash']})")
    print("  variables:")
    for var in doc["variables"]:
        state = "required" if var["required"] else f"default: {var['default']}" if "default" in var else "optional"
        print(f"    {var['name']} ({state}) — {var['description']}")
    print("  use: amicus council run --template " + doc["name"] + " --artifact FILE"
          + "".join(f" --var {v['name']}=…" for v in doc["variables"] if v["required"]))
    return EXIT_OK


# --------------------------------------------------------------------------- packs

def cmd_pack_save(args: argparse.Namespace) -> int:
    from ..engine import save_options_pack

    doc = save_options_pack(args.name, SETTINGS.options(args), description=args.description)
    if not printed_json(args, doc):
        verb = "Overwrote" if doc["overwritten"] else "Saved"
        keys = [k for k in doc["pack"] if k not in ("schemaVersion", "type", "name", "version", "description")]
        print(f"{verb} pack '{doc['name']}' (version {doc['version']}): {', '.join(keys)} → {doc['path']}")
    return EXIT_OK


def cmd_pack_list(args: argparse.Namespace) -> int:
    from ..engine import list_packs

    doc = list_packs()
    if printed_json(args, doc):
        return EXIT_OK
    if not doc["packs"]:
        print("No saved packs ('amicus council pack save NAME --models a,b --chair c' saves one).")
        return EXIT_OK
    print("Packs:")
    for row in doc["packs"]:
        if "error" in row:
            print(f"  {row['name']}  unreadable: {row['error']}")
        else:
            about = f" — {row['description']}" if row.get("description") else ""
            print(f"  {row['name']} v{row['version']}{about}  ({', '.join(row['settings'])})")
    return EXIT_OK


def cmd_pack_show(args: argparse.Namespace) -> int:
    from ..engine import show_pack

    doc = show_pack(args.name)
    if printed_json(args, doc):
        return EXIT_OK
    print(f"Pack '{doc['name']}' v{doc['version']} [{doc['source']}] {doc['path']} ({doc['hash']})")
    for key, value in doc["pack"].items():
        if key not in ("schemaVersion", "type", "name", "version"):
            print(f"  {key}: {value if not isinstance(value, (list, dict)) else dumps_json(value, indent=None)}")
    return EXIT_OK


# --------------------------------------------------------------------------- the gate

def read_verdict_for_gate(path: str, project: str | None = None) -> tuple[Verdict, str]:
    """(the verdict document, the file it came from) for a run id, a run directory or a
    verdict.json — a run id as every other command takes one."""
    target = Path(path)
    if not target.exists():
        found = run_dir_named(path, project)
        if found is None:
            raise BadArgs(f"'{path}' is neither a council run id in this project nor a run directory or verdict file",
                          hint="pass a run id from 'amicus list' (with --project when it ran elsewhere), its run "
                               "directory, or its verdict.json")
        target = found
    if target.is_dir():
        verdict = RunDir(target).verdict_path
        if not verdict.exists():
            raise BadArgs(f"'{path}' holds no verdict.json: {_why_no_verdict(target)}",
                          hint=f"the gate reads a finished run; {_where_to_look(target)}")
        target = verdict
    doc = read_json(target, what="verdict file")
    if not isinstance(doc, dict) or doc.get("type") != "council-verdict":
        raise BadArgs(f"'{target}' is not a council-verdict document", hint="pass a run directory or its verdict.json")
    from ..documents.council import Verdict, check_document

    return check_document(Verdict, doc, what="verdict", where=target), str(target)  # as RunDir.read_verdict checks it


def run_dir_named(target: str, project: str | None) -> Path | None:
    """The directory of the council run `target` names by id in the project; None when it names none."""
    from ..engine import find_run
    from ..engine import SessionStore, resolve_project

    found = find_run(SessionStore(resolve_project(project)), target, by_path=False)
    return found.path if found is not None else None


def _where_to_look(run_dir: Path) -> str:
    """Where a run that wrote no verdict says why — naming only the files it has (a run the CLI
    ran in the foreground has no engine.log; only a spawned worker writes one)."""
    import shlex

    from ..engine import resume_hint

    if not RunDir(run_dir).holds_run():
        return f"pass a council run id, a council run directory (one holding {RUN_FILES.manifest}) or its verdict.json"
    log = f"; {run_dir / RUN_FILES.engine_log} is the engine's own log" if (run_dir / RUN_FILES.engine_log).is_file() else ""
    try:
        manifest = RunDir(run_dir).read()
    except AmicusError:  # unreadable, or not a manifest this amicus reads: status says what it can
        return f"'amicus status {shlex.quote(str(run_dir))}' says what it can of the run{log}"
    resume = resume_hint(RunDir(run_dir), manifest)
    if resume is not None:
        return f"'{resume}' finishes it (nothing it finished is sent again){log}"
    if manifest.status == "running":
        return f"it is still running: 'amicus wait {manifest.run_id}', then gate it{log}"
    if manifest.error is not None:
        return f"'amicus status {shlex.quote(str(run_dir))}' shows its run.json `error`{log}"
    return f"'amicus status {shlex.quote(str(run_dir))}' shows where it stopped{log}"


def _why_no_verdict(run_dir: Path) -> str:
    if not RunDir(run_dir).holds_run():
        return f"it is not a council run directory (no {RUN_FILES.manifest})"
    try:  # read as it is, whatever it is: this explains a directory, it does not run one
        run = RunDir(run_dir).read_raw()
    except BadArgs:
        return f"its {RUN_FILES.manifest} is unreadable"
    error = run.get("error") if isinstance(run, dict) else None
    status = run.get("status") if isinstance(run, dict) else None
    detail = f" ({error.get('code')}: {error.get('message')})" if isinstance(error, dict) else ""
    return f"the run's status is {status}{detail}"


def gate_rereview(run_dir: Path, gate_on: str) -> dict[str, ReReview] | None:
    """--gate-on new: each finding's re-review status (rereview.json beside the verdict)."""
    if gate_on != "new":
        return None
    doc = RunDir(run_dir).read_rereview()
    if doc is None:
        raise BadArgs(f"--gate-on new needs a re-review, and {run_dir} holds no {RUN_FILES.rereview}",
                      hint="run the council with --baseline RUN (the run it re-reviews), then gate that run")
    return {d.id: d.status for d in doc.decisions}


def gate_dismissed(run_dir: Path) -> dict[str, JsonObject] | None:
    """The run's findings that match one the user dismissed before (dismissed.json beside the verdict)."""
    doc = RunDir(run_dir).read_dismissed()
    if doc is None:
        return None
    rd = RunDir(run_dir)
    findings = rd.read_tally()["findings"] if rd.tally_path.is_file() else []
    checks = {f["id"]: f.get("evidenceCheck") for f in findings}
    # dismissed.json's matches (checked by its model when read), each with its finding's evidence check
    return {m.id: {**m.to_doc(), "evidenceCheck": checks.get(m.id)} for m in doc.findings}


def cmd_gate(args: argparse.Namespace) -> int:
    from ..council.gate import evaluate_gate

    verdict, source = read_verdict_for_gate(args.path, args.project)
    doc = evaluate_gate(verdict, args.fail_on, allow_no_verdict=args.allow_no_verdict,
                        allow_unjudged=args.allow_unjudged, require_evidence=args.require_evidence, source=source,
                        rereview=gate_rereview(Path(source).parent, args.gate_on),
                        dismissed=gate_dismissed(Path(source).parent))
    print(dumps_json(doc) if args.json else doc["reason"])
    return int(doc["exitCode"])
