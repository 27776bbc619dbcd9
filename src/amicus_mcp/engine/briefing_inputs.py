"""A run's inputs before pre-flight: the pack it starts from, the template and the artifact.

One home for turning what a caller typed into a run's options, used by every front (the CLI
`council run`, the MCP tool `amicus_council_run`, the detached child, the CI action):

    apply_pack(options)       fills every option the caller did not type from the pack, and
                              records which options the pack supplied (for error messages)
    compose_briefing(options) the briefing from a template and an artifact, with the run.json
                              records of both
    blame_pack(options, …)    re-raises a pre-flight error about a pack-supplied value with
                              "(set by pack 'NAME')" added

Templates are found as a file path, else by name in the user's `<config dir>/templates/`
(which shadows a built-in of the same name), else among the built-ins shipped in
`amicus_mcp/templates/`. Composition itself is pure (`council/templates.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, NotRequired, TypedDict

from ..config import config_dir
from ..council.templates import BriefingTemplate, check_known_values, compose, parse_template, resolve_values
from ..errors import AmicusError, BadArgs, MissingPrompt
from ..front import command
from ..fsio import read_bytes_bounded, read_text
from ..schemas import JsonObject
from ..textcodec import NotText, decode_text
from ..vocabulary import QUESTION, REVIEW, TASK, TemplateSource
from .packs import LoadedPack, load_pack, sha256_of

if TYPE_CHECKING:  # the documents' declarations (schemas/council-templates.schema.json is generated from them)
    from ..documents.commands import BrokenTemplate, PackSave, TemplateList, TemplateRow, TemplateShow
    from .options import RunOptions

TEMPLATES_DIR = "templates"
MAX_TEMPLATE_BYTES = 64 * 1024
# About 100k tokens of English: past this a council is the wrong tool for one briefing, and
# every seat and judge would be billed for it again.
MAX_ARTIFACT_BYTES = 400 * 1024

class TemplateRecord(TypedDict):
    """run.json `inputs.template`: which template composed the briefing, with what."""

    name: str
    source: TemplateSource
    hash: str
    path: str
    vars: NotRequired[dict[str, str]]
    intent: NotRequired[str]


class ArtifactRecord(TypedDict):
    """run.json `inputs.artifact`: the artifact the template was given."""

    path: str
    hash: str
    bytes: int


class BriefingRecords(TypedDict):
    template: TemplateRecord
    artifact: ArtifactRecord


# --------------------------------------------------------------------------- templates

class LoadedTemplate(NamedTuple):
    template: BriefingTemplate
    source: TemplateSource
    path: str
    hash: str

    def record(self) -> TemplateRecord:
        """What run.json records: `template: {name, source, hash, path}`."""
        return {"name": self.template.name, "source": self.source, "hash": self.hash, "path": self.path}

    def document(self) -> TemplateRow:
        doc: TemplateRow = {"name": self.template.name, "source": self.source, "path": self.path,
                            "hash": self.hash, "title": self.template.title,
                            "description": self.template.description, "variables": self.template.describe()}
        if self.template.intent == QUESTION:  # emit when set: a review template's document is unchanged
            doc["intent"] = "question"
        return doc


def user_templates_dir() -> Path:
    return config_dir() / TEMPLATES_DIR


def is_template_file(ref: str) -> bool:
    from .options import names_a_file

    return names_a_file(ref, ".md")


def _builtin_names() -> list[str]:
    folder = files("amicus_mcp").joinpath(TEMPLATES_DIR)
    return sorted(entry.name[:-3] for entry in folder.iterdir() if entry.name.endswith(".md"))


def known_templates() -> str:
    """Every template a run can name, for a hint (a Desktop user has no `template list`)."""
    return ", ".join(sorted({*_builtin_names(), *_user_names()}))


def _user_names() -> list[str]:
    folder = user_templates_dir()
    return sorted(p.stem for p in folder.glob("*.md")) if folder.is_dir() else []


def _load_builtin(name: str) -> LoadedTemplate:
    entry = files("amicus_mcp").joinpath(TEMPLATES_DIR, f"{name}.md")
    raw = entry.read_bytes()
    return LoadedTemplate(parse_template(name, decode_text(raw)), "builtin", f"builtin:{name}", sha256_of(raw))


def _load_file(path: Path, name: str, source: TemplateSource) -> LoadedTemplate:
    text = read_text(path, what="template", limit=MAX_TEMPLATE_BYTES,
                     hint="a template frames the artifact; the material belongs in --artifact")
    return LoadedTemplate(parse_template(name, text), source, str(path), sha256_of(text.encode("utf-8")))


def load_template(ref: str) -> LoadedTemplate:
    """A template by file path, else by name (user templates shadow built-ins)."""
    if is_template_file(ref):
        path = Path(ref).expanduser().resolve()
        return _load_file(path, path.stem, "file")
    if ref in _user_names():
        return _load_file(user_templates_dir() / f"{ref}.md", ref, "user")
    if ref in _builtin_names():
        return _load_builtin(ref)
    listing = command("amicus council template list")
    raise BadArgs(f"unknown template '{ref}'", hint=f"templates: {known_templates()}; or pass a template file path"
                                                    + (f" ({listing} describes each)" if listing else ""))


def list_templates() -> TemplateList:
    """Built-ins and user templates; a user template that does not parse is listed with its error."""
    rows: list[TemplateRow | BrokenTemplate] = []
    users = set(_user_names())
    for name in sorted(users):
        try:
            rows.append(_load_file(user_templates_dir() / f"{name}.md", name, "user").document())
        except AmicusError as err:
            rows.append({"name": name, "source": "user", "path": str(user_templates_dir() / f"{name}.md"), "error": err.message})
    for name in _builtin_names():
        row = _load_builtin(name).document()
        if name in users:
            row["shadowed"] = True
        rows.append(row)
    return {"schemaVersion": 2, "type": "council-template-list", "templates": rows}


def show_template(ref: str) -> TemplateShow:
    loaded = load_template(ref)
    return {"schemaVersion": 2, "type": "council-template", **loaded.document(), "body": loaded.template.body}


# --------------------------------------------------------------------------- the artifact

class Artifact(NamedTuple):
    path: Path
    text: str
    hash: str
    bytes: int

    def record(self) -> ArtifactRecord:
        return {"path": str(self.path), "hash": self.hash, "bytes": self.bytes}


def read_artifact(ref: str) -> Artifact:
    """The artifact as text: refused when missing, a directory, binary or past the size limit."""
    path = Path(ref).expanduser().resolve()
    if path.is_dir():
        raise BadArgs(f"--artifact '{ref}' is a directory", hint="pass one file; for a change set, pass its diff (git diff > change.diff)")
    raw = read_bytes_bounded(path, what="--artifact", limit=MAX_ARTIFACT_BYTES,
                             hint="review a smaller piece (one document, one diff), or extract the part that matters")
    try:
        text = decode_text(raw)
    except NotText as exc:
        hint = ("pass a text file: extract the text of a PDF or an image description first" if exc.binary
                else "save it as UTF-8 (iconv -f <its encoding> -t utf-8)")
        raise BadArgs(f"--artifact '{ref}' {exc}", hint=hint) from None
    if not text.strip():
        raise BadArgs(f"--artifact '{ref}' is empty", hint="the council reviews the artifact: give it the material")
    return Artifact(path=path, text=text, hash=sha256_of(raw), bytes=len(raw))


# --------------------------------------------------------------------------- composition

class ComposedBriefing(NamedTuple):
    text: str
    template: LoadedTemplate
    artifact: Artifact
    values: dict[str, str]  # every variable's value as composed (given or default)

    def records(self) -> BriefingRecords:
        template = self.template.record()
        if self.values:
            template["vars"] = self.values
        if self.template.template.intent == QUESTION:  # emit when set: a review template's record is unchanged
            template["intent"] = QUESTION
        return {"template": template, "artifact": self.artifact.record()}


def check_briefing_source(options: RunOptions) -> None:
    """Exactly one briefing source: a prompt file, or a template with its artifact."""
    if not options.prompt_file and not options.template and not options.artifact:
        raise MissingPrompt("a briefing is required: a prompt file, or a template with an artifact",
                            hint="pass --prompt-file FILE, or --template NAME with --artifact FILE; "
                                 "prompts are never inline")
    if options.prompt_file and (options.template or options.artifact):
        raise BadArgs("pass --prompt-file or --template with --artifact, not both",
                      hint="a template composes the briefing from the artifact; a prompt file is the whole briefing")
    if options.template and not options.artifact:
        raise BadArgs(f"--template {options.template} needs --artifact FILE", hint="the artifact is what the council reviews")
    if options.artifact and not options.template:
        listing = command("amicus council template list")
        raise BadArgs("--artifact needs --template NAME", hint=f"templates: {known_templates()}"
                                                                + (f" ({listing} describes each)" if listing else ""))
    if options.vars and not options.template:
        raise BadArgs("--var is for a template", hint="pass --template NAME (or a pack with a template)")


def compose_briefing(options: RunOptions) -> ComposedBriefing:
    """Read the template and the artifact and compose the briefing (every check before spend).

    Each part that reaches the models is checked for secrets on its own first, so a refusal
    names the line of the artifact or the variable itself; the caller checks the composed
    text as well (a template line `password: $pw` and a variable make one only together).
    """
    assert options.template and options.artifact  # check_briefing_source ran first
    from .material import check_material

    with blame_pack(options, "template"):
        loaded = load_template(options.template)
    artifact = read_artifact(options.artifact)
    with blame_pack(options, "vars", "template"):
        for name, value in (options.vars or {}).items():  # alone, and as typed: `--var NAME=VALUE`
            for text in (value, f"{name}={value}"):
                check_material(text, what=f"template variable '{name}'", allow_secrets=options.allow_secrets)
        values = resolve_values(loaded.template, dict(options.vars or {}))
    check_material(artifact.text, what=f"--artifact '{options.artifact}'", allow_secrets=options.allow_secrets)
    text = compose(loaded.template, artifact_name=artifact.path.name, artifact_text=artifact.text, values=values)
    return ComposedBriefing(text=text, template=loaded, artifact=artifact, values=values)


# --------------------------------------------------------------------------- packs

# The bench (models or council), the template and its vars are filled in as one; every other
# option a pack may hold is filled in on its own (RunOptions attribute ← the pack's key).
_AS_ONE = ("models", "council", "template", "vars")


def _from_pack() -> dict[str, str]:
    from .options import packed

    return {d.field: str(d.option.pack) for d in packed() if d.field not in _AS_ONE}


def apply_pack(options: RunOptions) -> RunOptions:
    """`options` with every field the caller left unset taken from its pack (when it has one).

    A typed value always wins. The bench is one field (models or council); the briefing
    source is one field (a prompt file, or a template); a template's variables merge per key
    (typed wins) when the template in effect is the pack's own, and are dropped when the
    caller chose another template. Idempotent: applying it twice changes nothing.
    """
    if not options.pack or options.pack_record is not None:
        return options
    loaded = load_pack(options.pack)
    pack = loaded.pack
    # The pack's settings are fields pack_model() adds from the options model: read by key (the
    # pack was validated, so each holds its field's type).
    settings = pack.settings()
    models = listed if isinstance(listed := settings.get("models"), list) else None
    council = named if isinstance(named := settings.get("council"), str) else None
    pack_template = framed if isinstance(framed := settings.get("template"), str) else None
    pack_vars = given if isinstance(given := settings.get("vars"), dict) else None
    changes: dict[str, object] = {}
    supplied: list[str] = []
    if not options.models and not options.council and (models or council):
        changes.update(models=list(models) if models else None, council=council)
        supplied.append("bench")
    for attr, key in _from_pack().items():
        value = getattr(pack, key)
        if getattr(options, attr) is None and value is not None:
            changes[attr] = list(value) if isinstance(value, list) else value
            supplied.append(attr)
    if pack_template and not options.prompt_file:
        template = _pack_template(pack_template, loaded)
        if options.template is None:
            changes["template"] = template
            supplied.append("template")
        typed = options.template
        if typed and is_template_file(typed):
            typed = str(Path(typed).expanduser().resolve())
        if (typed or template) == template and pack_vars:
            changes["vars"] = {**pack_vars, **dict(options.vars or {})}
            if set(pack_vars) - set(options.vars or {}):
                supplied.append("vars")
    return options.model_copy(update={**changes, "pack_record": loaded.record(), "pack_fields": tuple(supplied)})


def _pack_template(template: str, loaded: LoadedPack) -> str:
    """A pack file's relative template path is relative to the pack file, not the cwd."""
    if is_template_file(template) and loaded.source == "file" and not Path(template).expanduser().is_absolute():
        return str((loaded.path.parent / template).resolve())
    return template


