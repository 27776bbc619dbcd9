"""The OpenRouter model catalog: which ids exist and what they cost.

`GET {base}/models` needs no key. The result is cached at
`<config_dir>/model-catalog.json` for 24 hours, keyed by the endpoint it came from (`baseUrl`:
the OpenRouter base URL the run's calls go to — the env override, config, or the public API).
A cache of another endpoint (or one that predates the key) is no cache: what one endpoint
lists and supports says nothing of another's.

    {"schemaVersion": 2, "type": "model-catalog", "baseUrl": "https://openrouter.ai/api/v1",
     "fetchedAt": "<ISO 8601 UTC>",
     "models": [{"id", "name", "contextLength", "pricing": {"prompt", "completion"},
                 "supportedParameters"?: ["response_format", "structured_outputs", …]}],
     "lastRefreshAttempt"?: "...", "lastRefreshError"?: "..."}

Prices are USD per TOKEN, parsed from OpenRouter's decimal strings with `Decimal`.
A model whose price is missing or negative (OpenRouter uses -1 for "variable") is
unpriced (`pricing: null`), never free.

The catalog is advisory: when it cannot be fetched and there is no cache, it is empty,
and an empty catalog means "cannot validate" — it never blocks a run. A failed refresh
keeps the stale cache, and is not retried for an hour so an offline machine does not
pay a connect timeout on every command.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta, UTC
from decimal import Decimal, InvalidOperation
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple, NotRequired, Protocol, TypedDict

import anyio
import httpx

from ..config import config_dir
from ..errors import AmicusError, BadModel
from ..fsio import atomic_write_json, loads_json, read_json
from ..schemas import JsonObject
from ..vocabulary import CatalogState
from .endpoints import openrouter_base_url

CATALOG_FILE = "model-catalog.json"
CATALOG_SCHEMA_VERSION = 2
CATALOG_TTL = timedelta(hours=24)
FAILED_REFRESH_BACKOFF = timedelta(hours=1)
FETCH_TIMEOUT_S = 30.0
OPENROUTER_PREFIX = "openrouter/"


class Pricing(NamedTuple):
    """USD per token."""

    prompt: float
    completion: float

    @property
    def is_free(self) -> bool:
        return self.prompt == 0 and self.completion == 0

    @property
    def max_per_mtok(self) -> float:
        """The dearer of the two prices, in USD per million tokens (what the cost gate compares)."""
        return max(self.prompt, self.completion) * 1_000_000

    @classmethod
    def parse(cls, raw: Any) -> Pricing | None:
        """From `{"prompt": "0.000002", "completion": "0.00001"}`; None when unusable."""
        if not isinstance(raw, Mapping):
            return None
        prompt, completion = _price(raw.get("prompt")), _price(raw.get("completion"))
        if prompt is None or completion is None:
            return None
        return cls(prompt=prompt, completion=completion)

    def to_doc(self) -> dict[str, float]:
        return {"prompt": self.prompt, "completion": self.completion}


class ModelRowDoc(TypedDict):
    """One model of the catalog cache file (`models[]`)."""

    id: str
    name: str
    contextLength: int | None
    pricing: dict[str, float] | None
    supportedParameters: NotRequired[list[str]]


def _price(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    if not number.is_finite() or number < 0:
        return None
    return float(number)


class ModelInfo(NamedTuple):
    id: str
    name: str
    context_length: int | None
    pricing: Pricing | None
    supported_parameters: tuple[str, ...] | None = None  # the request parameters the model honours

    def to_doc(self) -> ModelRowDoc:
        doc: ModelRowDoc = {
            "id": self.id,
            "name": self.name,
            "contextLength": self.context_length,
            "pricing": self.pricing.to_doc() if self.pricing else None,
        }
        if self.supported_parameters is not None:
            doc["supportedParameters"] = list(self.supported_parameters)
        return doc

    @classmethod
    def from_doc(cls, doc: Any) -> ModelInfo | None:
        """A row of our cache file, or of OpenRouter's `data[]` (snake_case)."""
        if not isinstance(doc, Mapping) or not isinstance(doc.get("id"), str) or not doc["id"].strip():
            return None
        model_id = doc["id"].strip()
        raw_name = doc.get("name")
        name = raw_name if isinstance(raw_name, str) else model_id
        length = doc.get("contextLength", doc.get("context_length"))
        context = length if isinstance(length, int) and not isinstance(length, bool) and length > 0 else None
        raw_params = doc.get("supportedParameters", doc.get("supported_parameters"))
        params = (tuple(p for p in raw_params if isinstance(p, str)) if isinstance(raw_params, list) else None)
        return cls(id=model_id, name=name, context_length=context, pricing=Pricing.parse(doc.get("pricing")),
                   supported_parameters=params)


