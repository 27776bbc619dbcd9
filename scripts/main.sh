#!/usr/bin/env bash
# The main job: a real council run over the sample design note in examples/rate-limiter.
#
# With no API key it runs the built-in `local` bench on the embedded model (installed once by
# scripts/install-local-model.sh; the first build of llama-cpp-python takes ~10 minutes).
# With OPENROUTER_API_KEY set, the same command runs a cloud bench instead.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
OUT="${1:-out/council-demo}"
rm -rf "$OUT"

if [ -n "${OPENROUTER_API_KEY:-}" ]; then
  BENCH=(--council budget --chair gemini --max-cost 1.00)
else
  bash scripts/install-local-model.sh "$VENV"
  BENCH=(--council local)
fi

set +e
amicus council run "${BENCH[@]}" --prompt-file examples/rate-limiter/briefing.md --out-dir "$OUT"
code=$?
set -e
case "$OUT" in /*) DIR="$OUT" ;; *) DIR="$ROOT/$OUT" ;; esac
echo
echo "Run directory: $DIR"
echo "Open the report: $DIR/report.html"
# 0 = clean, 2 = finished but degraded (see run.json "degrades"); anything else failed.
[ "$code" -eq 0 ] || [ "$code" -eq 2 ]
