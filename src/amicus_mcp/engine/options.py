"""A run's inputs as one typed document: `options.json` in the run (or wave) directory.

Every front builds the same model from its own inputs — the CLI from its flags, the MCP
tools from their arguments, the CI action from its inputs — and pre-flight validates it
once. The engine writes it to the run directory before the first leg; a detached worker
(`python -m amicus_mcp.engine.worker DIR`) reads it back, so no code ever turns options into
another front's argv.

What is recorded is what the run runs with — the caller's choices, with a policy pack's
defaults already filled in (`packRecord` says which pack, so it is never read twice) and
paths made absolute — never the run's identity (the run id and directory are the run's own,
in `run.json`): the same inputs give the same document whichever front took them.

None means "not typed": a pack may then supply the value, else pre-flight applies the
default (`briefing_inputs.apply_pack`, then `preflight.prepare`).

**One declaration per option.** A field a caller can set carries an `Option` in its
annotation: its CLI flag (`Flag`), its MCP tool argument (`Arg`), its key in a policy pack,
and whether options.json writes it only when set. Everything else derives from that field:
the flags (`cli/option_flags.py`), the tools' arguments and the flag → argument names their
errors are written in (`mcp/option_args.py`), the pack's fields (`packs.py`) and what a pack
fills in or saves (`briefing_inputs.py`), the options.json schema and docs/mcp.md's run options' table (`python -m
amicus_mcp.contracts --write` generates both). Adding an option is adding one field here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, NamedTuple, Union, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo
from typing_extensions import TypedDict  # pydantic reads a TypedDict field from typing_extensions before 3.12

from ..errors import BadArgs, BadSession
from ..places import PROJECT_DEFAULT
from ..schemas import JsonObject
from ..vocabulary import (ANSWERING_INTENTS, MODEL_PATTERN, QUESTION, TAG_PATTERN, TASK, VERIFIED_SEVERITIES,
                          VERIFIED_TIERS, GatewayMode, Intent, PackSource, Severity, Tier)

DEFAULT_TIMEOUT_MIN = 15.0
DEFAULT_VERIFY_MAX = 12  # findings --verify checks at most: a bound pre-flight can hold a ceiling to
MAX_VERIFY_MAX = 200
DEFAULT_VERIFY_TOOL_CALLS = 6  # tool calls a verifier may make per finding (where its model supports them)
MAX_VERIFY_TOOL_CALLS = 20
TAG_SHAPE = "1-64 letters, digits, '.', '_' or '-' (no spaces)"  # TAG_PATTERN, in words
TAG_HINT = "a tag is 1-64 letters, digits, '.', '_' or '-', e.g. --tag release-2.3"


class PackRecord(TypedDict):
    """run.json `pack` (documents/run.py PackRecord), as the options carry it: which pack a run was given."""

    name: str
    version: int
    hash: str
    source: PackSource
    path: str


# --------------------------------------------------------------------------- the metadata

class Flag(NamedTuple):
    """The option on the command line. Its type is the field's (a number flag is `type=float`);
    a bool field whose default is True is a `--no-…` switch, a `bool | None` one `--x/--no-x`."""

    name: str  # "--timeout"
    help: str
    metavar: str | None = None
    parse: Callable[[Any], Any] | None = None  # the text typed → the field's value (a comma list, NAME=VALUE pairs)
    repeat: bool = False  # given once per value (`--var a=1 --var b=2`): `parse` gets the list
    group: str | None = None  # the flags of one group are mutually exclusive (the bench: --models XOR --council)
    hidden: bool = False  # accepted, never shown in --help (an id a front chose for a child)


class Arg(NamedTuple):
    """The option as an MCP tool argument. A bool field whose default is True is offered as its
    negation (`noCostGate: true` sets `cost_gate` False)."""

    name: str  # "timeoutMinutes"
    title: str
    description: str
    type: Any = None  # when the tools take a narrower type than the field (a Literal, a bounded list)
    # "file": a file inside the project. ".json" / ".md": a saved name, or — with a path
    # separator or that suffix — a file inside the project (a pack, a template).
    path: str | None = None


class Option(NamedTuple):
    """How the fronts take one field of an options model (see the module docstring)."""

    flag: Flag | None = None
    arg: Arg | None = None
    pack: str | None = None  # its key in a policy pack (council-pack.schema.json)
    pack_type: Any = None  # when a pack holds it narrower than the field (a non-empty string, a positive number)
    # Belongs to one run — its briefing, material or identity — so a pack never holds it and
    # an eval's bench never takes it (each case brings its own).
    one_run: bool = False
    # Makes the briefing (the prompt file, a template, its artifact and variables, Claude's
    # review): an eval refuses it, since every case brings its own.
    briefing: bool = False
    # Written to options.json only when it differs from its default, so the documents (and
    # hashes) of runs from before the option existed are unchanged.
    when_set: bool = False
    omitted: tuple[Any, ...] = ()  # with when_set: further values written as if unset (a review's intent)
    hint: str | None = None  # what a refused value should look like
    shape: str | None = None  # a patterned field: what it may hold, in words (an error never shows the regex)
    doc: str | None = None  # what the key means in options.json: its description in the generated schema
    pack_doc: str | None = None  # what its pack key means: its description in the pack's generated schema


class Declared(NamedTuple):
    """One field of an options model with its `Option`."""

    field: str  # the attribute: "timeout_min"
    info: FieldInfo
    option: Option

    @property
    def negated(self) -> bool:
        """A switch that turns a default-on behaviour off (`--no-cost-gate`, `noCostGate`)."""
        return self.info.annotation is bool and self.info.default is True

    @property
    def annotation(self) -> Any:
        """The field's type with its constraints, without the Option."""
        extra = [m for m in self.info.metadata if not isinstance(m, Option)]
        return Annotated[(self.info.annotation, *extra)] if extra else self.info.annotation

    @property
    def choices(self) -> tuple[Any, ...] | None:
        """The values of a Literal field (`Literal[…] | None` too): a flag's choices."""
        kind = self.info.annotation
        if get_origin(kind) in (Union, UnionType):
            rest = [k for k in get_args(kind) if k is not type(None)]
            kind = rest[0] if len(rest) == 1 else kind
        return get_args(kind) if get_origin(kind) is Literal else None

    @property
    def is_number(self) -> bool:
        kinds = (self.info.annotation, *get_args(self.info.annotation))
        return any(k is float or (get_origin(k) is Annotated and get_args(k)[0] is float) for k in kinds)

    @property
    def key(self) -> str:
        """Its key in options.json."""
        return self.info.alias or self.field


