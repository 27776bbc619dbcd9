"""`amicus decisions list | forget ID` — the memory of Stage-4 decisions (engine/decisions.py).

`council verdict --decisions` (and `amicus_verdict`) keep every accept / deny with its reason,
per project, in `council-decisions.json` beside the reliability ledger; a later run marks a
finding that matches a denied one as previously dismissed. `forget` removes one, so a finding
it covered is raised and gated as new again.
"""

from __future__ import annotations

import argparse

from ..errors import EXIT_OK
from ..fsio import dumps_json
from ..places import PROJECT_DEFAULT
from .output import say


def register(commands: argparse._SubParsersAction) -> None:
    decisions = commands.add_parser("decisions", help="remembered Stage-4 decisions (dismissed findings): list, forget")
    sub = decisions.add_subparsers(dest="decisions_command", metavar="SUBCOMMAND", parser_class=type(decisions))
    sub.required = True
    p = sub.add_parser("list", help="the accept / deny decisions kept for a project, with their reasons")
    p.add_argument("--project", help=f"the project ({PROJECT_DEFAULT})")
    p.add_argument("--all", action="store_true", help="every project's")
    p.add_argument("--json", action="store_true", help="print the council-decisions document")
    p.set_defaults(handler=cmd_list)
    p = sub.add_parser("forget", help="drop one remembered decision: its finding is no longer marked dismissed")
    p.add_argument("id", help="the decision's id (D…, from 'amicus decisions list')")
    p.add_argument("--json", action="store_true", help="print the forgotten entry")
    p.set_defaults(handler=cmd_forget)


def cmd_list(args: argparse.Namespace) -> int:
    from ..engine import list_decisions
    from ..engine import resolve_project

    doc = list_decisions(None if args.all else resolve_project(args.project))
    if args.json:
        say(dumps_json(doc))
        return EXIT_OK
    rows = doc["decisions"]
    scope = "every project" if doc["project"] is None else doc["project"]
    if not rows:
        say(f"No remembered decisions for {scope} ('amicus council verdict --decisions' keeps accept / deny ones).")
        return EXIT_OK
    say(f"Remembered decisions for {scope} ({doc['path']}):")
    for row in rows:
        reason = f" — reason: {row['reason']}" if row.get("reason") else ""
        where = f" ({row['location']})" if row.get("location") else ""
        say(f"  {row['id']}  {row['decision']}  run {row['runId']} {row['findingId']} [{row.get('severity')}] "
            f"{row.get('claim') or ''}{where}{reason}")
    return EXIT_OK


def cmd_forget(args: argparse.Namespace) -> int:
    from ..engine import forget

    gone = forget(args.id)
    say(dumps_json(gone) if args.json else f"Forgot {gone['id']} ({gone['decision']} {gone['findingId']} of run {gone['runId']}).")
    return EXIT_OK
