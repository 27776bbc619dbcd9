#!/usr/bin/env bash
# Re-renders docs/report.png, the README's picture: the worked example's report.html after its
# Stage-4 decisions, photographed by headless Chromium (Debian's package; nothing downloaded).
# Nothing is sent anywhere and the ledger is not touched (--no-ledger, a throw-away config dir).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AMICUS="$ROOT/.venv/bin/amicus"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export AMICUS_CONFIG_DIR="$WORK/config"
EXAMPLE="$ROOT/examples/worked-example"

"$AMICUS" council tally "$EXAMPLE/tally-input.json" --json --no-ledger > "$WORK/tally.json"
"$AMICUS" council verdict "$WORK/tally.json" --decisions "$EXAMPLE/decisions.json" -o "$WORK/verdict.json" --render >/dev/null
chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$WORK/chromium" \
  --hide-scrollbars --screenshot="$ROOT/docs/report.png" --window-size=1100,1340 \
  "file://$WORK/report.html" 2>/dev/null
echo "wrote $ROOT/docs/report.png"
