"""The one read-only, root-confined reader the evidence check and the verifier read through
(engine/sources.py): a file outside the project roots is never read — not by `..`, not by an
absolute path, not through a symlink (to a file or to a directory), not by a search."""

from __future__ import annotations

from pathlib import Path

import pytest

from amicus_mcp.engine.sources import Refused, SourceReader, run_material
from amicus_mcp.engine.verify import excerpts

SECRET = "TOP-SECRET-OUTSIDE-THE-ROOT"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def handler():\n    return run(query)\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET}\n", encoding="utf-8")
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "inner.txt").symlink_to(root / "src" / "app.py")  # a symlink that stays inside is fine
    return root, outside


@pytest.mark.parametrize("name", ["../outside/secret.txt", "src/../../outside/secret.txt", "link.txt",
                                  "linkdir/secret.txt", "{outside}/secret.txt", "", "src", "src/\x00app.py"])
def test_a_name_outside_the_roots_is_refused(layout, name):
    root, outside = layout
    reader = SourceReader([root])
    with pytest.raises(Refused):
        reader.read(name.format(outside=outside))
    with pytest.raises(Refused):
        reader.read_lines(name.format(outside=outside), 1, 3)


def test_a_file_inside_is_read_by_name_and_by_line_range(layout):
    root, _ = layout
    reader = SourceReader([root])
    assert reader.read("src/app.py").startswith("def handler")
    assert reader.read(str(root / "src" / "app.py")).startswith("def handler")
    assert [(line.path, line.number) for line in reader.read_lines("inner.txt", 2, 9)] == [("src/app.py", 2)]


def test_a_search_never_reaches_outside(layout):
    root, _ = layout
    reader = SourceReader([root])
    assert reader.search(SECRET) == []
    assert [(h.path, h.number) for h in reader.search("run(query)")] == [("src/app.py", 2)]


def test_the_material_and_the_verifier_excerpts_never_hold_an_outside_file(layout):
    """A briefing (model-adjacent text) and a finding's location (model text) naming outside files."""
    root, outside = layout
    reader = SourceReader([root])
    briefing = f"See ../outside/secret.txt, link.txt, linkdir/secret.txt, {outside}/secret.txt and src/app.py.\n"
    material = run_material(briefing, reader)
    assert [s.name for s in material] == ["src/app.py", "briefing"]
    assert all(SECRET not in line for s in material for _, line in s.lines)
    for location in ("../outside/secret.txt:1", "link.txt:1", "linkdir/secret.txt:1", f"{outside}/secret.txt:1"):
        shown = excerpts({"id": "A1", "location": location, "evidence": "x"}, material, reader)
        assert SECRET not in shown, location
