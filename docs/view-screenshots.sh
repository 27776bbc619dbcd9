#!/usr/bin/env bash
# Re-makes docs/screenshots/view-{1-stage1,2-stage2,3-verdict}.png: the inline council view (MCP
# Apps) as a real host renders it in headless Chromium (Debian's package; nothing downloaded),
# from a council run against the loopback fake provider — nothing is sent anywhere. It records
# the served view's SHA-256 in docs/screenshots/view.sha256, which a test compares with the
# view the server serves now (tests/clients/test_view_screenshots.py).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AMICUS_SCREENSHOTS=1 bash "$ROOT/scripts/test.sh" "$ROOT/tests/clients/test_view_screenshots.py" -q -k make
echo "wrote $ROOT/docs/screenshots"
