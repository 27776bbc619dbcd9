"""Argument types shared by the tools: each becomes a titled, described property of an input schema.

`arg` is the one way a tool argument is declared, so every argument carries a human title
and a description (never pydantic's generated `Briefingfile`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ..vocabulary import ChairLine
from ..vocabulary import Intent as IntentWord

TASK_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
MODEL_PATTERN = r"^[A-Za-z0-9_/.@:][A-Za-z0-9_/.@:-]{0,199}$"


def arg(title: str, description: str, **constraints: Any) -> Any:
    """The schema of one tool argument: a title, a description and any constraints."""
    return Field(title=title, description=description, **constraints)


Project = Annotated[str | None, arg(
    "Project folder", "Project folder (default: $AMICUS_PROJECT_DIR, else the client's root, else the server's cwd)")]
# What status / wait / read / abort take: an id, or a council run's directory inside the project roots.
RunRef = Annotated[str, arg("Run, wave or leg", "A council run id or run directory (inside the project), a wave id or "
                                                "a leg id", min_length=1, max_length=4096)]
Models = Annotated[list[Annotated[str, Field(pattern=MODEL_PATTERN)]] | None, arg(
    "Bench models", "Bench models: aliases or vendor/model ids (repeats make twin seats). XOR council", max_length=10)]
Council = Annotated[str | None, arg(
    "Saved council or bench", "A saved council or a built-in bench (free, budget, frontier, local). XOR models")]
Gateway = Annotated[Literal["auto", "direct", "openrouter"] | None, arg(
    "Provider gateway", "auto (default): a direct key when set, else OpenRouter")]
TimeoutMinutes = Annotated[float, arg("Per-leg timeout (minutes)", "Per-leg timeout in minutes")]
NoCostGate = Annotated[bool, arg("Skip the cost gate", "Allow models priced above the per-Mtok cost gate")]
NoValidateModel = Annotated[bool, arg(
    "Skip model-id validation", "Do not check model ids against the OpenRouter catalog before starting")]
Verdict = ChairLine  # the chair's VERDICT line, or a question council's ANSWER standing (vocabulary)
Intent = Annotated[IntentWord | None, arg(
    "Intent", "review (default): the council reviews the briefing's material; question: it answers the "
              "briefing's question — each seat answers, the judges rank the answers and vote on their key "
              "claims, and the chair ends with an ANSWER line")]
AllowSecrets = Annotated[bool, arg(
    "Allow secrets in the material",
    "Send material that looks like it holds a secret (an API key, a private key, a *_TOKEN= line); "
    "refused by default with SECRET_IN_MATERIAL. Keys configured on this machine are masked either way")]

# How the tools name the engine's arguments, keyed by the CLI flag engine messages use
# (see `errors.rename_arguments`). `--prompt-file` differs per tool, so each start tool adds it.
ARGUMENT_NAMES: dict[str, str] = {
    "--models": "models", "--council": "council", "--chair": "chair", "--max-cost": "maxCost",
    "--timeout": "timeoutMinutes", "--gateway": "gateway", "--no-cost-gate": "noCostGate: true",
    "--no-validate-model": "noValidateModel: true", "--critic": "critic", "--lenses": "lenses",
    "--debate": "debate: true", "--claude-review": "claudeReviewFile", "--out-dir": "outDir", "--project": "project",
    "--allow-secrets": "allowSecrets: true", "--template": "template", "--artifact": "artifact", "--var": "vars",
    "--pack": "pack", "--matcher": "matcher", "--suite": "suite", "--case": "cases", "--intent": "intent",
}
PROMPT_FILE_ARGUMENT: dict[str, str] = {"amicus_council_run": "briefingFile", "amicus_fanout": "promptFile"}


def argument_names(tool: str) -> dict[str, str]:
    """The flag → argument-name map for one tool's error messages."""
    names = dict(ARGUMENT_NAMES)
    if tool in PROMPT_FILE_ARGUMENT:
        names["--prompt-file"] = PROMPT_FILE_ARGUMENT[tool]
    return names