def _shown(field: str) -> str:
    """An option as "… set by pack" names it: its flag without the dashes (`max-cost`)."""
    from .options import declared

    flags = {d.field: d.option.flag.name for d in declared("run") if d.option.flag is not None}
    return flags[field].removeprefix("--") if field in flags else field


def resolve_intent(options: RunOptions, template_intent: str | None) -> str:
    """The run's intent: as typed (or set by the pack), else the template's, else review. A
    template that frames the other intent is refused: its words would contradict the contract."""
    intent = options.intent or template_intent or "review"
    # A task council is reviewed like a review, so a review template frames it as well.
    fits = intent == template_intent or (intent == TASK and template_intent == REVIEW)
    if template_intent is not None and not fits:
        with blame_pack(options, "intent", "template"):
            framed = "a question" if template_intent == QUESTION else "a review"
            raise BadArgs(f"--intent {intent} does not fit template '{options.template}', which frames {framed}",
                          hint="pick a template of this intent"
                               + (f" ({listing} shows each one's)" if (listing := command("amicus council template list"))
                                  else "")
                               + ", or drop --intent to follow the template")
    return intent


@contextmanager
def blame_pack(options: RunOptions, subject: str, *related: str) -> Iterator[None]:
    """Say so when a pre-flight error is about a value the pack supplied: `(set by pack 'N')`
    when the pack set the value the error is about, `(bench set by pack 'N')` when it set a
    value the error involves."""
    try:
        yield
    except AmicusError as err:
        if options.pack_record is not None:
            name = options.pack_record["name"]
            others = [_shown(f) for f in related if f in options.pack_fields]
            if subject in options.pack_fields:
                suffix = f" (set by pack '{name}')"
            elif others:
                suffix = f" ({', '.join(others)} set by pack '{name}')"
            else:
                suffix = ""
            if suffix and not err.message.endswith(suffix):
                err.message += suffix
                err.args = (err.message,)
        raise