def names_a_file(ref: str, suffix: str) -> bool:
    """Whether a pack or template reference is a file rather than a saved name: it has a path
    separator or the file suffix."""
    return "/" in ref or "\\" in ref or ref.endswith(suffix)


def _bench(raw: str) -> list[str]:
    from ..presets import parse_models_arg

    return parse_models_arg(raw)


def _commas(raw: str) -> list[str]:
    return raw.split(",")


def _pairs(raw: list[str] | None) -> dict[str, str] | None:
    from ..council.templates import parse_var_args

    return parse_var_args(raw) or None


# A sum of dollars as typed: a plain decimal of ASCII digits. Python's float() also reads
# `1_000`, `-0`, `inf`, `1e-400` (which underflows to 0: no ceiling) and non-ASCII digits.
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?", re.ASCII)
DOLLARS_RULE = "a plain decimal number of dollars like 2 or 0.50"


def parse_dollars(text: str) -> float:
    """The one reader of a dollar amount typed as text (the --max-cost flag, the
    AMICUS_DEFAULT_MAX_COST setting, a string tool argument). ValueError unless `text` is a
    plain decimal; a non-zero literal too small (or too large) for a float is an error, so
    only a literal zero is ever 0."""
    raw = text.strip()
    if not _DECIMAL.fullmatch(raw):
        raise ValueError(f"must be {DOLLARS_RULE}, got {text!r}")
    value = float(raw)
    if value == float("inf") or (value == 0 and raw.strip("0.")):
        raise ValueError(f"{text!r} is out of range for a number of dollars")
    return value


def _dollars_value(value: Any) -> Any:
    """A typed amount: text goes through `parse_dollars`; a number must be finite."""
    if isinstance(value, str):
        return parse_dollars(value)
    if isinstance(value, float) and not abs(value) < float("inf"):  # inf, -inf and nan
        raise ValueError("must be a finite number of dollars")
    return value


def _dollars_flag(raw: str) -> float:
    try:
        return parse_dollars(raw)
    except ValueError as exc:
        raise BadArgs(f"--max-cost {exc}", hint="e.g. --max-cost 2.00") from None


Dollars = Annotated[float, BeforeValidator(_dollars_value)]

# The arguments both models share, declared once.
NonEmpty = Annotated[str, Field(min_length=1)]
Positive = Annotated[float, Field(gt=0)]
_COUNCIL_ARG = Arg("council", "Saved council or bench",
                   "A saved council or a built-in bench (free, budget, frontier, local). XOR models")
