"""One error hierarchy for every front.

Every error a user can see is an `AmicusError`: it carries a stable `code` (the error
envelope's `error.code`), a message, an optional hint, and the process exit code a CLI
command ends with. Fronts never format tracebacks; they render `to_envelope()`.

Messages name the caller's arguments by their CLI flags (`--models`, `--max-cost`): the flag
is the argument's key. A front whose arguments are named otherwise (the MCP tools' `models`,
`maxCost`) maps each key to its own name with `rename_arguments`, so no check is written
twice and no front shows another front's names.

    AmicusError
    ├── BadArgs            BAD_ARGS       — a flag, path or input document is wrong
    ├── MissingPrompt      MISSING_PROMPT — the briefing file is missing or empty
    ├── BadModel           BAD_MODEL      — a model id or alias does not resolve
    ├── MissingKey         MISSING_KEY    — a provider needs a key that is not set
    ├── AgentNotReady      AGENT_NOT_READY — an agent seat's CLI is missing, too old or logged out
    ├── BadSession         BAD_SESSION    — an unknown or malformed run/wave/leg id
    ├── BudgetExceeded     BUDGET_EXCEEDED
    ├── CouncilQuorum      COUNCIL_QUORUM
    ├── CostExceeded       COST_EXCEEDED — the ceiling stopped a run mid-way (before its tally)
    ├── CostCeilingTooLow  COST_CEILING_TOO_LOW — the ceiling cannot hold the run (pre-flight)
    ├── ContextLengthExceeded CONTEXT_LENGTH_EXCEEDED — a prompt exceeds a model's window (pre-flight)
    ├── SecretInMaterial   SECRET_IN_MATERIAL — the briefing holds what looks like a secret
    ├── ClaudeReviewInvalid COUNCIL_CLAUDE_REVIEW_INVALID
    ├── GitHubRefused      GITHUB_REFUSED — GitHub's REST API refused or failed a pull-request read or review
    └── InternalError      INTERNAL       — a bug; the message says what was being done
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # the envelope's declaration (envelope.py) costs a pydantic import
    from .envelope import ErrorEnvelope
    from .vocabulary import ErrorCode

ERROR_SCHEMA_VERSION: Final = 2

# Exit codes shared by every CLI command (documented in the README).
EXIT_OK = 0
EXIT_ERROR = 1
EXIT_DEGRADED = 2  # also `council validate`'s "parsed, but invalid" outcome
EXIT_WAIT_TIMEOUT = 3  # `amicus wait`: the timeout passed while the work was still running
EXIT_GATE_FAILED: Final = 4  # `council gate`: the verdict failed the --fail-on level


class AmicusError(Exception):
    code: ErrorCode = "INTERNAL"  # the envelope's `error.code` (a run's recorded error keeps its own)
    exit_code = EXIT_ERROR

    def __init__(self, message: str, *, hint: str | None = None, command: str | None = None):
        from .secrets import redact_text

        message = redact_text(message)
        super().__init__(message)
        self.message = message
        self.hint = None if hint is None else redact_text(hint)
        self.command = command

    def to_envelope(self) -> ErrorEnvelope:
        return {
            "schemaVersion": ERROR_SCHEMA_VERSION,
            "type": "error",
            "ok": False,
            "error": {
                "code": self.code,
                "message": self.message,
                "hint": self.hint,
                "command": self.command,
            },
        }


# A flag, with the CLI's placeholder for its value when one follows (`--prompt-file FILE`).
_FLAG = re.compile(r"(?<![\w-])(?P<flag>--[a-z][a-z0-9-]*)(?P<operand> [A-Z][A-Z_]*(?![\w-]))?")
# A run of one flag given as NAME=VALUE pairs (`--var goal=… --var audience=…`): a mapping.
_PAIRS = re.compile(r"(?<![\w-])(?P<flag>--[a-z][a-z0-9-]*) [\w.-]+=[^\s;,]*(?: (?P=flag) [\w.-]+=[^\s;,]*)*")
_PAIR = re.compile(r"--[a-z][a-z0-9-]* (?P<key>[\w.-]+)=(?P<value>[^\s;,]*)")


def rename_arguments(err: AmicusError, names: Mapping[str, str]) -> AmicusError:
    """`err` with every flag `names` knows, in its message and hint, written as the front's own
    argument: the name for the flag (`--models` → `models`), the name alone where the CLI shows
    a placeholder for the value (`--prompt-file FILE` → `briefingFile`), and a mapping where
    the CLI repeats NAME=VALUE (`--var goal=…` → `vars: {"goal": "…"}`)."""
    err.message = rename_flags(err.message, names)
    err.hint = None if err.hint is None else rename_flags(err.hint, names)
    err.args = (err.message,)
    return err


def rename_flags(text: str, names: Mapping[str, str]) -> str:
    """`text` with every flag `names` knows written as the front's own argument (see
    `rename_arguments`, which applies it to an error's message and hint)."""

    def pairs(match: re.Match[str]) -> str:
        name = names.get(match.group("flag"))
        if name is None:
            return match.group(0)
        entries = ", ".join(f'"{m.group("key")}": "{m.group("value")}"' for m in _PAIR.finditer(match.group(0)))
        return f"{name}: {{{entries}}}"

    def flag(match: re.Match[str]) -> str:
        name = names.get(match.group("flag"))
        return match.group(0) if name is None else name

    return _FLAG.sub(flag, _PAIRS.sub(pairs, text))


class BadArgs(AmicusError):
    code = "BAD_ARGS"


class MissingPrompt(AmicusError):
    code = "MISSING_PROMPT"


class BadModel(AmicusError):
    code = "BAD_MODEL"


class MissingKey(AmicusError):
    code = "MISSING_KEY"


class AgentNotReady(AmicusError):
    """A `cli:` seat's agent CLI is not on PATH, is older than supported, or is not logged in."""

    code = "AGENT_NOT_READY"


class BadSession(AmicusError):
    code = "BAD_SESSION"


class BudgetExceeded(AmicusError):
    code = "BUDGET_EXCEEDED"


class CouncilQuorum(AmicusError):
    code = "COUNCIL_QUORUM"


class CostExceeded(AmicusError):
    code = "COST_EXCEEDED"


class CostCeilingTooLow(AmicusError):
    """`--max-cost` cannot hold the run's legs even at their smallest output caps (pre-flight)."""

    code = "COST_CEILING_TOO_LOW"


class ContextLengthExceeded(AmicusError):
    """A stage's prompt (or its bound) does not fit a model's context window (pre-flight)."""

    code = "CONTEXT_LENGTH_EXCEEDED"


class SecretInMaterial(AmicusError):
    code = "SECRET_IN_MATERIAL"


class ClaudeReviewInvalid(AmicusError):
    code = "COUNCIL_CLAUDE_REVIEW_INVALID"


class GitHubRefused(AmicusError):
    """GitHub's REST API answered a pull-request read or review with an error (the message names the permission)."""

    code = "GITHUB_REFUSED"


class InternalError(AmicusError):
    code = "INTERNAL"
