"""Policy packs: a named, versioned document that supplies a council run's defaults.

A pack holds the choices a team makes once — the intent (review, or question), the bench (a model list or a council name),
the chair, a critic or lenses, debate, a briefing template and its variables, the cost
ceiling, the per-leg timeout and the gateway — so that "a council reviews every design doc"
is one flag: `amicus council run --pack NAME|FILE`. Any flag typed as well overrides that
field of the pack (engine/briefing_inputs.py `apply_pack`).

Saved packs live in `<config dir>/packs/NAME.json`; `pack save` bumps `version` each time it
overwrites one. A pack may also be a file anywhere (checked into a repository): an argument
with a path separator or a `.json` suffix is a file. The schema,
`schemas/council-pack.schema.json`, is generated from the pack model (`python -m
amicus_mcp.contracts --write`); unknown keys are refused, so a typo in a pack is an error
rather than a silently ignored setting.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..config import config_dir
from ..errors import BadArgs
from ..front import command
from ..fsio import atomic_write_json, dumps_json, loads_json, read_bytes_bounded
from ..schemas import JsonObject, JsonSchema
from .options import PackRecord

if TYPE_CHECKING:  # the documents' declarations (schemas/council-packs.schema.json is generated from them)
    from ..documents.commands import PackList, PackRow, PackSave, PackShow
    from ..vocabulary import PackSource

PACKS_DIR = "packs"
PACK_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
MAX_PACK_BYTES = 64 * 1024


class PackDocument(BaseModel):
    """A pack's own keys. Its settings — the run options a pack may hold, by their pack key —
    are the RunOptions fields that declare one (`pack_model`)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    schemaVersion: Literal[2] = 2
    type: Literal["council-pack"] = "council-pack"
    name: Annotated[str, Field(pattern=PACK_NAME.pattern)]
    version: Annotated[int, Field(ge=1, description="bumped by `pack save` each time it overwrites the pack")] = 1
    description: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _numbers(cls, data: Any) -> Any:
        # strict mode refuses an int where a float is declared; 2 dollars is 2.0 dollars.
        if isinstance(data, dict):
            for key in number_keys():
                if isinstance(data.get(key), int) and not isinstance(data.get(key), bool):
                    data = {**data, key: float(data[key])}
        return data

    # `_coherent`'s two rules, as the generated schema states them.
    SCHEMA_RULES: ClassVar[JsonSchema] = {"not": {"required": ["models", "council"]},
                                              "dependentRequired": {"vars": ["template"]}}

    @model_validator(mode="after")
    def _coherent(self) -> PackDocument:
        settings = self.settings()
        if "models" in settings and "council" in settings:
            raise ValueError("set one of models / council, not both")
        if "vars" in settings and "template" not in settings:
            raise ValueError("vars are for a template: set template as well")
        return self

    def document(self) -> JsonObject:
        """The pack as JSON: every key that is set, in model order (emit-when-set)."""
        return self.model_dump(exclude_none=True)

    def settings(self) -> JsonObject:
        """Only the run options the pack sets."""
        keys = pack_keys()
        return {k: v for k, v in self.document().items() if k in keys}


@cache
def pack_model() -> type[PackDocument]:
    """The pack document's model: its own keys, then one optional key per run option a pack may hold."""
    from pydantic import create_model

    from .options import packed

    # (annotation, default) by field name: create_model's own keywords, which its signature types
    # as Any (a dict of any narrower value type does not unpack into them).
    fields: dict[str, Any] = {d.option.pack: (d.option.pack_type or d.annotation, None)
                              for d in packed() if d.option.pack is not None}  # packed() yields only these
    return create_model("Pack", __base__=PackDocument, **fields)


@cache
def pack_keys() -> tuple[str, ...]:
    """The run options a pack may set, by their pack key (run.json `options` uses the same names)."""
    from .options import packed

    return tuple(str(d.option.pack) for d in packed())


@cache
def number_keys() -> tuple[str, ...]:
    from .options import packed

    return tuple(str(d.option.pack) for d in packed() if d.is_number)


class LoadedPack(NamedTuple):
    pack: PackDocument
    source: PackSource
    path: Path
    hash: str

    def record(self) -> PackRecord:
        """What run.json records: `pack: {name, version, hash, source, path}`."""
        return {"name": self.pack.name, "version": self.pack.version, "hash": self.hash,
                "source": self.source, "path": str(self.path)}


