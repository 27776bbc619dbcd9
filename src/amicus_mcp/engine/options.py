"""A run's inputs as one typed document: `options.json` in the run (or wave) directory.

Every front builds the same model from its own inputs — the CLI from its flags, the MCP
tools from their arguments — and pre-flight validates it once. The engine writes it to the
run directory before the first leg; a detached worker (`python -m amicus_mcp.engine.worker
DIR`) reads it back, so no code ever turns options into another front's argv.

What is recorded is what the run runs with — the caller's choices, with a policy pack's
defaults already filled in (`packRecord` says which pack, so it is never read twice) and
paths made absolute — never the run's identity (the run id and directory are the run's own,
in `run.json`): the same inputs give the same document whichever front took them.

None means "not typed": a pack may then supply the value, else pre-flight applies the
default (`briefing_inputs.apply_pack`, then `council_run.prepare`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from ..errors import BadSession
from ..fsio import atomic_write_json, read_json
from ..vocabulary import QUESTION, Intent

OPTIONS_FILE = "options.json"
BRIEFING_FILE = "briefing.md"  # beside it: the briefing as the run read it (a worker briefs off this copy)
DEFAULT_TIMEOUT_MIN = 15.0


class _Options(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    models: list[str] | None = None  # the bench as typed (repeats make twin seats) …
    council: str | None = None  # … or a saved council / built-in bench
    gateway: str | None = None  # auto | direct | openrouter (None: config, else auto)
    cost_gate: bool = True  # refuse models priced above the per-Mtok threshold
    validate_models: bool = Field(True, alias="validateModels")  # check ids against the catalog
    project: str | None = None  # whose sessions dir indexes the run (None: cwd)
    prompt_file: str | None = None  # the briefing as the caller named it
    allow_secrets: bool = False  # send material that looks like it holds a secret (pre-flight refuses it)


class RunOptions(_Options):
    """Everything a council run is asked to do."""

    type: Literal["council-run-options"] = "council-run-options"
    schema_version: Literal[2] = Field(2, alias="schemaVersion")
    chair: str | None = None  # default: DEFAULT_CHAIR, or the embedded model for an all-local bench
    # review (the default) or question. Written to options.json only for a question, so every
    # review's document is unchanged; None until pre-flight resolves it (typed, pack, template).
    intent: Intent | None = None
    max_cost: float | None = None  # whole-run ceiling on known spend, USD
    timeout_min: float | None = Field(None, alias="timeoutMinutes")  # per leg; default DEFAULT_TIMEOUT_MIN
    critic: str | None = None  # a bench member that gets the adversarial brief
    lenses: list[str] | None = None  # one expert lens per seat, assigned at random
    debate: bool | None = None  # Stage 2.5: one rebuttal round (default off)
    claude_review: str | None = None  # a file with Claude's own review, judged but never judging
    template: str | None = None  # a briefing template (name or file) composed with `artifact`
    artifact: str | None = None  # the file the council reviews, for a template
    vars: dict[str, str] | None = None  # the template's variables
    pack: str | None = None  # a policy pack (name or file) supplying the untyped options
    pack_record: dict[str, Any] | None = None  # set by apply_pack: run.json `pack`
    # False for a council an eval runs: its results go to the eval ledger, not the reliability
    # ledger. Written to options.json only when False, so every other run's document is unchanged.
    ledger: bool = True
    # Set by apply_pack for pre-flight's messages: the options the pack supplied.
    pack_fields: tuple[str, ...] = Field((), exclude=True)
    # The run's identity, chosen by the front that starts it; never written to options.json.
    out_dir: str | None = Field(None, exclude=True)
    run_id: str | None = Field(None, exclude=True)

    def document(self) -> dict[str, Any]:
        """The `options.json` document (paths absolute, identity left to run.json)."""
        doc: dict[str, Any] = normalised(self).model_dump(mode="json", by_alias=True)
        if doc.get("ledger") is True:
            del doc["ledger"]
        if doc.get("intent") != QUESTION:
            del doc["intent"]
        return doc

    @property
    def question(self) -> bool:
        return self.intent == QUESTION


class WaveOptions(_Options):
    """Everything a fanout wave is asked to do."""

    type: Literal["wave-options"] = "wave-options"
    schema_version: Literal[2] = Field(2, alias="schemaVersion")
    timeout_min: float = Field(DEFAULT_TIMEOUT_MIN, alias="timeoutMinutes")  # per leg
    wave_id: str | None = Field(None, exclude=True)

    def document(self) -> dict[str, Any]:
        return normalised(self).model_dump(mode="json", by_alias=True)


def normalised(options: RunOptions | WaveOptions) -> Any:
    """The same options with every path made absolute (a worker runs in another cwd)."""
    paths = {name: str(Path(value).expanduser().resolve())
             for name in ("prompt_file", "project", "claude_review", "out_dir", "artifact")
             if isinstance(value := getattr(options, name, None), str)}
    return options.model_copy(update=paths)


def write_options(directory: Path, options: RunOptions | WaveOptions) -> Path:
    return atomic_write_json(directory / OPTIONS_FILE, options.document())


def read_options(directory: Path) -> RunOptions | WaveOptions:
    """A run's or a wave's options.json, validated; BadSession when it is not one."""
    doc = read_json(directory / OPTIONS_FILE, what="run options")
    kind = doc.get("type") if isinstance(doc, dict) else None
    model: type[RunOptions] | type[WaveOptions] | None = {
        "council-run-options": RunOptions, "wave-options": WaveOptions}.get(str(kind))
    if model is None:
        raise BadSession(f"'{directory / OPTIONS_FILE}' is not a run-options document",
                         hint="the file may have been edited by hand")
    try:
        return model.model_validate(doc)
    except ValueError as exc:
        raise BadSession(f"'{directory / OPTIONS_FILE}' is not valid: {exc}".splitlines()[0],
                         hint="the file may have been edited by hand") from None