_MODELS_ARG = Arg("models", "Bench models",
                  "Bench models: aliases, vendor/model ids or agent CLIs (cli:codex, cli:gemini, cli:claude; "
                  "a model after a slash) (repeats make twin seats). XOR council",
                  type=Annotated[list[Annotated[str, Field(pattern=MODEL_PATTERN)]] | None, Field(max_length=10)])
GatewayOption = Annotated[str | None, Option(
    doc="auto | direct | openrouter; null: config, else auto",
    flag=Flag("--gateway", "auto (default) | direct | openrouter"),
    arg=Arg("gateway", "Provider gateway", "auto (default): a direct key when set, else OpenRouter",
            type=GatewayMode | None),
    pack="gateway", pack_type=GatewayMode | None)]
CostGateOption = Annotated[bool, Option(  # refuse models priced above the per-Mtok threshold
    flag=Flag("--no-cost-gate", "allow models priced above the per-Mtok threshold"),
    arg=Arg("noCostGate", "Skip the cost gate", "Allow models priced above the per-Mtok cost gate"))]
ValidateModelsOption = Annotated[bool, Option(  # check ids against the catalog
    flag=Flag("--no-validate-model", "skip the catalog check of model ids"),
    arg=Arg("noValidateModel", "Skip model-id validation",
            "Do not check model ids against the OpenRouter catalog before starting"))]
_PROJECT_ARG = Arg("project", "Project folder",
                   "Project folder (default: $AMICUS_PROJECT_DIR, else the client's root, else the server's cwd)")
_ALLOW_SECRETS_ARG = Arg(
    "allowSecrets", "Allow secrets in the material",
    "Send material that looks like it holds a secret (an API key, a private key, a *_TOKEN= line); "
    "refused by default with SECRET_IN_MATERIAL. Keys configured on this machine are masked either way")


# --------------------------------------------------------------------------- the models

class _Options(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid",
                              defer_build=True)  # built at first use: a wave never builds RunOptions

    # The bench as typed (repeats make twin seats) …
    models: Annotated[list[str] | None, Option(
        doc="the bench as typed (repeats make twin seats)",
        pack_doc="the bench as a model list (exclusive with council)",
        flag=Flag("--models", "comma-separated bench (at least 2 seats; repeats make twin seats)", parse=_bench,
                  group="bench"),
        arg=_MODELS_ARG, pack="models",
        pack_type=Annotated[list[NonEmpty], Field(min_length=2)] | None)] = None
    # … or a saved council / built-in bench.
    council: Annotated[str | None, Option(
        doc="a saved council or a built-in bench",
        pack_doc="the bench as a saved or built-in council name",
        flag=Flag("--council", "a saved council or a built-in bench", group="bench"),
        arg=_COUNCIL_ARG, pack="council", pack_type=NonEmpty | None)] = None
    gateway: GatewayOption = None  # None: config, else auto
    cost_gate: CostGateOption = True
    validate_models: ValidateModelsOption = Field(True, alias="validateModels")
    # Whose sessions dir indexes the run (None: cwd).
    project: Annotated[str | None, Option(
        doc="absolute path of the project whose sessions dir indexes the run",
        flag=Flag("--project", f"the project whose sessions dir indexes the run, and where its run directory goes "
                               f"({PROJECT_DEFAULT})"),
        arg=_PROJECT_ARG)] = None
    # The briefing as the caller named it.
    prompt_file: Annotated[str | None, Option(
        doc="the briefing as the caller named it (absolute); the run reads its own copy, "
            "briefing.md",
        flag=Flag("--prompt-file", "the briefing: what to review and how (or --template with --artifact)"),
        arg=Arg("briefingFile", "Briefing file",
                "The briefing: what to review and how, or the question to answer (a file in the project; never "
                "inline). Or template + artifact",
                path="file"),
        one_run=True, briefing=True)] = None
    # Send material that looks like it holds a secret (pre-flight refuses it).
    allow_secrets: Annotated[bool, Option(
        flag=Flag("--allow-secrets", "send material that looks like it holds a secret "
                                     "(refused by default: SECRET_IN_MATERIAL)"),
        arg=_ALLOW_SECRETS_ARG)] = False

    @classmethod
    def given(cls, **values: Any) -> Any:
        """The options a front was given; a value the model refuses is BAD_ARGS naming the
        option's flag (each front renames flags to its own arguments)."""
        try:
            return cls(**values)
        except ValidationError as exc:
            raise refused(cls, exc) from None


