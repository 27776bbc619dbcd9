"""File I/O every layer shares: atomic writes, tolerant reads, locked appends.

Why here and not in each caller: "nothing lost" is a property of the whole project, so
there is exactly one way to write a document (temp file + fsync + rename) and one way to
append a ledger line (one whole line per write, under a file lock).
"""

from __future__ import annotations

import codecs
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from filelock import FileLock

from .errors import BadArgs


def dumps_json(doc: Any, *, indent: int | None = 2) -> str:
    """Serialize a document the way the JSON family is written everywhere.

    Integral floats are written as integers (a mean rank of 2.0 is `2`), matching the
    JavaScript tool's output so documents stay byte-stable across the two implementations.
    """
    separators = (",", ": ") if indent is not None else (",", ":")
    return json.dumps(_integral_floats_as_int(doc), indent=indent, separators=separators, ensure_ascii=False)


def _integral_floats_as_int(value: Any) -> Any:
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {k: _integral_floats_as_int(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral_floats_as_int(v) for v in value]
    return value


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write `text` to `path` so a reader sees either the old file or the whole new one."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".tmp-{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target


def atomic_write_json(path: str | os.PathLike[str], doc: Any) -> Path:
    return atomic_write_text(path, dumps_json(doc) + "\n")


def decode_text(raw: bytes) -> str:
    """Decode bytes written by any common editor or shell.

    Windows PowerShell 5.1 redirects output as UTF-16 LE with a BOM, and some editors add a
    UTF-8 BOM; both must read as the same document as plain UTF-8.
    """
    for bom, encoding in (
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if raw.startswith(bom):
            return raw[len(bom):].decode(encoding)
    # BOM-less UTF-16: every other byte of ASCII text is NUL.
    if len(raw) >= 2 and raw[1:2] == b"\x00" and raw[0:1] != b"\x00":
        return raw.decode("utf-16-le")
    if len(raw) >= 2 and raw[0:1] == b"\x00" and raw[1:2] != b"\x00":
        return raw.decode("utf-16-be")
    return raw.decode("utf-8")


def read_text(path: str | os.PathLike[str], *, what: str = "file") -> str:
    """Read a text file, turning every way it can be unreadable into a BadArgs."""
    p = Path(path)
    if p.is_dir():
        raise BadArgs(f"{what} '{p}' is a directory, not a file", hint=f"pass the path of the {what} itself")
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise BadArgs(f"{what} '{p}' does not exist", hint="check the path") from None
    except OSError as exc:
        raise BadArgs(f"cannot read {what} '{p}': {exc.strerror or exc}", hint="check the path and its permissions") from None
    try:
        return decode_text(raw)
    except UnicodeDecodeError:
        raise BadArgs(f"{what} '{p}' is not text (not UTF-8 or UTF-16)", hint="save it as UTF-8") from None


def read_json(path: str | os.PathLike[str], *, what: str = "JSON file") -> Any:
    text = read_text(path, what=what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadArgs(
            f"{what} '{path}' is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            hint="check the file is the complete JSON document",
        ) from None


def append_jsonl(path: str | os.PathLike[str], rows: list[dict[str, Any]]) -> None:
    """Append rows to a JSON Lines file, one whole line per write, under a file lock."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock", timeout=30):
        with open(target, "a", encoding="utf-8") as handle:
            for row in rows:
                handle.write(dumps_json(row, indent=None) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
