"""A resolved route: which provider answers a model, under which id (`routing` resolves one).

Its own module because both `routing` (which resolves routes and builds providers) and
`profiles` (what a route's model supports, which routing asks) name it.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

RouteKind = Literal["gateway", "direct", "server", "embedded", "agent"]


class Route(NamedTuple):
    provider: str  # "openrouter", a direct vendor, "embedded", "cli:<name>" (an agent CLI), or a configured server's name
    model: str  # the id sent to that provider
    canonical: str  # vendor/model with no gateway prefix ("local…" for the embedded model, "cli:…" for an agent)
    kind: RouteKind
    alias: str | None = None  # the alias typed, when one was

    @property
    def catalog_id(self) -> str | None:
        """The id to check against the OpenRouter catalog; None when it does not apply."""
        return self.model if self.kind == "gateway" else None

    @property
    def pricing_id(self) -> str | None:
        """The catalog id whose price stands for this route; None for your own hardware."""
        if self.kind == "gateway":
            return self.model
        return self.canonical if self.kind == "direct" else None
