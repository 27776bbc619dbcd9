"""Headless Chromium for browser tests: Debian's /usr/bin/chromium (or $AMICUS_CHROMIUM) driven by
Playwright's Python package — the browser is never downloaded. Without Playwright or Chromium a
browser test fails under CI (CI=true) and is skipped elsewhere, with the reason.

Test folders take the fixture with `from chromium import browser  # noqa: F401`.
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


def chromium_path() -> str | None:
    path = os.environ.get("AMICUS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).is_file() else None


def unavailable(reason: str) -> None:
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
        unavailable("the 'playwright' Python package (the test extra)")
    executable = chromium_path()
    if executable is None:
        unavailable("Chromium at /usr/bin/chromium (apt-get install chromium)")
    with sync_playwright() as driver:
        instance = driver.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS, headless=True)
        yield instance
        instance.close()
