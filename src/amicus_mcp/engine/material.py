"""What may be sent to models: material (a briefing, an artifact, a template's variable,
Claude's review) is checked for secrets before any of it leaves the machine.

Its own module because both pre-flight (the prompt file, a worker's briefing copy) and the
briefing's composition (each part on its own, then the whole) check material.
"""

from __future__ import annotations

from ..errors import SecretInMaterial

MAX_HITS_SHOWN = 5


def check_material(text: str, *, what: str, allow_secrets: bool = False) -> str:
    """`text` as it may be sent to models; SECRET_IN_MATERIAL when it holds a secret.

    A hit names its line and kind, never the value. With `allow_secrets` the material goes
    out as written, except the values of keys configured on this machine, which are masked:
    those never reach a model.
    """
    from ..secrets import mask_configured, scan_material

    if allow_secrets:
        return mask_configured(text)
    hits = scan_material(text)
    if not hits:
        return text
    shown = "; ".join(hit.describe() for hit in hits[:MAX_HITS_SHOWN])
    more = f" (and {len(hits) - MAX_HITS_SHOWN} more)" if len(hits) > MAX_HITS_SHOWN else ""
    raise SecretInMaterial(
        f"{what} looks like it contains a secret, which would be sent to every model: {shown}{more}",
        hint="remove it from the material; if it is not a real secret, pass --allow-secrets "
             "(allowSecrets: true over MCP)",
    )
