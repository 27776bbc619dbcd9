"""Shared helpers for the engine's end-to-end tests (`test_council_run.py`,
`test_optional_elements.py`): fake council members that answer by the kind of prompt they
receive, and the checks every run directory must pass.

Every bench member is a model on the fake server (`fake/<name>`) that answers by the kind
of prompt it receives — a Stage-1 briefing, a Stage-1 repair, a judge bundle, a judge
repair, a chair packet, a VERDICT repair, a debate defense, a re-vote or a debate repair —
so one model can review, judge, defend and repair with different replies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from fakeprovider import FakeProvider, Reply, by_prompt, chat, prompt_of, usage
from council_prompts import kind  # noqa: F401  (re-exported for the engine tests)

from amicus_mcp.cli import main as cli_main
from amicus_mcp.schemas import schema_errors

BRIEF = "Review the design of the widget cache.\n\nThe cache evicts entries on every write.\n"
RUN_DOCS = {
    "run.json": "council-run",
    "tally.json": "council-tally",
    "tally-input.json": "council-tally-input",
    "verdict.json": "council-verdict",
    "tally-provisional.json": "council-tally",  # a debate run's audit copy of the provisional tally
    "debate.json": "council-debate",
    "options.json": "council-run-options",
    "rereview.json": "council-rereview",  # a re-review's matches to its baseline (--baseline)
    "dismissed.json": "council-dismissed",  # findings matching one the user denied before
}
# `legs/` holds every leg the provider answered (what `council resume` reuses): any run that sent one.
ALWAYS = ("run.json", "options.json", "briefing.md", "briefing-stage1.md", "legs")
OUTPUTS = ("bundle-stage2.md", "tally-input.json", "tally.json", "verdict.json", "report.html")


# --------------------------------------------------------------------------- prompts



def finding(i: int, tag: str, **overrides: Any) -> dict[str, Any]:
    entry = {"id": i, "severity": "major", "claim": f"{tag} claim {i}", "location": "section 2",
             "rationale": f"{tag} rationale {i}"}
    entry.update(overrides)
    return {k: v for k, v in entry.items() if v is not None}


def review(tag: str, n: int = 1, *, block: Any = None) -> str:
    """A Stage-1 review: prose, then the trailing findings block."""
    if block is None:
        block = {"overall": f"{tag} overall take", "findings": [finding(i, tag) for i in range(1, n + 1)]}
    return f"The {tag} reviewer finds the cache evicts too eagerly.\n\n```json\n{json.dumps(block)}\n```\n"


def broken_review(tag: str, n: int = 1) -> str:
    """A review whose block names `n` findings, the last without a rationale (MISSING_FIELD)."""
    items = [finding(i, tag) for i in range(1, n)] + [finding(n, tag, rationale=None)]
    return review(tag, block={"overall": f"{tag} overall take", "findings": items})


def repaired_block(tag: str, n: int) -> str:
    block = {"overall": f"{tag} overall take", "findings": [finding(i, tag) for i in range(1, n + 1)]}
    return f"```json\n{json.dumps(block)}\n```\n"


def judgement(labels: list[str], ids: list[str], verdict: str = "agree") -> str:
    block = {"ranking": labels, "adjudications": [{"id": i, "verdict": verdict} for i in ids]}
    return f"Reasoning: every review has merit.\n\n```json\n{json.dumps(block)}\n```\n"


def bundle_labels(prompt: str) -> tuple[list[str], list[str]]:
    """(labels, finding ids) as a judge bundle shows them."""
    labels = re.findall(r"^### (Review [A-Z])$", prompt, re.M)
    index = prompt.split("## Findings index", 1)[1].split("## The reviews", 1)[0]
    return labels, re.findall(r"^- \*\*([A-Z]\d+)\*\*", index, re.M)


def repair_labels(prompt: str) -> tuple[list[str], list[str]]:
    """(labels, finding ids) as a judge repair prompt states them."""
    match = re.search(r"The labels are (.*?); the finding ids are\s+(.*?)\. The shape", prompt, re.S)
    assert match, "not a judge repair prompt"
    ids = [] if match.group(2).startswith("(none") else [s.strip() for s in match.group(2).split(",")]
    return [s.strip() for s in match.group(1).split(",")], ids


def auto_judge(verdict: str = "agree", *, reverse: bool = False, **reply: Any) -> Callable[[Any], Reply]:
    """A judge that ranks every label it is shown and votes `verdict` on every finding id."""

    def answer(body: Any) -> Reply:
        prompt = prompt_of(body)
        labels, ids = repair_labels(prompt) if kind(prompt) == "judge-repair" else bundle_labels(prompt)
        return chat(judgement(labels[::-1] if reverse else labels, ids, verdict), **reply)

    return answer


def answer_for_schema(schema: Mapping[str, Any], tag: str) -> dict[str, Any]:
    """A schema-valid answer for whatever the engine asked, read off the schema itself (its
    labels and finding ids from its enums), as a constrained decoder would."""
    props = schema["properties"]
    if "findings" in props:
        return {"review": f"The {tag} reviewer finds the cache evicts too eagerly.", "overall": f"{tag} take",
                "findings": [{"id": 1, "severity": "major", "claim": f"{tag} claim", "location": "section 2",
                              "evidence": f"{tag} quote", "rationale": f"{tag} rationale"}]}
    if "responses" in props:  # a debate defense: defend every finding the raiser is asked about
        ids = props["responses"]["items"]["properties"]["id"]["enum"]
        return {"responses": [{"id": i, "action": "defend", "argument": f"{i} stands: section 2 says so",
                               "claim": ""} for i in ids]}
    if "revotes" in props:
        ids = props["revotes"]["items"]["properties"]["id"]["enum"]
        return {"revotes": [{"id": i, "verdict": "agree", "reason": "the defense convinced me"} for i in ids]}
    if "ranking" in props:
        labels = props["ranking"]["items"]["enum"]
        ids = props["adjudications"]["items"]["properties"]["id"]["enum"]
        return {"analysis": "Every review has merit.", "ranking": labels,
                "adjudications": [{"id": i, "verdict": "agree"} for i in ids]}
    return {"synthesis": "The eviction policy must change first.",
            "hardQuestions": ["Why evict on write?", "What is the hit rate?", "Who owns the cache?"],
            "verdict": "Fix these first"}


def verdict_text(verdict: str | None = "Fix these first") -> str:
    closing = f"\n\nVERDICT: {verdict}" if verdict else ""
    return f"Synthesis: the eviction policy must change first.\n\n## Hard questions\n\n1. Why evict on write?{closing}\n"


def u(cost: float | None = None) -> dict[str, Any]:
    return usage(100, 50, cost=cost)


def member(fake: FakeProvider, name: str, *, tag: str | None = None, cost: float | None = None,
           **replies: Any) -> None:
    """Make `fake/<name>` a council member. Keyword replies override the defaults by prompt
    kind (underscores for dashes: stage1, stage1_repair, judge, judge_repair, chair, chair_repair,
    defense, revote, debate_repair). By default a debated raiser defends every finding and a
    re-voting judge keeps its dispute."""
    fake.respond(name, member_responder(name, tag=tag, cost=cost, **replies))


def member_responder(name: str, *, tag: str | None = None, cost: float | None = None,
                     **replies: Any) -> Callable[[Any], Reply | None]:
    """What `member` installs: the member's answer to a request body."""
    served = f"vendor/{name}-1"
    tag = tag or f"seat-{name}"
    table: dict[str, Any] = {
        "stage1": chat(review(tag), model=served, usage=u(cost)),
        "judge": auto_judge(model=served, usage=u(cost)),
        "judge-repair": auto_judge(model=served, usage=u(cost)),
        "chair": chat(verdict_text(), model=served, usage=u(cost)),
        "chair-repair": chat("VERDICT: Ship it", model=served, usage=u(cost)),
        "defense": auto_defend(model=served, usage=u(cost)),
        "revote": auto_revote("dispute", model=served, usage=u(cost)),
    }
    table.update({key.replace("_", "-"): value for key, value in replies.items()})
    return by_prompt(kind, table)


