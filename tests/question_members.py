"""Fake members of a question council on the loopback fake provider (engine and MCP tests).

A member answers a question council's prompts by their kind (`council_prompts.kind`): an
answer in the answer contract, a judgement of the answers' bundle (ranking the labels it is
shown, voting on the claim ids it lists), and, as chair, a synthesis with a Dissent section
and an ANSWER line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from council_prompts import answers_index, kind
from fakeprovider import Reply, chat, prompt_of

QUESTION = "Which store should the session service use, Postgres or DynamoDB?\n\nThe service keeps 2 GB of sessions.\n"


def claim(i: int, tag: str) -> dict[str, Any]:
    return {"id": i, "claim": f"{tag} claim {i}"}


def answer_text(tag: str, n: int = 1, *, block: Any = None, answer: str | None = None) -> str:
    """A Stage-1 answer: reasoning prose, then the trailing answer block."""
    if block is None:
        block = {"answer": answer or f"{tag} answer: use Postgres", "claims": [claim(i, tag) for i in range(1, n + 1)],
                 "assumptions": [f"{tag} assumes a small team"], "confidence": "medium"}
    return f"The {tag} answerer weighs both stores.\n\n```json\n{json.dumps(block)}\n```\n"


def answers_labels(prompt: str) -> tuple[list[str], list[str]]:
    """(labels, claim ids) as a question council's judge bundle shows them."""
    return re.findall(r"^### (Answer [A-Z])$", prompt, re.M), list(answers_index(prompt))


def _repair_labels(prompt: str) -> tuple[list[str], list[str]]:
    match = re.search(r"The labels are (.*?); the finding ids are\s+(.*?)\. The shape", prompt, re.S)
    assert match, "not a judge repair prompt"
    ids = [] if match.group(2).startswith("(none") else [s.strip() for s in match.group(2).split(",")]
    return [s.strip() for s in match.group(1).split(",")], ids


def question_judge(votes: Mapping[str, str] | None = None, default: str = "agree", *, order: list[Any] | None = None,
                   **reply: Any) -> Callable[[Any], Reply]:
    """A judge of answers: ranks the labels in `order` (label letters, e.g. ["B", "A", "C"]; ties
    as nested lists) or in label order, and votes `votes[id]` (else `default`) on every claim id,
    with a one-line prose reason for every dispute."""

    def answer(body: Any) -> Reply:
        prompt = prompt_of(body)
        labels, ids = _repair_labels(prompt) if kind(prompt) == "judge-repair" else answers_labels(prompt)
        ranking: list[Any] = labels
        if order is not None:
            ranking = [[f"Answer {x}" for x in slot] if isinstance(slot, list) else f"Answer {slot}" for slot in order]
        verdicts = {i: (votes or {}).get(i, default) for i in ids}
        reasons = "".join(f"- {i} is wrong: the material says otherwise.\n" for i, v in verdicts.items() if v == "dispute")
        block = {"ranking": ranking, "adjudications": [{"id": i, "verdict": v} for i, v in verdicts.items()]}
        return chat(f"I weighed every answer.\n{reasons}\n```json\n{json.dumps(block)}\n```\n", **reply)

    return answer


def answer_chair_text(standing: str | None = "Converged", answer: str = "Use Postgres for the session store.") -> str:
    closing = f"\n\nANSWER: {standing} — {answer}" if standing else ""
    return ("Synthesis: the answers agree that Postgres fits a 2 GB relational workload.\n\n## Dissent\n\n"
            f"- One answer preferred DynamoDB for its scaling; the council does not adopt it.{closing}\n")


def question_table(name: str, *, tag: str | None = None, claims: int = 1, usage: Any = None,
                   delay_s: float = 0.0) -> dict[str, Any]:
    """The replies of `fake/<name>` by prompt kind (for `fakeprovider.by_prompt(kind, …)`)."""
    served = f"vendor/{name}-1"
    tag = tag or f"seat-{name}"
    reply = {"model": served, "usage": usage, "delay_s": delay_s}
    return {
        "question": chat(answer_text(tag, claims), **reply),
        "question-judge": question_judge(**reply),
        "judge-repair": question_judge(**reply),
        "question-chair": chat(answer_chair_text(), **reply),
        "question-chair-repair": chat("ANSWER: Split — Postgres, though the council divided.", **reply),
    }
