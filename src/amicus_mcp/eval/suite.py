"""Planted-flaw suites: the format, its validation, and loading one from a folder.

    <suite>/suite.json             {schemaVersion, type: "eval-suite", name, version, description}
    <suite>/cases/<id>/case.json   one case (`eval-case`): kind, title, artifact, briefing,
                                   expectedVerdict, plantedFlaws[]
    <suite>/cases/<id>/<artifact>  the artifact the council reviews (UTF-8 text)

The format is documented for suite authors in `suites/planted/README.md`. A planted flaw's
location is one or more 1-based inclusive line ranges of the artifact, an optional `quote`
that must appear within those lines (so a line number that drifted is caught) and optional
`anchors` (identifiers or headings that appear in the artifact), which the pre-filter also
accepts as a location.

Everything is checked before anything is sent: a missing or unknown field, a flaw whose lines
fall outside the artifact or whose quote is not on them, an anchor the artifact does not
contain, a duplicate id. Each problem names the file and the field, e.g.
`cases/x/case.json: plantedFlaws[2].location.lines: line 80 is past the artifact's 62 lines`,
and every problem of the suite is reported at once, in one `BadArgs`.

A suite is material sent to models: nothing outside its folder is read. A link (a case file,
an artifact, a case folder, cases/ itself) whose resolved target leaves the folder is refused
with an error naming it, and is never walked.
"""

from __future__ import annotations

import hashlib
import re
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple, NoReturn

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from ..errors import BadArgs
from ..fsio import loads_json, read_bytes_bounded
from ..textcodec import NotText, decode_text
from ..vocabulary import SHIP_IT, OverallVerdict, Severity

SUITE_FILE = "suite.json"
CASES_DIR = "cases"
CASE_FILE = "case.json"
SHIPPED_SUITE = "planted"  # the suite `amicus eval run` uses when none is named
MAX_CASE_BYTES = 256 * 1024
MAX_ARTIFACT_BYTES = 200 * 1024
MAX_CASES = 200

SLUG = r"^[a-z0-9][a-z0-9-]{0,63}$"
FLAW_ID = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"
ARTIFACT_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"

LineRange = Annotated[list[Annotated[int, Field(ge=1)]], Field(min_length=2, max_length=2)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


class FlawLocation(_Strict):
    lines: LineRange | Annotated[list[LineRange], Field(min_length=1)]
    quote: Annotated[str, Field(min_length=3)] | None = None
    anchors: list[Annotated[str, Field(min_length=2, max_length=80)]] = Field(default_factory=list)

    def ranges(self) -> list[tuple[int, int]]:
        """The location as (start, end) ranges, however it was written."""
        raw = self.lines if isinstance(self.lines[0], list) else [self.lines]
        return [(int(r[0]), int(r[1])) for r in raw]


class PlantedFlaw(_Strict):
    id: Annotated[str, Field(pattern=FLAW_ID)]
    location: FlawLocation
    severity: Severity
    flaw_class: Annotated[str, Field(alias="class", pattern=SLUG)]
    description: Annotated[str, Field(min_length=20, max_length=2000)]


class CaseDocument(_Strict):
    schemaVersion: Literal[2]
    type: Literal["eval-case"]
    id: Annotated[str, Field(pattern=SLUG)]
    kind: Annotated[str, Field(pattern=SLUG)]
    title: Annotated[str, Field(min_length=3, max_length=200)]
    artifact: Annotated[str, Field(pattern=ARTIFACT_NAME)]
    briefing: Annotated[str, Field(min_length=20, max_length=8000)]
    expectedVerdict: OverallVerdict
    plantedFlaws: list[PlantedFlaw]


class SuiteDocument(_Strict):
    schemaVersion: Literal[2]
    type: Literal["eval-suite"]
    name: Annotated[str, Field(pattern=SLUG)]
    version: Annotated[int, Field(ge=1)]
    description: Annotated[str, Field(max_length=2000)] = ""


class Case(NamedTuple):
    """One case, read and checked: its document, the artifact text and its lines."""

    doc: CaseDocument
    artifact_text: str
    sha256: str  # of case.json and the artifact together: what the case was when it ran
    case_raw: bytes = b""  # the bytes read and checked: what the eval directory's copy is written from
    artifact_raw: bytes = b""

    @property
    def id(self) -> str:
        return self.doc.id

    @property
    def clean(self) -> bool:
        return not self.doc.plantedFlaws

    @property
    def lines(self) -> list[str]:
        return artifact_lines(self.artifact_text)

    def flaw(self, flaw_id: str) -> PlantedFlaw:
        return next(f for f in self.doc.plantedFlaws if f.id == flaw_id)


class Suite(NamedTuple):
    doc: SuiteDocument
    path: Path
    cases: tuple[Case, ...]
    sha256: str  # over every case's hash, in case order
    raw: bytes = b""  # suite.json as read and checked

    def case(self, case_id: str) -> Case:
        return next(c for c in self.cases if c.id == case_id)


# --------------------------------------------------------------------------- artifact lines

def artifact_lines(text: str) -> list[str]:
    """The artifact's lines as the council sees them numbered (a final newline ends the last)."""
    body = text[:-1] if text.endswith("\n") else text
    return body.split("\n")


def numbered(text: str) -> str:
    """The artifact with a right-aligned line number and a bar before every line."""
    lines = artifact_lines(text)
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}} | {line}".rstrip() for n, line in enumerate(lines, 1))