def kinds_asked(fake: FakeProvider, name: str) -> list[str]:
    return [kind(p) for p in fake.prompts(name)]


# --------------------------------------------------------------------------- debate prompts


def debated_ids(prompt: str) -> list[str]:
    """The finding ids a defense brief or a re-vote bundle lists (`**A1** (major) — …`)."""
    return re.findall(r"^\*\*([A-Z]\d+)\*\* \(", prompt, re.M)


def block_reply(key: str, entries: list[dict[str, Any]], prose: str = "My answer follows.") -> str:
    return f"{prose}\n\n```json\n{json.dumps({key: entries})}\n```\n"


def defense_reply(**actions: str | tuple[str, str]) -> str:
    """A defense reply: `A1="defend"`, `B1=("amend", "the new claim")`, `C1="withdraw"`."""
    entries = []
    for fid, action in actions.items():
        verb, text = (action, None) if isinstance(action, str) else action
        entry: dict[str, Any] = {"id": fid, "action": verb}
        if verb == "defend":
            entry["argument"] = text or f"{fid} stands: section 2 says so plainly"
        elif verb == "amend":
            entry["claim"] = text or f"{fid} amended claim"
        entries.append(entry)
    return block_reply("responses", entries)


def revote_reply(**verdicts: str) -> str:
    return block_reply("revotes", [{"id": fid, "verdict": v, "reason": f"{fid}: {v} after the answer"}
                                   for fid, v in verdicts.items()])


def auto_defend(action: str = "defend", **reply: Any) -> Callable[[Any], Reply]:
    """A raiser that answers `action` for every finding its defense brief lists."""

    def answer(body: Any) -> Reply:
        return chat(defense_reply(**dict.fromkeys(debated_ids(prompt_of(body)), action)), **reply)

    return answer