class Catalog(NamedTuple):
    models: Mapping[str, ModelInfo] = MappingProxyType({})
    fetched_at: datetime | None = None
    state: CatalogState = "unavailable"
    error: str | None = None  # why the last refresh failed, when it did

    @property
    def is_empty(self) -> bool:
        return not self.models

    def get(self, model_id: str) -> ModelInfo | None:
        return self.models.get(catalog_key(model_id))

    def price(self, model_id: str) -> Pricing | None:
        info = self.get(model_id)
        return info.pricing if info else None

    def has(self, model_id: str) -> bool | None:
        """True/False, or None when the catalog is empty and so cannot say."""
        return None if self.is_empty else self.get(model_id) is not None


def catalog_key(model_id: str) -> str:
    """Catalog ids are `vendor/model`; accept the `openrouter/`-prefixed route form too."""
    stripped = model_id.strip()
    rest = stripped[len(OPENROUTER_PREFIX) :] if stripped.startswith(OPENROUTER_PREFIX) else ""
    return rest if "/" in rest else stripped  # `openrouter/auto` is itself a catalog id


def catalog_path() -> Path:
    return config_dir() / CATALOG_FILE


def catalog_endpoint(base_url: str | None = None) -> str:
    """The OpenRouter base URL the catalog is fetched from and its cache keyed by: the one the
    run's OpenRouter calls go to (an explicit URL, the env override, config, the public API)."""
    from ..config import load_config

    try:
        cfg = load_config()
    except AmicusError:
        cfg = {}  # a broken config is reported where it is used; the catalog is only advisory
    return openrouter_base_url(base_url, cfg)


# --------------------------------------------------------------------- the cache


def read_cached_catalog(*, now: datetime | None = None, ttl: timedelta = CATALOG_TTL,
                        base_url: str | None = None) -> Catalog:
    """The endpoint's cached catalog whatever its age (no network); empty when there is none."""
    doc = _read_cache_doc(catalog_endpoint(base_url))
    if doc is None:
        return Catalog()
    raw_rows = doc.get("models")
    rows: list[Any] = raw_rows if isinstance(raw_rows, list) else []
    models = {info.id: info for info in (ModelInfo.from_doc(r) for r in rows) if info is not None}
    fetched_at = _parse_time(doc.get("fetchedAt"))
    if not models or fetched_at is None:
        return Catalog(error=_str(doc.get("lastRefreshError")))
    fresh = _utcnow(now) - fetched_at < ttl
    return Catalog(
        models=models,
        fetched_at=fetched_at,
        state="cached" if fresh else "stale",
        error=_str(doc.get("lastRefreshError")),
    )


def _read_cache_doc(endpoint: str) -> JsonObject | None:
    """The cache document, when it is the catalog of `endpoint`."""
    path = catalog_path()
    if not path.exists():
        return None
    try:
        doc = read_json(path, what="model catalog cache")
    except AmicusError:
        return None  # a corrupt cache is the same as no cache: it is only advisory
    if not isinstance(doc, dict) or doc.get("schemaVersion") != CATALOG_SCHEMA_VERSION:
        return None
    if doc.get("baseUrl") != endpoint:
        return None  # another endpoint's catalog (or an unkeyed one): no cache for this one
    return doc


def write_catalog(models: Iterable[ModelInfo], *, now: datetime | None = None,
                  base_url: str | None = None) -> Catalog:
    """Cache a catalog fetched from the endpoint; an unwritable config dir costs the cache, not the result."""
    stamp = _utcnow(now)
    rows = sorted(models, key=lambda m: m.id)
    doc = {
        "schemaVersion": CATALOG_SCHEMA_VERSION,
        "type": "model-catalog",
        "baseUrl": catalog_endpoint(base_url),
        "fetchedAt": _iso(stamp),
        "models": [m.to_doc() for m in rows],
    }
    error = _try_write(doc)
    return Catalog(models={m.id: m for m in rows}, fetched_at=stamp, state="fresh", error=error)


def _record_failed_refresh(error: str, now: datetime, endpoint: str) -> None:
    doc = _read_cache_doc(endpoint) or {
        "schemaVersion": CATALOG_SCHEMA_VERSION,
        "type": "model-catalog",
        "baseUrl": endpoint,
        "fetchedAt": None,
        "models": [],
    }
    doc["lastRefreshAttempt"] = _iso(now)
    doc["lastRefreshError"] = error
    _try_write(doc)


def _try_write(doc: Mapping[str, object]) -> str | None:
    try:
        atomic_write_json(catalog_path(), doc)
    except OSError as exc:
        return f"cannot write {catalog_path()}: {exc.strerror or type(exc).__name__}"
    return None


def _recently_failed(now: datetime, endpoint: str) -> bool:
    doc = _read_cache_doc(endpoint)
    attempted = _parse_time(doc.get("lastRefreshAttempt")) if doc else None
    return attempted is not None and now - attempted < FAILED_REFRESH_BACKOFF


# ------------------------------------------------------------------ the network


class CatalogUnavailable(Exception):
    """The catalog could not be fetched; the message says why (no secrets involved)."""


