"""API keys: where they come from, and how they are kept out of every message.

Keys come from the process environment or from the keys file `.env` in the config dir
(`$AMICUS_ENV_DIR/.env` when that is set, else `$AMICUS_CONFIG_DIR/.env`, else
`~/.config/amicus/.env`: `places.env_file_path`). The process environment wins, so a key
exported in a shell overrides the file without editing it. The file's format is the usual
one (`keysfile`); nothing here logs or formats a value.

`Secret` wraps a key so an accidental `repr`/`str`/f-string shows `***`, and `redact`
scrubs key values out of any text a server sends back before it reaches an error. The
masking itself lives in `amicus_mcp.secrets` (one home: configured keys, the keys a
provider holds, and credential-shaped tokens).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..envvars import looks_like_placeholder
from ..errors import BadArgs
from ..fsio import atomic_write_text
from ..keysfile import KEY_NAME, load_env_file, parse_env_line
from ..places import env_file_path
from ..secrets import REDACTED, hold, redact_text
from ..textcodec import NotText, decode_text


class Secret:
    """A key value that never shows itself unless asked with `reveal()`."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value
        hold(value)  # from now on every redaction masks it, wherever it was read from

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"Secret({REDACTED})"

    def __str__(self) -> str:
        return REDACTED

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)


def set_key_hint(name: str) -> str:
    """The one hint for a key that is not set, as the user it reaches can set it (`front.py`):
    the command that stores it, or the shell way, on the CLI; the server's environment or the
    keys file (which the server reads too) over MCP; the extension's settings form for a server
    Claude Desktop started from the bundle, when the form has a field for it."""
    from ..front import current, form_field

    where = current()
    if where == "desktop" and form_field(name) is not None:
        return f"paste the key into the amicus extension's settings in Claude Desktop (it sets {name})"
    stored = f"amicus keys set {name} in a terminal (it is kept in {env_file_path()}, which the server reads)"
    if where != "cli":
        return f"{stored}, or add {name} to the server's env in your MCP client's configuration"
    return f"amicus keys set {name}  (it is kept in {env_file_path()}), or export {name}=… in your shell"


def get_key(
    *names: str, environ: Mapping[str, str] | None = None, env_file: Mapping[str, str] | None = None
) -> Secret | None:
    """The first real value among `names`: process env first, then the keys file. An empty
    value or one shaped like a template placeholder (`${user_config.…}` an installer left
    unfilled) is not a key: it is never sent (`not_set` says which variable holds it)."""
    env = os.environ if environ is None else environ
    for name in names:
        value = env.get(name, "").strip()
        if value and not looks_like_placeholder(value):
            return Secret(value)
    file_values = load_env_file() if env_file is None else env_file
    for name in names:
        value = file_values.get(name, "").strip()
        if value and not looks_like_placeholder(value):
            return Secret(value)
    return None


def placeholder_source(name: str, *, environ: Mapping[str, str] | None = None,
                       env_file: Mapping[str, str] | None = None) -> str | None:
    """Where `name` holds a placeholder instead of a key ("the environment", the keys file's
    path), or None. Never the value."""
    env = os.environ if environ is None else environ
    if looks_like_placeholder(env.get(name, "")):
        return "the environment"
    if not env.get(name, "").strip():
        file_values = load_env_file() if env_file is None else env_file
        if looks_like_placeholder(file_values.get(name, "")):
            return str(env_file_path()) if env_file is None else "the keys file"
    return None


def not_set(*names: str) -> str:
    """How a missing-key message says why: "X is not set", or that X holds an unfilled
    placeholder (a template an installer or config left as it was), which is never sent."""
    for name in names:
        where = placeholder_source(name)
        if where is not None:
            return f"{name} holds a template placeholder in {where}, not a key (it is never sent)"
    return f"{' or '.join(names)} is not set"


def redact(text: str, secrets: Iterable[Secret | str | None]) -> str:
    """`text` with each of `secrets`, every configured key value and every credential-shaped
    token replaced by `***`."""
    return redact_text(text, (s for s in secrets if s is not None))


def set_key(name: str, value: str, path: Path | None = None) -> Path:
    """Write or replace `name` in the keys file, which is (re)created private (0600).

    Other lines — comments, other keys — are kept as they are. The value is never echoed.
    """
    if not KEY_NAME.match(name):
        raise BadArgs(f"'{name}' is not a valid variable name", hint="e.g. OPENROUTER_API_KEY")
    if not value or "\n" in value or "\r" in value:
        raise BadArgs(f"the value for {name} is empty or spans lines", hint="paste the key on one line")
    target = path or env_file_path()
    lines = _lines_without(target, name)
    lines.append(f"{name}={value}")
    _write_private(target, "\n".join(lines) + "\n")
    return target


def unset_key(name: str, path: Path | None = None) -> bool:
    """Remove `name` from the keys file; False when it was not there."""
    target = path or env_file_path()
    if not target.exists():
        return False
    before = target.read_bytes()
    lines = _lines_without(target, name)
    _write_private(target, "\n".join(lines) + ("\n" if lines else ""))
    return target.read_bytes() != before


def file_key_names(path: Path | None = None) -> list[str]:
    """The names the keys file defines (never their values)."""
    return sorted(load_env_file(path or env_file_path()))


def _lines_without(path: Path, name: str) -> list[str]:
    if not path.exists():
        return []
    kept = []
    try:
        text = decode_text(path.read_bytes())
    except NotText:
        raise BadArgs(f"the keys file {path} is not text", hint="move it aside; amicus writes a new one") from None
    for raw in text.splitlines():
        parsed = parse_env_line(raw)
        if parsed is None or parsed[0] != name:
            kept.append(raw)
    return kept


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # The temp file is created 0600 by mkstemp, so the key is never readable by others.
    # The one file whose key values are the point of it: written unmasked.
    atomic_write_text(path, text, mask_keys=False)
    path.chmod(0o600)
