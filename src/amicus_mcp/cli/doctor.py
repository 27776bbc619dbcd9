"""`amicus doctor` — is this machine ready to convene a council?"""

from __future__ import annotations

import argparse

from ..fsio import dumps_json
from .output import say


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("doctor", help="check keys, the catalog, the local model, a browser and the config dir")
    p.add_argument("--fix", action="store_true", help="repair: create the config dir, make the keys file private, "
                                                     "cache the catalog (without it doctor writes nothing)")
    p.add_argument("--offline", action="store_true", help="skip the network check of the model catalog")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    from ..doctor import render, run_checks

    doc = run_checks(fix=args.fix, offline=args.offline)
    say(dumps_json(doc) if args.json else render(doc))
    return 0 if doc["ok"] else 1
