"""Which Claude client is calling: read from `clientInfo` in the MCP initialize handshake.

    code-local   Claude Code on this machine (`claude-code`, `Claude Code`, `claude_code`, …)
    cowork       Claude Desktop, claude.ai and Cowork (`claude-ai`, `Claude Desktop`,
                 `Anthropic/ClaudeAI`, `cowork`, …)
    code-web     Claude Code in a cloud sandbox — reachable only through the override

Precedence: `$AMICUS_MCP_CLIENT` when it names one of the tags (any other value is ignored
with a warning on stderr) → the handshake's client name, case-insensitively, Claude Code
tested first → `cowork`, with a one-time warning on stderr naming what was not recognized.
A server detects once and keeps the answer (`ClientDetector`).

The tag decides two things: how long one `amicus_wait` call may block (Claude Code turns a
call still running after ~120 s into a background task; Claude Desktop gives up after ~60 s)
and whether `amicus_council_run` opens the workspace by default (only for `code-local`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TextIO

ClientTag = Literal["code-local", "code-web", "cowork"]
CLIENT_TAGS: tuple[ClientTag, ...] = ("code-local", "code-web", "cowork")
FALLBACK: ClientTag = "cowork"
ENV_OVERRIDE = "AMICUS_MCP_CLIENT"

_CLAUDE_CODE = re.compile(r"claude[\s_-]?code", re.IGNORECASE)
_COWORK = re.compile(r"claude[\s_-]?(ai|desktop)|cowork", re.IGNORECASE)


@dataclass(frozen=True)
class Detection:
    tag: ClientTag
    source: Literal["env", "clientInfo", "fallback"]
    warning: str | None = None


def classify(name: str | None) -> ClientTag | None:
    """The tag a `clientInfo.name` stands for, or None when it is not a Claude client we know."""
    if not name:
        return None
    if _CLAUDE_CODE.search(name):
        return "code-local"
    if _COWORK.search(name):
        return "cowork"
    return None


def detect(name: str | None, env: Mapping[str, str]) -> Detection:
    """Pure detection from the handshake's client name and the environment."""
    override = env.get(ENV_OVERRIDE, "").strip()
    ignored: str | None = None
    if override in CLIENT_TAGS:
        return Detection(override, "env")
    if override:
        ignored = f"amicus-mcp: ignoring {ENV_OVERRIDE}={override!r} (expected one of {', '.join(CLIENT_TAGS)})"
    tag = classify(name)
    if tag is not None:
        return Detection(tag, "clientInfo", ignored)
    shown = repr(name) if name else "(absent)"
    unknown = f"amicus-mcp: unrecognized MCP client {shown}; treating it as '{FALLBACK}'"
    return Detection(FALLBACK, "fallback", "\n".join(w for w in (ignored, unknown) if w))


@dataclass
class ClientDetector:
    """Detects once per server and warns at most once per distinct warning."""

    stream: TextIO | None = None  # where warnings go; None means sys.stderr at warning time
    detection: Detection | None = None
    _warned: set[str] = field(default_factory=set)

    def resolve(self, name: str | None, env: Mapping[str, str] | None = None) -> ClientTag:
        if self.detection is None:
            self.detection = detect(name, os.environ if env is None else env)
            self._warn(self.detection.warning)
        return self.detection.tag

    def _warn(self, warning: str | None) -> None:
        if not warning or warning in self._warned:
            return
        self._warned.add(warning)
        print(warning, file=self.stream or sys.stderr, flush=True)