async def load_catalog(
    *,
    refresh: bool = False,
    base_url: str | None = None,
    client: httpx.AsyncClient | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    now: datetime | None = None,
    ttl: timedelta = CATALOG_TTL,
    timeout_s: float = FETCH_TIMEOUT_S,
    save: bool = True,
) -> Catalog:
    """The catalog, refreshed from the network when the cache is older than `ttl`.

    Never raises for network trouble: the result is the stale cache or an empty catalog,
    with `error` saying what went wrong. `save=False` (a check that must not write, such as
    `amicus doctor` without `--fix`) fetches without writing the cache or its failure.
    """
    current = _utcnow(now)
    endpoint = catalog_endpoint(base_url)
    cached = read_cached_catalog(now=current, ttl=ttl, base_url=endpoint)
    if not refresh and (cached.state == "cached" or _recently_failed(current, endpoint)):
        return cached
    try:
        models = await fetch_catalog(base_url=endpoint, client=client, transport=transport, timeout_s=timeout_s)
    except CatalogUnavailable as exc:
        if save:
            _record_failed_refresh(str(exc), current, endpoint)
        return Catalog(models=cached.models, fetched_at=cached.fetched_at, state=cached.state, error=str(exc))
    if not save:
        return Catalog(models={m.id: m for m in models}, fetched_at=current, state="fresh")
    return write_catalog(models, now=current, base_url=endpoint)


async def fetch_catalog(
    *,
    base_url: str | None = None,
    client: httpx.AsyncClient | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout_s: float = FETCH_TIMEOUT_S,
) -> list[ModelInfo]:
    url = f"{catalog_endpoint(base_url)}/models"
    own = client is None
    http = client if client is not None else httpx.AsyncClient(transport=transport)
    try:
        with anyio.fail_after(timeout_s):
            response = await http.get(url, timeout=httpx.Timeout(min(10.0, timeout_s), read=timeout_s))
    except (httpx.HTTPError, TimeoutError) as exc:
        raise CatalogUnavailable(f"cannot fetch {url}: {type(exc).__name__}") from exc
    finally:
        if own:
            await http.aclose()
    return parse_catalog_reply(response, url)


def parse_catalog_reply(response: httpx.Response, url: str) -> list[ModelInfo]:
    if response.status_code != 200:
        raise CatalogUnavailable(f"{url} answered HTTP {response.status_code}")
    try:
        body = loads_json(response.content, what="the catalog")
    except AmicusError as exc:
        raise CatalogUnavailable(f"{url} did not return JSON ({exc.message})") from None
    rows = body.get("data") if isinstance(body, dict) else None
    models = [m for m in (ModelInfo.from_doc(r) for r in rows or []) if m is not None] if isinstance(rows, list) else []
    if not models:
        # An empty list would make every id "missing"; treat it as a failed refresh.
        raise CatalogUnavailable(f"{url} returned no models")
    return models


# ------------------------------------------------------------------- lookups


class Routed(Protocol):
    """Anything that knows its catalog id (a routing.Route); None means "not checkable"."""

    @property
    def catalog_id(self) -> str | None: ...


def validate_models(items: Iterable[str | Routed], catalog: Catalog | None = None) -> None:
    """Pre-flight: BadModel for ids missing from a non-empty catalog; empty → no opinion.

    Strings are OpenRouter ids (`vendor/model` or `openrouter/vendor/model`); `local…` ids
    are skipped. A route is checked by its `catalog_id`, which is None for routes that do
    not go through OpenRouter (direct APIs and your own servers answer for themselves).
    """
    cat = read_cached_catalog() if catalog is None else catalog
    if cat.is_empty:
        return
    missing = [model_id for model_id in _checkable_ids(items) if not cat.has(model_id)]
    if missing:
        names = ", ".join(f"'{m}'" for m in missing)
        raise BadModel(
            f"Model {names} {'is' if len(missing) == 1 else 'are'} not in the OpenRouter model catalog",
            hint="check the id at openrouter.ai/models (the catalog refreshes every 24 h), or skip the check with --no-validate-model",
        )


def _checkable_ids(items: Iterable[str | Routed]) -> list[str]:
    ids: list[str] = []
    for item in items:
        model_id = item if isinstance(item, str) else item.catalog_id
        if model_id and model_id != "local" and not model_id.startswith("local/"):
            ids.append(model_id)
    return ids


def free_models(limit: int = 3, *, catalog: Catalog | None = None) -> list[str]:
    """Up to `limit` `:free` models, one per vendor (by vendor, then id), as OpenRouter routes.

    Reads the cache only (any age); an empty list when nothing is known, so the caller
    falls back to its offline list.
    """
    cat = read_cached_catalog() if catalog is None else catalog
    picked: dict[str, str] = {}
    for model_id in sorted(m for m in cat.models if m.endswith(":free") and "/" in m):
        vendor = model_id.split("/", 1)[0]
        if vendor != "openrouter" and vendor not in picked:  # skip OpenRouter's own meta-routers
            picked[vendor] = model_id
    return [OPENROUTER_PREFIX + picked[v] for v in sorted(picked)][: max(0, limit)]


# ------------------------------------------------------------------- helpers


def _utcnow(now: datetime | None) -> datetime:
    return now if now is not None else datetime.now(UTC)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
