"""Issue 20 item 1: the engine's documents are models, and every one of them, read into its model
and written back, is the very same bytes — the final run.json (indented), every checkpoint a
reader could have seen mid-run (compact), every `legs/<key>.json` and launch record, the wave
and its legs, the pointer — so a document written before the models existed reads and writes
back unchanged, key order and all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_helpers import auto_judge, member, review
from fakeprovider import FakeProvider, chat, error, usage

from amicus_mcp.documents.base import Document
from amicus_mcp.documents.legs import FinishedLeg, LaunchRecord, LegRun
from amicus_mcp.documents.pointers import RunPointer
from amicus_mcp.documents.run import RunManifest, RunStatusView
from amicus_mcp.documents.wave import Wave
from amicus_mcp.engine import run_dir as run_dir_module
from amicus_mcp.engine.control import run_status
from amicus_mcp.engine.fanout import fanout
from amicus_mcp.engine.options import WaveOptions
from amicus_mcp.engine.run_dir import RunDir, pointer_path
from amicus_mcp.engine.store import SessionStore
from amicus_mcp.fsio import dumps_json

pytestmark = pytest.mark.anyio


def written_back(model: type[Document], text: str, *, indent: int | None = 2) -> str:
    return dumps_json(model.parse(json.loads(text), what=model.__name__).to_doc(), indent=indent) + "\n"


async def test_a_runs_documents_read_and_written_back_are_byte_identical(
        fake: FakeProvider, council: Any, run_dir: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A debated run with a dead seat (a degrade), a review cut at its cap (truncated) and
    unpriced legs: keys set at every stage, in the order the run set them."""
    checkpoints: list[str] = []
    real = run_dir_module.atomic_write_json

    def keeping(path: Any, doc: Any, **kwargs: Any) -> Any:
        written = real(path, doc, **kwargs)
        if str(path).endswith("run.json"):
            checkpoints.append(Path(written).read_text(encoding="utf-8"))
        return written

    monkeypatch.setattr(run_dir_module, "atomic_write_json", keeping)
    member(fake, "a", cost=0.001)
    member(fake, "b", judge=auto_judge("dispute", usage=usage(100, 50)))
    member(fake, "c", stage1=chat(review("seat-c"), finish="length", usage=usage(100, 50, cost=0.002)))
    member(fake, "d", stage1=error(500, "d is down"))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c", "fake/d"], debate=True)
    assert code == 2 and run["debate"]["outcome"] == "ran"
    assert {"degrades", "notices", "chairConformance", "tierCounts"} <= set(run)
    assert any(leg.get("truncated") for leg in run["legs"])

    final = (run_dir / "run.json").read_text(encoding="utf-8")
    assert written_back(RunManifest, final) == final
    assert RunManifest.parse(json.loads(final), what="run").to_doc() == run
    compact = [text for text in checkpoints if text.startswith('{"schemaVersion"')]
    assert len(compact) > 5  # the run's own checkpoints, written compact while it ran
    for text in compact:
        assert written_back(RunManifest, text, indent=None) == text
    for path in sorted((run_dir / "legs").glob("*.json")):
        assert written_back(FinishedLeg, path.read_text(encoding="utf-8")) == path.read_text(encoding="utf-8")
    launches = sorted((run_dir / "legs").glob("*.launch"))
    assert launches
    for path in launches:
        assert written_back(LaunchRecord, path.read_text(encoding="utf-8")) == path.read_text(encoding="utf-8")
    pointer = pointer_path(SessionStore(project), run["runId"]).read_text(encoding="utf-8")
    assert written_back(RunPointer, pointer) == pointer

    status = run_status(RunDir(run_dir))  # `amicus status`: the manifest, and where the run is
    assert isinstance(status, RunStatusView)
    assert status.to_doc() == {**run, "currentStage": None, "legsTotal": len(run["legs"]),
                               "legsComplete": len(run["legs"])}


async def test_a_waves_documents_read_and_written_back_are_byte_identical(
        fake: FakeProvider, project: Path, brief: Path) -> None:
    fake.script("m", chat("half an answer", finish="length", usage=usage(10, 5)))
    fake.script("n", error(400, "n refuses"))
    wave, code = await fanout(WaveOptions(prompt_file=str(brief), models=["fake/m", "fake/n"], project=str(project)))
    assert code == 2
    store = SessionStore(project)
    text = store.wave_path(wave.wave_id).read_text(encoding="utf-8")
    assert written_back(Wave, text) == text
    assert json.loads(text) == wave.to_doc()
    for leg in wave.legs:
        text = store.leg_path(leg.leg_id).read_text(encoding="utf-8")
        assert written_back(LegRun, text) == text


def test_a_document_from_a_newer_writer_keeps_what_it_does_not_know(tmp_path: Path) -> None:
    """Unknown keys stay, in their place, through a read, a change by the run-state owner's
    rules (a key set later goes last) and a write."""
    text = json.dumps({"schemaVersion": 2, "type": "council-run", "runId": "r1", "status": "running",
                       "futureKey": {"nested": [1, 2.5, None]}, "stages": [], "bench": ["a", "b"], "chair": "c",
                       "legs": [{"id": "r1-s1-1", "stage": "stage1", "role": "seat", "model": "a", "status": "running",
                                 "startedAt": "t", "laterKey": True}]}, separators=(",", ":"))
    manifest = RunManifest.parse(json.loads(text), what="run")
    assert dumps_json(manifest.to_doc(), indent=None) == text
    manifest.legs[0].status = "complete"
    manifest.exit_code = 0
    doc = manifest.to_doc()
    assert list(doc) == ["schemaVersion", "type", "runId", "status", "futureKey", "stages", "bench", "chair", "legs",
                         "exitCode"]
    assert doc["legs"][0] == {"id": "r1-s1-1", "stage": "stage1", "role": "seat", "model": "a", "status": "complete",
                              "startedAt": "t", "laterKey": True}


async def test_a_tagged_question_councils_run_json_reads_and_writes_back_unchanged(
        fake: FakeProvider, tmp_path: Path, run_dir: Path, project: Path) -> None:
    """The keys later branches write — the run `tag`, a question council's `intent` and the
    chair's `answer`, a question template's record — are the model's own, in their places."""
    from council_helpers import QUESTION, question_member

    from amicus_mcp.engine import run_council
    from amicus_mcp.engine.options import RunOptions

    artifact = tmp_path / "trace.log"
    artifact.write_text("12:00:01 GET /login 3021 ms\n", encoding="utf-8")
    for name in "ab":
        question_member(fake, name)
    question_member(fake, "chair")
    manifest, code = await run_council(RunOptions(
        template="question", artifact=str(artifact), vars={"question": QUESTION.strip().splitlines()[0]},
        models=["fake/a", "fake/b"], chair="fake/chair", project=str(project), out_dir=str(run_dir), tag="rc-1"))
    assert code == 0
    text = (run_dir / "run.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    assert list(doc)[:4] == ["schemaVersion", "type", "runId", "tag"] and doc["tag"] == "rc-1"
    assert list(doc)[list(doc).index("chair") + 1] == "intent" and doc["intent"] == "question"
    assert isinstance(doc["answer"], str) and doc["template"]["intent"] == "question"
    assert (manifest.tag, manifest.intent, manifest.answer) == ("rc-1", "question", doc["answer"])
    assert manifest.template is not None and manifest.template.intent == "question"
    assert written_back(RunManifest, text) == text
    read = RunManifest.parse(doc, what="run")
    assert read.model_extra == {} and read.template is not None and read.template.model_extra == {}  # none unknown