class RunOptions(_Options):
    """Everything a council run is asked to do."""

    # (type and schemaVersion follow the shared fields: options.json keeps its key order.)
    type: Literal["council-run-options"] = "council-run-options"
    schema_version: Literal[2] = Field(2, alias="schemaVersion")
    chair: Annotated[str | None, Option(  # default: DEFAULT_CHAIR, or the embedded model for an all-local bench
        flag=Flag("--chair", "the chair model; must not be a bench seat (default: $AMICUS_DEFAULT_CHAIR, else "
                             "deepseek; one on the bench gives way to the first of gemini, gpt, kimi, glm, mistral "
                             "that is not; the embedded model for the local bench)"),
        arg=Arg("chair", "Chair model", "Chair model; must not be a bench seat (default: the installation's, else "
                                        "deepseek; a default on the bench gives way to the next independent chair)"),
        pack="chair", pack_type=NonEmpty | None)] = None
    # review (the default), question or task; None until pre-flight resolves it (typed, pack,
    # template). options.json writes it only when not a review, so every review's document is unchanged.
    intent: Annotated[Intent | None, Option(
        doc="a question council (its seats answer the question; its chair gives an ANSWER line), "
            "or a task council (reviewed like a review; its chair gives an ANSWER line; no ledger"
            " rows). Written only then: a review's options carry no intent",
        pack_doc="review (the default), question or task: a question council answers a question instead of reviewing"
            " an artifact; a task council is reviewed like a review and its chair ends with an ANSWER line (no "
            "ledger rows)",
        flag=Flag("--intent", "review (the default): review an artifact; question: answer the briefing's question, "
                              "rank the answers and end with an ANSWER line; task: do or decide what the briefing "
                              "asks — reviewed like a review, the chair ends with an ANSWER line, no ledger rows"),
        arg=Arg("intent", "Intent",
                "review (default): the council reviews the briefing's material; question: it answers the "
                "briefing's question — each seat answers, the judges rank the answers and vote on their key "
                "claims, and the chair ends with an ANSWER line; task: it does or decides what the briefing "
                "asks — seats review and raise findings as for a review, the chair ends with an ANSWER line, "
                "and the run writes no reliability rows"),
        pack="intent", when_set=True, omitted=("review",), briefing=True)] = None  # an eval's cases are reviews
    max_cost: Annotated[Dollars | None, Option(  # whole-run ceiling on known spend, USD
        doc="whole-run ceiling on known spend, USD",
        pack_doc="whole-run ceiling on known spend, USD",
        flag=Flag("--max-cost", "whole-run ceiling on known spend, USD", parse=_dollars_flag),
        arg=Arg("maxCost", "Cost ceiling (USD)", "Whole-run ceiling on known spend, USD"),
        pack="maxCost", pack_type=Annotated[Positive, BeforeValidator(_dollars_value)] | None)] = None
    timeout_min: Annotated[float | None, Option(  # per leg; default DEFAULT_TIMEOUT_MIN
        doc="per-leg timeout; null: the default (15)",
        pack_doc="per-leg timeout, minutes",
        flag=Flag("--timeout", "per-leg timeout in minutes (default 15)"),
        arg=Arg("timeoutMinutes", "Per-leg timeout (minutes)", "Per-leg timeout in minutes (default 15)"),
        pack="timeout", pack_type=Positive | None)] = Field(None, alias="timeoutMinutes")
    critic: Annotated[str | None, Option(  # a bench member that gets the adversarial brief
        flag=Flag("--critic", "a bench member that gets the adversarial four-pass brief"),
        arg=Arg("critic", "Critic seat", "A bench model that gets the adversarial brief"),
        pack="critic", pack_type=NonEmpty | None)] = None
    lenses: Annotated[list[str] | None, Option(  # one expert lens per seat, assigned at random
        flag=Flag("--lenses", "comma-separated expert lenses, one per seat (assigned at random; not ledger-recorded)",
                  parse=_commas),
        arg=Arg("lenses", "Expert lenses",
                "One distinct expert lens per seat, e.g. security-architect (not ledger-recorded)"),
        pack="lenses", pack_type=Annotated[list[str], Field(min_length=1)] | None)] = None
    debate: Annotated[bool | None, Option(  # Stage 2.5: one rebuttal round (default off)
        flag=Flag("--debate", "add one rebuttal round for Contested/Disputed findings (--no-debate overrides a pack)"),
        arg=Arg("debate", "Debate round", "Add one rebuttal round for Contested/Disputed findings (default off)"),
        pack="debate")] = None
    # After the tally, a model that raised nothing (the chair's) checks each Confirmed or Contested
    # blocker/major finding against its source: holds / refuted / unsure. options.json writes it only when on.
    verify: Annotated[bool | None, Option(
        doc="--verify: a model that did not raise the finding checks each Confirmed/Contested "
            "blocker or major finding against its source (written only when on)",
        flag=Flag("--verify", "check each Confirmed/Contested blocker or major finding against its source with a "
                              "model that did not raise it (holds / refuted / unsure); refuted findings are marked "
                              "and leave the gate's blocking set"),
        arg=Arg("verify", "Verify findings",
                "After the votes, a model that did not raise the finding (the chair's) checks each Confirmed or "
                "Contested blocker/major finding against its source: holds, refuted or unsure (default off)"),
        pack="verify", when_set=True, omitted=(False,))] = None
    # What --verify checks, and how far (engine/verify.py). None: the defaults (vocabulary.py's
    # VERIFIED_TIERS and VERIFIED_SEVERITIES, DEFAULT_VERIFY_MAX, DEFAULT_VERIFY_TOOL_CALLS);
    # options.json writes each only when typed, so the documents of earlier runs are unchanged.
    verify_tiers: Annotated[Annotated[list[Tier], Field(min_length=1)] | None, Option(
        doc="--verify-tiers: the tiers --verify checks (written only when typed; default "
            "Confirmed, Contested)",
        pack_doc="with verify: the tiers whose findings are checked (default Confirmed, Contested)",
        flag=Flag("--verify-tiers", "with --verify: the tiers whose findings are checked, comma-separated "
                                    "(default Confirmed,Contested)", metavar="TIERS", parse=_commas),
        arg=Arg("verifyTiers", "Verified tiers",
                "With verify: the tiers whose findings are checked (default Confirmed, Contested)"),
        pack="verifyTiers", when_set=True)] = None
    verify_severities: Annotated[Annotated[list[Severity], Field(min_length=1)] | None, Option(
        doc="--verify-severities: the severities --verify checks (written only when typed; "
            "default blocker, major)",
        pack_doc="with verify: the severities whose findings are checked (default blocker, major)",
        flag=Flag("--verify-severities", "with --verify: the severities whose findings are checked, comma-separated "
                                         "(default blocker,major)", metavar="SEVERITIES", parse=_commas),
        arg=Arg("verifySeverities", "Verified severities",
                "With verify: the severities whose findings are checked (default blocker, major)"),
        pack="verifySeverities", when_set=True)] = None
    verify_max: Annotated[Annotated[int, Field(ge=1, le=MAX_VERIFY_MAX)] | None, Option(
        doc="--verify-max: at most this many findings are verified, most severe first (written "
            "only when typed; default 12)",
        pack_doc="with verify: at most this many findings are checked, most severe first (default 12)",
        flag=Flag("--verify-max", f"with --verify: at most this many findings are checked, most severe first "
                                  f"(default {DEFAULT_VERIFY_MAX}); the run says which the cap left unchecked, and "
                                  f"--max-cost pre-flight counts this many verifier legs", metavar="N"),
        arg=Arg("verifyMax", "Most findings verified",
                f"With verify: at most this many findings are checked, most severe first (default "
                f"{DEFAULT_VERIFY_MAX}); the run says which the cap left unchecked"),
        pack="verifyMax", when_set=True)] = None
    verify_tool_calls: Annotated[Annotated[int, Field(ge=0, le=MAX_VERIFY_TOOL_CALLS)] | None, Option(
        doc="--verify-tool-calls: the read-only tool calls a verifier may make per finding "
            "(written only when typed; default 6)",
        pack_doc="with verify: the read-only tool calls a verifier whose model supports them may make per finding "
            "(default 6)",
        flag=Flag("--verify-tool-calls", f"with --verify: the read-only tool calls (read a file or lines, search) a "
                                         f"verifier whose model supports tool calling may make per finding "
                                         f"(default {DEFAULT_VERIFY_TOOL_CALLS}; 0: none, it reads the cited "
                                         f"material only)", metavar="N"),
        arg=Arg("verifyToolCalls", "Verifier tool calls",
                f"With verify: the read-only tool calls (read a file or lines, search the project) a verifier "
                f"whose model supports tool calling may make per finding (default {DEFAULT_VERIFY_TOOL_CALLS}; "
                f"0: none)"),
        pack="verifyToolCalls", when_set=True)] = None
    claude_review: Annotated[str | None, Option(  # a file with Claude's own review, judged but never judging
        doc="absolute path of Claude's own review",
        flag=Flag("--claude-review", "a file with Claude's own review, judged by the bench (never judges or chairs)"),
        arg=Arg("claudeReviewFile", "Claude's review file",
                "Claude's own review (a file in the project), judged by the bench; for a question: Claude's own "
                "answer, in the answer contract", path="file"),
        one_run=True, briefing=True)] = None
    template: Annotated[str | None, Option(  # a briefing template (name or file) composed with `artifact`
        doc="a built-in or user template name, or an absolute template file",
        pack_doc="a template name, or a template file (relative to a pack file's folder)",
        flag=Flag("--template", "a briefing template (built-in or user name, or a file); needs --artifact on a run"),
        arg=Arg("template", "Briefing template",
                "design-doc, pr-diff, plan, prd, essay, question (a question council), a user template, or a "
                "template file in the project: "
                "composes the briefing from artifact (instead of briefingFile)", path=".md"),
        pack="template", pack_type=NonEmpty | None, briefing=True)] = None
    artifact: Annotated[str | None, Option(  # the file the council reviews, for a template
        doc="absolute path of the file the template composes",
        flag=Flag("--artifact", "the file the council reviews, composed into the briefing by --template"),
        arg=Arg("artifact", "Artifact", "The file the council reviews (in the project), composed by template",
                path="file"),
        one_run=True, briefing=True)] = None
    vars: Annotated[dict[str, str] | None, Option(  # the template's variables
        pack_doc="the template's variables; a typed --var wins per key",
        flag=Flag("--var", "a template variable (repeatable)", metavar="NAME=VALUE", parse=_pairs, repeat=True),
        arg=Arg("vars", "Template variables", 'The template\'s variables by name, e.g. {"audience": "the platform team"}'),
        pack="vars", briefing=True)] = None
    pack: Annotated[str | None, Option(  # a policy pack (name or file) supplying the untyped options
        doc="the policy pack the caller named",
        flag=Flag("--pack", "a saved policy pack or a pack file: its settings are this run's defaults"),
        arg=Arg("pack", "Policy pack",
                "A saved pack name, or a pack file in the project: its settings (bench, chair, template, "
                "ceiling…) are this run's defaults; any argument given here overrides that field", path=".json"))] = None
    # A short label recorded on run.json and the ledger rows; `council stats` and `amicus list` filter by it.
    tag: Annotated[Annotated[str, Field(pattern=TAG_PATTERN)] | None, Option(
        doc="the run's tag (run.json tag, the ledger rows' tag); written only when set",
        pack_doc="the runs' tag (run.json tag, the ledger rows' tag)",
        flag=Flag("--tag", "a short label for the run (1-64 letters, digits, '.', '_' or '-'), recorded in run.json "
                           "and the ledger: 'council stats --tag' and 'amicus list --tag' filter by it"),
        arg=Arg("tag", "Run tag", "A short label for the run (1-64 letters, digits, '.', '_' or '-'), recorded in "
                                  "run.json and the ledger: amicus_list and amicus_council_stats filter by it"),
        pack="tag", when_set=True, hint=TAG_HINT, shape=TAG_SHAPE)] = None
    # A re-review: the run whose findings this run's are matched to (new / still open / resolved).
    baseline: Annotated[str | None, Option(
        doc="a re-review's baseline: the earlier run's verdict.json, absolute (council run "
            "--baseline); written only when set",
        flag=Flag("--baseline", "re-review: match this run's findings to an earlier run's (its id, run directory or "
                                "verdict.json) and report each as new, still open or resolved (rereview.json)",
                  metavar="RUN"),
        one_run=True, when_set=True)] = None
    # A re-review's matcher: the model that decides what the location-and-claim pass left unmatched.
    matcher: Annotated[str | None, Option(
        doc="a re-review's matcher model (council run --matcher): decides, for each finding the location and "
            "claim pass left unmatched, which baseline finding it is, if any; written only when set",
        flag=Flag("--matcher", "re-review (with --baseline): a model that decides, for each finding the location "
                               "and claim pass leaves unmatched, which baseline finding it is, if any (a paid call "
                               "under --max-cost; its decisions are recorded in rereview.json)", metavar="MODEL"),
        one_run=True, when_set=True)] = None
    pack_record: PackRecord | None = Field(  # set by apply_pack
        None, description="the pack whose defaults were filled in (run.json pack)")
    # False for a council an eval runs: its results go to the eval ledger, not the reliability ledger.
    ledger: Annotated[bool, Option(
        doc="present (false) only for a council run by an eval: it is not recorded in the reliability ledger (the "
            "eval ledger records its results)", when_set=True)] = True
    # Set by apply_pack for pre-flight's messages: the options the pack supplied.
    pack_fields: tuple[str, ...] = Field((), exclude=True)
    # The run's identity, chosen by the front that starts it; never written to options.json.
    out_dir: Annotated[str | None, Option(
        flag=Flag("--out-dir", "the run directory (default: council-<runId> inside the project)"),
        arg=Arg("outDir", "Run directory", "Run directory inside the project (default council-<runId>)"),
        one_run=True)] = Field(None, exclude=True)
    run_id: Annotated[str | None, Option(flag=Flag("--run-id", "", hidden=True), one_run=True)] = Field(None, exclude=True)

    def document(self) -> JsonObject:
        """The `options.json` document (paths absolute, identity left to run.json): this model's JSON."""
        return _document(self)

    @property
    def question(self) -> bool:
        return self.intent == QUESTION

    @property
    def task(self) -> bool:
        return self.intent == TASK

    @property
    def verify_scope(self) -> tuple[tuple[Tier, ...], tuple[Severity, ...]]:
        """The tiers and severities --verify checks (as typed, else the defaults)."""
        return (tuple(self.verify_tiers or VERIFIED_TIERS), tuple(self.verify_severities or VERIFIED_SEVERITIES))

    @property
    def verify_cap(self) -> int:
        """How many findings --verify checks at most."""
        return self.verify_max if self.verify_max is not None else DEFAULT_VERIFY_MAX

    @property
    def verify_calls(self) -> int:
        """How many tool calls one verifier may make."""
        return self.verify_tool_calls if self.verify_tool_calls is not None else DEFAULT_VERIFY_TOOL_CALLS

    @property
    def answers_chair(self) -> bool:
        """Whether the chair closes on an ANSWER line (a question's, a task's) rather than a VERDICT."""
        return self.intent in ANSWERING_INTENTS


