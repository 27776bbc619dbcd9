"""Argument types shared by the tools: each becomes a titled, described property of an input schema.

`arg` is the one way a tool argument is declared, so every argument carries a human title
and a description (never pydantic's generated `Briefingfile`). The run options' arguments
are not declared here: they derive from the options model (`option_args`), and so does
`Project`, which every tool takes.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any

from pydantic import Field

from ..vocabulary import MODEL_PATTERN, TAG_PATTERN, ChairLine
from .option_args import RUN, flag_arguments

__all__ = ["MODEL_PATTERN", "TASK_ID_PATTERN", "Project", "RunRef", "TagFilter", "Verdict", "arg", "argument_names"]

TASK_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"


def arg(title: str, description: str, **constraints: Any) -> Any:
    """The schema of one tool argument: a title, a description and any constraints."""
    return Field(title=title, description=description, **constraints)


Project = RUN.annotation(*next((d, arg) for d, arg in RUN.declared() if d.field == "project"))
# What status / wait / read / abort take: an id, or a council run's directory inside the project roots.
RunRef = Annotated[str, arg("Run, wave or leg", "A council run id or run directory (inside the project), a wave id or "
                                                "a leg id", min_length=1, max_length=4096)]
Verdict = ChairLine  # the chair's VERDICT line, or a question council's ANSWER standing (vocabulary)
TagFilter = Annotated[str | None, arg("Run tag", "Only the council runs started with this tag", pattern=TAG_PATTERN)]

# The eval tool's own arguments, by the `amicus eval run` flag engine messages use.
EVAL_FLAGS = {"--matcher": "matcher", "--suite": "suite", "--case": "cases"}
# `--prompt-file` is a different argument in each start tool (each model names its own).
PROMPT_FILE_MODEL = {"amicus_council_run": "run", "amicus_fanout": "wave"}


@cache
def argument_names(tool: str) -> dict[str, str]:
    """The flag → argument-name map for one tool's error messages (see `errors.rename_arguments`):
    the run options' as their fields declare them, the eval's own, and the tool's `--prompt-file`."""
    names = {**flag_arguments("run"), **EVAL_FLAGS}
    del names["--prompt-file"]
    if tool in PROMPT_FILE_MODEL:
        names["--prompt-file"] = flag_arguments(PROMPT_FILE_MODEL[tool])["--prompt-file"]
    return names
