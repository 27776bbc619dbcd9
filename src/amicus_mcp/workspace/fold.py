"""Fold: hand a finished run back to the conversation as one fenced block, exactly once.

The block — the chair's verdict line (or the engine's reason there is none), the tier
counts and the Confirmed/Contested findings — is fenced by a per-fold random nonce, so text
inside a finding cannot close it early. It is written to `<runDir>/fold.md` with an
exclusive create (a second fold finds the file and reports "already folded" without writing)
and printed by the server to the terminal that launched it. No model is called: it
reformats what is on disk. Control characters in model text are replaced, so a claim cannot
drive the terminal it is printed to.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import NamedTuple

from typing_extensions import TypedDict

from ..council.report import build_model
from ..documents.council import TallyRecord, Verdict
from ..documents.run import RunManifest
from ..engine import RunDir
from ..termsafe import terminal_safe
from ..vocabulary import TIER_DISPLAY_ORDER, TIERS
from .matrix import verdict_source
from .panels import no_verdict_reason
from .rundir import is_live, read_optional

FOLD_FILE = "fold.md"
FOLDED_TIERS = TIERS[:2]  # the two the bench supported: Confirmed, Contested


class FoldDoc(TypedDict):
    """What a fold answers (the page's POST /api/runs/<id>/fold)."""

    folded: bool
    alreadyFolded: bool
    file: str
    refused: str | None


class FoldResult(NamedTuple):
    folded: bool
    already: bool
    path: Path
    block: str | None
    refused: str | None = None

    def to_doc(self) -> FoldDoc:
        return {"folded": self.folded, "alreadyFolded": self.already, "file": self.path.name, "refused": self.refused}


def one_line(value: object) -> str:
    return " ".join(terminal_safe(str(value)).split())


def fold_run(run_dir: Path, doc: RunManifest, *, nonce: str | None = None) -> FoldResult:
    """Write the fold block once. `doc` is the run manifest as observed (crash-checked)."""
    path = run_dir / FOLD_FILE
    if is_live(doc):
        return FoldResult(False, False, path, None, refused="the run is still live; fold it once it finishes")
    if path.exists():
        return FoldResult(False, True, path, None)
    block = fold_block(run_dir, doc, nonce or secrets.token_hex(8))
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return FoldResult(False, True, path, None)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(block)
        handle.flush()
        os.fsync(handle.fileno())
    return FoldResult(True, False, path, block)


def fold_block(run_dir: Path, doc: RunManifest, nonce: str) -> str:
    rd = RunDir(run_dir)
    tally, tally_error = read_optional(rd.read_tally, rd.tally_path)
    verdict_doc, verdict_error = read_optional(rd.read_verdict, rd.verdict_path)
    verdict, _ = verdict_source(verdict_doc, verdict_error, tally)
    lines = [f"[AMICUS_FOLD:{nonce}]",
             one_line(f"Council run {doc.run_id} ({doc.status}) — chair {doc.chair}")]
    overall = doc.overall_verdict
    lines.append(f"VERDICT: {overall}" if overall is not None
                 else one_line(f"No chair verdict: {no_verdict_reason(doc, live=False)}"))
    if verdict is None:
        lines.append(one_line(f"Tiers: no tally ({tally_error or 'the run ended before the tally'})"))
    else:
        lines += _findings(verdict, tally)
    lines.append(f"[/AMICUS_FOLD:{nonce}]")
    return "\n".join(lines) + "\n"


def _findings(verdict: Verdict, tally: TallyRecord | None) -> list[str]:
    model = build_model(verdict)
    lines = ["Tiers: " + " · ".join(f"{c.tier} {c.total}" for c in model.tier_counts if c.tier in TIER_DISPLAY_ORDER)]
    claims = {f["id"]: f for f in tally["findings"]} if tally is not None else {}
    for tier in FOLDED_TIERS:
        rows = [r for r in model.matrix.rows if r.tier == tier]
        lines.append(f"{tier} ({len(rows)}):")
        for row in rows:
            source = claims.get(row.id)
            location = source.get("location") if source else None
            where = f" — {location}" if isinstance(location, str) else ""
            claim = source.get("claim") if source else None
            lines.append(one_line(f"- {row.id} [{row.severity or '?'}] {claim or '(no claim text)'}"
                                  f"{where} ({row.basis.text})"))
    return lines
