"""Secrets: the one home for finding them and for masking them.

Two jobs, one vocabulary of what a secret looks like:

- `redact_text` / `redact_tree` mask every *configured key value* (the provider keys in the
  environment or the keys file, and any `*_KEY` / `*_TOKEN` / `*_SECRET` / `*_PASSWORD`
  variable) and every token shaped like a credential (`Bearer …`, `sk-…`, `sk-or-v1-…`,
  `sk-ant-…`, `AKIA…`, `ghp_…`, `xox…-…`, a private-key block). The choke points call
  them: JSON serialization (`fsio.dumps_json`), every atomic text write, every
  `AmicusError` and `ProviderError` message, the CLI's printers, a model's reply as it
  enters the engine and the MCP result builder.
- `scan_material` finds secrets in a briefing before it is sent to any model: the values
  of configured keys, the same credential shapes, and `.env`-style assignments of a
  `*_KEY` / `*_TOKEN` / `*_SECRET` variable to a non-trivial value. A hit names the line
  and the kind, never the value.

Nothing here imports beyond the standard library at import time (fsio and errors use it).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

REDACTED = "***"

# Variable names whose values are secrets wherever they are set.
_SECRET_NAME = re.compile(r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
_KNOWN_KEY_NAMES = (
    "OPENROUTER_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
    "GEMINI_API_KEY", "ANTHROPIC_API_KEY",
)

# Credential shapes: (kind, pattern). Generic shapes need a digit, so prose ("sk-learn-style
# estimators", "Bearer authentication") is never taken for a key.
_SHAPES: tuple[tuple[str, str], ...] = (
    ("a private-key block", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?"),
    ("an OpenRouter key (sk-or-…)", r"(?<![A-Za-z0-9_-])sk-or-v\d-[A-Za-z0-9_-]{16,}"),
    ("an Anthropic key (sk-ant-…)", r"(?<![A-Za-z0-9_-])sk-ant-(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{16,}"),
    ("an OpenAI-style key (sk-…)", r"(?<![A-Za-z0-9_-])sk-(?!or-v\d-|ant-)(?:proj-|svcacct-)?(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{20,}"),
    ("an AWS access key id (AKIA…)", r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"),
    ("a GitHub token (ghp_…)", r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})"),
    ("a Slack token (xox…)", r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}"),
    ("a Google API key (AIza…)", r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}"),
)
_BEARER = r"(?<![A-Za-z0-9])Bearer\s+(?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}"  # a digit: not prose
_SHAPE_RES = tuple((kind, re.compile(pattern, re.DOTALL)) for kind, pattern in _SHAPES)

# `NAME=value` / `NAME: value` lines of a .env or config file, NAME ending in _KEY/_TOKEN/_SECRET.
_ASSIGNMENT = re.compile(
    r"""^\s*(?:export\s+)?["']?(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:_KEY|_TOKEN|_SECRET|_PASSWORD)|API_KEY)["']?\s*[:=]\s*"""
    r"""(?P<q>["']?)(?P<value>[^\s"'#,;]+)(?P=q)""",
    re.IGNORECASE | re.MULTILINE,
)
_PLACEHOLDER = re.compile(
    r"^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\{\{.*\}\}|\*+|x+|\.+|(?:your|my|the|example|dummy|fake|test|sample|"
    r"placeholder|changeme|redacted|secret|token|key|none|null|true|false)[A-Za-z0-9_-]*|.*\.\.\.?.*|.*….*)$",
    re.IGNORECASE,
)


# ----------------------------------------------------------------- configured key values


def _strong(value: str) -> bool:
    """Long enough to be a real key and not an ordinary word (masking 'disabled' everywhere
    would mangle text)."""
    value = value.strip()
    return len(value) >= 20 or (len(value) >= 8 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value))


def configured_keys() -> dict[str, str]:
    """{variable name: value} of every key this machine has configured (env wins over file)."""
    found: dict[str, str] = {}
    for name, value in _keys_file().items():
        if _is_secret_name(name) and _strong(value):
            found[name] = value.strip()
    found.update(_environment_keys(_environment()))
    return found


def _environment() -> tuple[tuple[Any, Any], ...]:
    """The environment as it is now, cheaply: the raw mapping `os.environ` keeps (its values are
    not decoded, so this costs a copy, not a scan)."""
    raw = getattr(os.environ, "_data", None)
    return tuple(raw.items()) if isinstance(raw, dict) else tuple(os.environ.items())


@lru_cache(maxsize=8)
def _environment_keys(_environ: tuple[tuple[Any, Any], ...]) -> tuple[tuple[str, str], ...]:
    """The secret variables of one state of the environment. Every redaction (so every tool
    result and every error) asks; scanning every variable each time was a fixed cost on all of
    them, so the scan is done once per distinct environment."""
    return tuple((name, value.strip()) for name, value in os.environ.items()
                 if _is_secret_name(name) and _strong(value))


# Keys this process holds as `providers.keys.Secret`s (a key passed to a provider directly
# is as secret as one read from the environment).
_HELD: set[str] = set()


def hold(value: str) -> None:
    """Make `value` one of the configured key values every redaction masks."""
    if _strong(value):
        _HELD.add(value.strip())


def configured_key_values() -> tuple[str, ...]:
    return tuple(sorted(set(configured_keys().values()) | _HELD, key=len, reverse=True))


def _is_secret_name(name: str) -> bool:
    return name in _KNOWN_KEY_NAMES or bool(_SECRET_NAME.search(name))


