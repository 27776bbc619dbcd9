"""Headless Chromium for the browser tests (the workspace page, and the MCP App view in a real host).

Debian's Chromium (/usr/bin/chromium, or $AMICUS_CHROMIUM) driven through Playwright's Python
driver — the browser is never downloaded. Without Playwright or Chromium the browser tests fail
under CI (CI=true) and are skipped elsewhere, with the reason.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions"]


def _chromium_path() -> str | None:
    path = os.environ.get("AMICUS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).is_file() else None


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests need {reason} (CI must install it)")
    pytest.skip(f"browser tests need {reason}")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module. Not longer: Playwright's sync driver keeps an event loop
    on the main thread while it runs, which later tests' own event loops must not meet."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the 'playwright' Python package (the test extra)")
    executable = _chromium_path()
    if executable is None:
        _unavailable("Chromium at /usr/bin/chromium (apt-get install chromium)")
    with sync_playwright() as driver:
        instance = driver.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS, headless=True)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context's page that records every request it makes."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.requests = []  # type: ignore[attr-defined]
    tab.errors = []  # type: ignore[attr-defined]
    tab.on("request", lambda request: tab.requests.append(request.url))  # type: ignore[attr-defined]
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))  # type: ignore[attr-defined]
    yield tab
    context.close()
