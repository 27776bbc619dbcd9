"""What the engine is asking a model for, read off the fixed wording of its prompt templates.

Fake council members in the engine, MCP and workspace tests (and the council benchmark) answer
according to this; one copy keeps them in step with src/amicus_mcp/prompts/.
"""

from __future__ import annotations

import re

# A ```json block. A prompt's example is its first one; a repair prompt quotes the model's previous
# reply first, so there the example is the last one.
_EXAMPLE = re.compile(r"```json[ \t]*\n.*?\n```", re.S)


def kind(prompt: str) -> str:
    """What the engine is asking for, read off the prompt templates' fixed wording. A question
    council's own prompts are `question`, `question-judge`, `question-chair`, `question-repair`
    and `question-chair-repair`; its debate prompts answer in the review's forms, so they are
    `defense` and `revote` too (`question_debate` tells them apart)."""
    if prompt.startswith("# Council question briefing"):
        return "question"
    if prompt.startswith("# Cross-review of answers"):
        return "question-judge"
    if prompt.startswith("# Council chair — a question"):
        return "question-chair"
    if prompt.startswith("# Verification of one finding"):
        return "verifier"
    if prompt.startswith("# Council review briefing"):
        return "stage1"
    if prompt.startswith("# Cross-review"):
        return "judge"
    if prompt.startswith("# Council chair"):
        return "chair"
    if "Your previous answer ended with an answer block" in prompt:
        return "question-repair"
    if "it does not end with an answer line" in prompt:
        return "question-chair-repair"
    if prompt.startswith("# Matching review findings to known flaws"):
        return "matcher"
    if prompt.startswith("# Matching review findings to an earlier review's findings"):
        return "rereview-matcher"
    if "Your previous review ended with a findings block" in prompt or "Your previous reply was empty" in prompt:
        return "stage1-repair"
    if "Your previous judgement ended with a block" in prompt:
        return "judge-repair"
    if "You wrote the synthesis below as a council's chair" in prompt:
        return "chair-repair"
    if "You reviewed some material and raised the findings below" in prompt or "your answer rests on the key claims below" in prompt:
        return "defense"
    if "You judged the findings below earlier and disputed them" in prompt or "You judged the key claims below earlier" in prompt:
        return "revote"
    if "Your previous reply ended with a json block that could not be read" in prompt:
        return "debate-repair"
    return "other"


def question_debate(prompt: str) -> bool:
    """Whether a debate prompt is a question council's (it speaks of key claims)."""
    return ("You answered a question, and your answer rests on the key claims below" in prompt
            or "You judged the key claims below earlier and disputed them" in prompt)


def example_block(prompt: str) -> str | None:
    """The example ```json block a prompt shows, verbatim — what a weak model that copies its
    prompt answers with (`fakeprovider.copycat(example_block)`)."""
    blocks = _EXAMPLE.findall(prompt)
    if not blocks:
        return None
    return blocks[-1] if kind(prompt).endswith("repair") else blocks[0]


def answers_index(prompt: str) -> dict[str, str]:
    """{claim id: claim} as a question council's judge bundle lists its key claims."""
    index = prompt.split("## Key claims index", 1)[1].split("## The answers", 1)[0]
    return dict(re.findall(r"^- \*\*([A-Z]\d+)\*\* — (.*)$", index, re.M))


def judge_index(prompt: str) -> dict[str, str]:
    """{finding id: claim} as a judge bundle's findings index lists them."""
    index = prompt.split("## Findings index", 1)[1].split("## The reviews", 1)[0]
    return dict(re.findall(r"^- \*\*([A-Z]\d+)\*\* \([a-z]+\) — (.*)$", index, re.M))


def matcher_questions(prompt: str) -> list[tuple[str, str, list[str]]]:
    """(finding id, claim, candidate flaw ids) for every finding a matcher prompt asks about."""
    section = prompt.split("## Findings", 1)[1].split("## Your answer", 1)[0]
    out = []
    for block in re.split(r"^### ", section, flags=re.M)[1:]:
        fid = block.split(" ", 1)[0]
        claim = re.search(r"^- claim: (.*)$", block, re.M)
        cands = re.search(r"^- may be matched to: (.*)$", block, re.M)
        out.append((fid, claim.group(1) if claim else "", [c.strip() for c in cands.group(1).split(",")] if cands else []))
    return out
