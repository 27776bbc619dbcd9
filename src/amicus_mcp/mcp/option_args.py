"""The run options as MCP tool arguments, derived from the options model (engine/options.py).

An `ArgumentSet` names which options a tool takes. `takes(SET)` gives the tool handler one
argument per option — its name, title, description and type from the option's `Arg`, so the
published input schema is built from the same field the CLI flag is — and hands the handler
what the call passed as one `Given`, which builds the options model (paths resolved inside
the project). The flag → argument-name map that error messages are renamed with
(`errors.rename_arguments`) comes from the same fields.

    RUN    amicus_council_run: every run option with an argument
    BENCH  amicus_eval: the bench — every option but one run's own and the briefing's (each case
           brings its briefing)
    WAVE   amicus_fanout: every wave option
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

from pydantic import Field

from ..eval import BENCH_HELP

if TYPE_CHECKING:
    from ..engine import Arg, Declared
    from .state import Caller

Select = Callable[["Declared"], bool]  # whether the tool takes an option


class ArgumentSet(NamedTuple):
    model: str  # "run" | "wave" (engine.options.MODELS)
    select: Select
    describe: Mapping[str, str] = MappingProxyType({})  # field → this tool's own description

    def declared(self) -> list[tuple[Declared, Arg]]:
        """The options the tool takes, each with its argument."""
        from ..engine import declared

        return [(d, arg) for d in declared(self.model) if (arg := d.option.arg) is not None and self.select(d)]

    def parameters(self) -> list[inspect.Parameter]:
        """One keyword parameter per option, typed and described for the input schema."""
        return [inspect.Parameter(arg.name, inspect.Parameter.KEYWORD_ONLY,
                                  annotation=self.annotation(d, arg), default=False if d.negated else d.info.default)
                for d, arg in self.declared()]

    def annotation(self, d: Declared, arg: Arg) -> Any:
        kind = bool if d.negated else arg.type if arg.type is not None else d.annotation
        return Annotated[kind, Field(title=arg.title, description=self.describe.get(d.field, arg.description))]


class Given:
    """The option arguments one call passed (by field), and the options model they make."""

    def __init__(self, arguments: ArgumentSet, values: dict[str, object]):
        self.arguments = arguments
        self.values = values  # by field, as the SDK checked them against the arguments' annotations

    def text(self, name: str) -> str | None:
        """A text argument (a project, a directory) as the call passed it; None when it passed none."""
        value = self.values.get(name)
        return value if isinstance(value, str) else None

    def options(self, caller: Caller, root: Path, **fixed: Any) -> Any:
        """The options model: a negated switch turned round (`noCostGate: true` → cost_gate
        False), every path resolved inside the project, the project itself as `root`, and the
        `fixed` values the handler chose (a run id, a run directory)."""
        from ..engine import names_a_file, option_models
        from ..fsio import checked_name

        values: dict[str, object] = {}
        for d, arg in self.arguments.declared():
            value = self.values.get(d.field)  # what the call passed: the options model checks it
            if value is None:
                continue
            if d.negated:
                value = not value
            path = arg.path
            if path is not None and isinstance(value, str):  # a path argument is text (its annotation)
                checked_name(value, arg.name)  # a file, or a saved name that becomes one: no control characters
                if path == "file" or names_a_file(value, path):
                    value = str(caller.inside(root, value, what=arg.name))
            values[d.field] = value
        return option_models()[self.arguments.model].given(**{**values, "project": str(root), **fixed})


Handler = Callable[..., Awaitable[Any]]


def takes(arguments: ArgumentSet) -> Callable[[Handler], Any]:
    """A tool handler `(self, ctx, given: Given, …own arguments)` as one whose signature — what
    the SDK builds the input schema from — has the options' arguments in place of `given`:
    the handler's required arguments first, then the options', then its optional ones."""

    def wrap(handler: Handler) -> Any:
        return _OptionTool(handler, arguments)

    return wrap


class _OptionTool:
    """The method `takes` makes: looked up on an instance, a plain function of (ctx, **arguments)
    whose signature lists every argument (a bound method's would hide the rewrite)."""

    def __init__(self, handler: Handler, arguments: ArgumentSet):
        self.handler, self.arguments = handler, arguments
        functools.update_wrapper(self, handler)  # type: ignore[arg-type]  # typeshed wants a callable; a descriptor takes the name and doc too

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        handler, arguments = self.handler, self.arguments
        hints = typing.get_type_hints(handler, include_extras=True)
        own = [p.replace(annotation=hints.get(p.name, p.annotation), kind=inspect.Parameter.KEYWORD_ONLY)
               for p in list(inspect.signature(handler).parameters.values())[1:]]
        ctx, rest = own[0], [p for p in own[1:] if p.name != "given"]
        names = {arg.name: d.field for d, arg in arguments.declared()}
        required = [p for p in rest if p.default is inspect.Parameter.empty]
        optional = [p for p in rest if p.default is not inspect.Parameter.empty]
        parameters = [ctx, *required, *arguments.parameters(), *optional]

        @functools.wraps(handler)
        async def run(**called: Any) -> Any:
            context = called.pop(ctx.name)
            given = Given(arguments, {names[k]: called.pop(k) for k in list(called) if k in names})
            return await handler(instance, context, given, **called)

        run.__signature__ = inspect.Signature(parameters, return_annotation=hints.get("return"))  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in parameters}
        return run


@functools.cache
def flag_arguments(model: str) -> dict[str, str]:
    """How the tools name each option's CLI flag (`--max-cost` → `maxCost`); a switch is named
    with the value it is given (`--no-cost-gate` → `noCostGate: true`)."""
    from ..engine import declared

    names: dict[str, str] = {}
    for d in declared(model):
        if d.option.flag is None or d.option.arg is None:
            continue
        switch = d.info.annotation is bool or d.info.annotation == bool | None
        names[d.option.flag.name] = f"{d.option.arg.name}: true" if switch else d.option.arg.name
    return names


RUN = ArgumentSet("run", lambda d: True)
BENCH = ArgumentSet("run", lambda d: not d.option.one_run and not d.option.briefing, describe={
    "pack": "A saved pack name, or a pack file in the project: its bench settings are this eval's defaults "
            "(its template is not used: every case brings its own briefing)",
    **{field: text[0].upper() + text[1:] for field, text in BENCH_HELP.items()},
})
WAVE = ArgumentSet("wave", lambda d: True)
