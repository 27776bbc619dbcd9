"""Reading a setting from the environment, where "not set" has three spellings.

A variable that is absent, empty (or blank), or still the placeholder an installer meant to
fill in — `${user_config.NAME}`, which Claude Desktop's bundle runtime leaves in place for an
optional field the user never set — is not set. `setting` reads a variable that way;
`scrub_placeholders` removes the unfilled ones from an environment once, at start-up, so
nothing downstream (the engine, the processes it starts) ever sees one.

A key is held to more: any value shaped like a template placeholder (`looks_like_placeholder`:
`${…}` in any case, with or without its closing brace, `{{…}}`, `$NAME`, `%NAME%`, `<…>`) is
something an installer or a config file failed to fill in — no provider's key looks like that —
so it is never sent as one (`providers.keys.get_key`), on any front.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, MutableMapping

PLACEHOLDER = re.compile(r"^\$\{user_config\.[^}]*\}$")
# What an unfilled template leaves: no API key starts with `${`, `{{` or `$(`, or is a bare
# `$NAME`, `%NAME%` or `<…>`.
TEMPLATE_SHAPED = re.compile(r"^(?:\$\{|\{\{|\$\(|\$[A-Za-z_][A-Za-z0-9_]*$|%[A-Za-z_][A-Za-z0-9_]*%$|<[^<>]*>$)")


def looks_like_placeholder(value: str) -> bool:
    """Whether `value` is an unfilled template placeholder rather than a real value."""
    return bool(TEMPLATE_SHAPED.match(value.strip()))


def is_unset(value: str | None) -> bool:
    return value is None or not value.strip() or bool(PLACEHOLDER.match(value.strip()))


def setting(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """The variable's value, stripped; None when it is not set in any of the three ways."""
    value = (os.environ if env is None else env).get(name)
    return None if value is None or is_unset(value) else value.strip()


def scrub_placeholders(environ: MutableMapping[str, str], names: tuple[str, ...] = ()) -> list[str]:
    """Remove every unfilled placeholder, and each of `names` that is empty; the names removed."""
    gone = [name for name, value in environ.items()
            if PLACEHOLDER.match(value.strip()) or (name in names and not value.strip())]
    for name in gone:
        del environ[name]
    return sorted(gone)
