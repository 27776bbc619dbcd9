"""File I/O every layer shares: atomic writes, bounded strict reads, locked appends.

Why here and not in each caller: "nothing lost" is a property of the whole project, so
there is exactly one way to write a document (temp file + fsync + rename), one way to
append a ledger line (whole lines, under a file lock), one way to read an input (a regular
file, at most `max_input_bytes()`, never blocking on a FIFO) and one JSON dialect: strict
(no NaN / Infinity in or out, numbers within ±`MAX_JSON_NUMBER`, nesting at most
`MAX_JSON_DEPTH`, no lone surrogates), with every key value and credential-shaped token
masked on the way out (`secrets.redact_text`).
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .errors import BadArgs, BadSession
from .secrets import mask_configured, redact_text
from .textcodec import NotText, decode_text

# Reads: the largest document or briefing amicus reads, and the variable that overrides it.
DEFAULT_MAX_INPUT_BYTES = 8 * 1024 * 1024
MAX_INPUT_ENV = "AMICUS_MAX_INPUT_BYTES"
# JSON input: deeper nesting or larger numbers than any amicus document has are bad input.
MAX_JSON_DEPTH = 64
MAX_JSON_NUMBER = 1e15  # ±; a USD cost, token count or duration in ms stays far below it
_MAX_INT_DIGITS = 16
TEMP_PREFIX = ".tmp-"
_TEMP_NAME = re.compile(r"^\.tmp-.+\.(?P<pid>\d+)\.[A-Za-z0-9_]+$")
# Output: characters that must not appear raw in JSON text (C1 controls drive terminals;
# lone surrogates cannot be encoded). Outside strings JSON text is ASCII, so these only
# ever occur inside strings, where a \u escape is the same value.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\ud800-\udfff]")


def dumps_json(doc: Any, *, indent: int | None = 2, mask_keys: bool = True) -> str:
    """Serialize a document the way the JSON family is written everywhere.

    Integral floats are written as integers (a mean rank of 2.0 is `2`), matching the
    JavaScript tool's output so documents stay byte-stable across the two implementations.
    NaN and Infinity raise ValueError: strict JSON has no spelling for them. Key values and
    credential-shaped tokens are masked (`***`) unless `mask_keys=False`: for the user's own
    config.json, whose provider headers may carry a credential on purpose, and for a document
    `secrets.redact_tree` has just masked string by string (an MCP result), which leaves the
    text nothing to mask.
    """
    separators = (",", ": ") if indent is not None else (",", ":")
    text = json.dumps(_integral_floats_as_int(doc), indent=indent, separators=separators, ensure_ascii=False,
                      allow_nan=False)
    text = redact_text(text) if mask_keys else text
    if text.isascii() and "\x7f" not in text:  # the common case, checked at C speed
        return text
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def _integral_floats_as_int(value: Any) -> Any:
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {k: _integral_floats_as_int(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral_floats_as_int(v) for v in value]
    return value


def atomic_write_text(path: str | os.PathLike[str], text: str, *, mask_keys: bool = True,
                      durable: bool = True) -> Path:
    """Write `text` to `path` so a reader sees either the old file or the whole new one.

    Configured key values are masked unless `mask_keys=False` (the keys file and config.json:
    the user's own files, where a credential is the point).
    `durable=False` skips the fsync: for a document rewritten again within moments, whose
    last write is durable (a running run's run.json); the write stays atomic either way, and a
    killed process loses nothing the kernel already holds.
    """
    if mask_keys:
        text = mask_configured(text)
    return atomic_write_bytes(path, text.encode("utf-8", errors="replace"), durable=durable)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, durable: bool = True) -> Path:
    """Write `data` to `path` atomically, as it is (a pull request's diff, in whatever encoding).
    The temp file's name carries the writer's pid, so `sweep_temp_files` can tell an
    abandoned one (its writer is gone) from one being written right now."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{target.name}.{os.getpid()}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
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


def atomic_write_json(path: str | os.PathLike[str], doc: Any, *, mask_keys: bool = True,
                      indent: int | None = 2, durable: bool = True) -> Path:
    # dumps_json already masked every key value (and credential shape): not twice per write.
    return atomic_write_text(path, dumps_json(doc, mask_keys=mask_keys, indent=indent) + "\n", mask_keys=False,
                             durable=durable)


def max_input_bytes() -> int:
    """The read limit: `$AMICUS_MAX_INPUT_BYTES` when it is a positive integer, else 8 MiB."""
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MAX_INPUT_BYTES


def read_bytes_bounded(path: str | os.PathLike[str], *, what: str = "file", limit: int | None = None,
                       hint: str | None = None) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (default `max_input_bytes()`, which
    the user can raise); BadArgs otherwise. A smaller `limit` is a kind of input's own bound
    (a template, a pack, an artifact), and `hint` says what to do instead.

    A FIFO, a device (/dev/zero) or a socket is refused from its stat before it is opened,
    and the open is non-blocking, so a path swapped for a FIFO in between cannot hang it.
    """
    p = Path(path)
    if "\x00" in str(p):  # no file is named so (the OS would raise ValueError): the caller's bad name
        checked_name(str(p), what)
    bound = _Bound(limit, hint)
    try:
        before = os.stat(p)
        _check_regular(p, before, what, bound)
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise BadArgs(f"{what} '{p}' does not exist", hint="check the path") from None
    except NotADirectoryError:
        raise BadArgs(f"{what} '{p}' does not exist (a parent is not a directory)", hint="check the path") from None
    except OSError as exc:
        raise BadArgs(f"cannot read {what} '{p}': {exc.strerror or exc}", hint="check the path and its permissions") from None
    try:
        opened = os.fstat(fd)
        _check_regular(p, opened, what, bound)
        raw = _read_up_to(fd, bound.bytes + 1, expected=opened.st_size)  # a file that grew since is still refused
    finally:
        os.close(fd)
    if len(raw) > bound.bytes:
        raise bound.refusal(p, what, size=None)
    return raw


def _read_up_to(fd: int, most: int, *, expected: int) -> bytes:
    """At most `most` bytes from `fd`, asked for in pieces of about the size the file had: one
    read of the whole bound would allocate all of it (8 MiB) for every small document."""
    chunks: list[bytes] = []
    got = 0
    piece = max(expected + 1, 1 << 16)
    while got < most:
        chunk = os.read(fd, min(piece, most - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


class _Bound:
    """How much of a file amicus reads, and what it says of a file past that."""

    def __init__(self, limit: int | None, hint: str | None) -> None:
        self.own = limit is not None
        self.bytes = limit if limit is not None else max_input_bytes()
        self.hint = hint

    def refusal(self, p: Path, what: str, *, size: int | None) -> BadArgs:
        if self.own:
            shown = f"is {size} bytes" if size is not None else "is larger than that"
            return BadArgs(f"{what} '{p}' {shown}; the limit is {self.bytes} bytes",
                           hint=self.hint or "pass a smaller file")
        shown = f"is {_size(size)}, larger than" if size is not None else "is larger than"
        return BadArgs(f"{what} '{p}' {shown} the {_size(self.bytes)} amicus reads",
                       hint=self.hint or f"pass a smaller file, or raise the limit with {MAX_INPUT_ENV}=BYTES")


def _check_regular(p: Path, st: os.stat_result, what: str, bound: _Bound) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise BadArgs(f"{what} '{p}' is a directory, not a file", hint=f"pass the path of the {what} itself")
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file"
        raise BadArgs(f"{what} '{p}' is {kind}; amicus reads only regular files",
                      hint="save the input to a file first, then pass its path")
    if st.st_size > bound.bytes:
        raise bound.refusal(p, what, size=st.st_size)


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def read_text(path: str | os.PathLike[str], *, what: str = "file", limit: int | None = None,
              hint: str | None = None) -> str:
    """Read a text file (bounded, regular files only), turning every failure into a BadArgs."""
    p = Path(path)
    raw = read_bytes_bounded(p, what=what, limit=limit, hint=hint)
    try:
        return decode_text(raw)
    except NotText as exc:
        raise BadArgs(f"{what} '{p}' {exc}", hint="save it as UTF-8 text") from None


def read_json(path: str | os.PathLike[str], *, what: str = "JSON file") -> Any:
    return loads_json(read_text(path, what=what), what=f"{what} '{path}'")


def loads_json(text: str | bytes, *, what: str = "JSON input", strict_strings: bool = True) -> Any:
    """Parse strict JSON: every way it is not a usable document is a BadArgs naming `what`.

    The one JSON reader for anything amicus did not just write itself — files, arguments,
    provider and model replies — so a 5,000-digit integer, NaN or a 10,000-deep nest is a
    clear error everywhere rather than a crash somewhere. `strict_strings=False` accepts raw
    control characters inside strings (a grammar-constrained local model writes newlines
    there); bytes are read as UTF-8.
    """
    try:
        doc = json.loads(text, parse_constant=_refuse_constant(what), parse_int=_bounded_int(what),
                         strict=strict_strings)
    except json.JSONDecodeError as exc:
        raise BadArgs(
            f"{what} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            hint="check the file is the complete JSON document",
        ) from None
    except UnicodeDecodeError:
        raise BadArgs(f"{what} is not UTF-8 text", hint="check the file is the complete JSON document") from None
    except RecursionError:
        raise _too_deep(what) from None
    check_json_tree(doc, what=what)
    return doc


def _refuse_constant(what: str) -> Any:
    def refuse(name: str) -> Any:
        raise BadArgs(f"{what} contains {name}, which is not JSON", hint="write a finite number, or null when it is unknown")
    return refuse


def _bounded_int(what: str) -> Any:
    def parse(digits: str) -> int:
        if len(digits.lstrip("-")) > _MAX_INT_DIGITS:
            raise _out_of_range(what, digits)
        return int(digits)
    return parse


def _out_of_range(what: str, number: str) -> BadArgs:
    shown = number if len(number) <= 24 else f"{number[:12]}… ({len(number)} characters)"
    return BadArgs(f"{what} has a number out of range: {shown}",
                   hint=f"amicus reads finite numbers up to ±{MAX_JSON_NUMBER:.0e}; unknown values are null")


def _too_deep(what: str) -> BadArgs:
    return BadArgs(f"{what} is nested more than {MAX_JSON_DEPTH} levels deep",
                   hint="no amicus document nests that deep; check the file is the right one")


def check_json_tree(doc: Any, *, what: str = "JSON input") -> None:
    """BadArgs when a parsed value is not a document amicus can safely carry: nested over
    `MAX_JSON_DEPTH`, a number that is not finite or exceeds ±`MAX_JSON_NUMBER`, or a
    string (or key) holding a lone surrogate.

    Level by level rather than recursive, so no depth can overflow the stack, and with exact
    type checks: a 2*10^5-vote tally input is checked in a fraction of a second.
    """
    level: list[Any] = [doc]
    depth = 0
    while level:
        if depth > MAX_JSON_DEPTH:
            raise _too_deep(what)
        below: list[Any] = []
        for node in level:
            kind = type(node)
            if kind is str:
                if not node.isascii():
                    _check_text(node, what)
            elif kind is dict:
                below.extend(node.values())
                for key in node:
                    if type(key) is str and not key.isascii():
                        _check_text(key, what)
            elif kind is list:
                below.extend(node)
            elif kind is float or kind is int:
                if not abs(node) <= MAX_JSON_NUMBER:  # NaN fails every comparison
                    raise _out_of_range(what, repr(node) if kind is float else _digits(node))
        level = below
        depth += 1


def _digits(value: int) -> str:
    return str(value) if value.bit_length() < 10_000 else f"an integer of {value.bit_length()} bits"


def _check_text(value: str, what: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadArgs(f"{what} has a string with a lone UTF-16 surrogate, which is not text",
                      hint="write the character itself, or a valid surrogate pair such as \\ud83d\\ude00") from None


# A path or id argument never holds a C0 control (NUL, tab and newline included), DEL or a C1
# control: the OS refuses NUL outright ("embedded null byte"), and the rest only hide a name on
# a terminal. Lone surrogates stay allowed: they are how argv carries an undecodable file name.
_CONTROL_IN_NAME = re.compile("[\x00-\x1f\x7f-\x9f]")


def checked_name(value: str, what: str) -> str:
    """`value`, an argument about to become a path or an id; BAD_ARGS naming `what` (the
    caller's argument) when it holds a control character. Every front passes its path and id
    arguments through here before any file system call sees them."""
    found = _CONTROL_IN_NAME.search(value)
    if found is None:
        return value
    char = found.group()
    shown = _CONTROL_IN_NAME.sub(lambda m: f"\\x{ord(m.group()):02x}", value)
    if len(shown) > 120:
        shown = shown[:119] + "…"
    name = "a NUL byte" if char == "\x00" else f"a control character (U+{ord(char):04X})"
    raise BadArgs(f"{what} '{shown}' holds {name} at position {found.start() + 1}; no path or id does",
                  hint=f"pass {what} as plain text: no NUL, tab, newline or other control characters")


def sweep_temp_files(directory: str | os.PathLike[str]) -> list[Path]:
    """Remove the `.tmp-*` files an interrupted atomic write left under `directory`.

    Only files whose writer (the pid in the name) is gone are removed, so a write in
    progress in another process is never pulled from under it. Returns what was removed.
    """
    root = Path(directory)
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    for candidate in root.rglob(f"{TEMP_PREFIX}*"):
        match = _TEMP_NAME.match(candidate.name)
        pid = int(match.group("pid")) if match else None
        if pid is not None and (pid == os.getpid() or pid_alive(pid)):
            continue  # its writer lives (this process included: another thread may be writing it)
        try:
            if candidate.is_file() and not candidate.is_symlink():
                candidate.unlink()
                removed.append(candidate)
        except OSError:
            continue  # gone already, or not ours to remove: nothing is lost by leaving it
    return removed


def pid_alive(pid: Any) -> bool:
    """Whether a process with this pid exists (a pid we may not signal still exists)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:  # e.g. Windows: an invalid pid parameter
        return False
    return True


def append_jsonl(path: str | os.PathLike[str], rows: Sequence[Mapping[str, object]]) -> None:
    """Append rows to a JSON Lines file, one whole line per write, under a file lock."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Every row is serialized before the file is touched: a row that cannot be written
    # (NaN, Infinity) fails the whole append instead of leaving the rows before it behind.
    lines = "".join(dumps_json(row, indent=None) + "\n" for row in rows)
    with locked(target):
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(lines)
            handle.flush()
            os.fsync(handle.fileno())


@contextmanager
def locked(path: str | os.PathLike[str], *, timeout_s: float = 30) -> Iterator[None]:
    """Hold `<path>.lock` (every process and thread that writes `path` takes it) around an append
    or a read-modify-write of `path`, so two amicus processes never lose each other's update."""
    from filelock import FileLock, Timeout  # here: only the shared files need it (~10 ms to import)

    try:
        with FileLock(str(path) + ".lock", timeout=timeout_s):
            yield
    except Timeout:
        raise BadSession(f"'{path}' stayed locked by another amicus process for {timeout_s:g} s",
                         hint=f"wait for it to finish, or remove '{path}.lock' if no amicus process is running") from None
