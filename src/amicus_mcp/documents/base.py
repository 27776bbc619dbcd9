"""The base of every document model: pydantic, written exactly as the family has always been.

A document of the JSON family (`schemaVersion: 2`, a `type` discriminator) grows additively, so
its models follow three rules:

    emit when set   an optional key is written only once something set it — an older document
                    read and written back gains no key — and a key set to null is written null
    keep the order  keys are written in the order they were set (or read), which is the order
                    the engine has always written them in: a document survives a read and a
                    write byte for byte, and a new one reads as it did before it had a model
    open            a key this version does not know is kept, in its place (a newer writer's)

Models are strict (a string is never coerced to a number) and mutable: the run-state owner
(engine/run_state.py) changes a run's manifest in place and checkpoints it. `to_doc()` is the
JSON-ready dict; `parse()` reads one, with one `BadSession` naming the first problems.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, PrivateAttr, ValidationError, model_validator
from pydantic.alias_generators import to_camel

__all__ = ["Document", "Family", "Frozen", "WhenSet", "problems"]

T = TypeVar("T")
D = TypeVar("D", bound="Document")


def _not_null(value: Any) -> Any:
    if value is None:
        raise ValueError("may be absent, but not null")
    return value


# An optional key that is absent or a value, never null: reads as None when it is absent.
WhenSet = Annotated[T | None, AfterValidator(_not_null)]


class Document(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True, alias_generator=to_camel, validate_by_name=True,
                              validate_by_alias=True, revalidate_instances="never",
                              defer_build=True)  # a command builds only the documents it reads or writes

    # Field names in the order their keys are written (an unknown key by its own name).
    _keys: list[str] = PrivateAttr(default_factory=list)
    # A document that is frozen, or whose fields are scalars and frozen documents, keeps its
    # `to_doc()` until one of its own keys changes (a run's finished legs are written unchanged
    # at every checkpoint, which is on the run's hot path).
    _caches: ClassVar[bool] = False
    _cached: dict[str, object] | None = PrivateAttr(default=None)
    # Keys written first even when nobody passed them (a family's schemaVersion and type).
    _always: ClassVar[tuple[str, ...]] = ()
    _wire: ClassVar[dict[str, str]] = {}  # field name → key
    _field: ClassVar[dict[str, str]] = {}  # key or field name → field name

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._wire = {name: info.alias or name for name, info in cls.model_fields.items()}
        cls._field = {**{name: name for name in cls._wire}, **{key: name for name, key in cls._wire.items()}}

    @model_validator(mode="wrap")
    @classmethod
    def _keep_order(cls, data: Any, handler: Any) -> Any:
        model = handler(data)
        if isinstance(data, dict):
            names = cls._field
            keys = [names.get(key, key) for key in data]
            # Built in code, a family's own keys lead, passed or not (`parse` requires them).
            missing = [name for name in cls._always if name not in keys]
            model._keys = [*missing, *keys] if missing else keys
        return model

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if not name.startswith("_"):
            private = self.__pydantic_private__
            assert private is not None  # a Document has private attributes: pydantic always sets their dict
            private["_cached"] = None
            if name not in private["_keys"]:
                private["_keys"].append(name)

    # -- keys ------------------------------------------------------------------------------

    def has(self, name: str) -> bool:
        """Whether the key is set (written), whatever its value."""
        return name in self._keys

    def drop(self, *names: str) -> None:
        """Unset keys: they are no longer written, and read as their default."""
        for name in names:
            if name not in self._keys:
                continue
            self._keys.remove(name)
            self._cached = None
            info = type(self).model_fields.get(name)
            if info is not None:
                BaseModel.__setattr__(self, name, info.get_default(call_default_factory=True))
            elif self.__pydantic_extra__ is not None:
                self.__pydantic_extra__.pop(name, None)

    def add(self, name: str, item: Any) -> None:
        """Append to a list key, setting it (to a new list) on first use."""
        if name not in self._keys:
            setattr(self, name, [])
        getattr(self, name).append(item)

    # -- reading and writing ---------------------------------------------------------------

    @classmethod
    def parse(cls: type[D], doc: Any, *, what: str, where: Any = None) -> D:
        """The model of `doc`; `BadSession` naming the first problems when it is not one."""
        from ..errors import BadSession

        place = f"'{where}'" if where is not None else what
        missing = [cls._wire[name] for name in cls._always if not isinstance(doc, dict) or cls._wire[name] not in doc]
        if missing:
            raise BadSession(f"{place} is not a valid {what}: {', '.join(missing)}: Field required",
                             hint="the file may have been edited by hand")
        try:
            return cls.model_validate(doc)
        except ValidationError as exc:
            raise BadSession(f"{place} is not a valid {what}: {problems(exc)}",
                             hint="the file may have been edited by hand") from None

    def to_doc(self) -> dict[str, Any]:
        """The document as JSON-ready data, its keys in their order. It is for writing and
        reading: change the model, never what this returns."""
        # Any, as pydantic's own model_dump: one method serves every model, and the shape is
        # each model's own declaration (a reader that needs the fields reads the model).
        # On the run's hot path (every checkpoint writes the whole manifest): kept lean, and
        # private attributes are read from their dict (pydantic's own lookup costs 5×).
        private = self.__pydantic_private__
        assert private is not None  # as in __setattr__
        cached: dict[str, object] | None = private["_cached"]  # what the last call built, until a change
        if cached is not None:
            return cached
        wire = self._wire
        values = self.__dict__
        out: dict[str, object] = {}
        for name in private["_keys"]:
            key = wire.get(name)
            if key is not None:
                value = values[name]
            elif self.__pydantic_extra__ is not None and name in self.__pydantic_extra__:
                key, value = name, self.__pydantic_extra__[name]
            else:
                continue
            out[key] = value if type(value) in _SCALARS else _plain(value)
        if self._caches:
            private["_cached"] = out
        return out

    def copy_doc(self: D) -> D:
        """An independent copy (its lists and nested documents too)."""
        return self.model_copy(deep=True)


class Frozen(Document):
    """A document nobody changes once made (a usage block, an error): its `to_doc()` is kept."""

    model_config = ConfigDict(frozen=True)
    _caches: ClassVar[bool] = True


class Family(Document):
    """A top-level document of the family: `schemaVersion` and `type` come first, always; a
    document read (`parse`) must have them, one built in code gets them."""

    _always: ClassVar[tuple[str, ...]] = ("schema_version", "type")


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    if type(value) in _SCALARS:
        return value
    if isinstance(value, Document):
        return value.to_doc()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def problems(exc: ValidationError, *, shown: int = 3) -> str:
    """A pydantic error as one line: the first `shown` problems, `path: message` each."""
    errors = exc.errors(include_url=False)
    parts = []
    for error in errors[:shown]:
        path = ""
        for part in error["loc"]:
            if isinstance(part, int):
                path += f"[{part}]"
            elif not any(mark in str(part) for mark in ("[", "function-", "literal", "union")) and part not in (
                    "str", "int", "float", "bool", "none", "list", "dict"):
                path += f".{part}" if path else str(part)
        parts.append(f"{path or '(root)'}: {error['msg']}")
    more = f" (and {len(errors) - shown} more)" if len(errors) > shown else ""
    return "; ".join(parts) + more
