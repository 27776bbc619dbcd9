"""How the CLI writes to the terminal: one printer for every command.

Everything a command prints goes through `say`: key values and credential-shaped tokens are
masked, control characters and lone surrogates are replaced (`terminal_safe`), and a reader
that went away (`amicus … | head`) silences the stream instead of raising — the command
finishes and keeps its own exit code.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from ..secrets import redact_text
from ..termsafe import terminal_safe


def say(text: str = "", *, err: bool = False, end: str = "\n", flush: bool = False) -> None:
    stream = sys.stderr if err else sys.stdout
    try:
        stream.write(terminal_safe(redact_text(text)) + end)
        if flush:
            stream.flush()
    except BrokenPipeError:
        silence(stream)


def flush_all() -> None:
    """Flush stdout and stderr at exit; a closed pipe is silenced, not an error."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            silence(stream)
        except (OSError, ValueError):
            continue


def silence(stream: TextIO) -> None:
    """Point a stream whose reader has gone at /dev/null (Python's documented recipe), so the
    interpreter's own flush at exit does not raise again."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return  # not a real file (captured in a test): nothing to redirect
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
