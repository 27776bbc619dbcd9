"""Secrets: the one home for finding them and for masking them.

Two jobs, one vocabulary of what a secret looks like:

- `redact_text` / `redact_tree` mask every *configured key value* (the provider keys in the
  environment or the keys file, any `*_KEY` / `*_TOKEN` / `*_SECRET` / `*_PASSWORD`
  variable, and every key a provider holds), every run of `FRAGMENT` (12) or more
  consecutive characters of one — a provider that quotes the key it refused cut short still
  quotes part of it — and every token shaped like a credential (`Bearer …`, `sk-…`,
  `sk-or-v1-…`, `sk-ant-…`, `AKIA…`, `ghp_…`, `xox…-…`, a private-key block). The choke
  points call them: JSON serialization (`fsio.dumps_json`), every atomic text write, every
  `AmicusError` and `ProviderError` message, the CLI's printers, a model's reply as it
  enters the engine and the MCP result builder. The keys are compiled once into an index
  of their pieces (`_KeyIndex`), so the hot paths pay about what whole-value masking did
  (bench/redaction_cost.py).
- `scan_material` finds secrets in anything about to be sent to a model (pre-flight calls
  it for the prompt file, the artifact, each template variable, Claude's review and the
  composed briefing): configured key values and pieces of them, the same credential shapes,
  assignments of a `*_KEY` / `*_TOKEN` / `*_SECRET` variable to a non-trivial value,
  password assignments (`password=…`, `PASSWORD: …`, `"db_password": "…"`,
  `;Password=…;`), and URLs with a password in them (`postgres://admin:…@db/app`).
  References, placeholders, expressions and types (`$PW`, `${{ secrets.PW }}`, `<your
  password>`, `os.environ["PW"]`, `password: SecretStr`) are not secrets. A hit names the
  line and the kind, never the value.

Nothing here imports beyond the standard library and the two ground-floor modules that find
and read the keys file (`places`, `keysfile`): errors, fsio and config all mask through it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from .keysfile import load_env_file
from .places import env_file_path

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
    """Every key value to mask, sorted (one tuple per set of keys: the compiled index's cache key)."""
    return tuple(sorted(set(configured_keys().values()) | _HELD))


@lru_cache(maxsize=1024)  # asked of every environment variable on every redaction
def _is_secret_name(name: str) -> bool:
    return name in _KNOWN_KEY_NAMES or bool(_SECRET_NAME.search(name))


def _keys_file() -> dict[str, str]:
    """The keys file's entries, re-read only when the file changes."""
    env = os.environ
    path = _keys_file_path(env.get("AMICUS_ENV_DIR"), env.get("AMICUS_CONFIG_DIR"), env.get("HOME"), env.get("USERPROFILE"))
    try:
        stat = os.stat(path)
    except OSError:
        return {}
    return dict(_keys_file_at(path, stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=8)
def _keys_file_path(*_inputs: str | None) -> str:
    """`places.env_file_path()`, once per value of the variables it is derived from
    (every redaction asks for it)."""
    return str(env_file_path())


@lru_cache(maxsize=8)
def _keys_file_at(path: str, _mtime_ns: int, _size: int) -> tuple[tuple[str, str], ...]:
    return tuple(load_env_file(Path(path)).items())


# ------------------------------------------------------------------------- redaction

# A run this long of a configured key is masked wherever it appears: a provider that quotes
# the key it refused cut to twenty characters and an ellipsis still gives twenty away.
FRAGMENT = 12
# Prefixes every key of a kind starts with: public, so a run wholly inside one is no piece
# of a key (docs say `sk-ant-api03-…`), while a run reaching past it is.
_PUBLIC_PREFIX = re.compile(r"sk-(?:or-v\d+|ant-[a-z]+\d*|proj|svcacct|admin)-|github_pat_|gh[pousr]_|xox[abposr]-")
# A value masked only whole: spaces, a path or a URL, or not ASCII (a `*_KEY` variable may
# hold the path of a key file, and masking every piece of `/home/runner/…` would mask every
# run directory).
_WHOLE_ONLY = re.compile(r"[\s:\\]|^[/~.]|[^\x21-\x7e]")
_IN_KEY, _NOT_IN_KEY = b"k", b" "
_RUN = _IN_KEY * FRAGMENT

Span = tuple[int, int]  # byte offsets into the UTF-8 text


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate is still text to mask around


class _KeyIndex:
    """The configured values compiled once: every FRAGMENT-byte piece of each key in a dict,
    the short and path-like values to match whole, and a table that maps the bytes keys are
    made of to `k` and every other byte to a space.

    Only a run of twelve `k`s in the mapped text can hold a piece, and `bytes.translate` and
    `bytes.find` find those runs in C; prose has few, so masking every piece of a key costs
    about what masking the whole keys did (bench/redaction_cost.py).
    """

    def __init__(self, values: tuple[str, ...]) -> None:
        whole: set[bytes] = set()
        self.pieces: dict[bytes, tuple[bytes, int]] = {}  # piece → (the key it is from, its offset)
        alphabet: set[int] = set()
        for value in values:
            for spelling in {value, json.dumps(value, ensure_ascii=False)[1:-1]}:  # as in a JSON string too
                raw = _utf8(spelling)
                if len(raw) < FRAGMENT or _WHOLE_ONLY.search(spelling):
                    whole.add(raw)
                    continue
                public = _PUBLIC_PREFIX.match(spelling)
                first = max(public.end() - FRAGMENT + 1, 0) if public else 0
                for i in range(first, len(raw) - FRAGMENT + 1):
                    self.pieces.setdefault(raw[i:i + FRAGMENT], (raw, i))
                alphabet.update(raw)
        self.whole = tuple(sorted(whole, key=len, reverse=True))
        self.whole_re = re.compile(b"|".join(map(re.escape, self.whole))) if whole else None
        self.table = bytes(_IN_KEY[0] if b in alphabet else _NOT_IN_KEY[0] for b in range(256))
        self.empty = not self.pieces and not self.whole

    def spans(self, raw: bytes) -> list[Span]:
        """Where the UTF-8 text `raw` holds a configured value or a piece of one, merged."""
        found: list[Span] = []
        if self.pieces and len(raw) >= FRAGMENT:
            mapped = raw.translate(self.table)
            at = mapped.find(_RUN)
            while at != -1:
                end = mapped.find(_NOT_IN_KEY, at + FRAGMENT)
                end = len(raw) if end == -1 else end
                self._in_run(raw, at, end, found)
                at = mapped.find(_RUN, end)
        if self.whole_re is not None and any(w in raw for w in self.whole):
            found.extend(m.span() for m in self.whole_re.finditer(raw))
        return _merged(found) if found else found

    def _in_run(self, raw: bytes, start: int, end: int, found: list[Span]) -> None:
        get = self.pieces.get
        i = start
        while i <= end - FRAGMENT:
            hit = get(raw[i:i + FRAGMENT])
            if hit is None:
                i += 1
                continue
            key, offset = hit
            lo, hi = i, i + FRAGMENT  # grow to all of the key the text repeats here
            while lo > start and offset > 0 and raw[lo - 1] == key[offset - 1]:
                lo, offset = lo - 1, offset - 1
            while hi < end and offset + hi - lo < len(key) and raw[hi] == key[offset + hi - lo]:
                hi += 1
            found.append((lo, hi))
            i = max(i + 1, hi - FRAGMENT + 1)  # a piece starting inside this one still counts

    def mask(self, text: str) -> str:
        if self.empty or (len(text) < FRAGMENT and not self.whole):
            return text
        raw = _utf8(text)
        spans = self.spans(raw)
        if not spans:
            return text
        parts: list[bytes] = []
        at = 0
        for lo, hi in spans:
            parts += [raw[at:lo], REDACTED.encode()]
            at = hi
        parts.append(raw[at:])
        return b"".join(parts).decode("utf-8", "surrogatepass")


def _merged(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


@lru_cache(maxsize=32)
def _index(values: tuple[str, ...]) -> _KeyIndex:
    return _KeyIndex(values)


_SHAPE_REDACTOR = re.compile("|".join([pattern for _, pattern in _SHAPES] + [_BEARER]), re.DOTALL)
# A credential shape cannot match without one of these; checking them first keeps the
# common case (a large document with no secret) at the speed of a substring search.
_TRIGGERS = ("-----BEGIN", "sk-", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AIza", "Bearer")


def redact_text(text: str, extra: Iterable[Any] = ()) -> str:
    """`text` with every configured key value, every value in `extra` (str or a `Secret`),
    every run of FRAGMENT or more characters of one, and every credential-shaped token
    replaced by `***`. Redact first, cut after."""
    return _redact(text, _index(_known_values(extra)))


def redact_tree(value: Any) -> Any:
    """A JSON-like value with every string (keys included) passed through `redact_text`.

    All strings are first checked at once: when their joined text holds no piece of a key and
    no trigger of a credential shape (the join's separator is no key character, so a piece in
    one string is a piece in the join and none spans two), the tree is returned as it is,
    without a walk. This is every tool result's common case."""
    index = _index(_known_values(()))
    if not _may_hold_secret("\x00".join(_strings(value)), index):
        return value

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return _redact(node, index)
        if isinstance(node, dict):
            return {_redact(k, index) if isinstance(k, str) else k: walk(v) for k, v in node.items()}
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


def _may_hold_secret(text: str, index: _KeyIndex) -> bool:
    """False only when nothing in `text` can need masking."""
    return any(t in text for t in _TRIGGERS) or (not index.empty and bool(index.spans(_utf8(text))))


def _known_values(extra: Iterable[Any]) -> tuple[str, ...]:
    values = configured_key_values()
    more = {v for v in (item.reveal() if hasattr(item, "reveal") else item for item in extra)
            if isinstance(v, str) and len(v) >= 4}  # very short values would mangle words
    return tuple(sorted(set(values) | more)) if more - set(values) else values


def _redact(text: str, index: _KeyIndex) -> str:
    text = index.mask(text)
    if any(t in text for t in _TRIGGERS):
        text = _SHAPE_REDACTOR.sub(_mask, text)
    return text


def _mask(match: re.Match[str]) -> str:
    found = match.group(0)
    return "Bearer " + REDACTED if found.startswith("Bearer") else REDACTED


def mask_configured(text: str) -> str:
    """`text` with only the configured key values (and their pieces) masked; credential
    shapes kept as written."""
    return _index(configured_key_values()).mask(text)


# -------------------------------------------------------------------------- scanning

# `NAME=value` / `NAME: value` / `"NAME": "value"`, at the start of a line or after a
# separator (`;Password=…` in a connection string, `(password="…")` in code, `&token=…`).
# Two families of NAME: the credential ones (`*_KEY`, `*_TOKEN`, `*_SECRET`, `API_KEY`), whose
# values are long, and the password ones (`password`, `DB_PASSWORD`, `PGPASSWORD`, `passwd`,
# `passphrase`, `MYSQL_PWD`), whose values may be short.
_ASSIGNMENT = re.compile(
    r"""(?:^|(?<=[\s;,&?({\[`]))(?:export\s+)?["']?"""
    r"""(?P<name>(?P<pw>[A-Za-z0-9_.-]*(?:PASSWORD|PASSWD|PASSPHRASE)|[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*[_-]PWD)"""
    r"""|[A-Za-z_][A-Za-z0-9_]*(?:_KEY|_TOKEN|_SECRET)|API_?KEY)["']?[ \t]*[:=][ \t]*"""  # on one line
    r"""(?:"(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s"',;`)\]}\\]+))""",
    re.IGNORECASE | re.MULTILINE,
)
# A URL with a password in it: `postgres://admin:…@db.internal/app`.
_DSN = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://(?P<user>[^\s:/@?#]*):(?P<value>[^\s/@?#]+)@[^\s/@?#]+")
_PLACEHOLDER = re.compile(
    r"^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\(.*\)|<[^>]*>|\$?\{\{.*\}\}|\{[A-Za-z0-9_.]*\}|%\(?\w*\)?s|\*+|x+|\.+|"
    r"(?:your|my|the|example|dummy|fake|test|sample|placeholder|changeme|redacted|secret|token|key|none|null|"
    r"true|false|password|passwd|pass|string|str)[A-Za-z0-9_-]*|.*\.\.\.?.*|.*….*)$",
    re.IGNORECASE,
)
# An expression rather than a literal (`os.environ["PW"]`, `settings.db_password`, `get_pw()`).
_EXPRESSION = re.compile(r"[(\[{]|^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$|^[~.]?/")


class SecretHit(NamedTuple):
    line: int
    kind: str

    def describe(self) -> str:
        return f"line {self.line}: {self.kind}"


def scan_material(text: str) -> list[SecretHit]:
    """Every secret-looking thing in `text`, by line and kind, in order; values never kept."""
    hits: list[SecretHit] = []
    starts = _line_starts(text)

    def hit(offset: int, kind: str) -> None:
        hits.append(SecretHit(_line_of(starts, offset), kind))

    raw = _utf8(text)
    for name, value in configured_keys().items():
        for lo, hi in _index((value,)).spans(raw):
            whole = raw[lo:hi] == _utf8(value)
            hits.append(SecretHit(raw.count(b"\n", 0, lo) + 1, f"the value of the configured key {name}" if whole
                                  else f"a piece of the configured key {name}"))
    for kind, pattern in _SHAPE_RES:
        for match in pattern.finditer(text):
            hit(match.start(), kind)
    for match in _ASSIGNMENT.finditer(text):
        quoted = match.group("bare") is None
        value = next(v for v in (match.group("dq"), match.group("sq"), match.group("bare")) if v is not None)
        real = _real_password(value, quoted=quoted) if match.group("pw") else _real_value(value)
        if real:
            hit(match.start("name"), f"an assignment of {match.group('name')}")
    for match in _DSN.finditer(text):
        if _real_password(match.group("value"), quoted=True) and match.group("value") != match.group("user"):
            hit(match.start(), "a password in a connection URL")
    unique = {(h.line, h.kind): h for h in hits}
    return sorted(unique.values(), key=lambda h: (h.line, h.kind))


def _real_value(value: str) -> bool:
    """A value worth refusing: long, mixed, and not a placeholder like `${KEY}` or `sk-...`."""
    if len(value) < 12 or _PLACEHOLDER.match(value) or len(set(value)) < 6:
        return False
    classes = sum(bool(re.search(p, value)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
    return classes >= 2


def _real_password(value: str, *, quoted: bool) -> bool:
    """A password worth refusing. Passwords are short, so six characters do; what is not
    one: a placeholder, a reference (`$PW`, `${{ secrets.PW }}`), an expression in code
    (`os.environ["PW"]`, `cfg.password`), a path, a type (`password: SecretStr`). An
    unquoted value needs a digit or a symbol (else it is a name in code); a quoted one two
    kinds of character, or length."""
    value = value.strip()
    if len(value) < 6 or _PLACEHOLDER.match(value) or len(set(value)) < 4:
        return False
    if not quoted and _EXPRESSION.search(value):
        return False
    kinds = [bool(re.search(p, value)) for p in ("[a-z]", "[A-Z]", "[0-9]", r"[^A-Za-z0-9]")]
    if quoted:
        return sum(kinds) >= 2 or len(value) >= 12
    return sum(kinds) >= 2 and (kinds[2] or bool(re.search(r"[^A-Za-z0-9_.-]", value)))  # not an identifier


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _line_of(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset)