def save_options_pack(name: str, options: RunOptions, *, description: str | None = None) -> PackSave:
    """`council pack save`: the settings `options` typed (pack_settings), saved as pack NAME."""
    from .packs import save_pack

    return save_pack(name, pack_settings(options), description=description)


def pack_settings(options: RunOptions) -> JsonObject:
    """The pack settings (JSON keys) an options object typed — what `pack save` stores.

    A template given as a file is stored as an absolute path, so the saved pack works from
    any directory; its variables are checked against it (a typo is caught at save time).
    """
    from .options import flag_of

    for attr in ("prompt_file", "artifact", "pack"):
        if getattr(options, attr):
            raise BadArgs(f"a pack does not hold {flag_of(attr)}",
                          hint="a pack holds settings; the briefing or artifact is given per run")
    settings: JsonObject = {}
    if options.models:
        settings["models"] = list(options.models)
    if options.council:
        settings["council"] = options.council
    for attr, key in _from_pack().items():
        value = getattr(options, attr)
        if value is not None:
            settings[key] = list(value) if isinstance(value, (list, tuple)) else value
    if options.template:
        template = str(Path(options.template).expanduser().resolve()) if is_template_file(options.template) else options.template
        check_known_values(load_template(template).template, options.vars or {})
        settings["template"] = template
    if options.vars:
        settings["vars"] = dict(options.vars)
    return settings