# --------------------------------------------------------------------------- checks (pure)

class SuiteProblems(BadArgs):
    """The BadArgs a suite's problems end in: it carries them, so an enclosing list can take them all."""

    def __init__(self, message: str, *, hint: str | None, problems: Problems) -> None:
        super().__init__(message, hint=hint)
        self.problems = problems


class Problems(list[str]):
    """Every problem found in a suite, so its author sees them all at once; one BadArgs at the end."""

    def __init__(self) -> None:
        super().__init__()
        self.hints: list[str] = []

    def add(self, message: str, hint: str) -> None:
        self.append(message)
        if hint not in self.hints:
            self.hints.append(hint)

    def take(self, err: BadArgs) -> None:
        if isinstance(err, SuiteProblems):  # one case's own list: its problems join this one's
            found = err.problems
            for message in found:
                self.append(message)
            self.hints += [h for h in found.hints if h not in self.hints]
        else:
            self.add(err.message, err.hint or "")

    def raise_any(self) -> None:
        if self:
            self.fail()

    def fail(self) -> NoReturn:
        """Raise the problems found (at least one has been added)."""
        if len(self) == 1:
            raise SuiteProblems(self[0], hint=self.hints[0] or None, problems=self)
        listed = "; ".join(f"({n}) {message}" for n, message in enumerate(self, 1))
        raise SuiteProblems(f"the suite has {len(self)} problems: {listed}",
                            hint="; ".join(h for h in self.hints if h) or None, problems=self)


def format_hint() -> str:
    """Where the suite format is written down: the shipped suite's README, on this machine."""
    return f"see the suite format in {shipped_suite_path() / 'README.md'}"


def parse_case(raw: bytes, artifact_raw: bytes | None, *, where: str, dir_name: str) -> Case:
    """A case from its case.json bytes and its artifact's bytes (None: the file is missing).
    `where` names the case file in every message; every problem is reported together."""
    problems = Problems()
    doc = _parse(CaseDocument, raw, where=where, hint=format_hint(), problems=problems)
    if doc is None:
        problems.fail()  # _parse added why
    if doc.id != dir_name:
        problems.add(f"{where}: id: '{doc.id}' does not match its folder '{dir_name}'",
                     "a case's id is the name of its folder under cases/")
    if artifact_raw is None:
        problems.add(f"{where}: artifact: the file '{doc.artifact}' is missing beside case.json",
                     "put the artifact in the case's folder, named as `artifact` says")
        problems.fail()
    text = _artifact_text(artifact_raw, where=where, name=doc.artifact, problems=problems)
    if text is not None:
        _check_flaws(doc, text, where=where, problems=problems)
    problems.raise_any()
    assert artifact_raw is not None and text is not None
    # Over the text, not the bytes: the eval's own copy is that text as UTF-8 (textcodec's policy),
    # so a BOM'd or UTF-16 suite hashes the same from the user's file and from the copy (rescore).
    digest = hashlib.sha256(decode_text(raw).encode("utf-8") + b"\0" + text.encode("utf-8")).hexdigest()
    return Case(doc=doc, artifact_text=text, sha256=digest, case_raw=raw, artifact_raw=artifact_raw)


