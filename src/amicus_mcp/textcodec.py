"""Bytes to text, the way any common editor or shell wrote them.

Standard library only, and at the ground floor: the keys file is decoded with it beneath
`secrets` (which every error and every write masks through), and `fsio` reads every input
document with it.
"""

from __future__ import annotations

import codecs


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
