"""Scripted council members on the fake provider: each answers by the kind of prompt it gets.

A member reviews (prose + a findings block), judges from the bundle it actually receives
(ranking every label shown, voting on every finding id listed) and, as chair, ends with a
VERDICT line. `delay_s` slows every reply, for tests that need a run to stay running.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from fakeprovider import FakeProvider, Reply, by_prompt, chat, prompt_of, usage
from council_prompts import kind

VERDICT = "Fix these first"



def review(tag: str, n: int = 1) -> str:
    findings = [{"id": i, "severity": "major", "claim": f"{tag} claim {i}", "location": "section 2",
                 "rationale": f"{tag} rationale {i}"} for i in range(1, n + 1)]
    block = {"overall": f"{tag} overall take", "findings": findings}
    return f"The {tag} reviewer finds the cache evicts too eagerly.\n\n```json\n{json.dumps(block)}\n```\n"


def _judge(delay_s: float) -> Any:
    def answer(body: Any) -> Reply:
        prompt = prompt_of(body)
        labels = re.findall(r"^### (Review [A-Z])$", prompt, re.M)
        index = prompt.split("## Findings index", 1)[1].split("## The reviews", 1)[0]
        ids = re.findall(r"^- \*\*([A-Z]\d+)\*\*", index, re.M)
        block = {"ranking": labels, "adjudications": [{"id": i, "verdict": "agree"} for i in ids]}
        text = f"Reasoning: every review has merit.\n\n```json\n{json.dumps(block)}\n```\n"
        return chat(text, usage=usage(100, 50, cost=0.002), delay_s=delay_s)

    return answer


def _gated(fake: FakeProvider, reply: Reply, gate: threading.Event | None) -> Any:
    """`reply`, once the gate is open (or the fake is stopping, so a failed test never hangs)."""

    def answer(body: Any) -> Reply:
        while gate is not None and not gate.is_set() and not fake.stopping.is_set():
            gate.wait(timeout=0.05)
        return reply

    return answer


def member(fake: FakeProvider, name: str, *, findings: int = 1, delay_s: float = 0.0,
           gate: threading.Event | None = None, review_text: str | None = None) -> None:
    text = review_text if review_text is not None else review(name, findings)
    fake.respond(name, by_prompt(kind, {
        "stage1": _gated(fake, chat(text, usage=usage(100, 50, cost=0.001), delay_s=delay_s), gate),
        "judge": _judge(delay_s),
    }))


def chair(fake: FakeProvider, name: str = "chair", *, delay_s: float = 0.0) -> None:
    text = f"Synthesis: the eviction policy must change first.\n\nVERDICT: {VERDICT}\n"
    fake.respond(name, by_prompt(kind, {"chair": chat(text, usage=usage(200, 80, cost=0.003), delay_s=delay_s)}))


def council(fake: FakeProvider, *, delay_s: float = 0.0, gate: threading.Event | None = None) -> dict[str, Any]:
    """Members fake/a and fake/b and chair fake/chair; the council_run arguments for them."""
    member(fake, "a", findings=1, delay_s=delay_s, gate=gate)
    member(fake, "b", findings=2, delay_s=delay_s, gate=gate)
    chair(fake, delay_s=delay_s)
    return {"models": ["fake/a", "fake/b"], "chair": "fake/chair"}


def wave(fake: FakeProvider, *names: str, delay_s: float = 0.0) -> None:
    for name in names:
        fake.script(name, chat(f"{name} says hello", usage=usage(10, 5, cost=0.0005), delay_s=delay_s))