def packs_dir() -> Path:
    return config_dir() / PACKS_DIR


def is_pack_file(ref: str) -> bool:
    from .options import names_a_file

    return names_a_file(ref, ".json")


def sha256_of(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def parse_pack(raw: bytes, *, where: str) -> PackDocument:
    try:
        doc = loads_json(raw, what=f"pack {where}")
    except BadArgs as err:
        show = command("amicus council pack show NAME")
        raise BadArgs(err.message, hint="a pack is one JSON object" + (f"; see {show}" if show else "")) from None
    try:
        return pack_model().model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "pack"
        raise BadArgs(f"pack {where}: {field}: {first['msg']}",
                      hint=f"a pack's keys are name, version, description and {', '.join(pack_keys())}") from None


def load_pack(ref: str) -> LoadedPack:
    """A saved pack by name, or a pack file by path."""
    if is_pack_file(ref):
        path, source = Path(ref).expanduser().resolve(), "file"
    else:
        check_pack_name(ref)
        path, source = packs_dir() / f"{ref}.json", "saved"
        if not path.exists():
            saved = sorted(p.stem for p in packs_dir().glob("*.json")) if packs_dir().is_dir() else []
            listing = command("amicus council pack list")
            raise BadArgs(f"no saved pack '{ref}'",
                          hint=f"the saved packs: {', '.join(saved) or 'none'}"
                               + (f" ({listing} describes them)" if listing else "")
                               + "; a file needs a path like ./ci/pack.json")
    raw = _read_bounded(path)
    pack = parse_pack(raw, where=f"'{ref}'")
    if source == "saved" and pack.name != ref:
        raise BadArgs(f"saved pack '{ref}' names itself '{pack.name}'", hint=f"fix 'name' in {path}")
    return LoadedPack(pack=pack, source=source, path=path, hash=sha256_of(raw))  # type: ignore[arg-type]


def _read_bounded(path: Path) -> bytes:
    if path.is_dir():
        raise BadArgs(f"pack '{path}' is a directory", hint="pass the pack's JSON file")
    return read_bytes_bounded(path, what="pack", limit=MAX_PACK_BYTES, hint="a pack holds settings, not material")


def check_pack_name(name: str) -> None:
    if not PACK_NAME.match(name):
        raise BadArgs(f"pack name '{name}' is not allowed",
                      hint="1-64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit")


def pack_sets_template(name: str) -> bool:
    """Whether pack NAME sets a briefing template (what a caller that brings its own briefing,
    the CI action or an eval, says it does not use)."""
    return "template" in load_pack(name).pack.settings()


def save_pack(name: str, settings: Mapping[str, object], *, description: str | None = None) -> PackSave:
    """Write (or overwrite, bumping its version) the saved pack NAME. Returns the save document."""
    check_pack_name(name)
    if not settings:
        raise BadArgs("a pack needs at least one setting", hint="e.g. amicus council pack save NAME --models a,b --chair c")
    path = packs_dir() / f"{name}.json"
    previous = load_pack(name).pack if path.exists() else None
    version = previous.version + 1 if previous is not None else 1
    doc = {"schemaVersion": 2, "type": "council-pack", "name": name, "version": version,
           **({"description": description} if description else {}), **settings}
    pack = parse_pack(dumps_json(doc).encode("utf-8"), where=f"'{name}'")
    atomic_write_json(path, pack.document())
    return {"schemaVersion": 2, "type": "council-pack-save", "name": name, "version": version,
            "overwritten": previous is not None, "path": str(path), "pack": pack.document()}


def list_packs() -> PackList:
    """Every saved pack (a broken one is listed with its problem, never hidden)."""
    rows: list[PackRow] = []
    folder = packs_dir()
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        name = path.stem
        try:
            loaded = load_pack(name)
        except BadArgs as err:
            rows.append({"name": name, "path": str(path), "error": err.message})
            continue
        row: PackRow = {"name": name, "version": loaded.pack.version, "hash": loaded.hash, "path": str(path)}
        if loaded.pack.description:
            row["description"] = loaded.pack.description
        row["settings"] = sorted(loaded.pack.settings())
        rows.append(row)
    return {"schemaVersion": 2, "type": "council-pack-list", "packs": rows}


def show_pack(ref: str) -> PackShow:
    loaded = load_pack(ref)
    return {"schemaVersion": 2, "type": "council-pack-show", **loaded.record(), "pack": loaded.pack.document()}