class WaveOptions(_Options):
    """Everything a fanout wave is asked to do."""

    # The same options as a council run's, in a wave's own words.
    models: Annotated[list[str] | None, Option(
        doc="the bench as typed (repeats make twin seats)",
        flag=Flag("--models", "comma-separated aliases or vendor/model ids (repeats allowed)", parse=_bench,
                  group="bench"),
        arg=_MODELS_ARG)] = None
    council: Annotated[str | None, Option(
        doc="a saved council or a built-in bench",
        flag=Flag("--council", "a saved council or a built-in bench (free, budget, frontier)", group="bench"),
        arg=_COUNCIL_ARG)] = None
    project: Annotated[str | None, Option(
        doc="absolute path of the project whose sessions dir indexes the run",
        flag=Flag("--project", f"the project whose sessions dir holds the wave ({PROJECT_DEFAULT})"),
        arg=_PROJECT_ARG)] = None
    prompt_file: Annotated[str | None, Option(
        doc="the briefing as the caller named it (absolute); the run reads its own copy, "
            "briefing.md",
        flag=Flag("--prompt-file", "the prompt (required; prompts are never inline)"),
        arg=Arg("promptFile", "Prompt file", "A prompt file inside the project. XOR prompt", path="file"),
        one_run=True)] = None
    allow_secrets: Annotated[bool, Option(
        flag=Flag("--allow-secrets", "send a prompt that looks like it holds a secret "
                                     "(refused by default: SECRET_IN_MATERIAL)"),
        arg=_ALLOW_SECRETS_ARG)] = False

    type: Literal["wave-options"] = "wave-options"
    schema_version: Literal[2] = Field(2, alias="schemaVersion")
    timeout_min: Annotated[float, Option(  # per leg
        doc="per-leg timeout",
        flag=Flag("--timeout", "per-leg timeout in minutes (default 15)"),
        arg=Arg("timeoutMinutes", "Per-leg timeout (minutes)", "Per-leg timeout in minutes"),
    )] = Field(DEFAULT_TIMEOUT_MIN, alias="timeoutMinutes")
    wave_id: Annotated[str | None, Option(flag=Flag("--wave-id", "", hidden=True), one_run=True)] = Field(None, exclude=True)

    def document(self) -> JsonObject:
        return _document(self)