def _keys_file() -> dict[str, str]:
    """The keys file's entries, re-read only when the file changes."""
    from .providers.keys import env_file_path

    path = env_file_path()
    try:
        stat = os.stat(path)
    except OSError:
        return {}
    return dict(_keys_file_at(str(path), stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=8)
def _keys_file_at(path: str, _mtime_ns: int, _size: int) -> tuple[tuple[str, str], ...]:
    from pathlib import Path

    from .providers.keys import load_env_file

    return tuple(load_env_file(Path(path)).items())


# ------------------------------------------------------------------------- redaction


@lru_cache(maxsize=32)
def _redactor(values: tuple[str, ...]) -> re.Pattern[str]:
    literal: list[str] = []
    for value in values:
        literal.append(re.escape(value))
        escaped = json.dumps(value, ensure_ascii=False)[1:-1]  # as it appears inside a JSON string
        if escaped != value:
            literal.append(re.escape(escaped))
    shapes = [pattern for _, pattern in _SHAPES] + [_BEARER]
    return re.compile("|".join([*literal, *shapes]), re.DOTALL)


# A credential shape cannot match without one of these; checking them first keeps the
# common case (a large document with no secret) at the speed of a substring search.
_TRIGGERS = ("-----BEGIN", "sk-", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AIza", "Bearer")


def redact_text(text: str, extra: Iterable[Any] = ()) -> str:
    """`text` with every configured key value, every value in `extra` (str or a `Secret`)
    and every credential-shaped token replaced by `***`. Redact first, cut after."""
    return _redact(text, _known_values(extra))


def redact_tree(value: Any) -> Any:
    """A JSON-like value with every string (keys included) passed through `redact_text`.

    All strings are first checked at once: when their joined text cannot hold a secret (no
    key value, no trigger of a credential shape — substrings, so what one string holds the
    joined text holds too), the tree is returned as it is, without a walk. This is every
    tool result's common case."""
    values = _known_values(())
    if not _may_hold_secret("\x00".join(_strings(value)), values):
        return value

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return _redact(node, values)
        if isinstance(node, dict):
            return {_redact(k, values) if isinstance(k, str) else k: walk(v) for k, v in node.items()}
        if isinstance(node, (list, tuple)):
            return [walk(v) for v in node]
        return node

    return walk(value)


def _strings(node: Any) -> Iterable[str]:
    """Every string in a JSON-like value, dictionary keys included."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for key, item in node.items():
                if isinstance(key, str):
                    yield key
                stack.append(item)
        elif isinstance(node, (list, tuple)):
            stack.extend(node)


def _known_values(extra: Iterable[Any]) -> tuple[str, ...]:
    values = set(configured_key_values())
    for item in extra:
        value = item.reveal() if hasattr(item, "reveal") else item
        if isinstance(value, str) and len(value) >= 4:  # very short values would mangle words
            values.add(value)
    return tuple(values)


def _present(text: str, values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v for v in values if v in text or json.dumps(v, ensure_ascii=False)[1:-1] in text)


def _may_hold_secret(text: str, values: tuple[str, ...]) -> bool:
    """False only when nothing in `text` can need masking. Substring checks only, so a text
    that contains `text` (a join of strings) answers for every part of it."""
    return bool(_present(text, values)) or any(t in text for t in _TRIGGERS)


def _redact(text: str, values: tuple[str, ...]) -> str:
    if not _may_hold_secret(text, values):
        return text
    present = _present(text, values)
    return _redactor(tuple(sorted(present, key=len, reverse=True))).sub(_mask, text)


def _mask(match: re.Match[str]) -> str:
    found = match.group(0)
    return "Bearer " + REDACTED if found.startswith("Bearer") else REDACTED


def mask_configured(text: str) -> str:
    """`text` with only the configured key values masked (credential shapes kept as written)."""
    values = configured_key_values()
    if not values:
        return text
    return re.compile("|".join(re.escape(v) for v in values)).sub(REDACTED, text)


# -------------------------------------------------------------------------- scanning


@dataclass(frozen=True)
class SecretHit:
    line: int
    kind: str

    def describe(self) -> str:
        return f"line {self.line}: {self.kind}"


def scan_material(text: str) -> list[SecretHit]:
    """Every secret-looking thing in `text`, by line and kind, in order; values never kept."""
    hits: list[SecretHit] = []
    starts = _line_starts(text)
    for name, value in configured_keys().items():
        for match in re.finditer(re.escape(value), text):
            hits.append(SecretHit(_line_of(starts, match.start()), f"the value of the configured key {name}"))
    for kind, pattern in _SHAPE_RES:
        for match in pattern.finditer(text):
            hits.append(SecretHit(_line_of(starts, match.start()), kind))
    for match in _ASSIGNMENT.finditer(text):
        if _real_value(match.group("value")):
            hits.append(SecretHit(_line_of(starts, match.start("value")), f"an assignment of {match.group('name')}"))
    unique = {(h.line, h.kind): h for h in hits}
    return sorted(unique.values(), key=lambda h: (h.line, h.kind))


def _real_value(value: str) -> bool:
    """A value worth refusing: long, mixed, and not a placeholder like `${KEY}` or `sk-...`."""
    if len(value) < 12 or _PLACEHOLDER.match(value) or len(set(value)) < 6:
        return False
    classes = sum(bool(re.search(p, value)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
    return classes >= 2


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _line_of(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset)
