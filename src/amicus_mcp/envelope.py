"""The error envelope every front gives a failed call (schemas/error.schema.json is generated
from these declarations). `errors.AmicusError.to_envelope` builds it; the declarations are
imported for type checking only there, so an error costs no pydantic import. Beside errors.py,
below it: the error's own document, which imports nothing of the package but its vocabulary."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from .vocabulary import ErrorCode

_CLOSED = ConfigDict(extra="forbid")


@with_config(_CLOSED)
class ErrorBody(TypedDict):
    code: ErrorCode
    message: Annotated[str, Field(min_length=1)]
    hint: str | None
    command: str | None


@with_config(_CLOSED)
class ErrorEnvelope(TypedDict):
    """What every --json command prints when it fails (exit 1), and every MCP tool's error result."""

    schemaVersion: Literal[2]
    type: Literal["error"]
    ok: Literal[False]
    error: ErrorBody
