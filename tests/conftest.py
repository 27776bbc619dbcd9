"""Suite-wide guard: no test may reach a real provider.

Every OpenRouter call (the catalog included) goes to a closed port on this machine unless a
test points it at the loopback fake provider itself. Subprocesses inherit the variable.
"""

from __future__ import annotations

import pytest

CLOSED_LOOPBACK = "http://127.0.0.1:9/api/v1"  # the discard port: nothing listens here


@pytest.fixture(autouse=True)
def no_real_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", CLOSED_LOOPBACK)
