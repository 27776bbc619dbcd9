"""Print the package's version, read from the one place it is written (src/amicus_mcp/__init__.py)
without importing the package, so it works before anything is installed (the release workflow)."""

import re
from pathlib import Path

INIT = Path(__file__).resolve().parents[1] / "src" / "amicus_mcp" / "__init__.py"
print(re.search(r'^__version__ = "([^"]+)"$', INIT.read_text(encoding="utf-8"), re.M).group(1))  # type: ignore[union-attr]
