"""`amicus list --json`: the project's council runs, waves and evals, newest first
(schemas/session-list.schema.json is generated from these declarations)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..vocabulary import AnsweringIntent, ChairLine


class SessionRow(TypedDict):
    """One council run, wave or eval (engine/control.py `list_all`)."""

    id: str
    type: Literal["council-run", "wave", "eval-run"]
    status: str | None
    createdAt: str | None
    models: list[str | None]
    chair: NotRequired[str | None]
    overallVerdict: NotRequired[Annotated[ChairLine | None, Field(
        description="the chair's VERDICT line; a question council's: its ANSWER standing")]]
    intent: NotRequired[Annotated[AnsweringIntent, Field(
        description="emit-when-set: a question or task council (its chair's line is ANSWER)")]]
    cost: float | None
    tag: NotRequired[Annotated[str, Field(description="emit-when-set: the council run's or the eval's tag")]]
    cases: NotRequired[Annotated[int, Field(ge=0, description="an eval's cases: their councils are not listed on "
                                                              "their own (amicus status EVAL_ID names each)")]]


class SessionList(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["session-list"]
    items: list[SessionRow]
