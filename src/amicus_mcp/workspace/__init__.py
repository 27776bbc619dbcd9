"""The Council Workspace: watch a council think, in the browser.

`amicus watch --ui [RUN_ID]` serves a small local page (`server`) on 127.0.0.1 with a
per-launch secret token; the page polls one JSON snapshot of a run directory (`snapshot`,
built from `rundir` reads and the `panels` builders) and renders it with DOM text nodes only.
Its two actions are Abort (the engine's own abort path) and Fold (`fold`: a write-once
summary block). `terminal` renders the same snapshot as a live terminal view for
`amicus watch RUN_ID` without `--ui`.

The same page also runs inline in an MCP host (`amicus_mcp.mcp.app_view`): `mcp-app.js`
swaps its HTTP polling for the host bridge, and `content_security_policy` gives both
homes one policy.

Layering: a front. It reads `engine/` state and `council/` documents, and never writes to
a run directory except through the engine's abort and its own write-once fold file.
"""

DEFAULT_STALL_S = 180.0  # seconds without leg activity before a live run is flagged stalled
DEFAULT_IDLE_EXIT_S = 600.0  # seconds without a request before a finished run's server exits


def content_security_policy(*, scripts: str = "'self'", styles: str = "'self'", connect: str = "'self'",
                            framing: bool = True) -> str:
    """The page's Content-Security-Policy: nothing but its own script and style, no image, no
    form, Trusted Types enforced (no string can ever be parsed as markup). The served page
    takes its assets from its own origin; the inline view pins its inline ones by hash,
    connects nowhere, and leaves `frame-ancestors` out (a `<meta>` policy cannot carry it)."""
    return "; ".join((
        "default-src 'none'",
        f"script-src {scripts}",
        f"style-src {styles}",
        f"connect-src {connect}",
        "img-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        *(["frame-ancestors 'none'"] if framing else []),
        "require-trusted-types-for 'script'",
        "trusted-types 'none'",
    ))
