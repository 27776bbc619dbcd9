"""Engine tests run against the loopback fake provider, configured as a server of your own.

The shared council helpers (fake members, document checks) live in `council_helpers.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from council_fixtures import brief, council, run_dir  # noqa: E402,F401 - shared with tests/agents
from fakeprovider import FakeProvider  # noqa: E402



@pytest.fixture
def gateway(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> FakeProvider:
    """The fake server as OpenRouter, with a catalog that prices every model: `openrouter/vendor/<x>`
    routes are `gateway` routes whose claim is about $0.16 a review leg and $0.12 a judgement or chair leg
    (each reserves its output cap at $10/Mtok)."""
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test-dummy")
    fake.catalog = [{"id": f"vendor/{n}", "name": n, "context_length": 100000,
                     "pricing": {"prompt": "0.000001", "completion": "0.00001"}} for n in ("a", "b", "c", "chair")]
    return fake
