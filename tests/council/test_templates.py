"""Briefing templates: parsing a template's front matter and composing it with an artifact (pure)."""

from __future__ import annotations

from importlib.resources import files

import pytest

from amicus_mcp.council.templates import compose, fence, parse_template, parse_var_args, resolve_values
from amicus_mcp.errors import BadArgs

BUILTINS = ("design-doc", "pr-diff", "plan", "prd", "essay")  # each frames a review
QUESTION_TEMPLATES = ("question",)  # each frames a question for a question council

SMALL = """---
{"title": "Small", "description": "a test template",
 "variables": {"audience": {"description": "who reads it", "required": true},
               "focus": {"description": "what matters", "default": "correctness"}}}
---
Review `$artifact_name` for $audience, weighing $focus. Costs $$5.

$artifact
"""


def builtin(name: str) -> str:
    return files("amicus_mcp").joinpath("templates", f"{name}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", BUILTINS)
def test_every_builtin_parses_states_what_to_review_and_names_its_variables(name: str) -> None:
    template = parse_template(name, builtin(name))
    assert template.title and template.description
    assert template.variables, "a built-in names its variables"
    assert all(v.description for v in template.variables.values())
    assert "Review" in template.body and "blocker" in template.body  # what to review for, and the bar
    text = compose(template, artifact_name="thing.md", artifact_text="THE ARTIFACT TEXT",
                   values={n: f"value-of-{n}" for n, v in template.variables.items() if v.required})
    assert "THE ARTIFACT TEXT" in text and "thing.md" in text and "$" not in text.replace("$$", "")


def test_the_shipped_templates_are_exactly_the_builtins() -> None:
    shipped = sorted(p.name[:-3] for p in files("amicus_mcp").joinpath("templates").iterdir() if p.name.endswith(".md"))
    assert shipped == sorted(BUILTINS + QUESTION_TEMPLATES)


def test_the_review_templates_say_so_and_the_question_template_frames_a_question() -> None:
    assert {parse_template(name, builtin(name)).intent for name in BUILTINS} == {"review"}
    question = parse_template("question", builtin("question"))
    assert question.intent == "question" and question.variables["question"].required
    text = compose(question, artifact_name="trace.log", artifact_text="GET /login 3021 ms",
                   values={"question": "Why is login slow?"})
    assert text.startswith("The question: Why is login slow?") and "GET /login 3021 ms" in text


def test_a_template_names_an_intent_it_knows() -> None:
    # A template frames a review or a question; a task council is framed by a review's template.
    bad = SMALL.replace('"title":', '"intent": "task", "title":', 1)
    with pytest.raises(BadArgs, match="intent"):
        parse_template("small", bad)


def test_compose_fills_given_values_defaults_and_the_fenced_artifact() -> None:
    template = parse_template("small", SMALL)
    text = compose(template, artifact_name="design.md", artifact_text="# Cache\nEvict on write.\n",
                   values={"audience": "the platform team"})
    assert text == ("Review `design.md` for the platform team, weighing correctness. Costs $5.\n\n"
                    "```\n# Cache\nEvict on write.\n```\n")
    assert "weighing latency" in compose(template, artifact_name="d", artifact_text="x",
                                         values={"audience": "a", "focus": "latency"})


def test_an_artifact_with_backtick_fences_gets_a_longer_fence() -> None:
    inner = "before\n````python\ncode\n````\nafter"
    fenced = fence(inner)
    assert fenced.startswith("`````\n") and fenced.endswith("\n`````")


def test_a_missing_required_variable_names_the_fix() -> None:
    template = parse_template("small", SMALL)
    with pytest.raises(BadArgs, match="needs variable\\(s\\) audience") as err:
        resolve_values(template, {})
    assert "--var audience=" in (err.value.hint or "")
    with pytest.raises(BadArgs, match="needs variable"):
        resolve_values(template, {"audience": "   "})  # blank is missing


def test_an_unknown_variable_lists_the_known_ones() -> None:
    template = parse_template("small", SMALL)
    with pytest.raises(BadArgs, match="has no variable\\(s\\) audiance") as err:
        resolve_values(template, {"audiance": "x", "audience": "y"})
    assert "audience, focus" in (err.value.hint or "")


def test_an_overlong_value_is_refused() -> None:
    with pytest.raises(BadArgs, match="the limit is 2000"):
        resolve_values(parse_template("small", SMALL), {"audience": "x" * 2001})


@pytest.mark.parametrize(("text", "message"), [
    ("Review $artifact\n", "no front matter"),
    ("---\nnot json\n---\n$artifact\n", "front matter is not valid JSON"),
    ('---\n{"title": "t"}\n---\n$artifact\n', "description"),
    ('---\n{"title": "t", "description": "d", "extra": 1}\n---\n$artifact\n', "extra"),
    ('---\n{"title": "t", "description": "d"}\n---\nno placeholder\n', "never places \\$artifact"),
    ('---\n{"title": "t", "description": "d"}\n---\n$artifact $who\n', "undeclared variable\\(s\\) who"),
    ('---\n{"title": "t", "description": "d", "variables": {"who": {"description": "x"}}}\n---\n$artifact\n',
     "never appear in the body"),
    ('---\n{"title": "t", "description": "d", "variables": {"artifact_name": {"description": "x"}}}\n---\n$artifact $artifact_name\n',
     "not allowed"),
    ('---\n{"title": "t", "description": "d", "variables": {"w": {"description": "x", "required": true, "default": "d"}}}\n---\n$artifact $w\n',
     "required and has a default"),
    ('---\n{"title": "t", "description": "d"}\n---\n$artifact costs $ 5\n', "stray"),
])
def test_a_broken_template_is_refused_when_read(text: str, message: str) -> None:
    with pytest.raises(BadArgs, match=message):
        parse_template("broken", text)


def test_var_arguments() -> None:
    assert parse_var_args(["audience=platform team", "focus=a=b", "empty="]) == {
        "audience": "platform team", "focus": "a=b", "empty": ""}
    assert parse_var_args(None) == {}
    with pytest.raises(BadArgs, match="is not NAME=VALUE"):
        parse_var_args(["audience"])
    with pytest.raises(BadArgs, match="given twice"):
        parse_var_args(["a=1", "a=2"])
