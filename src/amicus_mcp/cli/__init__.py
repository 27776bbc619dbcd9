"""`amicus` — the command line. Parses arguments, calls the library, formats the result.

Every failure leaves through one place (`main`): an `AmicusError` becomes the error envelope
on stdout under `--json`, or `message` + `  → hint` on stderr otherwise, and the process exits
with the error's documented code. Nothing here prints a traceback. Bad input is never a bug:
what Python itself refuses to handle (nesting past the recursion limit, an integer too long
to convert, a string that cannot be encoded) is BAD_ARGS. Everything printed goes through
`output.say` (masked, terminal-safe, quiet when the reader of a pipe has gone).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from .. import __version__
from ..errors import AmicusError, BadArgs, InternalError
from .output import flush_all, say

Handler = Callable[[argparse.Namespace], int]


class ArgParser(argparse.ArgumentParser):
    """argparse that reports usage errors as BAD_ARGS instead of exiting with its own code 2
    (2 means "degraded" / "invalid" in this CLI's exit-code contract)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.deferred: list[Callable[[argparse.ArgumentParser], None]] = []
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise BadArgs(message, hint=f"see '{self.prog} --help'", command=self.prog.removeprefix("amicus").strip() or None)

    def defer(self, add: Callable[[argparse.ArgumentParser], None]) -> None:
        """Add arguments only when this (sub)command is parsed: the run options' flags are
        built from the options model, which no other command needs to import."""
        self.deferred.append(add)

    def complete(self) -> ArgParser:
        """This parser with every deferred argument added."""
        while self.deferred:
            self.deferred.pop(0)(self)
        return self

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.complete()
        return super().parse_known_args(args, namespace)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        """An argument no parser took is the chosen subcommand's error (its `--help` is the
        one that lists its flags), not the top-level parser's."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.chosen(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def chosen(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The innermost (sub)command parser the parsed arguments name (`amicus council run`)."""
        parser: argparse.ArgumentParser = self
        while True:
            sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
            name = getattr(parsed, sub.dest, None) if sub is not None else None
            if sub is None or name not in sub.choices:
                return parser
            parser = sub.choices[name]


# Each command's module, in the order `amicus --help` lists them; a module may register several.
COMMANDS: dict[str, str] = {
    "council": "council", "eval": "eval", "fanout": "fanout",
    "status": "sessions", "list": "sessions", "abort": "sessions", "wait": "sessions",
    "watch": "watch", "doctor": "doctor", "keys": "keys", "decisions": "decisions",
}


def build_parser(argv: Sequence[str] | None = None) -> ArgParser:
    """The command line's parser. Given the arguments, only the named command's module is
    imported and registered (a command pays only for itself); without them, or when they name
    no command (`--help`, a typo), every command is, so help and errors list them all."""
    parser = ArgParser(prog="amicus", description="Convene a council of other LLMs to review an artifact.")
    parser.add_argument("--version", action="version", version=f"amicus {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgParser)
    commands.required = True
    named = _command_word(argv) if argv is not None else None
    modules = [COMMANDS[named]] if named in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for module in modules:
        importlib.import_module(f"{__name__}.{module}").register(commands)
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    """The command the arguments name: their first word, when no option comes before it."""
    return argv[0] if argv and not argv[0].startswith("-") else None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    code = _dispatch(argv)
    flush_all()  # a `| head` that stopped reading must not turn a finished command into exit 1
    return code


def console() -> NoReturn:
    """The `amicus` process: `main`, then exit without tearing the interpreter down.

    When `main` returns the command is over: every file it wrote is closed (writes are
    atomic, each through its own `with`), stdout and stderr are flushed, and no thread of its
    own is left running. What a normal exit adds is unloading every module and collecting
    their objects, ~40-60 ms of a council run on these machines (bench/council_overhead.py)
    and of no use to anyone; `os._exit` ends the process with the command's code instead."""
    code = main()
    os._exit(code)


def _dispatch(argv: list[str]) -> int:
    as_json = "--json" in argv
    try:
        args = build_parser(argv).parse_args(argv)
        handler: Handler = args.handler
        return handler(args)
    except AmicusError as err:
        return report_error(err, as_json=as_json, command=_command_name(argv))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0  # the reader went away (a pager, `head`): not a failure of the command
    except (RecursionError, UnicodeError) as exc:
        bad = BadArgs(_bad_input(exc), hint="check the input files: amicus reads plain, finite, shallow JSON and text")
        return report_error(bad, as_json=as_json, command=_command_name(argv))
    except Exception as exc:  # a bug: say what happened, never dump a traceback on the user
        bug = InternalError(f"{type(exc).__name__}: {exc}", hint="this is a bug in amicus; please report it with the command you ran")
        return report_error(bug, as_json=as_json, command=_command_name(argv))


def _bad_input(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to process"
    return f"the input holds text that cannot be processed ({type(exc).__name__})"


def report_error(err: AmicusError, *, as_json: bool, command: str | None) -> int:
    from ..fsio import dumps_json

    if err.command is None:
        err.command = command
    if as_json:
        say(dumps_json(err.to_envelope()))
    else:
        say(f"Error: {err.message}", err=True)
        if err.hint:
            say(f"  → {err.hint}", err=True)
    return err.exit_code


def _command_name(argv: list[str]) -> str | None:
    words = [a for a in argv[:2] if not a.startswith("-")]
    return " ".join(words) or None
