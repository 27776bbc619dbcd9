"""Briefing templates: a reusable briefing for one kind of artifact, composed with the artifact.

A template is a Markdown file that starts with a front-matter block — a JSON object between
two `---` lines — declaring its title, what it is for and its variables:

    ---
    {
      "title": "Design document",
      "description": "A design doc or RFC: is the design sound, complete and buildable?",
      "variables": {
        "audience": {"description": "who will build and run it", "required": true},
        "focus": {"description": "what to weigh most", "default": "correctness and failure modes"}
      }
    }
    ---
    Review this design document for $audience. Weigh $focus most.

    $artifact

A template frames a review unless its front matter says `"intent": "question"`: then it frames
a question for a question council (the built-in `question` template), and a run composed from it
is a question council unless the caller asked for something else — which is refused, since a
review's frame and a question's contract would contradict each other.

The body uses `$name` placeholders (string.Template). `$artifact` (the artifact, fenced) and
`$artifact_name` (its file name) are filled by the composer; every other placeholder must be a
declared variable, and every declared variable must be used — a template is checked when it
is read, not when a run is half-way to spending money.

Everything here is pure: file reading and lookup (built-in, user, file path) live in
`engine/briefing_inputs.py`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from string import Template
from typing import TYPE_CHECKING, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import BadArgs
from ..fsio import loads_json
from ..vocabulary import FramedIntent

if TYPE_CHECKING:
    from ..documents.commands import TemplateVariableDoc

RESERVED = ("artifact", "artifact_name")
VAR_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
MAX_VAR_CHARS = 2000
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)


class TemplateVariable(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    description: str = Field(min_length=1)
    required: bool = False
    default: str | None = None


class TemplateFrontMatter(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    intent: FramedIntent = "review"
    variables: dict[str, TemplateVariable] = Field(default_factory=dict)


class BriefingTemplate(NamedTuple):
    name: str
    title: str
    description: str
    variables: dict[str, TemplateVariable]
    body: str
    intent: FramedIntent = "review"

    def describe(self) -> list[TemplateVariableDoc]:
        """The variables as documents: name, required, default (when set), description."""
        rows = []
        for name, var in self.variables.items():
            row: TemplateVariableDoc = {"name": name, "required": var.required, "description": var.description}
            if var.default is not None:
                row["default"] = var.default
            rows.append(row)
        return rows


def parse_template(name: str, text: str) -> BriefingTemplate:
    """Read a template's front matter and check its body against it."""
    where = f"template '{name}'"
    match = _FRONT.match(text)
    if not match:
        raise BadArgs(f"{where} has no front matter", hint="start it with a JSON object between two '---' lines "
                      "(title, description, variables); see 'amicus council template show design-doc'")
    try:
        front = TemplateFrontMatter.model_validate(loads_json(match.group(1), what=f"{where}: front matter"))
    except BadArgs as err:
        raise BadArgs(err.message, hint="the block between the '---' lines must be one JSON object") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "front matter"
        raise BadArgs(f"{where}: front matter {field}: {first['msg']}",
                      hint="keys: title, description, intent? (review | question), "
                           "variables {name: {description, required?, default?}}") from None
    body = text[match.end():]
    _check_variables(where, front, body)
    return BriefingTemplate(name=name, title=front.title, description=front.description,
                            variables=front.variables, body=body, intent=front.intent)


def _check_variables(where: str, front: TemplateFrontMatter, body: str) -> None:
    for var_name, var in front.variables.items():
        if not VAR_NAME.match(var_name) or var_name in RESERVED:
            raise BadArgs(f"{where}: variable name '{var_name}' is not allowed",
                          hint=f"lowercase letters, digits and '_'; {', '.join(RESERVED)} are filled by amicus")
        if var.required and var.default is not None:
            raise BadArgs(f"{where}: variable '{var_name}' is required and has a default",
                          hint="a variable with a default is optional: drop one of the two")
    template = Template(body)
    if not template.is_valid():
        raise BadArgs(f"{where}: the body has a stray '$'", hint="write '$$' for a literal dollar sign")
    used = set(template.get_identifiers())
    if "artifact" not in used:
        raise BadArgs(f"{where}: the body never places $artifact", hint="put $artifact where the artifact belongs")
    undeclared = sorted(used - set(front.variables) - set(RESERVED))
    if undeclared:
        raise BadArgs(f"{where}: the body uses undeclared variable(s) {', '.join(undeclared)}",
                      hint="declare them under 'variables' in the front matter")
    unused = sorted(set(front.variables) - used)
    if unused:
        raise BadArgs(f"{where}: declared variable(s) {', '.join(unused)} never appear in the body",
                      hint="use each one as $name, or drop it from the front matter")


def check_known_values(template: BriefingTemplate, values: Mapping[str, str]) -> None:
    """Every given variable is one the template declares."""
    unknown = sorted(set(values) - set(template.variables))
    if unknown:
        known = ", ".join(template.variables) or "(none)"
        raise BadArgs(f"template '{template.name}' has no variable(s) {', '.join(unknown)}",
                      hint=f"its variables are: {known} ('amicus council template show {template.name}')")


def resolve_values(template: BriefingTemplate, values: Mapping[str, str]) -> dict[str, str]:
    """Every variable's value: given, else its default. Unknown or missing → BadArgs."""
    check_known_values(template, values)
    resolved: dict[str, str] = {}
    missing: list[str] = []
    for name, var in template.variables.items():
        value = values.get(name, var.default)
        if value is None or not value.strip():
            if var.required:
                missing.append(name)
                continue
            value = value or ""
        if len(value) > MAX_VAR_CHARS:
            raise BadArgs(f"variable '{name}' is {len(value)} characters; the limit is {MAX_VAR_CHARS}",
                          hint="variables are short settings; put long material in the artifact")
        resolved[name] = value
    if missing:
        example = " ".join(f"--var {m}=…" for m in missing)
        raise BadArgs(f"template '{template.name}' needs variable(s) {', '.join(missing)}",
                      hint=f"pass {example}; 'amicus council template show {template.name}' says what each means")
    return resolved


def fence(text: str, info: str = "") -> str:
    """`text` inside a backtick fence longer than any backtick run it contains."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}"


def compose(template: BriefingTemplate, *, artifact_name: str, artifact_text: str,
            values: Mapping[str, str]) -> str:
    """The briefing: the template's body with its variables and the fenced artifact filled in."""
    filled = resolve_values(template, values)
    body = Template(template.body).substitute(
        filled, artifact=fence(artifact_text), artifact_name=artifact_name)
    return body.strip() + "\n"


def parse_var_args(pairs: list[str] | None) -> dict[str, str]:
    """`--var k=v` arguments as a mapping (a repeated key is a mistake, not an override)."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise BadArgs(f"--var '{pair}' is not NAME=VALUE", hint="e.g. --var audience=platform-team")
        if name in out:
            raise BadArgs(f"--var {name} is given twice", hint="give each variable once")
        out[name] = value
    return out