def auto_revote(verdict: str = "agree", **reply: Any) -> Callable[[Any], Reply]:
    """A judge that re-votes `verdict` on every finding the re-vote bundle lists."""

    def answer(body: Any) -> Reply:
        return chat(revote_reply(**dict.fromkeys(debated_ids(prompt_of(body)), verdict)), **reply)

    return answer


def voting_judge(votes: Mapping[str, str], default: str = "agree", *, reverse: bool = False,
                 **reply: Any) -> Callable[[Any], Reply]:
    """A judge that ranks every label it is shown (in label order, or reversed) and votes
    `votes[id]` (else `default`) on each finding id, giving a one-line prose reason for every
    dispute (the debate round quotes it to the raiser)."""

    def answer(body: Any) -> Reply:
        prompt = prompt_of(body)
        labels, ids = repair_labels(prompt) if kind(prompt) == "judge-repair" else bundle_labels(prompt)
        verdicts = {i: votes.get(i, default) for i in ids}
        reasons = "".join(f"- {i} is wrong: the cited section says otherwise.\n" for i, v in verdicts.items() if v == "dispute")
        block = {"ranking": labels[::-1] if reverse else labels,
                 "adjudications": [{"id": i, "verdict": v} for i, v in verdicts.items()]}
        return chat(f"Reasoning: I checked every finding.\n{reasons}\n```json\n{json.dumps(block)}\n```\n", **reply)

    return answer


# --------------------------------------------------------------------------- checks


def check_documents(run_dir: Path, returned: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Validate every JSON document in the run dir; return run.json (== the returned doc)."""
    run = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    if returned is not None:
        assert run == json.loads(json.dumps(returned))
    for name, schema in RUN_DOCS.items():
        path = run_dir / name
        if path.exists():
            assert schema_errors(json.loads(path.read_text(encoding="utf-8")), schema) == [], name
    for path in run_dir.glob("*.json"):
        assert path.name in RUN_DOCS, f"unexpected JSON document {path.name}"
    return run


def load(run_dir: Path, name: str) -> Any:
    return json.loads((run_dir / name).read_text(encoding="utf-8"))


def files(run_dir: Path) -> set[str]:
    return {p.name for p in run_dir.iterdir()}


def ledger(config_dir: Path) -> list[dict[str, Any]]:
    path = config_dir / "council-ledger.jsonl"
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        assert schema_errors(row, "council-ledger-row") == []
    return rows


def degrade_channels(run: Mapping[str, Any]) -> list[str]:
    return [d["channel"] for d in run.get("degrades", [])]


def seed_ledger(config_dir: Path, rows: list[tuple[str, float]]) -> None:
    lines = []
    for n, (model, cred) in enumerate(rows):
        lines.append(json.dumps({
            "schemaVersion": 2, "runId": f"old-{n}", "date": "2026-01-01T00:00:00Z", "runType": "headless",
            "model": model, "role": "seat", "wasChair": False, "judged": True, "streetCredWithSelf": cred,
            "streetCredPeersOnly": cred, "findingsRaised": 1,
            "bySeverity": {"blocker": 0, "major": 1, "minor": 0, "nit": 0},
            "confirmRate": 1.0, "factErrorRate": 0.0, "conformance": "clean",
        }))
    (config_dir / "council-ledger.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def preflight_refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    code = cli_main(["council", "run", *argv, "--json"])
    envelope = json.loads(capsys.readouterr().out)
    assert code == 1
    assert schema_errors(envelope, "error") == []
    return envelope["error"]


def assert_nothing_happened(fake: FakeProvider, run_dir: Path, project: Path, config_dir: Path) -> None:
    assert fake.requests == []
    assert not run_dir.exists()
    assert not (project / ".claude").exists()
    assert {p.name for p in config_dir.iterdir()} == {"config.json"}


# --------------------------------------------------------------------------- question councils
# The question council's fake members live in tests/question_members.py (the MCP tests use them
# too); here they also defend and re-vote in a debate round by default.

from question_members import (QUESTION, answer_chair_text, answer_text, answers_labels, claim,  # noqa: E402,F401
                              question_judge, question_table)


def question_member(fake: FakeProvider, name: str, *, tag: str | None = None, claims: int = 1,
                    cost: float | None = None, **replies: Any) -> None:
    """Make `fake/<name>` a member of a question council (keyword replies override by prompt kind,
    underscores for dashes: question, question_repair, question_judge, judge_repair,
    question_chair, question_chair_repair, defense, revote, debate_repair). By default a debated
    maker defends every claim and a re-voting judge keeps its dispute."""
    served = f"vendor/{name}-1"
    table = question_table(name, tag=tag, claims=claims, usage=u(cost))
    table.update({"defense": auto_defend(model=served, usage=u(cost)),
                  "revote": auto_revote("dispute", model=served, usage=u(cost))})
    table.update({key.replace("_", "-"): value for key, value in replies.items()})
    fake.respond(name, by_prompt(kind, table))
