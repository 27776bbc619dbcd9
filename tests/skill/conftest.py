"""The skill's tests read the shipped Markdown beside the package; the helpers live next door."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
