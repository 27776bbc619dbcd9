"""Static guarantees of the workspace source: model text can only ever become DOM text.

The scan covers every file under src/amicus_mcp/workspace (Python, HTML, CSS and JS): no
markup sink (innerHTML and its equivalents), no string-evaluating call, no inline script,
handler or style in the page, and no URL of any other origin.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import amicus_mcp.workspace as workspace_pkg

ROOT = Path(workspace_pkg.__file__).parent
SINKS = {
    "innerHTML": r"\binnerHTML\b",
    "outerHTML": r"\bouterHTML\b",
    "insertAdjacentHTML": r"\binsertAdjacentHTML\b",
    "document.write": r"\bdocument\s*\.\s*write(ln)?\b",
    "srcdoc": r"\bsrcdoc\b",
    "createContextualFragment": r"\bcreateContextualFragment\b",
    "DOMParser": r"\bDOMParser\b",
    "setHTMLUnsafe / parseHTMLUnsafe": r"\b(set|parse)HTMLUnsafe\b",
    "eval": r"\beval\s*\(",
    "new Function": r"\bnew\s+Function\b",
    "string timer": r"\bset(Timeout|Interval)\s*\(\s*['\"`]",
    "handler property": r"\.on[a-z]+\s*=(?!=)",
    "handler attribute": r"setAttribute\s*\(\s*['\"]on",
    "javascript: URL": r"javascript\s*:",
}
PAGE_ONLY = {
    "inline handler": r"<[^>]*\son[a-z]+\s*=",
    "inline style": r"<[^>]*\sstyle\s*=",
    "inline script": r"<script(?![^>]*\bsrc=)[^>]*>",
    "foreign URL": r"(https?:)?//[a-z0-9]",
}


def violations(text: str, rules: dict[str, str]) -> list[str]:
    return [name for name, pattern in rules.items() if re.search(pattern, text, re.IGNORECASE)]


def sources() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*") if p.is_file() and p.suffix in (".py", ".js", ".html", ".css"))


def test_the_scan_covers_the_page_and_the_server() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in sources()}
    assert {"static/index.html", "static/app.js", "static/app.css", "static/mcp-app.js", "server.py", "snapshot.py"} <= names


@pytest.mark.parametrize("path", sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_markup_sink_anywhere(path: Path) -> None:
    assert violations(path.read_text(encoding="utf-8"), SINKS) == []


@pytest.mark.parametrize("name", ["index.html", "app.js", "app.css", "mcp-app.js"])
def test_the_page_loads_nothing_from_elsewhere(name: str) -> None:
    assert violations((ROOT / "static" / name).read_text(encoding="utf-8"), PAGE_ONLY) == []


def test_the_page_loads_only_its_own_assets() -> None:
    html = (ROOT / "static" / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'<(?:script|link)[^>]*(?:src|href)="([^"]+)"', html) == ["app.css", "app.js"]


@pytest.mark.parametrize("sample, expected", [
    ("node.innerHTML = text", ["innerHTML"]),
    ("el.outerHTML=x", ["outerHTML"]),
    ("el.insertAdjacentHTML('beforeend', s)", ["insertAdjacentHTML"]),
    ("document.write(s)", ["document.write"]),
    ("document . writeln(s)", ["document.write"]),
    ("frame.srcdoc = s", ["srcdoc"]),
    ("range.createContextualFragment(s)", ["createContextualFragment"]),
    ("new DOMParser().parseFromString(s)", ["DOMParser"]),
    ("el.setHTMLUnsafe(s)", ["setHTMLUnsafe / parseHTMLUnsafe"]),
    ("eval(s)", ["eval"]),
    ("new Function(s)", ["new Function"]),
    ("setTimeout('go()', 1)", ["string timer"]),
    ("img.onerror = go", ["handler property"]),
    ("a.setAttribute('onclick', s)", ["handler attribute"]),
    ("a.href = 'javascript:go()'", ["javascript: URL"]),
    ("node.textContent = text; if (a.onerror == b) {}", []),
])
def test_the_scan_catches_each_sink(sample: str, expected: list[str]) -> None:
    assert violations(sample, SINKS) == expected


@pytest.mark.parametrize("sample, expected", [
    ('<img src=x onerror="go()">', ["inline handler"]),
    ('<p style="color:red">', ["inline style"]),
    ("<script>go()</script>", ["inline script"]),
    ('<script src="https://cdn.example/x.js"></script>', ["foreign URL"]),
    ("@import url(//fonts.example/css);", ["foreign URL"]),
    ('<script src="app.js" defer></script>', []),
])
def test_the_page_scan_catches_each_leak(sample: str, expected: list[str]) -> None:
    assert violations(sample, PAGE_ONLY) == expected
