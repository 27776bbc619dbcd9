# Sourced by the other scripts: make sure .venv exists and holds this checkout's package.
# Re-installs only when pyproject.toml changed since the last install (a stamp file records it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PYTHON_BIN="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
  echo "» creating $VENV" >&2
  "$PYTHON_BIN" -m venv "$VENV"
fi
stamp="$VENV/.amicus-installed"
want="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || ! "$VENV/bin/python" -c "import amicus_mcp" 2>/dev/null; then
  echo "» installing amicus-mcp (editable) with its test extra into $VENV" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT[test]" 2>&1 \
    | grep -v "^WARNING: Location" >&2 || true
  "$VENV/bin/python" -c "import amicus_mcp" # fail loudly if the install did not work
  echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
