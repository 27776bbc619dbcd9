#!/usr/bin/env bash
# The whole test suite. Extra arguments go to pytest (e.g. scripts/test.sh -k tally).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
exec "$VENV/bin/python" -m pytest "$@"