def _check_flaws(doc: CaseDocument, text: str, *, where: str, problems: Problems) -> None:
    lines = artifact_lines(text)
    lowered = text.lower()
    seen: set[str] = set()
    for i, flaw in enumerate(doc.plantedFlaws):
        field = f"plantedFlaws[{i}]"
        if flaw.id in seen:
            problems.add(f"{where}: {field}.id: duplicate flaw id '{flaw.id}'", "flaw ids are unique within a case")
        seen.add(flaw.id)
        covered: list[str] = []
        for start, end in flaw.location.ranges():
            if end < start:
                problems.add(f"{where}: {field}.location.lines: range {start}-{end} ends before it starts",
                             "write [first line, last line], 1-based and inclusive")
            elif end > len(lines):
                problems.add(f"{where}: {field}.location.lines: line {end} is past the end of the artifact "
                             f"'{doc.artifact}' ({len(lines)} lines)",
                             "a planted flaw must sit inside the artifact: check its line numbers")
            else:
                covered.append("\n".join(lines[start - 1:end]))
        quote = flaw.location.quote
        if quote is not None and covered and not any(quote in part for part in covered):
            problems.add(f"{where}: {field}.location.quote: {quote!r} is not on the lines given",
                         "the quote must appear, exactly, within the flaw's line ranges")
        for j, anchor in enumerate(flaw.location.anchors):
            if anchor.lower() not in lowered:
                problems.add(f"{where}: {field}.location.anchors[{j}]: {anchor!r} does not appear in the artifact",
                             "an anchor is a name or heading the artifact contains")
    if not doc.plantedFlaws and doc.expectedVerdict != SHIP_IT:
        problems.add(f"{where}: expectedVerdict: a clean case (no planted flaw) expects '{SHIP_IT}', "
                     f"not '{doc.expectedVerdict}'", f"plant its flaws, or expect '{SHIP_IT}'")


def _artifact_text(raw: bytes, *, where: str, name: str, problems: Problems) -> str | None:
    try:
        text = decode_text(raw)
    except NotText as exc:
        problems.add(f"{where}: artifact: '{name}' {exc}", "an artifact is text: save it as UTF-8")
        return None
    if not text.strip():
        problems.add(f"{where}: artifact: '{name}' is empty", "the council reviews the artifact")
        return None
    return text


MAX_FIELD_PROBLEMS = 20  # a document that is wrong everywhere: the first twenty say enough


def _parse(model: type[Any], raw: bytes, *, where: str, hint: str, problems: Problems) -> Any:
    """The document, or None with its problems added (every field pydantic refused)."""
    try:
        doc = loads_json(decode_text(raw), what="the document")  # strict and bounded, as every input document
    except NotText as exc:
        problems.add(f"{where}: the file {exc}", hint)
        return None
    except BadArgs as err:
        problems.add(f"{where}: not a JSON document ({err.message})", hint)
        return None
    try:
        return model.model_validate(doc)
    except ValidationError as exc:
        for problem in exc.errors(include_url=False)[:MAX_FIELD_PROBLEMS]:
            problems.add(f"{where}: {_field(problem['loc'])}: {_message(problem)}", hint)
        return None


def _field(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"(list\[.*\]|int|str|none|union\[.*\]|function-.*)", str(part)):
            continue  # a union branch pydantic names in the location: noise to a reader
        else:
            out += f".{part}" if out else str(part)
    return out or "(root)"


def _message(problem: ErrorDetails) -> str:
    if problem["type"] == "missing":
        return "this field is required"
    if problem["type"] == "extra_forbidden":
        return "unknown field"
    return str(problem["msg"])


# --------------------------------------------------------------------------- loading (I/O)

LINK_HINT = ("a suite is read from its own folder only, like any material: copy the file into the suite "
             "instead of linking to it")


def shipped_suite_path() -> Path:
    return Path(str(files("amicus_mcp").joinpath("eval", "suites", SHIPPED_SUITE)))


