"""The Council Workspace: watch a council think, in the browser.

`amicus watch --ui [RUN_ID]` serves a small local page (`server`) on 127.0.0.1 with a
per-launch secret token; the page polls one JSON snapshot of a run directory (`snapshot`,
built from `rundir` reads and the `panels` builders) and renders it with DOM text nodes only.
Its two actions are Abort (the engine's own abort path) and Fold (`fold`: a write-once
summary block). `terminal` renders the same snapshot as a live terminal view for
`amicus watch RUN_ID` without `--ui`.

Layering: a front. It reads `engine/` state and `council/` documents, and never writes to
a run directory except through the engine's abort and its own write-once fold file.
"""

DEFAULT_STALL_S = 180.0  # seconds without leg activity before a live run is flagged stalled
DEFAULT_IDLE_EXIT_S = 600.0  # seconds without a request before a finished run's server exits
