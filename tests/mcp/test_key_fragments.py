"""Issue 19 item 17: a piece of the key that the provider (or a model) cut itself never leaves.

The provider holds a configured key and answers one seat with a 401 that quotes pieces of it
(`… key d8046a1b2c3d4e5f6071…890 is invalid`, no `sk-or-v1-` prefix); the other seats and the
chair quote more pieces in their reviews, findings and synthesis. After the run, no run of 12
or more consecutive characters of the key is in stdout, any file of the run directory
(run.json, verdict.json, report.html, legs/*.json …), the project's sessions dir, the ledger,
`amicus status` / `amicus list`, or any MCP result (status, list, read of every run file).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from council_prompts import kind
from council_script import _judge, chair as scripted_chair
from fakeprovider import FakeProvider, by_prompt, chat, configure_fake, error, usage
from mcp_helpers import body, in_process

from amicus_mcp.cli import main as cli_main
from amicus_mcp.secrets import FRAGMENT

KEY = "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"
H = KEY[len("sk-or-v1-"):]  # what a provider quotes when it drops the prefix
# Eleven ways a key is quoted in part, each holding 12 or more consecutive characters of it.
FRAGMENTS = [
    f"{H[:20]}…{H[-3:]}",  # the provider's own cut: twenty characters, an ellipsis, the last three
    KEY,
    f"{KEY[:25]}…",  # the prefix and sixteen
    f"{KEY[:19]}…",  # the prefix and ten: too short for the sk-or- shape
    H,  # the whole key without its prefix
    f"…{H[-12:]}",  # the last twelve
    f"…{H[-16:]}",
    H[10:46],  # a bare 36-character piece
    H[30:50],
    f"?api_key={H[5:30]}&retry=1",
    f"Bearer {H[:24]}…",
]


def piece(fragment: str) -> str:
    """The run of the key a fragment quotes (the longest one, when it quotes two)."""
    runs = (fragment[i:j] for i in range(len(fragment)) for j in range(i + FRAGMENT, len(fragment) + 1))
    return max((r for r in runs if r in KEY), key=len)


def leaked(text: str) -> list[str]:
    """The fragments whose piece of the key is in `text` as quoted."""
    return [f for f in FRAGMENTS if piece(f) in text]


def key_runs(text: str) -> int:
    """How many 12-character runs of the key `text` holds (0 is the only right answer)."""
    return sum(KEY[i:i + FRAGMENT] in text for i in range(len(KEY) - FRAGMENT + 1))


def leaky_review() -> str:
    block = {"overall": f"the key {FRAGMENTS[4]} is in the config",
             "findings": [{"id": 1, "severity": "blocker", "claim": f"The key {FRAGMENTS[7]} is committed",
                           "location": f"config.py next to {FRAGMENTS[8]}",
                           "rationale": f"Anyone can call with {FRAGMENTS[5]} and {FRAGMENTS[6]}"}]}
    return f"The reviewer found {FRAGMENTS[4]} in the repo.\n\n```json\n{json.dumps(block)}\n```\n"


def leaky_council(fake: FakeProvider, config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configure_fake(config_dir, fake, apiKeyEnv="FAKE_LLM_API_KEY")
    monkeypatch.setenv("FAKE_LLM_API_KEY", KEY)
    cost = usage(100, 50, cost=0.001)
    fake.respond("a", by_prompt(kind, {"stage1": chat(leaky_review(), usage=cost), "judge": _judge(0.0)}))
    fake.respond("b", by_prompt(kind, {"stage1": chat(f"Plain review, see {FRAGMENTS[9]}.\n\n```json\n"
                                                       '{"overall": "fine", "findings": []}\n```\n', usage=cost),
                                       "judge": _judge(0.0)}))
    fake.script("c", error(401, f"Incorrect API key provided: key {FRAGMENTS[0]} is invalid; also tried "
                                f"{FRAGMENTS[1]}, {FRAGMENTS[2]} and {FRAGMENTS[3]}"))
    fake.respond("chair", by_prompt(kind, {"chair": chat(
        f"Synthesis: rotate the key {FRAGMENTS[10]} and {FRAGMENTS[4]} now.\n\nVERDICT: Fix these first\n",
        usage=cost)}))


def cli(*argv: str) -> tuple[int, str]:
    """The CLI in-process; its exit code and what it printed (stdout, then stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(list(argv))
    return code, out.getvalue() + err.getvalue()


def everything_under(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8", errors="replace")
            for p in root.rglob("*") if p.is_file()}


def mcp_texts(result: Any) -> str:
    return json.dumps(result.structured_content) + "".join(getattr(c, "text", "") for c in result.content)


async def mcp_results(run_id: str, project: Path) -> dict[str, str]:
    """What the MCP tools show of the run: status, list, and a read of every run file."""
    shown: dict[str, str] = {}
    async with in_process("legacy") as client:
        args = {"id": run_id, "project": str(project)}
        shown["amicus_status"] = mcp_texts(await client.call_tool("amicus_status", args))
        shown["amicus_list"] = mcp_texts(await client.call_tool("amicus_list", {"project": str(project)}))
        report = await client.call_tool("amicus_read", args)
        shown["amicus_read"] = mcp_texts(report)
        for name in body(report)["files"]:
            shown[f"amicus_read {name}"] = mcp_texts(await client.call_tool("amicus_read", {**args, "file": name}))
    return shown


def test_no_piece_of_the_key_leaves_a_run_whose_provider_echoes_it(
        fake: FakeProvider, config_dir: Path, project: Path, briefing: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    leaky_council(fake, config_dir, monkeypatch)
    run_dir = project / "council-leaky"
    code, run_out = cli("council", "run", "--models", "fake/a,fake/b,fake/c", "--chair", "fake/chair",
                        "--prompt-file", str(briefing), "--project", str(project), "--out-dir", str(run_dir), "--json")
    run = json.loads(run_out[:run_out.rindex("}") + 1])
    assert code == 2 and run["status"] == "partial", run.get("error")  # seat c was refused: a degraded run
    assert fake.chat_requests("c") and fake.chat_requests("chair")  # the pieces really were sent back
    assert fake.chat_requests("a")[0].headers["authorization"] == f"Bearer {KEY}"

    shown: dict[str, str] = {"council run --json": run_out}
    for argv in (("status", run["runId"]), ("status", run["runId"], "--json"), ("list",), ("list", "--json")):
        status_code, shown[" ".join(argv[:1] + argv[2:])] = cli(*argv, "--project", str(project))
        assert status_code == 0
    shown.update(anyio.run(mcp_results, run["runId"], project))
    for root in (run_dir, project / ".claude", config_dir):
        shown.update({f"{root.name}/{k}": v for k, v in everything_under(root).items()})

    expected = {"run.json", "verdict.json", "report.html", "review-fake-a.md", "chair-output.md"}
    assert {Path(k).name for k in shown} >= expected and any("/legs/" in k for k in shown)
    assert {where: (key_runs(text), leaked(text)) for where, text in shown.items() if key_runs(text)} == {}
    seat_c = next(leg for leg in run["legs"] if leg["model"] == "fake/c")
    assert "HTTP 401" in seat_c["error"]["message"] and "key ***…" in seat_c["error"]["message"]
    assert "The key *** is committed" in (run_dir / "tally.json").read_text(encoding="utf-8")
