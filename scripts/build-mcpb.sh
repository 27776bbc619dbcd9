#!/usr/bin/env bash
# Build the MCP Bundle Claude Desktop installs with a double-click: dist/amicus-mcp-<version>.mcpb.
#
#   scripts/build-mcpb.sh [--out DIR]
#
# It checks that manifest.json is what the server itself says (tools, version, description:
# python -m amicus_mcp.contracts --check), stages exactly what the bundle runs from
# (manifest.json, pyproject.toml, README.md, src/, the view's screenshots the manifest names), locks the dependencies with uv (the lock
# travels in the bundle, so every install resolves the same versions), then validates and
# packs with the real mcpb CLI (npm @anthropic-ai/mcpb, pinned).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"

MCPB_VERSION="2.1.2"   # the same pin as tests/clients/node/package.json
out="$ROOT/dist"
if [ "${1:-}" = "--out" ] && [ -n "${2:-}" ]; then
  out="$2"
elif [ $# -gt 0 ]; then
  echo "usage: scripts/build-mcpb.sh [--out DIR]" >&2
  exit 2
fi

if [ -x "$ROOT/tests/clients/node/node_modules/.bin/mcpb" ]; then
  mcpb=("$ROOT/tests/clients/node/node_modules/.bin/mcpb")
elif command -v npx >/dev/null 2>&1; then
  mcpb=(npx --yes "@anthropic-ai/mcpb@$MCPB_VERSION")
else
  echo "build-mcpb: needs the mcpb CLI: install Node.js (npx), or run npm ci --prefix tests/clients/node" >&2
  exit 1
fi
uv="$(command -v uv || true)"
[ -x "$VENV/bin/uv" ] && uv="$VENV/bin/uv"
if [ -z "$uv" ]; then
  echo "build-mcpb: needs uv to lock the bundle's dependencies: pip install uv" >&2
  exit 1
fi

"$VENV/bin/python" -m amicus_mcp.contracts --check
version="$("$VENV/bin/python" -c 'import amicus_mcp; print(amicus_mcp.__version__)')"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp manifest.json pyproject.toml README.md "$stage/"
mkdir -p "$stage/src"
cp -R src/amicus_mcp "$stage/src/"
mkdir -p "$stage/docs/screenshots"
cp docs/screenshots/view-*.png "$stage/docs/screenshots/"
find "$stage" \( -name __pycache__ -o -name '*.pyc' -o -name '*.egg-info' \) -prune -exec rm -rf {} +
"$uv" lock --quiet --directory "$stage"

"${mcpb[@]}" validate "$stage/manifest.json"
mkdir -p "$out"
target="$out/amicus-mcp-$version.mcpb"
"${mcpb[@]}" pack "$stage" "$target" >&2
echo "$target"
