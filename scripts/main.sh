#!/usr/bin/env bash
# The main job. For now: the offline council pipeline on the seed's worked example
# (tally → verdict → report), using the real `amicus` CLI. No model, no key, no network.
# The ledger goes to a config dir inside the output folder so a demo never pollutes yours.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
IN="examples/worked-example"
OUT="${1:-out/worked-example}"
rm -rf "$OUT"
mkdir -p "$OUT"
export AMICUS_CONFIG_DIR="$OUT/config"

amicus council validate "$IN/review-deepseek.md"
amicus council tally "$IN/tally-input.json" --json > "$OUT/tally.json"
amicus council tally "$IN/tally-input.json" --no-ledger
amicus council verdict "$OUT/tally.json" --decisions "$IN/decisions.json" -o "$OUT/verdict.json" --render
amicus council report "$OUT/verdict.json" --md -o "$OUT/report-render.md"
amicus council stats
echo
echo "Report: $ROOT/$OUT/report.html"
echo "        $ROOT/$OUT/report-render.md"
