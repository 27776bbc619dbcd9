"""The documents of the CLI's own commands (their shipped schemas are generated from these
declarations: python -m amicus_mcp.contracts):

    cost-estimate      `amicus fanout --estimate --json` (engine/fanout.py)
    doctor             `amicus doctor --json` (doctor.py)
    keys               `amicus keys set|list|unset --json` (cli/keys.py)
    council-presets    `amicus council save|list|show --json` (presets.py, engine/preflight.py)
    council-packs      `amicus council pack save|list|show --json` (engine/packs.py)
    council-templates  `amicus council template list|show --json` (engine/briefing_inputs.py)

TypedDicts: the writers build plain dicts, and import these for type checking only (a command
pays no pydantic import for its output).
"""

from __future__ import annotations

from typing import Annotated, Literal, final

from pydantic import ConfigDict, Field, with_config
from typing_extensions import NotRequired, TypedDict

from ..schemas import JsonObject
from ..vocabulary import (AgentSeat, CatalogState, DoctorCheck, DoctorStatus, KeySource, PackSource,
                          PreflightCostSource, TemplateSource)
from .run import Sha256Tagged

_CLOSED = ConfigDict(extra="forbid")
Hash = Sha256Tagged
PackVersion = Annotated[int, Field(ge=1)]
# A pack as its file holds it: schemas/council-pack.schema.json (engine/packs.py's PackDocument).
Pack = Annotated[JsonObject, Field(json_schema_extra={"$ref": "council-pack.schema.json"})]


# --------------------------------------------------------------------------- cost-estimate

class EstimateFigures(TypedDict):
    """A pre-flight estimate as documents carry it (providers/cost.py `CostEstimate.to_doc`)."""

    amount: Annotated[float | None, Field(ge=0)]
    currency: Literal["USD"]
    source: PreflightCostSource
    pricedLegs: Annotated[int, Field(ge=0)]
    unpricedLegs: list[str]


class CostEstimateDocument(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["cost-estimate"]
    legs: Annotated[int, Field(ge=1)]
    estimate: EstimateFigures
    summary: str


# --------------------------------------------------------------------------- doctor

@with_config(_CLOSED)
class CheckRow(TypedDict):
    name: DoctorCheck
    status: DoctorStatus
    detail: str
    hint: str | None


@with_config(_CLOSED)
class AgentRow(TypedDict):
    """One agent CLI as `doctor` reports it."""

    name: AgentSeat
    title: str
    binary: str
    package: Annotated[str, Field(description="The npm package that installs it.")]
    found: Annotated[bool, Field(description="On PATH.")]
    path: str | None
    version: str | None
    supported: Annotated[bool, Field(description="Its version is one amicus supports.")]
    loggedIn: bool
    ready: Annotated[bool, Field(description="Found, supported and logged in: it can sit on a bench.")]
    problem: str | None
    fix: Annotated[str | None, Field(description="The command that fixes `problem` (install or log in).")]


class DoctorReport(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["doctor"]
    ok: bool
    checks: list[CheckRow]
    agents: Annotated[list[AgentRow], Field(description="Every supported agent CLI (a `cli:` seat), found or not.")]


# --------------------------------------------------------------------------- keys

@with_config(_CLOSED)
class KeyRow(TypedDict):
    name: str
    setIn: list[KeySource]


class KeysSet(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["keys"]
    set: str
    file: str


class KeysList(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["keys"]
    file: str
    keys: list[KeyRow]


class KeysUnset(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["keys"]
    unset: str
    removed: bool


KeysDocument = KeysSet | KeysList | KeysUnset


# --------------------------------------------------------------------------- council presets

class CouncilSave(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-save"]
    name: str
    members: Annotated[list[str], Field(min_length=2)]
    overwritten: bool


class CouncilRow(TypedDict):
    name: str
    members: list[str]
    builtin: bool
    shadowed: NotRequired[Literal[True]]


class CouncilList(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-list"]
    councils: list[CouncilRow]


class DroppedMemberDoc(TypedDict):
    member: str
    reason: str


class NamedBench(TypedDict):
    """A named bench resolved as `--council` resolves it, before the catalog's say (presets.py)."""

    schemaVersion: Literal[2]
    type: Literal["council-show"]
    name: str
    builtin: bool
    members: list[str]
    resolved: list[str]
    dropped: list[DroppedMemberDoc]


class CatalogCheck(TypedDict):
    checked: bool
    state: Annotated[CatalogState | None, Field(description="null when no member is looked up in the catalog")]
    fetchedAt: str | None
    note: Annotated[str | None, Field(description="why it was not checked, or what it was checked against when that "
                                                  "was not a fresh catalog")]


class CouncilShow(NamedBench):
    """`council show`: the bench with the model catalog's say (engine/preflight.py `preview_council`)."""

    catalog: Annotated[CatalogCheck, Field(description=(
        "Whether `resolved` was checked against the OpenRouter model catalog (fetched as a run fetches it; the cache "
        "only under --offline). Unchecked, a member that left the catalog still shows as resolved."))]


CouncilPresetDocument = CouncilSave | CouncilList | CouncilShow


# --------------------------------------------------------------------------- council packs

class PackSave(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-pack-save"]
    name: str
    version: PackVersion
    overwritten: bool
    path: str
    pack: Pack


class PackRow(TypedDict):
    """One saved pack of `council pack list`: its figures, or (unreadable) its problem."""

    name: str
    path: str
    version: NotRequired[PackVersion]
    hash: NotRequired[Hash]
    description: NotRequired[str]
    settings: NotRequired[list[str]]
    error: NotRequired[Annotated[str, Field(
        description="present instead of version/hash/settings when the file does not load")]]


class PackList(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-pack-list"]
    packs: list[PackRow]


class PackShow(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-pack-show"]
    name: str
    version: PackVersion
    hash: Hash
    source: PackSource
    path: str
    pack: Pack


CouncilPackDocument = PackSave | PackList | PackShow


# --------------------------------------------------------------------------- briefing templates

@with_config(_CLOSED)
class TemplateVariableDoc(TypedDict):
    """A template's variable (council/templates.py `BriefingTemplate.describe`)."""

    name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,31}$")]
    required: bool
    default: NotRequired[Annotated[str, Field(description="present only when the template gives one")]]
    description: str


class _TemplateKeys(TypedDict):
    name: str
    source: TemplateSource
    path: Annotated[str, Field(description="the file, or builtin:NAME")]
    hash: Hash
    title: str
    description: str
    variables: list[TemplateVariableDoc]
    shadowed: NotRequired[Annotated[Literal[True], Field(
        description="a built-in hidden by a user template of the same name")]]
    intent: NotRequired[Annotated[Literal["question"], Field(
        description="the template frames a question for a question council (absent: it frames a review)")]]


@final  # a list's row is one or the other: `"error" in row` tells them apart
class TemplateRow(_TemplateKeys):
    """A template as `council template list` gives it (engine/briefing_inputs.py `LoadedTemplate.document`)."""

    body: NotRequired[str]


@final
class BrokenTemplate(TypedDict):
    """A user template that does not load, listed with its problem."""

    name: str
    source: Literal["user"]
    path: str
    error: str


class TemplateList(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-template-list"]
    templates: list[TemplateRow | BrokenTemplate]


class TemplateShow(_TemplateKeys):
    schemaVersion: Literal[2]
    type: Literal["council-template"]
    body: str


CouncilTemplateDocument = TemplateList | TemplateShow
