"""Bytes to text, the way any common editor or shell wrote them: the one decode policy.

Every file amicus reads as text goes through `decode_text`: the artifact a council reviews
(engine/briefing_inputs.py), an eval suite's artifacts and case documents (eval/suite.py), every
input document `fsio.read_text` reads, and the keys file. The policy:

- a byte-order mark says the encoding and is stripped (UTF-8, UTF-16 and UTF-32, either byte
  order: Windows PowerShell 5.1 redirects output as UTF-16 LE with a BOM, some editors add a
  UTF-8 BOM), and BOM-less UTF-16 is recognised by the NUL beside its first ASCII character;
- otherwise the bytes are UTF-8;
- bytes that are not valid in that encoding are refused (`NotText`, saying where), never
  replaced and never guessed as Latin-1: a review quotes the material back as evidence and
  checks the quotes against it, so a silently altered character would be a finding about text
  the user never wrote;
- a NUL byte outside UTF-16/32 (or a decoded U+0000) means a binary file, refused as such.

Standard library only, and at the ground floor: the keys file is decoded with it beneath
`secrets` (which every error and every write masks through), and `fsio` reads every input
document with it.
"""

from __future__ import annotations

import codecs
import re

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE, whose BOM it starts with
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class NotText(ValueError):
    """The bytes are not text under the policy. `str()` is a phrase to follow a file's name
    ("is binary (a NUL byte at offset 7)", "is not UTF-8 text (byte 0xe9 at offset 3)");
    `binary` tells a binary file from text in an encoding amicus does not read."""

    def __init__(self, phrase: str, *, binary: bool):
        super().__init__(phrase)
        self.binary = binary


def decode_text(raw: bytes) -> str:
    """The text of `raw` under the policy above, or `NotText`."""
    encoding, body, guessed = _encoding(raw)
    if encoding == "utf-8" and b"\x00" in body:
        raise _binary(raw)
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        if guessed:  # NUL bytes, and not UTF-16 after all
            raise _binary(raw) from None
        offset = exc.start + len(raw) - len(body)
        name = "UTF-8" if encoding == "utf-8" else encoding.upper().replace("-LE", " LE").replace("-BE", " BE")
        raise NotText(f"is not {name} text (byte 0x{raw[offset]:02x} at offset {offset})", binary=False) from None
    if "\x00" in text or (guessed and _CONTROL.search(text)):
        raise _binary(raw)
    return text


# What text has no use for: a guess of BOM-less UTF-16 that decodes to these was a binary file.
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f]")


def _binary(raw: bytes) -> NotText:
    at = raw.find(b"\x00")
    return NotText(f"is binary (a NUL byte at offset {at})" if at >= 0 else "is binary", binary=True)


def _encoding(raw: bytes) -> tuple[str, bytes, bool]:
    """(the encoding, the bytes after any BOM, whether the encoding is a guess without a BOM)."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return encoding, raw[len(bom):], False
    # BOM-less UTF-16: every other byte of ASCII text is NUL.
    if len(raw) >= 2 and raw[1:2] == b"\x00" and raw[0:1] != b"\x00":
        return "utf-16-le", raw, True
    if len(raw) >= 2 and raw[0:1] == b"\x00" and raw[1:2] != b"\x00":
        return "utf-16-be", raw, True
    return "utf-8", raw, False
