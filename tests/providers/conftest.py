"""Provider tests: each runs in the suite's own empty config dir (`config_dir`: no key, config or
catalog cache of the developer's), with the suite's fake provider (`fake`) where it asks for one."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _own_config_dir(config_dir: Path) -> None:
    """Asked for by every test here, so none reads the developer's keys or cache."""
