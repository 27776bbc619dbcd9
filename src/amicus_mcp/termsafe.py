"""Text made safe to print on a terminal — the one home of `terminal_safe`.

Input documents and model output are untrusted: an ESC or BEL inside a claim, a run id or
an error detail could clear the screen, retitle the window or forge output. Every human
output string derived from them passes through `terminal_safe` (the CLI's printer applies
it to everything it prints; the workspace and the fold apply it to model text).
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, C1 controls (CSI is U+009B), and lone
# surrogates (they cannot be encoded, so printing one would crash the printer).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def terminal_safe(text: str) -> str:
    """`text` with control characters (escape sequences) and lone surrogates replaced by `?`."""
    return _UNSAFE.sub("?", text)