MODELS: dict[str, type[RunOptions] | type[WaveOptions]] = {"run": RunOptions, "wave": WaveOptions}


# --------------------------------------------------------------------------- derived tables

@cache
def declared(model: str) -> tuple[Declared, ...]:
    """Every field of `MODELS[model]` that carries an Option, in declaration order."""
    out = []
    for name, info in MODELS[model].model_fields.items():
        option = next((m for m in info.metadata if isinstance(m, Option)), None)
        if option is not None:
            out.append(Declared(name, info, option))
    return tuple(out)


def option(model: str, field: str) -> Declared:
    return next(d for d in declared(model) if d.field == field)


def packed() -> Iterator[Declared]:
    """The run options a policy pack may hold."""
    return (d for d in declared("run") if d.option.pack is not None)


def briefing_fields() -> tuple[str, ...]:
    """The run options that make the briefing (an eval's cases bring their own)."""
    return tuple(d.field for d in declared("run") if d.option.briefing)


def flag_of(field: str, model: str = "run") -> str:
    """The CLI flag of an option: how every engine message names it."""
    flag = option(model, field).option.flag
    assert flag is not None, field
    return flag.name


def typed_run_options(texts: Mapping[str, str], **values: object) -> RunOptions:
    """A run's options from text typed per field (the CI action's inputs), each read as its flag
    reads it (a repeated flag: one value a line; a flag's parser: its value), then `values` as
    given; a value the options refuse is BAD_ARGS (RunOptions.given: unset stays unset)."""
    typed: dict[str, object] = {}
    for field, text in texts.items():
        flag = option("run", field).option.flag
        raw: str | list[str] = text
        if flag is not None and flag.repeat:
            raw = [line.strip() for line in text.splitlines() if line.strip()]
        typed[field] = flag.parse(raw) if flag is not None and flag.parse is not None else raw
    return RunOptions.given(**{**typed, **values})


