"""Which MCP host is calling, read from `clientInfo` in the initialize handshake, and what that
host does to a tool call that runs long.

`HOSTS` is the one table of the hosts amicus-mcp knows: the `clientInfo.name` spellings seen
from each, the longest one `amicus_wait` call may block there (`slice_s`, under the host's own
limit with a margin), and that limit in words (said whenever a longer wait is cut short).

    code-local   Claude Code on this machine (`claude-code`, `Claude Code`, `claude_code`, …)
    code-web     Claude Code in a cloud sandbox — reachable only through the override
    cowork       Claude Desktop, claude.ai and Cowork (`claude-ai`, `Claude Desktop`, `cowork`, …)
    gemini-cli   Gemini CLI (`gemini-cli-mcp-client`)
    codex        Codex CLI (`codex-mcp-client`)
    inspector    the MCP Inspector CLI, 0.15 and 2.x (`inspector-cli`)
    fast-agent   fast-agent (`fast-agent-mcp`)
    unknown      anything else: treated as a client that ends a call at 60 s

Precedence: `$AMICUS_MCP_CLIENT` when it names one of the tags (any other value is ignored
with a warning on stderr) → the handshake's client name, case-insensitively, in table order
(Claude Code first) → `unknown`, with a one-time warning on stderr naming what was not
recognized. A server detects once and keeps the answer (`ClientDetector`).

A client amicus does not know gets the slice that is safe for a 60 s client, whatever it asks
and whether or not it sends a progress token: hosts built on the TypeScript SDK end a request
at 60 s by default and do not let progress extend it (and a request without a progress token
cannot be sent progress at all). The tag also decides whether `amicus_council_run` opens the
workspace by default (only for `code-local`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, TextIO

ClientTag = Literal["code-local", "code-web", "cowork", "gemini-cli", "codex", "inspector", "fast-agent", "unknown"]
ENV_OVERRIDE = "AMICUS_MCP_CLIENT"
CLAUDE_CODE_LIMIT = "Claude Code moves a tool call still running after about 120 s into the background"


class Host(NamedTuple):
    tag: ClientTag
    name: str  # the host, as a person names it
    names: re.Pattern[str] | None  # the clientInfo.name spellings; None: reachable only through the override
    slice_s: float  # the longest (and the default) one amicus_wait call blocks for this host
    limit: str  # what the host does to a tool call that runs long


def _names(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


HOSTS: tuple[Host, ...] = (
    Host("code-local", "Claude Code", _names(r"claude[\s_-]?code"), 100.0, CLAUDE_CODE_LIMIT),
    Host("code-web", "Claude Code on the web", None, 100.0, CLAUDE_CODE_LIMIT),
    Host("cowork", "Claude Desktop, claude.ai and Cowork", _names(r"claude[\s_-]?(ai|desktop)|cowork"), 45.0,
         "Claude Desktop and Cowork end a tool call after about 60 s"),
    Host("gemini-cli", "Gemini CLI", _names(r"^gemini[\s_-]?cli"), 540.0,
         "Gemini CLI ends every tool call at 600 s, and progress does not extend it"),
    Host("codex", "Codex CLI", _names(r"^codex"), 100.0,
         "Codex CLI ends a tool call at its tool_timeout_sec (a 120 s call works with the defaults)"),
    Host("inspector", "MCP Inspector", _names(r"^(mcp[\s_-]?)?inspector"), 45.0,
         "the MCP Inspector ends a request at 60 s and sends no progress token, so nothing extends it"),
    Host("fast-agent", "fast-agent", _names(r"^fast[\s_-]?agent"), 100.0,
         "fast-agent has answered tool calls of 120 s; longer ones are not known to survive"),
)
UNKNOWN = Host("unknown", "an unrecognized client", None, 45.0,
               "amicus-mcp does not know this client's limit on one tool call, and clients built on the "
               "TypeScript SDK end one at 60 s by default (progress does not extend it)")
BY_TAG: dict[str, Host] = {host.tag: host for host in (*HOSTS, UNKNOWN)}
CLIENT_TAGS: tuple[ClientTag, ...] = tuple(host.tag for host in HOSTS)  # what the override may name


class Detection(NamedTuple):
    tag: ClientTag
    source: Literal["env", "clientInfo", "fallback"]
    warning: str | None = None

    @property
    def host(self) -> Host:
        return BY_TAG[self.tag]


def classify(name: str | None) -> ClientTag | None:
    """The tag a `clientInfo.name` stands for, or None when it is not a host we know."""
    if not name:
        return None
    return next((host.tag for host in HOSTS if host.names is not None and host.names.search(name)), None)


def detect(name: str | None, env: Mapping[str, str]) -> Detection:
    """Pure detection from the handshake's client name and the environment."""
    override = env.get(ENV_OVERRIDE, "").strip()
    ignored: str | None = None
    if override in CLIENT_TAGS:
        return Detection(override, "env")  # narrowed by the check against the tags just above
    if override:
        ignored = f"amicus-mcp: ignoring {ENV_OVERRIDE}={override!r} (expected one of {', '.join(CLIENT_TAGS)})"
    tag = classify(name)
    if tag is not None:
        return Detection(tag, "clientInfo", ignored)
    shown = repr(name) if name else "(absent)"
    unknown = (f"amicus-mcp: unrecognized MCP client {shown}; each amicus_wait blocks at most {UNKNOWN.slice_s:g} s, "
               f"safe for a client that ends a tool call at 60 s (set {ENV_OVERRIDE} or AMICUS_WAIT_S if it allows more)")
    return Detection("unknown", "fallback", "\n".join(w for w in (ignored, unknown) if w))


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