def load_suite(path: str | Path | None = None) -> Suite:
    """The suite in folder `path` (the shipped suite when None), every case checked and every
    problem reported together. Nothing outside the suite's folder is read: a link whose target
    (resolved) leaves it is refused, and a linked folder that leaves it is not walked."""
    root = (Path(path).expanduser() if path is not None else shipped_suite_path()).resolve()
    if not root.is_dir():
        raise BadArgs(f"suite '{path}' is not a folder", hint="a suite is a folder with suite.json and cases/")
    problems = Problems()
    doc = None
    try:
        suite_raw = _read(root / SUITE_FILE, root, where=f"{root / SUITE_FILE}", limit=MAX_CASE_BYTES)
    except BadArgs as err:
        problems.take(err)
        suite_raw = b""
    if suite_raw is None:
        problems.add(f"{root}: suite.json is missing", "a suite folder starts with suite.json (" + format_hint() + ")")
    elif suite_raw:
        doc = _parse(SuiteDocument, suite_raw, where=str(root / SUITE_FILE), hint=format_hint(), problems=problems)
    folders = _case_folders(root, problems)
    cases = []
    for folder in folders:
        try:
            cases.append(_load_case(folder, root))
        except BadArgs as err:
            problems.take(err)
    problems.raise_any()
    assert doc is not None
    digest = hashlib.sha256("\n".join(f"{c.id}:{c.sha256}" for c in cases).encode()).hexdigest()
    return Suite(doc=doc, path=root, cases=tuple(cases), sha256=digest, raw=suite_raw or b"")


def _case_folders(root: Path, problems: Problems) -> list[Path]:
    """cases/<id>/ of the suite, each inside the suite's folder once resolved."""
    case_root = root / CASES_DIR
    if not _inside(case_root, root):
        problems.add(f"{case_root}: a link that leaves the suite's folder (to {case_root.resolve()}); it is not read",
                     LINK_HINT)
        return []
    folders = []
    for entry in sorted(case_root.iterdir()) if case_root.is_dir() else []:
        if not _inside(entry, root):
            problems.add(f"{entry}: a link that leaves the suite's folder (to {entry.resolve()}); it is not read",
                         LINK_HINT)
        elif entry.is_dir():
            folders.append(entry)
    if not folders and not problems:
        problems.add(f"{root}: cases/ holds no case folder", "each case is cases/<id>/case.json plus its artifact")
    if len(folders) > MAX_CASES:
        problems.add(f"{root}: {len(folders)} cases is more than {MAX_CASES}", "split the suite")
        return []
    return folders


def _inside(path: Path, root: Path) -> bool:
    resolved = path.resolve()
    return resolved == root or resolved.is_relative_to(root)


def _load_case(folder: Path, root: Path) -> Case:
    where = f"{folder / CASE_FILE}"
    raw = _read(folder / CASE_FILE, root, where=where, limit=MAX_CASE_BYTES)
    if raw is None:
        raise BadArgs(f"{where}: the file is missing", hint="every folder under cases/ is one case with a case.json")
    try:
        name = loads_json(decode_text(raw), what="the document").get("artifact")
    except (NotText, BadArgs, AttributeError):  # not text, not JSON, not an object: parse_case says which
        name = None
    artifact = None
    if isinstance(name, str) and re.fullmatch(ARTIFACT_NAME, name):
        artifact = _read(folder / name, root, where=f"{where}: artifact", limit=MAX_ARTIFACT_BYTES)
    return parse_case(raw, artifact, where=where, dir_name=folder.name)


def _read(path: Path, root: Path, *, where: str, limit: int) -> bytes | None:
    """The file's bytes (None when absent), read from its resolved target, which must lie
    inside the suite's folder `root`."""
    if not path.exists() and not path.is_symlink():
        return None
    target = path.resolve()
    if not (target == root or target.is_relative_to(root)):
        raise BadArgs(f"{where}: '{path.name}' is a link that leaves the suite's folder (to {target}); it is not read",
                      hint=LINK_HINT)
    if not target.exists():
        return None
    if target.is_dir():
        raise BadArgs(f"{where}: is a folder, not a file", hint="check the suite layout")
    return read_bytes_bounded(target, what=where, limit=limit, hint="keep case files and artifacts small")


# --------------------------------------------------------------------------- the briefing

def case_briefing(case: Case) -> str:
    """What the case's council is briefed with: the case's briefing and its numbered artifact.
    The numbers are what planted flaws are located by, so the reviewers are asked to cite them."""
    from ..council.templates import fence

    doc = case.doc
    return (f"# {doc.title}\n\n{doc.briefing.strip()}\n\n"
            f"The material under review is `{doc.artifact}` ({doc.kind.replace('-', ' ')}), below. Every line "
            "is numbered at the left; cite those numbers in each finding's location, for example "
            "\"line 12\" or \"lines 12-15\".\n\n"
            f"{fence(numbered(case.artifact_text))}\n")
