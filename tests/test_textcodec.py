"""Issue 29, one decode policy: every file amicus reads as text is decoded by `textcodec.decode_text`
— the council's artifact, an eval suite's artifacts and case documents, the verifier's project
reads, every input document and the keys file — and each case the policy decides is pinned here,
through the function and through each reader that uses it."""

from __future__ import annotations

import ast
import codecs
import json
import shutil
from pathlib import Path

import pytest

from amicus_mcp.errors import BadArgs
from amicus_mcp.textcodec import NotText, decode_text

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "amicus_mcp"
TEXT = "Rate limiter — café ✓\nline two\n"

ENCODED = {
    "utf-8": TEXT.encode("utf-8"),
    "utf-8 BOM": codecs.BOM_UTF8 + TEXT.encode("utf-8"),
    "utf-16 LE BOM": codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"),  # Windows PowerShell 5.1 `>`
    "utf-16 BE BOM": codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"),
    "utf-32 LE BOM": codecs.BOM_UTF32_LE + TEXT.encode("utf-32-le"),
    "utf-16 LE, no BOM": TEXT.encode("utf-16-le"),
    "utf-16 BE, no BOM": TEXT.encode("utf-16-be"),
}
# (bytes, what the refusal says, whether it is a binary file)
REFUSED = {
    "latin-1": (b"caf\xe9 latin-1", "is not UTF-8 text (byte 0xe9 at offset 3)", False),
    "a lone surrogate": (b"ok \xed\xa0\x80", "is not UTF-8 text (byte 0xed at offset 3)", False),
    "broken utf-16": (codecs.BOM_UTF16_LE + b"a\x00\x00\xd8", "is not UTF-16 LE text", False),
    "png": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "is binary (a NUL byte at offset 8)", True),
    "NUL in utf-8": (b"text\x00more", "is binary (a NUL byte at offset 4)", True),
    "looks like utf-16, is binary": (b"\x00\x01binary", "is binary", True),
    "NUL inside utf-16": (codecs.BOM_UTF16_LE + "a\x00b".encode("utf-16-le"), "is binary", True),
}


@pytest.mark.parametrize("raw", ENCODED.values(), ids=ENCODED.keys())
def test_a_bom_says_the_encoding_and_is_stripped(raw: bytes) -> None:
    assert decode_text(raw) == TEXT


@pytest.mark.parametrize(("raw", "phrase", "binary"), REFUSED.values(), ids=REFUSED.keys())
def test_invalid_bytes_and_binary_files_are_refused_never_replaced(raw: bytes, phrase: str, binary: bool) -> None:
    with pytest.raises(NotText) as caught:
        decode_text(raw)
    assert phrase in str(caught.value) and caught.value.binary is binary


def test_control_characters_a_terminal_uses_stay_text() -> None:
    assert decode_text(b"\x1b[31mred\x1b[0m\tand\r\n\x0cform") == "\x1b[31mred\x1b[0m\tand\r\n\x0cform"
    assert decode_text(b"") == ""


# --------------------------------------------------------------------------- through each reader


def test_the_councils_artifact_is_read_by_the_policy(tmp_path: Path) -> None:
    from amicus_mcp.engine.briefing_inputs import read_artifact

    for name, raw in ENCODED.items():
        path = tmp_path / f"{name}.md"
        path.write_bytes(raw)
        artifact = read_artifact(str(path))
        assert artifact.text == TEXT and artifact.bytes == len(raw), name
    for name, (raw, phrase, binary) in REFUSED.items():
        path = tmp_path / f"{name}.bin"
        path.write_bytes(raw)
        with pytest.raises(BadArgs) as caught:
            read_artifact(str(path))
        assert caught.value.message.startswith(f"--artifact '{path}' ") and phrase in caught.value.message, name
        assert ("extract the text" in (caught.value.hint or "")) is binary, name


def test_an_eval_suites_artifacts_and_case_documents_are_read_by_the_policy(tmp_path: Path) -> None:
    from amicus_mcp.eval.suite import load_suite, shipped_suite_path

    root = tmp_path / "suite"
    shutil.copytree(shipped_suite_path(), root, ignore=shutil.ignore_patterns("README.md"))
    folder = next(f for f in sorted((root / "cases").iterdir()) if f.is_dir())
    for other in (root / "cases").iterdir():
        if other != folder and other.is_dir():
            shutil.rmtree(other)
    case = folder / "case.json"
    doc = json.loads(case.read_text(encoding="utf-8"))
    artifact = folder / doc["artifact"]
    text = artifact.read_text(encoding="utf-8")
    artifact.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    case.write_bytes(codecs.BOM_UTF8 + case.read_bytes())
    suite = load_suite(root)
    (loaded,) = suite.cases
    assert loaded.artifact_text == text and loaded.doc.artifact == doc["artifact"]
    # The eval's own copy is the same text as UTF-8: it hashes as the user's file does (a rescore
    # reads the copy, and its eval.json and ledger rows name the suite by that hash).
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    for path in (copy / "cases" / folder.name / "case.json", copy / "cases" / folder.name / doc["artifact"]):
        path.write_text(decode_text(path.read_bytes()), encoding="utf-8")
    assert load_suite(copy).sha256 == suite.sha256 and load_suite(copy).cases[0].sha256 == loaded.sha256

    artifact.write_bytes(b"caf\xe9 latin-1")
    with pytest.raises(BadArgs) as caught:
        load_suite(root)
    assert f"artifact: '{doc['artifact']}' is not UTF-8 text (byte 0xe9 at offset 3)" in caught.value.message


def test_the_verifiers_project_reads_are_read_by_the_policy(tmp_path: Path) -> None:
    from amicus_mcp.engine.sources import Refused, SourceReader

    (tmp_path / "a.py").write_bytes(ENCODED["utf-16 LE BOM"])
    (tmp_path / "b.bin").write_bytes(REFUSED["png"][0])
    reader = SourceReader([tmp_path])
    assert reader.read("a.py") == TEXT
    with pytest.raises(Refused, match=r"'b.bin' is binary"):
        reader.read("b.bin")


def test_an_input_document_is_read_by_the_policy(tmp_path: Path) -> None:
    from amicus_mcp.fsio import read_text

    path = tmp_path / "input.json"
    path.write_bytes(ENCODED["utf-16 BE BOM"])
    assert read_text(path) == TEXT
    path.write_bytes(REFUSED["latin-1"][0])
    with pytest.raises(BadArgs, match=r"file '.*input.json' is not UTF-8 text \(byte 0xe9 at offset 3\)"):
        read_text(path)


def test_no_module_decodes_a_file_another_way() -> None:
    """`utf-8-sig`, or a bare `.decode("utf-8")` of bytes read from a file, is a second policy.
    (A provider's reply body is not a file: those decode with errors="replace" and stay.)"""
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "textcodec.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "decode":
                args = [a.value for a in node.args if isinstance(a, ast.Constant)]
                if args and str(args[0]).lower() == "utf-8-sig" or (args == ["utf-8"] and not node.keywords
                                                                     and _reads_a_file(node)):
                    problems.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert problems == []


def _reads_a_file(node: ast.Call) -> bool:
    """A `.decode("utf-8")` whose receiver names raw file bytes (raw, *_raw)."""
    receiver = node.func.value  # type: ignore[attr-defined]
    name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    return name == "raw" or name.endswith("_raw")
