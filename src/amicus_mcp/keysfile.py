"""How the keys file reads: `KEY=value` lines, `#` comments, blank lines, an optional
`export ` prefix and optional matching quotes around the value; later lines win.

Nothing here logs or formats a value: a malformed line is reported by its line number only.
Standard library only, at the ground floor: `secrets` reads the file with it to know which
values to mask (where the file is: `places`; keeping keys in it: `providers.keys`).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from .places import ENV_FILE, env_file_path
from .textcodec import NotText, decode_text

log = logging.getLogger(__name__)

KEY_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_env_text(text: str, *, source: str = ENV_FILE) -> dict[str, str]:
    """Parse `.env` text into a dict; later lines win over earlier ones."""
    values: dict[str, str] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        try:
            parsed = parse_env_line(raw)
        except ValueError:
            log.warning("%s line %d is not KEY=value; ignored", source, lineno)
            continue
        if parsed is not None:
            values[parsed[0]] = parsed[1]
    return values


def parse_env_line(raw: str) -> tuple[str, str] | None:
    """(name, value), or None for a blank/comment line; ValueError when malformed."""
    line = raw.strip()
    if not line or line.startswith("#"):
        return None
    if line.startswith("export "):
        line = line[len("export ") :].lstrip()
    name, sep, value = line.partition("=")
    name = name.strip()
    if not sep or not KEY_NAME.match(name):
        raise ValueError("not KEY=value")
    return name, _unquote(value.strip())


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    # An unquoted value may carry a trailing " # comment".
    hash_at = value.find(" #")
    return value[:hash_at].rstrip() if hash_at >= 0 else value


def load_env_file(path: Path | None = None) -> dict[str, str]:
    """The keys file as a dict; `{}` when it does not exist or cannot be read."""
    target = env_file_path() if path is None else path
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        log.warning("cannot read keys file %s (%s); ignoring it", target, exc.strerror or type(exc).__name__)
        return {}
    try:
        text = decode_text(raw)
    except NotText as exc:  # never a byte of the file in the log: say only what kind of file it is
        log.warning("keys file %s is %s; ignoring it", target, "binary" if exc.binary else "not text")
        return {}
    return parse_env_text(text, source=str(target))
