"""Everything the skill (and the README) names must exist in this package.

Checked against the live objects, not a copy: the MCP tools and their input schemas come from
`build_tools`, the CLI's commands and flags from `build_parser`, field names from the tools'
schemas, the shipped JSON Schemas and the package source, run-folder files from the engine.
"""

from __future__ import annotations

import re

import pytest
from skill_helpers import (
    COMMAND,
    app_only_tools,
    NAMED_DOCS,
    README,
    REPO,
    SKILL,
    SKILL_FILES,
    all_cli_flags,
    check_calls,
    check_command,
    check_field_names,
    command_lines,
    env_mentions,
    flag_mentions,
    read,
    source_text,
    split_markdown,
    tool_mentions,
    tools,
)

DOC_IDS = [str(p.relative_to(REPO)) for p in NAMED_DOCS]
# Field names are checked in the documents written for this issue (docs/mcp.md speaks of the
# protocol's own fields, such as clientInfo, which are not this package's).
FIELD_DOCS = [*SKILL_FILES, COMMAND, README]


def test_the_server_has_the_thirteen_tools_the_skill_is_written_for() -> None:
    assert set(tools()) == {
        "amicus_council_run", "amicus_council_resume", "amicus_fanout", "amicus_wait", "amicus_status", "amicus_read", "amicus_abort",
        "amicus_list", "amicus_council_tally", "amicus_verdict", "amicus_council_stats", "amicus_decisions",
        "amicus_eval",
    }


@pytest.mark.parametrize("path", NAMED_DOCS, ids=DOC_IDS)
def test_every_tool_named_exists(path) -> None:  # type: ignore[no-untyped-def]
    assert sorted(tool_mentions(read(path)) - set(tools()) - app_only_tools()) == []


def test_the_skill_covers_every_tool() -> None:
    assert sorted(set(tools()) - tool_mentions(read(SKILL))) == []


@pytest.mark.parametrize("path", NAMED_DOCS, ids=DOC_IDS)
def test_every_tool_call_names_real_parameters(path) -> None:  # type: ignore[no-untyped-def]
    assert check_calls(read(path)) == []


def test_the_skill_names_every_run_parameter_it_relies_on() -> None:
    text = read(SKILL)
    missing = [param for param in ("briefingFile", "models", "council", "chair", "outDir", "maxCost", "timeoutMinutes",
                                   "gateway", "critic", "lenses", "debate", "claudeReviewFile", "noCostGate", "ui",
                                   "noLedger", "promptFile", "prompt", "render", "overallVerdict", "decisions", "intent", "answer")
               if not re.search(rf"`[^`]*\b{param}\b[^`]*`|\"{param}\":", text)]
    assert missing == []


@pytest.mark.parametrize("path", NAMED_DOCS, ids=DOC_IDS)
def test_every_cli_command_and_flag_exists(path) -> None:  # type: ignore[no-untyped-def]
    lines = list(command_lines(read(path)))
    problems = [p for line in lines for p in check_command(line)]
    assert problems == []


def test_the_docs_show_cli_commands_at_all() -> None:
    # Guards the extraction itself: if it silently found nothing, the test above would pass.
    assert len(list(command_lines(read(README)))) >= 20
    assert len(list(command_lines(read(SKILL)))) >= 3


@pytest.mark.parametrize("path", NAMED_DOCS, ids=DOC_IDS)
def test_every_flag_mentioned_exists(path) -> None:  # type: ignore[no-untyped-def]
    _, prose = split_markdown(read(path))
    assert sorted(set(flag_mentions(prose)) - all_cli_flags()) == []


@pytest.mark.parametrize("path", FIELD_DOCS, ids=[str(p.relative_to(REPO)) for p in FIELD_DOCS])
def test_every_field_name_exists(path) -> None:  # type: ignore[no-untyped-def]
    assert check_field_names(read(path)) == []


@pytest.mark.parametrize("path", NAMED_DOCS, ids=DOC_IDS)
def test_every_environment_variable_exists(path) -> None:  # type: ignore[no-untyped-def]
    assert sorted(name for name in env_mentions(read(path)) if name not in source_text()) == []


def test_the_checkers_catch_invented_names() -> None:
    doc = (
        "Call `amicus_council_start` or `amicus_wait(id, waitSeconds)`, then run\n"
        "`amicus council tally in.json --no-record` and `amicus council judge x`.\n"
        "Read `overallVerdict` and `chairScore`.\n"
    )
    assert tool_mentions(doc) - set(tools()) == {"amicus_council_start"}
    assert check_calls(doc) == ["`amicus_wait(id, waitSeconds)`: amicus_wait has no parameter 'waitSeconds'"]
    problems = [p for line in command_lines(doc) for p in check_command(line)]
    assert problems == [
        "`amicus council tally in.json --no-record`: `amicus council tally` has no option --no-record",
        "`amicus council judge x`: `amicus council judge` is not a command",
    ]
    assert check_field_names(doc) == [
        "`amicus_wait(id, waitSeconds)`: no field, parameter or config key named 'waitSeconds'",
        "`chairScore`: no field, parameter or config key named 'chairScore'",
    ]


# --------------------------------------------------------------------------- the run folder

_ROW = re.compile(r"^\| (?P<files>`[^|]+`) \| (?P<owner>[a-zA-Z]+) \| (?P<what>.+) \|$", re.MULTILINE)
# Where the engine and the server name the files of a run directory.
_WRITERS = ("engine/run_dir.py", "engine/council_run.py", "engine/stage1.py", "engine/stage2.py",
            "engine/debate_round.py", "engine/chair.py", "engine/options.py", "engine/spawn.py", "mcp/autoopen.py")


def run_folder_table() -> dict[str, str]:
    text = read(SKILL)
    section = text[text.index("## The run folder"):]
    section = section[: section.index("\n---")]
    table: dict[str, str] = {}
    for row in _ROW.finditer(section):
        for name in re.findall(r"`([^`]+)`", row.group("files")):
            table[name] = row.group("owner")
    return table


def writer_source() -> str:
    from skill_helpers import SOURCE

    return "\n".join(read(SOURCE / rel) for rel in _WRITERS)


def test_the_run_folder_table_names_files_the_engine_writes() -> None:
    source = writer_source()
    table = run_folder_table()
    assert {"engine", "server", "Claude"} >= set(table.values())
    missing = []
    for name, owner in table.items():
        if owner == "Claude":
            continue
        if "<" in name:  # review-<seat>.md → the engine builds it as f"review-{…}"
            prefix = name.split("<", 1)[0]
            found = f'"{prefix}{{' in source or f"'{prefix}{{" in source
        else:
            stem = name.rsplit(".", 1)[0]
            found = f'"{name}"' in source or (name.endswith(".md") and f'"{stem}"' in source)
        if not found:
            missing.append(name)
    assert missing == []


def test_every_file_the_engine_names_is_in_the_table() -> None:
    written = set(re.findall(r'"([A-Za-z0-9._-]+\.(?:md|json|html|pid|log))"', writer_source()))
    assert sorted(written - set(run_folder_table())) == []