def refused(model: type[BaseModel], exc: ValidationError) -> BadArgs:
    """A value the options model refused, as BAD_ARGS naming the option by its flag."""
    first = exc.errors()[0]
    field = str(first["loc"][0]) if first["loc"] else ""
    key = "run" if issubclass(model, RunOptions) else "wave"
    found = next((d for d in declared(key) if field in (d.field, d.key)), None)
    shown = found.option.flag.name if found is not None and found.option.flag is not None else field
    value = first.get("input")
    text = f"{shown} {value!r}" if isinstance(value, (str, int, float)) else shown
    if first["type"] == "string_pattern_mismatch":  # say what it may hold in words, never the regex
        shape = found.option.shape if found is not None else None
        why = f"it may hold only {shape}" if shape else "it holds characters the option does not take"
    else:
        why = first["msg"]
    return BadArgs(f"{text} is not allowed: {why}",
                   hint=found.option.hint if found is not None and found.option.hint else None)


def _document(options: RunOptions | WaveOptions) -> JsonObject:
    doc: JsonObject = normalised(options).model_dump(mode="json", by_alias=True)
    for d in declared("run" if isinstance(options, RunOptions) else "wave"):
        if d.option.when_set and getattr(options, d.field) in (d.info.default, *d.option.omitted):
            doc.pop(d.key, None)
    return doc


