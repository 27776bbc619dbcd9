"""`amicus keys set | list | unset` — the keys file, `$AMICUS_CONFIG_DIR/.env` (kept 0600).

A key's value is read from standard input (hidden when typed at a terminal), never from the
command line, where it would land in shell history; and it is never printed back.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..errors import EXIT_OK, BadArgs
from ..fsio import dumps_json
from .output import say

if TYPE_CHECKING:  # the documents' declarations (schemas/keys.schema.json is generated from them)
    from ..documents.commands import KeyRow, KeysList, KeysSet, KeysUnset
    from ..vocabulary import KeySource


def register(commands: argparse._SubParsersAction) -> None:
    keys = commands.add_parser("keys", help="set, list or remove provider keys in the config dir's .env")
    sub = keys.add_subparsers(dest="keys_command", metavar="SUBCOMMAND", parser_class=type(keys))
    sub.required = True
    p = sub.add_parser("set", help="store a key (its value is read from stdin, hidden at a terminal)")
    p.add_argument("name", help="e.g. OPENROUTER_API_KEY")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_set)
    p = sub.add_parser("list", help="which keys are set, and where (names only)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_list)
    p = sub.add_parser("unset", help="remove a key from the keys file")
    p.add_argument("name")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_unset)


def _read_value(name: str) -> str:
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass(f"{name}: ").strip()
    line = sys.stdin.readline()
    if not line.strip():
        raise BadArgs(f"no value for {name} on standard input", hint=f"printf '%s' \"$KEY\" | amicus keys set {name}")
    return line.strip()


def cmd_set(args: argparse.Namespace) -> int:
    from ..providers.keys import set_key

    path = set_key(args.name, _read_value(args.name))
    doc: KeysSet = {"schemaVersion": 2, "type": "keys", "set": args.name, "file": str(path)}
    say(dumps_json(doc) if args.json else f"Stored {args.name} in {path} (readable only by you).")
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    import os

    from ..providers.endpoints import DIRECT_VENDORS, OPENROUTER_KEY_ENV
    from ..places import env_file_path
    from ..providers.keys import file_key_names

    in_file = set(file_key_names())
    known = [OPENROUTER_KEY_ENV, *(n for v in DIRECT_VENDORS.values() for n in v.key_names)]
    rows: list[KeyRow] = []
    for name in sorted(set(known) | in_file):
        where: list[KeySource] = []
        if os.environ.get(name):
            where.append("environment")
        if name in in_file:
            where.append("file")
        rows.append({"name": name, "setIn": where})
    if args.json:
        listed: KeysList = {"schemaVersion": 2, "type": "keys", "file": str(env_file_path()), "keys": rows}
        say(dumps_json(listed))
        return EXIT_OK
    for row in rows:
        say(f"  {row['name']:<30} {', '.join(row['setIn']) or 'not set'}")
    say(f"  (keys file: {env_file_path()}; the environment wins over the file)")
    return EXIT_OK


def cmd_unset(args: argparse.Namespace) -> int:
    from ..providers.keys import unset_key

    removed = unset_key(args.name)
    if args.json:
        unset: KeysUnset = {"schemaVersion": 2, "type": "keys", "unset": args.name, "removed": removed}
        say(dumps_json(unset))
    else:
        say(f"Removed {args.name}." if removed else f"{args.name} was not in the keys file.")
    return EXIT_OK
