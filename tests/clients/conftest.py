"""Tests that drive the server through real third-party clients, installed from npm by .ci/run.

The clients live in tests/clients/node (package.json and package-lock.json pin them). Outside
CI a missing client skips its tests; under CI (CI set) it fails them — CI installs the clients,
and a client that is not there is a broken CI, never a reason to pass.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "mcp"))  # council_script (the fake council's replies) and the fixtures
sys.path.insert(0, str(HERE.parent / "workspace"))  # workspace_helpers (scripted seats) for the MCP App view

from browsers import browser, page  # noqa: E402,F401 - headless Chromium, shared with tests/workspace
from mcp_fixtures import briefing, project  # noqa: E402,F401 - the same project set-up as tests/mcp
