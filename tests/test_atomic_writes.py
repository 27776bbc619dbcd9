"""fsio's atomic writers: a reader sees the old file or the whole new one, never a part, and a
failed write leaves no temp file behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from amicus_mcp.fsio import atomic_write_bytes, atomic_write_text


def test_bytes_are_written_as_they_are_replacing_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "pr" / "amicus-pr.diff"
    atomic_write_bytes(target, b"old\n")
    diff = b"--- a/x\n+++ b/x\n+caf\xe9 \xff not utf-8\r\n"
    assert atomic_write_bytes(target, diff) == target
    assert target.read_bytes() == diff and sorted(p.name for p in target.parent.iterdir()) == ["amicus-pr.diff"]


def test_a_write_that_fails_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "verdict.json"
    atomic_write_text(target, "old\n")
    with pytest.raises(TypeError):
        atomic_write_bytes(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_text(encoding="utf-8") == "old\n" and [p.name for p in tmp_path.iterdir()] == ["verdict.json"]


def test_text_is_utf8_with_its_newlines_kept(tmp_path: Path) -> None:
    target = atomic_write_text(tmp_path / "r.md", "a\r\nb\u00e9\n", mask_keys=False)
    assert target.read_bytes() == "a\r\nb\u00e9\n".encode("utf-8")
