"""The run options' CLI flags, derived from the options model (engine/options.py).

A `FlagSet` names which options a command takes; it adds their flags to the command's parser
and turns the parsed arguments back into the options model, so a flag is never declared
twice and never read by hand. The flags are added when the command is parsed
(`ArgParser.defer`): building them imports the options model, which a command that runs no
council (`council validate`, `amicus list`) never pays for.

    RUN       council run: every run option
    SETTINGS  council pack save: what a policy pack holds
    BENCH     eval run: every option but one run's own (briefing, material, identity); a case's
              briefing options are parsed, never offered, so a refusal can name them
    WAVE      fanout: every wave option
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

from ..eval import BENCH_HELP

if TYPE_CHECKING:
    from ..engine import Declared, Flag

Select = Callable[["Declared"], bool]  # whether the command takes an option


class ArgumentKeywords(TypedDict, total=False):
    """The `add_argument` keywords an option's flag is added with (`_how`)."""

    help: str | None
    action: str | type[argparse.Action]
    default: object
    choices: tuple[object, ...]
    metavar: str
    type: Callable[[str], float]


class FlagSet(NamedTuple):
    model: str  # "run" | "wave" (engine.options.MODELS)
    select: Select
    describe: Mapping[str, str] = MappingProxyType({})  # field → this command's own help
    hide: Select | None = None  # parsed (so a refusal can name it) but never offered in --help

    def declared(self) -> list[tuple[Declared, Flag]]:
        """The options the command takes, each with its flag."""
        from ..engine import declared

        return [(d, flag) for d in declared(self.model) if (flag := d.option.flag) is not None and self.select(d)]

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        """Add the flags when `parser` is parsed (its command was chosen), not before."""
        defer = getattr(parser, "defer", None)
        if defer is None:
            self.add_now(parser)
        else:
            defer(self.add_now)

    def add_now(self, parser: argparse.ArgumentParser) -> None:
        groups: dict[str, argparse._MutuallyExclusiveGroup] = {}
        for d, flag in self.declared():
            target: argparse._ActionsContainer = parser
            if flag.group is not None:
                if flag.group not in groups:
                    groups[flag.group] = parser.add_mutually_exclusive_group()
                target = groups[flag.group]
            how = _how(d, flag)
            if self.hide is not None and self.hide(d):
                how["help"] = argparse.SUPPRESS
            elif d.field in self.describe and how["help"] is not argparse.SUPPRESS:
                how["help"] = self.describe[d.field]
            target.add_argument(flag.name, dest=d.field, **how)

    def options(self, args: argparse.Namespace) -> Any:
        """The options model as this command line typed it (what was not typed keeps its default)."""
        from ..engine import option_models

        values: dict[str, object] = {}
        for d, flag in self.declared():
            value = getattr(args, d.field, None)
            if value is not None:
                parse = flag.parse
                values[d.field] = parse(value) if parse is not None else value
        return option_models()[self.model].given(**values)


def _how(d: Declared, flag: Flag) -> ArgumentKeywords:
    """The add_argument keywords for one option, from its field's type and default."""
    how: ArgumentKeywords = {"help": argparse.SUPPRESS if flag.hidden else flag.help}
    if d.info.annotation is bool:  # a switch: --no-x turns a default-on behaviour off, --x one on
        how.update({"action": "store_false" if d.negated else "store_true", "default": d.info.default})
    elif d.info.annotation == bool | None:  # --x / --no-x, None when neither is typed
        how.update({"action": argparse.BooleanOptionalAction, "default": None})
    elif d.choices is not None:  # a Literal field: one of its values
        how["choices"] = d.choices
    else:  # a value: shown as the flag's own name (`--max-cost MAX_COST`) unless it says otherwise
        how["metavar"] = flag.metavar or flag.name.removeprefix("--").upper().replace("-", "_")
        if flag.repeat:
            how["action"] = "append"
        elif d.is_number and flag.parse is None:  # a flag with its own reader gets the text
            how["type"] = float
    return how


def _all(d: Declared) -> bool:
    return True


RUN = FlagSet("run", _all)
SETTINGS = FlagSet("run", lambda d: d.option.pack is not None)
# A case's own briefing options (--intent, --template, --var) are parsed only to be refused by name.
BENCH = FlagSet("run", lambda d: not d.option.one_run, describe=BENCH_HELP, hide=lambda d: d.option.briefing)
WAVE = FlagSet("wave", _all)
