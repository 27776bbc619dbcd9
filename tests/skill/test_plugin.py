"""The plugin installs the skill, the command and the server together; the README says how.

Checks the Claude Code plugin layout (manifest at `.claude-plugin/plugin.json`, components at
the plugin root), the skill's and the command's frontmatter, every relative link in the
documents, and the README's two set-up commands.
"""

from __future__ import annotations

import json
import os
import re
import tomllib

import pytest
from skill_helpers import COMMAND, README, REPO, SKILL, SKILL_DIR, SKILL_FILES, read, split_markdown

PLUGIN = REPO / ".claude-plugin" / "plugin.json"
PLUGIN_MCP = REPO / ".mcp.json"


def frontmatter(text: str) -> tuple[dict[str, str], str]:
    """The `key: value` frontmatter of a Markdown file (one line per key) and the body."""
    match = re.match(r"^---\n(?P<head>.*?)\n---\n(?P<body>.*)$", text, re.DOTALL)
    assert match, "no frontmatter"
    fields: dict[str, str] = {}
    for line in match.group("head").splitlines():
        key, sep, value = line.partition(":")
        assert sep and re.fullmatch(r"[a-z][a-z-]*", key), f"not a `key: value` line: {line!r}"
        value = value.strip()
        if value.startswith('"'):
            assert value.endswith('"') and '"' not in value[1:-1], f"{key}: broken quoting"
            value = value[1:-1]
        else:  # a YAML plain scalar: these would end it early or make it something else
            assert ": " not in value and " #" not in value and value[:1] not in "[]{}&*!|>'%@`", key
        fields[key] = value
    return fields, match.group("body")


def pyproject() -> dict:  # type: ignore[type-arg]
    return tomllib.loads(read(REPO / "pyproject.toml"))


def test_the_manifest_describes_this_package() -> None:
    manifest = json.loads(read(PLUGIN))
    assert re.fullmatch(r"[a-z][a-z0-9-]*", manifest["name"])
    from amicus_mcp import HOMEPAGE, __version__

    assert manifest["version"] == __version__  # the one version source (tests/test_release.py)
    assert manifest["description"]
    assert manifest["license"] == pyproject()["project"]["license"]
    assert manifest["homepage"] == manifest["repository"] == HOMEPAGE
    # the listing icon: a square PNG of 512–2048 px (what `claude plugin validate` asks of the directory)
    icon = (REPO / manifest["icon"]).read_bytes()
    assert icon[:8] == b"\x89PNG\r\n\x1a\n" and icon[16:24] == (512).to_bytes(4, "big") * 2


def test_the_plugins_mcp_json_starts_this_packages_server_from_the_plugin_itself() -> None:
    # Claude Code counts a plugin's servers from its root .mcp.json, not from the manifest.
    assert "mcpServers" not in json.loads(read(PLUGIN))
    servers = json.loads(read(PLUGIN_MCP))["mcpServers"]
    assert list(servers) == ["amicus"]
    server = servers["amicus"]
    assert server["command"] == "uvx"
    assert server["args"] == ["--from", "${CLAUDE_PLUGIN_ROOT}", "amicus-mcp"]
    # The script it runs is one this package installs, and the plugin root is this package.
    assert "amicus-mcp" in pyproject()["project"]["scripts"]
    assert (REPO / "pyproject.toml").is_file()


def test_components_sit_at_the_plugin_root() -> None:
    assert sorted(p.name for p in PLUGIN.parent.iterdir()) == ["marketplace.json", "plugin.json"]
    assert (REPO / "skills" / "second-opinion" / "SKILL.md").is_file()
    assert (REPO / "commands" / "council.md").is_file()
    assert PLUGIN_MCP.is_file()


def test_no_run_pointer_files_ship_in_the_plugin() -> None:
    # A run started from the checkout writes <project>/.claude/amicus_sessions/: never tracked, never shipped.
    assert ".claude/amicus_sessions/" in read(REPO / ".gitignore").splitlines()
    sessions = REPO / ".claude" / "amicus_sessions"
    if (REPO / ".git").exists():
        import subprocess

        tracked = subprocess.run(["git", "ls-files", str(sessions)], cwd=REPO, capture_output=True, text=True,
                                 check=True).stdout
        assert tracked == ""


def test_skill_frontmatter() -> None:
    fields, body = frontmatter(read(SKILL))
    assert set(fields) == {"name", "description"}
    assert fields["name"] == SKILL_DIR.name == "second-opinion"
    description = fields["description"]
    assert 200 <= len(description) <= 1024
    for trigger in ("second opinion", "council", "/council", "review", "red-team", "amicus"):
        assert trigger in description, trigger
    assert body.lstrip().startswith("# ")


def test_command_frontmatter_and_body() -> None:
    fields, body = frontmatter(read(COMMAND))
    assert fields["description"]
    assert fields["argument-hint"]
    assert fields["disable-model-invocation"] == "true"
    assert "$ARGUMENTS" in body
    assert "second-opinion" in body
    for element in ("critic seat", "expert lenses", "debate mode", "Claude in the council"):
        assert element in body


def test_the_skill_names_its_companion_files_and_they_exist() -> None:
    text = read(SKILL)
    for companion in ("MODEL-NOTES.md", "SEAT-BRIEFS.md", "COUNCIL-DESIGN.md"):
        assert companion in text
        assert (SKILL_DIR / companion).is_file()


LINKED = [*SKILL_FILES, COMMAND, README, REPO / "docs" / "mcp.md"]


@pytest.mark.parametrize("path", LINKED, ids=[str(p.relative_to(REPO)) for p in LINKED])
def test_relative_links_resolve(path) -> None:  # type: ignore[no-untyped-def]
    _, prose = split_markdown(read(path))
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+:|#", target):
            continue
        if not (path.parent / target.split("#", 1)[0]).exists():
            broken.append(target)
    assert broken == []


def readme_section(title: str) -> str:
    text = read(README)
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start: end if end != -1 else None]


def test_the_readme_has_exactly_two_set_up_commands() -> None:
    fences, _ = split_markdown(readme_section("Set up and run"))
    assert len(fences) == 1
    commands = [line.split("#", 1)[0].strip() for line in fences[0].body.splitlines() if line.strip()]
    assert commands == ["scripts/main.sh", "scripts/test.sh"]
    for script in commands:
        assert os.access(REPO / script, os.X_OK), script
    assert "scripts/test.sh" in read(REPO / ".ci" / "run")


def test_the_readme_covers_what_the_issue_asks_for() -> None:
    text = read(README)
    for needle in ("![", "docs/report.png", "uvx", "pipx", "pip install", "claude mcp add", "claude_desktop_config.json",
                   "AMICUS_CONFIG_DIR", ".env", "amicus doctor", "## CLI by example", "## Documents and schemas",
                   "## Exit codes", "What leaves your machine", "amicus watch --ui", "127.0.0.1", "docs/mcp.md",
                   ".claude-plugin/plugin.json", "/council"):
        assert needle in text, needle
    assert (REPO / "docs" / "report.png").read_bytes().startswith(b"\x89PNG")
    assert os.access(REPO / "docs" / "report-screenshot.sh", os.X_OK)


def test_every_shipped_schema_is_listed_in_the_readme() -> None:
    from amicus_mcp.schemas import SCHEMA_NAMES

    table = readme_section("Documents and schemas")
    assert sorted(n for n in SCHEMA_NAMES if f"`{n}`" not in table) == []
