"""docs/mcp.md's tables as cells: the tool table, the hosts table and the run options' table
(tests/mcp/test_docs_match_server.py holds them to the server; tests/test_contracts.py reads
the run options' table of a changed copy)."""

from __future__ import annotations


def table_rows(text: str, header: str) -> list[list[str]]:
    """The cells of the Markdown table whose header row starts with `header`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def run_option_arguments(text: str) -> dict[str, set[str]]:
    """tool → the arguments the run options' table (generated from engine/options.py) marks it
    as taking."""
    start = "| argument | `amicus_council_run` |"
    header = next(line for line in text.splitlines() if line.startswith(start))
    tools = [cell.strip().strip("`") for cell in header.strip("|").split("|")[1:4]]
    rows = table_rows(text, start)
    return {tool: {row[0].strip("`") for row in rows if row[1 + i] == "✓"} for i, tool in enumerate(tools)}