def normalised(options: RunOptions | WaveOptions) -> Any:
    """The same options with every path made absolute (a worker runs in another cwd)."""
    paths = {name: str(Path(value).expanduser().resolve())
             for name in ("prompt_file", "project", "claude_review", "out_dir", "artifact")
             if isinstance(value := getattr(options, name, None), str)}
    return options.model_copy(update=paths)


def check_tag(tag: str) -> str:
    """A tag to filter by (`council stats --tag`, `amicus list --tag`): shaped as a run's is."""
    if not re.fullmatch(TAG_PATTERN, tag):
        raise BadArgs(f"--tag {tag!r} is not allowed: it may hold only {TAG_SHAPE}", hint=TAG_HINT)
    return tag


def write_options(directory: Path, options: RunOptions | WaveOptions) -> Path:
    from ..fsio import atomic_write_json
    from .run_dir import OPTIONS  # the run directory's layout is run_dir.py's (imported late: fsio)

    return atomic_write_json(directory / OPTIONS, options.document())


def read_options(directory: Path) -> RunOptions | WaveOptions:
    """A run's or a wave's options.json, validated; BadSession when it is not one."""
    from ..fsio import read_json
    from .run_dir import OPTIONS

    path = directory / OPTIONS
    doc = read_json(path, what="run options")
    kind = doc.get("type") if isinstance(doc, dict) else None
    models: dict[str, type[RunOptions] | type[WaveOptions]] = {
        "council-run-options": RunOptions, "wave-options": WaveOptions}
    model = models.get(str(kind))
    if model is None:
        raise BadSession(f"'{path}' is not a run-options document",
                         hint="the file may have been edited by hand")
    try:
        return model.model_validate(doc)
    except ValueError as exc:
        raise BadSession(f"'{path}' is not valid: {exc}".splitlines()[0],
                         hint="the file may have been edited by hand") from None
