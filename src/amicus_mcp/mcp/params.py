"""Argument types shared by the tools: each becomes a described property of an input schema."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

TASK_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
MODEL_PATTERN = r"^[A-Za-z0-9_/.@:][A-Za-z0-9_/.@:-]{0,199}$"

Project = Annotated[str | None, Field(
    description="Project folder (default: $AMICUS_PROJECT_DIR, else the client's root, else the server's cwd)")]
TaskId = Annotated[str, Field(pattern=TASK_ID_PATTERN, description="A council run id, wave id or leg id")]
Models = Annotated[list[Annotated[str, Field(pattern=MODEL_PATTERN)]] | None, Field(
    max_length=10, description="Bench models: aliases or vendor/model ids (repeats make twin seats). XOR council")]
Council = Annotated[str | None, Field(
    description="A saved council or a built-in bench (free, budget, frontier, local). XOR models")]
Gateway = Annotated[Literal["auto", "direct", "openrouter"] | None, Field(
    description="auto (default): a direct key when set, else OpenRouter")]
TimeoutMinutes = Annotated[float, Field(description="Per-leg timeout in minutes")]
NoCostGate = Annotated[bool, Field(description="Allow models priced above the per-Mtok cost gate")]
Verdict = Literal["Ship it", "Fix these first", "Fundamental rethink"]
AllowSecrets = Annotated[bool, Field(
    title="Allow secrets in the material",
    description="Send material that looks like it holds a secret (an API key, a private key, a *_TOKEN= line); "
                "refused by default with SECRET_IN_MATERIAL. Keys configured on this machine are masked either way")]
