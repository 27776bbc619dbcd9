"""Issue 20 items 5 and 7: one run-directory type owns the layout and the one way to find a run,
and the engine never tests a provider route's kind (the provider profile answers)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from amicus_mcp.documents.run import RunManifest
from amicus_mcp.engine.run_dir import (MANIFEST, RunDir, find_run, list_runs, pointer_path, read_pointer, run_dir_near,
                                       write_pointer)
from amicus_mcp.engine.store import SessionStore
from amicus_mcp.errors import BadSession

SRC = Path(__file__).resolve().parents[2] / "src" / "amicus_mcp"


def a_run(path: Path, run_id: str = "feed1234", status: str = "complete") -> RunDir:
    run_dir = RunDir(path)
    path.mkdir(parents=True)
    run_dir.write(RunManifest(run_id=run_id, status=status, stages=[], bench=["fake/a", "fake/b"], chair="fake/c"))  # type: ignore[arg-type]
    return run_dir


def test_a_run_is_found_by_its_id_or_its_directory(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "project")
    run_dir = a_run(tmp_path / "elsewhere" / "council-feed1234")
    assert find_run(store, "feed1234") is None  # no pointer yet, and no such directory
    write_pointer(store, "feed1234", run_dir)
    assert find_run(store, "feed1234") == run_dir
    assert find_run(store, str(run_dir.path)) == run_dir
    assert find_run(store, str(run_dir.path), by_path=False) is None  # an id only: a path is refused
    assert find_run(store, str(tmp_path)) is None  # a directory, but no run.json in it
    assert [d.path for d in list_runs(store)] == [run_dir.path]
    assert run_dir_near("feed1234", tmp_path, run_dir.path) == run_dir.path
    assert run_dir_near("other", run_dir.path) is None


def test_a_pointer_whose_run_is_not_written_yet_is_a_directory_but_not_a_run(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "project")
    pending = RunDir(tmp_path / "not-yet")
    write_pointer(store, "cafe0001", pending)
    assert read_pointer(store, "cafe0001") == pending  # the workspace shows it as unreadable, by name
    assert find_run(store, "cafe0001") is None and list(list_runs(store)) == []
    pointer_path(store, "cafe0002").write_text(json.dumps({"runId": "cafe0002"}), encoding="utf-8")
    with pytest.raises(BadSession, match="names no run directory"):
        read_pointer(store, "cafe0002")
    assert find_run(store, "cafe0002") is None  # a damaged pointer names no run


def test_run_json_is_compact_while_the_engine_runs_it_and_indented_otherwise(tmp_path: Path) -> None:
    running = a_run(tmp_path / "running", status="running")
    assert "\n" not in running.manifest_path.read_text(encoding="utf-8").rstrip("\n")
    running.write(running.read(), compact=False)  # a front's seed is indented, running or not
    assert running.manifest_path.read_text(encoding="utf-8").startswith('{\n  "schemaVersion": 2')
    done = a_run(tmp_path / "done")
    assert done.manifest_path.read_text(encoding="utf-8").startswith('{\n  "schemaVersion": 2')


def test_a_running_checkpoint_skips_the_disk_flush_and_the_last_write_is_durable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkpoint is superseded within moments, so it is not fsynced; the manifest a reader is
    left with, and a front's seed, are. (fsync is the OS's, so it is observed, not faked.)"""
    import os

    flushed: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        flushed.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    running = a_run(tmp_path / "run", status="running")
    assert flushed == []  # written, atomically, without a flush
    assert running.read().status == "running"
    running.write(running.read(), compact=False)  # a front's seed for its worker
    assert len(flushed) == 1
    done = running.read()
    done.status = "complete"  # type: ignore[assignment]
    running.write(done)
    assert len(flushed) == 2 and all(".tmp-run.json." in path for path in flushed)


def test_a_hand_edited_manifest_is_a_clear_error(tmp_path: Path) -> None:
    run_dir = a_run(tmp_path / "run")
    doc = json.loads(run_dir.manifest_path.read_text(encoding="utf-8"))
    run_dir.manifest_path.write_text(json.dumps({**doc, "legsPlanned": "seven"}), encoding="utf-8")
    with pytest.raises(BadSession, match=r"run\.json' is not a valid council-run manifest: legsPlanned"):
        run_dir.read()


# --- what no other module does ---------------------------------------------------------------

LAYOUT = {'"run.json"', '"options.json"', '"spawn.pid"', '"engine.log"'}


def test_only_the_run_directory_type_names_the_layout() -> None:
    """run.json, options.json, spawn.pid and engine.log are named once, in engine/run_dir.py
    (a fanout wave's directory shares the input names through it)."""
    named = {}
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found = sorted(name for name in LAYOUT if name in text)
        if found:
            named[str(path.relative_to(SRC))] = found
    assert named == {"engine/run_dir.py": sorted(LAYOUT)}
    assert MANIFEST == "run.json"


def route_kind_checks(source: str) -> list[int]:
    """Lines that read `.kind` off anything but a `Located` (control.locate's answer)."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and node.attr == "kind"
            and not (isinstance(node.value, ast.Name) and node.value.id == "found")]


def test_the_engine_never_tests_a_routes_kind() -> None:
    checks = {str(path.relative_to(SRC)): lines for path in sorted((SRC / "engine").glob("*.py"))
              if (lines := route_kind_checks(path.read_text(encoding="utf-8")))}
    assert checks == {}


def test_the_kind_check_finds_one() -> None:
    assert route_kind_checks("if route.kind == 'embedded':\n    pass\n") == [1]
    assert route_kind_checks("all(r.kind == 'gateway' for r in routes)") == [1]
    assert route_kind_checks("if found.kind == 'wave':\n    pass\n") == []
    assert not re.search(r"\.kind\b", "traits(route).local")
